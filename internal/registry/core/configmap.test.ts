import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want, type UpdateCase } from './testing.ts';
import { configMapKind, decodeBase64Std } from './configmap.ts';


const cm = (fields: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', resourceVersion: '1' },
  ...fields,
});

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const MiB = 1024 * 1024;
const S = configMapKind.strategy;

test('descriptor', () => {
  assert.is(configMapKind.resource, 'configmaps');
  assert.is(configMapKind.kind, 'ConfigMap');
  assert.is(configMapKind.group, '');
  assert.equal(configMapKind.versions, ['v1']);
  assert.ok(configMapKind.namespaced);
  assert.equal(configMapKind.shortNames, ['cm']);
  assert.is(configMapKind.deleteReturns, 'Status');
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
});

interface CreateCase {
  name: string;
  obj: KubeObject;
  want: Want[];
}

const createCases: CreateCase[] = [
  { name: 'empty', obj: cm(), want: [] },
  { name: 'data and binaryData', obj: cm({ data: { 'a.conf': 'x=1', B_2: '' }, binaryData: { 'bin-1': b64(Buffer.from([0, 255, 1])) } }), want: [] },
  { name: 'immutable true', obj: cm({ immutable: true, data: { a: 'b' } }), want: [] },
  {
    name: 'bad data key',
    obj: cm({ data: { 'a/b': 'x' } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[a/b]', msg: 'data[a/b]: Invalid value: "a/b": a valid config key must consist of' }],
  },
  { name: "data key '..x'", obj: cm({ data: { '..x': 'v' } }), want: [{ type: 'FieldValueInvalid', field: 'data[..x]', msg: "must not start with '..'" }] },
  { name: 'bad binaryData key', obj: cm({ binaryData: { '.': b64('x') } }), want: [{ type: 'FieldValueInvalid', field: 'binaryData[.]', msg: "must not be '.'" }] },
  {
    name: 'key in both',
    obj: cm({ data: { k: 'v' }, binaryData: { k: b64('v') } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[k]', msg: 'data[k]: Invalid value: "k": duplicate of key present in binaryData' }],
  },
  {
    name: 'invalid base64',
    obj: cm({ binaryData: { k: 'not base64!' } }),
    want: [{ type: 'FieldValueInvalid', field: 'binaryData[k]', msg: 'illegal base64 data at input byte 3' }],
  },
  { name: 'unpadded base64', obj: cm({ binaryData: { k: 'YWJjZA' } }), want: [{ type: 'FieldValueInvalid', field: 'binaryData[k]', msg: 'illegal base64 data at input byte 4' }] },
  { name: 'non-string data value', obj: cm({ data: { k: 5 } as unknown as Record<string, string> }), want: [{ type: 'FieldValueInvalid', field: 'data[k]' }] },
  { name: 'non-boolean immutable', obj: cm({ immutable: 'yes' }), want: [{ type: 'FieldValueInvalid', field: 'immutable' }] },
  { name: 'exactly 1 MiB of data', obj: cm({ data: { a: 'x'.repeat(MiB - 10), b: 'y'.repeat(10) } }), want: [] },
  {
    name: 'over 1 MiB of data',
    obj: cm({ data: { a: 'x'.repeat(MiB) }, binaryData: { b: b64('z') } }),
    want: [{ type: 'FieldValueTooLong', field: '[]', msg: '[]: Too long: must have at most 1048576 bytes' }],
  },
  // size counts decoded bytes: 1 MiB of bytes is ~1.33 MiB of base64 and still fits
  { name: 'binaryData measured decoded', obj: cm({ binaryData: { b: b64(Buffer.alloc(MiB)) } }), want: [] },
  {
    name: 'binaryData over limit decoded',
    obj: cm({ binaryData: { b: b64(Buffer.alloc(MiB + 1)) } }),
    want: [{ type: 'FieldValueTooLong', field: '[]' }],
  },
  // multi-byte characters count in UTF-8 bytes
  { name: 'utf-8 bytes counted', obj: cm({ data: { a: 'é'.repeat(MiB / 2 + 1) } }), want: [{ type: 'FieldValueTooLong', field: '[]' }] },
];

createCases.forEach((c, i) => {
  test(`create case ${i}: ${c.name}`, () => {
    check(`create case ${i} (${c.name})`, S.validate(c.obj), c.want);
  });
});

const IMM = 'field is immutable when `immutable` is set';
const updateCases: UpdateCase[] = [
  { name: 'mutable: data changes', old: cm({ data: { a: '1' } }), new: cm({ data: { a: '2' } }), want: [] },
  { name: 'mutable → immutable', old: cm({ data: { a: '1' } }), new: cm({ data: { a: '1' }, immutable: true }), want: [] },
  { name: 'immutable: labels change only', old: cm({ immutable: true, data: { a: '1' } }), new: { ...cm({ immutable: true, data: { a: '1' } }), metadata: { name: 'c', namespace: 'default', labels: { x: 'y' } } }, want: [] },
  {
    name: 'immutable: data change',
    old: cm({ immutable: true, data: { a: '1' } }),
    new: cm({ immutable: true, data: { a: '2' } }),
    want: [{ type: 'FieldValueForbidden', field: 'data', msg: `data: Forbidden: ${IMM}` }],
  },
  {
    name: 'immutable: data key added',
    old: cm({ immutable: true, data: { a: '1' } }),
    new: cm({ immutable: true, data: { a: '1', b: '2' } }),
    want: [{ type: 'FieldValueForbidden', field: 'data' }],
  },
  {
    name: 'immutable: binaryData change',
    old: cm({ immutable: true, binaryData: { a: b64('1') } }),
    new: cm({ immutable: true, binaryData: { a: b64('2') } }),
    want: [{ type: 'FieldValueForbidden', field: 'binaryData', msg: IMM }],
  },
  {
    name: 'immutable: same bytes, different base64 layout',
    old: cm({ immutable: true, binaryData: { a: 'YWJj' } }),
    new: cm({ immutable: true, binaryData: { a: 'YW\nJj' } }),
    want: [],
  },
  { name: 'immutable: empty data vs absent', old: cm({ immutable: true }), new: cm({ immutable: true, data: {} }), want: [] },
  {
    name: 'immutable unset',
    old: cm({ immutable: true, data: { a: '1' } }),
    new: cm({ data: { a: '1' } }),
    want: [{ type: 'FieldValueForbidden', field: 'immutable', msg: `immutable: Forbidden: ${IMM}` }],
  },
  {
    name: 'immutable set to false and data changed',
    old: cm({ immutable: true, data: { a: '1' } }),
    new: cm({ immutable: false, data: { a: '2' } }),
    want: [
      { type: 'FieldValueForbidden', field: 'immutable' },
      { type: 'FieldValueForbidden', field: 'data' },
    ],
  },
  {
    name: 'update also validates the new object',
    old: cm({ data: { a: '1' } }),
    new: cm({ data: { 'a b': '1' } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[a b]' }],
  },
];

updateCases.forEach((c, i) => {
  test(`update case ${i}: ${c.name}`, () => {
    check(`update case ${i} (${c.name})`, S.validateUpdate(c.new, c.old), c.want);
  });
});

interface B64Case {
  in: string;
  out?: number[];
  err?: string;
}
const b64Cases: B64Case[] = [
  { in: '', out: [] },
  { in: 'YQ==', out: [0x61] },
  { in: 'YWI=', out: [0x61, 0x62] },
  { in: 'YWJj', out: [0x61, 0x62, 0x63] },
  { in: 'YWJj\n', out: [0x61, 0x62, 0x63] },
  { in: 'YW\r\nJj', out: [0x61, 0x62, 0x63] },
  { in: 'YR==', out: [0x61] }, // non-zero trailing bits are accepted (not Strict)
  { in: 'YQ', err: 'illegal base64 data at input byte 0' },
  { in: 'Y', err: 'illegal base64 data at input byte 0' },
  { in: 'YQ=', err: 'illegal base64 data at input byte 3' },
  { in: 'Y===', err: 'illegal base64 data at input byte 1' },
  { in: 'YQ==YQ==', err: 'illegal base64 data at input byte 4' },
  { in: 'YWJj*', err: 'illegal base64 data at input byte 4' },
  { in: 'YW-j', err: 'illegal base64 data at input byte 2' },
  { in: 'YWJj YWJj', err: 'illegal base64 data at input byte 4' },
];

b64Cases.forEach((c, i) => {
  test(`base64 case ${i}: ${JSON.stringify(c.in)}`, () => {
    const r = decodeBase64Std(c.in);
    if (c.err) {
      assert.ok(!r.ok, `base64 case ${i}: expected error`);
      if (!r.ok) assert.is(r.error, c.err, `base64 case ${i}: error text`);
    } else {
      assert.ok(r.ok, `base64 case ${i}: expected success, got ${JSON.stringify(r)}`);
      if (r.ok) assert.equal([...r.bytes], c.out, `base64 case ${i}: bytes`);
    }
  });
});

test('canonicalize re-encodes binaryData and nulls', () => {
  const o = cm({ data: { a: null } as unknown as Record<string, string>, binaryData: { b: 'YW\nJj' } });
  S.canonicalize!(o);
  assert.equal(o.data, { a: '' });
  assert.equal(o.binaryData, { b: 'YWJj' });
});

test('table', () => {
  const t = configMapKind.table!;
  assert.equal(
    t.columns.map((c) => [c.name, c.type, c.format]),
    [
      ['Name', 'string', 'name'],
      ['Data', 'string', undefined],
      ['Age', 'string', undefined],
    ],
  );
  const o = cm({ data: { a: '1', b: '2' }, binaryData: { c: b64('x') } });
  o.metadata.creationTimestamp = '2024-05-01T10:00:00Z';
  assert.equal(t.cells(o), ['c', 3, '2024-05-01T10:00:00Z']);
  assert.equal(t.cells(cm()), ['c', 0, '']);
});

test.run();
