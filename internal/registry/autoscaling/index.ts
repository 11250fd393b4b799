/**
 * The autoscaling group's kinds: HorizontalPodAutoscaler in v1 (the stored form), v2 (preferred)
 * and the deprecated v2beta1 and v2beta2. Discovery orders the versions as kube does.
 */
import type { KindDescriptor } from '../rest/strategy.ts';
import { hpaKind, hpaV2Kind, hpaV2beta1Kind, hpaV2beta2Kind } from './hpa.ts';

export { hpaKind, hpaV2Kind, hpaV2beta1Kind, hpaV2beta2Kind };

export const autoscalingKinds: KindDescriptor[] = [hpaV2Kind, hpaKind, hpaV2beta1Kind, hpaV2beta2Kind];
