/**
 * ResourceQuota (core/v1), after Kubernetes 1.24.17 pkg/registry/core/resourcequota (status
 * reset on create and kept on update, the `/status` subresource keeping spec), SetDefaults_ResourceList
 * on spec.hard, status.hard and status.used, ValidateResourceQuota / ...Update / ...StatusUpdate
 * (pkg/apis/core/validation) and printResourceQuota. Usage is not computed here (the quota
 * admission plugin and controller are not served yet).
 *
 * Go walks the resource maps in random order; errors here come in sorted key order.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, required } from '../../api/field-errors.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import { IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import { goQuote, goStringSlice } from '../../gocompat/quote.ts';
import { canonicalQuantity } from '../../decode/quantity.ts';
import { goQuantity } from './volumes/go-print.ts';
import { isInteger, validateResourceName } from './pod-resources.ts';
import { type J, list, nanoValue, obj, roundUpMilli, s } from './pod-util.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';

const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu', 'memory', 'ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.storage', 'requests.ephemeral-storage', 'limits.cpu',
  'limits.memory', 'limits.ephemeral-storage', 'pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'persistentvolumeclaims',
  'configmaps', 'services.nodeports', 'services.loadbalancers',
]);
const isStandardQuotaResource = (name: string): boolean => STANDARD_QUOTA_RESOURCES.has(name) || name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');
const SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity']);
const POD_COMPUTE = new Set(['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory']);
const EXISTS_ONLY = new Set(['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity']);
const CONFLICTING = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

/** IsResourceQuotaScopeValidForResource. */
function scopeValidFor(scope: string, resource: string): boolean {
  if (scope === 'BestEffort') return resource === 'pods';
  if (scope === 'Terminating' || scope === 'NotTerminating' || scope === 'NotBestEffort' || scope === 'PriorityClass' || scope === 'CrossNamespacePodAffinity') {
    return resource === 'pods' || POD_COMPUTE.has(resource);
  }
  return true;
}

const sortedKeys = (m: unknown): string[] => Object.keys(obj(m) ?? {}).sort();

/** ValidateResourceQuotaResourceName + ValidateResourceQuantityValue on each entry of a list. */
function validateQuotaList(m: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = obj(m) ?? {};
  for (const k of sortedKeys(list)) {
    const kp = p.key(k);
    const v = String(list[k]);
    errs.push(...validateResourceName(k, kp));
    if (!k.includes('/') && !isStandardQuotaResource(k)) errs.push(invalid(kp, k, 'must be a standard resource for quota'));
    const nanos = nanoValue(v) ?? 0n;
    if (nanos < 0n) errs.push(invalid(kp, canonical(v), IS_NEGATIVE_ERROR_MSG));
    if (isInteger(k) && (nanos / 1_000_000n) % 1000n !== 0n) errs.push(invalid(kp, new GoValue(goQuantity(v)), 'must be an integer'));
  }
  return errs;
}

const canonical = (q: string): string => {
  try {
    return canonicalQuantity(q);
  } catch {
    return q;
  }
};

const goScopes = (scopes: J[] | unknown[]): GoValue => new GoValue(`[]core.ResourceQuotaScope{${(scopes as unknown[]).map((x) => goQuote(s(x))).join(', ')}}`);

/** %#v of a *core.ScopeSelector. */
function goScopeSelector(sel: J): GoValue {
  const reqs = list(sel.matchExpressions).map(
    (r) => `core.ScopedResourceSelectorRequirement{ScopeName:${goQuote(s(r.scopeName))}, Operator:${goQuote(s(r.operator))}, Values:${goStringSlice(Array.isArray(r.values) ? r.values.map(String) : null)}}`,
  );
  return new GoValue(`&core.ScopeSelector{MatchExpressions:${Array.isArray(sel.matchExpressions) ? `[]core.ScopedResourceSelectorRequirement{${reqs.join(', ')}}` : '[]core.ScopedResourceSelectorRequirement(nil)'}}`);
}

/** ValidateResourceQuotaSpec. */
function validateSpec(spec: J): FieldError[] {
  const p = new FieldPath('spec');
  const errs = validateQuotaList(spec.hard, p.child('hard'));
  const hard = sortedKeys(spec.hard);
  const scopes = Array.isArray(spec.scopes) ? (spec.scopes as unknown[]) : [];
  if (scopes.length) {
    const sp = p.child('scopes');
    const seen = new Set<string>();
    for (const scope of scopes.map(s)) {
      if (!SCOPES.has(scope)) errs.push(invalid(sp, goScopes(scopes), 'unsupported scope'));
      for (const k of hard) if (isStandardQuotaResource(k) && !scopeValidFor(scope, k)) errs.push(invalid(sp, goScopes(scopes), 'unsupported scope applied to resource'));
      seen.add(scope);
    }
    for (const pair of CONFLICTING) if (pair.every((x) => seen.has(x))) errs.push(invalid(sp, goScopes(scopes), 'conflicting scopes'));
  }
  const sel = obj(spec.scopeSelector);
  if (sel) {
    const mp = p.child('scopeSelector').child('matchExpressions');
    const seen = new Set<string>();
    for (const req of list(sel.matchExpressions)) {
      const scope = s(req.scopeName);
      const op = s(req.operator);
      const values = Array.isArray(req.values) ? (req.values as unknown[]) : [];
      if (!SCOPES.has(scope)) errs.push(invalid(mp.child('scopeName'), scope, 'unsupported scope'));
      for (const k of hard) if (isStandardQuotaResource(k) && !scopeValidFor(scope, k)) errs.push(invalid(mp, goScopeSelector(sel), 'unsupported scope applied to resource'));
      if (EXISTS_ONLY.has(scope) && op !== 'Exists') {
        errs.push(
          invalid(
            mp.child('operator'),
            op,
            "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
          ),
        );
      }
      if (op === 'In' || op === 'NotIn') {
        if (values.length === 0) errs.push(required(mp.child('values'), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (values.length) errs.push(invalid(mp.child('values'), new GoValue(goStringSlice(values.map(String))), "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
      } else errs.push(invalid(mp.child('operator'), op, 'not a valid selector operator'));
      seen.add(scope);
    }
    for (const pair of CONFLICTING) if (pair.every((x) => seen.has(x))) errs.push(invalid(mp, goScopes(scopes), 'conflicting scopes'));
  }
  return errs;
}

const specOf = (o: KubeObject): J => obj(o.spec) ?? {};
const statusOf = (o: KubeObject): J => obj(o.status) ?? {};

/** ValidateResourceQuotaStatus's (and StatusUpdate's) hard and used checks. */
const validateStatus = (o: KubeObject): FieldError[] => {
  const p = new FieldPath('status');
  return [...validateQuotaList(statusOf(o).hard, p.child('hard')), ...validateQuotaList(statusOf(o).used, p.child('used'))];
};

function roundUpList(m: unknown): void {
  const l = obj(m);
  if (l) for (const [k, v] of Object.entries(l)) if (typeof v === 'string') l[k] = roundUpMilli(v);
}

export const resourceQuotaStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults(o) {
    roundUpList(obj(o.spec)?.hard);
    roundUpList(obj(o.status)?.hard);
    roundUpList(obj(o.status)?.used);
  },
  prepareForCreate(o) {
    o.status = {};
  },
  prepareForUpdate(o, old) {
    o.status = structuredClone(old.status ?? {});
  },
  validate: (o) => [...validateSpec(specOf(o)), ...validateStatus(o)],
  validateUpdate(o, old) {
    const errs = validateSpec(specOf(o));
    const next = new Set(list(specOf(o).scopes).map(String));
    const before = new Set(list(specOf(old).scopes).map(String));
    if (next.size !== before.size || [...next].some((x) => !before.has(x))) {
      errs.push(invalid(new FieldPath('spec').child('scopes'), goScopes(Array.isArray(specOf(o).scopes) ? specOf(o).scopes : []), 'field is immutable'));
    }
    return errs;
  },
};

const statusStrategy: StatusStrategy = {
  prepareForUpdate(o, old) {
    o.spec = structuredClone(old.spec);
    // The subresource's request body is defaulted as a whole object is.
    roundUpList(obj(o.status)?.hard);
    roundUpList(obj(o.status)?.used);
  },
  validateUpdate: validateStatus,
};

/** printResourceQuota: `<resource>: <used>/<hard>` of each status.hard entry, limits.* apart. */
function quotaCells(o: KubeObject): [string, string] {
  const hard = obj(statusOf(o).hard) ?? {};
  const used = obj(statusOf(o).used) ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const k of sortedKeys(hard)) {
    const pieces = k.split('.');
    (pieces.length > 1 && pieces[0] === 'limits' ? limit : request).push(`${k}: ${canonical(String(used[k] ?? '0'))}/${canonical(String(hard[k]))}`);
  }
  return [request.join(', '), limit.join(', ')];
}

export const resourceQuotaTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    { name: 'Request', type: 'string', description: 'Request represents a minimum amount of cpu/memory that a container may consume.', priority: 0 },
    {
      name: 'Limit',
      type: 'string',
      description: 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      priority: 0,
    },
  ],
  cells: (o) => [o.metadata.name ?? '', creationTimestampCell(o), ...quotaCells(o)],
};

export const resourceQuotaKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'resourcequotas',
  singular: 'resourcequota',
  kind: 'ResourceQuota',
  listKind: 'ResourceQuotaList',
  namespaced: true,
  shortNames: ['quota'],
  strategy: resourceQuotaStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategy }],
  table: resourceQuotaTable,
  deleteReturns: 'Object',
};
