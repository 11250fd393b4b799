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
  /** An explicit deny (kube's DecisionDeny), as opposed to "no opinion"; RBAC never denies. */
  denied?: boolean;
  reason: string;
  /** An error met while deciding (kube reports it in an access review's status.evaluationError). */
  evaluationError?: string;
}

export interface Authorizer {
  authorize(a: AuthorizationAttributes): Promise<Decision> | Decision;
}

/**
 * Allows system:masters (kube's privileged-group authorizer, which RBAC will sit behind) and every
 * authenticated user; no opinion (not allowed, not denied) on anyone else, e.g. a
 * SubjectAccessReview's group-less subject.
 */
export const allowAuthenticated: Authorizer = {
  authorize: (a) => ({ allowed: a.user.groups.includes('system:masters') || a.user.groups.includes('system:authenticated'), reason: '' }),
};
