/**
 * The status rules every replicated workload shares (ReplicationController here, the apps/v1
 * kinds above), after Kubernetes 1.24.17 pkg/apis/core/validation ValidateReplicationControllerStatus
 * and pkg/apis/apps/validation: ValidateNonnegativeField on each counter, counters not above
 * status.replicas, available not above ready.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid } from '../../api/field-errors.ts';
import { IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import { type J, obj } from './pod-util.ts';

export const statusOf = (o: KubeObject): J => obj(o.status) ?? {};
export const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** ValidateNonnegativeField (absent: 0). */
export const nonNegative = (v: unknown, p: FieldPath): FieldError[] => (num(v) < 0 ? [invalid(p, num(v), IS_NEGATIVE_ERROR_MSG)] : []);

/** ValidateNonnegativeField on each of a status's `fields`, under `status`. */
export const nonNegativeStatus = (o: KubeObject, fields: string[]): FieldError[] => fields.flatMap((f) => nonNegative(statusOf(o)[f], new FieldPath('status').child(f)));

/** Status counters that must not exceed status.replicas (and available ≤ ready where checked). */
export function replicaCounterErrors(status: J, p: FieldPath, counters: string[], availableVsReady: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const msg = 'cannot be greater than status.replicas';
  for (const c of counters) if (num(status[c]) > num(status.replicas)) errs.push(invalid(p.child(c), num(status[c]), msg));
  if (availableVsReady && num(status.availableReplicas) > num(status.readyReplicas)) errs.push(invalid(p.child('availableReplicas'), num(status.availableReplicas), 'cannot be greater than readyReplicas'));
  return errs;
}
