/**
 * Watch fan-out: one subscription to the materializer's committed changes per process, an
 * in-memory ring of recent changes, and per-watcher bounded queues.
 *
 * A watcher whose start version is inside the ring (and recent: at most RING_SCAN changes back)
 * registers and replays the ring after it in the same synchronous step, so it sees every change
 * after that version exactly once (style guide rule 7). Live delivery never awaits a watcher: a
 * watcher whose queue exceeds its bound is ended and its client relists. Longer replays are paced
 * by the watcher's drain, and join the live fan-out in one synchronous step with their last batch.
 *
 * A start version below the compaction point (the --history-window) is refused (410 Expired), as
 * an exact read at it is, and the ring drops the changes below it.
 *
 * The ring only holds changes committed since this process started (or the last DEFAULT_RING_SIZE
 * of them, within DEFAULT_RING_BYTES). A start version older than the ring but not compacted — an
 * informer resuming after a server restart — catches up first: as kube's watch cache serves every
 * watcher from one buffer of events, the watchers waiting below the ring share one read of the log
 * that rebuilds the missing changes from h/ history and puts them in front of the ring, within the
 * ring's bounds (extendRing); each then replays the ring filtering its own changes, in batches that
 * wait for its stream to drain, and joins the live fan-out:
 *
 *   restart: ring empty, ringFrom = folded = 90; watchers resume from 40, 55, 62 (in any order)
 *   one read of log (40, 90] → changes 41..90 in front of the ring, ringFrom = 40
 *   (a watcher arriving during the read from below its start waits for it, then a read of the
 *    rest below: one read per gap, not per watcher)
 *   each watcher: ring entries > its start, paced; the last batch and joining the live fan-out in
 *   one synchronous step
 *
 * Only where the ring has no room for the range (it is full: a resume from long ago in a busy
 * server) does a watcher read the log on its own (replayLog), from its start to the ring's, and
 * then go on from the ring. resumeReads() counts both kinds of reads.
 */
import type { ChangeListener, Change } from '../storage/mvcc/materializer.ts';
import type { ObjectKey } from '../storage/keys.ts';
import { SlidingWindow } from './window.ts';
import { WatchBudget } from './budget.ts';
import { replayChanges, type ReplaySource } from './log-replay.ts';
import { FanOutMemo, type EndReason, type WatchEventCounts, type WatchFilter, type WatchHandle, type WatchSink } from './sink.ts';

export { FanOutMemo } from './sink.ts';
export type { EndReason, WatchEventCounts, WatchFilter, WatchHandle, WatchSink } from './sink.ts';

/** Changes kept in memory for resuming watches; older start versions are read from the log. */
export const DEFAULT_RING_SIZE = 100_000;
/**
 * …and at most this many bytes of objects (object + prev). Resumes past the ring are served from
 * the log, so the ring only has to cover the usual reconnect gap, not the whole history window.
 */
export const DEFAULT_RING_BYTES = 64 * 1024 * 1024;

/**
 * Replayed changes handed to a catching-up watcher at a time. Each batch is checked against the
 * compaction point before delivery; 256 keeps a batch's buffered objects small (~256 KiB of
 * typical objects) while amortizing the check and the drain wait.
 */
const REPLAY_BATCH = 256;

/** Ring changes a catching-up watcher scans per batch (it waits for its sink to drain in between). */
const RING_SCAN = 8192;

/** Changes the paced ring replays of all watchers together deliver in one turn of the event loop. */
const REPLAY_PER_TURN = 4096;

/** Log reads made for resuming watchers (metrics, tests). */
export interface ResumeReads {
  /** Shared reads that extended the ring down for every watcher waiting below it. */
  shared: number;
  /** Log events those reads went through. */
  sharedEvents: number;
  /** Reads for one watcher alone (the ring had no room for its range). */
  own: number;
}

/** What the hub needs from storage (Storage satisfies it; tests may wrap it). */
export interface HubStorage extends ReplaySource {
  /** Last folded offset. */
  readonly folded: number;
  /** History below this offset is gone: older start versions get 410 Expired. */
  readonly compactedBelow: number;
  onChange(listener: ChangeListener): () => void;
}

interface Watcher {
  filter: WatchFilter;
  sink: WatchSink;
  /** Still replaying from the log: live changes skip it, it picks them up from the ring. */
  catchingUp: boolean;
  /** Stopped by the caller or ended by the hub: no further delivery. */
  stopped: boolean;
}

export class WatchHub {
  private readonly ring = new SlidingWindow<Change>();
  /** Changes after this offset are all in the ring (or none happened). */
  private ringFrom: number;
  private readonly watchers = new Set<Watcher>();
  /** The same watchers by `group/resource`, then namespace ('' = every namespace). */
  private readonly index = new Map<string, Map<string, Set<Watcher>>>();
  private readonly unsubscribe: () => void;
  private readonly eventCounts: WatchEventCounts = { encoded: {}, sent: {} };

  private ringBytes = 0;
  /** Catching-up watchers that need changes below the ring, by the offset they have reached. */
  private readonly waiting = new Map<Watcher, number>();
  /** The shared log read in progress (extendRing): true if it extended the ring. */
  private reading: Promise<boolean> | null = null;
  /** See replayMemo; and the changes ring replays delivered in this turn (replayRingPaced). */
  private turnMemo: FanOutMemo | null = null;
  private turnReplayed = 0;
  private readonly reads: ResumeReads = { shared: 0, sharedEvents: 0, own: 0 };
  /** Watchers this hub ended, by reason (metrics). */
  private readonly endedCounts: Record<EndReason, number> = { slow: 0, budget: 0, closed: 0, expired: 0 };

  /**
   * @param budget the bytes watch streams may have queued, each and all together (budget.ts);
   *   the hub only carries it to the streams.
   */
  constructor(private readonly storage: HubStorage, private readonly ringSize = DEFAULT_RING_SIZE, private readonly ringMaxBytes = DEFAULT_RING_BYTES, readonly budget = new WatchBudget()) {
    this.ringFrom = storage.folded;
    this.unsubscribe = storage.onChange((changes) => this.publish(changes));
  }

  /**
   * Oldest start version a watch can resume from: the compaction point, as for exact reads (the
   * --history-window). The ring may still hold older changes; they are not served.
   */
  get oldestResumable(): number {
    return this.storage.compactedBelow;
  }

  get size(): number {
    return this.watchers.size;
  }

  /** Changes held in the ring and their bytes (metrics). */
  ringUsage(): { changes: number; bytes: number } {
    return { changes: this.ring.length, bytes: this.ringBytes };
  }

  /** Log reads made for resuming watchers since the hub started (metrics, tests). */
  resumeReads(): ResumeReads {
    return { ...this.reads };
  }

  /** Watchers the hub has ended since it started, by reason (metrics). */
  endedByReason(): Record<EndReason, number> {
    return { ...this.endedCounts };
  }

  /** A sink serialized an event in `format` (once per change and format when shared through the memo). */
  countEncoded(format: string): void {
    this.eventCounts.encoded[format] = (this.eventCounts.encoded[format] ?? 0) + 1;
  }

  /** A sink sent `n` events in `format`. */
  countSent(format: string, n = 1): void {
    this.eventCounts.sent[format] = (this.eventCounts.sent[format] ?? 0) + n;
  }

  /** Events encoded and sent since the hub started, by format (metrics, tests). */
  events(): WatchEventCounts {
    return { encoded: { ...this.eventCounts.encoded }, sent: { ...this.eventCounts.sent } };
  }

  private publish(changes: Change[]): void {
    for (const c of changes) {
      this.ring.push(c);
      this.ringBytes += changeBytes(c);
    }
    let drop = Math.max(0, this.ring.length - this.ringSize);
    for (let i = 0; i < drop; i++) this.ringBytes -= changeBytes(this.ring.at(i));
    while (this.ringBytes > this.ringMaxBytes && drop < this.ring.length - 1) this.ringBytes -= changeBytes(this.ring.at(drop++));
    // Changes below the compaction point serve no watch any more (oldestResumable).
    const compacted = this.storage.compactedBelow;
    while (drop < this.ring.length - 1 && this.ring.at(drop).offset < compacted) this.ringBytes -= changeBytes(this.ring.at(drop++));
    if (drop > 0) {
      this.ringFrom = this.ring.at(drop - 1).offset;
      this.ring.dropOldest(drop);
    }
    if (!this.watchers.size) return;
    // Group the batch by resource and namespace (in order), then offer each group to the watchers
    // of that namespace and those of every namespace.
    const groups = new Map<string, { all: Change[]; byNamespace: Map<string, Change[]> }>();
    for (const c of changes) {
      const gr = resourceKey(c.key.group, c.key.resource);
      if (!this.index.has(gr)) continue;
      let g = groups.get(gr);
      if (!g) groups.set(gr, (g = { all: [], byNamespace: new Map() }));
      g.all.push(c);
      const inNs = g.byNamespace.get(c.key.namespace);
      if (inNs) inNs.push(c);
      else g.byNamespace.set(c.key.namespace, [c]);
    }
    const memo = new FanOutMemo();
    for (const [gr, g] of groups) {
      const byNs = this.index.get(gr);
      if (!byNs) continue;
      const everywhere = byNs.get('');
      if (everywhere) for (const w of everywhere) if (!w.catchingUp) this.deliverAll(w, g.all, memo);
      for (const [ns, list] of g.byNamespace) {
        const here = ns ? byNs.get(ns) : undefined;
        if (here) for (const w of here) if (!w.catchingUp) this.deliverAll(w, list, memo);
      }
    }
  }

  /**
   * Deliver `changes` (already matching the watcher's resource and namespace) that match its
   * filter, then flush. False if the watcher was ended (or stopped) meanwhile.
   */
  private deliverAll(w: Watcher, changes: readonly Change[], memo: FanOutMemo): boolean {
    if (w.stopped) return false;
    let any = false;
    for (const c of changes) {
      if (w.filter.name && c.key.name !== w.filter.name) continue;
      any = true;
      if (!w.sink.deliver(c, memo)) {
        this.endWatcher(w, 'slow');
        return false;
      }
    }
    if (any && w.sink.flush && !w.sink.flush(memo, changes)) {
      this.endWatcher(w, 'slow');
      return false;
    }
    return !w.stopped;
  }

  private addToIndex(w: Watcher): void {
    const gr = resourceKey(w.filter.group, w.filter.resource);
    let byNs = this.index.get(gr);
    if (!byNs) this.index.set(gr, (byNs = new Map()));
    let set = byNs.get(w.filter.namespace);
    if (!set) byNs.set(w.filter.namespace, (set = new Set()));
    set.add(w);
  }

  private removeFromIndex(w: Watcher): void {
    const gr = resourceKey(w.filter.group, w.filter.resource);
    const byNs = this.index.get(gr);
    const set = byNs?.get(w.filter.namespace);
    if (!byNs || !set) return;
    set.delete(w);
    if (set.size) return;
    byNs.delete(w.filter.namespace);
    if (!byNs.size) this.index.delete(gr);
  }

  /**
   * Start watching after version `from`. Returns ok=false when `from` is older than both the ring
   * and the compaction point (the caller answers 410 Expired). Inside the ring and at most
   * RING_SCAN changes back, replay and registration happen in one synchronous step; older starts
   * catch up (see the file comment) and may later end with 'expired' if compaction overtakes the
   * replay.
   */
  watch(filter: WatchFilter, from: number, sink: WatchSink): WatchHandle {
    if (from < this.oldestResumable) return { ok: false, stop: () => undefined, caughtUp: () => false, endSlow: () => undefined };
    // A long replay from the ring (one that goes back past RING_SCAN changes: after a shared read
    // extended it, or a resume from long ago) is paced like a catch-up, not written at once.
    const catchingUp = from < this.ringFrom || this.ring.length - this.indexAfter(from) > RING_SCAN;
    const w: Watcher = { filter, sink, catchingUp, stopped: false };
    this.watchers.add(w);
    this.addToIndex(w);
    const stop = (): void => {
      w.stopped = true;
      this.watchers.delete(w);
      this.removeFromIndex(w);
    };
    if (w.catchingUp) void this.catchUp(w, from);
    else this.replayRing(w, from);
    return { ok: true, stop, caughtUp: () => !w.catchingUp, endSlow: (reason = 'slow') => this.endWatcher(w, reason) };
  }

  close(): void {
    this.unsubscribe();
    for (const w of [...this.watchers]) this.endWatcher(w, 'closed');
  }

  private endWatcher(w: Watcher, reason: EndReason): void {
    if (w.stopped) return;
    w.stopped = true;
    this.watchers.delete(w);
    this.removeFromIndex(w);
    this.endedCounts[reason]++;
    w.sink.end(reason);
  }

  /** Deliver the ring's changes after `after` (synchronous). False if the watcher was ended. */
  private replayRing(w: Watcher, after: number): boolean {
    // Binary search would do; the ring is scanned from the end because starts are usually recent.
    let i = this.ring.length;
    while (i > 0 && this.ring.at(i - 1).offset > after) i--;
    const replay: Change[] = [];
    for (; i < this.ring.length; i++) {
      const c = this.ring.at(i);
      if (matches(w.filter, c.key)) replay.push(c);
    }
    return !replay.length || this.deliverAll(w, replay, new FanOutMemo());
  }

  /**
   * Bring a watcher from `from` up to the live fan-out (see the file comment): from the ring in
   * paced batches while `done` is inside it; below the ring, wait for (or start) the shared read
   * that extends the ring down; where the ring has no room, replay the log for this watcher alone.
   * The hand-over to the live fan-out happens in the same synchronous step as the ring's last
   * batch: no gap, no duplicate.
   */
  private async catchUp(w: Watcher, from: number): Promise<void> {
    let done: number | null = from;
    try {
      while (done !== null && !w.stopped) {
        if (done >= this.ringFrom) {
          this.waiting.delete(w);
          done = await this.replayRingPaced(w, done);
        } else if (!(await this.sharedRead(w, done))) {
          this.waiting.delete(w);
          const target = this.ringFrom;
          this.reads.own++;
          if (!(await this.replayLog(w, done, target))) return;
          done = target;
        }
      }
    } catch {
      // The log or the database failed (e.g. shutting down): end the stream, the client re-watches.
      this.endWatcher(w, 'closed');
    } finally {
      this.waiting.delete(w);
    }
  }

  /**
   * Deliver the ring's changes after `done` in batches, waiting for the sink to drain between
   * them, until the ring's end: then the watcher joins the live fan-out in the same synchronous
   * step. Returns the new `done` when the ring dropped the changes after it meanwhile (the caller
   * reads them from the log), or null when handed over, stopped or ended.
   */
  private async replayRingPaced(w: Watcher, done: number): Promise<number | null> {
    while (!w.stopped) {
      // The watchers a shared read woke all continue at once: each turn of the event loop
      // replays at most REPLAY_PER_TURN changes among them, then I/O (other requests) runs.
      while (this.turnMemo && this.turnReplayed >= REPLAY_PER_TURN) await new Promise((resolve) => setImmediate(resolve));
      if (w.stopped) return null;
      if (done < this.ringFrom) return done;
      let i = this.indexAfter(done);
      const batch: Change[] = [];
      const scanEnd = Math.min(this.ring.length, i + RING_SCAN);
      for (; i < scanEnd && batch.length < REPLAY_BATCH; i++) {
        const c = this.ring.at(i);
        if (matches(w.filter, c.key)) batch.push(c);
      }
      const memo = this.replayMemo();
      this.turnReplayed += batch.length;
      if (i === this.ring.length) {
        w.catchingUp = false;
        if (batch.length) this.deliverAll(w, batch, memo);
        return null;
      }
      done = this.ring.at(i - 1).offset;
      if (batch.length && !this.deliverAll(w, batch, memo)) return null;
      // A sink that needs no drain would otherwise replay its whole range in this turn.
      await new Promise((resolve) => setImmediate(resolve));
      if (w.sink.drained) await w.sink.drained();
    }
    return null;
  }

  /**
   * The memo of this turn of the event loop for ring replays: the watchers a shared read woke
   * replay the same changes in the same turns, so each frame is encoded once per turn, not once
   * per watcher. Dropped at the next turn, as a publish's memo is dropped after the publish.
   */
  private replayMemo(): FanOutMemo {
    if (!this.turnMemo) {
      this.turnMemo = new FanOutMemo();
      setImmediate(() => {
        this.turnMemo = null;
        this.turnReplayed = 0;
      });
    }
    return this.turnMemo;
  }

  /** Index of the first ring change after offset `after` (ring.length if none). */
  private indexAfter(after: number): number {
    let lo = 0;
    let hi = this.ring.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ring.at(mid).offset <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The watcher needs the changes after `done`, below the ring. Join the shared read in progress,
   * or start one for the lowest start among the watchers waiting. True when a read extended the
   * ring (the caller looks again), false when the ring has no room for what it needs.
   */
  private async sharedRead(w: Watcher, done: number): Promise<boolean> {
    // Registered until the watcher leaves catchUp: a read started while it waits for another
    // one covers it too.
    this.waiting.set(w, done);
    if (this.reading) return this.reading;
    this.reading = this.extendRing();
    try {
      return await this.reading;
    } finally {
      this.reading = null;
    }
  }

  /**
   * Read log offsets (low, upTo] once — low: the lowest start waiting, upTo: the ring's start —,
   * rebuild their changes from h/ history and put them in front of the ring: every watcher waiting
   * below the ring is then served from memory, each filtering its own changes. Kept within the
   * ring's bounds (count and bytes, the newest first) and the total watch budget; discarded if
   * the ring moved past `upTo` meanwhile (it would leave a gap). True if the ring was extended.
   */
  private async extendRing(): Promise<boolean> {
    // Watchers resuming together (a restart's reconnects) arrive in the same turns: let them
    // register, then read for the lowest of them.
    await new Promise((resolve) => setImmediate(resolve));
    await this.storage.whenOpen?.(); // not while the store is being reopened (Storage.recover)
    const upTo = this.ringFrom;
    // Offsets count events, so a span of `room` offsets holds at most `room` changes.
    const room = this.ringSize - this.ring.length;
    let lowest = Infinity;
    for (const [other, at] of this.waiting) if (!other.stopped && at < upTo) lowest = Math.min(lowest, at);
    const low = Math.max(lowest, upTo - room, this.storage.compactedBelow);
    // Within the ring's bounds, and no more than all watch streams together may queue
    // (--watch-total-buffer-bytes): a server given a small watch budget keeps a small ring.
    const maxBytes = Math.min(this.ringMaxBytes, this.budget.total);
    if (low >= upTo || this.ringBytes >= maxBytes) return false;
    this.reads.shared++;
    const read = new SlidingWindow<Change>();
    let bytes = 0;
    const fits = (): boolean => read.length + this.ring.length <= this.ringSize && bytes + this.ringBytes <= maxBytes;
    let from = low;
    for await (const changes of replayChanges(this.storage, low, upTo, () => true, () => this.reads.sharedEvents++)) {
      for (const c of changes) {
        read.push(c);
        bytes += changeBytes(c);
      }
      let drop = 0;
      while (drop < read.length && !fits()) bytes -= changeBytes(read.at(drop++));
      if (drop) {
        from = read.at(drop - 1).offset;
        read.dropOldest(drop);
      }
    }
    if (this.ringFrom !== upTo) return false;
    // A compaction during the read may have removed history it was built from: keep only what is
    // at or above the compaction point now.
    const compacted = this.storage.compactedBelow;
    let drop = 0;
    while (drop < read.length && read.at(drop).offset < compacted) bytes -= changeBytes(read.at(drop++));
    read.dropOldest(drop);
    from = Math.max(from, compacted - 1);
    while (read.length && !fits()) {
      from = read.at(0).offset;
      bytes -= changeBytes(read.at(0));
      read.dropOldest(1);
    }
    if (from >= upTo) return false;
    const items: Change[] = [];
    for (let i = 0; i < read.length; i++) items.push(read.at(i));
    this.ring.prepend(items);
    this.ringBytes += bytes;
    this.ringFrom = from;
    return true;
  }

  /**
   * Deliver the changes of log offsets (after, upTo] that match the watcher, rebuilt from the log
   * and h/ history. False when the watcher stopped or was ended.
   */
  private async replayLog(w: Watcher, after: number, upTo: number): Promise<boolean> {
    let batch: Change[] = [];
    const flush = async (): Promise<boolean> => {
      if (w.stopped) return false;
      // A compaction past the batch's first offset may have removed versions it was built from.
      if (batch.length && this.storage.compactedBelow > batch[0].offset) {
        this.endWatcher(w, 'expired');
        return false;
      }
      if (batch.length && !this.deliverAll(w, batch, new FanOutMemo())) return false;
      batch = [];
      if (w.sink.drained) await w.sink.drained();
      return !w.stopped;
    };
    for await (const changes of replayChanges(this.storage, after, upTo, (key) => matches(w.filter, key))) {
      if (w.stopped) return false;
      for (const c of changes) {
        batch.push(c);
        if (batch.length >= REPLAY_BATCH && !(await flush())) return false;
      }
    }
    return flush();
  }
}

const resourceKey = (group: string, resource: string): string => `${group}/${resource}`;

function matches(f: WatchFilter, k: ObjectKey): boolean {
  return k.resource === f.resource && k.group === f.group && (!f.namespace || k.namespace === f.namespace) && (!f.name || k.name === f.name);
}

export const changeBytes = (c: Change): number => c.object.length + (c.prev?.length ?? 0);
