/** The policy group's kinds: PodDisruptionBudget v1 (preferred) and the deprecated v1beta1, PodSecurityPolicy v1beta1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind } from './poddisruptionbudget.ts';
import { podSecurityPolicyKind } from './podsecuritypolicy.ts';

export { podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind, podSecurityPolicyKind };

export const policyKinds: KindDescriptor[] = [podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind, podSecurityPolicyKind];
