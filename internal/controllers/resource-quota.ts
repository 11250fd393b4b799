/**
 * kube-controller-manager's resourcequota controller (pkg/controller/resourcequota, Kubernetes
 * 1.24), in process: a quota's status is `{hard: spec.hard, used: <usage>}`, the usage computed
 * over the namespace's objects by the same evaluators the ResourceQuota admission plugin uses
 * (internal/admission/resource-quota-usage.ts: pods with their scopes, services, claims, object
 * counts of `count/<resource>[.<group>]` and the legacy names), written through `/status` under
 * the quota's resourceVersion (a 409 is retried on a fresh read).
 *
 * Triggers, as kube's: a quota added or its spec.hard changed; replenishment when an object a
 * quota tracks is deleted, a pod stops using compute quota (terminal), or a service changes
 * between ClusterIP / NodePort / LoadBalancer; and a full resync of every quota every
 * `resyncMs` (kube's --resource-quota-sync-period, 5 minutes). Creates and updates are counted by
 * admission, not here.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { currentPrefix } from '../storage/keys.ts';
import type { Registry } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import {
  type Evaluator, type ResourceList, add, countedResource, equals, evaluatorFor, formatResourceList, mask, objectCountEvaluator, parseResourceList, podUsage,
  quotaScopeSelectors,
} from '../admission/resource-quota-usage.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkItem, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';

/** kube-controller-manager's --resource-quota-sync-period default. */
export const DEFAULT_QUOTA_RESYNC_MS = 5 * 60_000;

interface Task extends WorkItem {
  namespace: string;
  name: string;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const hardNames = (q: KubeObject): string[] => Object.keys(obj(obj(q.status)?.hard) ?? {});
const specHard = (q: KubeObject): Record<string, unknown> => obj(obj(q.spec)?.hard) ?? {};

/** The evaluators a quota's hard names call on: core's, the legacy counts, and each `count/…`. */
function evaluatorsFor(names: string[]): Evaluator[] {
  const out: Evaluator[] = ['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'resourcequotas', 'replicationcontrollers', 'secrets'].map((r) => evaluatorFor('', r));
  for (const n of names) {
    const gr = countedResource(n);
    if (gr && !out.some((e) => e.group === gr.group && e.resource === gr.resource)) out.push(objectCountEvaluator(gr.group, gr.resource));
  }
  return out;
}

/** GetQuotaServiceType. */
const serviceQuotaType = (svc: KubeObject): string => {
  const t = obj(svc.spec)?.type;
  return t === 'NodePort' || t === 'LoadBalancer' ? t : '';
};

/** Whether a change of a tracked object frees quota (kube's quota monitor's update filters and deletes). */
function replenishes(c: Change, now: number): boolean {
  if (c.type === 'DELETED') return true;
  if (c.type !== 'MODIFIED' || !c.prev?.length || c.key.group !== '') return false;
  if (c.key.resource === 'pods') {
    const before = podUsage(parseObject(c.prev), now);
    const after = podUsage(parseObject(c.object), now);
    return 'pods' in before && !('pods' in after);
  }
  if (c.key.resource === 'services') return serviceQuotaType(parseObject(c.prev)) !== serviceQuotaType(parseObject(c.object));
  return false;
}

export class ResourceQuotaController extends QueueController<Task> {
  private readonly ctx = systemContext('kube-controller-manager');
  /** Each namespace's quotas and the names their status.hard tracks (kube's quota lister). */
  private readonly quotas = new Map<string, Map<string, string[]>>();
  private resync: NodeJS.Timeout | null = null;

  constructor(
    storage: Storage,
    private readonly registry: Registry,
    log: Logger,
    private readonly resyncMs = DEFAULT_QUOTA_RESYNC_MS,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    super(
      'resourcequota',
      storage,
      log,
      (t) => this.process(t),
      (t, err) => {
        if (!(err instanceof ApiError && err.code === 409)) log.warn({ err, namespace: t.namespace, name: t.name }, 'resource quota sync failed; retrying');
      },
      queueOptions,
    );
  }

  override start(): void {
    super.start();
    if (this.resyncMs > 0) {
      this.resync = setInterval(() => this.enqueueAll(), this.resyncMs);
      this.resync.unref();
    }
  }

  override stop(): void {
    if (this.resync) clearInterval(this.resync);
    this.resync = null;
    super.stop();
  }

  private enqueue(namespace: string, name: string): void {
    this.queue.add({ key: `${namespace}/${name}`, namespace, name });
  }

  private enqueueAll(): void {
    for (const [ns, names] of this.quotas) for (const name of names.keys()) this.enqueue(ns, name);
  }

  private remember(q: KubeObject): void {
    const ns = q.metadata.namespace ?? '';
    let m = this.quotas.get(ns);
    if (!m) this.quotas.set(ns, (m = new Map()));
    m.set(q.metadata.name ?? '', hardNames(q));
  }

  protected observe(c: Change): void {
    const { group, resource, namespace, name } = c.key;
    if (group === '' && resource === 'resourcequotas') {
      if (c.type === 'DELETED') {
        this.quotas.get(namespace)?.delete(name);
        if (this.quotas.get(namespace)?.size === 0) this.quotas.delete(namespace);
        return;
      }
      const q = parseObject(c.object);
      this.remember(q);
      // addQuota on creation; on update only when spec.hard changed.
      if (c.type === 'ADDED' || !c.prev?.length || !sameHard(specHard(parseObject(c.prev)), specHard(q))) this.enqueue(namespace, name);
      return;
    }
    const inNamespace = this.quotas.get(namespace);
    if (!inNamespace || !replenishes(c, Date.now())) return;
    const e = evaluatorFor(group, resource);
    for (const [quota, names] of inNamespace) if (e.matchingResources(names).length > 0) this.enqueue(namespace, quota);
  }

  protected scan(): Promise<void> {
    return this.scanUntilDone('resource quota start-up scan', async () => {
      const served = this.registry.lookup('', 'v1', 'resourcequotas');
      if (!served) return;
      for await (const b of listAll(served.reader, '', {}, () => this.stopped)) {
        const q = parseObject(b);
        this.remember(q);
        this.enqueue(q.metadata.namespace ?? '', q.metadata.name ?? '');
      }
    });
  }

  /** The namespace's stored objects of a group/resource. */
  private async *objects(group: string, resource: string, namespace: string, parse: boolean): AsyncGenerator<KubeObject | null> {
    const view = await this.storage.view();
    try {
      const prefix = currentPrefix(group, resource, namespace);
      for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) if (b.length) yield parse ? parseObject(b) : null;
    } finally {
      await view.close();
    }
  }

  /** quota.CalculateUsage: each evaluator's usage of the objects in the quota's scopes. */
  private async usage(q: KubeObject, hard: string[]): Promise<ResourceList> {
    const namespace = q.metadata.namespace ?? '';
    const scopes = quotaScopeSelectors(q);
    const evaluators = evaluatorsFor(hard);
    const matched = new Set(evaluators.flatMap((e) => e.matchingResources(hard)));
    let used: ResourceList = {};
    const now = Date.now();
    for (const e of evaluators) {
      const names = e.matchingResources([...matched]);
      if (names.length === 0) continue;
      let stats: ResourceList = Object.fromEntries(names.map((n) => [n, { nanos: 0n, format: 'DecimalSI' as const }]));
      const counting = e.resource !== 'pods' && e.resource !== 'services' && e.resource !== 'persistentvolumeclaims';
      for await (const o of this.objects(e.group, e.resource, namespace, !counting || scopes.length > 0)) {
        if (o && !scopes.every((sel) => e.matchesScope(sel, o))) continue;
        stats = add(stats, o ? e.usage(o, now) : e.usage({ metadata: {} } as KubeObject, now));
      }
      used = add(used, stats);
    }
    return mask(used, matched);
  }

  private async process(t: Task): Promise<void> {
    await this.storage.latest();
    const served = this.registry.lookup('', 'v1', 'resourcequotas');
    if (!served) return;
    let q: KubeObject;
    try {
      q = parseObject(await served.store.getLatest(t.namespace, t.name));
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return;
      throw e;
    }
    const status = obj(q.status) ?? {};
    const hardSpec = specHard(q);
    const dirtyHard = !sameHard(hardSpec, obj(status.hard) ?? {}) || status.hard === undefined || status.used === undefined;
    const hard = Object.keys(hardSpec);
    const previous = parseResourceList(status.used);
    const used = mask({ ...previous, ...(await this.usage(q, hard)) }, hard);
    if (!dirtyHard && equals(used, previous)) return;
    const next = structuredClone(q);
    next.status = { hard: structuredClone(hardSpec), used: formatResourceList(used) };
    await served.store.update(this.ctx, t.namespace, t.name, next, 'status');
  }
}

/** apiequality.Semantic.DeepEqual of two resource lists (quantities compared by value). */
function sameHard(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return equals(parseResourceList(a), parseResourceList(b));
}
