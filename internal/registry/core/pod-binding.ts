/**
 * pods/binding, after k8s.io/kubernetes 1.24 pkg/registry/core/pod/storage/storage.go BindingREST:
 * a POST of a v1 Binding assigns an unscheduled Pod to a node (what kube-scheduler does): the Pod
 * gets spec.nodeName = target.name, the Binding's annotations, and a PodScheduled=True condition,
 * written straight to storage (no Pod strategy runs), and the answer is Status{Success} (201).
 * Needs no kubelet, so it is served (unlike log, exec, attach, portforward, proxy).
 *
 * Errors as kube: a name different from the URL's → 400; target.kind other than Node/empty or no
 * target.name → 500 with the aggregated field errors; a deleting or already assigned Pod → 409
 * `Operation cannot be fulfilled on pods/binding "x": pod x is already assigned to node "n"`.
 */
import { ApiError, badRequest, conflict, unknownError } from '../../api/errors.ts';
import { type FieldError, FieldPath, fieldErrorMessage, notSupported, required } from '../../api/field-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import type { SubresourceCreateContext, SubresourceDescriptor } from '../rest/strategy.ts';
import { rfc3339 } from '../generic/serialize.ts';
import { type J, list, obj, s } from './pod-util.ts';

/** ValidatePodBinding. */
export function validatePodBinding(binding: J): FieldError[] {
  const errs: FieldError[] = [];
  const target = obj(binding.target) ?? {};
  const p = new FieldPath('target');
  if (s(target.kind) && target.kind !== 'Node') errs.push(notSupported(p.child('kind'), s(target.kind), ['Node', '<empty>']));
  if (!s(target.name)) errs.push(required(p.child('name')));
  return errs;
}

/** podutil.UpdatePodCondition for PodScheduled=True: added, or its transition time kept when unchanged. */
function setScheduled(pod: KubeObject, now: string): void {
  const status = (obj(pod.status) ?? (pod.status = {})) as J;
  const conditions = list(status.conditions);
  const old = conditions.find((c) => c.type === 'PodScheduled');
  const cond: J = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: old && old.status === 'True' ? old.lastTransitionTime : now };
  if (old) conditions[conditions.indexOf(old)] = cond;
  else conditions.push(cond);
  status.conditions = conditions;
}

/** BindingREST.Create. */
async function bind(ctx: SubresourceCreateContext, binding: KubeObject): Promise<{ code: number; body: unknown }> {
  if (ctx.name !== (binding.metadata.name ?? '')) throw badRequest('name in URL does not match name in Binding object');
  const errs = validatePodBinding(binding as J);
  // field.ErrorList.ToAggregate() is a plain error: kube answers it as a reason-less 500.
  if (errs.length) throw unknownError(errs.length === 1 ? fieldErrorMessage(errs[0]!) : `[${errs.map(fieldErrorMessage).join(', ')}]`);
  const node = s(obj((binding as J).target)?.name);
  const annotations = obj(binding.metadata.annotations) ?? {};
  const pre = { uid: binding.metadata.uid || undefined, resourceVersion: binding.metadata.resourceVersion || undefined };
  const gr = { group: '', resource: 'pods/binding' };
  await ctx.update((pod) => {
    if (pod.metadata.deletionTimestamp) throw conflict(gr, ctx.name, `pod ${pod.metadata.name} is being deleted, cannot be assigned to a host`);
    const spec = (obj(pod.spec) ?? {}) as J;
    if (s(spec.nodeName)) throw conflict(gr, ctx.name, `pod ${pod.metadata.name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
    spec.nodeName = node;
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...(annotations as Record<string, string>) };
    setScheduled(pod, rfc3339(new Date()));
    return pod;
  }, pre.uid || pre.resourceVersion ? pre : undefined).catch((e) => {
    throw e instanceof ApiError ? e : unknownError(String(e));
  });
  return { code: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

/** The `binding` subresource of pods (create only, v1 Binding). */
export const bindingSubresource: SubresourceDescriptor = {
  name: 'binding',
  verbs: ['create'],
  kind: { group: '', version: 'v1', kind: 'Binding' },
  create: bind,
};
