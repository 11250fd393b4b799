/** The rbac.authorization.k8s.io/v1 kinds. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { clusterRoleKind, roleKind } from './roles.ts';
import { clusterRoleBindingKind, roleBindingKind } from './bindings.ts';

export { clusterRoleKind, roleKind, clusterRoleBindingKind, roleBindingKind };

export const rbacKinds: KindDescriptor[] = [clusterRoleBindingKind, clusterRoleKind, roleBindingKind, roleKind];
