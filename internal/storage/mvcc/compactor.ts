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
 */
import type { Db, BatchOp, Materializer } from './materializer.ts';
import { hex16, fromHex16, pathOfHistoryKey, rvOfHistoryKey, META_COMPACTED } from '../keys.ts';

/** Deletes per batch: small batches keep compaction from holding the write path. */
const DELETE_BATCH = 1000;

export class Compactor {
  compacted = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly db: Db, private readonly materializer: Materializer, private readonly windowMs: number, private readonly intervalMs: number) {}

  async start(): Promise<void> {
    const c = await this.db.get(META_COMPACTED);
    this.compacted = c === undefined ? 0 : fromHex16(c.toString());
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
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

  private async pass(now: number): Promise<void> {
    try {
      const c = await this.windowStart(now);
      if (c <= this.compacted) return;
      await this.db.put(META_COMPACTED, Buffer.from(hex16(c)), { sync: true });
      this.compacted = c;
      let ops: BatchOp[] = [];
      const flush = async (): Promise<void> => {
        if (ops.length) await this.db.batch(ops);
        ops = [];
      };
      let group = '';
      let candidate: { key: string; tombstone: boolean } | null = null;
      const settle = (): void => {
        if (candidate?.tombstone) ops.push({ type: 'del', key: candidate.key });
        candidate = null;
      };
      for await (const [k, v] of this.db.iterator({ gte: 'h/', lt: 'h0' })) {
        const g = pathOfHistoryKey(k);
        const rv = rvOfHistoryKey(k);
        if (g !== group) {
          settle();
          group = g;
        }
        if (rv < c) {
          if (candidate) ops.push({ type: 'del', key: candidate.key });
          candidate = { key: k, tombstone: v.length === 0 };
        } else {
          settle();
        }
        if (ops.length >= DELETE_BATCH) await flush();
      }
      settle();
      for await (const k of this.db.keys({ gte: 't/', lt: `t/${hex16(c)}` })) ops.push({ type: 'del', key: k });
      await flush();
    } catch {
      // Compaction is best effort; the next pass retries. The database may be closing.
    }
  }
}
