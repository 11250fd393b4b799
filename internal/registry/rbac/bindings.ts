/**
 * rbac.authorization.k8s.io/v1 RoleBinding and ClusterRoleBinding (pkg/registry/rbac/
 * {rolebinding,clusterrolebinding}/strategy.go): roleRef defaulted and immutable, subjects
 * validated per kind, Tables as printRoleBinding / printClusterRoleBinding. Binding to a role
 * whose permissions the writer lacks needs the `bind` verb (internal/auth/rbac escalation check).
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { RBAC_GROUP, defaultBinding, validateBinding, validateRoleRefUnchanged } from './validation.ts';

const bindingStrategy = (namespaced: boolean): Strategy => ({
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaults: defaultBinding,
  validate: (o) => validateBinding(o, namespaced),
  validateUpdate: (n, o) => [...validateBinding(n, namespaced), ...validateRoleRefUnchanged(n, o)],
});

type Subject = { kind?: string; name?: string; namespace?: string };

/** Users, groups and service accounts of a binding as kube's printer joins them. */
function subjectsCell(o: KubeObject, kind: string): string {
  const subjects = (Array.isArray(o.subjects) ? o.subjects : []) as Subject[];
  return subjects
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : (s.name ?? '')))
    .join(', ');
}

function bindingTable(scope: 'roleBinding' | 'clusterRoleBinding', roleRefDescription: string): TableConvertor {
  const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });
  return {
    columns: [NAME_COLUMN, col('Role', roleRefDescription), AGE_COLUMN, col('Users', `Users in the ${scope}`, 1), col('Groups', `Groups in the ${scope}`, 1), col('ServiceAccounts', `ServiceAccounts in the ${scope}`, 1)],
    cells: (o) => {
      const ref = (o.roleRef ?? {}) as { kind?: string; name?: string };
      return [o.metadata.name ?? '', `${ref.kind ?? ''}/${ref.name ?? ''}`, creationTimestampCell(o), subjectsCell(o, 'User'), subjectsCell(o, 'Group'), subjectsCell(o, 'ServiceAccount')];
    },
  };
}

export const roleBindingKind: KindDescriptor = {
  group: RBAC_GROUP,
  versions: ['v1'],
  resource: 'rolebindings',
  singular: 'rolebinding',
  kind: 'RoleBinding',
  listKind: 'RoleBindingList',
  namespaced: true,
  nameFormat: 'pathSegment',
  shortNames: [],
  strategy: bindingStrategy(true),
  table: bindingTable('roleBinding', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'),
  deleteReturns: 'Status',
};

export const clusterRoleBindingKind: KindDescriptor = {
  group: RBAC_GROUP,
  versions: ['v1'],
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  kind: 'ClusterRoleBinding',
  listKind: 'ClusterRoleBindingList',
  namespaced: false,
  nameFormat: 'pathSegment',
  shortNames: [],
  strategy: bindingStrategy(false),
  table: bindingTable('clusterRoleBinding', 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'),
  deleteReturns: 'Status',
};
