/**
 * The memory budget of watch streams: bytes a watcher may have queued (written, not yet taken by
 * its client), each on its own (`perWatcher`) and all together (`total`).
 *
 * kube-apiserver holds no queue of its own per watcher beyond a channel of events (its writes
 * block on the socket); a watcher whose channel stays full is ended ("Forcing watcher close due
 * to unresponsiveness"): its response just ends, and client-go re-watches or relists. Here writes
 * never block, so what a client does not read waits in the server's memory; this budget is what
 * bounds it. A watcher past `perWatcher` is ended by its stream; when all of them together pass
 * `total`, the ones with the most queued are ended until the rest fit.
 *
 * Accounting is by samples: a stream reports its queue after each write (`note`) and when it
 * drains. Between samples a queue only shrinks (the client reads), so the sum overestimates;
 * when it passes `total` every queue is sampled again before anyone is ended.
 */

/** Bytes one watcher may have queued before it counts as too slow (default). */
export const DEFAULT_WATCHER_BYTES = 16 * 1024 * 1024;
/** Bytes all watchers together may have queued (default). */
export const DEFAULT_TOTAL_BYTES = 256 * 1024 * 1024;

export interface BudgetLimits {
  perWatcher: number;
  total: number;
}

/** One watch stream as the budget sees it. */
export interface QueuedStream {
  /** Bytes queued now. */
  queued(): number;
  /** End the stream as too slow (its queue is released). */
  endSlow(): void;
}

export interface BudgetEntry {
  /** Sample the stream's queue again (after a write, a drain). */
  note(): void;
  /** The stream is gone: its bytes no longer count. */
  remove(): void;
}

interface Tracked {
  stream: QueuedStream;
  accounted: number;
  removed: boolean;
}

export class WatchBudget {
  readonly perWatcher: number;
  readonly total: number;
  private readonly streams = new Set<Tracked>();
  private sum = 0;
  private peakSum = 0;

  constructor(limits: Partial<BudgetLimits> = {}) {
    this.perWatcher = limits.perWatcher ?? DEFAULT_WATCHER_BYTES;
    this.total = limits.total ?? DEFAULT_TOTAL_BYTES;
  }

  add(stream: QueuedStream): BudgetEntry {
    const t: Tracked = { stream, accounted: 0, removed: false };
    this.streams.add(t);
    return {
      note: () => {
        if (t.removed) return;
        this.set(t, stream.queued());
        if (this.sum > this.total) this.enforce();
        else this.peakSum = Math.max(this.peakSum, this.sum);
      },
      remove: () => this.remove(t),
    };
  }

  /**
   * Bytes queued across all watch streams (as last sampled, an overestimate), the largest such sum
   * seen (before the ones over the limit were ended), and the limit.
   */
  usage(): { bytes: number; peak: number; limit: number } {
    return { bytes: this.sum, peak: this.peakSum, limit: this.total };
  }

  private set(t: Tracked, bytes: number): void {
    this.sum += bytes - t.accounted;
    t.accounted = bytes;
  }

  private remove(t: Tracked): void {
    if (t.removed) return;
    t.removed = true;
    this.set(t, 0);
    this.streams.delete(t);
  }

  /** Over the total: sample every queue, then end the largest until the rest fit. */
  private enforce(): void {
    for (const t of this.streams) this.set(t, t.stream.queued());
    this.peakSum = Math.max(this.peakSum, this.sum);
    if (this.sum <= this.total) return;
    const largest = [...this.streams].sort((a, b) => b.accounted - a.accounted);
    for (const t of largest) {
      if (this.sum <= this.total) break;
      this.remove(t);
      t.stream.endSlow();
    }
  }
}
