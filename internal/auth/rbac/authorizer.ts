/**
 * The RBAC authorizer and rule resolver of Kubernetes 1.24 (plugin/pkg/auth/authorizer/rbac,
 * pkg/registry/rbac/validation DefaultRuleResolver) over the in-memory RbacCache: a request is
 * allowed when a rule of a role bound to the user (cluster role bindings first, then the role
 * bindings of the request's namespace) allows it; otherwise RBAC has no opinion (it never denies).
 */
import type { UserInfo } from '../../api/types.ts';
import type { AuthorizationAttributes, Authorizer, Decision, RuleSet } from '../authz.ts';
import type { Binding, RbacCache, RoleRef } from './cache.ts';
import { describeSubject, ruleAllows, subjectApplies, type PolicyRule } from './rules.ts';

/**
 * Visits (source, rule) pairs; return false to stop. `error` reports an unresolvable role. The
 * source ("RoleBinding … to User …") is built only when asked for: most visits never need it.
 */
type Visitor = (source: () => string, rule: PolicyRule | null, error: string | null) => boolean;
const NO_SOURCE = (): string => '';

export class RbacAuthorizer implements Authorizer {
  constructor(private readonly cache: RbacCache) {}

  /** GetRoleReferenceRules: the rules a binding grants, or kube's NotFound text. */
  roleRefRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === 'Role') {
      const rules = this.cache.roles.get(`${bindingNamespace}/${ref.name}`);
      return rules ? { rules } : { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    if (ref.kind === 'ClusterRole') {
      const cr = this.cache.clusterRoles.get(ref.name);
      return cr ? { rules: cr.rules } : { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /** VisitRulesFor. */
  visitRulesFor(user: UserInfo, namespace: string, visit: Visitor): void {
    const walk = (bindings: Binding[], kind: 'ClusterRoleBinding' | 'RoleBinding'): boolean => {
      for (const b of bindings) {
        const subject = b.subjects.find((s) => subjectApplies(user, s, b.namespace));
        if (!subject) continue;
        const r = this.roleRefRules(b.roleRef, b.namespace);
        if ('error' in r) {
          if (!visit(NO_SOURCE, null, r.error)) return false;
          continue;
        }
        const name = kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
        const source = (): string => `${kind} ${JSON.stringify(name)} of ${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, b.namespace)}`;
        for (const rule of r.rules) if (!visit(source, rule, null)) return false;
      }
      return true;
    };
    // Only the bindings whose subjects may name the user (an index lookup), in kube's order.
    if (!walk(this.cache.clusterRoleBindingsFor(user), 'ClusterRoleBinding')) return;
    if (namespace) walk(this.cache.roleBindingsFor(namespace, user), 'RoleBinding');
  }

  authorize(a: AuthorizationAttributes): Decision {
    let reason = '';
    const errors: string[] = [];
    this.visitRulesFor(a.user, a.namespace, (source, rule, error) => {
      if (rule && ruleAllows(a, rule)) {
        reason = `RBAC: allowed by ${source()}`;
        return false;
      }
      if (error) errors.push(error);
      return true;
    });
    if (reason) return { allowed: true, reason };
    return { allowed: false, reason: errors.length ? `RBAC: ${aggregate(errors)}` : '' };
  }

  /** RulesFor: every rule the user holds in `namespace`, and resolution errors. */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_s, rule, error) => {
      if (rule) rules.push(rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  rulesFor(user: UserInfo, namespace: string): RuleSet {
    const { rules, errors } = this.policyRulesFor(user, namespace);
    const out: RuleSet = { resourceRules: [], nonResourceRules: [], incomplete: errors.length > 0 };
    for (const r of rules) {
      if ((r.resources ?? []).length > 0) {
        out.resourceRules.push({ verbs: r.verbs, ...(r.apiGroups?.length ? { apiGroups: r.apiGroups } : {}), resources: r.resources, ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) });
      }
      if ((r.nonResourceURLs ?? []).length > 0) out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    if (errors.length) out.evaluationError = aggregate(errors);
    return out;
  }
}

/** utilerrors.NewAggregate(...).Error(): one error as is, several as `[a, b]`. */
export function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
