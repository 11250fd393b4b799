/**
 * What the apps/v1 workload kinds share, after Kubernetes 1.24.17: the pod template's defaults
 * (SetObjectDefaults_<Kind> on spec.template.spec), pod.DropDisabledTemplateFields,
 * ValidatePodTemplateSpec / ValidatePodTemplateSpecForReplicaSet (pkg/apis/core/validation,
 * pkg/apis/apps/validation), the int-or-percent rules, the selector checks, and the printers'
 * container cells.
 */
import type { KubeObject } from '../../api/types.ts';
import type { StatusStrategy } from '../rest/strategy.ts';
import { type FieldError, FieldPath, GoValue, invalid, required } from '../../api/field-errors.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { type LabelSelector, type LabelSelectorObject, labelSelectorFromObject } from '../../selectors/label-selector.ts';
import { defaultPodTemplateSpec, dropDisabledTemplateFields, layoutContainerCells, readOnlyPersistentDisks, templateRestartRules, validatePodTemplateSpec } from '../core/podtemplate.ts';
import { type J, list, obj, s } from '../core/pod-util.ts';
import { goLabelSelector, goStringMap } from '../storage/helpers.ts';
import { semanticEqual } from '../../gocompat/equal.ts';

export { type J, list, obj, s };
export { nonNegative, nonNegativeStatus, num, replicaCounterErrors, statusOf } from '../core/replicas.ts';
import { nonNegative, num, statusOf } from '../core/replicas.ts';
import { templatePath, workloadTemplateWarnings } from '../core/pod-warnings.ts';
export { formatLabels, readOnlyPersistentDisks, templateContainerColumns, templateRestartRules, validatePodTemplateSpec } from '../core/podtemplate.ts';

export const specOf = (o: KubeObject): J => obj(o.spec) ?? ((o as J).spec = {});

/** The spec.template.spec defaults every apps/v1 workload runs (no SetDefaults_Pod). */
export function defaultTemplate(spec: J): void {
  defaultPodTemplateSpec(obj(spec.template) ?? (spec.template = {}));
}

/**
 * pod.DropDisabledTemplateFields(&spec.Template, &oldSpec.Template): an apps/v1 template is a
 * struct, not a pointer, so an update's old template is never nil (an absent one is empty).
 */
export function dropDisabledSpecTemplateFields(spec: J, oldSpec?: J): void {
  dropDisabledTemplateFields(obj(spec.template) ?? (spec.template = {}), oldSpec ? (obj(oldSpec.template) ?? {}) : undefined);
}

/** WarningsOnCreate/WarningsOnUpdate of Deployment, ReplicaSet and StatefulSet: spec.template's pod warnings. */
export const specTemplateWarnings = workloadTemplateWarnings(templatePath('spec', 'template'), (o) => obj(o.spec)?.template);

/** A workload's `/status` strategy: spec is the stored one (`keep`: what else, e.g. a Deployment's labels). */
export function statusKeepingSpec(validateUpdate: StatusStrategy['validateUpdate'], keep?: (o: KubeObject, old: KubeObject) => void): StatusStrategy {
  return {
    prepareForUpdate(o, old) {
      o.spec = structuredClone(old.spec);
      keep?.(o, old);
    },
    validateUpdate,
  };
}

/** %#v of an intstr.IntOrString. */
export const goIntOrString = (v: unknown): GoValue =>
  new GoValue(typeof v === 'string' ? `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}` : `intstr.IntOrString{Type:0, IntVal:${num(v)}, StrVal:""}`);

const PERCENT = /^[0-9]+%$/;
const PERCENT_ERROR = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** ValidatePositiveIntOrPercent. */
export function validatePositiveIntOrPercent(v: unknown, p: FieldPath): FieldError[] {
  if (typeof v === 'string') return PERCENT.test(v) ? [] : [invalid(p, goIntOrString(v), PERCENT_ERROR)];
  return nonNegative(v, p);
}

/** getIntOrPercentValue: a percent's number, else IntOrString.IntValue() (Atoi of a string, 0 when it fails). */
export function intOrPercentValue(v: unknown): number {
  if (typeof v === 'string') {
    if (PERCENT.test(v)) return Number(v.slice(0, -1));
    return /^[+-]?\d+$/.test(v) ? Number(v) : 0;
  }
  return num(v);
}

/** IsNotMoreThan100Percent. */
export function notMoreThan100Percent(v: unknown, p: FieldPath): FieldError[] {
  if (typeof v !== 'string' || !PERCENT.test(v) || Number(v.slice(0, -1)) <= 100) return [];
  return [invalid(p, goIntOrString(v), 'must not be greater than 100%')];
}

/** metav1.LabelSelectorAsSelector, undefined when it fails. */
export function selectorOf(sel: unknown): LabelSelector | undefined {
  try {
    return labelSelectorFromObject(sel === undefined || sel === null ? undefined : (sel as LabelSelectorObject));
  } catch {
    return undefined;
  }
}

/** The v1.LabelSelector a selector error echoes (%#v of the dereferenced pointer). */
export const goSelector = (sel: unknown): GoValue => goLabelSelector(obj(sel) ?? {});

/**
 * The selector rules of Deployment, ReplicaSet and StatefulSet: required, a valid LabelSelector,
 * not empty. Returns the errors and the parsed selector (undefined when it does not parse).
 */
export function validateWorkloadSelector(sel: unknown, p: FieldPath, what: string): { errs: FieldError[]; selector: LabelSelector | undefined } {
  const errs: FieldError[] = [];
  const o = obj(sel);
  if (!o) errs.push(required(p));
  else {
    errs.push(...validateLabelSelector(o, p));
    if (Object.keys(obj(o.matchLabels) ?? {}).length + list(o.matchExpressions).length === 0) errs.push(invalid(p, goSelector(o), `empty selector is invalid for ${what}`));
  }
  return { errs, selector: selectorOf(o) };
}

/** `selector` does not match template `labels` (a non-empty selector only, unless `always`: the DaemonSet rule). */
export function selectorMatchErrors(selector: LabelSelector, template: J, p: FieldPath, always = false): FieldError[] {
  if (selector.empty() && !always) return [];
  const labels = obj(obj(template.metadata)?.labels);
  if (selector.matches(labels as Record<string, string> | undefined)) return [];
  return [invalid(p.child('metadata').child('labels'), new GoValue(goStringMap(labels)), '`selector` does not match template `labels`')];
}

/** ValidatePodTemplateSpecForReplicaSet (Deployment and ReplicaSet). */
export function validateTemplateForReplicaSet(template: unknown, selector: LabelSelector, replicas: number, p: FieldPath): FieldError[] {
  const t = obj(template) ?? {};
  const spec = obj(t.spec) ?? {};
  return [
    ...selectorMatchErrors(selector, t, p),
    ...validatePodTemplateSpec(t, p),
    ...(replicas > 1 ? readOnlyPersistentDisks(list(spec.volumes), p.child('spec').child('volumes')) : []),
    ...templateRestartRules(spec, p.child('spec'), 'ReplicaSet'),
  ];
}

/** ValidateImmutableField on spec.selector. */
export function immutableSelector(next: KubeObject, old: KubeObject): FieldError[] {
  const a = obj(next.spec)?.selector;
  const b = obj(old.spec)?.selector;
  return semanticEqual(a ?? null, b ?? null) ? [] : [invalid(new FieldPath('spec').child('selector'), goSelector(a), 'field is immutable')];
}

/** IsDecremented on status.collisionCount. */
export function collisionCountDecremented(next: KubeObject, old: KubeObject): FieldError[] {
  const n = statusOf(next).collisionCount;
  const o = statusOf(old).collisionCount;
  const has = (v: unknown): v is number => typeof v === 'number';
  if (!has(o) || (has(n) && n >= o)) return [];
  return [invalid(new FieldPath('status').child('collisionCount'), has(n) ? n : 0, 'cannot be decremented')];
}

/** layoutContainerCells of spec.template's containers. */
export function containerCells(o: KubeObject): [string, string] {
  return layoutContainerCells(list(obj(obj(specOf(o).template)?.spec)?.containers));
}

/** metav1.FormatLabelSelector: `<none>` for empty, `<error>` for invalid. */
export function formatLabelSelector(sel: unknown): string {
  const o = obj(sel);
  const parsed = selectorOf(o);
  if (!parsed) return '<error>';
  const text = o ? parsed.toString() : '';
  return text === '' ? '<none>' : text;
}
