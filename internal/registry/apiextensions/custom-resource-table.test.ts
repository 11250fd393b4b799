import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { customResourceTable } from './custom-resource-table.ts';

// The cells the reference kube-apiserver 1.24.17 answered for these columns on this object
// (recorded with a preserve-unknown-fields CRD; `.spec.*` over a map is left out: Go's map order
// is random).
test('client-go JSONPath forms: filters, slices, unions, recursive descent, dict keys, as the reference answers', () => {
  const cols: [string, 'string' | 'integer' | 'number' | 'boolean', string, unknown][] = [
    ['c1', 'string', '.status.conditions[?(@.type=="Ready")].status', 'False'],
    ['c2', 'string', ".status.conditions[?(@.type!='Ready')].type", 'Init'],
    ['c3', 'string', ".metadata.labels['app.kubernetes.io/name']", null],
    ['c4', 'string', '.metadata.labels.app\\.kubernetes\\.io/name', 'web'],
    ['c5', 'integer', '.spec.items[-1]', 4],
    ['c6', 'string', '.spec.items[*]', '1'],
    ['c7', 'string', '.spec.items[1:3]', '2'],
    ['c8', 'integer', '.spec.items[?(@ > 2)]', 3],
    ['c9', 'string', '..name', 'j1'],
    ['c10', 'string', '.spec.items[0,2]', '1'],
    ['c11', 'string', '.spec.obj', '{"a":1,"b":["x"]}'],
    ['c12', 'integer', '.spec.items[9]', null],
    ['c13', 'string', '.status.conditions[?(@.num==1.5)].type', null],
    ['c14', 'string', '.status.conditions[?(@.num)].type', 'Init'],
    ['c16', 'number', '.spec.f', 1.5],
    ['c17', 'string', '.spec.f', '1.5'],
    ['c18', 'string', '.spec.b', 'true'],
    ['c19', 'boolean', '.spec.b', true],
    ['c20', 'string', '.status.conditions[?(@.num>1)].type', null],
    ['c21', 'string', '.spec.nul', null],
    ['c22', 'string', '.spec.items[1:]', '2'],
  ];
  const table = customResourceTable(cols.map(([name, type, jsonPath]) => ({ name, type, jsonPath })));
  const obj = {
    metadata: { name: 'j1', namespace: 'p1', labels: { 'app.kubernetes.io/name': 'web' } },
    spec: { items: [1, 2, 3, 4], obj: { b: ['x'], a: 1 }, f: 1.5, b: true, nul: null },
    status: { conditions: [{ type: 'Init', status: 'True', num: 1 }, { type: 'Ready', status: 'False', num: 1.5 }, { type: 'Other', status: 'x', num: 2 }] },
  } as unknown as KubeObject;
  assert.equal(table.cells(obj), ['j1', ...cols.map((c) => c[3])]);
});

test('paths client-go does not parse find nothing', () => {
  const table = customResourceTable([
    { name: 'a', type: 'string', jsonPath: '.spec[' },
    { name: 'b', type: 'string', jsonPath: '.metadata.labels["a"]' },
    { name: 'c', type: 'string', jsonPath: '.spec.x[?(@.y=="z"]' },
  ]);
  assert.equal(table.cells({ metadata: { name: 'n', labels: { a: 'v' } }, spec: { x: [{ y: 'z' }] } } as unknown as KubeObject), ['n', null, null, null]);
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
    { name: 'L', type: 'string', jsonPath: `.metadata.labels.a\\.b/c` },
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
