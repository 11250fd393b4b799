/**
 * Lease (coordination.k8s.io/v1, namespaced), after Kubernetes 1.24.17: ValidateLease /
 * ValidateLeaseUpdate (pkg/apis/coordination/validation), pkg/registry/coordination/lease
 * (strategy.go: no defaults or preparation, PUT may create, updates need a resourceVersion) and
 * printLease (pkg/printers/internalversion).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid } from '../../api/field-errors.ts';
import { IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { isObj } from '../../gocompat/json.ts';

const spec = (o: KubeObject): Record<string, unknown> => (isObj(o.spec) ? o.spec : {});

/** ValidateLeaseSpec: a duration must be positive, a transition count not negative. */
export function validateLeaseSpec(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const s = spec(o);
  const path = new FieldPath('spec');
  if (typeof s.leaseDurationSeconds === 'number' && s.leaseDurationSeconds <= 0) {
    errs.push(invalid(path.child('leaseDurationSeconds'), s.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof s.leaseTransitions === 'number' && s.leaseTransitions < 0) {
    errs.push(invalid(path.child('leaseTransitions'), s.leaseTransitions, IS_NEGATIVE_ERROR_MSG));
  }
  return errs;
}

/** pkg/registry/coordination/lease: validation only (ObjectMeta rules are the store's). */
export const leaseStrategy: Strategy = {
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  validate: validateLeaseSpec,
  validateUpdate: (n) => validateLeaseSpec(n),
};

/** coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]. */
const HOLDER_DESCRIPTION = 'holderIdentity contains the identity of the holder of a current lease.';

/** printLease: the holder ('' when unset). */
export const leaseTable: TableConvertor = {
  columns: [NAME_COLUMN, { name: 'Holder', type: 'string', description: HOLDER_DESCRIPTION, priority: 0 }, AGE_COLUMN],
  cells: (o) => [o.metadata.name ?? '', typeof spec(o).holderIdentity === 'string' ? spec(o).holderIdentity : '', creationTimestampCell(o)],
};

/** coordination.k8s.io/v1 leases; delete answers a Status (the store's default). */
export const leaseKind: KindDescriptor = {
  group: 'coordination.k8s.io',
  versions: ['v1'],
  resource: 'leases',
  singular: 'lease',
  kind: 'Lease',
  listKind: 'LeaseList',
  namespaced: true,
  shortNames: [],
  strategy: leaseStrategy,
  table: leaseTable,
  deleteReturns: 'Status',
};
