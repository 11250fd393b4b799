import { test } from 'uvu';
import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { schemas } from './registry.ts';
import { FieldSet, type Path, type PathElement } from './fieldpath.ts';
import { ensureNamedFieldsAreMembers, merge, prune, removeItems, validate } from './merge.ts';
import { toFieldSet, TypedError } from './typed.ts';
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

/** ensureNamedFieldsAreMembers as it was first written (every path listed, then a set): the reference below. */
function ensureByPaths(set: FieldSet, type: TypeRef | undefined): FieldSet {
  const paths: Path[] = [];
  const walk = (s: FieldSet, t: TypeRef | undefined, prefix: Path): void => {
    const atom = t?.atom;
    for (const pe of s.memberElements()) paths.push([...prefix, pe]);
    for (const { pe, set: child } of s.childEntries()) {
      let ct: TypeRef | undefined;
      if ('field' in pe && atom?.map) {
        const fd = atom.map.fields.get(pe.field);
        if (fd) paths.push([...prefix, pe]);
        ct = fd?.type ?? atom.map.elementType;
      } else if ('key' in pe && atom?.list) {
        ct = atom.list.elementType;
      }
      walk(child, ct, [...prefix, pe]);
    }
  };
  walk(set, type, []);
  return FieldSet.fromPaths(paths);
}

test('ensureNamedFieldsAreMembers (built level by level) is the set the path-list version builds, on random sets of 5 kinds', () => {
  const types = ['ConfigMap', 'Pod', 'Service', 'Namespace', 'Secret'].map(kind);
  const names = ['metadata', 'name', 'labels', 'annotations', 'finalizers', 'spec', 'status', 'containers', 'image', 'ports', 'containerPort', 'protocol', 'port', 'conditions', 'type', 'data', 'x', 'selector'];
  const element: fc.Arbitrary<PathElement> = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...names).map((field) => ({ field })) },
    fc.constantFrom<PathElement>({ key: [['name', 'a']] }, { key: [['port', 80], ['protocol', 'TCP']] }, { key: [['type', 'Ready']] }),
    fc.constantFrom<PathElement>({ value: 'a' }, { value: 1 }, { index: 0 }, { index: 2 }),
  );
  const fieldSet = fc.array(fc.array(element, { minLength: 1, maxLength: 5 }), { maxLength: 8 }).map((ps) => FieldSet.fromPaths(ps));
  fc.assert(
    fc.property(fc.option(fc.constantFrom(...types), { nil: undefined }), fieldSet, (t, s) => {
      const got = ensureNamedFieldsAreMembers(s, t);
      const want = ensureByPaths(s, t);
      assert.ok(got.equals(want), `${got}\n≠\n${want}`);
      assert.equal(got.toFieldsV1(), want.toFieldsV1());
    }),
    { numRuns: 2000 },
  );
});

/** Updater.prune as first written (every step, no shortcut): the reference for `prune`. */
function pruneReference(merged: unknown, lastSet: FieldSet, owned: FieldSet, type: TypeRef): unknown {
  if (lastSet.isEmpty()) return merged;
  const ens = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, type);
  let pruned = removeItems(merged, ens(lastSet), type);
  const mergedSet = ens(toFieldSet(merged, type));
  pruned = removeItems(merged, mergedSet.difference(ens(toFieldSet(pruned, type)).union(ens(owned))), type);
  const prunedSet = ens(toFieldSet(pruned, type));
  return removeItems(merged, mergedSet.difference(prunedSet).intersection(ens(lastSet)), type);
}

test('prune (with its shortcut when nothing unowned is near the last applied set) answers as the step-by-step prune, on random objects of 4 kinds', () => {
  const types = ['ConfigMap', 'Pod', 'Service', 'Namespace'].map(kind);
  const str = fc.constantFrom('a', 'b', 'c');
  const dict = fc.dictionary(str, str, { maxKeys: 3 });
  const container = fc.record({ name: str, image: str, ports: fc.array(fc.record({ containerPort: fc.constantFrom(80, 443), protocol: fc.constantFrom('TCP', 'UDP') }, { requiredKeys: ['containerPort'] }), { maxLength: 2 }) }, { requiredKeys: ['name'] });
  const shaped = fc.record(
    {
      apiVersion: fc.constant('v1'),
      kind: str,
      metadata: fc.record({ name: str, uid: str, labels: dict, annotations: dict, finalizers: fc.array(str, { maxLength: 2 }) }, { requiredKeys: [] }),
      data: dict,
      spec: fc.record({ containers: fc.array(container, { maxLength: 3 }), selector: dict, ports: fc.array(fc.record({ port: fc.constantFrom(80, 53), protocol: fc.constantFrom('TCP', 'UDP'), name: str }, { requiredKeys: ['port'] }), { maxLength: 2 }), finalizers: fc.array(str, { maxLength: 2 }) }, { requiredKeys: [] }),
      status: fc.record({ phase: str }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  );
  const names = ['metadata', 'name', 'labels', 'uid', 'data', 'spec', 'containers', 'image', 'ports', 'selector', 'a', 'b'];
  const element: fc.Arbitrary<PathElement> = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom(...names).map((field) => ({ field })) },
    fc.constantFrom<PathElement>({ key: [['name', 'a']] }, { key: [['name', 'b']] }, { key: [['port', 80], ['protocol', 'TCP']] }, { value: 'a' }),
  );
  const randomSet = fc.array(fc.array(element, { minLength: 1, maxLength: 4 }), { maxLength: 4 }).map((ps) => FieldSet.fromPaths(ps));
  const setOf = (t: TypeRef, v: unknown): FieldSet => {
    try {
      return toFieldSet(v, t);
    } catch (e) {
      if (e instanceof TypedError) return FieldSet.empty();
      throw e;
    }
  };
  const outcome = (f: () => unknown): unknown => {
    try {
      return { value: f() };
    } catch (e) {
      return { error: String(e) };
    }
  };
  let removedSome = 0;
  fc.assert(
    fc.property(fc.constantFrom(...types), shaped, shaped, shaped, randomSet, randomSet, fc.boolean(), (t, merged, last, other, lastExtra, ownedExtra, ownsLast) => {
      const lastSet = setOf(t, last).union(lastExtra);
      // The applier's new set (part of `owned`) is often the same fields as last time.
      const owned = setOf(t, other).union(ownedExtra).union(ownsLast ? lastSet : FieldSet.empty());
      const want = outcome(() => pruneReference(merged, lastSet, owned, t));
      const got = outcome(() => prune(merged, lastSet, owned, t));
      assert.equal(got, want);
      if ('value' in (want as object) && JSON.stringify((want as { value: unknown }).value) !== JSON.stringify(merged)) removedSome++;
    }),
    { numRuns: 3000 },
  );
  assert.ok(removedSome > 100, `only ${removedSome} cases where prune removed something`);
});

test.run();
