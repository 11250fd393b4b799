/**
 * PodDisruptionBudget (policy/v1, and the deprecated policy/v1beta1 view of the same objects),
 * after Kubernetes 1.24.17: pkg/registry/policy/poddisruptionbudget (status reset and generation 1
 * on create, generation bumped on spec change, /status keeps the spec), ValidatePodDisruptionBudget
 * and ValidatePodDisruptionBudgetStatusUpdate (pkg/apis/policy/validation; v1beta1's /status skips
 * the non-negative counters), printPodDisruptionBudget, and the conversions of
 * pkg/apis/policy/{v1,v1beta1}/conversion.go: the empty-selector difference (v1beta1's `{}` selects
 * no Pod, v1's selects every Pod), stored in the v1 form with the label
 * `pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match`.
 *
 * Worked example: a v1beta1 create with `selector: {}` is stored (and read through v1) as
 * `selector: {matchExpressions: [{key: pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match,
 * operator: Exists}]}` and read through v1beta1 as `{}` again; a v1 `selector: {}` reads through
 * v1beta1 as the DoesNotExist expression on that label.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid } from '../../api/field-errors.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { isObj } from '../../gocompat/json.ts';
import { nonNegative, notMoreThan100Percent, num, validatePositiveIntOrPercent } from '../apps/workload.ts';
import { validateConditions } from '../../validation/conditions.ts';

/** policy.PDBV1beta1Label. */
export const PDB_V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';
const expr = (operator: string) => ({ matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator }] });
/** The stored (v1/internal) selector of a v1beta1 `{}`: matches no Pod (NonV1beta1MatchNoneSelector). */
const MATCH_NONE_STORED = expr('Exists');
/** v1beta1's form of the stored `{}` (V1beta1MatchAllSelector): matches every Pod. */
const MATCH_ALL_V1BETA1 = expr('DoesNotExist');

type J = Record<string, unknown>;
const specOf = (o: KubeObject): J => (isObj(o.spec) ? o.spec : {});
const has = (v: unknown): boolean => v !== undefined && v !== null;

/**
 * apiequality.Semantic.DeepEqual of a selector with one of the special selectors: a nil and an
 * empty map or list are equal there (`{matchLabels: {}}` is the empty selector).
 */
function sameSelector(sel: unknown, special: J): boolean {
  if (!isObj(sel)) return false;
  const norm = (x: J): J => {
    const out: J = {};
    if (isObj(x.matchLabels) && Object.keys(x.matchLabels).length) out.matchLabels = x.matchLabels;
    if (Array.isArray(x.matchExpressions) && x.matchExpressions.length) out.matchExpressions = x.matchExpressions;
    return out;
  };
  return semanticEqual(norm(sel), norm(special));
}

/** policy.StripPDBV1beta1Label: the label's expressions never mix with a user's selector. */
function stripLabel(spec: J): void {
  const sel = spec.selector;
  if (!isObj(sel) || !Array.isArray(sel.matchExpressions)) return;
  const kept = sel.matchExpressions.filter((e) => !(isObj(e) && e.key === PDB_V1BETA1_LABEL));
  if (kept.length === sel.matchExpressions.length) return;
  if (kept.length) sel.matchExpressions = kept;
  else delete sel.matchExpressions;
}

/** Convert_v1_PodDisruptionBudget_To_policy_PodDisruptionBudget: the two special selectors kept, the label stripped from others. */
function fromV1(o: KubeObject): void {
  const spec = specOf(o);
  if (sameSelector(spec.selector, MATCH_NONE_STORED) || sameSelector(spec.selector, {})) return;
  stripLabel(spec);
}

/** The stored object (v1 form) as policy/v1beta1 serves it. */
export function toV1beta1(stored: KubeObject): KubeObject {
  const out = structuredClone(stored);
  out.apiVersion = 'policy/v1beta1';
  const spec = specOf(out);
  if (sameSelector(spec.selector, MATCH_NONE_STORED)) spec.selector = {};
  else if (sameSelector(spec.selector, {})) spec.selector = structuredClone(MATCH_ALL_V1BETA1);
  return out;
}

/** A policy/v1beta1 object in the stored (v1) form. */
export function fromV1beta1(served: KubeObject): KubeObject {
  const out = structuredClone(served);
  out.apiVersion = 'policy/v1';
  const spec = specOf(out);
  if (sameSelector(spec.selector, {})) spec.selector = structuredClone(MATCH_NONE_STORED);
  else if (sameSelector(spec.selector, MATCH_ALL_V1BETA1)) spec.selector = {};
  else stripLabel(spec);
  return out;
}

/** %#v of a *T field of the spec: nil or a pointer (the address is not kube's to reproduce). */
const goPtr = (type: string, v: unknown): string => `(*${type})(${has(v) ? '0xc000000000' : 'nil'})`;

/** ValidatePodDisruptionBudgetSpec. */
export function validatePodDisruptionBudget(o: KubeObject): FieldError[] {
  const spec = specOf(o);
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) {
    const go = `policy.PodDisruptionBudgetSpec{MinAvailable:${goPtr('intstr.IntOrString', spec.minAvailable)}, Selector:${goPtr('v1.LabelSelector', spec.selector)}, MaxUnavailable:${goPtr('intstr.IntOrString', spec.maxUnavailable)}}`;
    errs.push(invalid(p, new GoValue(go), 'minAvailable and maxUnavailable cannot be both set'));
  }
  for (const f of ['minAvailable', 'maxUnavailable']) {
    if (!has(spec[f])) continue;
    errs.push(...validatePositiveIntOrPercent(spec[f], p.child(f)), ...notMoreThan100Percent(spec[f], p.child(f)));
  }
  errs.push(...validateLabelSelector(spec.selector, p.child('selector')));
  return errs;
}

/** The status a create starts with: PodDisruptionBudgetStatus{} (its counters are not omitempty). */
const emptyStatus = (): J => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });

function strategyFor(defaults?: (o: KubeObject) => void): Strategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaults,
    // Generation: 1 on create, bumped on a spec change (the store's, hasGeneration).
    prepareForCreate(o) {
      o.status = emptyStatus();
    },
    prepareForUpdate(n, old) {
      n.status = structuredClone(old.status ?? emptyStatus());
    },
    validate: validatePodDisruptionBudget,
    validateUpdate: validatePodDisruptionBudget,
  };
}

/** The /status strategy: spec kept; v1 also refuses negative counters. */
function statusStrategyFor(counters: boolean): StatusStrategy {
  return {
    prepareForUpdate(n, old) {
      if (old.spec === undefined) delete n.spec;
      else n.spec = structuredClone(old.spec);
    },
    validateUpdate(n) {
      const st = isObj(n.status) ? n.status : {};
      const p = new FieldPath('status');
      const errs = validateConditions(st.conditions, p.child('conditions'));
      if (counters) for (const f of ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods']) errs.push(...nonNegative(st[f], p.child(f)));
      return errs;
    },
  };
}

/**
 * apimeta.SetStatusCondition of the DisruptionAllowed condition on a budget's status (observed
 * generation: the status's). Without `want`: pdbhelper.UpdateDisruptionAllowedCondition (True /
 * SufficientPods while disruptionsAllowed > 0, else False / InsufficientPods). `now` is RFC 3339.
 */
export function setDisruptionAllowedCondition(status: J, now: string, want?: { status: string; reason: string; message: string }): void {
  const allowed = num(status.disruptionsAllowed) > 0;
  const w = want ?? { status: allowed ? 'True' : 'False', reason: allowed ? 'SufficientPods' : 'InsufficientPods', message: '' };
  const next = { ...w, observedGeneration: num(status.observedGeneration) };
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as J[];
  const existing = conditions.find((c) => c.type === 'DisruptionAllowed');
  if (!existing) conditions.push({ type: 'DisruptionAllowed', ...next, lastTransitionTime: now });
  else {
    if (existing.status !== w.status) existing.lastTransitionTime = now;
    Object.assign(existing, next);
  }
  status.conditions = conditions;
}

/** IntOrString.String(), or N/A. */
const intOrString = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : 'N/A');

/** printPodDisruptionBudget. */
export const podDisruptionBudgetTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Min Available', type: 'string', description: 'The minimum number of pods that must be available.', priority: 0 },
    { name: 'Max Unavailable', type: 'string', description: 'The maximum number of pods that may be unavailable.', priority: 0 },
    { name: 'Allowed Disruptions', type: 'integer', description: 'Calculated number of pods that may be disrupted at this time.', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => {
    const spec = specOf(o);
    return [o.metadata.name ?? '', intOrString(spec.minAvailable), intOrString(spec.maxUnavailable), num(isObj(o.status) ? o.status.disruptionsAllowed : 0), creationTimestampCell(o)];
  },
};

/** policy/v1 poddisruptionbudgets (short name pdb), with /status; delete answers a Status. */
export const podDisruptionBudgetKind: KindDescriptor = {
  group: 'policy',
  versions: ['v1'],
  resource: 'poddisruptionbudgets',
  singular: 'poddisruptionbudget',
  kind: 'PodDisruptionBudget',
  listKind: 'PodDisruptionBudgetList',
  namespaced: true,
  shortNames: ['pdb'],
  strategy: strategyFor(fromV1),
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategyFor(true) }],
  table: podDisruptionBudgetTable,
  deleteReturns: 'Status',
  hasGeneration: true,
  // kube 1.24 encodes PodDisruptionBudgets in etcd as policy/v1beta1 (the group's storage version
  // priority): discovery's storageVersionHash names it. Stored here in the v1 form, which reads
  // back the same through both versions.
  storageVersion: 'v1beta1',
};

/** policy/v1beta1 PodDisruptionBudget: deprecated (removed in 1.25), the v1 objects converted both ways. */
export const podDisruptionBudgetV1beta1Kind: KindDescriptor = {
  ...podDisruptionBudgetKind,
  versions: ['v1beta1'],
  strategy: strategyFor(),
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategyFor(false) }],
  deprecationWarning: 'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget',
  removedRelease: '1.25',
  storedAs: { group: 'policy', version: 'v1', kind: 'PodDisruptionBudget', resource: 'poddisruptionbudgets', fromStorage: toV1beta1, toStorage: fromV1beta1 },
};
