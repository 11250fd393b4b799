/**
 * Namespace lifecycle controller (kube-controller-manager's namespace controller, in process).
 * When a namespace is Terminating it deletes every namespaced object in it (objects with
 * finalizers get deletionTimestamp and are waited for), then removes the `kubernetes` finalizer
 * through the `finalize` subresource, after which the store removes the namespace.
 *
 * It is driven by committed changes: a namespace turning Terminating, or any change to an object
 * inside a terminating namespace, schedules that namespace for another pass. Passes for one
 * namespace never overlap; a change during a pass schedules one more pass.
 */
import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { ApiError } from '../api/errors.ts';

const FINALIZER = 'kubernetes';

export class NamespaceController {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private unsubscribe: (() => void) | null = null;
  private readonly ctx = systemContext('namespace-controller');
  private readonly namespaces: ServedKind;

  constructor(private readonly storage: Storage, private readonly registry: Registry, private readonly log: Logger) {
    const ns = registry.lookup('', 'v1', 'namespaces');
    if (!ns) throw new Error('namespace controller: the namespaces resource is not registered');
    this.namespaces = ns;
  }

  async start(): Promise<void> {
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.resource === 'namespaces' && c.key.group === '') {
          if (c.type !== 'DELETED' && this.storage.entry(c.key)?.deleting) this.schedule(c.key.name);
        } else if (c.key.namespace && this.storage.entry({ group: '', resource: 'namespaces', namespace: '', name: c.key.namespace })?.deleting) {
          this.schedule(c.key.namespace);
        }
      }
    });
    const all = await this.namespaces.reader.list('', {});
    for (const b of all.items) {
      const o = parseObject(b);
      if (o.metadata.deletionTimestamp) this.schedule(o.metadata.name!);
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves when no pass is running (tests). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  private schedule(ns: string): void {
    if (this.running.has(ns)) {
      this.again.add(ns);
      return;
    }
    const p = this.sync(ns)
      .catch((err) => this.log.warn({ err, namespace: ns }, 'namespace cleanup pass failed; will retry on the next change'))
      .finally(() => {
        this.running.delete(ns);
        if (this.again.delete(ns)) this.schedule(ns);
      });
    this.running.set(ns, p);
  }

  private async sync(ns: string): Promise<void> {
    let remaining = 0;
    for (const served of this.registry.storageKinds()) {
      if (!served.kind.namespaced) continue;
      const list = await served.reader.list(ns, {});
      for (const b of list.items) {
        const o = parseObject(b);
        remaining++;
        if (o.metadata.deletionTimestamp) continue; // waiting for its finalizers
        try {
          const r = await served.store.delete(this.ctx, ns, o.metadata.name!, {});
          if (!parseObject(r.body).metadata?.deletionTimestamp) remaining--;
        } catch (e) {
          if ((e as ApiError).code === 404) remaining--;
          else throw e;
        }
      }
    }
    if (remaining > 0) return;
    let current;
    try {
      current = parseObject(await this.namespaces.store.getLatest('', ns));
    } catch {
      return; // already gone
    }
    if (!current.metadata.deletionTimestamp) return;
    const spec = (current.spec ?? {}) as { finalizers?: string[] };
    const finalizers = (spec.finalizers ?? []).filter((f) => f !== FINALIZER);
    await this.namespaces.store.update(this.ctx, '', ns, { ...current, spec: { ...spec, finalizers } }, 'finalize');
  }
}
