/** The policy group's kinds: PodDisruptionBudget v1 (preferred) and the deprecated v1beta1. */
import type { KindDescriptor } from '../rest/strategy.ts';
import { podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind } from './poddisruptionbudget.ts';

export { podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind };

export const policyKinds: KindDescriptor[] = [podDisruptionBudgetKind, podDisruptionBudgetV1beta1Kind];
