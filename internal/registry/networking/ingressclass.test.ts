import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { ingressClassKind, ingressClassTable, isDomainPrefixedPath } from './ingressclass.ts';
import { FieldPath } from '../../api/field-errors.ts';

const S = ingressClassKind.strategy;
const ic = (spec?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name: 'c', creationTimestamp: '2024-01-01T00:00:00Z' },
  ...(spec === undefined ? {} : { spec }),
});

test('defaults: parameters without a scope are Cluster; none without parameters', () => {
  const o = ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n' } });
  S.defaults!(o);
  assert.equal(o.spec, { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster' } });
  const p = ic({ controller: 'a.io/b' });
  S.defaults!(p);
  assert.equal(p.spec, { controller: 'a.io/b' });
});

test('IsDomainPrefixedPath: required, shape, host and path checks', () => {
  const p = new FieldPath('x');
  check('empty', isDomainPrefixedPath(p, ''), [{ type: 'FieldValueRequired', field: 'x' }]);
  check('no slash', isDomainPrefixedPath(p, 'a.io'), [{ type: 'FieldValueInvalid', field: 'x', msg: 'must be a domain-prefixed path (such as "acme.io/foo")' }]);
  check('empty path', isDomainPrefixedPath(p, 'a.io/'), [{ type: 'FieldValueInvalid', field: 'x' }]);
  check('ok', isDomainPrefixedPath(p, 'a.io/b/c:d'), []);
  check('bad path', isDomainPrefixedPath(p, 'a.io/b c'), [{ type: 'FieldValueInvalid', field: 'x', msg: 'Invalid path' }]);
});

test('validate: parameters scope/namespace rules; update keeps the controller', () => {
  check('namespace scope needs a namespace', S.validate(ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace' } })), [
    { type: 'FieldValueRequired', field: 'spec.parameters.namespace' },
  ]);
  check('cluster scope forbids one', S.validate(ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'x' } })), [
    { type: 'FieldValueForbidden', field: 'spec.parameters.namespace' },
  ]);
  check('controller immutable', S.validateUpdate(ic({ controller: 'a.io/c' }), ic({ controller: 'a.io/b' })), [{ type: 'FieldValueInvalid', field: 'spec.controller', msg: 'field is immutable' }]);
});

test('table: Name, Controller, Parameters (Kind[.group]/name or <none>), Age', () => {
  assert.equal(ingressClassTable.columns.map((c) => c.name), ['Name', 'Controller', 'Parameters', 'Age']);
  assert.equal(ingressClassTable.cells(ic({ controller: 'a.io/b', parameters: { apiGroup: 'g', kind: 'K', name: 'n' } })), ['c', 'a.io/b', 'K.g/n', '2024-01-01T00:00:00Z']);
  assert.equal(ingressClassTable.cells(ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n' } }))[2], 'K/n');
  assert.equal(ingressClassTable.cells(ic())[2], '<none>');
});

test.run();
