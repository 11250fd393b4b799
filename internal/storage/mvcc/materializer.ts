/**
 * The materializer: the only writer of the snapshot. It folds positioned events, in offset order,
 * into LevelDB batch operations and keeps the in-memory key index (etcd's keyIndex, reduced to
 * what the fold needs). The caller writes the batch — the embedded log right after its own synced
 * batch of log entries (another store), the Kafka consumer on its own — and then calls `commit`,
 * which is the commit point:
 * verdicts reach writers and changes reach listeners (watch hub, controllers) in that same step.
 *
 * Key index persistence: `i/<objectPath>` → "rv uid deleting" in the same batch as the object, so
 * start-up loads the index without parsing objects.
 */
import type { ClassicLevel } from 'classic-level';
import { eventKey, type FoldPositionedEvent } from '../log/event.ts';
import type { IndexEntry, Verdict } from './fold.ts';
import { KeyIndex, encodeIndexEntry } from './key-index.ts';
import { currentKey, historyKey, indexKey, markerKey, hex16, fromHex16, objectPath, type ObjectKey, META_FOLDED } from '../keys.ts';
import { StorageError } from '../errors.ts';
import { CurrentCache } from './current-cache.ts';

export type Db = ClassicLevel<string, Buffer>;
export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** The watch event type of an accepted write. */
export const changeTypeOf = (op: 'CREATE' | 'UPDATE' | 'DELETE'): ChangeType => (op === 'CREATE' ? 'ADDED' : op === 'DELETE' ? 'DELETED' : 'MODIFIED');

/** One accepted event as listeners see it. `object` carries metadata.resourceVersion = offset. */
export interface Change {
  offset: number;
  type: ChangeType;
  key: ObjectKey;
  object: Buffer;
  /**
   * The object as stored just before this change (its own resourceVersion), on MODIFIED and
   * DELETED; absent on ADDED. Selector watches need it to tell when an object leaves or enters
   * their selection (kube's watchCacheEvent.PrevObject).
   */
  prev?: Buffer;
  time: number;
}

export type ChangeListener = (changes: Change[], folded: number) => void;

/** Work folded into a batch but not yet durable. */
export interface PendingFold {
  lastOffset: number;
  verdicts: { id: string; verdict: Verdict }[];
  changes: Change[];
  /** The key index entries the accepted events left (null: deleted), in fold order. */
  entries: [path: string, entry: IndexEntry | null][];
  time: number;
}

/** A commit as a follower (storage/follower.ts) applies it: what the leader's fold decided. */
export interface FollowedCommit {
  lastOffset: number;
  changes: Change[];
  /** The entries the fold left (null: deleted), as objects or as their i/ text (commit-record.ts). */
  entries: [path: string, entry: IndexEntry | string | null][];
}

/** Called at every commit, changes or not (the leader's feed to its followers). */
export type CommitListener = (pending: PendingFold) => void;

const INDEX_PREFIX = 'i/';
/** Latest versions of recently written objects kept in memory (current-cache.ts). */
const CURRENT_CACHE_BYTES = 16 * 1024 * 1024;
/** Key index entries per read at start-up, and the bytes one read may buffer (~100 B an entry). */
const INDEX_LOAD_BATCH = 4096;
const INDEX_LOAD_BYTES = 1024 * 1024;

export class Materializer {
  /** Replaced whole by reload (never emptied in place: readers of the index never see it half loaded). */
  private index = new KeyIndex();
  private foldedOffset = -1;
  /** Offset already folded into a batch (may be ahead of foldedOffset while the batch is in flight). */
  private foldingOffset = -1;
  private readonly verdictWaiters = new Map<string, { resolve: (v: Verdict) => void; reject: (e: Error) => void }>();
  private readonly foldedWaiters: { offset: number; resolve: () => void }[] = [];
  private readonly listeners = new Set<ChangeListener>();
  private readonly commitListeners = new Set<CommitListener>();
  private closed = false;
  /** Second of the last time marker written (see compactor.ts). */
  private lastMarkerSecond = -1;
  /** lastMarkerSecond as of the last commit (what rollback restores). */
  private committedMarkerSecond = -1;
  /**
   * What the folds not committed yet changed in the key index, oldest first: the entry each
   * accepted event replaced. rollback() puts them back newest first, synchronously, so a failed
   * batch is undone without reading the store and without a moment where the index misses
   * entries (a reload that emptied the index while it read i/ answered creates meanwhile with a
   * wrong 404 `namespaces "default" not found` from namespace admission).
   *
   *   fold [CREATE ns/a@7, UPDATE ns/b@8]  →  undo [{a@7, none}, {b@8, b@3}]
   *   rollback()                           →  b back to @3, a removed; undo []
   *   commit(…8)                           →  undo []
   */
  private undo: { offset: number; path: string; previous: IndexEntry | undefined }[] = [];
  /**
   * Objects written by folds whose batch is not committed yet (path → latest version, null =
   * deleted). The o/ snapshot does not hold them yet, so a later event's previous version comes
   * from here: earlier in the same batch, or in a batch still in flight. Emptied by commit/reload.
   *
   *   fold [UPDATE x@7, UPDATE x@8]  →  unflushed {x: v7} after 7, {x: v8} after 8; prev of 8 = v7
   *   commit(…8)                     →  unflushed {}  (o/x is v8 now)
   */
  private readonly unflushed = new Map<string, { offset: number; object: Buffer | null }>();
  /** A foldInto is between its prefetch and its fold; a second one would fold on a stale prefetch. */
  private folding = false;
  /** o/ values of recently committed objects (fed by commit), for reads and for readPrevious. */
  private readonly current = new CurrentCache(CURRENT_CACHE_BYTES);

  private constructor(private readonly db: Db) {}

  /** Load the key index and the folded offset from the snapshot. */
  static async open(db: Db): Promise<Materializer> {
    const m = new Materializer(db);
    await m.load();
    return m;
  }

  private async load(): Promise<void> {
    // Into a new index, swapped in once complete: the index in use stays whole meanwhile.
    const index = new KeyIndex();
    // The folded offset first: a follower (storage/follower.ts) loads while the leader commits, and
    // re-applies every commit after this offset on top of the index read below.
    const f = await this.db.get(META_FOLDED);
    // In bulk: one iterator read in batches of INDEX_LOAD_BATCH entries (one native call and one
    // promise per batch, not per key).
    // Values come as strings decoded by LevelDB's binding (no Buffer per entry) and stay text until
    // the index reads them (KeyIndex).
    const it = this.db.iterator<string, string>({ gte: INDEX_PREFIX, lt: 'i0', valueEncoding: 'utf8', highWaterMarkBytes: INDEX_LOAD_BYTES });
    try {
      for (;;) {
        const entries = await it.nextv(INDEX_LOAD_BATCH);
        if (!entries.length) break;
        for (const [k, v] of entries) index.set(k.slice(INDEX_PREFIX.length), v);
      }
    } finally {
      await it.close();
    }
    let markerSecond = -1;
    for await (const v of this.db.values({ gte: 't/', lt: 't0', reverse: true, limit: 1 })) {
      markerSecond = Math.floor(Number(v.toString()) / 1000);
    }
    this.index = index;
    this.lastMarkerSecond = this.committedMarkerSecond = markerSecond;
    this.foldedOffset = f === undefined ? -1 : fromHex16(f.toString());
    this.foldingOffset = this.foldedOffset;
    this.undo = [];
  }

  /** Last offset whose effects are durable and visible to readers. */
  get folded(): number {
    return this.foldedOffset;
  }

  /**
   * Live objects under an object-path prefix, exactly as the snapshot store holds them now; undefined
   * while a folded batch is still being written (the index is then ahead of the store). Synchronous:
   * a LevelDB snapshot taken in the same tick sees the same state, at version `offset`.
   */
  liveUnder(prefix: string): { offset: number; count: number } | undefined {
    if (this.foldingOffset !== this.foldedOffset) return undefined;
    return { offset: this.foldedOffset, count: this.index.countUnder(prefix) };
  }

  /** Number of live objects (for metrics). */
  get size(): number {
    return this.index.size;
  }

  /** Live objects per `<group>/<resource>` (`core/configmaps`), for metrics. */
  objectCounts(): Map<string, number> {
    return this.index.countByResource();
  }

  /** The stored bytes of the object's latest committed version, if held in memory. */
  cached(key: ObjectKey): Buffer | undefined {
    return this.current.get(key);
  }

  /**
   * The object's version as last committed, when no fold in flight has written it since (else
   * undefined): a read of o/ begun now returns this version, unless a commit lands meanwhile.
   */
  committedVersion(key: ObjectKey): number | undefined {
    const path = objectPath(key);
    return this.unflushed.has(path) ? undefined : this.index.get(path)?.rv;
  }

  /**
   * `value` was read from o/ after committedVersion(key) answered `version`: hold it in memory if
   * that is still the committed version (nothing folded or committed for the object meanwhile).
   */
  remember(key: ObjectKey, version: number, value: Buffer): void {
    const path = objectPath(key);
    if (!this.closed && !this.unflushed.has(path) && this.index.get(path)?.rv === version) this.current.add(path, value);
  }

  /** The object at `path` exists as of the last fold (including in-flight batches). */
  live(path: string): boolean {
    return this.index.has(path);
  }

  /** Index entry of the object at `path` as of the last fold (including in-flight batches). */
  entry(key: ObjectKey): IndexEntry | undefined {
    return this.index.get(objectPath(key));
  }

  /**
   * Register interest in the verdict of intent `id`. Must be called before the intent is appended,
   * so a fast fold cannot resolve before anyone listens.
   */
  expectVerdict(id: string): Promise<Verdict> {
    const verdict = new Promise<Verdict>((resolve, reject) => this.verdictWaiters.set(id, { resolve, reject }));
    // A writer whose append failed cancels the verdict and never awaits it: not an unhandled rejection.
    verdict.catch(() => undefined);
    return verdict;
  }

  /** Give up waiting for `id` (append failed). */
  cancelVerdict(id: string, err: Error): void {
    const w = this.verdictWaiters.get(id);
    if (w) {
      this.verdictWaiters.delete(id);
      w.reject(err);
    }
  }

  /** Give up waiting for every verdict pending now (their events may still be folded later). */
  cancelVerdicts(err: Error): void {
    for (const w of this.verdictWaiters.values()) w.reject(err);
    this.verdictWaiters.clear();
  }

  /** Resolves once `offset` is folded and visible; false on timeout. */
  waitFolded(offset: number, timeoutMs: number): Promise<boolean> {
    if (this.foldedOffset >= offset) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = { offset, resolve: () => { clearTimeout(t); resolve(true); } };
      const t = setTimeout(() => {
        const i = this.foldedWaiters.indexOf(w);
        if (i >= 0) this.foldedWaiters.splice(i, 1);
        resolve(false);
      }, timeoutMs);
      this.foldedWaiters.push(w);
    });
  }

  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every commit, with its verdicts, changes and key index entries (even one with no change). */
  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Fold `events` (consecutive offsets, continuing the fold) into `ops`. Mutates the key index at
   * once so later events of the same batch see earlier ones. The caller must write `ops` and then
   * call `commit`, or call `reload` if the write failed. Calls must not overlap (await each one):
   * the previous versions of updated/deleted objects are read from o/ first, with one getMany.
   */
  async foldInto(events: FoldPositionedEvent[], ops: BatchOp[]): Promise<PendingFold> {
    if (this.closed) throw new StorageError('unreachable', 'materializer is closed');
    if (this.folding) throw new StorageError('corrupt', 'foldInto called while another foldInto is still running');
    this.folding = true;
    try {
      const stored = await this.readPrevious(events);
      return this.foldLocked(events, ops, stored);
    } finally {
      this.folding = false;
    }
  }

  /**
   * Current o/ values of the objects `events` may update or delete and that no uncommitted fold
   * has written. Creates need no read; an update of a missing key is rejected, so it reads nothing;
   * values held in memory are not read again (a batch of updates of hot objects folds at once).
   */
  private async readPrevious(events: FoldPositionedEvent[]): Promise<Map<string, Buffer>> {
    const paths = new Map<string, string>(); // objectPath → o/ key
    const out = new Map<string, Buffer>();
    for (const { event } of events) {
      if (event.op !== 'UPDATE' && event.op !== 'DELETE') continue;
      const key = eventKey(event);
      const path = objectPath(key);
      if (!this.index.has(path) || this.unflushed.has(path)) continue;
      const held = this.current.get(key);
      if (held) out.set(path, held);
      else paths.set(path, currentKey(key));
    }
    if (!paths.size) return out;
    const values = await this.db.getMany([...paths.values()]);
    let i = 0;
    for (const path of paths.keys()) {
      const v = values[i++];
      if (v !== undefined) out.set(path, v);
    }
    return out;
  }

  /** The synchronous fold; `stored` holds o/ values read before it (see readPrevious). */
  private foldLocked(events: FoldPositionedEvent[], ops: BatchOp[], stored: Map<string, Buffer>): PendingFold {
    const pending: PendingFold = { lastOffset: this.foldingOffset, verdicts: [], changes: [], entries: [], time: 0 };
    for (const { offset, event } of events) {
      if (offset <= this.foldingOffset) {
        throw new StorageError('corrupt', `fold went backwards: offset ${offset} after ${this.foldingOffset}`);
      }
      this.foldingOffset = offset;
      pending.lastOffset = offset;
      pending.time = event.time;
      const second = Math.floor(event.time / 1000);
      if (second > this.lastMarkerSecond) {
        // At most one marker a second: enough to place the history window to the second.
        this.lastMarkerSecond = second;
        ops.push({ type: 'put', key: markerKey(offset), value: Buffer.from(String(event.time)) });
      }
      const folded = this.index.apply(offset, event);
      if (!folded) continue; // GENESIS
      const { key, path, verdict, previous } = folded;
      pending.verdicts.push({ id: event.id, verdict });
      if (!verdict.accepted) continue;
      this.undo.push({ offset, path, previous });
      ops.push({ type: 'put', key: historyKey(key, offset), value: verdict.op === 'DELETE' ? Buffer.alloc(0) : verdict.object });
      const written = this.unflushed.get(path);
      const prev = verdict.op === 'CREATE' ? undefined : written ? written.object ?? undefined : stored.get(path);
      this.unflushed.set(path, { offset, object: verdict.op === 'DELETE' ? null : verdict.object });
      if (verdict.op === 'DELETE') {
        ops.push({ type: 'del', key: currentKey(key) }, { type: 'del', key: indexKey(path) });
        pending.entries.push([path, null]);
      } else {
        const entry = this.index.get(path)!;
        ops.push({ type: 'put', key: currentKey(key), value: verdict.object }, { type: 'put', key: indexKey(path), value: encodeIndexEntry(entry) });
        pending.entries.push([path, entry]);
      }
      const type = changeTypeOf(verdict.op);
      const change: Change = { offset, type, key, object: verdict.object, time: event.time };
      if (prev) change.prev = prev;
      pending.changes.push(change);
    }
    ops.push({ type: 'put', key: META_FOLDED, value: Buffer.from(hex16(pending.lastOffset)) });
    return pending;
  }

  /** The batch holding `pending` is durable: publish verdicts and changes (the commit point). */
  commit(pending: PendingFold): void {
    this.foldedOffset = pending.lastOffset;
    // o/ now holds these versions; keep only what later, still uncommitted folds wrote.
    for (const [path, w] of this.unflushed) if (w.offset <= pending.lastOffset) this.unflushed.delete(path);
    let done = 0;
    while (done < this.undo.length && this.undo[done].offset <= pending.lastOffset) done++;
    this.undo.splice(0, done);
    if (!this.undo.length) this.committedMarkerSecond = this.lastMarkerSecond;
    this.current.apply(pending.changes);
    // Followers first: a verdict's writer may answer on another thread only after that thread has
    // the commit (storage/follower.ts posts both on one port, this first).
    for (const l of this.commitListeners) l(pending);
    for (const { id, verdict } of pending.verdicts) this.resolveVerdict(id, verdict);
    this.published(pending.changes);
  }

  /**
   * A follower (storage/follower.ts) applies a commit of the leader's fold: the key index entries it
   * left, then the same publication as commit (listeners, folded waiters; the cache keeps only what
   * this thread holds already, CurrentCache.follow). A commit at or
   * below the folded offset (already in the index this follower loaded) is skipped.
   */
  follow(c: FollowedCommit): void {
    if (c.lastOffset <= this.foldedOffset) return;
    for (const [path, entry] of c.entries) this.index.restore(path, entry ?? undefined);
    this.foldedOffset = this.foldingOffset = c.lastOffset;
    this.current.follow(c.changes);
    this.published(c.changes);
  }

  /** The verdict of intent `id` is known (a follower: the leader answered it). */
  resolveVerdict(id: string, verdict: Verdict): void {
    const w = this.verdictWaiters.get(id);
    if (w) {
      this.verdictWaiters.delete(id);
      w.resolve(verdict);
    }
  }

  /** Changes up to foldedOffset are visible: tell listeners and folded waiters. */
  private published(changes: Change[]): void {
    if (changes.length) {
      for (const l of this.listeners) {
        try {
          l(changes, this.foldedOffset);
        } catch {
          // A listener's failure is its own; the fold has committed regardless.
        }
      }
    }
    if (this.foldedWaiters.length) {
      for (let i = this.foldedWaiters.length - 1; i >= 0; i--) {
        const w = this.foldedWaiters[i];
        if (w.offset <= this.foldedOffset) {
          this.foldedWaiters.splice(i, 1);
          w.resolve();
        }
      }
    }
  }

  /**
   * The batch write failed: forget every fold not committed yet (the failed batch and any folded
   * after it, which were folded on its state), synchronously: the key index, the fold position and
   * the time marker are back to the last commit. Their writers' verdicts stay pending; the caller
   * fails them.
   */
  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.index.restore(this.undo[i].path, this.undo[i].previous);
    this.undo = [];
    this.unflushed.clear();
    this.foldingOffset = this.foldedOffset;
    this.lastMarkerSecond = this.committedMarkerSecond;
  }

  /**
   * Re-read the durable state (key index, folded offset) from the store, after it was reopened
   * (StoreKeeper.recover (recovery.ts)). Uncommitted folds are forgotten; the index is swapped in whole once read.
   * Returns the folded offset found on disk, which the caller compares with what was committed.
   */
  async reload(): Promise<number> {
    this.rollback();
    await this.load();
    return this.foldedOffset;
  }

  /** The memory copy of recently committed objects may no longer match the store: drop it. */
  forgetCached(): void {
    this.current.clear();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const err = new StorageError('unreachable', 'storage is shutting down');
    for (const w of this.verdictWaiters.values()) w.reject(err);
    this.verdictWaiters.clear();
  }
}

