import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want, type UpdateCase } from './testing.ts';
import { secretKind } from './secret.ts';


const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const MiB = 1024 * 1024;
const S = secretKind.strategy;

const secret = (fields: Partial<KubeObject> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 's', namespace: 'default', resourceVersion: '1', ...(annotations ? { annotations } : {}) },
  ...fields,
});

/** Run the create pipeline steps the store runs before validation. */
const created = (o: KubeObject): KubeObject => {
  S.defaults?.(o);
  S.prepareForCreate?.(o);
  return o;
};

test('descriptor', () => {
  assert.is(secretKind.resource, 'secrets');
  assert.is(secretKind.kind, 'Secret');
  assert.is(secretKind.listKind, 'SecretList');
  assert.ok(secretKind.namespaced);
  assert.is(secretKind.deleteReturns, 'Status');
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
  assert.is(secretKind.fieldSelectors!.type!(created(secret())), 'Opaque');
  assert.is(secretKind.fieldSelectors!.type!(secret({ type: 'kubernetes.io/tls' })), 'kubernetes.io/tls');
});

test('type defaults to Opaque, explicit type kept', () => {
  assert.is(created(secret()).type, 'Opaque');
  assert.is(created(secret({ type: '' })).type, 'Opaque');
  assert.is(created(secret({ type: 'example.com/custom' })).type, 'example.com/custom');
});

interface CreateCase {
  name: string;
  obj: KubeObject;
  want: Want[];
}

const DCJ = '.dockerconfigjson';
const createCases: CreateCase[] = [
  { name: 'empty opaque', obj: secret(), want: [] },
  { name: 'opaque with data', obj: secret({ data: { 'a.b': b64('x'), C_D: '' } }), want: [] },
  { name: 'opaque with stringData', obj: secret({ stringData: { user: 'admin' } }), want: [] },
  { name: 'custom type', obj: secret({ type: 'example.com/thing' }), want: [] },
  { name: 'bootstrap token: no extra rules', obj: secret({ type: 'bootstrap.kubernetes.io/token' }), want: [] },
  {
    name: 'bad data key',
    obj: secret({ data: { 'a/b': b64('x') } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[a/b]', msg: 'data[a/b]: Invalid value: "a/b": a valid config key' }],
  },
  {
    name: 'bad stringData key reported under data',
    obj: secret({ stringData: { 'bad key': 'x' } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[bad key]', msg: 'a valid config key' }],
  },
  {
    name: 'invalid base64',
    obj: secret({ data: { k: 'abc' } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[k]', msg: 'data[k]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 0' }],
  },
  { name: 'invalid base64 overridden by stringData', obj: secret({ data: { k: 'abc' }, stringData: { k: 'v' } }), want: [] },
  { name: 'exactly 1 MiB decoded', obj: secret({ data: { a: b64(Buffer.alloc(MiB)) } }), want: [] },
  {
    name: 'over 1 MiB decoded',
    obj: secret({ data: { a: b64(Buffer.alloc(MiB)) }, stringData: { b: 'x' } }),
    want: [{ type: 'FieldValueTooLong', field: 'data', msg: 'data: Too long: must have at most 1048576 bytes' }],
  },
  {
    name: 'sa token without annotation',
    obj: secret({ type: 'kubernetes.io/service-account-token' }),
    want: [
      {
        type: 'FieldValueRequired',
        field: 'metadata.annotations[kubernetes.io/service-account.name]',
        msg: 'metadata.annotations[kubernetes.io/service-account.name]: Required value',
      },
    ],
  },
  { name: 'sa token with annotation', obj: secret({ type: 'kubernetes.io/service-account-token' }, { 'kubernetes.io/service-account.name': 'default' }), want: [] },
  { name: 'dockercfg missing key', obj: secret({ type: 'kubernetes.io/dockercfg' }), want: [{ type: 'FieldValueRequired', field: 'data[.dockercfg]' }] },
  { name: 'dockercfg valid', obj: secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('{"r":{}}') } }), want: [] },
  {
    name: 'dockercfg invalid json',
    obj: secret({ type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('nope') } }),
    want: [{ type: 'FieldValueInvalid', field: 'data[.dockercfg]', msg: 'Invalid value: "<secret contents redacted>": invalid character' }],
  },
  { name: 'dockerconfigjson missing key', obj: secret({ type: 'kubernetes.io/dockerconfigjson' }), want: [{ type: 'FieldValueRequired', field: `data[${DCJ}]` }] },
  { name: 'dockerconfigjson via stringData', obj: secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { [DCJ]: '{"auths":{}}' } }), want: [] },
  {
    name: 'dockerconfigjson truncated',
    obj: secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { [DCJ]: '{"auths":' } }),
    want: [{ type: 'FieldValueInvalid', field: `data[${DCJ}]`, msg: 'unexpected end of JSON input' }],
  },
  {
    name: 'dockerconfigjson not an object',
    obj: secret({ type: 'kubernetes.io/dockerconfigjson', stringData: { [DCJ]: '[1]' } }),
    want: [{ type: 'FieldValueInvalid', field: `data[${DCJ}]`, msg: 'json: cannot unmarshal array into Go value of type map[string]interface {}' }],
  },
  {
    name: 'basic-auth with neither key',
    obj: secret({ type: 'kubernetes.io/basic-auth', data: { other: '' } }),
    want: [
      { type: 'FieldValueRequired', field: 'data[username]', msg: 'data[username]: Required value' },
      { type: 'FieldValueRequired', field: 'data[password]' },
    ],
  },
  { name: 'basic-auth with empty password only', obj: secret({ type: 'kubernetes.io/basic-auth', data: { password: '' } }), want: [] },
  { name: 'basic-auth with username only', obj: secret({ type: 'kubernetes.io/basic-auth', stringData: { username: 'u' } }), want: [] },
  { name: 'ssh-auth missing', obj: secret({ type: 'kubernetes.io/ssh-auth' }), want: [{ type: 'FieldValueRequired', field: 'data[ssh-privatekey]' }] },
  { name: 'ssh-auth empty', obj: secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }), want: [{ type: 'FieldValueRequired', field: 'data[ssh-privatekey]' }] },
  { name: 'ssh-auth present', obj: secret({ type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': b64('k') } }), want: [] },
  {
    name: 'tls missing both',
    obj: secret({ type: 'kubernetes.io/tls' }),
    want: [
      { type: 'FieldValueRequired', field: 'data[tls.crt]' },
      { type: 'FieldValueRequired', field: 'data[tls.key]' },
    ],
  },
  { name: 'tls missing key', obj: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } }), want: [{ type: 'FieldValueRequired', field: 'data[tls.key]' }] },
  { name: 'tls present (empty values allowed)', obj: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }), want: [] },
];

createCases.forEach((c, i) => {
  test(`create case ${i}: ${c.name}`, () => {
    check(`create case ${i} (${c.name})`, S.validate(created(c.obj)), c.want);
  });
});

const IMM = 'field is immutable when `immutable` is set';
const stored = (o: KubeObject): KubeObject => {
  created(o);
  S.canonicalize?.(o);
  return o;
};

const updateCases: UpdateCase[] = [
  { name: 'data change', old: stored(secret({ data: { a: b64('1') } })), new: secret({ data: { a: b64('2') } }), want: [] },
  {
    name: 'type change',
    old: stored(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } })),
    new: secret({ type: 'Opaque', data: { 'tls.crt': '', 'tls.key': '' } }),
    want: [{ type: 'FieldValueInvalid', field: 'type', msg: 'type: Invalid value: "Opaque": field is immutable' }],
  },
  {
    name: 'type omitted defaults to Opaque and is rejected',
    old: stored(secret({ type: 'example.com/x' })),
    new: secret(),
    want: [{ type: 'FieldValueInvalid', field: 'type', msg: 'field is immutable' }],
  },
  { name: 'immutable: metadata-only change', old: stored(secret({ immutable: true, data: { a: b64('1') } })), new: secret({ immutable: true, data: { a: b64('1') } }), want: [] },
  {
    name: 'immutable: same data given via stringData',
    old: stored(secret({ immutable: true, data: { a: b64('1') } })),
    new: secret({ immutable: true, stringData: { a: '1' } }),
    want: [],
  },
  {
    name: 'immutable: data change',
    old: stored(secret({ immutable: true, data: { a: b64('1') } })),
    new: secret({ immutable: true, data: { a: b64('2') } }),
    want: [{ type: 'FieldValueForbidden', field: 'data', msg: `data: Forbidden: ${IMM}` }],
  },
  {
    name: 'immutable: stringData change',
    old: stored(secret({ immutable: true, data: { a: b64('1') } })),
    new: secret({ immutable: true, data: { a: b64('1') }, stringData: { b: 'x' } }),
    want: [{ type: 'FieldValueForbidden', field: 'data' }],
  },
  {
    name: 'immutable unset',
    old: stored(secret({ immutable: true })),
    new: secret({ immutable: false }),
    want: [{ type: 'FieldValueForbidden', field: 'immutable', msg: `immutable: Forbidden: ${IMM}` }],
  },
  {
    name: 'update validates new object',
    old: stored(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } })),
    new: secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': '' } }),
    want: [{ type: 'FieldValueRequired', field: 'data[tls.key]' }],
  },
];

updateCases.forEach((c, i) => {
  test(`update case ${i}: ${c.name}`, () => {
    const n = c.new;
    S.defaults?.(n);
    S.prepareForUpdate?.(n, c.old);
    check(`update case ${i} (${c.name})`, S.validateUpdate(n, c.old), c.want);
  });
});

test('canonicalize folds stringData into data', () => {
  const o = created(secret({ data: { a: b64('old'), b: 'YW\nJj' }, stringData: { a: 'new', c: 'ç' } }));
  S.canonicalize!(o);
  assert.equal(o.data, { a: b64('new'), b: 'YWJj', c: b64('ç') });
  assert.ok(!('stringData' in o));
  const empty = created(secret());
  S.canonicalize!(empty);
  assert.ok(!('data' in empty));
});

test('table', () => {
  const t = secretKind.table!;
  assert.equal(
    t.columns.map((c) => [c.name, c.type]),
    [
      ['Name', 'string'],
      ['Type', 'string'],
      ['Data', 'string'],
      ['Age', 'string'],
    ],
  );
  const o = stored(secret({ data: { a: '' }, stringData: { b: 'x' } }));
  o.metadata.creationTimestamp = '2024-05-01T10:00:00Z';
  assert.equal(t.cells(o), ['s', 'Opaque', 2, '2024-05-01T10:00:00Z']);
});

test.run();
