/** The authorization.k8s.io group's kinds (virtual: never stored). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { localSubjectAccessReviewKind, selfSubjectAccessReviewKind, subjectAccessReviewKind } from './access-review.ts';
import { selfSubjectRulesReviewKind } from './rules-review.ts';

export { localSubjectAccessReviewKind, selfSubjectAccessReviewKind, selfSubjectRulesReviewKind, subjectAccessReviewKind };

/** In kube's discovery order (resources sorted by name). */
export const authorizationKinds: KindDescriptor[] = [localSubjectAccessReviewKind, selfSubjectAccessReviewKind, selfSubjectRulesReviewKind, subjectAccessReviewKind];
