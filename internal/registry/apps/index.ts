/** The apps group's kinds (v1; 1.16 removed v1beta1/v1beta2), in kube 1.24's discovery order. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { deploymentKind } from './deployment.ts';
import { replicaSetKind } from './replicaset.ts';
import { statefulSetKind } from './statefulset.ts';
import { daemonSetKind } from './daemonset.ts';
import { controllerRevisionKind } from './controllerrevision.ts';

export { deploymentKind, replicaSetKind, statefulSetKind, daemonSetKind, controllerRevisionKind };

export const appsKinds: KindDescriptor[] = [deploymentKind, replicaSetKind, statefulSetKind, daemonSetKind, controllerRevisionKind];
