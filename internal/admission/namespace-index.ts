/**
 * Which namespaces hold objects of one resource (ResourceQuotas, LimitRanges), kept in memory so
 * that the admission plugins reading them skip the store for the many namespaces that have none.
 * A hint that never misses: names come from a first scan and from every committed change, and go
 * only on a committed delete (the listeners run at the fold's commit, before the writer is
 * answered, so an object whose create was acknowledged is known here). A stale name only costs the
 * plugin a read of the store.
 */
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { parseObject } from '../registry/generic/serialize.ts';

export class NamespaceIndex {
  private readonly names = new Map<string, Set<string>>();
  private scanned: Promise<void> | null = null;
  private subscribed = false;
  /** The first scan has completed. */
  private done = false;

  constructor(
    private readonly storage: Storage,
    private readonly group: string,
    private readonly resource: string,
  ) {}

  private add(namespace: string, name: string): void {
    let set = this.names.get(namespace);
    if (!set) this.names.set(namespace, (set = new Set()));
    set.add(name);
  }

  /** Subscribes, then scans every namespace once (on first use). */
  private start(): Promise<void> {
    if (!this.subscribed) this.subscribe();
    return this.scan().then(() => {
      this.done = true;
    });
  }

  private subscribe(): void {
    this.subscribed = true;
    this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== this.group || c.key.resource !== this.resource) continue;
        if (c.type === 'DELETED') {
          const set = this.names.get(c.key.namespace);
          set?.delete(c.key.name);
          if (set?.size === 0) this.names.delete(c.key.namespace);
        } else this.add(c.key.namespace, c.key.name);
      }
    });
  }

  private async scan(): Promise<void> {
    const view = await this.storage.view();
    try {
      const prefix = currentPrefix(this.group, this.resource);
      for await (const [key, b] of view.scan(prefix, `${prefix}\uffff`)) {
        if (!b.length) continue;
        const [namespace = '', name = ''] = key.slice(prefix.length).split('/');
        this.add(namespace, name);
      }
    } finally {
      await view.close();
    }
  }

  /**
   * False when the namespace surely holds none (after the first scan), so a plugin can answer
   * synchronously; true when it may hold some or the first scan is not done yet.
   */
  mayHave(namespace: string): boolean {
    return this.scanned === null || !this.done || this.names.has(namespace);
  }

  /** Scan now rather than at first use (as kube's informers list at start); a failure is retried at first use. */
  prime(): Promise<void> {
    this.scanned ??= this.start().catch((err: unknown) => {
      this.scanned = null;
      throw err;
    });
    return this.scanned;
  }

  /** The namespace's objects as last folded (none read when the namespace has none). */
  async list(namespace: string): Promise<KubeObject[]> {
    await this.prime();
    if (!this.names.has(namespace)) return [];
    const out: KubeObject[] = [];
    const view = await this.storage.view();
    try {
      const prefix = currentPrefix(this.group, this.resource, namespace);
      for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) if (b.length) out.push(parseObject(b));
    } finally {
      await view.close();
    }
    return out;
  }
}
