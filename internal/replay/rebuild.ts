/**
 * Rebuild a snapshot store from a log: the server's own Materializer folds the events, so the
 * result has exactly the layout (o/, i/, h/, t/, m/folded) a server writes, and — with `copyLog` —
 * the `l/` entries too, which makes it a complete embedded data dir (LevelLog.open requires the
 * last `l/` offset to equal m/folded; both come from the same batches here).
 *
 * Pipelining: the fold of batch k+1 (and the reading/decoding of its events) runs while batch k is
 * being written. The materializer supports exactly one write in flight: a later fold takes the
 * previous versions it needs from its own `unflushed` map instead of o/. At most one batch is
 * written and one built at a time, so memory stays at two batches.
 *
 *   read+fold k   | write k      |
 *                 | read+fold k+1| write k+1 |
 *                                 | read+fold k+2 ...
 */
import type { Db, BatchOp, PendingFold } from '../storage/mvcc/materializer.ts';
import { Materializer } from '../storage/mvcc/materializer.ts';
import { encodeEvent } from '../storage/log/event.ts';
import { logKey } from '../storage/keys.ts';
import type { RejectReason } from '../storage/mvcc/fold.ts';
import type { RawPositionedEvent } from './open-log.ts';

/**
 * Events per batch. On the 50k-event bench log, 500 to 8,000 gave the same rate within the noise
 * of the shared machine (the cost is per event, not per batch); 2,000 keeps the two live batches
 * at a few MiB (~5 ops and ~2 KiB of values per event).
 */
export const DEFAULT_BATCH_EVENTS = 2000;

export interface RebuildProgress {
  /** Events folded and written so far. */
  events: number;
  /** Last offset written. */
  offset: number;
  elapsedMs: number;
}

export interface RebuildOptions {
  /**
   * "The cluster at T" (ms since the epoch): stop before the first event stamped later than T.
   * Stamps are writer clocks; while they increase along the log (one writer, or synced clocks)
   * this is the last event stamped at or before T. With skewed writers it is still a log prefix,
   * i.e. a state that really existed, never a mix of earlier and later events.
   */
  atTime?: number;
  /** Write the `l/` entries too (the result is then a complete embedded data dir). */
  copyLog?: boolean;
  batchEvents?: number;
  /** Called after each batch is durable. Must not throw. */
  onProgress?: (p: RebuildProgress) => void;
  /** Clock for elapsed times (tests). */
  now?: () => number;
}

export interface RebuildResult {
  events: number;
  /** -1 when no event was folded. */
  firstOffset: number;
  lastOffset: number;
  /** Writer time of the last folded event (ms), null when none. */
  lastTime: number | null;
  accepted: number;
  rejected: Partial<Record<RejectReason, number>>;
  /** Live objects in the rebuilt store. */
  objects: number;
  /** Why folding stopped: the input ended, or the next event was stamped after `atTime`. */
  stoppedBy: 'end' | 'time';
  elapsedMs: number;
}

/**
 * Fold `events` into the empty store `db`. Offsets must be dense and start at 0 (log.ts's
 * contract; a gap or a later start means events are missing and the fold would be wrong), else
 * this throws without writing the offending batch. The last batch is written with sync, so the
 * rebuilt store is durable when this resolves. Does not close `db`.
 */
export async function rebuild(events: AsyncIterable<RawPositionedEvent>, db: Db, opts: RebuildOptions = {}): Promise<RebuildResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const batchEvents = opts.batchEvents ?? DEFAULT_BATCH_EVENTS;
  const materializer = await Materializer.open(db);
  if (materializer.folded !== -1) throw new Error(`the output store is not empty (folded up to ${materializer.folded})`);

  const result: RebuildResult = {
    events: 0, firstOffset: -1, lastOffset: -1, lastTime: null, accepted: 0, rejected: {}, objects: 0, stoppedBy: 'end', elapsedMs: 0,
  };
  let expected = 0;
  let batch: RawPositionedEvent[] = [];
  /** The batch being written, if any; settles after its commit. */
  let inflight: Promise<void> | null = null;

  const tally = (pending: PendingFold, n: number): void => {
    for (const { verdict } of pending.verdicts) {
      if (verdict.accepted) result.accepted++;
      else result.rejected[verdict.reason] = (result.rejected[verdict.reason] ?? 0) + 1;
    }
    result.events += n;
    opts.onProgress?.({ events: result.events, offset: pending.lastOffset, elapsedMs: now() - started });
  };

  const flush = async (last: boolean): Promise<void> => {
    const events = batch;
    batch = [];
    if (events.length) {
      const ops: BatchOp[] = [];
      if (opts.copyLog) for (const e of events) ops.push({ type: 'put', key: logKey(e.offset), value: e.bytes ?? encodeEvent(e.event) });
      const pending = await materializer.foldInto(events, ops);
      // One write at a time: LevelDB would order two concurrent batches arbitrarily.
      if (inflight) await inflight;
      // No options object on ordinary batches: abstract-level copies the options into every
      // operation, which doubled the write CPU in measurements. Only the last batch syncs.
      const write = (last ? db.batch(ops, { sync: true }) : db.batch(ops)).then(() => {
        materializer.commit(pending);
        tally(pending, events.length);
      });
      // Observed here so a failure while the next batch is read is not an unhandled rejection;
      // it is rethrown where the write is awaited.
      write.catch(() => undefined);
      inflight = write;
    }
    if (last && inflight) await inflight;
  };

  try {
    for await (const e of events) {
      if (e.offset !== expected) {
        throw new Error(expected === 0
          ? `the log starts at offset ${e.offset}, not 0: earlier events were deleted (Kafka retention?) and cannot be replayed`
          : `the log skips from offset ${expected - 1} to ${e.offset}: events are missing`);
      }
      if (opts.atTime !== undefined && e.event.time > opts.atTime) {
        result.stoppedBy = 'time';
        break;
      }
      expected++;
      if (result.firstOffset < 0) result.firstOffset = e.offset;
      result.lastOffset = e.offset;
      result.lastTime = e.event.time;
      // Flush a full batch only when another event follows, so the last batch is never empty
      // and its write (the synced one) always happens.
      if (batch.length >= batchEvents) await flush(false);
      batch.push(e);
    }
    await flush(true);
  } catch (err) {
    // Let a write still in flight finish before the caller closes the database.
    await (inflight as Promise<void> | null)?.catch(() => undefined);
    throw err;
  }
  result.objects = materializer.size;
  materializer.close();
  result.elapsedMs = now() - started;
  return result;
}
