/** The node.k8s.io group's kinds: RuntimeClass v1 (preferred) and the deprecated v1beta1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { runtimeClassKind, runtimeClassV1beta1Kind } from './runtimeclass.ts';

export { runtimeClassKind, runtimeClassV1beta1Kind };

export const nodeKinds: KindDescriptor[] = [runtimeClassKind, runtimeClassV1beta1Kind];
