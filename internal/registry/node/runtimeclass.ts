/**
 * RuntimeClass (node.k8s.io/v1 and the deprecated v1beta1, cluster-scoped), after Kubernetes
 * 1.24.17: ValidateRuntimeClass / Update (pkg/apis/node/validation), pkg/registry/node/runtimeclass
 * (no defaults or preparation; PUT may create, updates need a resourceVersion) and
 * printRuntimeClass (pkg/printers/internalversion/printers.go).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, invalid } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE, validateLabels } from '../../validation/objectmeta.ts';
import { nameIsDNSLabel } from '../../validation/names.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { validateResourceRequirements } from '../core/pod-resources.ts';
import { validateTolerations } from '../core/pod-validation.ts';
import { isObj } from '../../gocompat/json.ts';
import { goQuote } from '../../gocompat/quote.ts';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** %#v of a core.Toleration (kube's Duplicate value); a set tolerationSeconds prints a pointer. */
function goToleration(t: Record<string, unknown>): GoValue {
  const secs = typeof t.tolerationSeconds === 'number' ? '(*int64)(0xc000000000)' : '(*int64)(nil)';
  return new GoValue(
    `core.Toleration{Key:${goQuote(str(t.key))}, Operator:${goQuote(str(t.operator))}, Value:${goQuote(str(t.value))}, Effect:${goQuote(str(t.effect))}, TolerationSeconds:${secs}}`,
  );
}

/**
 * validateScheduling: nodeSelector labels; tolerations as a Pod's, under kube's doubled path
 * (`scheduling.tolerations.tolerations[i]`), and no two alike in key, operator, value and effect.
 */
function validateScheduling(sch: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (isObj(sch.nodeSelector)) errs.push(...validateLabels(sch.nodeSelector, p.child('nodeSelector')));
  const tp = p.child('tolerations');
  const tols = arr(sch.tolerations).map((t) => (isObj(t) ? t : {}));
  errs.push(...validateTolerations(tols, tp.child('tolerations')));
  const seen = new Set<string>();
  tols.forEach((t, i) => {
    const key = JSON.stringify([str(t.key), str(t.operator), str(t.value), str(t.effect)]);
    if (seen.has(key)) errs.push(duplicate(tp.index(i), goToleration(t)));
    seen.add(key);
  });
  return errs;
}

/** ValidateRuntimeClass minus ObjectMeta: handler a DNS label, overhead quantities, scheduling. */
export function validateRuntimeClass(o: KubeObject): FieldError[] {
  const handler = str(o.handler);
  const errs = nameIsDNSLabel(handler, false).map((m) => invalid(new FieldPath('handler'), handler, m));
  if (isObj(o.overhead)) errs.push(...validateResourceRequirements({ limits: o.overhead.podFixed }, new FieldPath('overhead')));
  if (isObj(o.scheduling)) errs.push(...validateScheduling(o.scheduling, new FieldPath('scheduling')));
  return errs;
}

/** The strategy's ValidateUpdate: ValidateRuntimeClass, then the immutable handler. */
export function validateRuntimeClassUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = validateRuntimeClass(n);
  if (str(n.handler) !== str(o.handler)) errs.push(invalid(new FieldPath('handler'), str(n.handler), FIELD_IMMUTABLE));
  return errs;
}

export const runtimeClassStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  validate: validateRuntimeClass,
  validateUpdate: validateRuntimeClassUpdate,
};

/** printRuntimeClass (kube describes Handler with ObjectMeta's doc of a field it lacks: ''). */
export const runtimeClassTable: TableConvertor = {
  columns: [NAME_COLUMN, { name: 'Handler', type: 'string', description: '', priority: 0 }, AGE_COLUMN],
  cells: (o) => [o.metadata.name ?? '', str(o.handler), creationTimestampCell(o)],
};

/** node.k8s.io/v1 runtimeclasses; delete answers a Status (the store's default). */
export const runtimeClassKind: KindDescriptor = {
  group: 'node.k8s.io',
  versions: ['v1'],
  resource: 'runtimeclasses',
  singular: 'runtimeclass',
  kind: 'RuntimeClass',
  listKind: 'RuntimeClassList',
  namespaced: false,
  shortNames: [],
  strategy: runtimeClassStrategy,
  table: runtimeClassTable,
  deleteReturns: 'Status',
};

/** The v1 object in v1beta1 form: the two versions have the same fields, only apiVersion differs. */
const withApiVersion = (apiVersion: string) => (o: KubeObject): KubeObject => ({ ...o, apiVersion });

/**
 * node.k8s.io/v1beta1 RuntimeClass as 1.24 serves it: deprecated (removed in 1.25), the same
 * stored objects as v1 (the preferred version), converted without loss both ways, kube's Warning.
 */
export const runtimeClassV1beta1Kind: KindDescriptor = {
  ...runtimeClassKind,
  versions: ['v1beta1'],
  // kube's v1beta1 types name no replacement (no prerelease-lifecycle-gen replacement tag).
  deprecationWarning: 'node.k8s.io/v1beta1 RuntimeClass is deprecated in v1.22+, unavailable in v1.25+',
  removedRelease: '1.25',
  storedAs: { group: 'node.k8s.io', version: 'v1', kind: 'RuntimeClass', resource: 'runtimeclasses', fromStorage: withApiVersion('node.k8s.io/v1beta1'), toStorage: withApiVersion('node.k8s.io/v1') },
};
