/**
 * RBAC escalation prevention for writes of Roles, ClusterRoles and their bindings (kube does this
 * in the RBAC kinds' REST storage, before admission; here a mutating plugin, which runs at the same
 * point: before defaulting and validation). See internal/auth/rbac/escalation.ts for the rules.
 */
import type { KubeObject } from '../api/types.ts';
import { ApiError, forbidden, notFound } from '../api/errors.ts';
import type { Authorizer } from '../auth/authz.ts';
import type { RbacAuthorizer } from '../auth/rbac/authorizer.ts';
import { RBAC_GROUP, type RoleRef } from '../auth/rbac/cache.ts';
import { escalationMessage } from '../auth/rbac/escalation.ts';
import type { PolicyRule } from '../auth/rbac/rules.ts';

import type { AdmissionAttributes, MutatingPlugin } from './chain.ts';
import { jsonEqual } from '../gocompat/equal.ts';

const ROLES = new Set(['roles', 'clusterroles']);
const BINDINGS = new Set(['rolebindings', 'clusterrolebindings']);

/** IsOnlyMutatingGCFields: only ownerReferences / finalizers (and server-kept metadata) differ. */
function onlyGCFields(n: KubeObject, o: KubeObject): boolean {
  const strip = (x: KubeObject): unknown => {
    const { ownerReferences: _a, finalizers: _b, managedFields: _c, resourceVersion: _d, ...meta } = x.metadata ?? {};
    return { ...x, metadata: meta };
  };
  return jsonEqual(strip(n), strip(o));
}

export function rbacEscalation(authorizer: Authorizer, rbac: RbacAuthorizer): MutatingPlugin {
  /** Does the request's user have `verb` on the role named `name` (escalate / bind)? */
  const may = async (a: AdmissionAttributes, verb: 'escalate' | 'bind', resource: string, name: string): Promise<boolean> => {
    const d = await authorizer.authorize({ user: a.user, verb, isResourceRequest: true, group: RBAC_GROUP, version: '*', resource, subresource: '', namespace: a.namespace, name, path: '' });
    return d.allowed;
  };
  const confirm = (a: AdmissionAttributes, rules: PolicyRule[]): void => {
    const { rules: owned, errors } = rbac.policyRulesFor(a.user, a.namespace);
    const msg = escalationMessage(a.user, owned, rules, errors);
    if (msg) throw forbidden({ group: RBAC_GROUP, resource: a.kind.resource }, a.name || String(a.object?.metadata?.name ?? ''), msg);
  };
  return {
    name: 'RBACEscalation',
    admit(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (a.kind.group !== RBAC_GROUP || a.subresource || !a.object) return;
      return check(a, a.object);
    },
  };

  async function check(a: AdmissionAttributes, object: KubeObject): Promise<void> {
    if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
    if (a.user.groups.includes('system:masters')) return; // EscalationAllowed
    if (a.operation === 'UPDATE' && a.oldObject && onlyGCFields(object, a.oldObject)) return;
    const name = a.name || String(object.metadata?.name ?? '');
    if (ROLES.has(a.kind.resource)) {
      if (await may(a, 'escalate', a.kind.resource, name)) return;
      confirm(a, (object.rules as PolicyRule[] | undefined) ?? []);
    } else if (BINDINGS.has(a.kind.resource)) {
      const ref = (object.roleRef ?? {}) as RoleRef;
      if (await may(a, 'bind', ref.kind === 'Role' ? 'roles' : 'clusterroles', ref.name)) return;
      const r = rbac.roleRefRules(ref, a.namespace);
      if ('error' in r) throw ref.kind === 'Role' || ref.kind === 'ClusterRole' ? notFound({ group: RBAC_GROUP, resource: ref.kind === 'Role' ? 'role' : 'clusterrole' }, ref.name) : new ApiError(forbidden({ group: RBAC_GROUP, resource: a.kind.resource }, name, r.error).status);
      confirm(a, r.rules);
    }
  }
}
