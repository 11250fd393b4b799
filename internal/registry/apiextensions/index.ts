/** The apiextensions.k8s.io group's built-in kinds (custom resources are added at run time). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { crdKind } from './crd.ts';

export { crdKind };

export const apiextensionsKinds: KindDescriptor[] = [crdKind];
