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

/** authorization/v1 ResourceRule (Go field order; empty lists left out, `verbs` always there). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

/** authorization/v1 NonResourceRule. */
export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

/** What a user may do in a namespace, as a SelfSubjectRulesReview reports it. */
export interface RuleSet {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** The list is known to be partial (an authorizer that cannot enumerate its rules). */
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(a: AuthorizationAttributes): Promise<Decision> | Decision;
  /**
   * kube's RuleResolver: the rules `user` has in `namespace`. An authorizer without it answers
   * rules reviews with an empty, incomplete set.
   */
  rulesFor?(user: UserInfo, namespace: string): Promise<RuleSet> | RuleSet;
}

/**
 * Allows system:masters (kube's privileged-group authorizer, which RBAC will sit behind) and every
 * authenticated user; no opinion (not allowed, not denied) on anyone else, e.g. a
 * SubjectAccessReview's group-less subject.
 */
export const allowAuthenticated: Authorizer = {
  authorize: (a) => ({ allowed: allowedUser(a.user), reason: '' }),
  // Everything, for whoever is allowed (kube's cluster-admin rules read the same); nothing else.
  rulesFor: (user) =>
    allowedUser(user)
      ? { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }
      : { resourceRules: [], nonResourceRules: [], incomplete: false },
};

function allowedUser(user: UserInfo): boolean {
  return user.groups.includes('system:masters') || user.groups.includes('system:authenticated');
}
