/**
 * Namespace lifecycle controller (kube-controller-manager's namespace controller, in process,
 * after pkg/controller/namespace in Kubernetes 1.24). A Terminating namespace is handled in passes:
 *
 *   1. delete every namespaced object in it (objects with finalizers only get deletionTimestamp);
 *   2. count what remains and write the five deletion conditions into status, as kube's
 *      namespaceConditionUpdater does (only when they change);
 *   3. when nothing remains, remove the `kubernetes` finalizer through `finalize`, after which the
 *      store removes the namespace.
 *
 * Timing follows kube's: a pass runs `graceMs` (kube's namespaceDeletionGracePeriod, 5 s) after
 * the namespace event that asks for it, so a client deleting a namespace and then its contents
 * (`kubectl delete -f` of a file holding both) finds the contents still there, as on Kubernetes.
 * Once the grace has passed, a change to an object inside the namespace schedules the next pass at
 * once (kube polls every 15 s instead; `requeueMs` is that poll, kept as a safety net). Passes for
 * one namespace never overlap; a request during a pass schedules one more.
 */
import type { Logger } from 'pino';
import type { Storage } from '../storage/storage.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { rfc3339 } from '../registry/generic/serialize.ts';
import type { KubeObject } from '../api/types.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { ApiError } from '../api/errors.ts';
import type { Controller } from './controller.ts';

const FINALIZER = 'kubernetes';
/** kube's namespaceDeletionGracePeriod: wait this long after a namespace event before a pass. */
export const NAMESPACE_DELETION_GRACE_MS = 5_000;
/** kube's finalizerEstimateSeconds: look again this long after a pass that left content behind. */
export const NAMESPACE_REQUEUE_MS = 15_000;

export interface NamespaceControllerOptions {
  graceMs?: number;
  requeueMs?: number;
}

/** A NamespaceCondition as kube's namespace controller writes it (field order of the Go struct). */
export interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** The condition types the controller maintains, in kube's order, with their "all is well" forms. */
const CONDITION_TYPES: { type: string; okReason: string; okMessage: string }[] = [
  { type: 'NamespaceDeletionDiscoveryFailure', okReason: 'ResourcesDiscovered', okMessage: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', okReason: 'ParsedGroupVersions', okMessage: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', okReason: 'ContentDeleted', okMessage: 'All content successfully deleted, may be waiting on finalization' },
  { type: 'NamespaceContentRemaining', okReason: 'ContentRemoved', okMessage: 'All content successfully removed' },
  { type: 'NamespaceFinalizersRemaining', okReason: 'ContentHasNoFinalizers', okMessage: 'All content-preserving finalizers finished' },
];

/** What one pass found left in a namespace. */
export interface ContentTotals {
  /** "<resource>.<group>" → objects remaining. */
  remaining: Map<string, number>;
  /** finalizer → objects still carrying it. */
  finalizers: Map<string, number>;
  /** Messages of failed deletions (one per resource). */
  failures: string[];
}

const sortedStrings = (xs: string[]): string[] => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * The conditions a pass writes (namespaceConditionUpdater): every maintained type, True with the
 * details when something is wrong, else its "ok" form. An existing condition keeps its
 * lastTransitionTime unless its status flips. Returns null when nothing would change. Pure.
 */
export function nextConditions(existing: NamespaceCondition[], totals: ContentTotals, now: Date): NamespaceCondition[] | null {
  const failing = new Map<string, { reason: string; message: string }>();
  if (totals.failures.length) {
    failing.set('NamespaceDeletionContentFailure', {
      reason: 'ContentDeletionFailed',
      message: `Failed to delete all resource types, ${totals.failures.length} remaining: ${sortedStrings(totals.failures).join(', ')}`,
    });
  }
  const remaining = [...totals.remaining].filter(([, n]) => n > 0).map(([gr, n]) => `${gr} has ${n} resource instances`);
  if (totals.remaining.size) failing.set('NamespaceContentRemaining', { reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${sortedStrings(remaining).join(', ')}` });
  const byFinalizer = [...totals.finalizers].filter(([, n]) => n > 0).map(([f, n]) => `${f} in ${n} resource instances`);
  if (totals.finalizers.size) {
    failing.set('NamespaceFinalizersRemaining', { reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${sortedStrings(byFinalizer).join(', ')}` });
  }
  const out = existing.map((c) => ({ ...c }));
  let changed = false;
  for (const t of CONDITION_TYPES) {
    const f = failing.get(t.type);
    const want = { status: (f ? 'True' : 'False') as NamespaceCondition['status'], reason: f?.reason ?? t.okReason, message: f?.message ?? t.okMessage };
    const old = out.find((c) => c.type === t.type);
    if (!old) {
      out.push({ type: t.type, status: want.status, lastTransitionTime: rfc3339(now), reason: want.reason, message: want.message });
      changed = true;
    } else if (old.status !== want.status || old.reason !== want.reason || old.message !== want.message) {
      if (old.status !== want.status) old.lastTransitionTime = rfc3339(now);
      Object.assign(old, want);
      changed = true;
    }
  }
  return changed ? out : null;
}

export class NamespaceController implements Controller {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** Namespaces waiting for a delayed pass: the grace period after an event, or a requeue. */
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; grace: boolean }>();
  private unsubscribe: (() => void) | null = null;
  private readonly ctx = systemContext('namespace-controller');
  private readonly namespaces: ServedKind;
  private readonly graceMs: number;
  private readonly requeueMs: number;

  constructor(private readonly storage: Storage, private readonly registry: Registry, private readonly log: Logger, opts: NamespaceControllerOptions = {}) {
    const ns = registry.lookup('', 'v1', 'namespaces');
    if (!ns) throw new Error('namespace controller: the namespaces resource is not registered');
    this.namespaces = ns;
    this.graceMs = opts.graceMs ?? NAMESPACE_DELETION_GRACE_MS;
    this.requeueMs = opts.requeueMs ?? NAMESPACE_REQUEUE_MS;
  }

  /** Subscribe to committed changes and schedule every namespace already terminating. */
  async start(): Promise<void> {
    this.unsubscribe = this.storage.onChange((changes) => {
      const isNamespace = (c: (typeof changes)[number]): boolean => c.key.resource === 'namespaces' && c.key.group === '';
      // Namespace changes first: the key index (storage.entry) already shows the whole batch, so
      // content written just before its namespace's deletion, in the same batch (the
      // serviceaccounts controller and the root-ca publisher write into new namespaces), must find
      // the grace period armed rather than start a pass at once.
      for (const c of changes) {
        if (isNamespace(c) && c.type !== 'DELETED' && this.storage.entry(c.key)?.deleting) this.after(c.key.name, this.graceMs, true);
      }
      for (const c of changes) {
        if (isNamespace(c)) continue;
        if (c.key.namespace && this.storage.entry({ group: '', resource: 'namespaces', namespace: '', name: c.key.namespace })?.deleting) {
          // Content changed: look now, unless the namespace's grace period is still running.
          const pending = this.timers.get(c.key.namespace);
          if (pending?.grace) continue;
          if (pending) clearTimeout(pending.timer);
          this.timers.delete(c.key.namespace);
          this.schedule(c.key.namespace);
        }
      }
    });
    const all = await this.namespaces.reader.list('', {});
    for (const b of all.items) {
      const o = parseObject(b);
      if (o.metadata.deletionTimestamp) this.after(o.metadata.name!, this.graceMs, true);
    }
  }

  /** Stop watching and drop pending passes (a running one finishes). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
  }

  /** Resolves when no pass is running (tests). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running.values());
  }

  /**
   * A pass for `ns` in `ms`, unless one is already pending (a workqueue's AddAfter keeps the
   * earlier one). `grace`: the wait follows a namespace event and content changes must not cut it.
   */
  private after(ns: string, ms: number, grace = false): void {
    if (this.timers.has(ns) || !this.unsubscribe) return;
    const timer = setTimeout(() => {
      this.timers.delete(ns);
      this.schedule(ns);
    }, ms);
    timer.unref();
    this.timers.set(ns, { timer, grace });
  }

  private schedule(ns: string): void {
    if (!this.unsubscribe) return; // stopped
    if (this.running.has(ns)) {
      this.again.add(ns);
      return;
    }
    const p = this.sync(ns)
      .then((remaining) => {
        if (remaining) this.after(ns, this.requeueMs);
      })
      .catch((err) => {
        this.log.warn({ err, namespace: ns }, 'namespace cleanup pass failed; will retry');
        this.after(ns, this.requeueMs);
      })
      .finally(() => {
        this.running.delete(ns);
        if (this.again.delete(ns)) this.schedule(ns);
      });
    this.running.set(ns, p);
  }

  /** One pass (namespacedResourcesDeleter.Delete). Resolves true when content remains. */
  private async sync(ns: string): Promise<boolean> {
    let current = await this.latest(ns);
    if (!current?.metadata.deletionTimestamp) return false;
    if (!((current.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).includes(FINALIZER)) return false;

    const totals: ContentTotals = { remaining: new Map(), finalizers: new Map(), failures: [] };
    // Each stored kind once (a kind served in several groups, as Events, is one set of objects).
    for (const served of this.registry.storageKinds()) {
      const { kind } = served;
      // Only resources that can be deleted (discovery.SupportsAllVerbs{"delete"}).
      if (!kind.namespaced || !(kind.verbs?.includes('delete') ?? true)) continue;
      const gr = `${kind.resource}.${kind.group}`;
      try {
        await this.deleteAll(served, ns);
        const left = (await served.reader.list(ns, {})).items.map(parseObject);
        if (!left.length) continue;
        totals.remaining.set(gr, left.length);
        for (const o of left) for (const f of o.metadata.finalizers ?? []) totals.finalizers.set(f, (totals.finalizers.get(f) ?? 0) + 1);
      } catch (e) {
        totals.failures.push((e as Error).message);
      }
    }

    const conditions = nextConditions(((current.status as { conditions?: NamespaceCondition[] } | undefined)?.conditions ?? []), totals, new Date());
    if (conditions) {
      try {
        const r = await this.namespaces.store.update(this.ctx, '', ns, { ...current, status: { ...(current.status as object), conditions } }, 'status');
        current = parseObject(r.body);
      } catch (e) {
        // kube only logs a failed condition update; the finalize step below re-reads.
        this.log.warn({ err: e, namespace: ns }, 'could not update namespace conditions');
        current = await this.latest(ns);
        if (!current) return false;
      }
    }
    if (totals.remaining.size || totals.failures.length) return true;

    // Everything is gone: release our finalizer (retrying on conflict with a fresh read).
    for (let attempt = 0; attempt < 5 && current; attempt++) {
      const spec = (current.spec ?? {}) as { finalizers?: string[] };
      const finalizers = (spec.finalizers ?? []).filter((f) => f !== FINALIZER);
      try {
        await this.namespaces.store.update(this.ctx, '', ns, { ...current, spec: { ...spec, finalizers } }, 'finalize');
        return false;
      } catch (e) {
        const code = (e as ApiError).code;
        if (code === 404) return false;
        if (code !== 409) throw e;
        current = await this.latest(ns);
      }
    }
    return false;
  }

  /** Delete every object of one resource in the namespace (deletecollection: 404s are fine). */
  private async deleteAll(served: ServedKind, ns: string): Promise<void> {
    for (const b of (await served.reader.list(ns, {})).items) {
      const o = parseObject(b);
      if (o.metadata.deletionTimestamp) continue; // waiting for its finalizers
      try {
        await served.store.delete(this.ctx, ns, o.metadata.name!, {});
      } catch (e) {
        if ((e as ApiError).code !== 404) throw e;
      }
    }
  }

  private async latest(ns: string): Promise<KubeObject | null> {
    try {
      return parseObject(await this.namespaces.store.getLatest('', ns));
    } catch (e) {
      if ((e as ApiError).code === 404) return null;
      throw e;
    }
  }
}
