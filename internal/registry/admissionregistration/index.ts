/** The admissionregistration.k8s.io/v1 kinds: the dynamic admission webhook configurations. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { mutatingWebhookConfigurationKind, validatingWebhookConfigurationKind } from './webhook-configuration.ts';

export { mutatingWebhookConfigurationKind, validatingWebhookConfigurationKind };

export const admissionRegistrationKinds: KindDescriptor[] = [mutatingWebhookConfigurationKind, validatingWebhookConfigurationKind];
