/** The discovery.k8s.io group's kinds: EndpointSlice v1 (preferred) and the deprecated v1beta1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { endpointSliceKind, endpointSliceV1beta1Kind } from './endpointslice.ts';

export { endpointSliceKind, endpointSliceV1beta1Kind };

export const discoveryKinds: KindDescriptor[] = [endpointSliceKind, endpointSliceV1beta1Kind];
