/**
 * LimitRange (core/v1), after Kubernetes 1.24.17 pkg/registry/core/limitrange (PUT may create,
 * kube's default Table), SetDefaults_LimitRangeItem + SetDefaults_ResourceList
 * (pkg/apis/core/v1/defaults.go) and ValidateLimitRange (pkg/apis/core/validation).
 *
 * Go walks the resource maps in random order; errors here come in sorted key order. The
 * quantities kube's messages print raw (%#v) are rebuilt from the stored (canonical) string, as
 * kube's are when a client sends canonical quantities.
 */
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy } from '../rest/strategy.ts';
import { isQualifiedName } from '../../validation/names.ts';
import { canonicalQuantity } from '../../decode/quantity.ts';
import { goQuantity } from './volumes/go-print.ts';
import { isOvercommitAllowed, validateContainerResourceName, validateResourceName } from './pod-resources.ts';
import { type J, cmpQuantity, list, nanoValue, obj, roundUpMilli, s } from './pod-util.ts';

const LIMIT_TYPES = new Set(['Pod', 'Container', 'PersistentVolumeClaim']);
const RESOURCE_LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

/** Quantity.String(): the canonical text. */
const qString = (q: string): string => {
  try {
    return canonicalQuantity(q);
  } catch {
    return q;
  }
};

/**
 * %#v of a Quantity whose String() ran (every LimitRange message calls it on the value it
 * prints, which caches the canonical text in `s`).
 */
export const goQuantityString = (q: string): GoValue => new GoValue(goQuantity(qString(q)).replace(/s:"[^"]*"/, `s:${JSON.stringify(qString(q))}`));

/** SetDefaults_LimitRangeItem then SetDefaults_ResourceList on each of the item's lists. */
function defaultLimitRangeItem(item: J): void {
  if (item.type === 'Container') {
    const def = obj(item.default) ?? (item.default = {});
    const req = obj(item.defaultRequest) ?? (item.defaultRequest = {});
    for (const [k, v] of Object.entries(obj(item.max) ?? {})) if (!(k in def)) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (!(k in req)) req[k] = v;
    for (const [k, v] of Object.entries(obj(item.min) ?? {})) if (!(k in req)) req[k] = v;
  }
  for (const f of RESOURCE_LISTS) {
    const m = obj(item[f]);
    if (m) for (const [k, v] of Object.entries(m)) if (typeof v === 'string') m[k] = roundUpMilli(v);
  }
}

/** validateLimitRangeTypeName. */
function validateTypeName(value: string, p: FieldPath): FieldError[] {
  const errs = isQualifiedName(value).map((m) => invalid(p, value, m));
  if (errs.length) return errs;
  if (!value.includes('/') && !LIMIT_TYPES.has(value)) return [invalid(p, value, 'must be a standard limit type or fully qualified')];
  return [];
}

/** validateLimitRangeResourceName. */
const validateResource = (type: string, name: string, p: FieldPath): FieldError[] =>
  type === 'Pod' || type === 'Container' ? validateContainerResourceName(name, p) : validateResourceName(name, p);

const sortedEntries = (m: unknown): [string, string][] =>
  Object.entries(obj(m) ?? {})
    .map(([k, v]) => [k, String(v)] as [string, string])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

const MAX_MILLI_VALUE = 2n ** 63n / 1000n;
/** Quantity.Value(): the value rounded up to an integer. */
const value = (q: string): bigint => {
  const n = nanoValue(q) ?? 0n;
  return n / 1_000_000_000n + (n % 1_000_000_000n > 0n ? 1n : 0n);
};
/** Quantity.MilliValue(). */
const milliValue = (q: string): bigint => {
  const n = nanoValue(q) ?? 0n;
  return n / 1_000_000n + (n % 1_000_000n > 0n ? 1n : 0n);
};

/** The checks between one resource's min, max, default, defaultRequest and ratio. */
function validateResourceBounds(k: string, q: Partial<Record<(typeof RESOURCE_LISTS)[number], string>>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const { min, max, default: def, defaultRequest: req, maxLimitRequestRatio: ratio } = q;
  const bad = (list: string, v: string, msg: string) => errs.push(invalid(p.child(list).key(k), goQuantityString(v), msg));
  if (min !== undefined && max !== undefined && cmpQuantity(min, max) > 0) bad('min', min, `min value ${qString(min)} is greater than max value ${qString(max)}`);
  if (req !== undefined && min !== undefined && cmpQuantity(min, req) > 0) bad('defaultRequest', req, `min value ${qString(min)} is greater than default request value ${qString(req)}`);
  if (req !== undefined && max !== undefined && cmpQuantity(req, max) > 0) bad('defaultRequest', req, `default request value ${qString(req)} is greater than max value ${qString(max)}`);
  if (req !== undefined && def !== undefined && cmpQuantity(req, def) > 0) bad('defaultRequest', req, `default request value ${qString(req)} is greater than default limit value ${qString(def)}`);
  if (def !== undefined && min !== undefined && cmpQuantity(min, def) > 0) bad('default', min, `min value ${qString(min)} is greater than default value ${qString(def)}`);
  if (def !== undefined && max !== undefined && cmpQuantity(def, max) > 0) bad('default', max, `default value ${qString(def)} is greater than max value ${qString(max)}`);
  if (ratio !== undefined && cmpQuantity(ratio, '1') < 0) bad('maxLimitRequestRatio', ratio, `ratio ${qString(ratio)} is less than 1`);
  if (ratio !== undefined && min !== undefined && max !== undefined) {
    let ratioValue = Number(value(ratio));
    let minValue = value(min);
    let maxValue = value(max);
    if (value(ratio) < MAX_MILLI_VALUE && minValue < MAX_MILLI_VALUE && maxValue < MAX_MILLI_VALUE) {
      ratioValue = Number(milliValue(ratio)) / 1000;
      minValue = milliValue(min);
      maxValue = milliValue(max);
    }
    const limit = Number(maxValue) / Number(minValue);
    if (ratioValue > limit) bad('maxLimitRequestRatio', ratio, `ratio ${qString(ratio)} is greater than max/min = ${goFloatF(limit)}`);
  }
  if (!isOvercommitAllowed(k) && def !== undefined && req !== undefined && cmpQuantity(def, req) !== 0) {
    bad('defaultRequest', req, `default value ${qString(def)} must equal to defaultRequest value ${qString(req)} in ${k}`);
  }
  return errs;
}

/** fmt's %f of a float64 (+Inf for a zero min, as Go divides). */
const goFloatF = (v: number): string => (Number.isFinite(v) ? v.toFixed(6) : v > 0 ? '+Inf' : v < 0 ? '-Inf' : 'NaN');

/** ValidateLimitRange without ObjectMeta (the store validates metadata). */
export function validateLimitRange(o: J): FieldError[] {
  const errs: FieldError[] = [];
  const p = new FieldPath('spec').child('limits');
  const seen = new Set<string>();
  list(obj(o.spec)?.limits).forEach((item, i) => {
    const ip = p.index(i);
    const type = s(item.type);
    errs.push(...validateTypeName(type, ip.child('type')));
    if (seen.has(type)) errs.push(duplicate(ip.child('type'), type));
    seen.add(type);
    const byKey = new Map<string, Partial<Record<(typeof RESOURCE_LISTS)[number], string>>>();
    const take = (f: (typeof RESOURCE_LISTS)[number]) => {
      for (const [k, v] of sortedEntries(item[f])) {
        errs.push(...validateResource(type, k, ip.child(f).key(k)));
        byKey.set(k, { ...byKey.get(k), [f]: v });
      }
    };
    take('max');
    take('min');
    if (type === 'Pod') {
      if (Object.keys(obj(item.default) ?? {}).length) errs.push(forbidden(ip.child('default'), "may not be specified when `type` is 'Pod'"));
      if (Object.keys(obj(item.defaultRequest) ?? {}).length) errs.push(forbidden(ip.child('defaultRequest'), "may not be specified when `type` is 'Pod'"));
    } else {
      take('default');
      take('defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !('storage' in (obj(item.min) ?? {})) && !('storage' in (obj(item.max) ?? {}))) {
      errs.push(required(ip.child('limits'), 'either minimum or maximum storage value is required, but neither was provided'));
    }
    take('maxLimitRequestRatio');
    for (const k of [...byKey.keys()].sort()) errs.push(...validateResourceBounds(k, byKey.get(k)!, ip));
  });
  return errs;
}

export const limitRangeStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaults: (o) => list(obj(o.spec)?.limits).forEach(defaultLimitRangeItem),
  validate: validateLimitRange,
  validateUpdate: validateLimitRange,
};

export const limitRangeKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'limitranges',
  singular: 'limitrange',
  kind: 'LimitRange',
  listKind: 'LimitRangeList',
  namespaced: true,
  shortNames: ['limits'],
  strategy: limitRangeStrategy,
  deleteReturns: 'Status',
};
