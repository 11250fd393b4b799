/**
 * StorageClass (storage.k8s.io/v1) as kube-apiserver 1.24 serves it: defaults, validation Status
 * bodies, immutable fields, list/watch/delete, the Table (with "(default)") and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-storageclass.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-storageclass.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { API, body, item, invalidStatus, protobufRoundTrip, same, stored, table, watchEvents } from './storage-helpers.ts';

let t: Target;
/** Cluster-scoped names are unique per run (the reference is shared). */
let n: (s: string) => string;
let names: Record<string, string>;
const C = `${API}/storageclasses`;

test.before(async () => {
  t = await startTarget();
  const run = t.ns('x').slice(2);
  n = (s) => `wtst-sc-${s}-${run}`;
  names = { [`-${run}`]: '' };
});
test.after(async () => {
  for (const s of ['min', 'full', 'imm', 'bad', 'bad2', 'dflt', 'pb', 'w']) await t.client.request('DELETE', `${C}/${n(s)}`);
  await t.close();
});

const sc = (name: string, fields: Record<string, unknown>) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, ...fields });
const post = (b: unknown) => t.client.request('POST', C, { body: b });

test('create: reclaimPolicy Delete and volumeBindingMode Immediate by default, fields in Go order', async () => {
  const r = await post(sc(n('min'), { provisioner: 'example.com/foo' }));
  assert.is(r.status, 201, show(r));
  const want = stored('StorageClass', 'wtst-sc-min', { provisioner: 'example.com/foo', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  same(body(r, names), want, 'create', r);
  same(body(await t.client.request('GET', `${C}/${n('min')}`), names), want, 'get', r);

  const full = await post({
    ...sc(n('full'), {
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }],
      volumeBindingMode: 'WaitForFirstConsumer',
      allowVolumeExpansion: true,
      mountOptions: ['ro', 'soft'],
      reclaimPolicy: 'Retain',
      parameters: { type: 'ssd', '': undefined },
      provisioner: 'Example.com/Foo',
    }),
  });
  assert.is(full.status, 201, show(full));
  assert.equal(Object.keys(full.json), ['kind', 'apiVersion', 'metadata', 'provisioner', 'parameters', 'reclaimPolicy', 'mountOptions', 'allowVolumeExpansion', 'volumeBindingMode', 'allowedTopologies']);
  same(
    body(full, names),
    stored('StorageClass', 'wtst-sc-full', {
      provisioner: 'Example.com/Foo',
      parameters: { type: 'ssd' },
      reclaimPolicy: 'Retain',
      mountOptions: ['ro', 'soft'],
      allowVolumeExpansion: true,
      volumeBindingMode: 'WaitForFirstConsumer',
      allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }],
    }),
    'full create',
    full,
  );
});

test('create: every rejection with its field path and message', async () => {
  const r = await post(
    sc(n('bad'), {
      provisioner: '',
      parameters: { '': 'x' },
      reclaimPolicy: 'Recycle',
      volumeBindingMode: '',
      allowedTopologies: [{}, { matchLabelExpressions: [{ key: 'a b', values: [] }, { key: 'a b', values: ['x', 'x'] }] }, {}],
    }),
  );
  const keyMsg =
    "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  const dupEmpty: [string, string, string] = ['FieldValueDuplicate', 'allowedTopologies[0].matchLabelExpressions', 'Duplicate value: ""'];
  const dupEmpty2: [string, string, string] = ['FieldValueDuplicate', 'allowedTopologies[2].matchLabelExpressions', 'Duplicate value: ""'];
  same(
    body(r, names),
    invalidStatus('StorageClass', 'wtst-sc-bad', [
      ['FieldValueRequired', 'provisioner', 'Required value'],
      ['FieldValueInvalid', 'parameters', 'Invalid value: "": field can not be empty.'],
      ['FieldValueNotSupported', 'reclaimPolicy', 'Unsupported value: "Recycle": supported values: "Delete", "Retain"'],
      ['FieldValueNotSupported', 'volumeBindingMode', 'Unsupported value: "": supported values: "Immediate", "WaitForFirstConsumer"'],
      dupEmpty,
      dupEmpty,
      dupEmpty,
      ['FieldValueRequired', 'allowedTopologies[1].matchLabelExpressions[0].values', 'Required value'],
      ['FieldValueInvalid', 'allowedTopologies[1].matchLabelExpressions[0].key', keyMsg],
      ['FieldValueDuplicate', 'allowedTopologies[1].matchLabelExpressions[1].values[1]', 'Duplicate value: "x"'],
      ['FieldValueInvalid', 'allowedTopologies[1].matchLabelExpressions[1].key', keyMsg],
      ['FieldValueDuplicate', 'allowedTopologies[1].matchLabelExpressions[1].key', 'Duplicate value: "a b"'],
      dupEmpty2,
      dupEmpty2,
      dupEmpty2,
      dupEmpty2,
    ]),
    'many errors',
    r,
  );

  // The provisioner is checked lower-cased (and echoed so).
  const p = await post(sc(n('bad2'), { provisioner: 'Bad Name/x' }));
  same(
    body(p, names),
    invalidStatus('StorageClass', 'wtst-sc-bad2', [
      [
        'FieldValueInvalid',
        'provisioner',
        "Invalid value: \"bad name/x\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ]),
    'provisioner name',
    p,
  );
  const missing = await post({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: n('bad2') } });
  same(body(missing, names), invalidStatus('StorageClass', 'wtst-sc-bad2', [['FieldValueRequired', 'provisioner', 'Required value']]), 'no provisioner', missing);
});

test('update: provisioner, parameters, reclaimPolicy and volumeBindingMode are immutable; the rest is not', async () => {
  const c = await post(sc(n('imm'), { provisioner: 'example.com/a', parameters: { a: '1' } }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await t.client.request('PUT', `${C}/${n('imm')}`, {
    body: { ...cur, provisioner: 'example.com/b', parameters: { a: '2' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' },
  });
  same(
    body(r, names),
    invalidStatus('StorageClass', 'wtst-sc-imm', [
      ['FieldValueForbidden', 'parameters', 'Forbidden: updates to parameters are forbidden.'],
      ['FieldValueForbidden', 'provisioner', 'Forbidden: updates to provisioner are forbidden.'],
      ['FieldValueForbidden', 'reclaimPolicy', 'Forbidden: updates to reclaimPolicy are forbidden.'],
      ['FieldValueInvalid', 'volumeBindingMode', 'Invalid value: "WaitForFirstConsumer": field is immutable'],
    ]),
    'immutable',
    r,
  );
  // parameters compare with reflect.DeepEqual: an empty map is not the absent (nil) one.
  const min = (await t.client.request('GET', `${C}/${n('min')}`)).json as any;
  const empty = await t.client.request('PUT', `${C}/${n('min')}`, { body: { ...min, parameters: {} } });
  same(body(empty, names), invalidStatus('StorageClass', 'wtst-sc-min', [['FieldValueForbidden', 'parameters', 'Forbidden: updates to parameters are forbidden.']]), '{} parameters', empty);
  // Dropping the defaulted fields defaults them again: no change.
  const same1 = await t.client.request('PUT', `${C}/${n('imm')}`, { body: { ...cur, reclaimPolicy: undefined, volumeBindingMode: undefined } });
  assert.is(same1.status, 200, show(same1));
  const ok = await t.client.request('PATCH', `${C}/${n('imm')}`, {
    body: { allowVolumeExpansion: true, mountOptions: ['ro'], metadata: { labels: { a: 'b' } } },
    contentType: 'application/merge-patch+json',
  });
  assert.is(ok.status, 200, show(ok));
  same(
    body(ok, names),
    stored('StorageClass', 'wtst-sc-imm', { provisioner: 'example.com/a', parameters: { a: '1' }, reclaimPolicy: 'Delete', mountOptions: ['ro'], allowVolumeExpansion: true, volumeBindingMode: 'Immediate' }, { labels: { a: 'b' } }),
    'mutable fields',
    ok,
  );
});

test('list, watch, delete (the deleted object comes back)', async () => {
  const c = await post(sc(n('w'), { provisioner: 'example.com/w' }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${n('w')}`);
  assert.is(l.status, 200, show(l));
  assert.equal(Object.keys(l.json), ['kind', 'apiVersion', 'metadata', 'items']);
  assert.is((l.json as any).kind, 'StorageClassList');
  same(body(l, names).items, [item(stored('StorageClass', 'wtst-sc-w', { provisioner: 'example.com/w', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }))], 'list', l);
  const d = await t.client.request('DELETE', `${C}/${n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'StorageClass');
  assert.is((d.json as any).metadata.name, n('w'));
  const events = await watchEvents(t, C, rv, `metadata.name=${n('w')}`);
  assert.equal(events, [['DELETED', n('w')]]);
  const g = await t.client.request('GET', `${C}/${n('w')}`);
  assert.is(g.status, 404, show(g));
});

test('Table: columns as printStorageClass declares them, "(default)" after the default class', async () => {
  const c = await post({ ...sc(n('dflt'), { provisioner: 'example.com/d', allowVolumeExpansion: true }), metadata: { name: n('dflt'), annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } });
  assert.is(c.status, 201, show(c));
  const tb = await table(t, `${C}/${n('dflt')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Provisioner', 'string', '', 0],
    ['ReclaimPolicy', 'string', '', 0],
    ['VolumeBindingMode', 'string', '', 0],
    ['AllowVolumeExpansion', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.is(tb.descriptions[1], 'Provisioner indicates the type of the provisioner.');
  assert.is(tb.descriptions[4], 'AllowVolumeExpansion shows whether the storage class allow volume expand');
  assert.equal(tb.rows, [[`${n('dflt')} (default)`, 'example.com/d', 'Delete', 'Immediate', true]]);
  const min = await table(t, `${C}/${n('min')}`);
  assert.equal(min.rows, [[n('min'), 'example.com/foo', 'Delete', 'Immediate', false]]);
});

test('Protobuf: bytes decode to the served JSON and re-encode byte for byte', async () => {
  const c = await post(sc(n('pb'), { provisioner: 'example.com/pb', parameters: { b: '2', a: '1' }, mountOptions: ['x'], allowedTopologies: [{ matchLabelExpressions: [{ key: 'k', values: ['v'] }] }] }));
  assert.is(c.status, 201, show(c));
  await protobufRoundTrip(t, `${C}/${n('pb')}`);
});

test.run();
