/**
 * Which FlowSchema a request belongs to (kube 1.24 pkg/util/flowcontrol/rule.go): the first schema
 * in matching order with a rule whose subjects include the user and whose resource rules (resource
 * requests) or non-resource rules (everything else) match the request.
 */
import type { FlowSchemaSpec, NonResourcePolicyRule, PolicyRulesWithSubjects, ResourcePolicyRule, Subject } from './bootstrap.ts';

/** What classification reads of a request. */
export interface RequestDigest {
  user: { username: string; groups: readonly string[] };
  isResourceRequest: boolean;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export function matchesFlowSchema(d: RequestDigest, fs: FlowSchemaSpec): boolean {
  return fs.rules.some((r) => matchesPolicyRule(d, r));
}

function matchesPolicyRule(d: RequestDigest, rule: PolicyRulesWithSubjects): boolean {
  if (!rule.subjects.some((s) => matchesSubject(d.user, s))) return false;
  return d.isResourceRequest ? rule.resourceRules.some((r) => matchesResourceRule(d, r)) : rule.nonResourceRules.some((r) => matchesNonResourceRule(d, r));
}

const SA_PREFIX = 'system:serviceaccount:';

function matchesSubject(user: RequestDigest['user'], s: Subject): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === '*' || s.name === user.username;
    case 'Group':
      return s.name === '*' || user.groups.includes(s.name);
    case 'ServiceAccount':
      if (s.name === '*') return user.username.startsWith(`${SA_PREFIX}${s.namespace}:`);
      return user.username === `${SA_PREFIX}${s.namespace}:${s.name}`;
  }
}

/** kube's containsString: the wildcard is only ever the list's single member. */
function contains(x: string, list: readonly string[], wildcard: string): boolean {
  return (list.length === 1 && list[0] === wildcard) || list.includes(x);
}

function matchesResourceRule(d: RequestDigest, r: ResourcePolicyRule): boolean {
  if (!contains(d.verb, r.verbs, '*')) return false;
  if (!contains(d.subresource ? `${d.resource}/${d.subresource}` : d.resource, r.resources, '*')) return false;
  if (!contains(d.group, r.apiGroups, '*')) return false;
  if (!d.namespace) return r.clusterScope;
  return contains(d.namespace, r.namespaces, '*');
}

function matchesNonResourceRule(d: RequestDigest, r: NonResourcePolicyRule): boolean {
  if (!contains(d.verb, r.verbs, '*')) return false;
  for (const url of r.nonResourceURLs) {
    if (url === '*' || url === d.path) return true;
    // `/healthz` also covers `/healthz/etcd`; `/apis/*` everything under /apis/.
    let prefix = url.endsWith('*') ? url.slice(0, -1) : url;
    if (!prefix.endsWith('/')) prefix += '/';
    if (d.path.startsWith(prefix)) return true;
  }
  return false;
}
