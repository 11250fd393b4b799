/** The coordination.k8s.io group's kinds: v1 only (1.22 removed v1beta1). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { leaseKind } from './lease.ts';

export { leaseKind };

export const coordinationKinds: KindDescriptor[] = [leaseKind];
