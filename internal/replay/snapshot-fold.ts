/**
 * The fold of a rebuild, in memory. It produces the snapshot a server would hold at the cut point
 * (o/, i/, h/, t/, m/folded, m/compacted — the layout of mvcc/materializer.ts and compactor.ts)
 * while writing far less than folding event by event through the Materializer, which writes h/ +
 * o/ + i/ for every accepted event:
 *
 *  - o/ and i/ are written once per object, for its last version (not once per event);
 *  - h/ holds only what a server's compactor would keep at the cut: with the window start C (the
 *    first t/ marker stamped within `windowMs` of the newest event time), a version superseded
 *    before C is never written (compaction would delete it), every other version is;
 *  - t/ markers below C are not written either, and m/compacted = C (when C > 0).
 *
 * Per object the fold keeps a slot: the key index entry the pure fold (mvcc/fold.ts) needs, and
 * the last version's bytes until they are written. When a version is superseded at offset o it
 * joins a queue of pending history; it is needed iff o ≥ C. C is known only at the end, but it is
 * at least the window start the events so far give (C_now: C only grows as newer events arrive),
 * so pending versions with o < C_now are dropped as the fold goes, and the rest is decided at the
 * end. Worked example, window 60 s, x written at offsets 5, 20 and 70:
 *
 *   x@20 supersedes x@5    pending [x@5 (o=20)]
 *   x@70 supersedes x@20   pending [x@5 (o=20), x@20 (o=70)]
 *   later events move C_now to 30        → x@5 dropped (superseded at 20 < 30)
 *   end: C = 60           x@20 written (o=70 ≥ 60: a read at rv 60..69 needs it);
 *                         x@70 is the last version → h/x\0…70, o/x, i/x written; m/compacted = 60
 *
 * Memory: the bytes of last versions and pending history are bounded by `cacheBytes`; past it
 * the newest pending history is written (it is the most likely to be needed) and then the least
 * recently written objects are written out (h/ + o/ + i/, as the Materializer would) keeping only
 * their index entry. Either may write an entry that later turns out to be below C: it stays as an
 * extra h/ entry below m/compacted, which no read can reach (reads below m/compacted are 410; at
 * rv ≥ C the newest entry ≤ rv is a newer version) and which the server's compactor deletes on a
 * later pass. A later version of an evicted object overwrites its o/ and i/. So the bound trades
 * memory for writes, never correctness. Objects not written again for `writeOutAfterEvents`
 * events are written out the same way (writeOutCold), so the writes of a long rebuild overlap its
 * fold instead of all coming after the last event.
 *
 * The index bookkeeping follows mvcc/key-index.ts (the Materializer's rule) (GENESIS skipped after its time marker;
 * accepted DELETE ends the entry; any other accepted event sets {rv: offset, uid, deleting}); the
 * rebuild tests compare the result key for key with a store the server wrote.
 */
import { fold, type IndexEntry, type Verdict } from '../storage/mvcc/fold.ts';
import { hex16, objectPath, currentKeyOf, historyKeyOf, indexKey, markerKey, namespacePath, META_COMPACTED, META_FOLDED } from '../storage/keys.ts';
import { encodeIndexEntry } from '../storage/mvcc/key-index.ts';
import type { BatchOp } from '../storage/mvcc/materializer.ts';
import type { FoldEvent } from '../storage/log/event.ts';

const EMPTY = Buffer.alloc(0);

/** One object path. Its IndexEntry fields describe the last version (a tombstone when !live). */
interface Slot extends IndexEntry {
  readonly path: string;
  live: boolean;
  /** Bytes of the live last version while held in memory; null for a tombstone or once written out. */
  object: Buffer | null;
  /** h/<path>\0<rv> of the last version is written (an eviction wrote it). */
  historyWritten: boolean;
  /** rv and kind of the newest h/ entry written for the path (-1: none), and the oldest's rv. */
  diskTailRv: number;
  diskTailLive: boolean;
  diskHeadRv: number;
  /** Pending history entries of this path still queued (the slot must stay while any is). */
  pending: number;
  /** o/ and i/ on disk hold some version of the path (an eviction wrote them). */
  stored: boolean;
  /** o/ and i/ do not reflect the last version yet. */
  dirty: boolean;
}

/** A superseded version whose h/ entry is not decided yet: needed iff `successor` ≥ C. */
interface Pending {
  slot: Slot;
  rv: number;
  /** The version's bytes; empty for a tombstone. */
  object: Buffer;
  live: boolean;
  successor: number;
}

export interface SnapshotFoldOptions {
  /** The server's --history-window: how much history the cut point keeps. */
  windowMs: number;
  /** Bytes of object versions held before some are written out (see the file comment). */
  cacheBytes: number;
  /**
   * A live last version not written again within this many events is written out at the next
   * advance() (h/ + o/ + i/, as an eviction does; see the file comment). Infinity: only the
   * memory bound writes objects out early.
   */
  writeOutAfterEvents: number;
}

export class SnapshotFold {
  /** objectPath → slot (the order of heldQueue, not of this Map, decides what is written out first). */
  private readonly slots = new Map<string, Slot>();
  /** Superseded versions in successor order, from `pendingHead`. */
  private pendingQueue: Pending[] = [];
  private pendingHead = 0;
  /** Tombstones in rv order, from `tombHead`: dropped from memory once below the window start. */
  private tombQueue: { slot: Slot; rv: number }[] = [];
  private tombHead = 0;
  /**
   * Live versions held in memory, in rv order, from `heldHead`: the oldest are written out once
   * `writeOutAfterEvents` events passed them. An entry whose slot moved on (written again,
   * deleted, written out) is stale and skipped.
   */
  private heldQueue: { slot: Slot; rv: number }[] = [];
  private heldHead = 0;
  /** Time markers `t/<offset>` not yet known to be below the window start, from `markerHead`. */
  private markers: { offset: number; time: number }[] = [];
  private markerHead = 0;
  private lastMarkerSecond = -1;
  private maxTime = -Infinity;
  private heldBytes = 0;
  private liveCount = 0;
  /** Last folded offset (-1: none). */
  folded = -1;
  /** Window start as far as the events so far tell (never decreases; see the file comment). */
  windowStart = 0;
  /** Operations produced since the last takeOps(). */
  private ops: BatchOp[] = [];

  constructor(private readonly opts: SnapshotFoldOptions) {}

  /** Live objects after the last applied event. */
  get size(): number {
    return this.liveCount;
  }

  private readonly namespaceOf = (ns: string): IndexEntry | undefined => {
    const s = this.slots.get(namespacePath(ns));
    return s?.live ? s : undefined;
  };

  /**
   * Fold the next event (offsets strictly increasing, the caller checks density) and return its
   * verdict; null for GENESIS. Writes nothing itself (see advance and finish).
   */
  apply(offset: number, event: FoldEvent): Verdict | null {
    if (offset <= this.folded) throw new Error(`snapshot fold went backwards: offset ${offset} after ${this.folded}`);
    this.folded = offset;
    if (event.time > this.maxTime) this.maxTime = event.time;
    const second = Math.floor(event.time / 1000);
    if (second > this.lastMarkerSecond) {
      // At most one marker a second, as Materializer.foldLocked writes them.
      this.lastMarkerSecond = second;
      this.markers.push({ offset, time: event.time });
    }
    if (event.op === 'GENESIS') return null;
    const path = objectPath(event);
    let s = this.slots.get(path);
    const verdict = fold(offset, s?.live ? s : undefined, event, this.namespaceOf);
    if (!verdict.accepted) return verdict;
    if (s) {
      if (!s.historyWritten) {
        this.pendingQueue.push({ slot: s, rv: s.rv, object: s.object ?? EMPTY, live: s.live, successor: offset });
        s.pending++;
      } else if (s.object) {
        this.heldBytes -= s.object.length;
      }
      if (s.live) this.liveCount--;
    } else {
      s = { path, rv: 0, uid: '', deleting: false, live: false, object: null, historyWritten: false, diskTailRv: -1, diskTailLive: false, diskHeadRv: Infinity, pending: 0, stored: false, dirty: false };
      this.slots.set(path, s);
    }
    s.rv = offset;
    s.historyWritten = false;
    s.dirty = true;
    if (verdict.op === 'DELETE') {
      s.live = false;
      s.object = null;
      this.tombQueue.push({ slot: s, rv: offset });
    } else {
      s.live = true;
      s.uid = event.uid;
      s.deleting = event.deleting;
      s.object = verdict.object;
      this.heldBytes += verdict.object.length;
      this.liveCount++;
      this.heldQueue.push({ slot: s, rv: offset });
    }
    return verdict;
  }

  private writeHistory(s: Slot, rv: number, object: Buffer, live: boolean): void {
    this.ops.push({ type: 'put', key: historyKeyOf(s.path, rv), value: object });
    if (rv > s.diskTailRv) {
      s.diskTailRv = rv;
      s.diskTailLive = live;
    }
    if (rv < s.diskHeadRv) s.diskHeadRv = rv;
  }

  /** Settle the pending entry `p`: written when `write`, else dropped. */
  private settle(p: Pending, write: boolean): void {
    if (write) this.writeHistory(p.slot, p.rv, p.object, p.live);
    this.heldBytes -= p.object.length;
    p.slot.pending--;
  }

  /**
   * Move the window start up to what the newest event time allows — the first time marker stamped
   * at or after maxTime − windowMs (the compactor's rule with "now" = the newest event), or the
   * folded offset when no marker is that recent — and drop the pending history it leaves behind;
   * then write out what exceeds the memory bound. Call between batches; see takeOps.
   */
  advance(): void {
    const cutoff = this.maxTime - this.opts.windowMs;
    while (this.markerHead < this.markers.length && this.markers[this.markerHead].time < cutoff) this.markerHead++;
    const start = this.markerHead < this.markers.length ? this.markers[this.markerHead].offset : this.folded;
    if (start > this.windowStart) this.windowStart = start;
    const q = this.pendingQueue;
    while (this.pendingHead < q.length && q[this.pendingHead].successor < this.windowStart) this.settle(q[this.pendingHead++], false);
    this.settleTombstones();
    this.writeOutCold();
    if (this.heldBytes > this.opts.cacheBytes) this.evict(this.opts.cacheBytes / 2);
    // Reclaim the consumed prefixes now and then (amortized O(1) per entry).
    if (this.pendingHead > 4096 && this.pendingHead * 2 > q.length) {
      this.pendingQueue = q.slice(this.pendingHead);
      this.pendingHead = 0;
    }
    if (this.markerHead > 4096 && this.markerHead * 2 > this.markers.length) {
      this.markers = this.markers.slice(this.markerHead);
      this.markerHead = 0;
    }
    if (this.tombHead > 4096 && this.tombHead * 2 > this.tombQueue.length) {
      this.tombQueue = this.tombQueue.slice(this.tombHead);
      this.tombHead = 0;
    }
    if (this.heldHead > 4096 && this.heldHead * 2 > this.heldQueue.length) {
      this.heldQueue = this.heldQueue.slice(this.heldHead);
      this.heldHead = 0;
    }
  }

  /**
   * Write out the live versions not written again for `writeOutAfterEvents` events. Why: a
   * rebuild that holds every object until the end writes the whole state after the last event,
   * with nothing left to overlap it; written out as the fold goes, LevelDB's writes run beside the
   * reading and folding of later batches, and the memory held stays bounded by the recent objects.
   * An object written again later costs one more o/ + i/ write (and possibly an h/ entry below
   * m/compacted, see the file comment) — never a different state.
   */
  private writeOutCold(): void {
    const q = this.heldQueue;
    const before = this.folded - this.opts.writeOutAfterEvents;
    while (this.heldHead < q.length && q[this.heldHead].rv <= before) {
      const { slot: s, rv } = q[this.heldHead++];
      if (s.live && s.rv === rv && s.object && this.slots.get(s.path) === s) this.writeOut(s);
    }
  }

  /**
   * Objects deleted before the window start (and not created again since) leave memory: their
   * tombstone is written only if it hides a live h/ entry, o/ and i/ are deleted if an eviction
   * wrote them. Their older versions were superseded before the window start, so none is pending.
   */
  private settleTombstones(): void {
    const q = this.tombQueue;
    while (this.tombHead < q.length && q[this.tombHead].rv < this.windowStart) {
      const { slot: s, rv } = q[this.tombHead++];
      if (s.live || s.rv !== rv || this.slots.get(s.path) !== s || s.pending > 0) continue;
      if (s.diskTailLive && s.diskTailRv < rv) this.writeHistory(s, rv, EMPTY, false);
      if (s.stored) this.ops.push({ type: 'del', key: currentKeyOf(s.path) }, { type: 'del', key: indexKey(s.path) });
      this.slots.delete(s.path);
    }
  }

  /** Write out until at most `target` bytes are held: the newest pending history, then the least recently written objects. */
  private evict(target: number): void {
    const q = this.pendingQueue;
    while (this.heldBytes > target && q.length > this.pendingHead) this.settle(q.pop()!, true);
    // Then the held live versions, least recently written first (heldQueue is in rv order).
    const hq = this.heldQueue;
    while (this.heldBytes > target && this.heldHead < hq.length) {
      const { slot: s, rv } = hq[this.heldHead++];
      if (s.live && s.rv === rv && s.object && this.slots.get(s.path) === s) this.writeOut(s);
    }
  }

  /** Write the live last version of `s` (h/ unless written, o/ + i/ if dirty) and release its bytes. */
  private writeOut(s: Slot): void {
    if (!s.historyWritten) {
      this.writeHistory(s, s.rv, s.object!, true);
      s.historyWritten = true;
    }
    if (s.dirty) {
      this.ops.push({ type: 'put', key: currentKeyOf(s.path), value: s.object! }, { type: 'put', key: indexKey(s.path), value: encodeIndexEntry(s) });
      s.dirty = false;
      s.stored = true;
    }
    if (s.object) this.heldBytes -= s.object.length;
    s.object = null;
  }

  /** Operations produced since the last call (the caller writes them in order). */
  takeOps(): BatchOp[] {
    const ops = this.ops;
    this.ops = [];
    return ops;
  }

  /**
   * After the last event (call advance() first; windowStart is then the cut's C): the pending
   * history at or after C, every object's last state, the t/ markers inside the window, m/folded
   * and m/compacted, in chunks of about `chunkOps` operations.
   */
  *finish(chunkOps: number): Generator<BatchOp[]> {
    const c = this.windowStart;
    const q = this.pendingQueue;
    for (let i = this.pendingHead; i < q.length; i++) {
      // Needed: superseded at or after C. A tombstone below C that is the newest version before C
      // goes (compactor.ts drops it with the versions under it) unless an older h/ entry of the
      // path was written (by an eviction), which it must keep hiding.
      const p = q[i];
      this.settle(p, p.successor >= c && (p.live || p.rv >= c || p.slot.diskHeadRv < p.rv));
      if (this.ops.length >= chunkOps) yield this.takeOps();
    }
    this.pendingQueue = [];
    this.pendingHead = 0;
    this.heldQueue = [];
    this.heldHead = 0;
    for (const s of this.slots.values()) {
      if (s.live) {
        if (s.object) this.writeOut(s);
      } else {
        if (s.stored) this.ops.push({ type: 'del', key: currentKeyOf(s.path) }, { type: 'del', key: indexKey(s.path) });
        // A tombstone at or after C is history a read may need; one below it only when it hides
        // a live h/ entry written for the path (compactor.ts drops a tombstone that is the newest
        // version before C together with the versions under it).
        if (s.rv >= c || (s.diskTailLive && s.diskTailRv < s.rv)) this.writeHistory(s, s.rv, EMPTY, false);
      }
      if (this.ops.length >= chunkOps) yield this.takeOps();
    }
    for (let i = this.markerHead; i < this.markers.length; i++) {
      const m = this.markers[i];
      if (m.offset >= c) this.ops.push({ type: 'put', key: markerKey(m.offset), value: Buffer.from(String(m.time)) });
    }
    if (c > 0) this.ops.push({ type: 'put', key: META_COMPACTED, value: Buffer.from(hex16(c)) });
    this.ops.push({ type: 'put', key: META_FOLDED, value: Buffer.from(hex16(this.folded)) });
    yield this.takeOps();
  }
}
