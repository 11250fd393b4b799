/** The core (legacy, group '') kinds served by the generic store. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { namespaceKind } from './namespace.ts';
import { configMapKind } from './configmap.ts';
import { secretKind } from './secret.ts';
import { serviceKind } from './service.ts';
import { endpointsKind } from './endpoints.ts';
import { eventKind } from './event.ts';
import { persistentVolumeKind } from './persistentvolume.ts';
import { persistentVolumeClaimKind } from './persistentvolumeclaim.ts';
import { podKind } from './pod.ts';
import { serviceAccountKind } from './serviceaccount.ts';
import { podTemplateKind } from './podtemplate.ts';
import { limitRangeKind } from './limitrange.ts';
import { resourceQuotaKind } from './resourcequota.ts';
import { replicationControllerKind } from './replicationcontroller.ts';
import { nodeKind } from './node.ts';

import { componentStatusKind } from './componentstatus.ts';

export { namespaceKind, configMapKind, secretKind, serviceKind, endpointsKind, eventKind, persistentVolumeKind, persistentVolumeClaimKind, podKind, serviceAccountKind, podTemplateKind, limitRangeKind, resourceQuotaKind, replicationControllerKind, nodeKind, componentStatusKind };

export const coreKinds: KindDescriptor[] = [
  namespaceKind,
  configMapKind,
  secretKind,
  serviceKind,
  endpointsKind,
  eventKind,
  persistentVolumeKind,
  persistentVolumeClaimKind,
  podKind,
  serviceAccountKind,
  podTemplateKind,
  limitRangeKind,
  resourceQuotaKind,
  replicationControllerKind,
  nodeKind,
  componentStatusKind,
];
