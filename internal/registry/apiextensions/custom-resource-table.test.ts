import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { customResourceTable, parseSimpleJSONPath } from './custom-resource-table.ts';

test('simple JSONPaths: fields, indices, quoted keys; anything else is not one', () => {
  assert.equal(parseSimpleJSONPath('.spec.size'), ['spec', 'size']);
  assert.equal(parseSimpleJSONPath('.status.conditions[0].type'), ['status', 'conditions', 0, 'type']);
  assert.equal(parseSimpleJSONPath(`.metadata.labels['app.kubernetes.io/name']`), ['metadata', 'labels', 'app.kubernetes.io/name']);
  assert.equal(parseSimpleJSONPath('.metadata.labels["a"]'), ['metadata', 'labels', 'a']);
  assert.is(parseSimpleJSONPath('.status.conditions[?(@.type=="Ready")].status'), null);
  assert.is(parseSimpleJSONPath('spec'), null);
});

test('cells by column type: missing or mistyped values are null, string columns print any value', () => {
  const table = customResourceTable([
    { name: 'I', type: 'integer', jsonPath: '.spec.i' },
    { name: 'N', type: 'number', jsonPath: '.spec.n' },
    { name: 'B', type: 'boolean', jsonPath: '.spec.b' },
    { name: 'S', type: 'string', jsonPath: '.spec.obj' },
    { name: 'F', type: 'string', jsonPath: '.spec.f' },
    { name: 'M', type: 'string', jsonPath: '.spec.missing' },
    { name: 'D', type: 'date', jsonPath: '.spec.d' },
    { name: 'X', type: 'integer', jsonPath: '.spec.b' },
    { name: 'L', type: 'string', jsonPath: `.metadata.labels['a.b/c']` },
  ]);
  const obj = { metadata: { name: 'n', labels: { 'a.b/c': 'v' } }, spec: { i: 2.7, n: 3, b: true, obj: { x: [1] }, f: 1e21, d: 'nope' } } as unknown as KubeObject;
  assert.equal(table.cells(obj), ['n', 2, 3, true, '{"x":[1]}', '1e+21', null, '<invalid>', null, 'v']);
  assert.equal(table.columns.map((c) => c.name), ['Name', 'I', 'N', 'B', 'S', 'F', 'M', 'D', 'X', 'L']);
});

test('no columns declared: Name and an Age date column', () => {
  const table = customResourceTable([]);
  assert.equal(table.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
  const created = new Date(Date.now() - 90_000).toISOString().replace(/\.\d+Z$/, 'Z');
  assert.equal(table.cells({ metadata: { name: 'x', creationTimestamp: created } } as KubeObject), ['x', '90s']);
});

test.run();
