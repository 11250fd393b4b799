import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { runtimeClassKind, runtimeClassTable, runtimeClassV1beta1Kind } from './runtimeclass.ts';

const S = runtimeClassKind.strategy;
const rc = (fields: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'r', creationTimestamp: '2024-01-01T00:00:00Z' }, ...fields });

test('descriptor: PUT creates, updates need a resourceVersion; v1beta1 is a deprecated view of v1', () => {
  assert.is(S.allowCreateOnUpdate, true);
  assert.is(S.allowUnconditionalUpdate, false);
  assert.is(S.defaults, undefined);
  assert.equal(runtimeClassV1beta1Kind.versions, ['v1beta1']);
  assert.equal(runtimeClassV1beta1Kind.storedAs?.version, 'v1');
  assert.equal(runtimeClassV1beta1Kind.storedAs?.fromStorage(rc()).apiVersion, 'node.k8s.io/v1beta1');
});

test('validate: handler label, overhead quantities, duplicate tolerations; handler immutable', () => {
  check('ok', S.validate(rc({ handler: 'runc' })), []);
  check('handler', S.validate(rc({ handler: 'Bad' })), [{ type: 'FieldValueInvalid', field: 'handler' }]);
  check('overhead', S.validate(rc({ handler: 'h', overhead: { podFixed: { cpu: '-1' } } })), [{ type: 'FieldValueInvalid', field: 'overhead.limits[cpu]' }]);
  const tol = { key: 'a', operator: 'Exists' };
  check('dup', S.validate(rc({ handler: 'h', scheduling: { tolerations: [tol, tol] } })), [{ type: 'FieldValueDuplicate', field: 'scheduling.tolerations[1]', msg: 'core.Toleration{Key:"a", Operator:"Exists", Value:"", Effect:"", TolerationSeconds:(*int64)(nil)}' }]);
  check('immutable', S.validateUpdate(rc({ handler: 'b' }), rc({ handler: 'a' })), [{ type: 'FieldValueInvalid', field: 'handler', msg: 'field is immutable' }]);
});

test('table: Name, Handler (no description, as kube), Age', () => {
  assert.equal(runtimeClassTable.columns.map((c) => [c.name, c.description]), [['Name', runtimeClassTable.columns[0]!.description], ['Handler', ''], ['Age', runtimeClassTable.columns[2]!.description]]);
  assert.equal(runtimeClassTable.cells(rc({ handler: 'h' })), ['r', 'h', '2024-01-01T00:00:00Z']);
});

test.run();
