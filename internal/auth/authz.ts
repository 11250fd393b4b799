/**
 * Authorization stage. RBAC lands in its own issue; until then every authenticated user is
 * allowed (system:masters always will be). The stage is real so RBAC only swaps the Authorizer.
 */
import type { UserInfo } from '../api/types.ts';

export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
}

export interface Decision {
  allowed: boolean;
  reason: string;
}

export interface Authorizer {
  authorize(a: AuthorizationAttributes): Promise<Decision> | Decision;
}

export const allowAuthenticated: Authorizer = {
  authorize: (a) => ({ allowed: a.user.groups.includes('system:authenticated'), reason: '' }),
};
