/**
 * Resource lists of a Pod, after k8s.io/kubernetes 1.24: ValidateResourceRequirements (container
 * resources and spec.overhead), the resource-name helpers of pkg/apis/core/helper, and the QoS
 * class (pkg/apis/core/helper/qos GetPodQOS).
 *
 * Go walks resource maps in random order; errors here come in sorted key order.
 */
import { type FieldError, type FieldPath, GoValue, forbidden, invalid, required } from '../../api/field-errors.ts';
import { IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import { isQualifiedName } from '../../validation/names.ts';
import { type J, cmpQuantity, entries, list, nanoValue, obj } from './pod-util.ts';

const HUGEPAGES_PREFIX = 'hugepages-';
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const STANDARD_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage', 'limits.cpu', 'limits.memory',
  'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims',
  'storage', 'requests.storage', 'services.nodeports', 'services.loadbalancers',
]);
const INTEGER_RESOURCES = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);
const QOS_COMPUTE = new Set(['cpu', 'memory']);

const isHugePage = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX);
const isNative = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string): boolean => !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`).length === 0;
const isStandardResource = (name: string): boolean => STANDARD_RESOURCES.has(name) || name.startsWith(HUGEPAGES_PREFIX) || name.startsWith('requests.hugepages-');
export const isOvercommitAllowed = (name: string): boolean => isNative(name) && !isHugePage(name);
export const isInteger = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtended(name);

/** validateResourceName: a qualified name; without a `/`, a standard resource. */
export function validateResourceName(name: string, p: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(p, name, m));
  if (errs.length === 0 && !name.includes('/') && !isStandardResource(name)) errs.push(invalid(p, name, 'must be a standard resource type or fully qualified'));
  return errs;
}

/** validateResourceName + validateContainerResourceName. */
export function validateContainerResourceName(name: string, p: FieldPath): FieldError[] {
  const errs = isQualifiedName(name).map((m) => invalid(p, name, m));
  if (errs.length) return errs;
  if (!name.includes('/')) {
    // validateResourceName's error, then validateContainerResourceName's own (both, as kube).
    if (!isStandardResource(name)) errs.push(invalid(p, name, 'must be a standard resource type or fully qualified'));
    if (!(STANDARD_CONTAINER_RESOURCES.has(name) || isHugePage(name))) errs.push(invalid(p, name, 'must be a standard resource for containers'));
    return errs;
  } else if (!isNative(name) && !isExtended(name)) {
    return [invalid(p, name, "doesn't follow extended resource name standard")];
  }
  return [];
}

/** ValidateResourceQuantityValue: non-negative; integer resources whole. */
export function validateQuantityValue(name: string, q: string, p: FieldPath): FieldError[] {
  const v = nanoValue(q) ?? 0n;
  const errs: FieldError[] = [];
  if (v < 0n) errs.push(invalid(p, q, IS_NEGATIVE_ERROR_MSG));
  if (isInteger(name) && (v / 1_000_000n) % 1000n !== 0n) errs.push(invalid(p, goQuantity(q), 'must be an integer'));
  return errs;
}

/**
 * Go's %#v of a resource.Quantity as the integer-resource error prints it:
 * `resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, …, s:"", Format:"DecimalSI"}` for
 * 1.5. The amount is the value with its trailing zeros folded into the scale (how "1.5" parses;
 * a client writing "1500m" would see value:1500, scale:-3 from kube).
 */
function goQuantity(q: string): GoValue {
  const v = nanoValue(q) ?? 0n;
  let value = v;
  let scale = -9;
  while (value !== 0n && value % 10n === 0n) {
    value /= 10n;
    scale++;
  }
  const format = /[KMGTPE]i$/.test(q) ? 'BinarySI' : /e/i.test(q) ? 'DecimalExponent' : 'DecimalSI';
  return new GoValue(`resource.Quantity{i:resource.int64Amount{value:${value}, scale:${value === 0n ? 0 : scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"${format}"}`);
}

/** validateResourceQuantityHugePageValue (AllowIndivisibleHugePagesValues off for new pods). */
function hugePageValueError(name: string, q: string): string | undefined {
  const size = nanoValue(name.slice(HUGEPAGES_PREFIX.length));
  const v = nanoValue(q);
  if (size === undefined || size <= 0n) return `${name} is not a valid hugepages size`;
  if (v !== undefined && v % size !== 0n) return `${q} is not positive integer multiple of ${name}`;
  return undefined;
}

const sortedEntries = (m: unknown): [string, string][] => entries(m).map(([k, v]) => [k, String(v)] as [string, string]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** ValidateResourceRequirements on `{limits, requests}` at `p`. */
export function validateResourceRequirements(req: J | undefined, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const limPath = p.child('limits');
  const reqPath = p.child('requests');
  const limits = obj(req?.limits) ?? {};
  let limCompute = false;
  let reqCompute = false;
  let limHuge = false;
  let reqHuge = false;
  for (const [name, q] of sortedEntries(req?.limits)) {
    const fp = limPath.key(name);
    errs.push(...validateContainerResourceName(name, fp), ...validateQuantityValue(name, q, fp));
    if (isHugePage(name)) {
      limHuge = true;
      const e = hugePageValueError(name, q);
      if (e) errs.push(invalid(fp, q, e));
    }
    if (QOS_COMPUTE.has(name)) limCompute = true;
  }
  for (const [name, q] of sortedEntries(req?.requests)) {
    const fp = reqPath.key(name);
    errs.push(...validateContainerResourceName(name, fp), ...validateQuantityValue(name, q, fp));
    if (name in limits) {
      const lim = String(limits[name]);
      if (cmpQuantity(q, lim) !== 0 && !isOvercommitAllowed(name)) errs.push(invalid(reqPath, q, `must be equal to ${name} limit`));
      else if (cmpQuantity(q, lim) > 0) errs.push(invalid(reqPath, q, `must be less than or equal to ${name} limit`));
    } else if (!isOvercommitAllowed(name)) {
      errs.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePage(name)) {
      reqHuge = true;
      const e = hugePageValueError(name, q);
      if (e) errs.push(invalid(fp, q, e));
    }
    if (QOS_COMPUTE.has(name)) reqCompute = true;
  }
  if (!limCompute && !reqCompute && (reqHuge || limHuge)) errs.push(forbidden(p, 'HugePages require cpu or memory'));
  return errs;
}

/** QoS classes (v1.PodQOSClass). */
export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/**
 * qos.GetPodQOS: BestEffort without any cpu/memory request or limit; Guaranteed when every
 * container limits both cpu and memory and requests (if any) equal the limits; else Burstable.
 * Init containers count; ephemeral ones do not.
 */
export function podQOS(spec: J): QOSClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let isGuaranteed = true;
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const res = obj(c.resources) ?? {};
    for (const [name, q] of sortedEntries(res.requests)) {
      if (!QOS_COMPUTE.has(name)) continue;
      const v = nanoValue(q) ?? 0n;
      if (v <= 0n) continue;
      requests.set(name, (requests.get(name) ?? 0n) + v);
    }
    const qosLimits = new Set<string>();
    for (const [name, q] of sortedEntries(res.limits)) {
      if (!QOS_COMPUTE.has(name)) continue;
      const v = nanoValue(q) ?? 0n;
      if (v <= 0n) continue;
      qosLimits.add(name);
      limits.set(name, (limits.get(name) ?? 0n) + v);
    }
    if (!(qosLimits.has('cpu') && qosLimits.has('memory'))) isGuaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (isGuaranteed) {
    for (const [name, v] of requests) if (limits.get(name) !== v) isGuaranteed = false;
  }
  return isGuaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
