/**
 * RBAC escalation prevention (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
 * policybased, escalation_check.go; component-helpers rbac/validation Covers): a user may create or
 * change a role only with rules they already hold (or the `escalate` verb on it), and bind a role
 * only when they hold its rules (or the `bind` verb on it); system:masters may do either. The
 * Forbidden message lists the missing rules as kube does (compacted, Go's %q lists, sorted).
 */
import type { UserInfo } from '../../api/types.ts';
import type { PolicyRule } from './rules.ts';

const has = (set: string[] | undefined, v: string): boolean => (set ?? []).includes(v);
const hasAll = (set: string[] | undefined, want: string[] | undefined): boolean => (want ?? []).every((w) => has(set, w));

/** BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(r: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const g of r.apiGroups ?? []) {
    for (const res of r.resources ?? []) {
      for (const v of r.verbs ?? []) {
        if ((r.resourceNames ?? []).length) for (const n of r.resourceNames!) out.push({ apiGroups: [g], resources: [res], verbs: [v], resourceNames: [n] });
        else out.push({ apiGroups: [g], resources: [res], verbs: [v] });
      }
    }
  }
  for (const u of r.nonResourceURLs ?? []) for (const v of r.verbs ?? []) out.push({ nonResourceURLs: [u], verbs: [v] });
  return out;
}

function resourceCoversAll(set: string[] | undefined, covers: string[] | undefined): boolean {
  if (has(set, '*') || hasAll(set, covers)) return true;
  for (const p of covers ?? []) {
    if (has(set, p)) continue;
    const slash = p.indexOf('/');
    if (slash < 0 || !has(set, `*/${p.slice(slash + 1)}`)) return false;
  }
  return true;
}

const urlCovers = (owner: string, sub: string): boolean => owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));

/** ruleCovers. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)));
  const names = (sub.resourceNames ?? []).length === 0 ? (owner.resourceNames ?? []).length === 0 : (owner.resourceNames ?? []).length === 0 || hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** Covers: do the owner's rules cover every atomic piece of `servant`? Returns what is missing. */
export function covers(owner: PolicyRule[], servant: PolicyRule[]): PolicyRule[] {
  return servant.flatMap(breakdownRule).filter((s) => !owner.some((o) => ruleCovers(o, s)));
}

/** CompactRules: simple rules (one group, one resource, at most one name) merged by verb. */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const r of rules) {
    const isSimple = (r.resourceNames ?? []).length <= 1 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!isSimple) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups![0], r.resources![0], (r.resourceNames ?? []).length > 0, r.resourceNames?.[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...r.verbs];
    else simple.set(key, { ...r, verbs: [...r.verbs] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
const goQ = (list: string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** CompactString. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups ?? []).length) parts.push(`APIGroups:${goQ(r.apiGroups!)}`);
  if ((r.resources ?? []).length) parts.push(`Resources:${goQ(r.resources!)}`);
  if ((r.nonResourceURLs ?? []).length) parts.push(`NonResourceURLs:${goQ(r.nonResourceURLs!)}`);
  if ((r.resourceNames ?? []).length) parts.push(`ResourceNames:${goQ(r.resourceNames!)}`);
  if ((r.verbs ?? []).length) parts.push(`Verbs:${goQ(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/**
 * ConfirmNoEscalation: null when `owned` covers `rules`, else kube's message (without the
 * `<resource> "<name>" is forbidden: ` prefix the Forbidden Status adds).
 */
export function escalationMessage(user: UserInfo, owned: PolicyRule[], rules: PolicyRule[], resolutionErrors: string[]): string | null {
  const missing = covers(owned, rules);
  if (missing.length === 0) return null;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.username)} (groups=${goQ(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (resolutionErrors.length) msg += `; resolution errors: [${resolutionErrors.join(' ')}]`;
  return msg;
}
