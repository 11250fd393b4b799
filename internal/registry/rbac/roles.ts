/**
 * rbac.authorization.k8s.io/v1 Role (namespaced) and ClusterRole (cluster-scoped, with
 * aggregationRule), after pkg/registry/rbac/{role,clusterrole}/strategy.go: create on update and
 * unconditional updates allowed, kube's default Table (Name, Created At). Writes that would grant
 * more than the writer holds are refused by the RBAC escalation check (internal/auth/rbac).
 */
import type { KindDescriptor, Strategy } from '../rest/strategy.ts';
import { RBAC_GROUP, validateAggregationRule, validateRules } from './validation.ts';

const roleStrategy = (namespaced: boolean): Strategy => ({
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  validate: (o) => [...validateRules(o, namespaced), ...(namespaced ? [] : validateAggregationRule(o))],
  validateUpdate: (n) => [...validateRules(n, namespaced), ...(namespaced ? [] : validateAggregationRule(n))],
});

export const roleKind: KindDescriptor = {
  group: RBAC_GROUP,
  versions: ['v1'],
  resource: 'roles',
  singular: 'role',
  kind: 'Role',
  listKind: 'RoleList',
  namespaced: true,
  nameFormat: 'pathSegment',
  shortNames: [],
  strategy: roleStrategy(true),
  deleteReturns: 'Status',
};

export const clusterRoleKind: KindDescriptor = {
  group: RBAC_GROUP,
  versions: ['v1'],
  resource: 'clusterroles',
  singular: 'clusterrole',
  kind: 'ClusterRole',
  listKind: 'ClusterRoleList',
  namespaced: false,
  nameFormat: 'pathSegment',
  shortNames: [],
  strategy: roleStrategy(false),
  deleteReturns: 'Status',
};
