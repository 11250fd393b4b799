/**
 * Every kind this server serves by default, in registration order (discovery and OpenAPI list
 * them in this order). A new group adds its `index.ts` list here.
 */
import type { KindDescriptor } from './rest/strategy.ts';
import { coreKinds } from './core/index.ts';
import { eventsKinds } from './events/index.ts';
import { appsKinds } from './apps/index.ts';
import { authorizationKinds } from './authorization/index.ts';
import { authenticationKinds } from './authentication/index.ts';
import { batchKinds } from './batch/index.ts';
import { storageKinds } from './storage/index.ts';
import { rbacKinds } from './rbac/index.ts';
import { admissionRegistrationKinds } from './admissionregistration/index.ts';
import { networkingKinds } from './networking/index.ts';
import { certificatesKinds } from './certificates/index.ts';
import { policyKinds } from './policy/index.ts';
import { schedulingKinds } from './scheduling/index.ts';
import { coordinationKinds } from './coordination/index.ts';
import { nodeKinds } from './node/index.ts';
import { discoveryKinds } from './discovery/index.ts';
import { flowcontrolKinds } from './flowcontrol/index.ts';
import { apiregistrationKinds } from './apiregistration/index.ts';
import { apiextensionsKinds } from './apiextensions/index.ts';
import { autoscalingKinds } from './autoscaling/index.ts';

export const defaultKinds: readonly KindDescriptor[] = [...coreKinds, ...appsKinds, ...eventsKinds, ...authenticationKinds, ...authorizationKinds, ...autoscalingKinds, ...batchKinds, ...certificatesKinds, ...networkingKinds, ...policyKinds, ...rbacKinds, ...storageKinds, ...admissionRegistrationKinds, ...schedulingKinds, ...coordinationKinds, ...nodeKinds, ...discoveryKinds, ...flowcontrolKinds, ...apiextensionsKinds, ...apiregistrationKinds];
