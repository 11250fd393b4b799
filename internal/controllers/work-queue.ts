/**
 * A small deduplicating work queue with per-key exclusivity and retry backoff, in the shape of
 * client-go's rate-limited workqueue: an item added while it is being processed is processed once
 * more afterwards; a failed item comes back after an exponential delay.
 */

/** A unit of work; `key` identifies it for deduplication (the newest payload wins). */
export interface WorkItem {
  key: string;
}

/** Tuning of a WorkQueue (tests may shrink the delays). */
export interface WorkQueueOptions {
  /** Items processed at once (kube-controller-manager's --concurrent-gc-syncs is 20; 4 suits 2 cores). */
  concurrency: number;
  /** First retry delay; doubles per consecutive failure of one key. */
  baseDelayMs: number;
  /** Retry delay cap, so a flapping dependency is retried at least this often. */
  maxDelayMs: number;
}

export const DEFAULT_WORK_QUEUE_OPTIONS: WorkQueueOptions = { concurrency: 4, baseDelayMs: 50, maxDelayMs: 5_000 };

export class WorkQueue<T extends WorkItem> {
  private readonly pending = new Map<string, T>();
  private readonly running = new Set<string>();
  /** Items added while their key was running: processed again when it finishes. */
  private readonly dirty = new Map<string, T>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Items wait (queued, deduplicated) until resume(): e.g. until a controller's cache is synced. */
  private paused = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly handler: (item: T) => Promise<void>,
    private readonly onError: (item: T, err: unknown) => void,
    private readonly opts: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {}

  /** Queue an item (no-op once stopped). */
  add(item: T): void {
    if (this.stopped) return;
    if (this.running.has(item.key)) this.dirty.set(item.key, item);
    else this.pending.set(item.key, item);
    this.pump();
  }

  /** Queue an item after `ms` (a retry). */
  addAfter(item: T, ms: number): void {
    if (this.stopped) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.add(item);
    }, ms);
    this.timers.add(t);
  }

  /** Hold queued items until resume() (items being processed finish). */
  pause(): void {
    this.paused = true;
  }

  /** Start processing queued items again. */
  resume(): void {
    this.paused = false;
    this.pump();
  }

  /** Drop queued work and retries; items being processed finish. */
  stop(): void {
    this.stopped = true;
    this.pending.clear();
    this.dirty.clear();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.checkIdle();
  }

  /** Resolves once nothing is queued, running or waiting for a retry. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.pending.size === 0 && this.running.size === 0 && this.dirty.size === 0 && this.timers.size === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private pump(): void {
    while (!this.stopped && !this.paused && this.running.size < this.opts.concurrency && this.pending.size) {
      const [key, item] = this.pending.entries().next().value as [string, T];
      this.pending.delete(key);
      this.running.add(key);
      this.handler(item).then(
        () => this.failures.delete(key),
        (err: unknown) => {
          const n = (this.failures.get(key) ?? 0) + 1;
          this.failures.set(key, n);
          this.onError(item, err);
          this.addAfter(item, Math.min(this.opts.maxDelayMs, this.opts.baseDelayMs * 2 ** (n - 1)));
        },
      ).finally(() => {
        this.running.delete(key);
        const again = this.dirty.get(key);
        if (again) {
          this.dirty.delete(key);
          if (!this.stopped) this.pending.set(key, again);
        }
        this.pump();
        this.checkIdle();
      });
    }
    this.checkIdle();
  }
}
