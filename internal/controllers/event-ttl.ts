/**
 * Event TTL (kube-apiserver --event-ttl, default 1h): an Event disappears once the TTL has passed
 * since its last write. kube gets this from an etcd lease that every create/update of an Event
 * renews (eventstore TTLFunc); here Events are ordinary objects in the log, so this in-process
 * controller deletes them through the generic store, like any client.
 *
 *   onChange (ADDED/MODIFIED of an Event at offset rv, written at time t) ─► scheduled at t + ttl
 *   onChange (DELETED)                                                    ─► forgotten
 *
 * The timers, the work queue and the guarded DELETE are ExpiringObjects' (expiring-objects.ts).
 *
 * A start-up scan (pages of 500) sets a timer for every stored Event from its last write time as
 * the object records it (the newest of creationTimestamp and managedFields times), which is how a
 * restarted server resumes expiry. Several replicas on one Kafka topic all run this controller:
 * each observes the same changes with the same write times, and the preconditions let exactly one
 * DELETE land; the others get 404/409, which is the expected outcome, not a failure. A write after
 * the timer was set changes the resourceVersion, so an expired timer never deletes a renewed Event.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import { objectPath } from '../storage/keys.ts';
import type { ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { ExpiringObjects } from './expiring-objects.ts';

/** kube-apiserver's --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;
/** Page size of the start-up scan: bounds memory on large stores. */
const SCAN_PAGE = 500;

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
  private readonly expiring: ExpiringObjects;
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
    this.expiring = new ExpiringObjects({ storage, served, ctx: systemContext('event-ttl-controller'), log, failureMessage: 'event TTL deletion failed; retrying', queueOptions });
  }

  /** Subscribe to changes, then scan the stored objects in the background. */
  start(): void {
    const { group, resource } = this.served.store.codec;
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== group || c.key.resource !== resource) continue;
        const key = objectPath(c.key);
        if (c.type === 'DELETED') {
          this.expiring.forget(key);
          continue;
        }
        // This runs in the fold's commit step: a bad object must never break it.
        let uid = '';
        try {
          uid = parseObject(c.object).metadata.uid ?? '';
        } catch (err) {
          this.log.warn({ err, object: key }, 'event TTL controller could not read a change');
        }
        this.expiring.schedule({ key, namespace: c.key.namespace, name: c.key.name, uid, rv: c.offset, due: c.time + this.ttlMs });
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
    this.expiring.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.expiring.idle();
  }

  private async scan(): Promise<void> {
    let cont: string | undefined;
    do {
      const page = await this.served.reader.list('', { limit: SCAN_PAGE, continue: cont });
      for (const b of page.items) {
        const o = parseObject(b);
        const m = o.metadata;
        const key = objectPath(this.served.store.key(m.namespace ?? '', m.name ?? ''));
        this.expiring.schedule({ key, namespace: m.namespace ?? '', name: m.name ?? '', uid: m.uid ?? '', rv: Number(m.resourceVersion), due: lastWriteOf(o) + this.ttlMs });
      }
      cont = page.continue;
    } while (cont);
  }
}
