import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FieldSet, FieldsV1Error, parsePathElement, serializePathElement, goJson, type Path } from './fieldpath.ts';

const f = (...names: string[]): Path => names.map((field) => ({ field }));

test('FieldsV1: "." marks a member that has members below it; a leaf member is {}', () => {
  const s = FieldSet.of(f('data'), f('data', 'a'), f('metadata', 'labels', 'x'), f('metadata', 'labels'), f('type'), f('spec'));
  assert.equal(s.toFieldsV1(), {
    'f:data': { '.': {}, 'f:a': {} },
    'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } },
    'f:spec': {},
    'f:type': {},
  });
  assert.equal(JSON.stringify(Object.keys(s.toFieldsV1())), '["f:data","f:metadata","f:spec","f:type"]');
});

test('FieldsV1: element order is fields, keys, values, indexes', () => {
  const s = FieldSet.of(
    [{ field: 'l' }, { index: 1 }],
    [{ field: 'l' }, { value: 'b' }],
    [{ field: 'l' }, { value: 2 }],
    [{ field: 'l' }, { key: [['name', 'x']] }],
    [{ field: 'l' }, { field: 'z' }],
  );
  assert.equal(Object.keys((s.toFieldsV1() as any)['f:l']), ['f:z', 'k:{"name":"x"}', 'v:2', 'v:"b"', 'i:1']);
});

test('path elements: Go JSON in keys and values, parse round trip', () => {
  assert.is(serializePathElement({ key: [['name', 'a<b'], ['port', 80]] }), 'k:{"name":"a\\u003cb","port":80}');
  assert.is(serializePathElement({ value: 'example.com/f' }), 'v:"example.com/f"');
  assert.is(goJson({ b: 1, a: [true, null] }), '{"a":[true,null],"b":1}');
  for (const k of ['f:a.b/c', 'k:{"port":80,"protocol":"TCP"}', 'v:"x"', 'v:3', 'i:0']) assert.is(serializePathElement(parsePathElement(k)!), k);
  // Keys are sorted whatever order the document had.
  assert.is(serializePathElement(parsePathElement('k:{"protocol":"TCP","port":80}')!), 'k:{"port":80,"protocol":"TCP"}');
  assert.is(parsePathElement('x:unknown'), undefined);
  assert.throws(() => parsePathElement('k:{bad'), (e: unknown) => e instanceof FieldsV1Error);
  assert.throws(() => parsePathElement('nocolon'), (e: unknown) => e instanceof FieldsV1Error);
});

test('FieldsV1 parse: members, "." and unknown element types', () => {
  const doc = { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } }, 'f:spec': {}, 'q:skip': {} };
  const s = FieldSet.fromFieldsV1(doc);
  assert.ok(s.has(f('data')));
  assert.ok(s.has(f('data', 'a')));
  assert.not.ok(s.has(f('metadata')));
  assert.not.ok(s.has(f('metadata', 'labels')));
  assert.ok(s.has(f('metadata', 'labels', 'x')));
  assert.ok(s.has(f('spec')));
  assert.equal(s.toFieldsV1(), { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:x': {} } }, 'f:spec': {} });
  assert.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }), (e: unknown) => e instanceof FieldsV1Error);
  assert.ok(FieldSet.fromFieldsV1({}).isEmpty());
});

test('set operations: difference is exact, recursiveDifference removes subtrees', () => {
  const s = FieldSet.of(f('a'), f('a', 'b'), f('a', 'b', 'c'), f('d'));
  const minusAB = s.difference(FieldSet.of(f('a', 'b')));
  assert.ok(minusAB.has(f('a', 'b', 'c')));
  assert.not.ok(minusAB.has(f('a', 'b')));
  const recursive = s.recursiveDifference(FieldSet.of(f('a', 'b')));
  assert.equal(recursive.toFieldsV1(), { 'f:a': {}, 'f:d': {} });
  assert.equal(s.intersection(FieldSet.of(f('a', 'b', 'c'), f('x'))).toFieldsV1(), { 'f:a': { 'f:b': { 'f:c': {} } } });
  assert.ok(s.union(FieldSet.of(f('x'))).has(f('x')));
  assert.ok(s.equals(FieldSet.fromFieldsV1(s.toFieldsV1())));
  assert.not.ok(s.equals(minusAB));
  // Differences never leave empty nodes behind.
  assert.ok(FieldSet.of(f('a', 'b')).difference(FieldSet.of(f('a', 'b'))).isEmpty());
  assert.is(s.toString(), '.a\n.d\n.a.b\n.a.b.c');
});

test.run();
