/**
 * pods/eviction, after k8s.io/kubernetes 1.24 pkg/registry/core/pod/storage/eviction.go: a POST of
 * a policy/v1 (or v1beta1) Eviction deletes the Pod with the Eviction's deleteOptions, honouring
 * the PodDisruptionBudgets (policy/v1, read and written as kube's loopback client does) whose
 * selector matches the Pod:
 * - a Pod that is Pending, Succeeded, Failed or already deleting is deleted directly (no budget);
 * - more than one budget: 500 "This pod has more than one PodDisruptionBudget, …";
 * - a budget whose status.observedGeneration is behind its generation (no disruption controller
 *   has looked at it yet): 429, cause DisruptionBudget "… is still being processed by the
 *   server.", Retry-After 10; disruptionsAllowed 0: 429 "needs N healthy pods and has M currently";
 *   negative: 403; more than 2000 disruptedPods: 403;
 * - otherwise disruptionsAllowed is decremented and the Pod recorded in status.disruptedPods
 *   (condition DisruptionAllowed False/InsufficientPods when it reaches 0) through the budget's
 *   /status, then the Pod is deleted. A Pod that is not Ready while the budget has enough healthy
 *   Pods is deleted without touching the budget, at the version read (a conflict: 429).
 * A dry run checks everything and writes nothing.
 *
 * Worked example: Pods p1..p3 Running and Ready, budget minAvailable 2 with status
 * {observedGeneration 1, disruptionsAllowed 1, currentHealthy 3, desiredHealthy 2}: evicting p1
 * answers 201 {"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201} and
 * leaves disruptionsAllowed 0, disruptedPods {p1: <now>}; evicting p2 then answers 429 "Cannot evict
 * pod as it would violate the pod's disruption budget." (cause: "The disruption budget web needs
 * 2 healthy pods and has 3 currently").
 */
import { ApiError, badRequest, forbidden, timeout, tooManyRequests } from '../../api/errors.ts';
import type { PeerResource, SubresourceCreateContext, SubresourceDeleteOptions, SubresourceDescriptor } from '../rest/strategy.ts';
import type { KubeObject } from '../../api/types.ts';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../selectors/label-selector.ts';
import { type J, isPodReady, list, n, obj, s } from './pod-util.ts';
import { setDisruptionAllowedCondition } from '../policy/poddisruptionbudget.ts';

/** MaxDisruptedPodSize. */
const MAX_DISRUPTED_POD_SIZE = 2000;
/** EvictionsRetry: 20 steps of 500 ms (jitter 0.1). */
const RETRY_STEPS = 20;
const RETRY_MS = 500;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const SUCCESS = { code: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };

const isConflict = (e: unknown): boolean => e instanceof ApiError && e.code === 409;
const pause = (): Promise<void> => new Promise((r) => setTimeout(r, RETRY_MS * (1 + Math.random() * 0.1)));

/** retry.OnError(EvictionsRetry, retriable, fn): the last error once the steps are spent. */
async function retrying<T>(retriable: (e: unknown) => boolean, fn: () => Promise<T>): Promise<T> {
  for (let step = 1; ; step++) {
    try {
      return await fn();
    } catch (e) {
      if (!retriable(e) || step >= RETRY_STEPS) throw e;
      await pause();
    }
  }
}

/** propagateDryRun: the Eviction's deleteOptions, with the request's dryRun when it has none. */
function deleteOptionsOf(eviction: J, requestDryRun: string[]): SubresourceDeleteOptions {
  const d = obj(eviction.deleteOptions);
  const own = list(d?.dryRun).map(String);
  if (d && own.length && requestDryRun.length && JSON.stringify(own) !== JSON.stringify(requestDryRun)) {
    throw new Error(`Non-matching dry-run options in request and content: [${requestDryRun.join(' ')}] and [${own.join(' ')}]`);
  }
  const dryRun = (own.length ? own : requestDryRun).length > 0;
  const out: SubresourceDeleteOptions = { dryRun };
  if (!d) return out;
  const pre = obj(d.preconditions);
  if (pre) out.preconditions = { uid: typeof pre.uid === 'string' ? pre.uid : undefined, resourceVersion: typeof pre.resourceVersion === 'string' ? pre.resourceVersion : undefined };
  if (typeof d.gracePeriodSeconds === 'number') out.gracePeriodSeconds = d.gracePeriodSeconds;
  if (typeof d.propagationPolicy === 'string') out.propagationPolicy = d.propagationPolicy;
  if (typeof d.orphanDependents === 'boolean') out.orphanDependents = d.orphanDependents;
  return out;
}

const phaseOf = (pod: KubeObject): string => s(obj(pod.status)?.phase);
const terminal = (pod: KubeObject): boolean => ['Succeeded', 'Failed'].includes(phaseOf(pod));
/** canIgnorePDB: a terminal, Pending or deleting Pod has caused its disruption already. */
const canIgnorePDB = (pod: KubeObject): boolean => terminal(pod) || phaseOf(pod) === 'Pending' || Boolean(pod.metadata.deletionTimestamp);
/** shouldEnforceResourceVersion: not for terminal or deleting Pods. */
const shouldEnforceResourceVersion = (pod: KubeObject): boolean => !(terminal(pod) || pod.metadata.deletionTimestamp);

const withResourceVersion = (opts: SubresourceDeleteOptions, rv: string | undefined): SubresourceDeleteOptions => ({ ...opts, preconditions: { ...opts.preconditions, resourceVersion: rv } });

/** createTooManyRequestsError: the budget's status is behind its spec. */
const stillProcessing = (name: string): ApiError => tooManyRequests(VIOLATION, 10, [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` }]);

/** getPodDisruptionBudgets: the namespace's budgets whose selector parses, is not empty and matches the Pod. */
function matchingBudgets(budgets: KubeObject[], pod: KubeObject): KubeObject[] {
  return budgets.filter((pdb) => {
    const sel = obj(pdb.spec)?.selector;
    if (sel === undefined || sel === null) return false; // LabelSelectorAsSelector(nil) selects nothing
    try {
      const selector = labelSelectorFromObject(sel as LabelSelectorObject);
      return !selector.empty() && selector.matches(pod.metadata.labels);
    } catch {
      return false; // an invalid selector matches no Pod
    }
  });
}

/** checkAndDecrement: refuse, or take one disruption from the budget (written unless dry run). */
async function checkAndDecrement(budgets: PeerResource, podName: string, pdb: KubeObject, dryRun: boolean): Promise<void> {
  const name = pdb.metadata.name ?? '';
  const status = obj(pdb.status) ?? (pdb.status = {});
  const gr = { group: 'policy', resource: 'poddisruptionbudget' };
  if (n(status.observedGeneration) < (pdb.metadata.generation ?? 0)) throw stillProcessing(name);
  if (n(status.disruptionsAllowed) < 0) throw forbidden(gr, name, 'pdb disruptions allowed is negative');
  if (Object.keys(obj(status.disruptedPods) ?? {}).length > MAX_DISRUPTED_POD_SIZE) throw forbidden(gr, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  if (n(status.disruptionsAllowed) === 0) {
    throw tooManyRequests(VIOLATION, 0, [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${n(status.desiredHealthy)} healthy pods and has ${n(status.currentHealthy)} currently` }]);
  }
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  status.disruptionsAllowed = n(status.disruptionsAllowed) - 1;
  if (status.disruptionsAllowed === 0) setDisruptionAllowedCondition(status, now);
  if (dryRun) return;
  status.disruptedPods = { ...obj(status.disruptedPods), [podName]: now };
  await budgets.updateStatus(pdb);
}

/** EvictionREST.Create. */
async function evict(ctx: SubresourceCreateContext, eviction: KubeObject): Promise<{ code: number; body: unknown }> {
  if (ctx.name !== (eviction.metadata.name ?? '')) throw badRequest('name in URL does not match name in Eviction object');
  const opts = deleteOptionsOf(eviction as J, ctx.dryRun);
  const rvUnset = opts.preconditions?.resourceVersion === undefined;

  // Pods whose budget can be ignored are deleted directly (conflicts retried unless a version was given).
  let pod!: KubeObject;
  const deleted = await retrying(
    (e) => rvUnset && isConflict(e),
    async () => {
      pod = await ctx.get();
      if (!canIgnorePDB(pod)) return false;
      await ctx.delete(shouldEnforceResourceVersion(pod) && rvUnset ? withResourceVersion(opts, pod.metadata.resourceVersion) : opts);
      return true;
    },
  );
  if (deleted) return SUCCESS;

  const budgets = ctx.peer('policy', 'v1', 'poddisruptionbudgets');
  const matching = budgets ? matchingBudgets(await budgets.list(ctx.namespace), pod) : [];
  if (matching.length > 1) {
    return { code: 500, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 } };
  }
  let unreadyDelete = false;
  const pdb = matching[0];
  if (pdb && budgets) {
    const st = obj(pdb.status) ?? {};
    // A Pod that is not ready does not count towards healthy: no decrement while enough are.
    if (!isPodReady(pod) && n(st.currentHealthy) >= n(st.desiredHealthy) && n(st.desiredHealthy) > 0) unreadyDelete = true;
    else {
      let current = pdb;
      let refresh = false;
      try {
        await retrying(isConflict, async () => {
          if (refresh) current = await budgets.get(ctx.namespace, pdb.metadata.name ?? '');
          refresh = true;
          await checkAndDecrement(budgets, pod.metadata.name ?? '', current, opts.dryRun === true);
        });
      } catch (e) {
        if (isConflict(e)) throw timeout(`couldn't update PodDisruptionBudget "${pdb.metadata.name ?? ''}" due to conflicts`, 10);
        throw e;
      }
    }
  }
  // Either no budget, a budget decremented, or an unready Pod while enough are healthy.
  try {
    await ctx.delete(unreadyDelete ? withResourceVersion(opts, pod.metadata.resourceVersion) : opts);
  } catch (e) {
    if (isConflict(e) && unreadyDelete && rvUnset) throw stillProcessing(pdb?.metadata.name ?? '');
    throw e;
  }
  return SUCCESS;
}

/** The `eviction` subresource of pods (create only, policy/v1 Eviction; v1beta1 accepted too). */
export const evictionSubresource: SubresourceDescriptor = {
  name: 'eviction',
  verbs: ['create'],
  kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
  create: evict,
};
