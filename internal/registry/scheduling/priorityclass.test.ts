import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { SYSTEM_PRIORITY_CLASSES, priorityClassKind, priorityClassTable } from './priorityclass.ts';

const S = priorityClassKind.strategy;
const pc = (name: string, fields: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name, creationTimestamp: '2024-01-01T00:00:00Z' }, ...fields });

test('system classes: bootstrapped, undeletable, valid as they are', () => {
  assert.equal(priorityClassKind.bootstrap?.map((o) => [o.metadata.name, o.value]), [['system-node-critical', 2000001000], ['system-cluster-critical', 2000000000]]);
  assert.equal(priorityClassKind.undeletable, ['system-node-critical', 'system-cluster-critical']);
  for (const c of SYSTEM_PRIORITY_CLASSES) {
    const o = structuredClone(c);
    S.defaults!(o);
    check(c.metadata.name!, S.validate(o), []);
    assert.is(o.preemptionPolicy, 'PreemptLowerPriority');
  }
  assert.is(priorityClassKind.hasGeneration, 'create', 'generation 1 on create, never bumped');
});

test('validate: reserved prefix, user maximum, policy; update: value and policy immutable', () => {
  check('unknown system', S.validate(pc('system-a', { value: 1 })), [{ type: 'FieldValueForbidden', field: 'metadata.name', msg: 'system-a is not a known system priority class' }]);
  check('max', S.validate(pc('a', { value: 1000000001 })), [{ type: 'FieldValueForbidden', field: 'value' }]);
  check('at max', S.validate(pc('a', { value: 1000000000 })), []);
  check('immutable', S.validateUpdate(pc('a', { value: 2, preemptionPolicy: 'Never' }), pc('a', { value: 1, preemptionPolicy: 'PreemptLowerPriority' })), [
    { type: 'FieldValueForbidden', field: 'Value' },
    { type: 'FieldValueInvalid', field: 'preemptionPolicy', msg: 'field is immutable' },
  ]);
});

test('table: Name, Value, Global-Default, Age', () => {
  assert.equal(priorityClassTable.cells(pc('a', { value: -3, globalDefault: true })), ['a', -3, true, '2024-01-01T00:00:00Z']);
  assert.equal(priorityClassTable.cells(pc('b')), ['b', 0, false, '2024-01-01T00:00:00Z']);
});

test.run();
