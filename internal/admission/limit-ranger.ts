/**
 * LimitRanger (plugin/pkg/admission/limitranger, Kubernetes 1.24), on by default: for each
 * LimitRange of the namespace, a new Pod's containers and init containers get the `Container`
 * items' default requests and limits they lack (annotated `kubernetes.io/limit-ranger`); then
 * Pods (created) and PersistentVolumeClaims (created or updated) are checked against min, max and
 * maxLimitRequestRatio per Container, per Pod (sums) and per claim, refused with kube's 403
 * messages (several aggregated as `[a, b]`; Go walks the resource maps in random order, here in
 * sorted order).
 *
 * Kube defaults a request body when it decodes it, before admission; this server's strategy
 * defaults run after the mutating plugins, so the one Pod default the plugin depends on
 * (requests copied from limits, SetDefaults_Pod) is applied first here.
 */
import type { KubeObject } from '../api/types.ts';
import { forbidden } from '../api/errors.ts';
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from './chain.ts';
import type { Storage } from '../storage/storage.ts';
import { NamespaceIndex } from './namespace-index.ts';
import { type J, list, obj, s } from '../registry/core/pod-util.ts';
import { type Quantity, formatQuantity, parseQuantity } from './resource-quota-usage.ts';

const ANNOTATION = 'kubernetes.io/limit-ranger';
const NANO = 1_000_000_000n;
/** resource.MaxMilliValue. */
const MAX_MILLI = 2n ** 63n / 1000n;

type Lists = Record<string, Quantity>;

const lists = (m: unknown): Lists => Object.fromEntries(Object.entries(obj(m) ?? {}).map(([k, v]) => [k, parseQuantity(v)]));
const sortedEntries = (m: unknown): [string, Quantity][] => Object.entries(lists(m)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const ceilDiv = (n: bigint, d: bigint): bigint => (n >= 0n ? (n + d - 1n) / d : -(-n / d));
/** Quantity.Value() and MilliValue(): rounded up. */
const value = (q: Quantity | undefined): bigint => (q ? ceilDiv(q.nanos, NANO) : 0n);
const milli = (q: Quantity | undefined): bigint => (q ? ceilDiv(q.nanos, 1_000_000n) : 0n);
const str = formatQuantity;

/** requestLimitEnforcedValues: milli-units unless one of them is too large for them. */
function observed(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const r = value(req);
  const l = value(lim);
  const e = value(enforced);
  if (r <= MAX_MILLI && l <= MAX_MILLI && e <= MAX_MILLI) return [milli(req), milli(lim), milli(enforced)];
  return [r, l, e];
}

function minConstraint(type: string, name: string, enforced: Quantity, request: Lists, limit: Lists): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l, e] = observed(req, lim, enforced);
  if (!req) return `minimum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  if (lim && l < e) return `minimum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, request: Lists): string | undefined {
  const req = request[name];
  const [r, , e] = observed(req, undefined, enforced);
  if (!req) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, request: Lists, limit: Lists): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l, e] = observed(req, lim, enforced);
  if (!lim) return `maximum ${name} usage per ${type} is ${str(enforced)}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but limit is ${str(lim)}`;
  if (req && r > e) return `maximum ${name} usage per ${type} is ${str(enforced)}, but request is ${str(req)}`;
  return undefined;
}

/** Go's %f. */
const goFloat = (x: number): string => (Number.isFinite(x) ? x.toFixed(6) : x > 0 ? '+Inf' : x < 0 ? '-Inf' : 'NaN');

function ratioConstraint(type: string, name: string, enforced: Quantity, request: Lists, limit: Lists): string | undefined {
  const req = request[name];
  const lim = limit[name];
  const [r, l] = observed(req, lim, enforced);
  if (!req || r === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no request is specified or request is 0`;
  if (!lim || l === 0n) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but no limit is specified or limit is 0`;
  const display = Number(l) / Number(r);
  let ratio = display;
  let max = Number(value(enforced));
  if (value(enforced) <= MAX_MILLI) {
    ratio = ratio * 1000;
    max = Number(milli(enforced));
  }
  if (ratio > max) return `${name} max limit to request ratio per ${type} is ${str(enforced)}, but provided ratio is ${goFloat(display)}`;
  return undefined;
}

/** sum: per resource every container sets, cpu in milli-units, the rest in whole units. */
function sum(inputs: Lists[]): Lists {
  const out: Lists = {};
  const keys = new Set(inputs.flatMap((i) => Object.keys(i)));
  for (const k of keys) {
    if (!inputs.every((i) => k in i)) continue;
    const total = inputs.reduce((t, i) => t + (k === 'cpu' ? milli(i[k]) : value(i[k])), 0n);
    out[k] = { nanos: k === 'cpu' ? total * 1_000_000n : total * NANO, format: 'DecimalSI' };
  }
  return out;
}

const resourcesOf = (c: J): { requests: Lists; limits: Lists } => ({ requests: lists(obj(c.resources)?.requests), limits: lists(obj(c.resources)?.limits) });
const itemsOf = (lr: KubeObject): J[] => list(obj(lr.spec)?.limits);

/** The checks of one item's min, max and ratio against one set of requests and limits. */
function checkItem(item: J, type: string, requests: Lists, limits: Lists, errs: string[]): void {
  const push = (e: string | undefined): void => {
    if (e) errs.push(e);
  };
  for (const [k, v] of sortedEntries(item.min)) push(minConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.max)) push(maxConstraint(type, k, v, requests, limits));
  for (const [k, v] of sortedEntries(item.maxLimitRequestRatio)) push(ratioConstraint(type, k, v, requests, limits));
}

/** PodValidateLimitFunc. */
function validatePod(lr: KubeObject, pod: KubeObject): string[] {
  const errs: string[] = [];
  const spec = obj(pod.spec) ?? {};
  for (const item of itemsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
        const { requests, limits } = resourcesOf(c);
        checkItem(item, 'Container', requests, limits, errs);
      }
    }
    if (item.type === 'Pod') {
      const containers = list(spec.containers).map(resourcesOf);
      const requests = sum(containers.map((c) => c.requests));
      const limits = sum(containers.map((c) => c.limits));
      for (const c of list(spec.initContainers).map(resourcesOf)) {
        for (const [k, v] of Object.entries(c.requests)) if (!(k in requests) || v.nanos > requests[k]!.nanos) requests[k] = v;
        for (const [k, v] of Object.entries(c.limits)) if (!(k in limits) || v.nanos > limits[k]!.nanos) limits[k] = v;
      }
      checkItem(item, 'Pod', requests, limits, errs);
    }
  }
  return errs;
}

/** PersistentVolumeClaimValidateLimitFunc. */
function validateClaim(lr: KubeObject, pvc: KubeObject): string[] {
  const errs: string[] = [];
  const requests = lists(obj(obj(pvc.spec)?.resources)?.requests);
  for (const item of itemsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of sortedEntries(item.min)) {
      const e = minConstraint('PersistentVolumeClaim', k, v, requests, {});
      if (e) errs.push(e);
    }
    for (const [k, v] of sortedEntries(item.max)) {
      const e = maxRequestConstraint('PersistentVolumeClaim', k, v, requests);
      if (e) errs.push(e);
    }
  }
  return errs;
}

/** mergeContainerResources: the defaults a container lacks, and the annotation's words for them. */
function mergeContainer(c: J, defaults: { requests: J; limits: J }, prefix: string, notes: string[]): void {
  const res = obj(c.resources) ?? (c.resources = {});
  const limits = obj(res.limits) ?? {};
  const requests = obj(res.requests) ?? {};
  // SetDefaults_Pod, which kube ran when it decoded the body: requests default to limits.
  for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
  const setLimits: string[] = [];
  const setRequests: string[] = [];
  for (const [k, v] of Object.entries(defaults.limits)) {
    if (k in limits) continue;
    limits[k] = v;
    setLimits.push(k);
  }
  for (const [k, v] of Object.entries(defaults.requests)) {
    if (k in requests) continue;
    requests[k] = v;
    setRequests.push(k);
  }
  if (Object.keys(limits).length) res.limits = limits;
  if (Object.keys(requests).length) res.requests = requests;
  if (setRequests.length) notes.push(`${setRequests.sort().join(', ')} request for ${prefix} ${s(c.name)}`);
  if (setLimits.length) notes.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${s(c.name)}`);
}

/** PodMutateLimitFunc. */
function defaultPod(lr: KubeObject, pod: KubeObject): void {
  const defaults = { requests: {} as J, limits: {} as J };
  for (const item of itemsOf(lr)) {
    if (item.type !== 'Container') continue;
    Object.assign(defaults.requests, obj(item.defaultRequest) ?? {});
    Object.assign(defaults.limits, obj(item.default) ?? {});
  }
  const spec = obj(pod.spec) ?? {};
  const notes: string[] = [];
  for (const c of list(spec.containers)) mergeContainer(c, defaults, 'container', notes);
  for (const c of list(spec.initContainers)) mergeContainer(c, defaults, 'init container', notes);
  if (notes.length) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
}

/** utilerrors.NewAggregate(...).Error(): one message, or the distinct ones in brackets. */
function aggregate(errs: string[]): string {
  const distinct = [...new Set(errs)];
  return distinct.length === 1 ? distinct[0]! : `[${distinct.join(', ')}]`;
}

const isCore = (a: AdmissionAttributes, resource: string): boolean => a.kind.group === '' && a.kind.resource === resource;

/** SupportsAttributes: Pods on create, claims on create and update, no subresource. */
function applies(a: AdmissionAttributes): boolean {
  if (a.subresource || !a.object || (a.operation !== 'CREATE' && a.operation !== 'UPDATE')) return false;
  if (a.oldObject?.metadata.deletionTimestamp) return false;
  return (isCore(a, 'pods') && a.operation === 'CREATE') || isCore(a, 'persistentvolumeclaims');
}

export function limitRanger(storage: Storage): MutatingPlugin & ValidatingPlugin {
  const index = new NamespaceIndex(storage, '', 'limitranges');
  const limitRanges = (namespace: string): Promise<KubeObject[]> => index.list(namespace);
  return {
    name: 'LimitRanger',
    admit(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (!applies(a) || !isCore(a, 'pods') || !index.mayHave(a.namespace)) return;
      const pod = a.object!;
      return limitRanges(a.namespace).then((lrs) => {
        for (const lr of lrs) defaultPod(lr, pod);
      });
    },
    validate(a) {
      if (!applies(a) || !index.mayHave(a.namespace)) return;
      const o = a.object!;
      return limitRanges(a.namespace).then((lrs) => {
        for (const lr of lrs) {
          const errs = isCore(a, 'pods') ? validatePod(lr, o) : validateClaim(lr, o);
          if (errs.length) throw forbidden({ group: '', resource: a.kind.resource }, a.name || o.metadata.name || o.metadata.generateName || 'Unknown', aggregate(errs));
        }
      });
    },
  };
}
