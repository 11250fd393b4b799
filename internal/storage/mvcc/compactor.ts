/**
 * History compaction. Keeps every object version written inside the window, plus, per object,
 * the newest version written before it (that version is what an exact read at the window's start
 * must see — etcd's compaction keeps the same). Tombstones before the window are dropped.
 *
 * Worked example (window start C = 50), h/ entries of one object:
 *   rv 5 (v1), rv 20 (v2), rv 70 (v3)   →   rv 20 (v2), rv 70 (v3)
 *   rv 5 (v1), rv 20 (deleted)          →   (nothing: it did not exist at any rv ≥ 50)
 *
 * The window start comes from time markers `t/<offset>` → ms that the fold writes at most once per
 * second. `m/compacted` is written (synced) BEFORE deleting, so a crash mid-compaction can only make
 * readers see 410 early, never a wrong version.
 *
 * Only objects that may have something to drop are visited: those with more than one version or a
 * tombstone. A pass used to read every h/ entry, values included, every interval (a tenth of the
 * window): ~600 ms of CPU for 112k objects every 30 s, competing with the API under load. Now the
 * first pass after start-up finds them with a scan of the keys alone (an object with one version is
 * clean unless that version is a tombstone, i.e. the object is not live), later commits add the
 * objects they update or delete, and a pass seeks to each of those objects only, in key order with
 * one iterator. An object stays on the list while it keeps more than one version or a tombstone.
 */
import type { Db, BatchOp, Materializer, Change } from './materializer.ts';
import { writeBatch } from '../write-batch.ts';
import { StoreHealth } from '../store-health.ts';
import { hex16, fromHex16, objectPath, pathOfHistoryKey, rvOfHistoryKey, historyPrefixOf, META_COMPACTED } from '../keys.ts';

/** Deletes per batch: small batches keep compaction from holding the write path. */
const DELETE_BATCH = 1000;

/**
 * One object's h/ entries, in version order, against the window start `cut`: which to delete, and
 * whether the object still has more than one version or a tombstone afterwards.
 */
class ObjectCut {
  private candidate: { key: string; tombstone: boolean } | null = null;
  private remaining = 0;
  private lastTombstone = false;

  constructor(private readonly cut: number, private readonly drop: (key: string) => void) {}

  entry(key: string, rv: number, tombstone: boolean): void {
    if (rv < this.cut) {
      if (this.candidate) this.drop(this.candidate.key);
      this.candidate = { key, tombstone };
      return;
    }
    this.settle();
    this.remaining++;
    this.lastTombstone = tombstone;
  }

  /** The object's entries are done: true when a later pass may still have work on it. */
  finish(): boolean {
    this.settle();
    return this.remaining > 1 || (this.remaining === 1 && this.lastTombstone);
  }

  private settle(): void {
    if (!this.candidate) return;
    if (this.candidate.tombstone) this.drop(this.candidate.key);
    else {
      this.remaining++;
      this.lastTombstone = false;
    }
    this.candidate = null;
  }
}

export class Compactor {
  compacted = 0;
  /** Called as soon as `compacted` advances, before anything below it is deleted (storage/follower.ts). */
  onAdvance: ((c: number) => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Objects (paths) whose history may hold droppable versions. */
  private marked = new Set<string>();
  /** Until the first pass has scanned h/, objects written by earlier processes are unknown. */
  private discovered = false;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly db: Db, private readonly materializer: Materializer, private readonly windowMs: number, private readonly intervalMs: number, private readonly health = new StoreHealth()) {}

  async start(): Promise<void> {
    const c = await this.db.get(META_COMPACTED);
    this.compacted = c === undefined ? 0 : fromHex16(c.toString());
    this.unsubscribe = this.materializer.onChange((changes) => this.mark(changes));
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** A create adds a version to an object with none (or after a tombstone, already marked). */
  private mark(changes: readonly Change[]): void {
    for (const c of changes) if (c.type !== 'ADDED') this.marked.add(objectPath(c.key));
  }

  /** Resolves when no pass is running (the store is about to be reopened). */
  async idle(): Promise<void> {
    await this.running;
  }

  /** Run one compaction pass (also used by tests). Concurrent calls share the pass in progress. */
  runOnce(now = Date.now()): Promise<void> {
    if (!this.running) this.running = this.pass(now).finally(() => (this.running = null));
    return this.running;
  }

  /** The first offset whose time marker is inside the window, capped at the folded offset. */
  private async windowStart(now: number): Promise<number> {
    const cutoff = now - this.windowMs;
    let start = this.materializer.folded;
    for await (const [k, v] of this.db.iterator({ gte: 't/', lt: 't0', reverse: true })) {
      if (Number(v.toString()) < cutoff) break;
      start = Math.min(start, fromHex16(k.slice(2)));
    }
    return Math.max(0, start);
  }

  /**
   * Objects with more than one version, or whose single version is a tombstone (an object that is
   * not live): read from the keys alone.
   */
  private async discover(): Promise<Set<string>> {
    const found = new Set<string>();
    let path = '';
    let versions = 0;
    const close = (): void => {
      if (versions > 1 || (versions === 1 && !this.materializer.live(path))) found.add(path);
    };
    for await (const k of this.db.keys({ gte: 'h/', lt: 'h0' })) {
      const p = pathOfHistoryKey(k);
      if (p !== path) {
        if (versions) close();
        path = p;
        versions = 0;
      }
      versions++;
    }
    if (versions) close();
    return found;
  }

  private async pass(now: number): Promise<void> {
    let todo: Set<string> | null = null;
    // Compaction writes too: not while the store refuses writes, and through the same guard.
    if (!this.health.writable) return;
    try {
      const c = await this.windowStart(now);
      if (c <= this.compacted) return;
      todo = this.marked;
      this.marked = new Set();
      if (!this.discovered) {
        for (const p of await this.discover()) todo.add(p);
        this.discovered = true;
      }
      await this.health.guard(() => this.db.put(META_COMPACTED, Buffer.from(hex16(c)), { sync: true }));
      this.compacted = c;
      this.onAdvance?.(c);
      let ops: BatchOp[] = [];
      const flush = async (): Promise<void> => {
        const batch = ops;
        if (batch.length) await this.health.guard(() => writeBatch(this.db, batch, false));
        ops = [];
      };
      const drop = (key: string): void => void ops.push({ type: 'del', key });
      // In h/ key order, so that one iterator seeks forward through the table.
      const prefixes = [...todo].map((path) => ({ path, prefix: historyPrefixOf(path) })).sort((a, b) => (a.prefix < b.prefix ? -1 : a.prefix > b.prefix ? 1 : 0));
      const it = this.db.iterator({ gte: 'h/', lt: 'h0' });
      try {
        for (const { path, prefix } of prefixes) {
          const cut = new ObjectCut(c, drop);
          it.seek(prefix);
          for (;;) {
            const e = await it.next();
            if (!e || !e[0].startsWith(prefix)) break;
            cut.entry(e[0], rvOfHistoryKey(e[0]), e[1].length === 0);
          }
          if (cut.finish()) this.marked.add(path);
          if (ops.length >= DELETE_BATCH) await flush();
        }
      } finally {
        await it.close();
      }
      for await (const k of this.db.keys({ gte: 't/', lt: `t/${hex16(c)}` })) ops.push({ type: 'del', key: k });
      await flush();
    } catch {
      // Compaction is best effort; the next pass retries (the same objects). The database may be closing.
      if (todo) for (const p of todo) this.marked.add(p);
    }
  }
}
