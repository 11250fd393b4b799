/**
 * pods/eviction, after k8s.io/kubernetes 1.24 pkg/registry/core/pod/storage/eviction.go: a POST of
 * a policy/v1 (or v1beta1) Eviction deletes the Pod with the Eviction's deleteOptions and answers
 * `Status{status: Success}` (201). This server has no PodDisruptionBudgets, so the budget path of
 * kube (429 "Cannot evict pod as it would violate the pod's disruption budget") never applies:
 * every eviction that finds its Pod deletes it.
 *
 * Worked example: POST /api/v1/namespaces/ns/pods/web/eviction {"apiVersion":"policy/v1",
 * "kind":"Eviction","metadata":{"name":"web"}} → 201 {"kind":"Status","apiVersion":"v1",
 * "metadata":{},"status":"Success","code":201}; the Pod is deleted as a DELETE without options would.
 */
import { badRequest } from '../../api/errors.ts';
import type { SubresourceCreateContext, SubresourceDeleteOptions, SubresourceDescriptor } from '../rest/strategy.ts';
import type { KubeObject } from '../../api/types.ts';
import { type J, list, obj, s } from './pod-util.ts';

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

/** EvictionREST.Create without disruption budgets. */
async function evict(ctx: SubresourceCreateContext, eviction: KubeObject): Promise<{ code: number; body: unknown }> {
  if (ctx.name !== (eviction.metadata.name ?? '')) throw badRequest('name in URL does not match name in Eviction object');
  const opts = deleteOptionsOf(eviction as J, ctx.dryRun);
  const rvUnset = opts.preconditions?.resourceVersion === undefined;
  const pod = await ctx.get();
  const phase = s(obj(pod.status)?.phase);
  const deleting = Boolean(pod.metadata.deletionTimestamp);
  // canIgnorePDB / shouldEnforceResourceVersion: a Pod that is not terminal or deleting is
  // deleted only at the version that was read (kube retries conflicts while no version was given).
  const enforce = !(phase === 'Succeeded' || phase === 'Failed' || deleting);
  const run = enforce && rvUnset ? { ...opts, preconditions: { ...opts.preconditions, resourceVersion: pod.metadata.resourceVersion } } : opts;
  await ctx.delete(run);
  return { code: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

/** The `eviction` subresource of pods (create only, policy/v1 Eviction). */
export const evictionSubresource: SubresourceDescriptor = {
  name: 'eviction',
  verbs: ['create'],
  kind: { group: 'policy', version: 'v1', kind: 'Eviction' },
  create: evict,
};
