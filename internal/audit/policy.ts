/**
 * Audit policy (audit.k8s.io/v1 Policy, also v1beta1/v1alpha1 as 1.24 reads them): parsing, kube's
 * validation (k8s.io/apiserver/pkg/apis/audit/validation) and its rule evaluation
 * (pkg/audit/policy/checker.go): the first rule matching a request decides its level and omitted
 * stages; no match means level None.
 */
import { parse as parseYaml } from 'yaml';
import { type FieldError, FieldPath, fieldErrorMessage, invalid, notSupported, required } from '../api/field-errors.ts';
import { nameIsDNSSubdomain } from '../validation/names.ts';

export type Level = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
export type Stage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

const LEVELS: Level[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
const STAGES: Stage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];
const API_VERSIONS = ['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1'];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** The authorizer attributes a rule is matched against. */
export interface AuditAttributes {
  user: { username: string; groups: string[] } | null;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
}

/** What the policy decides for one request. */
export interface AuditDecision {
  level: Level;
  omitStages: Set<Stage>;
  omitManagedFields: boolean;
}

const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.map(String) : undefined);

/**
 * Parse and validate a policy document (YAML or JSON). Throws an Error with kube's field errors
 * joined as an aggregate when the policy is invalid.
 */
export function parsePolicy(text: string): Policy {
  const doc = parseYaml(text) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object') throw new Error('audit policy: not a document');
  if (doc.kind !== 'Policy' || !API_VERSIONS.includes(String(doc.apiVersion))) {
    throw new Error(`audit policy: want kind Policy in ${API_VERSIONS.join(', ')}, got ${String(doc.kind)} ${String(doc.apiVersion)}`);
  }
  const rules = (Array.isArray(doc.rules) ? doc.rules : []) as Record<string, unknown>[];
  const policy: Policy = {
    omitStages: strings(doc.omitStages) as Stage[] | undefined,
    omitManagedFields: doc.omitManagedFields === true,
    rules: rules.map((r) => ({
      level: (r.level ?? '') as Level,
      users: strings(r.users),
      userGroups: strings(r.userGroups),
      verbs: strings(r.verbs),
      resources: Array.isArray(r.resources) ? (r.resources as Record<string, unknown>[]).map((g) => ({ group: String(g.group ?? ''), resources: strings(g.resources), resourceNames: strings(g.resourceNames) })) : undefined,
      namespaces: strings(r.namespaces),
      nonResourceURLs: strings(r.nonResourceURLs),
      omitStages: strings(r.omitStages) as Stage[] | undefined,
      omitManagedFields: typeof r.omitManagedFields === 'boolean' ? r.omitManagedFields : undefined,
    })),
  };
  const errs = validatePolicy(policy);
  if (errs.length) throw new Error(errs.length === 1 ? fieldErrorMessage(errs[0]!) : `[${errs.map(fieldErrorMessage).join(', ')}]`);
  return policy;
}

/** ValidatePolicy. */
export function validatePolicy(p: Policy): FieldError[] {
  const errs = validateOmitStages(p.omitStages ?? [], new FieldPath('omitStages'));
  p.rules.forEach((r, i) => {
    const path = new FieldPath('rules').index(i);
    if (r.level === ('' as Level)) errs.push(required(path.child('level')));
    else if (!LEVELS.includes(r.level)) errs.push(notSupported(path.child('level'), r.level, LEVELS));
    (r.nonResourceURLs ?? []).forEach((u, j) => {
      if (u === '*') return;
      if (!u.startsWith('/')) errs.push(invalid(path.child('nonResourceURLs').index(j), u, "non-resource URL rules must begin with a '/' character"));
      if (u !== '' && u.slice(0, -1).includes('*')) errs.push(invalid(path.child('nonResourceURLs').index(j), u, "non-resource URL wildcards '*' must be the final character of the rule"));
    });
    for (const g of r.resources ?? []) {
      const msgs = g.group ? nameIsDNSSubdomain(g.group, false) : [];
      if (msgs.length) errs.push(invalid(path.child('resources').child('group'), g.group, msgs.join(',')));
      if ((g.resourceNames ?? []).length > 0 && (g.resources ?? []).length === 0) errs.push(invalid(path.child('resources').child('resourceNames'), g.resourceNames, 'using resourceNames requires at least one resource'));
    }
    errs.push(...validateOmitStages(r.omitStages ?? [], path.child('omitStages')));
    if ((r.nonResourceURLs ?? []).length > 0 && ((r.resources ?? []).length > 0 || (r.namespaces ?? []).length > 0)) {
      errs.push(invalid(path.child('nonResourceURLs'), r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
  });
  return errs;
}

function validateOmitStages(stages: string[], path: FieldPath): FieldError[] {
  return stages.flatMap((s, i) => (STAGES.includes(s as Stage) ? [] : [invalid(path.index(i), s, `allowed stages are ${STAGES.join(',')}`)]));
}

/** EvaluatePolicyRule: the first matching rule, else level None with the policy's defaults. */
export function evaluatePolicy(p: Policy, a: AuditAttributes): AuditDecision {
  for (const r of p.rules) {
    if (ruleMatches(r, a)) {
      return { level: r.level, omitStages: new Set([...(p.omitStages ?? []), ...(r.omitStages ?? [])]), omitManagedFields: r.omitManagedFields ?? p.omitManagedFields ?? false };
    }
  }
  return { level: 'None', omitStages: new Set(p.omitStages ?? []), omitManagedFields: p.omitManagedFields ?? false };
}

function ruleMatches(r: PolicyRule, a: AuditAttributes): boolean {
  if (r.users?.length && (!a.user || !r.users.includes(a.user.username))) return false;
  if (r.userGroups?.length && (!a.user || !a.user.groups.some((g) => r.userGroups!.includes(g)))) return false;
  if (r.verbs?.length && !r.verbs.includes(a.verb)) return false;
  if (r.namespaces?.length || r.resources?.length) return resourceMatches(r, a);
  if (r.nonResourceURLs?.length) return !a.isResourceRequest && r.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Non-namespaced resources match the empty namespace.
  if (r.namespaces?.length && !r.namespaces.includes(a.namespace)) return false;
  if (!r.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of r.resources) {
    if ((gr.group ?? '') !== a.group) continue;
    if (!gr.resources?.length) return true;
    for (const res of gr.resources) {
      if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}
