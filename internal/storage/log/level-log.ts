/**
 * Embedded log: events live in a LevelDB of their own (`<data-dir>/log`, keys `l/<offset>`), the
 * snapshot in another (`<data-dir>/db`), so a damaged snapshot never takes the log with it and can
 * be rebuilt from it (`replay repair`).
 *
 * Group commit: appends queue up while a batch is being written; the next batch takes everything
 * queued (bounded by MAX_BATCH_EVENTS / MAX_BATCH_BYTES) and pays one fsync for all of it:
 *
 *   fold the batch (ops for the snapshot) ─► log batch, synced ─► snapshot batch (state + m/folded,
 *   not synced) ─► commit: writers answered, changes published
 *
 * The log is the durable copy; the snapshot may lose its last unsynced batches in an OS crash and
 * is then behind the log, never ahead: open() folds the log from the snapshot's m/folded + 1 to
 * the log's end (each offset exactly once, resourceVersion = offset as always). A snapshot ahead
 * of the log is corruption (a log that lost acknowledged entries), and open() refuses it.
 */
import type { EventLog } from './log.ts';
import type { LogInstruments } from './instruments.ts';
import { encodeEvent, decodeEvent, genesisEvent, type LogEvent, type PositionedEvent } from './event.ts';
import type { Db, BatchOp, Materializer } from '../mvcc/materializer.ts';
import { logKey, fromHex16 } from '../keys.ts';
import { StorageError } from '../errors.ts';
import { writeBatch } from '../write-batch.ts';

/** 512 events x ~1 KiB keeps one batch well under LevelDB's 4 MiB write buffer. */
export const MAX_BATCH_EVENTS = 512;
/** Bytes of event payload per batch; a single larger event still goes alone. */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

interface Queued {
  event: LogEvent;
  bytes: Buffer;
  resolve: (offset: number) => void;
  reject: (err: Error) => void;
}

export interface LevelLogOptions {
  /** fsync each batch (default true). Tests of crash safety rely on it; benchmarks may show the cost. */
  sync?: boolean;
  /** Metrics: each group commit's size and duration. */
  instruments?: LogInstruments;
  /** The snapshot store failed a write the log had taken (the storage's health reports it). */
  onSnapshotFailure?: (err: StorageError) => void;
  /** The fold's read of previous versions from the snapshot failed: returns what to reject the batch's writers with. */
  onFoldReadFailure?: (err: unknown) => unknown;
}

/** Events folded per batch when open() brings the snapshot up to the log's end. */
const CATCH_UP_EVENTS = 2048;

/** Offset of the last `l/` entry of an embedded log, -1 when empty (also for the offline tools). */
export async function lastLogOffset(db: Db): Promise<number> {
  for await (const k of db.keys({ gte: 'l/', lt: 'l0', reverse: true, limit: 1 })) return fromHex16(k.slice(2));
  return -1;
}

export class LevelLog implements EventLog {
  private next = 0;
  private queue: Queued[] = [];
  private flushing = false;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  private idleResolve: (() => void) | null = null;
  /**
   * The snapshot store failed a write after the log had taken the batch: the in-memory fold is
   * ahead of the snapshot and cannot be undone, so no further write is taken until a restart
   * refolds the log (set once, never cleared).
   */
  private failed: StorageError | null = null;

  /** `logDb`: the log's own store; `snapshot`: the store the materializer folds into. */
  private constructor(private readonly logDb: Db, private readonly snapshot: Db, private readonly sink: Materializer, private readonly opts: LevelLogOptions) {}

  /**
   * Open on a log store and the snapshot store whose materializer is already loaded; folds the
   * log entries the snapshot lacks (its last unsynced batches) before anything is served.
   */
  static async open(logDb: Db, snapshot: Db, sink: Materializer, opts: LevelLogOptions = {}): Promise<LevelLog> {
    const log = new LevelLog(logDb, snapshot, sink, opts);
    const last = await lastLogOffset(logDb);
    if (sink.folded > last) {
      throw new StorageError('corrupt', `the snapshot has folded up to offset ${sink.folded} but the embedded log ends at ${last}: the log lost acknowledged entries`);
    }
    log.next = last + 1;
    await log.catchUp(last);
    if (log.next === 0) await log.append(genesisEvent(Date.now()));
    return log;
  }

  /** Fold log entries after the snapshot's m/folded up to `last` into the snapshot (synced at the end). */
  private async catchUp(last: number): Promise<void> {
    let batch: PositionedEvent[] = [];
    const foldBatch = async (sync: boolean): Promise<void> => {
      const ops: BatchOp[] = [];
      const pending = await this.sink.foldInto(batch, ops);
      await writeBatch(this.snapshot, ops, sync);
      this.sink.commit(pending);
      batch = [];
    };
    for await (const e of this.read(this.sink.folded + 1, last + 1)) {
      batch.push(e);
      if (batch.length >= CATCH_UP_EVENTS) await foldBatch(false);
    }
    if (batch.length || this.sink.folded !== last) await foldBatch(true);
    if (this.sink.folded !== last) throw new StorageError('corrupt', `embedded log: folding up to ${last} stopped at ${this.sink.folded} (offsets missing from the log)`);
  }

  append(event: LogEvent): Promise<number> {
    if (this.closed) return Promise.reject(new StorageError('unreachable', 'log is closed'));
    if (this.failed) return Promise.reject(this.failed);
    const bytes = encodeEvent(event);
    return new Promise((resolve, reject) => {
      this.queue.push({ event, bytes, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  async endOffset(): Promise<number> {
    return this.next;
  }

  async *read(from: number, to?: number): AsyncIterable<PositionedEvent> {
    const end = to ?? this.next;
    for await (const [k, v] of this.logDb.iterator({ gte: logKey(from), lt: logKey(end) })) {
      yield { offset: fromHex16(k.slice(2)), event: decodeEvent(v) };
    }
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.takeBatch();
        const logOps: BatchOp[] = [];
        const ops: BatchOp[] = [];
        const positioned: PositionedEvent[] = [];
        let offset = this.next;
        for (const q of batch) {
          logOps.push({ type: 'put', key: logKey(offset), value: q.bytes });
          positioned.push({ offset, event: q.event });
          offset++;
        }
        let pending;
        const startedAt = process.hrtime.bigint();
        try {
          pending = await this.sink.foldInto(positioned, ops).catch((e: unknown) => {
            throw this.opts.onFoldReadFailure?.(e) ?? e;
          });
          await writeBatch(this.logDb, logOps, this.opts.sync !== false);
        } catch (err) {
          // Nothing of this batch is durable: undo the in-memory fold and fail its writers.
          await this.sink.reload().catch(() => undefined);
          const e = err instanceof StorageError ? err : new StorageError('unreachable', `log write failed: ${(err as Error).message}`);
          for (const q of batch) q.reject(e);
          continue;
        }
        // The events are durable from here on: whatever happens to the snapshot write, they are
        // folded at the next open (catchUp), so the in-memory fold must not be undone.
        this.next = offset;
        try {
          await writeBatch(this.snapshot, ops, false);
        } catch (err) {
          this.failed = new StorageError('corrupt', `snapshot store write failed after the log write: ${(err as Error).message}`);
          this.opts.onSnapshotFailure?.(this.failed);
          const e = new StorageError('timeout', `the write is in the log but the snapshot store failed (${(err as Error).message}); it is applied at the next start`);
          for (const q of batch) q.reject(e);
          for (const q of this.queue.splice(0)) q.reject(this.failed);
          break;
        }
        this.opts.instruments?.appended('embedded', batch.length, Number(process.hrtime.bigint() - startedAt) / 1e9);
        this.sink.commit(pending);
        let o = offset - batch.length;
        for (const q of batch) q.resolve(o++);
      }
    } finally {
      this.flushing = false;
      if (this.idleResolve) {
        this.idleResolve();
        this.idleResolve = null;
      }
    }
  }

  private takeBatch(): Queued[] {
    let n = 0;
    let bytes = 0;
    while (n < this.queue.length && n < MAX_BATCH_EVENTS) {
      bytes += this.queue[n].bytes.length;
      n++;
      if (bytes >= MAX_BATCH_BYTES) break;
    }
    return this.queue.splice(0, n);
  }

  async close(): Promise<void> {
    if (this.closed) return this.idle;
    this.closed = true;
    if (this.flushing) {
      this.idle = new Promise((r) => (this.idleResolve = r));
    }
    return this.idle;
  }
}
