/** The authentication.k8s.io group's kinds (virtual: never stored). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { tokenReviewKind } from './tokenreview.ts';

export { tokenReviewKind };

/** In kube's discovery order (resources sorted by name). */
export const authenticationKinds: KindDescriptor[] = [tokenReviewKind];
