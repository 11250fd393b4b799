/** The authorization.k8s.io group's kinds (virtual: never stored). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { localSubjectAccessReviewKind, selfSubjectAccessReviewKind, subjectAccessReviewKind } from './access-review.ts';

export { localSubjectAccessReviewKind, selfSubjectAccessReviewKind, subjectAccessReviewKind };

/** In kube's discovery order (resources sorted by name). */
export const authorizationKinds: KindDescriptor[] = [localSubjectAccessReviewKind, selfSubjectAccessReviewKind, subjectAccessReviewKind];
