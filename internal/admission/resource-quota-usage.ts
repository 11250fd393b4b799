/**
 * Quota usage as Kubernetes 1.24 computes it, shared by the ResourceQuota admission plugin and the
 * resourcequota controller: resource lists of quantities (k8s.io/apiserver/pkg/quota/v1 Add, Max,
 * Mask, LessThanOrEqual with resource.Quantity's format rules), and the evaluators
 * (pkg/quota/v1/evaluator/core: pods, services, persistentvolumeclaims; the object-count
 * evaluator of generic/ for every other resource, with the legacy aliases `configmaps`,
 * `secrets`, `resourcequotas`, `replicationcontrollers`).
 */
import type { KubeObject } from '../api/types.ts';
import { canonicalQuantity } from '../decode/quantity.ts';
import { podQOS } from '../registry/core/pod-resources.ts';
import { type J, list, nanoValue, obj, s } from '../registry/core/pod-util.ts';
import { claimClass } from './storage.ts';

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

/** A resource.Quantity: its value in nano-units and the format it prints in. */
export interface Quantity {
  nanos: bigint;
  format: Format;
}

export type ResourceList = Record<string, Quantity>;

const NANO = 1_000_000_000n;

export function parseQuantity(text: unknown): Quantity {
  const t = typeof text === 'number' ? String(text) : s(text);
  const nanos = nanoValue(t) ?? 0n;
  const format: Format = /[KMGTPE]i$/.test(t) ? 'BinarySI' : /\d[eE][+-]?\d+$/.test(t) ? 'DecimalExponent' : 'DecimalSI';
  return { nanos, format };
}

const integer = (v: bigint): Quantity => ({ nanos: v * NANO, format: 'DecimalSI' });
const ONE = (): Quantity => integer(1n);
const ZERO = (): Quantity => integer(0n);

/** Quantity.String(): canonical text in the quantity's format. */
export function formatQuantity(q: Quantity): string {
  const v = q.nanos;
  if (v === 0n) return '0';
  if (q.format === 'BinarySI' && v % NANO === 0n && (v >= 1024n * NANO || v <= -1024n * NANO)) {
    let m = v / NANO;
    let e = 0;
    const suffixes = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
    while (m % 1024n === 0n && e < 6) {
      m /= 1024n;
      e++;
    }
    return `${m}${suffixes[e]}`;
  }
  return canonicalQuantity(q.format === 'DecimalExponent' ? `${v}e-9` : `${v}n`);
}

/** Quantity.Add: a zero receiver takes the other's format. */
const addQ = (a: Quantity, b: Quantity): Quantity => ({ nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format });

/** Quantity.Sub. */
const subQ = (a: Quantity, b: Quantity): Quantity => ({ nanos: a.nanos - b.nanos, format: a.nanos === 0n ? b.format : a.format });

export function parseResourceList(m: unknown): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(obj(m) ?? {})) out[k] = parseQuantity(v);
  return out;
}

export function formatResourceList(l: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(l).sort()) out[k] = formatQuantity(l[k]!);
  return out;
}

/** quota.Add. */
export function add(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) out[k] = k in b ? addQ(v, b[k]!) : { ...v };
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = { ...v };
  return out;
}

/** quota.SubtractWithNonNegativeResult. */
export function subtractNonNegative(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    const d = k in b ? subQ(v, b[k]!) : { ...v };
    out[k] = d.nanos < 0n ? { nanos: 0n, format: d.format } : d;
  }
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = { nanos: 0n, format: v.format };
  return out;
}

/** quota.Max. */
function max(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) out[k] = k in b && v.nanos <= b[k]!.nanos ? { ...b[k]! } : { ...v };
  for (const [k, v] of Object.entries(b)) if (!(k in out)) out[k] = { ...v };
  return out;
}

/** quota.Mask: only the named entries. */
export function mask(l: ResourceList, names: Iterable<string>): ResourceList {
  const out: ResourceList = {};
  for (const k of names) if (k in l) out[k] = { ...l[k]! };
  return out;
}

export const removeZeros = (l: ResourceList): ResourceList => Object.fromEntries(Object.entries(l).filter(([, v]) => v.nanos !== 0n));

/** quota.Equals. */
export function equals(a: ResourceList, b: ResourceList): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => k in b && a[k]!.nanos === b[k]!.nanos);
}

/** quota.LessThanOrEqual: the names of b whose value a exceeds. */
export function exceeded(a: ResourceList, b: ResourceList): string[] {
  return Object.keys(b).filter((k) => k in a && a[k]!.nanos > b[k]!.nanos);
}

/** prettyPrint: `name=value` sorted, comma-separated. */
export const prettyPrint = (l: ResourceList): string =>
  Object.keys(l)
    .sort()
    .map((k) => `${k}=${formatQuantity(l[k]!)}`)
    .join(',');

/** A quota scope as a selector requirement (spec.scopes become `Exists` requirements). */
export interface ScopeSelector {
  scopeName: string;
  operator: string;
  values?: string[];
}

/** getScopeSelectorsFromQuota. */
export function quotaScopeSelectors(quota: KubeObject): ScopeSelector[] {
  const spec = obj(quota.spec) ?? {};
  const out: ScopeSelector[] = list(spec.scopes as unknown).map((x) => ({ scopeName: String(x), operator: 'Exists' }));
  for (const r of list(obj(spec.scopeSelector)?.matchExpressions)) {
    out.push({ scopeName: s(r.scopeName), operator: s(r.operator), values: Array.isArray(r.values) ? r.values.map(String) : [] });
  }
  return out;
}

/** What quota knows about one resource (quota.Evaluator). */
export interface Evaluator {
  group: string;
  resource: string;
  /** Whether admission evaluates this operation (CREATE, UPDATE). */
  handles(op: string): boolean;
  /** The quota resource names this evaluator tracks among `names`. */
  matchingResources(names: string[]): string[];
  /** Whether an object is in a scope (only pods have scopes). */
  matchesScope(sel: ScopeSelector, o: KubeObject): boolean;
  /** The `must specify …` of the pod evaluator. */
  constraints(required: string[], o: KubeObject): string | undefined;
  usage(o: KubeObject, now: number): ResourceList;
}

/** generic.Matches: the quota tracks one of the evaluator's resources and every scope matches. */
export function quotaMatches(e: Evaluator, quota: KubeObject, o: KubeObject): boolean {
  if (e.matchingResources(Object.keys(obj(obj(quota.status)?.hard) ?? {})).length === 0) return false;
  return quotaScopeSelectors(quota).every((sel) => e.matchesScope(sel, o));
}

const intersection = (names: string[], known: readonly string[]): string[] => names.filter((n) => known.includes(n));

/** ObjectCountQuotaResourceNameFor. */
export const objectCountName = (group: string, resource: string): string => (group ? `count/${resource}.${group}` : `count/${resource}`);

const LEGACY_ALIASES: Record<string, string> = { configmaps: 'configmaps', resourcequotas: 'resourcequotas', replicationcontrollers: 'replicationcontrollers', secrets: 'secrets' };

/** generic.NewObjectCountEvaluator (with the legacy alias of core's configmaps, secrets, …). */
export function objectCountEvaluator(group: string, resource: string): Evaluator {
  const names = [objectCountName(group, resource)];
  if (group === '' && resource in LEGACY_ALIASES) names.push(LEGACY_ALIASES[resource]!);
  return {
    group,
    resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => intersection(input, names),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => Object.fromEntries(names.map((n) => [n, ONE()])),
  };
}

const POD_RESOURCES = [
  'count/pods', 'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods',
];
const POD_VALIDATION_SET = ['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory'];
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
/** helper.IsExtendedResourceName (of a container resource). */
const isExtendedResource = (name: string): boolean => !isNativeResource(name) && !name.startsWith('requests.');

/** podComputeUsageHelper. */
function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = { pods: ONE() };
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    if (r in requests) {
      out[r] = { ...requests[r]! };
      out[`requests.${r}`] = { ...requests[r]! };
    }
    if (r in limits) out[`limits.${r}`] = { ...limits[r]! };
  }
  for (const [k, v] of Object.entries(requests)) {
    if (k.startsWith('hugepages-')) {
      out[k] = { ...v };
      out[`requests.${k}`] = { ...v };
    }
    if (isExtendedResource(k)) out[`requests.${k}`] = { ...v };
  }
  return out;
}

/** QuotaV1Pod: terminal pods, and pods past their deletion grace, use no compute quota. */
function quotaV1Pod(pod: KubeObject, now: number): boolean {
  const phase = obj(pod.status)?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const ts = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds;
  if (ts && typeof grace === 'number' && now > Date.parse(ts) + grace * 1000) return false;
  return true;
}

/** PodUsageFunc. */
export function podUsage(pod: KubeObject, now: number): ResourceList {
  const out: ResourceList = { 'count/pods': ONE() };
  if (!quotaV1Pod(pod, now)) return out;
  const spec = obj(pod.spec) ?? {};
  let requests: ResourceList = {};
  let limits: ResourceList = {};
  for (const c of list(spec.containers)) {
    requests = add(requests, parseResourceList(obj(c.resources)?.requests));
    limits = add(limits, parseResourceList(obj(c.resources)?.limits));
  }
  for (const c of list(spec.initContainers)) {
    requests = max(requests, parseResourceList(obj(c.resources)?.requests));
    limits = max(limits, parseResourceList(obj(c.resources)?.limits));
  }
  const overhead = parseResourceList(spec.overhead);
  return add(out, podComputeUsage(add(requests, overhead), add(limits, overhead)));
}

const terminatingPod = (spec: J): boolean => typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;

/** usesCrossNamespacePodAffinity. */
function crossNamespaceAffinity(spec: J): boolean {
  const aff = obj(spec.affinity);
  if (!aff) return false;
  const cross = (t: J | undefined): boolean => !!t && (list(t.namespaces).length > 0 || (t.namespaceSelector !== undefined && t.namespaceSelector !== null));
  for (const k of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(aff[k]);
    if (!a) continue;
    if (list(a.requiredDuringSchedulingIgnoredDuringExecution).some((t) => cross(t))) return true;
    if (list(a.preferredDuringSchedulingIgnoredDuringExecution).some((w) => cross(obj(w.podAffinityTerm)))) return true;
  }
  return false;
}

/** podMatchesScopeFunc. */
function podMatchesScope(sel: ScopeSelector, pod: KubeObject): boolean {
  const spec = obj(pod.spec) ?? {};
  switch (sel.scopeName) {
    case 'Terminating':
      return terminatingPod(spec);
    case 'NotTerminating':
      return !terminatingPod(spec);
    case 'BestEffort':
      return podQOS(spec) === 'BestEffort';
    case 'NotBestEffort':
      return podQOS(spec) !== 'BestEffort';
    case 'PriorityClass': {
      const pc = s(spec.priorityClassName);
      if (sel.operator === 'Exists') return pc.length !== 0;
      const values = sel.values ?? [];
      // ScopedResourceSelectorRequirementsAsSelector over the set {PriorityClass: <name>} (empty without one).
      if (sel.operator === 'In') return pc !== '' && values.includes(pc);
      if (sel.operator === 'NotIn') return pc === '' || !values.includes(pc);
      if (sel.operator === 'DoesNotExist') return pc === '';
      return false;
    }
    case 'CrossNamespacePodAffinity':
      return crossNamespaceAffinity(spec);
  }
  return false;
}

const podEvaluator: Evaluator = {
  group: '',
  resource: 'pods',
  handles: (op) => op === 'CREATE',
  matchingResources: (input) => [
    ...intersection(input, POD_RESOURCES),
    ...input.filter((r) => r.startsWith('hugepages-') || r.startsWith('requests.hugepages-') || (!isNativeResource(r) && r.startsWith('requests.'))),
  ],
  matchesScope: podMatchesScope,
  constraints(required, pod) {
    const requiredSet = required.filter((r) => POD_VALIDATION_SET.includes(r));
    const missing = new Map<string, Set<string>>();
    const spec = obj(pod.spec) ?? {};
    for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
      const usage = podComputeUsage(parseResourceList(obj(c.resources)?.requests), parseResourceList(obj(c.resources)?.limits));
      for (const r of requiredSet) {
        if (r in usage) continue;
        const names = missing.get(r) ?? new Set<string>();
        names.add(s(c.name));
        missing.set(r, names);
      }
    }
    if (missing.size === 0) return undefined;
    const parts = [...missing.keys()].sort().map((r) => `${r} for: ${[...missing.get(r)!].sort().join(',')}`);
    return `must specify ${parts.join('; ')}`;
  },
  usage: podUsage,
};

const SERVICE_RESOURCES = ['count/services', 'services', 'services.loadbalancers', 'services.nodeports'];

const serviceEvaluator: Evaluator = {
  group: '',
  resource: 'services',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => intersection(input, SERVICE_RESOURCES),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(svc) {
    const spec = obj(svc.spec) ?? {};
    const ports = list(spec.ports);
    const out: ResourceList = { 'count/services': ONE(), services: ONE(), 'services.loadbalancers': ZERO(), 'services.nodeports': ZERO() };
    if (spec.type === 'NodePort') out['services.nodeports'] = integer(BigInt(ports.length));
    else if (spec.type === 'LoadBalancer') {
      out['services.nodeports'] = integer(BigInt(spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => typeof p.nodePort === 'number' && p.nodePort !== 0).length : ports.length));
      out['services.loadbalancers'] = ONE();
    }
    return out;
  },
};

const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];
const STORAGE_CLASS_SUFFIX = '.storageclass.storage.k8s.io/';

const pvcEvaluator: Evaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((r) => r === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(r) || PVC_RESOURCES.some((p) => r.endsWith(STORAGE_CLASS_SUFFIX + p))),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(pvc) {
    const out: ResourceList = { persistentvolumeclaims: ONE(), 'count/persistentvolumeclaims': ONE() };
    const cls = claimClass(pvc);
    if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`] = ONE();
    const req = obj(obj(obj(pvc.spec)?.resources)?.requests)?.storage;
    if (req !== undefined) {
      const q = parseQuantity(req);
      // RoundUp(0): a fraction becomes the next whole unit.
      const rem = q.nanos % NANO;
      const storage: Quantity = rem === 0n ? q : { nanos: q.nanos - rem + (q.nanos > 0n ? NANO : 0n), format: q.format };
      out['requests.storage'] = storage;
      if (cls) out[`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`] = { ...storage };
    }
    return out;
  },
};

const BUILT_IN: Evaluator[] = [podEvaluator, serviceEvaluator, pvcEvaluator];

const evaluators = new Map<string, Evaluator>(BUILT_IN.map((e) => [`${e.group}/${e.resource}`, e]));

/** The evaluator of a group/resource: core's own, or an object count (made once, as kube's registry adds it). */
export function evaluatorFor(group: string, resource: string): Evaluator {
  const key = `${group}/${resource}`;
  let e = evaluators.get(key);
  if (!e) evaluators.set(key, (e = objectCountEvaluator(group, resource)));
  return e;
}

/** install.DefaultIgnoredResources: never quota-ed. */
const IGNORED = new Set([
  '/bindings', '/componentstatuses', '/events', 'authentication.k8s.io/tokenreviews', 'authorization.k8s.io/subjectaccessreviews',
  'authorization.k8s.io/selfsubjectaccessreviews', 'authorization.k8s.io/localsubjectaccessreviews', 'authorization.k8s.io/selfsubjectrulesreviews',
]);
export const quotaIgnored = (group: string, resource: string): boolean => IGNORED.has(`${group}/${resource}`);

/**
 * The group/resource an object-count quota name (`count/<resource>[.<group>]`) counts, or
 * undefined for other names.
 */
export function countedResource(name: string): { group: string; resource: string } | undefined {
  if (!name.startsWith('count/')) return undefined;
  const rest = name.slice('count/'.length);
  const dot = rest.indexOf('.');
  return dot < 0 ? { group: '', resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
}
