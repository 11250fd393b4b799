/**
 * Rebuild a snapshot store from a log: the events are folded in memory (snapshot-fold.ts, the
 * pure fold of mvcc/fold.ts over an in-memory key index) and the store gets exactly the layout a
 * server writes (o/, i/, h/, t/, m/folded, m/compacted) as it would be after its compactor ran at
 * the cut point — and, with `logDb`, the `l/` entries copied into that log store, which makes
 * the pair a complete embedded data dir (`<dir>/db` + `<dir>/log`; the log is synced first, so
 * the snapshot is never ahead of it).
 *
 * Writes: l/ copies and the h/ entries decided while folding go out batch by batch; the final
 * state (o/, i/, the last versions' h/, t/ markers, m/*) is written after the last event, in
 * chunks, the last one synced. At most one write is in flight and one chunk is being built:
 *
 *   read+fold k   | write k      |
 *                 | read+fold k+1| write k+1 |      ...     | final chunk 1 | final chunk 2 | …
 *
 * Why not the server's Materializer: it writes h/ + o/ + i/ for every accepted event (it must, a
 * server serves reads between batches). A rebuild only needs the state at the cut, so an object
 * written n times costs one o/ and one i/ write, and history the compactor would delete right away
 * is never written. On a log that is all creates within the window the work is the same and the
 * gain comes from cheaper writes (see writeBatch).
 */
import type { Db, BatchOp } from '../storage/mvcc/materializer.ts';
import { writeBatch } from '../storage/write-batch.ts';
import { encodeEvent, type FoldPositionedEvent, type LogEvent } from '../storage/log/event.ts';
import { fromHex16, logKey, META_FOLDED } from '../storage/keys.ts';
import type { RejectReason } from '../storage/mvcc/fold.ts';
import { SnapshotFold } from './snapshot-fold.ts';

/**
 * Events per batch (the unit of reading, folding and progress). The cost is per event, not per
 * batch; 2,000 keeps a batch's l/ copies and h/ entries at a few MiB.
 */
export const DEFAULT_BATCH_EVENTS = 2000;
/** The server's default --history-window (cmd/apiserver.ts): the history a rebuilt store keeps. */
export const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;
/**
 * Object bytes held in memory before the least recently written objects are written out. 256 MiB
 * holds the last versions of ~180k 1.4 KiB ConfigMaps; a larger cluster costs extra o/ + i/ writes
 * for objects written again after their eviction, never a wrong result.
 */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;
/**
 * Events after which a live object not written again is written out (SnapshotFold's
 * writeOutAfterEvents). Measured on a 100k-create log (see the replay report): holding every
 * object to the end left ~half the run for a final write with nothing to overlap it; written out
 * 20k events later, the writes run beside the fold and memory holds ~20k objects. Objects a
 * controller rewrites within seconds are still written once.
 */
export const DEFAULT_WRITE_OUT_AFTER_EVENTS = 20_000;
/** Operations per write of the final state: large batches amortize the native call. */
export const FINAL_CHUNK_OPS = 6000;

export interface RebuildProgress {
  /** Events folded so far (the last report comes after the final state is durable). */
  events: number;
  /** Last offset folded. */
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
  /** Copy the `l/` entries into this log store too (with `db`, a complete embedded data dir). */
  logDb?: Db;
  batchEvents?: number;
  /**
   * History the rebuilt store keeps, as a server with this --history-window would after its
   * compactor ran with "now" = the newest event time folded (default 5 min). A server opened on
   * the result with a longer window answers 410 below m/compacted, as after any compaction.
   */
  historyWindowMs?: number;
  /** Bound on object bytes held in memory (default 256 MiB). */
  cacheBytes?: number;
  /** Write out objects not written again within this many events (default 20,000; Infinity: never early). */
  writeOutAfterEvents?: number;
  /** Called after each batch is folded and its writes are done; the last call after the final state is durable. Must not throw. */
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
  /** m/compacted of the result: history below this offset was not kept (0: all of it). */
  compactedBelow: number;
  /** Why folding stopped: the input ended, or the next event was stamped after `atTime`. */
  stoppedBy: 'end' | 'time';
  elapsedMs: number;
}

/**
 * Fold `events` into the empty store `db`. Offsets must be dense and start at 0 (log.ts's
 * contract; a gap or a later start means events are missing and the fold would be wrong), else
 * this throws without writing the offending batch. The last write is synced, so the rebuilt store
 * is durable when this resolves. Does not close `db`.
 */
export async function rebuild(events: AsyncIterable<FoldPositionedEvent>, db: Db, opts: RebuildOptions = {}): Promise<RebuildResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const batchEvents = opts.batchEvents ?? DEFAULT_BATCH_EVENTS;
  const folded = await db.get(META_FOLDED);
  if (folded !== undefined) throw new Error(`the output store is not empty (folded up to ${fromHex16(folded.toString())})`);
  const snapshot = new SnapshotFold({
    windowMs: opts.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS,
    cacheBytes: opts.cacheBytes ?? DEFAULT_CACHE_BYTES,
    writeOutAfterEvents: opts.writeOutAfterEvents ?? DEFAULT_WRITE_OUT_AFTER_EVENTS,
  });

  const result: RebuildResult = {
    events: 0, firstOffset: -1, lastOffset: -1, lastTime: null, accepted: 0, rejected: {}, objects: 0, compactedBelow: 0, stoppedBy: 'end', elapsedMs: 0,
  };
  let expected = 0;
  /** Events folded since the last batch boundary, and the l/ copies among their operations. */
  let inBatch = 0;
  let logOps: BatchOp[] = [];
  /** The write in flight, if any; settles after it is done. */
  let inflight: Promise<void> | null = null;

  /** Queue `ops` behind the write in flight (LevelDB would order two concurrent batches arbitrarily). */
  const enqueue = async (ops: BatchOp[], sync: boolean, after?: () => void, target = db): Promise<void> => {
    if (inflight) await inflight;
    const write = writeBatch(target, ops, sync).then(after);
    // Observed here so a failure while the next batch is folded is not an unhandled rejection;
    // it is rethrown where the write is awaited.
    write.catch(() => undefined);
    inflight = write;
  };

  /**
   * A batch boundary: move the window, write the batch's operations (l/ copies, decided h/
   * entries, evicted objects) behind the previous write, and report once they are done. The
   * last batch's report waits for the final state instead (`last`).
   */
  const closeBatch = async (last: boolean): Promise<void> => {
    snapshot.advance();
    if (logOps.length) await enqueue(logOps, false, undefined, opts.logDb);
    const ops = snapshot.takeOps();
    logOps = [];
    inBatch = 0;
    if (last) {
      if (ops.length) await enqueue(ops, false);
      return;
    }
    const p: RebuildProgress = { events: result.events, offset: result.lastOffset, elapsedMs: 0 };
    const after = (): void => opts.onProgress?.({ ...p, elapsedMs: now() - started });
    if (ops.length) await enqueue(ops, false, after);
    else {
      if (inflight) await inflight;
      after();
    }
  };

  try {
    // Each event is folded as it arrives (the fold reads nothing from the store), so decoded
    // events die young; only operations wait for their batch's write.
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
      // Close a full batch only when another event follows, so the last batch is the one that
      // reports after the final state.
      if (inBatch >= batchEvents) await closeBatch(false);
      expected++;
      if (result.firstOffset < 0) result.firstOffset = e.offset;
      result.lastOffset = e.offset;
      result.lastTime = e.event.time;
      if (opts.logDb) logOps.push({ type: 'put', key: logKey(e.offset), value: e.bytes ?? encodeFull(e.event) });
      const verdict = snapshot.apply(e.offset, e.event);
      result.events++;
      inBatch++;
      if (verdict === null) continue;
      if (verdict.accepted) result.accepted++;
      else result.rejected[verdict.reason] = (result.rejected[verdict.reason] ?? 0) + 1;
    }
    if (result.events > 0) {
      await closeBatch(true);
      // One chunk behind the generator, so the last one is known (it is synced) and the next
      // chunk is built while the previous one is written.
      let held: BatchOp[] | null = null;
      for (const chunk of snapshot.finish(FINAL_CHUNK_OPS)) {
        if (held) await enqueue(held, false);
        held = chunk;
      }
      if (opts.logDb) await enqueue([], true, undefined, opts.logDb); // the copied log is durable first
      await enqueue(held!, true);
      await inflight;
      await flushMemtable(db);
      if (opts.logDb) await flushMemtable(opts.logDb);
      opts.onProgress?.({ events: result.events, offset: result.lastOffset, elapsedMs: now() - started });
    }
  } catch (err) {
    // Let a write still in flight finish before the caller closes the database.
    await (inflight as Promise<void> | null)?.catch(() => undefined);
    throw err;
  }
  result.objects = snapshot.size;
  result.compactedBelow = snapshot.windowStart;
  result.elapsedMs = now() - started;
  return result;
}

/**
 * Write LevelDB's memtable out as a table (CompactRange over a range no key falls in compacts
 * nothing else). Without it the memtable's contents stay in LevelDB's log only (up to
 * open-log.ts's 256 MiB buffer), which the server opening the store would replay first, slowing
 * its start-up by about as long as this takes here.
 */
async function flushMemtable(db: Db): Promise<void> {
  // Every key starts with a lowercase ASCII prefix (`o/`, `h/`, …, storage/keys.ts): none is ≥ '~'.
  if (typeof db.compactRange === 'function') await db.compactRange('~', '~~');
}

/** The log entry of an event given without its bytes: only a full event (every field) can be encoded. */
function encodeFull(e: FoldPositionedEvent['event']): Buffer {
  if (!('verb' in e)) throw new Error('copying the log needs each event\'s bytes or every field (read the log with read(), not readFold())');
  return encodeEvent(e as LogEvent);
}
