/**
 * Event TTL (kube-apiserver --event-ttl, default 1h): an Event disappears once the TTL has passed
 * since its last write. kube gets this from an etcd lease that every create/update of an Event
 * renews (eventstore TTLFunc); here Events are ordinary objects in the log, so this in-process
 * controller deletes them through the generic store, like any client.
 *
 *   onChange (ADDED/MODIFIED of an Event at offset rv, written at time t) ─► timer at t + ttl
 *   onChange (DELETED)                                                    ─► timer dropped
 *   timer ─► work queue (dedup per object, retries) ─► storage.latest() ─► still the version the
 *            timer was set for? ─► DELETE with uid + resourceVersion preconditions
 *
 * A start-up scan (pages of 500) sets a timer for every stored Event from its last write time as
 * the object records it (the newest of creationTimestamp and managedFields times), which is how a
 * restarted server resumes expiry. Several replicas on one Kafka topic all run this controller:
 * each observes the same changes with the same write times, and the preconditions let exactly one
 * DELETE land; the others get 404/409, which is the expected outcome, not a failure. A write after
 * the timer was set changes the resourceVersion, so an expired timer never deletes a renewed Event.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import { objectPath } from '../storage/keys.ts';
import type { ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';

/** kube-apiserver's --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;
/** Page size of the start-up scan: bounds memory on large stores. */
const SCAN_PAGE = 500;
/** setTimeout's largest delay (2^31-1 ms, ~24.8 days); longer TTLs re-arm when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One stored version of an object that will expire. */
interface Expiry {
  key: string;
  namespace: string;
  name: string;
  uid: string;
  rv: number;
  due: number;
}

const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);

/** When an object was last written, as the object itself records it (second precision). */
function lastWriteOf(o: KubeObject): number {
  let t = Date.parse(o.metadata.creationTimestamp ?? '') || 0;
  for (const m of o.metadata.managedFields ?? []) {
    const mt = Date.parse(String(m.time ?? ''));
    if (mt > t) t = mt;
  }
  return t;
}

/**
 * Deletes the objects of one kind (the core Events) `ttlMs` after their last write. Generic over
 * the kind it is given; app.ts gives it Events and --event-ttl.
 */
export class EventTtlController {
  private readonly expiries = new Map<string, Expiry>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue: WorkQueue<Expiry>;
  private readonly ctx = systemContext('event-ttl-controller');
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly served: ServedKind,
    private readonly ttlMs: number,
    private readonly log: Logger,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    if (served.kind.storedAs) throw new Error(`event TTL controller: ${served.kind.resource} is a view; give it the kind that owns the storage`);
    this.queue = new WorkQueue<Expiry>(
      (e) => this.expire(e),
      (e, err) => this.log.warn({ err, object: e.key }, 'event TTL deletion failed; retrying'),
      queueOptions,
    );
  }

  /** Subscribe to changes, then scan the stored objects in the background. */
  start(): void {
    const { group, resource } = this.served.store.codec;
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== group || c.key.resource !== resource) continue;
        const key = objectPath(c.key);
        if (c.type === 'DELETED') {
          this.forget(key);
          continue;
        }
        // This runs in the fold's commit step: a bad object must never break it.
        let uid = '';
        try {
          uid = parseObject(c.object).metadata.uid ?? '';
        } catch (err) {
          this.log.warn({ err, object: key }, 'event TTL controller could not read a change');
        }
        this.schedule({ key, namespace: c.key.namespace, name: c.key.name, uid, rv: c.offset, due: c.time + this.ttlMs });
      }
    });
    this.scanned = this.scan().catch((err) => this.log.warn({ err }, 'event TTL start-up scan failed; expiry resumes as events are written'));
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.scanned;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async scan(): Promise<void> {
    let cont: string | undefined;
    do {
      const page = await this.served.reader.list('', { limit: SCAN_PAGE, continue: cont });
      for (const b of page.items) {
        const o = parseObject(b);
        const m = o.metadata;
        const key = objectPath(this.served.store.key(m.namespace ?? '', m.name ?? ''));
        this.schedule({ key, namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '', rv: Number(m.resourceVersion), due: lastWriteOf(o) + this.ttlMs });
      }
      cont = page.continue;
    } while (cont);
  }

  /** Arm the timer of an object's version (a newer version already known wins). */
  private schedule(e: Expiry): void {
    const known = this.expiries.get(e.key);
    if (known && known.rv >= e.rv) return;
    this.expiries.set(e.key, e);
    this.arm(e);
  }

  private arm(e: Expiry): void {
    const old = this.timers.get(e.key);
    if (old) clearTimeout(old);
    const wait = Math.max(0, e.due - Date.now());
    const t = setTimeout(() => {
      this.timers.delete(e.key);
      if (this.expiries.get(e.key) !== e) return;
      if (Date.now() < e.due) this.arm(e); // a TTL longer than one timer can wait
      else this.queue.add(e);
    }, Math.min(wait, MAX_TIMER_MS));
    t.unref();
    this.timers.set(e.key, t);
  }

  private forget(key: string): void {
    this.expiries.delete(key);
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  /** Delete the version the timer was set for, if it is still the current one. */
  private async expire(e: Expiry): Promise<void> {
    await this.storage.latest();
    if (this.expiries.get(e.key)?.rv !== e.rv) return; // renewed (or gone) since
    try {
      await this.served.store.delete(this.ctx, e.namespace, e.name, { preconditions: { uid: e.uid, resourceVersion: String(e.rv) } });
    } catch (err) {
      // 404: already deleted (another replica, a client); 409: written since, a new timer runs.
      if (errCode(err) !== 404 && errCode(err) !== 409) throw err;
    }
    if (this.expiries.get(e.key)?.rv === e.rv) this.forget(e.key);
  }
}
