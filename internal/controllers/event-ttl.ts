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
import type { ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { ExpiringObjects } from './expiring-objects.ts';
import type { Controller } from './controller.ts';

/** kube-apiserver's --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;
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
export class EventTtlController implements Controller {
  private readonly expiring: ExpiringObjects;

  constructor(
    storage: Storage,
    served: ServedKind,
    private readonly ttlMs: number,
    log: Logger,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    if (served.kind.storedAs) throw new Error(`event TTL controller: ${served.kind.resource} is a view; give it the kind that owns the storage`);
    this.expiring = new ExpiringObjects({ storage, served, ctx: systemContext('event-ttl-controller'), log, failureMessage: 'event TTL deletion failed; retrying', queueOptions });
  }

  /** Follow Event writes (a TTL from each write's time), then scan the stored ones in the background. */
  start(): void {
    this.expiring.start({ name: 'event TTL controller', due: (o, writtenAt) => (writtenAt ?? lastWriteOf(o)) + this.ttlMs });
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.expiring.synced();
  }

  stop(): void {
    this.expiring.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.expiring.idle();
  }
}
