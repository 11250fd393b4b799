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
 *
 * Failed writes (store-health.ts): both writes go through the store's `guard`, so the first one
 * that fails stops every writer until StoreKeeper.recover (recovery.ts) has reopened both stores. A failed log
 * write leaves nothing acknowledged: its fold is undone in memory (`rollback`) and its writers get
 * the refusal (503). A failed snapshot write after the log took the batch: the events are durable
 * (in the log) but not applied, so the fold is undone in memory too, the writers get a Timeout
 * (504: the outcome is in the log), and recovery refolds the log into the snapshot from its
 * m/folded (`resume`, the same catch-up as open), which applies them.
 */
import type { EventLog } from './log.ts';
import type { LogInstruments } from './instruments.ts';
import { encodeEvent, decodeEvent, genesisEvent, type LogEvent, type PositionedEvent } from './event.ts';
import type { Db, BatchOp, Materializer } from '../mvcc/materializer.ts';
import { logKey, fromHex16 } from '../keys.ts';
import { StorageError } from '../errors.ts';
import { writeBatch } from '../write-batch.ts';
import { StoreHealth } from '../store-health.ts';

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
  /** The stores' write state (store-health.ts), shared with the other writers of the store. */
  health?: StoreHealth;
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
  private readonly health: StoreHealth;

  /** `logDb`: the log's own store; `snapshot`: the store the materializer folds into. */
  private constructor(private readonly logDb: Db, private readonly snapshot: Db, private readonly sink: Materializer, private readonly opts: LevelLogOptions) {
    this.health = opts.health ?? new StoreHealth();
  }

  /**
   * Open on a log store and the snapshot store whose materializer is already loaded; folds the
   * log entries the snapshot lacks (its last unsynced batches) before anything is served.
   */
  static async open(logDb: Db, snapshot: Db, sink: Materializer, opts: LevelLogOptions = {}): Promise<LevelLog> {
    const log = new LevelLog(logDb, snapshot, sink, opts);
    await log.resume();
    if (log.next === 0) await log.append(genesisEvent(Date.now()));
    return log;
  }

  /**
   * Take the log's end from the log store and fold what the snapshot lacks (at open, and after
   * recovery reopened both stores and re-read the snapshot). Returns the log's last offset.
   * `known`: that offset, when the caller has just read it from the log store (recovery.ts).
   */
  async resume(known?: number): Promise<number> {
    const last = known ?? (await lastLogOffset(this.logDb));
    if (this.sink.folded > last) {
      throw new StorageError('corrupt', `the snapshot has folded up to offset ${this.sink.folded} but the embedded log ends at ${last}: the log lost acknowledged entries`);
    }
    this.next = last + 1;
    await this.catchUp(last);
    return last;
  }

  /** Offset of the last event the log store has durably taken (-1: none). */
  get durableEnd(): number {
    return this.next - 1;
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
    // Whether the store takes writes is checked once per batch (flush, then health.guard), and by
    // Storage.write before the append: not again here.
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
        if (!this.health.writable) {
          // Queued before the store stopped taking writes: refused, nothing of it was written.
          const e = this.health.refusal();
          for (const q of batch) q.reject(e);
          continue;
        }
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
          await this.health.guard(() => writeBatch(this.logDb, logOps, this.opts.sync !== false));
        } catch (err) {
          // This batch is not acknowledged: undo its in-memory fold (synchronously: nobody reads
          // the key index without it) and fail its writers. A failed write also stops the store
          // (health.guard): the batches queued behind it are refused by the check above.
          this.sink.rollback();
          const e = err instanceof StorageError ? err : new StorageError('unreachable', `log write failed: ${(err as Error).message}`);
          for (const q of batch) q.reject(e);
          continue;
        }
        // The events are durable from here on: whatever happens to the snapshot write, they are
        // folded into the snapshot by the next resume() (recovery or the next open).
        this.next = offset;
        try {
          await this.health.guard(() => writeBatch(this.snapshot, ops, false));
        } catch (err) {
          // Not applied: the in-memory fold is undone (the index stays what the snapshot holds),
          // the store refuses writes until recovery has refolded the log into the snapshot.
          this.sink.rollback();
          const why = this.health.problem?.reason ?? (err as Error).message;
          const e = new StorageError('timeout', `the write is in the log but the snapshot store failed (${why}); it is applied once the store recovers`);
          for (const q of batch) q.reject(e);
          continue;
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
