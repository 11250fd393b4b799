import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { schemas } from './registry.ts';
import { FieldSet, type Path } from './fieldpath.ts';
import { ensureNamedFieldsAreMembers, merge, removeItems, validate } from './merge.ts';
import type { TypeRef } from './types.ts';

const kind = (k: string): TypeRef => schemas().typeOf({ group: '', version: 'v1', kind: k })!;
const f = (...names: string[]): Path => names.map((field) => ({ field }));

test('merge: table of schema-driven merges (granular maps, map lists, sets, atomic lists)', () => {
  const cases: Array<{ name: string; kind: string; live: unknown; applied: unknown; want: unknown }> = [
    { name: 'granular map: keys merge', kind: 'ConfigMap', live: { data: { a: '1', b: '2' } }, applied: { data: { b: 'x', c: '3' } }, want: { data: { a: '1', b: 'x', c: '3' } } },
    { name: 'absent live', kind: 'ConfigMap', live: undefined, applied: { data: { a: '1' } }, want: { data: { a: '1' } } },
    { name: 'applied null replaces', kind: 'ConfigMap', live: { data: { a: '1' } }, applied: { data: { a: null } }, want: { data: { a: null } } },
    {
      name: 'map list keyed by port+protocol (protocol defaulted): items merge, live-only items kept in place',
      kind: 'Service',
      live: { spec: { ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }, { port: 53, protocol: 'UDP' }] } },
      applied: { spec: { ports: [{ port: 443 }, { port: 80, name: 'http' }] } },
      want: { spec: { ports: [{ port: 443 }, { port: 80, protocol: 'TCP', targetPort: 8080, name: 'http' }, { port: 53, protocol: 'UDP' }] } },
    },
    { name: 'atomic list replaced whole', kind: 'Service', live: { spec: { externalIPs: ['1.1.1.1', '2.2.2.2'] } }, applied: { spec: { externalIPs: ['3.3.3.3'] } }, want: { spec: { externalIPs: ['3.3.3.3'] } } },
    { name: 'set: union, applied order first for shared', kind: 'ConfigMap', live: { metadata: { finalizers: ['a', 'b'] } }, applied: { metadata: { finalizers: ['c', 'a'] } }, want: { metadata: { finalizers: ['c', 'a', 'b'] } } },
  ];
  for (const c of cases) assert.equal(merge(c.live, c.applied, kind(c.kind)), c.want, c.name);
});

test('removeItems: paths removed; emptied containers become null (SMD)', () => {
  const cm = kind('ConfigMap');
  assert.equal(removeItems({ data: { a: '1', b: '2' } }, FieldSet.of(f('data', 'a')), cm), { data: { b: '2' } });
  assert.equal(removeItems({ data: { a: '1' }, kind: 'ConfigMap' }, FieldSet.of(f('data', 'a')), cm), { data: null, kind: 'ConfigMap' });
  const svc = kind('Service');
  const ports = { spec: { ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] } };
  const udp: Path = [...f('spec', 'ports'), { key: [['port', 53], ['protocol', 'UDP']] }];
  assert.equal(removeItems(ports, FieldSet.of(udp), svc), { spec: { ports: [{ port: 80, protocol: 'TCP' }] } });
});

test('ensureNamedFieldsAreMembers: struct fields on the way become members, map keys do not', () => {
  const set = FieldSet.of(f('data', 'a'), f('spec', 'x'));
  const out = ensureNamedFieldsAreMembers(set, kind('ConfigMap'));
  assert.ok(out.has(f('data')), 'data is a named field of ConfigMap');
  assert.ok(out.has(f('data', 'a')));
  assert.not.ok(out.has(f('spec')), 'spec is not a ConfigMap field');
  const labels = ensureNamedFieldsAreMembers(FieldSet.of(f('metadata', 'labels', 'x')), kind('ConfigMap'));
  assert.ok(labels.has(f('metadata')) && labels.has(f('metadata', 'labels')) && labels.has(f('metadata', 'labels', 'x')));
});

test('validate: SMD messages for unknown fields, wrong scalars, duplicate and keyless list items', () => {
  const cm = kind('ConfigMap');
  assert.is(validate({ apiVersion: 'v1', data: { a: 'x' } }, cm), undefined);
  assert.is(validate({ foo: 1 }, cm), '.foo: field not declared in schema');
  assert.is(validate({ data: { a: 1 } }, cm), '.data.a: expected string, got &value.valueUnstructured{Value:1}');
  assert.is(validate({ immutable: 'yes' }, cm), '.immutable: expected boolean, got &{yes}');
  assert.is(validate({ foo: 1, bar: 2 }, cm), 'errors:\n  .foo: field not declared in schema\n  .bar: field not declared in schema');
  const svc = kind('Service');
  assert.is(validate({ spec: { ports: [{ port: 80 }, { port: 80, protocol: 'TCP' }] } }, svc), '.spec.ports: duplicate entries for key [port=80,protocol="TCP"]');
  // A key field that a non-omitempty Go scalar backs defaults to its zero value (port 0), as in kube.
  assert.is(validate({ spec: { ports: [{ name: 'x' }] } }, svc), undefined);
  assert.is(validate({ spec: { ports: ['x'] } }, svc), '.spec.ports: element 0: associative list with keys may not have non-map elements');
  assert.is(validate({ spec: { ports: [{ port: 'http' }] } }, svc), '.spec.ports[port="http",protocol="TCP"].port: expected numeric (int or float), got string');
});

test.run();
