/**
 * ResourceQuota (k8s.io/apiserver/pkg/admission/plugin/resourcequota, Kubernetes 1.24), the last
 * validating plugin of kube-apiserver's chain: a namespaced create (or, for services and claims,
 * update) is checked against every ResourceQuota of its namespace whose status.hard tracks one of
 * the object's resources and whose scopes match it. Refused with kube's 403s (`exceeded quota: …,
 * requested: …, used: …, limited: …`, `failed quota: <name>: must specify …`, `status unknown for
 * quota: …`); accepted, the quotas' status.used grows by the object's usage, written through the
 * `/status` subresource under the quota's resourceVersion before the object itself is stored (a
 * conflict re-reads the quotas and checks again, three times, as kube does). A dry run checks and
 * writes nothing. Evaluations of one namespace run one at a time (kube's per-namespace queue).
 *
 * As in kube, a create that fails after admission leaves its usage counted until the
 * resourcequota controller recalculates (internal/controllers/resource-quota.ts).
 */
import type { KubeObject } from '../api/types.ts';
import { ApiError, forbidden } from '../api/errors.ts';
import type { AdmissionAttributes, ValidatingPlugin } from './chain.ts';
import {
  type Evaluator, type ResourceList, add, equals, evaluatorFor, exceeded, formatResourceList, mask, parseResourceList, prettyPrint, quotaIgnored, quotaMatches,
  removeZeros, subtractNonNegative,
} from './resource-quota-usage.ts';
import { obj } from '../registry/core/pod-util.ts';

/** How the plugin reads and writes quotas (the registry's resourcequotas). */
export interface QuotaAccess {
  /** The namespace's quotas as last folded. */
  list(namespace: string): Promise<KubeObject[]>;
  /** False when the namespace surely has no quota (the plugin then answers synchronously). */
  mayHave?(namespace: string): boolean;
  /** UpdateStatus of a quota carrying the resourceVersion it was read at (409 when stale). */
  updateStatus(quota: KubeObject): Promise<void>;
}

const RETRIES = 3;

const hardOf = (q: KubeObject): ResourceList => parseResourceList(obj(q.status)?.hard);
const usedOf = (q: KubeObject): ResourceList => parseResourceList(obj(q.status)?.used);

/** admission.NewForbidden's name: the request's, else the object's name or generateName, else Unknown. */
function nameOf(a: AdmissionAttributes): string {
  return a.name || a.object?.metadata.name || a.object?.metadata.generateName || 'Unknown';
}

const refuse = (a: AdmissionAttributes, message: string): ApiError => forbidden({ group: a.kind.group, resource: a.kind.resource }, nameOf(a), message);

/** Each quota with its (possibly grown) usage after admitting `a`, or an ApiError. */
export function checkRequest(quotas: KubeObject[], a: AdmissionAttributes, e: Evaluator, now = Date.now()): ResourceList[] | undefined {
  const object = a.object!;
  const interesting: number[] = [];
  for (let i = 0; i < quotas.length; i++) {
    const q = quotas[i]!;
    if (!quotaMatches(e, q, object)) continue;
    const restricted = e.matchingResources(Object.keys(hardOf(q)));
    const missing = e.constraints(restricted, object);
    if (missing) throw refuse(a, `failed quota: ${q.metadata.name}: ${missing}`);
    const used = usedOf(q);
    const unknown = Object.keys(hardOf(q)).some((r) => restricted.includes(r) && !(r in used));
    if (unknown) throw refuse(a, `status unknown for quota: ${q.metadata.name}, resources: ${[...restricted].sort().join(',')}`);
    interesting.push(i);
  }
  let delta = e.usage(object, now);
  const negative = Object.keys(delta).filter((k) => delta[k]!.nanos < 0n);
  if (negative.length) throw refuse(a, `quota usage is negative for resource(s): ${negative.sort().join(',')}`);
  if (a.operation === 'UPDATE') {
    if (!a.oldObject) throw refuse(a, 'unable to get previous usage since prior version of object was not found');
    if (a.oldObject.metadata.resourceVersion) delta = subtractNonNegative(delta, e.usage(a.oldObject, now));
  }
  delta = removeZeros(delta);
  if (Object.keys(delta).length === 0 || interesting.length === 0) return undefined;
  const out = quotas.map(usedOf);
  for (const i of interesting) {
    const q = quotas[i]!;
    const hard = hardOf(q);
    const requested = mask(delta, Object.keys(hard));
    const next = add(out[i]!, requested);
    const over = exceeded(mask(next, Object.keys(requested)), hard);
    if (over.length) {
      throw refuse(a, `exceeded quota: ${q.metadata.name}, requested: ${prettyPrint(mask(requested, over))}, used: ${prettyPrint(mask(usedOf(q), over))}, limited: ${prettyPrint(mask(hard, over))}`);
    }
    out[i] = next;
  }
  return out;
}

export function resourceQuotaAdmission(access: QuotaAccess): ValidatingPlugin {
  /** The evaluation under way per namespace: the next one waits for it. */
  const running = new Map<string, Promise<unknown>>();

  async function evaluate(a: AdmissionAttributes, e: Evaluator): Promise<void> {
    let quotas = await access.list(a.namespace);
    for (let attempt = 0; ; attempt++) {
      if (quotas.length === 0) return;
      const used = checkRequest(quotas, a, e);
      if (!used || a.dryRun) return;
      const failed: string[] = [];
      let lastErr: unknown;
      for (let i = 0; i < quotas.length; i++) {
        const q = quotas[i]!;
        if (equals(usedOf(q), used[i]!)) continue;
        const next = structuredClone(q);
        next.status = { ...(obj(next.status) ?? {}), used: formatResourceList(used[i]!) };
        try {
          await access.updateStatus(next);
        } catch (err) {
          failed.push(q.metadata.name ?? '');
          lastErr = err;
        }
      }
      if (failed.length === 0) return;
      if (attempt >= RETRIES) throw lastErr;
      quotas = (await access.list(a.namespace)).filter((q) => failed.includes(q.metadata.name ?? ''));
    }
  }

  return {
    name: 'ResourceQuota',
    validate(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (a.subresource || !a.namespace || !a.object || a.view) return;
      if (quotaIgnored(a.kind.group, a.kind.resource)) return;
      const e = evaluatorFor(a.kind.group, a.kind.resource);
      if (!e.handles(a.operation) || access.mayHave?.(a.namespace) === false) return;
      const before = running.get(a.namespace) ?? Promise.resolve();
      const mine = before.then(
        () => evaluate(a, e),
        () => evaluate(a, e),
      );
      const settled = mine.catch(() => undefined);
      running.set(a.namespace, settled);
      void settled.then(() => {
        if (running.get(a.namespace) === settled) running.delete(a.namespace);
      });
      return mine;
    },
  };
}
