/**
 * Deletion at a deadline, shared by the controllers that expire objects (the event TTL, the
 * bootstrap-token cleaner): one timer per object for the version last seen, a work queue that
 * dedups and retries, and a DELETE guarded by the version's uid + resourceVersion.
 *
 *   schedule(version, due) ─► timer ─► work queue ─► storage.latest() ─► still that version?
 *                                                   ─► DELETE with uid + resourceVersion preconditions
 *   forget(key)            ─► timer dropped (the object was deleted, or no longer expires)
 *
 * `start(policy)` feeds it: every folded change of the kind (in the policy's namespace) is
 * scheduled at the deadline the policy gives the version, or forgotten; a start-up scan (pages of
 * 500) schedules the objects already stored, which is how a restarted server resumes.
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
import type { KubeObject } from '../api/types.ts';
import { objectPath } from '../storage/keys.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { listAll } from './list-all.ts';

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

/** What expires, and when. */
export interface ExpiryPolicy {
  /** The namespace followed; undefined: all of them. */
  namespace?: string;
  /**
   * The deadline (epoch ms) of this version of `o`, or null when it never expires. `writtenAt`:
   * the write's time when the version comes from a folded change, null from the start-up scan.
   */
  due(o: KubeObject, writtenAt: number | null): number | null;
  /** Names the controller in its log lines. */
  name: string;
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
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ExpiringObjectsOptions) {
    this.queue = new WorkQueue<Expiry>(
      (e) => this.expire(e),
      (e, err) => opts.log.warn({ err, object: e.key }, opts.failureMessage),
      opts.queueOptions ?? DEFAULT_WORK_QUEUE_OPTIONS,
    );
  }

  /** Follow the kind's folded changes, then scan the stored objects in the background. */
  start(policy: ExpiryPolicy): void {
    const { group, resource } = this.opts.served.store.codec;
    this.unsubscribe = this.opts.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== group || c.key.resource !== resource) continue;
        if (policy.namespace !== undefined && c.key.namespace !== policy.namespace) continue;
        if (c.type === 'DELETED') {
          this.forget(objectPath(c.key));
          continue;
        }
        // This runs in the fold's commit step: a bad object must never break it.
        try {
          const o = parseObject(c.object);
          this.observe(o, c.offset, policy.due(o, c.time));
        } catch (err) {
          this.opts.log.warn({ err, object: objectPath(c.key) }, `${policy.name} could not read a change`);
        }
      }
    });
    this.scanned = this.scan(policy).catch((err) => this.opts.log.warn({ err }, `${policy.name}: start-up scan failed; expiry resumes as objects are written`));
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.scanned;
  }

  private async scan(policy: ExpiryPolicy): Promise<void> {
    for await (const b of listAll(this.opts.served.reader, policy.namespace ?? '')) {
      const o = parseObject(b);
      this.observe(o, Number(o.metadata.resourceVersion), policy.due(o, null));
    }
  }

  /** A version of an object was seen: schedule its deletion at `due`, or forget it (null). */
  private observe(o: KubeObject, rv: number, due: number | null): void {
    const m = o.metadata;
    const key = objectPath(this.opts.served.store.key(m.namespace ?? '', m.name ?? ''));
    const known = this.expiries.get(key);
    if (known && known.rv >= rv) return;
    if (due === null) this.forget(key);
    else this.schedule({ key, namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '', rv, due });
  }

  /** Arm the timer of an object's version (a newer version already known wins). */
  private schedule(e: Expiry): void {
    const known = this.expiries.get(e.key);
    if (known && known.rv >= e.rv) return;
    this.expiries.set(e.key, e);
    this.arm(e);
  }

  private forget(key: string): void {
    this.expiries.delete(key);
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  /** Stop following, drop every timer and queued deletion (deletions under way finish). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
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
