import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generatedSource, schemas, SchemaRegistry, StaticSource } from './registry.ts';
import fc from 'fast-check';
import { changedFieldsV1, compare, excludeFields, isSame, toFieldSet, TypedError } from './typed.ts';
import { FieldSet } from './fieldpath.ts';
import type { TypeRef } from './types.ts';

const kind = (k: string): TypeRef => schemas().typeOf({ group: '', version: 'v1', kind: k })!;
const v1 = (c: ReturnType<typeof compare>) => ({ added: c.added.toFieldsV1(), modified: c.modified.toFieldsV1(), removed: c.removed.toFieldsV1() });

test('compare: create from the empty object adds containers and their entries', () => {
  const c = compare({ metadata: {} }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: '1' } }, data: { k: 'v' } }, kind('ConfigMap'));
  assert.equal(v1(c), {
    added: { 'f:apiVersion': {}, 'f:data': { '.': {}, 'f:k': {} }, 'f:kind': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} }, 'f:name': {} } },
    modified: {},
    removed: {},
  });
});

test('compare: modified leaves, removed subtrees, empty containers are leaves', () => {
  const before = { metadata: { labels: { a: '1', b: '2' } }, data: { x: '1' }, binaryData: { y: 'AA==' } };
  const after = { metadata: { labels: { a: '9', b: '2' } }, data: { x: '1' } };
  assert.equal(v1(compare(before, after, kind('ConfigMap'))), {
    added: {},
    modified: { 'f:metadata': { 'f:labels': { 'f:a': {} } } },
    removed: { 'f:binaryData': { '.': {}, 'f:y': {} } },
  });
  assert.ok(isSame(compare(before, structuredClone(before), kind('ConfigMap'))));
});

test('compare: sets, associative lists and atomic lists', () => {
  const ns = kind('Namespace');
  const c = compare(
    { metadata: { finalizers: ['a', 'b'] }, spec: { finalizers: ['kubernetes'] }, status: { conditions: [{ type: 'X', status: 'True' }] } },
    { metadata: { finalizers: ['b', 'c'] }, spec: { finalizers: ['kubernetes', 'x'] }, status: { conditions: [{ type: 'X', status: 'False' }, { type: 'Y', status: 'True' }] } },
    ns,
  );
  assert.equal(v1(c), {
    // A new condition is added with its zero lastTransitionTime (Go writes it as null).
    added: { 'f:metadata': { 'f:finalizers': { 'v:"c"': {} } }, 'f:status': { 'f:conditions': { 'k:{"type":"Y"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } } } },
    modified: { 'f:spec': { 'f:finalizers': {} }, 'f:status': { 'f:conditions': { 'k:{"type":"X"}': { 'f:status': {} } } } },
    removed: { 'f:metadata': { 'f:finalizers': { 'v:"a"': {} } } },
  });
});

test('compare: Go presence (omitempty zeros absent, value structs present, unknown fields ignored)', () => {
  const ns = kind('Namespace');
  // spec {} vs absent: the same Go object.
  assert.ok(isSame(compare({ metadata: {}, spec: {} }, { metadata: {} }, ns)));
  // finalizers [] is omitted by Go: removing the last finalizer removes the field.
  assert.equal(v1(compare({ metadata: {}, spec: { finalizers: ['k'] } }, { metadata: {}, spec: { finalizers: [] } }, ns)).removed, { 'f:spec': { 'f:finalizers': {} } });
  assert.ok(isSame(compare({ metadata: { generateName: '' } }, { metadata: {}, bogus: 1 }, kind('ConfigMap'))));
  // A JSON null is absent.
  assert.ok(isSame(compare({ metadata: { labels: null } }, { metadata: {} }, kind('ConfigMap'))));
});

test('compare: duplicate set items are an error, as in SMD', () => {
  assert.throws(() => compare({ metadata: {} }, { metadata: { finalizers: ['a', 'a'] } }, kind('ConfigMap')), (e: unknown) => e instanceof TypedError);
});

test('excludeFields drops reset fields from every part', () => {
  const c = compare({ metadata: {}, status: { phase: 'Active' } }, { metadata: { labels: { a: 'b' } }, status: { phase: 'Terminating' } }, kind('Namespace'));
  const e = excludeFields(c, FieldSet.of([{ field: 'status' }]));
  assert.equal(v1(e), { added: { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }, modified: {}, removed: {} });
});

test('toFieldSet: what an applied object sets', () => {
  const s = toFieldSet(
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: '1' }, annotations: {} }, data: { k: 'v' } },
    kind('ConfigMap'),
  );
  assert.equal(s.toFieldsV1(), { 'f:apiVersion': {}, 'f:data': { 'f:k': {} }, 'f:kind': {}, 'f:metadata': { 'f:annotations': {}, 'f:labels': { 'f:a': {} }, 'f:name': {} } });
  const svc = toFieldSet({ spec: { ports: [{ port: 80, protocol: 'TCP', name: 'http' }], selector: { app: 'x' } } }, kind('Service'));
  assert.equal(svc.toFieldsV1(), { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } }, 'f:selector': {} } });
});

test('CRD schemas work the same way (no Go presence rules)', () => {
  const r = new SchemaRegistry();
  r.register(
    new StaticSource([
      {
        gvk: { group: 'example.com', version: 'v1', kind: 'W' },
        schema: { type: 'object', properties: { spec: { type: 'object', properties: { tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, n: { type: 'integer' } } } } },
      },
    ]),
  );
  const w = r.typeOf({ group: 'example.com', version: 'v1', kind: 'W' })!;
  assert.equal(v1(compare({}, { spec: { tags: ['a'], n: 0 } }, w)).added, { 'f:spec': { '.': {}, 'f:n': {}, 'f:tags': { '.': {}, 'v:"a"': {} } } });
});

// What changedFieldsV1 must equal: the writer's fields as managedFields' Update step builds them from compare.
function changedByCompare(l: unknown, r: unknown, t: TypeRef, ignored?: FieldSet, stripped?: FieldSet): string {
  try {
    const c = excludeFields(compare(l, r, t), ignored);
    let mine = c.modified.union(c.added).difference(c.removed);
    if (ignored) mine = mine.recursiveDifference(ignored);
    if (stripped) mine = mine.difference(stripped);
    return JSON.stringify(mine.toFieldsV1());
  } catch (e) {
    if (e instanceof TypedError) return 'TypedError';
    throw e;
  }
}
function changedDirect(l: unknown, r: unknown, t: TypeRef, ignored?: FieldSet, stripped?: FieldSet): string {
  try {
    return JSON.stringify(changedFieldsV1(l, r, t, ignored, stripped));
  } catch (e) {
    if (e instanceof TypedError) return 'TypedError';
    throw e;
  }
}

test('changedFieldsV1: a create of a custom resource and of a Pod, as compare has them', () => {
  const pod = { metadata: { name: 'p', labels: { a: '1' } }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }] }] } };
  const strip = FieldSet.of([{ field: 'metadata' }, { field: 'name' }]);
  // A Pod's spec is a Go struct, present on both sides: no "." for it.
  assert.equal(changedFieldsV1({ metadata: {} }, pod, kind('Pod'), FieldSet.of([{ field: 'status' }]), strip), JSON.parse(changedByCompare({ metadata: {} }, pod, kind('Pod'), FieldSet.of([{ field: 'status' }]), strip)));
  assert.equal(changedDirect({ metadata: {} }, { metadata: { finalizers: ['a', 'a'] } }, kind('ConfigMap')), 'TypedError');
});

test('changedFieldsV1 equals compare (modified ∪ added, less ignored and stripped) on random objects', () => {
  const r = new SchemaRegistry([
    new StaticSource([
      {
        gvk: { group: 'example.com', version: 'v1', kind: 'W' },
        schema: {
          type: 'object',
          properties: {
            metadata: { $ref: 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
            spec: {
              type: 'object',
              properties: {
                tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                items: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'integer' }, a: { type: 'object', 'x-kubernetes-map-type': 'atomic' } } } },
                a: { type: 'object', additionalProperties: { type: 'string' } },
                b: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                value: { type: 'integer' },
                name: { type: 'string' },
              },
            },
          },
        },
      },
    ]),
    generatedSource(),
  ]);
  const types = [kind('ConfigMap'), kind('Pod'), kind('Namespace'), kind('Service'), r.typeOf({ group: 'example.com', version: 'v1', kind: 'W' })!];
  const names = ['metadata', 'name', 'labels', 'finalizers', 'creationTimestamp', 'spec', 'status', 'containers', 'image', 'ports', 'containerPort', 'protocol', 'port', 'conditions', 'type', 'data', 'tags', 'items', 'value', 'a', 'b', 'x', '\u{1F600}', '\uE000'];
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('a', 'b', '', 'TCP', 0, 1, 80, true, false, null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...names), tie('value'), { maxKeys: 5 }),
    ),
  }));
  const obj = fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 5 });
  const fieldSet = fc.array(fc.array(fc.constantFrom('metadata', 'name', 'spec', 'status', 'labels', 'a'), { minLength: 1, maxLength: 3 }), { maxLength: 3 }).map((ps) => FieldSet.fromPaths(ps.map((p) => p.map((field) => ({ field })))));
  fc.assert(
    fc.property(fc.constantFrom(...types), fc.oneof(fc.constant({ metadata: {} }), obj), obj, fc.option(fieldSet, { nil: undefined }), fc.option(fieldSet, { nil: undefined }), (t, l, rhs, ign, strip) => {
      assert.is(changedDirect(l, rhs, t, ign, strip), changedByCompare(l, rhs, t, ign, strip));
    }),
    { numRuns: 1500 },
  );
});

test.run();
