/**
 * HorizontalPodAutoscaler (autoscaling v1, v2, v2beta1, v2beta2; namespaced), after Kubernetes
 * 1.24.17: each version's SetDefaults_HorizontalPodAutoscaler, ValidateHorizontalPodAutoscaler /
 * Update / StatusUpdate (pkg/apis/autoscaling/validation, run on the internal object: messages
 * name v2's fields whatever the request's version), pkg/registry/autoscaling/horizontalpodautoscaler
 * (status reset on create and kept on update, `/status` keeps spec, no generation; with the
 * HPAContainerMetrics and HPAScaleToZero gates off, as 1.24 has them, a ContainerResource source is
 * dropped and minReplicas is at least 1; `--feature-gates` turns them on) and
 * printHorizontalPodAutoscaler.
 *
 * Objects are stored once, as autoscaling/v1 (1.24's storage version for the group, see
 * hpa-convert.ts); v2, v2beta1 and v2beta2 are views of them converted through the internal form,
 * so an object created in any version reads back in every other as kube answers it.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, KindOptions, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { nameIsPathSegment } from '../../validation/names.ts';
import { quantitySign } from '../core/volumes/quantity.ts';
import { goQuantity } from '../core/volumes/go-print.ts';
import { isObj } from '../../gocompat/json.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import { validateContainerResourceName } from '../core/pod-resources.ts';
import { isDNS1123Label } from '../../validation/names.ts';
import descriptions from '../../schema/generated/descriptions/autoscaling_v2beta1.json' with { type: 'json' };
import { DEFAULT_CPU_UTILIZATION, FROM_INTERNAL, GROUP, convertTo, internalToV1, toInternal } from './hpa-convert.ts';

type J = Record<string, unknown>;
const obj = (v: unknown): J | undefined => (isObj(v) ? v : undefined);
const list = (v: unknown): J[] => (Array.isArray(v) ? v.map((x) => obj(x) ?? {}) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const has = (v: unknown): boolean => v !== undefined && v !== null;
const specOf = (o: KubeObject): J => obj(o.spec) ?? (o.spec = {});

// ------------------------------------------------------------ defaults

/** HPAScalingRules of SetDefaults_HorizontalPodAutoscalerBehavior (v2, v2beta2). */
const DEFAULT_SCALE_UP = (): J => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const DEFAULT_SCALE_DOWN = (): J => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

/** copyHPAScalingRules(from, defaults): the set fields of `from` over the defaults. */
function scalingRules(from: unknown, defaults: J): J {
  const f = obj(from);
  if (!f) return defaults;
  for (const k of ['selectPolicy', 'stabilizationWindowSeconds', 'policies']) if (has(f[k])) defaults[k] = f[k];
  return defaults;
}

/** SetDefaults_HorizontalPodAutoscaler of `version` (its object, before conversion). */
export function defaultHPA(o: KubeObject, version: string): void {
  const spec = specOf(o);
  if (!has(spec.minReplicas)) spec.minReplicas = 1;
  if (version === 'v1') return;
  if (!list(spec.metrics).length) {
    spec.metrics = [
      version === 'v2beta1'
        ? { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: DEFAULT_CPU_UTILIZATION } }
        : { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } },
    ];
  }
  const b = obj(spec.behavior);
  if (version !== 'v2beta1' && b) {
    b.scaleUp = scalingRules(b.scaleUp, DEFAULT_SCALE_UP());
    b.scaleDown = scalingRules(b.scaleDown, DEFAULT_SCALE_DOWN());
  }
}

// ------------------------------------------------------------ validation (internal form)

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const METRIC_SOURCE_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const SOURCE_FIELDS = ['object', 'external', 'pods', 'resource', 'containerResource'];
const FIELD_OF_TYPE: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', External: 'external', ContainerResource: 'containerResource' };

/** A Quantity as kube's field errors print it (%#v of the parsed value). */
const goQty = (q: unknown): GoValue => new GoValue(goQuantity(String(q)));

/** ValidateCrossVersionObjectReference. */
function validateReference(ref: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of ['kind', 'name']) {
    const v = str(ref[f]);
    if (!v) errs.push(required(p.child(f), ''));
    else errs.push(...nameIsPathSegment(v, false).map((m) => invalid(p.child(f), v, m)));
  }
  return errs;
}

/** validateMetricTarget. */
function validateMetricTarget(t: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(t.type);
  if (!type) errs.push(required(p.child('type'), 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') errs.push(invalid(p.child('type'), type, 'must be either Utilization, Value, or AverageValue'));
  if (has(t.value) && quantitySign(t.value) !== 1) errs.push(invalid(p.child('value'), goQty(t.value), 'must be positive'));
  if (has(t.averageValue) && quantitySign(t.averageValue) !== 1) errs.push(invalid(p.child('averageValue'), goQty(t.averageValue), 'must be positive'));
  if (has(t.averageUtilization) && num(t.averageUtilization) < 1) errs.push(invalid(p.child('averageUtilization'), t.averageUtilization, 'must be greater than 0'));
  return errs;
}

/** validateMetricIdentifier. */
function validateMetricIdentifier(id: J, p: FieldPath): FieldError[] {
  const name = str(id.name);
  if (!name) return [required(p.child('name'), 'must specify a metric name')];
  return nameIsPathSegment(name, false).map((m) => invalid(p.child('name'), name, m));
}

/**
 * validateObjectSource, validateExternalSource, validatePodsSource, validateResourceSource,
 * validateContainerResourceSource.
 */
function validateSource(kind: string, src: J, p: FieldPath): FieldError[] {
  const t = obj(src.target) ?? {};
  const tp = p.child('target');
  const errs: FieldError[] = [];
  if (kind === 'object') errs.push(...validateReference(obj(src.describedObject) ?? {}, p.child('describedObject')));
  if (kind === 'resource' || kind === 'containerResource') {
    const name = str(src.name);
    if (!name) errs.push(required(p.child('name'), 'must specify a resource name'));
    else if (kind === 'containerResource') errs.push(...validateContainerResourceName(name, p.child('name')));
  } else errs.push(...validateMetricIdentifier(obj(src.metric) ?? {}, p.child('metric')));
  if (kind === 'containerResource') {
    const container = str(src.container);
    if (!container) errs.push(required(p.child('container'), 'must specify a container'));
    else errs.push(...isDNS1123Label(container).map((m) => invalid(p.child('container'), container, m)));
  }
  errs.push(...validateMetricTarget(t, tp));
  if (kind === 'object' && !has(t.value) && !has(t.averageValue)) errs.push(required(tp.child('averageValue'), 'must set either a target value or averageValue'));
  if (kind === 'external') {
    if (!has(t.value) && !has(t.averageValue)) errs.push(required(tp.child('averageValue'), 'must set either a target value for metric or a per-pod target'));
    if (has(t.value) && has(t.averageValue)) errs.push(forbidden(tp.child('value'), 'may not set both a target value for metric and a per-pod target'));
  }
  if (kind === 'pods' && !has(t.averageValue)) errs.push(required(tp.child('averageValue'), 'must specify a positive target averageValue'));
  if (kind === 'resource' || kind === 'containerResource') {
    if (!has(t.averageUtilization) && !has(t.averageValue)) errs.push(required(tp.child('averageUtilization'), 'must set either a target raw value or a target utilization'));
    if (has(t.averageUtilization) && has(t.averageValue)) errs.push(forbidden(tp.child('averageValue'), 'may not set both a target raw value and a target utilization'));
  }
  return errs;
}

/** validateMetricSpec (`containerMetrics`: the HPAContainerMetrics gate, for a missing source's message). */
function validateMetricSpec(m: J, p: FieldPath, containerMetrics: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const type = str(m.type);
  if (!type) errs.push(required(p.child('type'), 'must specify a metric source type'));
  if (!METRIC_SOURCE_TYPES.includes(type)) errs.push(notSupported(p.child('type'), type, METRIC_SOURCE_TYPES));
  const present = SOURCE_FIELDS.filter((f) => obj(m[f]));
  // Only the first source present (in kube's order) is validated.
  if (present.length) errs.push(...validateSource(present[0]!, obj(m[present[0]!])!, p.child(present[0]!)));
  const expected = FIELD_OF_TYPE[type];
  if (expected) {
    if (!obj(m[expected])) {
      const gated = expected === 'containerResource' && !containerMetrics;
      const detail = `must populate information for the given metric source${gated ? ' (only allowed when HPAContainerMetrics feature is enabled)' : ''}`;
      errs.push(required(p.child(expected), detail));
    }
  } else errs.push(notSupported(p.child('type'), type, METRIC_SOURCE_TYPES));
  // Go ranges over a set: its order is random; ours is kube's source order.
  if (present.length !== 1) for (const f of present.filter((x) => x !== expected)) errs.push(forbidden(p.child(f), 'must populate the given metric source only'));
  return errs;
}

/** validateScalingRules. */
function validateScalingRules(rules: unknown, p: FieldPath): FieldError[] {
  const r = obj(rules);
  if (!r) return [];
  const errs: FieldError[] = [];
  const w = r.stabilizationWindowSeconds;
  if (has(w) && num(w) < 0) errs.push(invalid(p.child('stabilizationWindowSeconds'), w, 'must be greater than or equal to zero'));
  if (has(w) && num(w) > MAX_STABILIZATION_WINDOW_SECONDS) errs.push(invalid(p.child('stabilizationWindowSeconds'), w, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  if (has(r.selectPolicy) && !['Disabled', 'Max', 'Min'].includes(str(r.selectPolicy))) errs.push(notSupported(p.child('selectPolicy'), r.selectPolicy, ['Disabled', 'Max', 'Min']));
  const pp = p.child('policies');
  const policies = list(r.policies);
  if (!policies.length) errs.push(required(pp, 'must specify at least one Policy'));
  policies.forEach((pol, i) => {
    const ip = pp.index(i);
    if (pol.type !== 'Pods' && pol.type !== 'Percent') errs.push(notSupported(ip.child('type'), str(pol.type), ['Percent', 'Pods']));
    if (num(pol.value) <= 0) errs.push(invalid(ip.child('value'), num(pol.value), 'must be greater than zero'));
    if (num(pol.periodSeconds) <= 0) errs.push(invalid(ip.child('periodSeconds'), num(pol.periodSeconds), 'must be greater than zero'));
    if (num(pol.periodSeconds) > MAX_PERIOD_SECONDS) errs.push(invalid(ip.child('periodSeconds'), num(pol.periodSeconds), `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** validateHorizontalPodAutoscalerSpec of an internal object. */
export function validateHPASpec(o: KubeObject, minReplicasLowerBound: number, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const spec = obj(o.spec) ?? {};
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  const min = spec.minReplicas;
  const max = num(spec.maxReplicas);
  if (has(min) && num(min) < minReplicasLowerBound) errs.push(invalid(p.child('minReplicas'), min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(invalid(p.child('maxReplicas'), max, 'must be greater than 0'));
  if (has(min) && max < num(min)) errs.push(invalid(p.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateReference(obj(spec.scaleTargetRef) ?? {}, p.child('scaleTargetRef')));
  const metrics = list(spec.metrics);
  const containerMetrics = gates.enabled('HPAContainerMetrics');
  metrics.forEach((m, i) => errs.push(...validateMetricSpec(m, p.child('metrics').index(i), containerMetrics)));
  if (has(min) && num(min) === 0 && !metrics.some((m) => m.type === 'Object' || m.type === 'External')) {
    errs.push(forbidden(p.child('metrics'), 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  const b = obj(spec.behavior);
  if (b) errs.push(...validateScalingRules(b.scaleUp, p.child('behavior').child('scaleUp')), ...validateScalingRules(b.scaleDown, p.child('behavior').child('scaleDown')));
  return errs;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate (ObjectMeta is the store's). */
function validateStatus(o: KubeObject): FieldError[] {
  const st = obj(toInternal(o).status) ?? {};
  const p = new FieldPath('status');
  return (['currentReplicas', 'desiredReplicas'] as const).flatMap((f) => (num(st[f]) < 0 ? [invalid(p.child(f), num(st[f]), 'must be greater than or equal to 0')] : []));
}

// ------------------------------------------------------------ strategy

/** `o` becomes `next` in place (the store keeps its reference to the request's object). */
function replaceWith(o: KubeObject, next: KubeObject): void {
  for (const k of Object.keys(o)) delete (o as J)[k];
  Object.assign(o, next);
}

/** dropContainerMetricSources: the source goes, its type stays (validation then refuses it). */
function dropContainerMetricSources(i: KubeObject): void {
  for (const m of list(obj(i.spec)?.metrics)) delete m.containerResource;
}
const hasContainerMetricSources = (i: KubeObject): boolean => list(obj(i.spec)?.metrics).some((m) => obj(m.containerResource));

/**
 * The strategy of the `version` endpoint: its decoder's defaults, then kube's strategy on the
 * internal object converted back to `version` (for v1 this also reads and rewrites the round-trip
 * annotations, as the request's conversion to internal and the storage's to v1 do).
 */
function hpaStrategy(version: string, gates: FeatureGates): Strategy {
  const back = FROM_INTERNAL[version]!;
  const containerMetrics = gates.enabled('HPAContainerMetrics');
  const scaleToZero = gates.enabled('HPAScaleToZero');
  const oldMin = (old: KubeObject): unknown => obj(toInternal(old).spec)?.minReplicas;
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    // The decoder's defaults, then the object as kube's field manager sees it: converted to the
    // internal type and back to the request's version (v1's annotations read and rewritten).
    defaults(o) {
      defaultHPA(o, version);
      replaceWith(o, back(toInternal(o)));
    },
    prepareForCreate(o) {
      const i = toInternal(o);
      i.status = { currentReplicas: 0, desiredReplicas: 0 };
      if (!containerMetrics) dropContainerMetricSources(i);
      replaceWith(o, back(i));
    },
    prepareForUpdate(o, old) {
      const i = toInternal(o);
      const oi = toInternal(old);
      if (!containerMetrics && !hasContainerMetricSources(oi)) dropContainerMetricSources(i);
      i.status = oi.status;
      replaceWith(o, back(i));
    },
    validate: (o) => validateHPASpec(toInternal(o), scaleToZero ? 0 : 1, gates),
    validateUpdate: (o, old) => validateHPASpec(toInternal(o), scaleToZero || (has(oldMin(old)) && num(oldMin(old)) === 0) ? 0 : 1, gates),
  };
}

/** autoscalerStatusStrategy: spec (with v1's spec annotations) is the stored one. */
function hpaStatusStrategy(version: string): StatusStrategy {
  const back = FROM_INTERNAL[version]!;
  return {
    prepareForUpdate(o, old) {
      const i = toInternal(o);
      i.spec = toInternal(old).spec;
      replaceWith(o, back(i));
    },
    validateUpdate: validateStatus,
  };
}

// ------------------------------------------------------------ table

const doc = (type: string, field: string): string => (descriptions as Record<string, Record<string, string>>)[`io.k8s.api.autoscaling.v2beta1.${type}`]?.[field] ?? '';
/** Quantity.String() of a pointer (nil prints `<nil>`). */
const qs = (q: unknown): string => (has(q) ? String(q) : '<nil>');

/** formatHPAMetrics. */
export function formatHPAMetrics(specs: J[], statuses: J[]): string {
  if (!specs.length) return '<none>';
  const cur = (i: number, f: string): J | undefined => obj(statuses[i]?.[f]);
  const out = specs.map((spec, i) => {
    const src = (f: string): J => obj(spec[f]) ?? {};
    const target = (f: string): J => obj(src(f).target) ?? {};
    const current = (f: string): J => obj(cur(i, f)?.current) ?? {};
    const unknown = '<unknown>';
    switch (spec.type) {
      case 'External':
      case 'Object': {
        const f = spec.type === 'External' ? 'external' : 'object';
        const t = target(f);
        if (has(t.averageValue)) return `${cur(i, f) && has(current(f).averageValue) ? qs(current(f).averageValue) : unknown}/${qs(t.averageValue)} (avg)`;
        return `${cur(i, f) ? qs(current(f).value) : unknown}/${qs(t.value)}`;
      }
      case 'Pods':
        return `${cur(i, 'pods') ? qs(current('pods').averageValue) : unknown}/${qs(target('pods').averageValue)}`;
      case 'Resource':
      case 'ContainerResource': {
        const f = spec.type === 'Resource' ? 'resource' : 'containerResource';
        const t = target(f);
        if (has(t.averageValue)) return `${cur(i, f) ? qs(current(f).averageValue) : unknown}/${qs(t.averageValue)}`;
        const c = cur(i, f) && has(current(f).averageUtilization) ? `${current(f).averageUtilization}%` : unknown;
        return `${c}/${has(t.averageUtilization) ? `${t.averageUtilization}%` : '<auto>'}`;
      }
      default:
        return '<unknown type>';
    }
  });
  return out.length > 2 ? `${out.slice(0, 2).join(', ')} + ${out.length - 2} more...` : out.join(', ');
}

/** printHorizontalPodAutoscaler (column descriptions are v2beta1's, as kube's printer takes them). */
export const hpaTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Reference', type: 'string', description: doc('HorizontalPodAutoscalerSpec', 'scaleTargetRef'), priority: 0 },
    { name: 'Targets', type: 'string', description: doc('HorizontalPodAutoscalerSpec', 'metrics'), priority: 0 },
    { name: 'MinPods', type: 'string', description: doc('HorizontalPodAutoscalerSpec', 'minReplicas'), priority: 0 },
    { name: 'MaxPods', type: 'string', description: doc('HorizontalPodAutoscalerSpec', 'maxReplicas'), priority: 0 },
    { name: 'Replicas', type: 'string', description: doc('HorizontalPodAutoscalerStatus', 'currentReplicas'), priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const i = toInternal(o);
    const spec = obj(i.spec) ?? {};
    const ref = obj(spec.scaleTargetRef) ?? {};
    const st = obj(i.status) ?? {};
    return [
      o.metadata.name ?? '',
      `${str(ref.kind)}/${str(ref.name)}`,
      formatHPAMetrics(list(spec.metrics), list(st.currentMetrics)),
      has(spec.minReplicas) ? String(spec.minReplicas) : '<unset>',
      num(spec.maxReplicas),
      num(st.currentReplicas),
      creationTimestampCell(o),
    ];
  },
};

// ------------------------------------------------------------ descriptors

const STATUS_VERBS = ['get', 'patch', 'update'];

/** The HPA descriptors under `gates`: autoscaling/v1 (the stored form) and the views of it. */
function hpaKindsFor(gates: FeatureGates): { v1: KindDescriptor; v2: KindDescriptor; v2beta1: KindDescriptor; v2beta2: KindDescriptor } {
  const rebuilt = (pick: 'v1' | 'v2' | 'v2beta1' | 'v2beta2') => (options: KindOptions): KindDescriptor => hpaKindsFor(options.featureGates ?? DEFAULT_GATES)[pick];
  /** autoscaling/v1 horizontalpodautoscalers: the stored form of every version. */
  const v1: KindDescriptor = {
    group: GROUP,
    versions: ['v1'],
    resource: 'horizontalpodautoscalers',
    singular: 'horizontalpodautoscaler',
    kind: 'HorizontalPodAutoscaler',
    listKind: 'HorizontalPodAutoscalerList',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
    strategy: hpaStrategy('v1', gates),
    subresources: [{ name: 'status', verbs: STATUS_VERBS, strategy: hpaStatusStrategy('v1') }],
    table: hpaTable,
    deleteReturns: 'Status',
    internalForm: toInternal,
    convertVersion: (o, apiVersion) => convertTo(o, apiVersion.slice(GROUP.length + 1)),
    forOptions: rebuilt('v1'),
  };
  /** A version served as a view of the v1 objects, converted through the internal form both ways. */
  const view = (version: 'v2' | 'v2beta1' | 'v2beta2', deprecated?: { since: string; removed: string }): KindDescriptor => ({
    ...v1,
    versions: [version],
    strategy: hpaStrategy(version, gates),
    subresources: [{ name: 'status', verbs: STATUS_VERBS, strategy: hpaStatusStrategy(version) }],
    ...(deprecated && {
      deprecationWarning: `autoscaling/${version} HorizontalPodAutoscaler is deprecated in v${deprecated.since}+, unavailable in v${deprecated.removed}+; use autoscaling/v2 HorizontalPodAutoscaler`,
      removedRelease: deprecated.removed,
    }),
    storedAs: {
      group: GROUP,
      version: 'v1',
      kind: 'HorizontalPodAutoscaler',
      resource: 'horizontalpodautoscalers',
      fromStorage: (stored) => convertTo(stored, version),
      toStorage: (served) => internalToV1(toInternal(served)),
    },
    forOptions: rebuilt(version),
  });
  return { v1, v2: view('v2'), v2beta1: view('v2beta1', { since: '1.22', removed: '1.25' }), v2beta2: view('v2beta2', { since: '1.23', removed: '1.26' }) };
}

const DEFAULT_KINDS = hpaKindsFor(DEFAULT_GATES);
/** autoscaling/v1 (the stored form). */
export const hpaKind = DEFAULT_KINDS.v1;
/** autoscaling/v2 (1.24's preferred version). */
export const hpaV2Kind = DEFAULT_KINDS.v2;
/** autoscaling/v2beta1: deprecated in 1.22, removed in 1.25. */
export const hpaV2beta1Kind = DEFAULT_KINDS.v2beta1;
/** autoscaling/v2beta2: deprecated in 1.23, removed in 1.26. */
export const hpaV2beta2Kind = DEFAULT_KINDS.v2beta2;
