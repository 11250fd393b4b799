/** The scheduling.k8s.io group's kinds: v1 only (1.22 removed v1beta1 and v1alpha1). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { priorityClassKind } from './priorityclass.ts';

export { priorityClassKind };

export const schedulingKinds: KindDescriptor[] = [priorityClassKind];
