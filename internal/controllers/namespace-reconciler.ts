/**
 * The shape shared by kube-controller-manager's per-namespace controllers that keep objects in
 * every namespace (the serviceaccounts controller, the root-ca-cert-publisher): a work queue of
 * namespace names, fed by committed changes through a kind-specific trigger and by a start-up
 * scan of every namespace (an informer's initial list sends an Add per namespace), and drained by
 * a `sync(namespace)` that reads the current state and writes what is missing.
 *
 *   onChange ─► trigger(change) → namespace? ─► work queue (dedup per namespace, retries) ─► sync
 *   start    ─► every namespace (pages of 500) ─┘
 *
 * Several replicas (Kafka mode) each run these controllers on the same committed changes. A sync
 * first waits for the local fold to reach the log's end (`Storage.latest()`, so what it reads is
 * as new as the log), and every write it makes is safe to race: creates lose to the fold's
 * AlreadyExists, updates carry the resourceVersion they were computed from (409 → a fresh look).
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';

/** What one per-namespace controller supplies. */
export interface NamespaceReconcilerSpec {
  /** Controller name, for logs. */
  name: string;
  /**
   * The namespace a committed change asks to sync, or undefined. Runs in the fold's commit
   * step: must be cheap, and may throw only for a change it cannot read (logged, skipped).
   */
  trigger(c: Change): string | undefined;
  /** Make the namespace right; throw to be retried with backoff. */
  sync(namespace: string): Promise<void>;
}

export class NamespaceReconciler extends QueueController<{ key: string }> {
  constructor(
    storage: Storage,
    private readonly namespaces: ServedKind,
    log: Logger,
    private readonly spec: NamespaceReconcilerSpec,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    super(
      spec.name,
      storage,
      log,
      async ({ key }) => {
        await storage.latest();
        await spec.sync(key);
      },
      ({ key }, err) => {
        // A lost race (409) is expected between replicas: the retry takes a fresh look.
        if (!(err instanceof ApiError && err.code === 409)) log.warn({ err, namespace: key, controller: spec.name }, 'namespace sync failed; retrying');
      },
      queueOptions,
    );
  }

  protected observe(c: Change): void {
    const ns = this.spec.trigger(c);
    if (ns) this.queue.add({ key: ns });
  }

  /** Queue every namespace (an informer's initial list). */
  protected async scan(): Promise<void> {
    try {
      for await (const b of listAll(this.namespaces.reader, '', {}, () => this.stopped)) {
        const name = parseObject(b).metadata.name;
        if (name) this.queue.add({ key: name });
      }
    } catch (err) {
      this.log.warn({ err, controller: this.spec.name }, 'start-up scan of namespaces failed; namespaces are synced as they change');
    }
  }
}

/** The namespaces resource of a registry (every per-namespace controller needs it). */
export function namespacesOf(registry: Registry, controller: string): ServedKind {
  const ns = registry.lookup('', 'v1', 'namespaces');
  if (!ns) throw new Error(`${controller}: the namespaces resource is not registered`);
  return ns;
}

/** Is this Status the refusal of a create in a terminating namespace (cause NamespaceTerminating)? */
export function isNamespaceTerminating(err: unknown): boolean {
  return err instanceof ApiError && (err.status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/** The stored object, or null on 404. */
export async function getOrNull(served: ServedKind, namespace: string, name: string) {
  try {
    return parseObject(await served.store.getLatest(namespace, name));
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return null;
    throw err;
  }
}
