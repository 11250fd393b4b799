/**
 * rbac.authorization.k8s.io/v1 validation and defaulting shared by the four RBAC kinds
 * (pkg/apis/rbac/validation, pkg/apis/rbac/v1/defaults.go of Kubernetes 1.24). ObjectMeta is
 * validated by the store with the RBAC name rule (a path segment, KindDescriptor.nameFormat).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, notSupported, required } from '../../api/field-errors.ts';
import { nameIsDNSSubdomain, nameIsPathSegment } from '../../validation/names.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isObj } from '../../gocompat/json.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** SetDefaults_RoleBinding / _ClusterRoleBinding and SetDefaults_Subject. */
export function defaultBinding(obj: KubeObject): void {
  if (isObj(obj.roleRef) && !obj.roleRef.apiGroup) obj.roleRef.apiGroup = RBAC_GROUP;
  for (const s of list(obj.subjects)) {
    if (!isObj(s) || s.apiGroup) continue;
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
    else if (s.kind === 'ServiceAccount') s.apiGroup = '';
  }
}

/** ValidatePolicyRule. */
export function validatePolicyRule(rule: unknown, namespaced: boolean, p: FieldPath): FieldError[] {
  const r = isObj(rule) ? rule : {};
  const errs: FieldError[] = [];
  if (list(r.verbs).length === 0) errs.push(required(p.child('verbs'), 'verbs must contain at least one value'));
  if (list(r.nonResourceURLs).length > 0) {
    if (namespaced) errs.push(invalid(p.child('nonResourceURLs'), r.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (list(r.apiGroups).length > 0 || list(r.resources).length > 0 || list(r.resourceNames).length > 0) {
      errs.push(invalid(p.child('nonResourceURLs'), r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (list(r.apiGroups).length === 0) errs.push(required(p.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (list(r.resources).length === 0) errs.push(required(p.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

/** The rules of a Role / ClusterRole. */
export const validateRules = (obj: KubeObject, namespaced: boolean): FieldError[] =>
  list(obj.rules).flatMap((r, i) => validatePolicyRule(r, namespaced, new FieldPath('rules').index(i)));

/** ClusterRole's aggregationRule. */
export function validateAggregationRule(obj: KubeObject): FieldError[] {
  if (obj.aggregationRule === undefined || obj.aggregationRule === null) return [];
  const selectors = list(isObj(obj.aggregationRule) ? obj.aggregationRule.clusterRoleSelectors : undefined);
  const path = new FieldPath('aggregationRule').child('clusterRoleSelectors');
  const errs: FieldError[] = [];
  if (selectors.length === 0) errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, path.index(i))));
  return errs;
}

/** The roleRef and subjects of a binding (ValidateRoleBinding / ValidateClusterRoleBinding). */
export function validateBinding(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = isObj(obj.roleRef) ? obj.roleRef : {};
  const refPath = new FieldPath('roleRef');
  if (str(ref.apiGroup) !== RBAC_GROUP) errs.push(notSupported(refPath.child('apiGroup'), str(ref.apiGroup), [RBAC_GROUP]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(str(ref.kind))) errs.push(notSupported(refPath.child('kind'), str(ref.kind), kinds));
  if (!str(ref.name)) errs.push(required(refPath.child('name')));
  else for (const msg of nameIsPathSegment(str(ref.name), false)) errs.push(invalid(refPath.child('name'), ref.name, msg));
  list(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, new FieldPath('subjects').index(i))));
  return errs;
}

/** ValidateRoleBindingSubject. */
function validateSubject(subject: unknown, namespaced: boolean, p: FieldPath): FieldError[] {
  const s = isObj(subject) ? subject : {};
  const errs: FieldError[] = [];
  const name = str(s.name);
  if (!name) errs.push(required(p.child('name')));
  switch (s.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of nameIsDNSSubdomain(name, false)) errs.push(invalid(p.child('name'), name, msg));
      if (str(s.apiGroup)) errs.push(notSupported(p.child('apiGroup'), s.apiGroup, ['']));
      if (!namespaced && !str(s.namespace)) errs.push(required(p.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (str(s.apiGroup) !== RBAC_GROUP) errs.push(notSupported(p.child('apiGroup'), str(s.apiGroup), [RBAC_GROUP]));
      break;
    default:
      errs.push(notSupported(p.child('kind'), str(s.kind), ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/** ValidateRoleBindingUpdate's roleRef rule: a binding's role never changes. */
export function validateRoleRefUnchanged(n: KubeObject, o: KubeObject): FieldError[] {
  const a = isObj(n.roleRef) ? n.roleRef : {};
  const b = isObj(o.roleRef) ? o.roleRef : {};
  const same = str(a.apiGroup) === str(b.apiGroup) && str(a.kind) === str(b.kind) && str(a.name) === str(b.name);
  // Go prints the internal struct with %#v.
  const shown = new GoValue(`rbac.RoleRef{APIGroup:${JSON.stringify(str(a.apiGroup))}, Kind:${JSON.stringify(str(a.kind))}, Name:${JSON.stringify(str(a.name))}}`);
  return same ? [] : [invalid(new FieldPath('roleRef'), shown, 'cannot change roleRef')];
}
