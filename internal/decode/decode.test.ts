import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalQuantity } from './quantity.ts';
import { canonicalTime, canonicalMicroTime } from './time.ts';
import { base64Error, SchemaDecoder, GoDecodeError } from './decode.ts';
import { parseJson } from './json-parse.ts';
import { generatedSource } from '../schema/registry.ts';

test('quantities: canonical forms as kube-apiserver 1.24 stores them (checked on the reference)', () => {
  const cases: Record<string, string> = {
    '1.5Gi': '1536Mi', '1000m': '1', '0.5': '500m', '1024': '1024', '1.5': '1500m', '2048Ki': '2Mi', '1e3': '1e3',
    '1500e-3': '1500e-3', '1E': '1E', '100M': '100M', '1.5k': '1500', '+1': '+1', '0.5Ki': '512', '1Ki': '1Ki',
    '1100m': '1100m', '10e9': '10e9', '01': '01', '1.G': '1.G', '0.5Gi': '512Mi', '1.5e3': '1500', '1.0': '1',
    '12345678901234567890': '12345678901234567890', '0.0000000001': '1n',
  };
  for (const [k, v] of Object.entries(cases)) assert.is(canonicalQuantity(k), v, k);
  assert.throws(() => canonicalQuantity('abc'), /quantities must match the regular expression/);
  assert.throws(() => canonicalQuantity('5e'), /unable to parse quantity's suffix/);
});

test('times: RFC 3339 in, UTC seconds (Time) or microseconds (MicroTime) out', () => {
  assert.is(canonicalTime('2024-01-02T03:04:05.999+02:00'), '2024-01-02T01:04:05Z');
  assert.is(canonicalMicroTime('2024-01-02T03:04:05.123456+01:00'), '2024-01-02T02:04:05.123456Z');
  assert.throws(() => canonicalMicroTime('2024-01-02T03:04:05Z'), /cannot parse "Z" as ".000000"/);
  assert.throws(() => canonicalTime('bad'), /parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"/);
  assert.throws(() => canonicalTime('2024-01-02 03:04:05Z'), /cannot parse " 03:04:05Z" as "T"/);
});

test('base64: positions as Go reports them', () => {
  assert.is(base64Error('YWJj'), undefined);
  assert.is(base64Error('YQ=='), undefined);
  assert.is(base64Error('!!!'), 0);
  assert.is(base64Error('YWJjZ'), 4);
  assert.is(base64Error('YWJj\nZA=='), undefined);
});

test('duplicate keys: objects merge, others replace; paths reported', () => {
  const p = parseJson('{"a":{"x":1},"a":{"y":2},"b":1,"b":2,"c":[{"k":1,"k":2}]}');
  assert.equal(p.value, { a: { x: 1, y: 2 }, b: 2, c: [{ k: 2 }] });
  assert.equal(p.duplicates, ['a', 'b', 'c[0].k']);
});

test('bodies without numbers or duplicates parse natively, and the rest as before', () => {
  const cases: [string, unknown, string[], [string, string][]][] = [
    ['{"a":"x\\"y","b":{"c":"\\\\"}}', { a: 'x"y', b: { c: '\\' } }, [], []],
    ['{"a":"\\"","a":"2"}', { a: '2' }, ['a'], []],
    ['{"m":{"a":"1"},"m":{"b":"2"}}', { m: { a: '1', b: '2' } }, ['m'], []],
    ['{"l":[{"k":"1","k":"1"}]}', { l: [{ k: '1' }] }, ['l[0].k'], []],
    ['{"a":true,"b":null,"c":[],"d":{}}', { a: true, b: null, c: [], d: {} }, [], []],
    ['{"n":1.0,"s":"x"}', { n: 1, s: 'x' }, [], [['n', '1.0']]],
    ['{"__proto__":{"x":"1"}}', JSON.parse('{"__proto__":{"x":"1"}}'), [], []],
  ];
  for (const [text, value, duplicates, literals] of cases) {
    const p = parseJson(text);
    assert.equal(p.value, value, text);
    assert.equal(p.duplicates, duplicates, `${text}: duplicates`);
    assert.equal([...p.literals], literals, `${text}: literals`);
  }
  assert.throws(() => parseJson('{"a":"1",}'), /invalid character '}' looking for beginning of object key string/);
});

test('decoder: unknown paths, Go order, omitempty, first type error', () => {
  const d = new SchemaDecoder(generatedSource());
  const out = d.decode({ data: { b: '2', a: '1' }, metadata: { labels: {}, name: 'x', foo: 1, ownerReferences: [{ uid: 'u', bar: 1 }] }, kind: 'ConfigMap', zzz: 1 }, 'io.k8s.api.core.v1.ConfigMap');
  assert.equal(out.unknown, ['metadata.foo', 'metadata.ownerReferences[0].bar', 'zzz']);
  assert.is(JSON.stringify(out.value), '{"kind":"ConfigMap","metadata":{"name":"x","creationTimestamp":null,"ownerReferences":[{"apiVersion":"","kind":"","name":"","uid":"u"}]},"data":{"a":"1","b":"2"}}');
  assert.throws(() => d.decode({ data: { a: 1 }, immutable: 'x' }, 'io.k8s.api.core.v1.ConfigMap'), (e: unknown) => e instanceof GoDecodeError && e.message === 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
});

test('an empty list without omitempty reads back null (Protobuf storage), and is kept when decoding', () => {
  const d = new SchemaDecoder(generatedSource());
  const node = { kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers: [] } };
  assert.equal((d.decode(structuredClone(node), 'io.k8s.api.storage.v1.CSINode').value as any).spec, { drivers: null });
  assert.equal((d.decode(structuredClone(node), 'io.k8s.api.storage.v1.CSINode', 'decode').value as any).spec, { drivers: [] });
  const drv = { kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers: [{ name: 'a', nodeID: 'n', topologyKeys: [] }] } };
  assert.equal((d.decode(drv, 'io.k8s.api.storage.v1.CSINode').value as any).spec.drivers[0], { name: 'a', nodeID: 'n', topologyKeys: null });
});

test('parseJson: a body with numbers written as JavaScript writes them back gives what the parser gives; duplicates and literals still found', () => {
  const p = parseJson('{"a":{"n":3,"f":0.5,"neg":-2},"s":"x:\\"1.0\\"","l":[1,2,{"k":10}]}');
  assert.equal(p.value, { a: { n: 3, f: 0.5, neg: -2 }, s: 'x:"1.0"', l: [1, 2, { k: 10 }] });
  assert.equal(p.duplicates, []);
  assert.is(p.literals.size, 0);
  const dup = parseJson('{"a":1,"b":2,"a":3}');
  assert.equal(dup.duplicates, ['a']);
  assert.equal(dup.value, { a: 3, b: 2 });
  const lit = parseJson('{"a":1.0,"b":1e3,"c":-0,"d":5}');
  assert.equal([...lit.literals], [['a', '1.0'], ['b', '1e3'], ['c', '-0']]);
  const proto = parseJson('{"__proto__":{"x":1},"n":1}');
  assert.ok(Object.hasOwn(proto.value as object, '__proto__'));
  assert.equal(Object.getPrototypeOf(proto.value), Object.prototype);
});

test.run();
