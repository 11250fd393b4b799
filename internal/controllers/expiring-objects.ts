/**
 * Deletion at a deadline, shared by the controllers that expire objects (the event TTL, the
 * bootstrap-token cleaner): one timer per object for the version last seen, a work queue that
 * dedups and retries, and a DELETE guarded by the version's uid + resourceVersion.
 *
 *   schedule(version, due) ─► timer ─► work queue ─► storage.latest() ─► still that version?
 *                                                   ─► DELETE with uid + resourceVersion preconditions
 *   forget(key)            ─► timer dropped (the object was deleted, or no longer expires)
 *
 * Replica-safe: every replica on one Kafka topic sees the same versions and arms the same timers;
 * the preconditions let exactly one DELETE land, the others get 404/409 (expected, not failures).
 * A write after a timer was armed changes the resourceVersion, so a stale timer deletes nothing
 * and the write's own schedule decides.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { ServedKind } from '../registry/registry.ts';
import type { RequestContext } from '../registry/generic/context.ts';
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';

/** setTimeout's largest delay (2^31-1 ms, ~24.8 days); longer waits re-arm when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One stored version of an object that will expire. */
export interface Expiry {
  /** The object's identity for dedup (the work queue's key). */
  key: string;
  namespace: string;
  name: string;
  uid: string;
  rv: number;
  /** Epoch ms at which this version is deleted. */
  due: number;
}

const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);

export interface ExpiringObjectsOptions {
  storage: Storage;
  served: ServedKind;
  ctx: RequestContext;
  log: Logger;
  /** Log text of a failed deletion (it is retried). */
  failureMessage: string;
  /** Called after this process's DELETE of an expired version landed. */
  onDeleted?(e: Expiry): void;
  queueOptions?: WorkQueueOptions;
}

export class ExpiringObjects {
  private readonly expiries = new Map<string, Expiry>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue: WorkQueue<Expiry>;

  constructor(private readonly opts: ExpiringObjectsOptions) {
    this.queue = new WorkQueue<Expiry>(
      (e) => this.expire(e),
      (e, err) => opts.log.warn({ err, object: e.key }, opts.failureMessage),
      opts.queueOptions ?? DEFAULT_WORK_QUEUE_OPTIONS,
    );
  }

  /** Arm the timer of an object's version (a newer version already known wins). */
  schedule(e: Expiry): void {
    const known = this.expiries.get(e.key);
    if (known && known.rv >= e.rv) return;
    this.expiries.set(e.key, e);
    this.arm(e);
  }

  /** The version last scheduled for `key`, if any. */
  known(key: string): Expiry | undefined {
    return this.expiries.get(key);
  }

  forget(key: string): void {
    this.expiries.delete(key);
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  /** Drop every timer and queued deletion (deletions under way finish). */
  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.stop();
  }

  /** Resolves when no deletion is queued, running or waiting for a retry. */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private arm(e: Expiry): void {
    const old = this.timers.get(e.key);
    if (old) clearTimeout(old);
    const wait = Math.max(0, e.due - Date.now());
    const t = setTimeout(() => {
      this.timers.delete(e.key);
      if (this.expiries.get(e.key) !== e) return;
      if (Date.now() < e.due) this.arm(e); // longer than one timer can wait
      else this.queue.add(e);
    }, Math.min(wait, MAX_TIMER_MS));
    t.unref();
    this.timers.set(e.key, t);
  }

  /** Delete the version the timer was set for, if it is still the current one. */
  private async expire(e: Expiry): Promise<void> {
    await this.opts.storage.latest();
    if (this.expiries.get(e.key)?.rv !== e.rv) return; // written (or gone) since
    try {
      await this.opts.served.store.delete(this.opts.ctx, e.namespace, e.name, { preconditions: { uid: e.uid, resourceVersion: String(e.rv) } });
      this.opts.onDeleted?.(e);
    } catch (err) {
      // 404: already deleted (another replica, a client); 409: written since, a new timer runs.
      if (errCode(err) !== 404 && errCode(err) !== 409) throw err;
    }
    if (this.expiries.get(e.key)?.rv === e.rv) this.forget(e.key);
  }
}
