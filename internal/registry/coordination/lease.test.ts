import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { leaseKind, leaseTable } from './lease.ts';

const S = leaseKind.strategy;
const lease = (spec?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'l', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' },
  ...(spec === undefined ? {} : { spec }),
});

test('descriptor: namespaced, PUT creates, updates need a resourceVersion, delete answers a Status', () => {
  assert.equal([leaseKind.group, leaseKind.versions, leaseKind.resource, leaseKind.kind, leaseKind.namespaced, leaseKind.deleteReturns], ['coordination.k8s.io', ['v1'], 'leases', 'Lease', true, 'Status']);
  assert.is(S.allowCreateOnUpdate, true);
  assert.is(S.allowUnconditionalUpdate, false);
  assert.is(S.defaults, undefined, 'no defaults');
});

test('validate: duration > 0, transitions >= 0; absent fields and a missing spec are valid', () => {
  check('no spec', S.validate(lease()), []);
  check('empty spec', S.validate(lease({})), []);
  check('valid', S.validate(lease({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 })), []);
  check('negative', S.validate(lease({ leaseDurationSeconds: -1, leaseTransitions: -2 })), [
    { type: 'FieldValueInvalid', field: 'spec.leaseDurationSeconds', msg: 'spec.leaseDurationSeconds: Invalid value: -1: must be greater than 0' },
    { type: 'FieldValueInvalid', field: 'spec.leaseTransitions', msg: 'spec.leaseTransitions: Invalid value: -2: must be greater than or equal to 0' },
  ]);
  check('zero duration', S.validate(lease({ leaseDurationSeconds: 0 })), [{ type: 'FieldValueInvalid', field: 'spec.leaseDurationSeconds', msg: 'Invalid value: 0: must be greater than 0' }]);
  check('update validates the new spec', S.validateUpdate(lease({ leaseTransitions: -1 }), lease({})), [{ type: 'FieldValueInvalid', field: 'spec.leaseTransitions' }]);
  check('update: any change is allowed', S.validateUpdate(lease({ holderIdentity: 'b', leaseDurationSeconds: 3 }), lease({ holderIdentity: 'a' })), []);
});

test('table: Name, Holder (empty when unset), Age', () => {
  assert.equal(leaseTable.columns.map((c) => c.name), ['Name', 'Holder', 'Age']);
  assert.equal(leaseTable.cells(lease({ holderIdentity: 'node-1' })), ['l', 'node-1', '2024-01-01T00:00:00Z']);
  assert.equal(leaseTable.cells(lease()), ['l', '', '2024-01-01T00:00:00Z']);
});

test.run();
