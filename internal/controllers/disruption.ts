/**
 * kube-controller-manager's disruption controller (pkg/controller/disruption, Kubernetes 1.24), in
 * process (`--controllers` name `disruption`): keeps each PodDisruptionBudget's status current so
 * that pods/eviction can use it. Per budget (trySync): the namespace's Pods its selector matches;
 * expectedPods and desiredHealthy (getExpectedPodCount: an integer minAvailable counts the matched
 * Pods; a percentage, or maxUnavailable, scales the replicas of the Pods' controllers, found as
 * kube's finders do for ReplicationControllers, Deployments (through their ReplicaSets),
 * ReplicaSets and StatefulSets); currentHealthy (Ready Pods not deleting and not recently
 * disrupted); disruptedPods kept while their eviction is under 2 minutes old (then rechecked);
 * disruptionsAllowed, observedGeneration and the DisruptionAllowed condition (updatePdbStatus),
 * written through /status only when something changed. A budget that cannot be computed (a Pod
 * whose controller is not one of those, e.g. a custom resource with a scale subresource, which
 * kube's scale finder would read) gets kube's failSafe: disruptionsAllowed 0, condition
 * SyncFailed with the error.
 *
 * Triggers, as kube's informer handlers: a budget added or changed, a Pod added, changed or
 * deleted (every budget of its namespace), every budget at start.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/label-selector.ts';
import { semanticEqual } from '../gocompat/equal.ts';
import { isPodReady } from '../registry/core/pod-util.ts';
import { setDisruptionAllowedCondition } from '../registry/policy/poddisruptionbudget.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';

/** DeletionTimeout: how long an eviction's Pod is expected to take to go. */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const obj = (v: unknown): J => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as J) : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** The owner reference with controller: true (metav1.GetControllerOf). */
const controllerOf = (o: KubeObject): J | undefined => (Array.isArray(o.metadata.ownerReferences) ? o.metadata.ownerReferences.find((r) => obj(r).controller === true) : undefined);

/** intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true). */
export function scaledValue(v: unknown, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(-?\d+)%$/.exec(String(v));
  if (!m) throw new Error(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** What a budget's status is computed from (the finders' answers included). */
export interface BudgetInputs {
  pdb: KubeObject;
  pods: KubeObject[];
  /** The replicas of a Pod's controller and its uid (kube's finders), or undefined: none found. */
  scaleOf(pod: KubeObject): { uid: string; scale: number } | undefined;
  now: number;
}

/** getExpectedPodCount. */
function expectedPodCount({ pdb, pods, scaleOf }: BudgetInputs): { expectedCount: number; desiredHealthy: number } {
  const spec = obj(pdb.spec);
  const expectedScale = (): number => {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref || scales.has(ref.uid)) continue;
      const found = scaleOf(pod);
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata.name ?? '')}`);
      scales.set(found.uid, found.scale);
    }
    return [...scales.values()].reduce((a, b) => a + b, 0);
  };
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expectedCount = expectedScale();
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - scaledValue(spec.maxUnavailable, expectedCount)) };
  }
  if (typeof spec.minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: spec.minAvailable };
  if (typeof spec.minAvailable === 'string') {
    const expectedCount = expectedScale();
    return { expectedCount, desiredHealthy: scaledValue(spec.minAvailable, expectedCount) };
  }
  return { expectedCount: 0, desiredHealthy: 0 };
}

/**
 * trySync + updatePdbStatus, or failSafe when the inputs do not compute: the status to write, or
 * undefined when the stored one is current; `recheckAt` when a disrupted Pod's timeout is pending.
 */
export function budgetStatus(inputs: BudgetInputs): { status?: J; recheckAt?: number } {
  const { pdb, pods, now } = inputs;
  const old = obj(pdb.status);
  let counts: { expectedCount: number; desiredHealthy: number };
  try {
    counts = expectedPodCount(inputs);
  } catch (e) {
    const status = structuredClone(old);
    status.disruptionsAllowed = 0;
    setDisruptionAllowedCondition(status, rfc3339(now), { status: 'False', reason: 'SyncFailed', message: (e as Error).message });
    return { status: semanticEqual(status, old) ? undefined : status };
  }
  // buildDisruptedPodMap: evictions still expected to complete.
  const disrupted: J = {};
  let recheckAt: number | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp) continue;
    const at = obj(old.disruptedPods)[pod.metadata.name ?? ''];
    if (typeof at !== 'string') continue;
    const expected = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expected < now) continue;
    disrupted[pod.metadata.name ?? ''] = at;
    recheckAt = recheckAt === undefined ? expected : Math.min(recheckAt, expected);
  }
  const currentHealthy = pods.filter((p) => !p.metadata.deletionTimestamp && !(p.metadata.name! in disrupted) && isPodReady(p)).length;
  let disruptionsAllowed = currentHealthy - counts.desiredHealthy;
  if (counts.expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
  const generation = pdb.metadata.generation ?? 0;
  const cond = (Array.isArray(old.conditions) ? old.conditions : []).find((c: J) => c.type === 'DisruptionAllowed');
  // pdbhelper.ConditionsAreUpToDate
  const conditionCurrent = cond && num(old.observedGeneration) === generation && (disruptionsAllowed > 0 ? cond.status === 'True' && cond.reason === 'SufficientPods' : cond.status === 'False' && cond.reason === 'InsufficientPods');
  const same =
    num(old.currentHealthy) === currentHealthy &&
    num(old.desiredHealthy) === counts.desiredHealthy &&
    num(old.expectedPods) === counts.expectedCount &&
    num(old.disruptionsAllowed) === disruptionsAllowed &&
    semanticEqual(old.disruptedPods ?? {}, disrupted) &&
    num(old.observedGeneration) === generation &&
    conditionCurrent;
  if (same) return { recheckAt };
  const status: J = { observedGeneration: generation, disruptionsAllowed, currentHealthy, desiredHealthy: counts.desiredHealthy, expectedPods: counts.expectedCount, conditions: structuredClone(old.conditions ?? []) };
  if (Object.keys(disrupted).length) status.disruptedPods = disrupted;
  setDisruptionAllowedCondition(status, rfc3339(now));
  return { status, recheckAt };
}

interface Item {
  key: string;
  namespace: string;
}

export class DisruptionController extends QueueController<Item> {
  private readonly ctx = systemContext('kube-controller-manager');

  constructor(
    storage: Storage,
    private readonly registry: Registry,
    private readonly budgets: ServedKind,
    private readonly pods: ServedKind,
    log: Logger,
  ) {
    super('disruption', storage, log, (item) => this.sync(item.namespace), (item, err) => log.warn({ err, namespace: item.namespace }, 'disruption controller: sync failed'));
  }

  private enqueue(namespace: string): void {
    this.queue.add({ key: namespace, namespace });
  }

  protected observe(c: Change): void {
    const budget = c.key.group === 'policy' && c.key.resource === 'poddisruptionbudgets';
    if (budget || (c.key.group === '' && c.key.resource === 'pods')) this.enqueue(c.key.namespace);
  }

  protected scan(): Promise<void> {
    return this.scanUntilDone('disruption controller start-up scan', async () => {
      const seen = new Set<string>();
      for await (const b of listAll(this.budgets.reader, '', {}, () => this.stopped)) {
        const ns = parseObject(b).metadata.namespace ?? '';
        if (!seen.has(ns)) this.enqueue(ns);
        seen.add(ns);
      }
    });
  }

  /** Every budget of the namespace, synced against its Pods. */
  private async sync(namespace: string): Promise<void> {
    const budgets: KubeObject[] = [];
    for await (const b of listAll(this.budgets.reader, namespace)) budgets.push(parseObject(b));
    if (!budgets.length) return;
    const pods: KubeObject[] = [];
    for await (const b of listAll(this.pods.reader, namespace)) pods.push(parseObject(b));
    const scales = await this.finders(namespace, pods);
    const now = Date.now();
    for (const pdb of budgets) {
      let selected: KubeObject[] = [];
      try {
        const sel = labelSelectorFromObject((pdb.spec as J | undefined)?.selector as LabelSelectorObject | undefined);
        selected = pods.filter((p) => sel.matches(p.metadata.labels));
      } catch {
        selected = [];
      }
      const { status, recheckAt } = budgetStatus({ pdb, pods: selected, scaleOf: (p) => scales.get(p.metadata.uid ?? ''), now });
      if (recheckAt !== undefined) this.queue.addAfter({ key: namespace, namespace }, Math.max(0, recheckAt - now) + 1);
      if (!status) continue;
      try {
        await this.budgets.store.update(this.ctx, namespace, pdb.metadata.name ?? '', { ...pdb, status }, 'status');
      } catch (e) {
        // Gone or changed in between: the change that did it queued the namespace again.
        if (e instanceof ApiError && (e.code === 404 || e.code === 409)) continue;
        throw e;
      }
    }
  }

  /**
   * kube's finders, per Pod uid: getPodReplicationController, getPodDeployment (a ReplicaSet
   * controlled by a Deployment), getPodReplicaSet (one that is not), getPodStatefulSet.
   */
  private async finders(namespace: string, pods: KubeObject[]): Promise<Map<string, { uid: string; scale: number }>> {
    const out = new Map<string, { uid: string; scale: number }>();
    const get = async (group: string, version: string, resource: string, name: string): Promise<KubeObject | undefined> => {
      const served = this.registry.lookup(group, version, resource);
      if (!served) return undefined;
      try {
        return parseObject(await served.reader.get(namespace, name));
      } catch {
        return undefined;
      }
    };
    const replicas = (o: KubeObject): number => num(obj(o.spec).replicas);
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) continue;
      const group = String(ref.apiVersion ?? '').split('/').slice(0, -1).join('/');
      const matches = (o: KubeObject | undefined): o is KubeObject => o !== undefined && o.metadata.uid === ref.uid;
      if (ref.kind === 'ReplicationController' && group === '') {
        const rc = await get('', 'v1', 'replicationcontrollers', ref.name);
        if (matches(rc)) out.set(pod.metadata.uid ?? '', { uid: rc.metadata.uid!, scale: replicas(rc) });
      } else if (ref.kind === 'ReplicaSet' && (group === 'apps' || group === 'extensions')) {
        const rs = await get('apps', 'v1', 'replicasets', ref.name);
        if (!matches(rs)) continue;
        const owner = controllerOf(rs);
        if (owner?.kind === 'Deployment') {
          const d = await get('apps', 'v1', 'deployments', owner.name);
          if (d && d.metadata.uid === owner.uid) out.set(pod.metadata.uid ?? '', { uid: d.metadata.uid!, scale: replicas(d) });
        } else out.set(pod.metadata.uid ?? '', { uid: rs.metadata.uid!, scale: replicas(rs) });
      } else if (ref.kind === 'StatefulSet' && group === 'apps') {
        const ss = await get('apps', 'v1', 'statefulsets', ref.name);
        if (matches(ss)) out.set(pod.metadata.uid ?? '', { uid: ss.metadata.uid!, scale: replicas(ss) });
      }
    }
    return out;
  }
}
