/** The apiregistration.k8s.io group's kinds: APIService v1 (kube-aggregator's). */
import type { KindDescriptor } from '../rest/strategy.ts';
import { apiServiceKind } from './apiservice.ts';

export { apiServiceKind };

export const apiregistrationKinds: KindDescriptor[] = [apiServiceKind];
