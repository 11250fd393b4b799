/**
 * Embedded log: events live in the same LevelDB as the snapshot (`l/<offset>`), and each group
 * commit writes log entries, the folded state and `m/folded` in ONE synced batch. So the log and the
 * snapshot can never disagree after a crash: either the whole batch is there or none of it is.
 *
 * Group commit: appends queue up while a batch is being written; the next batch takes everything
 * queued (bounded by MAX_BATCH_EVENTS / MAX_BATCH_BYTES) and pays one fsync for all of it.
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
  /** The store's write state (store-health.ts), shared with the other writers of the store. */
  health?: StoreHealth;
}

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

  private constructor(private readonly db: Db, private readonly sink: Materializer, private readonly opts: LevelLogOptions) {
    this.health = opts.health ?? new StoreHealth();
  }

  /**
   * Open on a database whose materializer is already loaded. The log end is the folded offset + 1:
   * they are written in the same batch, so they always agree.
   */
  static async open(db: Db, sink: Materializer, opts: LevelLogOptions = {}): Promise<LevelLog> {
    const log = new LevelLog(db, sink, opts);
    await log.resume();
    if (log.next === 0) await log.append(genesisEvent(Date.now()));
    return log;
  }

  /**
   * Take the log's end from the store (at open, and after the store was reopened by recovery):
   * the last `l/` entry, which must be the materializer's folded offset (same batch).
   */
  async resume(): Promise<void> {
    const last = await lastLogOffset(this.db);
    if (last !== this.sink.folded) {
      throw new StorageError('corrupt', `embedded log ends at ${last} but the snapshot folded ${this.sink.folded}`);
    }
    this.next = last + 1;
  }

  append(event: LogEvent): Promise<number> {
    if (this.closed) return Promise.reject(new StorageError('unreachable', 'log is closed'));
    if (!this.health.writable) return Promise.reject(this.health.refusal());
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
    for await (const [k, v] of this.db.iterator({ gte: logKey(from), lt: logKey(end) })) {
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
        const ops: BatchOp[] = [];
        const positioned: PositionedEvent[] = [];
        let offset = this.next;
        for (const q of batch) {
          ops.push({ type: 'put', key: logKey(offset), value: q.bytes });
          positioned.push({ offset, event: q.event });
          offset++;
        }
        let pending;
        const startedAt = process.hrtime.bigint();
        try {
          pending = await this.sink.foldInto(positioned, ops);
          await this.health.guard(() => writeBatch(this.db, ops, this.opts.sync !== false));
        } catch (err) {
          // This batch is not acknowledged: undo its in-memory fold (synchronously: nobody reads
          // the key index without it) and fail its writers. A failed write also stops the store
          // (health.guard): the batches queued behind it are refused by the check above.
          this.sink.rollback();
          const e = err instanceof StorageError ? err : new StorageError('unreachable', `log write failed: ${(err as Error).message}`);
          for (const q of batch) q.reject(e);
          continue;
        }
        this.next = offset;
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
