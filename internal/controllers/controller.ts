/**
 * What every controller of this server is to the manager (manager.ts), and the skeleton most of
 * them share.
 */
import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkItem, type WorkQueueOptions } from './work-queue.ts';

/**
 * A control loop: `start` begins it (a returned promise: its first pass is done), `stop` ends it
 * (work under way finishes; a returned promise: it has withdrawn what it published), `idle`
 * resolves when nothing is queued, running or waiting for a retry (shutdown waits for it; tests).
 */
export interface Controller {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
  idle(): Promise<void>;
}

/** Pause before a failed start-up scan starts over. */
const SCAN_RETRY_MS = 1_000;

/**
 * The skeleton of a controller fed by the fold, in the shape of kube's informer + workqueue
 * controllers: `start` subscribes to committed changes (each handed to `observe`, which runs in the
 * fold's commit step, so its errors are logged and never thrown) and then runs `scan`, the
 * start-up list, in the background; work goes through a WorkQueue; `stop` unsubscribes and drops
 * queued work; `idle` waits for the scan and the queue.
 */
export abstract class QueueController<T extends WorkItem> implements Controller {
  protected readonly queue: WorkQueue<T>;
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  /**
   * `name` names the controller in its log lines; `process` does one item; `onError` reports a
   * failed item, which the queue retries with backoff.
   */
  constructor(
    protected readonly name: string,
    protected readonly storage: Storage,
    protected readonly log: Logger,
    process: (item: T) => Promise<void>,
    onError: (item: T, err: unknown) => void,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    this.queue = new WorkQueue<T>(process, onError, queueOptions);
  }

  /** Look at one committed change (queue work for it); runs in the fold's commit step. */
  protected abstract observe(c: Change): void;

  /** The start-up scan: queue the work the objects already stored call for. */
  protected abstract scan(): Promise<void>;

  /** Subscribe to committed changes, then scan in the background (the server need not wait). */
  start(): void {
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        try {
          this.observe(c);
        } catch (err) {
          this.log.warn({ err, key: c.key, controller: this.name }, 'controller could not read a change');
        }
      }
    });
    this.scanned = this.scan();
  }

  /**
   * Run one start-up scan `pass` until it completes or the controller stops: a failed pass (e.g. its
   * continue token expired under compaction) is logged as `<what> failed` and started over after
   * SCAN_RETRY_MS.
   */
  protected async scanUntilDone(what: string, pass: () => Promise<void>): Promise<void> {
    for (;;) {
      try {
        await pass();
        return;
      } catch (err) {
        if (this.stopped) return;
        this.log.warn({ err }, `${what} failed; starting it again`);
        await new Promise((r) => setTimeout(r, SCAN_RETRY_MS));
      }
    }
  }

  /** True once stopped (a scan under way ends early). */
  protected get stopped(): boolean {
    return !this.unsubscribe;
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.scanned;
  }

  /** Stop watching and drop queued work (steps under way finish). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.queue.stop();
  }

  /** Resolves when the scan is done and no work is queued, running or waiting for a retry. */
  async idle(): Promise<void> {
    await this.scanned;
    return this.queue.idle();
  }
}
