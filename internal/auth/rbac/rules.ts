/**
 * RBAC rule and subject matching, as k8s.io/kubernetes 1.24 pkg/apis/rbac/v1/evaluation_helpers.go
 * and pkg/registry/rbac/validation/rule.go (appliesTo) define them. Pure functions.
 */
import type { UserInfo } from '../../api/types.ts';
import type { AuthorizationAttributes } from '../authz.ts';
import { serviceAccountUsername } from '../serviceaccount/tokens.ts';

/** rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** rbac/v1 Subject. */
export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

const has = (list: string[] | undefined, v: string): boolean => (list ?? []).some((x) => x === '*' || x === v);

/** ResourceMatches: `*`, the exact `resource[/subresource]`, or `*\/<subresource>`. */
function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** NonResourceURLMatches: `*`, the exact path, or a prefix rule ending in `*`. */
function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some((u) => u === '*' || u === path || (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))));
}

/** RuleAllows. */
export function ruleAllows(a: Pick<AuthorizationAttributes, 'verb' | 'isResourceRequest' | 'group' | 'resource' | 'subresource' | 'name' | 'path'>, rule: PolicyRule): boolean {
  if (!has(rule.verbs, a.verb)) return false;
  if (a.isResourceRequest) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    const names = rule.resourceNames ?? [];
    return has(rule.apiGroups, a.group) && resourceMatches(rule, combined, a.subresource) && (names.length === 0 || names.includes(a.name));
  }
  return nonResourceURLMatches(rule, a.path);
}

/** The username of a service account (serviceaccount.MakeUsername). */
export { serviceAccountUsername };

/**
 * appliesTo: does `subject` (of a binding in `bindingNamespace`, '' for cluster bindings) name
 * `user`? A ServiceAccount subject without a namespace means the binding's own namespace.
 */
export function subjectApplies(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.username === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.username === serviceAccountUsername(ns, subject.name);
    }
    default:
      return false;
  }
}

/** describeSubject, for "allowed by" reasons. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}
