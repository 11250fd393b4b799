/** The networking.k8s.io group's kinds (v1; 1.22 removed v1beta1). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { ingressClassKind } from './ingressclass.ts';
import { ingressKind } from './ingress.ts';
import { networkPolicyKind } from './networkpolicy.ts';

export { ingressClassKind, ingressKind, networkPolicyKind };

export const networkingKinds: KindDescriptor[] = [ingressClassKind, ingressKind, networkPolicyKind];
