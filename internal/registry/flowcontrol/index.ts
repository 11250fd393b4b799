/** The flowcontrol.apiserver.k8s.io group's kinds: v1beta2 (preferred, the storage version) and the deprecated v1beta1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { flowSchemaKind, flowSchemaV1beta1Kind } from './flowschema.ts';
import { priorityLevelKind, priorityLevelV1beta1Kind } from './prioritylevelconfiguration.ts';

export { flowSchemaKind, flowSchemaV1beta1Kind, priorityLevelKind, priorityLevelV1beta1Kind };

export const flowcontrolKinds: KindDescriptor[] = [flowSchemaKind, priorityLevelKind, flowSchemaV1beta1Kind, priorityLevelV1beta1Kind];
