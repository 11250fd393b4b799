/**
 * HorizontalPodAutoscaler conversions, after Kubernetes 1.24.17's pkg/apis/autoscaling/{v1,v2,
 * v2beta1,v2beta2}/conversion.go. Every served version converts to and from the internal type,
 * which here is the autoscaling/v2 JSON shape (the internal Go type has the same fields; an absent
 * field is Go's nil). 1.24 stores HPAs as autoscaling/v1 (the scheme's first version priority),
 * so what v1 cannot hold travels in annotations:
 *   - `autoscaling.alpha.kubernetes.io/metrics`: spec.metrics other than CPU utilization, as a
 *     JSON list of v1 MetricSpecs (the v2beta1 shape);
 *   - `…/current-metrics`: every status.currentMetrics entry, as v1 MetricStatuses;
 *   - `…/conditions`: status.conditions;
 *   - `…/behavior`: spec.behavior as encoding/json writes the internal Go struct (Go field names).
 * v2beta1 (no behavior field) keeps behavior in the same annotation. Reading v1 parses them back
 * (a value that does not parse is ignored), puts the CPU target after the other metrics and, with
 * no metric at all, gives the 80% CPU default; every conversion into a version drops the four
 * annotations first. The quirks are kube's (an Object metric's absent value becomes "0" through
 * v1 or v2beta1, a second CPU utilization metric is lost in v1).
 */
import type { KubeObject } from '../../api/types.ts';
import { canonicalObject } from '../../decode/body.ts';
import { goJson, isObj } from '../../gocompat/json.ts';

type J = Record<string, unknown>;

export const GROUP = 'autoscaling';
export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP = [METRIC_SPECS_ANNOTATION, BEHAVIOR_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION];

/** autoscaling.DefaultCPUUtilization */
export const DEFAULT_CPU_UTILIZATION = 80;

const obj = (v: unknown): J | undefined => (isObj(v) ? v : undefined);
const list = (v: unknown): J[] | undefined => (Array.isArray(v) ? v.map((x) => obj(x) ?? {}) : undefined);
/** A copy of `o` without its undefined members (what Go's nil leaves out). */
const clean = (o: J): J => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
/** A non-pointer Quantity field copied from a pointer: nil is the zero Quantity, "0". */
const quantity = (v: unknown): unknown => v ?? '0';

/** DropRoundTripHorizontalPodAutoscalerAnnotations on a copy of `meta`. */
function dropRoundTrip(meta: unknown): J {
  const m = { ...(obj(meta) ?? {}) };
  const ann = obj(m.annotations);
  if (ann && ROUND_TRIP.some((k) => k in ann)) {
    const rest = { ...ann };
    for (const k of ROUND_TRIP) delete rest[k];
    // An empty map is left out (omitempty).
    if (Object.keys(rest).length) m.annotations = rest;
    else delete m.annotations;
  }
  return m;
}

// ------------------------------------------------------------ metrics, v2beta1 (and v1) shape

const ref = (r: unknown): J => {
  const o = obj(r) ?? {};
  return clean({ kind: o.kind ?? '', name: o.name ?? '', apiVersion: o.apiVersion });
};
const identifier = (name: unknown, selector: unknown): J => clean({ name: name ?? '', selector });

/**
 * A v2beta1/v1 MetricSpec → internal. `container`: v1 copies a ContainerResource's container,
 * v2beta1's conversion forgets it (kube's).
 */
function metricSpecFromBeta1(m: J, container: boolean): J {
  const out: J = { type: m.type ?? '' };
  const o = obj(m.object);
  if (o) {
    out.object = {
      describedObject: ref(o.target),
      target: clean({ type: o.averageValue == null ? 'Value' : 'AverageValue', value: quantity(o.targetValue), averageValue: o.averageValue ?? undefined }),
      metric: identifier(o.metricName, o.selector ?? undefined),
    };
  }
  const p = obj(m.pods);
  if (p) out.pods = { metric: identifier(p.metricName, p.selector ?? undefined), target: { type: 'AverageValue', averageValue: quantity(p.targetAverageValue) } };
  const resourceTarget = (r: J): J =>
    clean({ type: r.targetAverageUtilization == null ? 'AverageValue' : 'Utilization', averageValue: r.targetAverageValue ?? undefined, averageUtilization: r.targetAverageUtilization ?? undefined });
  const r = obj(m.resource);
  if (r) out.resource = { name: r.name ?? '', target: resourceTarget(r) };
  const c = obj(m.containerResource);
  if (c) out.containerResource = clean({ name: c.name ?? '', target: resourceTarget(c), container: container ? c.container ?? '' : '' });
  const e = obj(m.external);
  if (e) {
    out.external = {
      metric: identifier(e.metricName, e.metricSelector ?? undefined),
      target: clean({ type: e.targetValue == null ? 'AverageValue' : 'Value', value: e.targetValue ?? undefined, averageValue: e.targetAverageValue ?? undefined }),
    };
  }
  return out;
}

/** An internal MetricSpec → v2beta1/v1. */
function metricSpecToBeta1(m: J, container: boolean): J {
  const out: J = { type: m.type ?? '' };
  const o = obj(m.object);
  if (o) {
    const t = obj(o.target) ?? {};
    const id = obj(o.metric) ?? {};
    out.object = clean({ target: ref(o.describedObject), metricName: id.name ?? '', targetValue: quantity(t.value), selector: id.selector ?? undefined, averageValue: t.averageValue ?? undefined });
  }
  const p = obj(m.pods);
  if (p) {
    const id = obj(p.metric) ?? {};
    out.pods = clean({ metricName: id.name ?? '', targetAverageValue: quantity(obj(p.target)?.averageValue), selector: id.selector ?? undefined });
  }
  const resource = (r: J): J => {
    const t = obj(r.target) ?? {};
    return clean({ name: r.name ?? '', targetAverageUtilization: t.averageUtilization ?? undefined, targetAverageValue: t.averageValue ?? undefined });
  };
  const r = obj(m.resource);
  if (r) out.resource = resource(r);
  const c = obj(m.containerResource);
  if (c) out.containerResource = { ...resource(c), container: container ? c.container ?? '' : '' };
  const e = obj(m.external);
  if (e) {
    const t = obj(e.target) ?? {};
    const id = obj(e.metric) ?? {};
    out.external = clean({ metricName: id.name ?? '', metricSelector: id.selector ?? undefined, targetValue: t.value ?? undefined, targetAverageValue: t.averageValue ?? undefined });
  }
  return out;
}

/** A v2beta1/v1 MetricStatus → internal. */
function metricStatusFromBeta1(m: J): J {
  const out: J = { type: m.type ?? '' };
  const o = obj(m.object);
  if (o) {
    out.object = {
      metric: identifier(o.metricName, o.selector ?? undefined),
      current: clean({ value: quantity(o.currentValue), averageValue: o.averageValue ?? undefined }),
      describedObject: ref(o.target),
    };
  }
  const p = obj(m.pods);
  if (p) out.pods = { metric: identifier(p.metricName, p.selector ?? undefined), current: { averageValue: quantity(p.currentAverageValue) } };
  const current = (r: J): J => clean({ averageValue: quantity(r.currentAverageValue), averageUtilization: r.currentAverageUtilization ?? undefined });
  const r = obj(m.resource);
  if (r) out.resource = { name: r.name ?? '', current: current(r) };
  const c = obj(m.containerResource);
  if (c) out.containerResource = { name: c.name ?? '', current: current(c), container: c.container ?? '' };
  const e = obj(m.external);
  if (e) out.external = { metric: identifier(e.metricName, e.metricSelector ?? undefined), current: clean({ value: quantity(e.currentValue), averageValue: e.currentAverageValue ?? undefined }) };
  return out;
}

/** An internal MetricStatus → v2beta1/v1. */
function metricStatusToBeta1(m: J): J {
  const out: J = { type: m.type ?? '' };
  const o = obj(m.object);
  if (o) {
    const cur = obj(o.current) ?? {};
    const id = obj(o.metric) ?? {};
    out.object = clean({ target: ref(o.describedObject), metricName: id.name ?? '', currentValue: quantity(cur.value), selector: id.selector ?? undefined, averageValue: cur.averageValue ?? undefined });
  }
  const p = obj(m.pods);
  if (p) {
    const id = obj(p.metric) ?? {};
    out.pods = clean({ metricName: id.name ?? '', currentAverageValue: quantity(obj(p.current)?.averageValue), selector: id.selector ?? undefined });
  }
  const resource = (r: J): J => {
    const cur = obj(r.current) ?? {};
    return clean({ name: r.name ?? '', currentAverageUtilization: cur.averageUtilization ?? undefined, currentAverageValue: quantity(cur.averageValue) });
  };
  const r = obj(m.resource);
  if (r) out.resource = resource(r);
  const c = obj(m.containerResource);
  if (c) out.containerResource = { ...resource(c), container: c.container ?? '' };
  const e = obj(m.external);
  if (e) {
    const cur = obj(e.current) ?? {};
    const id = obj(e.metric) ?? {};
    out.external = clean({ metricName: id.name ?? '', metricSelector: id.selector ?? undefined, currentValue: quantity(cur.value), currentAverageValue: cur.averageValue ?? undefined });
  }
  return out;
}

// ------------------------------------------------------------ annotations

/**
 * A value in Go's encoding of a v2beta1 (= v1 annotation) field, through the v2beta1 schema:
 * `put` places it in an HPA, `take` reads it back. Throws when the value does not decode (a
 * type Go's json.Unmarshal would refuse).
 */
function viaBeta1Schema(value: unknown, put: (v: unknown) => J, take: (hpa: J) => unknown): unknown {
  const hpa = canonicalObject({ apiVersion: 'autoscaling/v2beta1', kind: 'HorizontalPodAutoscaler', metadata: {}, ...put(value) }, { group: GROUP, version: 'v2beta1', kind: 'HorizontalPodAutoscaler' });
  return take(hpa);
}
const specMetrics = { put: (v: unknown): J => ({ spec: { metrics: v } }), take: (h: J): unknown => obj(h.spec)?.metrics };
const statusMetrics = { put: (v: unknown): J => ({ status: { currentMetrics: v } }), take: (h: J): unknown => obj(h.status)?.currentMetrics };
const statusConditions = { put: (v: unknown): J => ({ status: { conditions: v } }), take: (h: J): unknown => obj(h.status)?.conditions };

/** json.Marshal of a v1 list (metrics, current metrics or conditions), fields in Go's order. */
function encodeList(items: J[], via: typeof specMetrics): string {
  const out = viaBeta1Schema(items, via.put, via.take) as J[];
  // A condition's lastTransitionTime is a struct: omitempty keeps it (`null` when zero).
  if (via === statusConditions) for (const c of out) if (!('lastTransitionTime' in c)) insertAfter(c, 'status', 'lastTransitionTime', null);
  return goJson(out);
}

function insertAfter(o: J, after: string, key: string, value: unknown): void {
  const entries = Object.entries(o);
  const i = entries.findIndex(([k]) => k === after);
  entries.splice(i + 1, 0, [key, value]);
  for (const k of Object.keys(o)) delete o[k];
  Object.assign(o, Object.fromEntries(entries));
}

/**
 * json.Unmarshal of an annotation into a v1 list: undefined when it does not parse (kube then
 * ignores the annotation); `null` decodes to an empty list.
 */
function decodeList(text: string, via: typeof specMetrics): J[] | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (v === null) return [];
  if (!Array.isArray(v)) return undefined;
  try {
    return (viaBeta1Schema(v, via.put, via.take) as J[] | undefined) ?? [];
  } catch {
    return undefined;
  }
}

/** Go field names of the internal behavior types, as encoding/json writes them (no json tags). */
function encodeBehavior(b: J): string {
  const rules = (r: unknown): J | null => {
    const o = obj(r);
    if (!o) return null;
    const policies = list(o.policies);
    return {
      StabilizationWindowSeconds: o.stabilizationWindowSeconds ?? null,
      SelectPolicy: o.selectPolicy ?? null,
      Policies: policies ? policies.map((p) => ({ Type: p.type ?? '', Value: p.value ?? 0, PeriodSeconds: p.periodSeconds ?? 0 })) : null,
    };
  };
  return goJson({ ScaleUp: rules(b.scaleUp), ScaleDown: rules(b.scaleDown) });
}

/** encoding/json matches field names case-insensitively when no exact match exists. */
function field(o: J, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  const k = Object.keys(o).find((x) => x.toLowerCase() === lower);
  return k === undefined ? undefined : o[k];
}

class Unparsable extends Error {}
const int32 = (v: unknown): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw new Unparsable();
  return v;
};
const goString = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Unparsable();
  return v;
};

/** json.Unmarshal of the behavior annotation into the internal type; undefined when it fails or is empty. */
function decodeBehavior(text: string): J | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (v !== null && !isObj(v)) return undefined;
  try {
    const rules = (r: unknown): J | undefined => {
      if (r === undefined || r === null) return undefined;
      if (!isObj(r)) throw new Unparsable();
      const policies = field(r, 'Policies');
      if (policies !== undefined && policies !== null && !Array.isArray(policies)) throw new Unparsable();
      return clean({
        stabilizationWindowSeconds: int32(field(r, 'StabilizationWindowSeconds')),
        selectPolicy: goString(field(r, 'SelectPolicy')),
        policies: Array.isArray(policies)
          ? policies.map((p) => {
              if (p === null) return { type: '', value: 0, periodSeconds: 0 };
              if (!isObj(p)) throw new Unparsable();
              return { type: goString(field(p, 'Type')) ?? '', value: int32(field(p, 'Value')) ?? 0, periodSeconds: int32(field(p, 'PeriodSeconds')) ?? 0 };
            })
          : undefined,
      });
    };
    const o = v ?? {};
    const b = clean({ scaleUp: rules(field(o, 'ScaleUp')), scaleDown: rules(field(o, 'ScaleDown')) });
    return Object.keys(b).length ? b : undefined;
  } catch (e) {
    if (e instanceof Unparsable) return undefined;
    throw e;
  }
}

// ------------------------------------------------------------ whole objects

/** The internal HPA's parts (v2 shape). */
const specOf = (o: J): J => obj(o.spec) ?? {};
const statusOf = (o: J): J => obj(o.status) ?? {};

const isCPUUtilization = (m: J): boolean => {
  const r = obj(m.resource);
  return m.type === 'Resource' && !!r && r.name === 'cpu' && obj(r.target)?.averageUtilization != null;
};

const cpuUtilizationMetric = (utilization: unknown): J => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } });

/** Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. */
export function v1ToInternal(o: KubeObject): KubeObject {
  const spec = specOf(o);
  const st = statusOf(o);
  const ann = obj(o.metadata.annotations) ?? {};
  let metrics: J[] | undefined = spec.targetCPUUtilizationPercentage != null ? [cpuUtilizationMetric(spec.targetCPUUtilizationPercentage)] : undefined;
  const specsText = ann[METRIC_SPECS_ANNOTATION];
  if (typeof specsText === 'string') {
    const others = decodeList(specsText, specMetrics);
    if (others) metrics = [...others.map((m) => metricSpecFromBeta1(m, true)), ...(metrics ?? [])];
  }
  let behavior: J | undefined;
  if (typeof ann[BEHAVIOR_ANNOTATION] === 'string') behavior = decodeBehavior(ann[BEHAVIOR_ANNOTATION]);
  let currentMetrics: J[] | undefined = st.currentCPUUtilizationPercentage != null ? [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: st.currentCPUUtilizationPercentage } } }] : undefined;
  if (typeof ann[METRIC_STATUSES_ANNOTATION] === 'string') {
    const cur = decodeList(ann[METRIC_STATUSES_ANNOTATION], statusMetrics);
    if (cur) currentMetrics = cur.map(metricStatusFromBeta1);
  }
  if (!metrics?.length) metrics = [cpuUtilizationMetric(DEFAULT_CPU_UTILIZATION)];
  let conditions: J[] | undefined;
  if (typeof ann[CONDITIONS_ANNOTATION] === 'string') conditions = decodeList(ann[CONDITIONS_ANNOTATION], statusConditions);
  return {
    ...o,
    metadata: dropRoundTrip(o.metadata),
    spec: clean({ scaleTargetRef: spec.scaleTargetRef ?? {}, minReplicas: spec.minReplicas ?? undefined, maxReplicas: spec.maxReplicas ?? 0, metrics, behavior }),
    status: clean({
      observedGeneration: st.observedGeneration ?? undefined,
      lastScaleTime: st.lastScaleTime ?? undefined,
      currentReplicas: st.currentReplicas ?? 0,
      desiredReplicas: st.desiredReplicas ?? 0,
      currentMetrics,
      conditions,
    }),
  } as KubeObject;
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler. */
export function internalToV1(o: KubeObject): KubeObject {
  const spec = specOf(o);
  const st = statusOf(o);
  const metrics = list(spec.metrics) ?? [];
  const cpu = metrics.find(isCPUUtilization);
  let currentCPU: unknown;
  const currentMetrics = list(st.currentMetrics) ?? [];
  for (const m of currentMetrics) {
    const r = obj(m.resource);
    if (m.type === 'Resource' && r && r.name === 'cpu' && obj(r.current)?.averageUtilization != null) currentCPU = obj(r.current)!.averageUtilization;
  }
  const meta = dropRoundTrip(o.metadata);
  const added: J = {};
  const others = metrics.filter((m) => !isCPUUtilization(m));
  if (others.length) added[METRIC_SPECS_ANNOTATION] = encodeList(others.map((m) => metricSpecToBeta1(m, true)), specMetrics);
  if (currentMetrics.length) added[METRIC_STATUSES_ANNOTATION] = encodeList(currentMetrics.map(metricStatusToBeta1), statusMetrics);
  if (obj(spec.behavior)) added[BEHAVIOR_ANNOTATION] = encodeBehavior(obj(spec.behavior)!);
  const conditions = list(st.conditions) ?? [];
  if (conditions.length) added[CONDITIONS_ANNOTATION] = encodeList(conditions, statusConditions);
  if (Object.keys(added).length) meta.annotations = { ...(obj(meta.annotations) ?? {}), ...added };
  return {
    ...o,
    apiVersion: `${GROUP}/v1`,
    metadata: meta,
    spec: clean({
      scaleTargetRef: spec.scaleTargetRef ?? {},
      minReplicas: spec.minReplicas ?? undefined,
      maxReplicas: spec.maxReplicas ?? 0,
      targetCPUUtilizationPercentage: cpu ? obj(obj(cpu.resource)!.target)!.averageUtilization : undefined,
    }),
    status: clean({
      observedGeneration: st.observedGeneration ?? undefined,
      lastScaleTime: st.lastScaleTime ?? undefined,
      currentReplicas: st.currentReplicas ?? 0,
      desiredReplicas: st.desiredReplicas ?? 0,
      currentCPUUtilizationPercentage: currentCPU,
    }),
  } as KubeObject;
}

/** Convert_v2beta1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler. */
export function v2beta1ToInternal(o: KubeObject): KubeObject {
  const spec = specOf(o);
  const st = statusOf(o);
  const ann = obj(o.metadata.annotations) ?? {};
  const behavior = typeof ann[BEHAVIOR_ANNOTATION] === 'string' ? decodeBehavior(ann[BEHAVIOR_ANNOTATION]) : undefined;
  return {
    ...o,
    metadata: dropRoundTrip(o.metadata),
    spec: clean({ ...spec, metrics: list(spec.metrics)?.map((m) => metricSpecFromBeta1(m, false)), behavior }),
    status: clean({ ...st, currentMetrics: list(st.currentMetrics)?.map(metricStatusFromBeta1) }),
  } as KubeObject;
}

/** Convert_autoscaling_HorizontalPodAutoscaler_To_v2beta1_HorizontalPodAutoscaler. */
export function internalToV2beta1(o: KubeObject): KubeObject {
  const { behavior, ...spec } = specOf(o);
  const st = statusOf(o);
  const meta = dropRoundTrip(o.metadata);
  if (obj(behavior)) meta.annotations = { ...(obj(meta.annotations) ?? {}), [BEHAVIOR_ANNOTATION]: encodeBehavior(obj(behavior)!) };
  return {
    ...o,
    apiVersion: `${GROUP}/v2beta1`,
    metadata: meta,
    spec: clean({ ...spec, metrics: list(spec.metrics)?.map((m) => metricSpecToBeta1(m, false)) }),
    status: clean({ ...st, currentMetrics: list(st.currentMetrics)?.map(metricStatusToBeta1) }),
  } as KubeObject;
}

/** v2 and v2beta2 have the internal type's fields: only the round-trip annotations go. */
const sameShape = (version: string) => (o: KubeObject): KubeObject => ({ ...o, apiVersion: `${GROUP}/${version}`, metadata: dropRoundTrip(o.metadata) }) as KubeObject;

/** Served version → internal, and back. */
export const TO_INTERNAL: Record<string, (o: KubeObject) => KubeObject> = {
  v1: v1ToInternal,
  v2: sameShape('v2'),
  v2beta2: sameShape('v2beta2'),
  v2beta1: v2beta1ToInternal,
};
export const FROM_INTERNAL: Record<string, (o: KubeObject) => KubeObject> = {
  v1: internalToV1,
  v2: sameShape('v2'),
  v2beta2: sameShape('v2beta2'),
  v2beta1: internalToV2beta1,
};

/** The version of an HPA's apiVersion (`autoscaling/v2` → v2). */
export const versionOf = (o: KubeObject): string => String(o.apiVersion ?? '').slice(GROUP.length + 1);

/** Any served version → internal. */
export const toInternal = (o: KubeObject): KubeObject => (TO_INTERNAL[versionOf(o)] ?? sameShape('v2'))(o);

/** `o` (any served version) as `version` would serve it, in Go's encoding. */
export function convertTo(o: KubeObject, version: string): KubeObject {
  const out = FROM_INTERNAL[version]!(toInternal(o));
  return canonicalObject(out, { group: GROUP, version, kind: 'HorizontalPodAutoscaler' });
}
