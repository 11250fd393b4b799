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
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
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

export class NamespaceReconciler {
  private readonly queue: WorkQueue<{ key: string }>;
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly namespaces: ServedKind,
    private readonly log: Logger,
    private readonly spec: NamespaceReconcilerSpec,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    this.queue = new WorkQueue<{ key: string }>(
      async ({ key }) => {
        await this.storage.latest();
        await this.spec.sync(key);
      },
      ({ key }, err) => {
        // A lost race (409) is expected between replicas: the retry takes a fresh look.
        if (!(err instanceof ApiError && err.code === 409)) this.log.warn({ err, namespace: key, controller: spec.name }, 'namespace sync failed; retrying');
      },
      queueOptions,
    );
  }

  /** Subscribe to committed changes, then queue every namespace (in the background). */
  start(): void {
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        try {
          const ns = this.spec.trigger(c);
          if (ns) this.queue.add({ key: ns });
        } catch (err) {
          this.log.warn({ err, key: c.key, controller: this.spec.name }, 'could not read a change');
        }
      }
    });
    this.scanned = this.scan().catch((err) => this.log.warn({ err, controller: this.spec.name }, 'start-up scan of namespaces failed; namespaces are synced as they change'));
  }

  private async scan(): Promise<void> {
    for await (const b of listAll(this.namespaces.reader, '', {}, () => !this.unsubscribe)) {
      const name = parseObject(b).metadata.name;
      if (name) this.queue.add({ key: name });
    }
  }

  /** Resolves when the start-up scan has queued every namespace (tests). */
  synced(): Promise<void> {
    return this.scanned;
  }

  /** Stop watching and drop queued work (a sync under way finishes). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.queue.stop();
  }

  /** Resolves when nothing is queued, running or waiting for a retry (tests, shutdown). */
  async idle(): Promise<void> {
    await this.scanned;
    return this.queue.idle();
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
