/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced) as kube-apiserver 1.24 serves it:
 * canonical quantities, validation Status bodies (create errors listed twice: the strategy
 * validates twice), immutable storageClassName and nodeTopology, list/watch/delete (a Status),
 * the default Table (1.24 has no printer for it), Protobuf and deletion with its namespace.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-csistoragecapacity.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-csistoragecapacity.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { API, body, invalidStatus, item, protobufRoundTrip, same, stored, table, watchEvents, type Cause } from './storage-helpers.ts';

let t: Target;
let ns: string;
let C: string;
let names: Record<string, string>;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('wtst-cap');
  C = `${API}/namespaces/${ns}/csistoragecapacities`;
  names = { [ns]: 'NS' };
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const cap = (name: string, fields: Record<string, unknown>) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name }, ...fields });
const post = (b: unknown) => t.client.request('POST', C, { body: b });

test('create: quantities canonical, fields in Go order', async () => {
  const r = await post(cap('a', { maximumVolumeSize: '1000M', capacity: '1.5Gi', storageClassName: 'fast', nodeTopology: { matchLabels: { zone: 'a' } } }));
  assert.is(r.status, 201, show(r));
  assert.equal(Object.keys(r.json), ['kind', 'apiVersion', 'metadata', 'nodeTopology', 'storageClassName', 'capacity', 'maximumVolumeSize']);
  const want = stored('CSIStorageCapacity', 'a', { nodeTopology: { matchLabels: { zone: 'a' } }, storageClassName: 'fast', capacity: '1536Mi', maximumVolumeSize: '1G' }, { namespace: 'NS' });
  same(body(r, names), want, 'create', r);
  same(body(await t.client.request('GET', `${C}/a`), names), want, 'get', r);
  const min = await post(cap('min', { storageClassName: 'fast' }));
  same(body(min, names), stored('CSIStorageCapacity', 'min', { storageClassName: 'fast' }, { namespace: 'NS' }), 'minimal', min);
});

test('create: rejections, each listed twice as kube validates twice', async () => {
  const r = await post(
    cap('bad', {
      storageClassName: 'Bad_Class',
      capacity: '-1',
      nodeTopology: { matchLabels: { 'a b': 'x' }, matchExpressions: [{ key: 'k', operator: 'In' }, { key: 'k', operator: 'Exists', values: ['v'] }, { key: 'k', operator: 'Near' }] },
    }),
  );
  const causes: Cause[] = [
    [
      'FieldValueInvalid',
      'nodeTopology.matchLabels',
      "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    ['FieldValueRequired', 'nodeTopology.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ['FieldValueForbidden', 'nodeTopology.matchExpressions[1].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ['FieldValueInvalid', 'nodeTopology.matchExpressions[2].operator', 'Invalid value: "Near": not a valid selector operator'],
    [
      'FieldValueInvalid',
      'storageClassName',
      "Invalid value: \"Bad_Class\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    ['FieldValueInvalid', 'capacity', 'Invalid value: "-1": must be greater than or equal to 0'],
  ];
  same(body(r, names), invalidStatus('CSIStorageCapacity', 'bad', [...causes, ...causes]), 'errors twice', r);
  // Metadata errors too: ValidateObjectMeta is part of what runs twice.
  const meta = await post({ ...cap('bad', { storageClassName: 'fast' }), metadata: { name: 'bad', labels: { 'a b': 'x' } } });
  const m: Cause = [
    'FieldValueInvalid',
    'metadata.labels',
    "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
  ];
  same(body(meta, names), invalidStatus('CSIStorageCapacity', 'bad', [m, m]), 'metadata twice', meta);
  const noClass = await post(cap('bad', {}));
  const e: Cause = [
    'FieldValueInvalid',
    'storageClassName',
    "Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ];
  same(body(noClass, names), invalidStatus('CSIStorageCapacity', 'bad', [e, e]), 'no class', noClass);
});

test('update: storageClassName and nodeTopology immutable; capacity may change', async () => {
  const c = await post(cap('imm', { storageClassName: 'fast', nodeTopology: { matchLabels: { zone: 'a' } }, capacity: '1Gi' }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await t.client.request('PUT', `${C}/imm`, {
    body: { ...cur, storageClassName: 'slow', nodeTopology: { matchLabels: { zone: 'b' }, matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
  });
  same(
    body(r, names),
    invalidStatus('CSIStorageCapacity', 'imm', [
      ['FieldValueInvalid', 'nodeTopology', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"zone":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"Exists", Values:[]string(nil)}}}: field is immutable'],
      ['FieldValueInvalid', 'storageClassName', 'Invalid value: "slow": field is immutable'],
    ]),
    'immutable',
    r,
  );
  const gone = await t.client.request('PUT', `${C}/imm`, { body: { ...cur, nodeTopology: undefined } });
  same(body(gone, names), invalidStatus('CSIStorageCapacity', 'imm', [['FieldValueInvalid', 'nodeTopology', 'Invalid value: "null": field is immutable']]), 'topology removed', gone);
  const ok = await t.client.request('PUT', `${C}/imm`, { body: { ...cur, capacity: '2Gi', maximumVolumeSize: '100Mi' } });
  assert.is(ok.status, 200, show(ok));
  same(body(ok, names), stored('CSIStorageCapacity', 'imm', { nodeTopology: { matchLabels: { zone: 'a' } }, storageClassName: 'fast', capacity: '2Gi', maximumVolumeSize: '100Mi' }, { namespace: 'NS' }), 'capacity', ok);
});

test('list, watch, delete (a Status); the default Table', async () => {
  const c = await post(cap('w', { storageClassName: 'fast', capacity: '1Gi' }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3Dw`);
  assert.is((l.json as any).kind, 'CSIStorageCapacityList', show(l));
  same(body(l, names).items, [item(stored('CSIStorageCapacity', 'w', { storageClassName: 'fast', capacity: '1Gi' }, { namespace: 'NS' }))], 'list', l);
  const all = await t.client.request('GET', `${API}/csistoragecapacities?fieldSelector=metadata.namespace%3D${ns}`);
  assert.equal((all.json as any).items.map((x: any) => x.metadata.name).sort(), ['a', 'imm', 'min', 'w'], show(all));
  const tb = await table(t, `${C}/w`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Created At', 'date', '', 0],
  ]);
  assert.equal(tb.rows.map((r) => r[0]), ['w']);
  const d = await t.client.request('DELETE', `${C}/w`);
  assert.is(d.status, 200, show(d));
  same(
    body(d, names),
    { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'w', group: 'storage.k8s.io', kind: 'csistoragecapacities', uid: '<uid>' } },
    'delete answers a Status',
    d,
  );
  assert.equal(await watchEvents(t, C, rv, 'metadata.name=w'), [['DELETED', 'w']]);
});

test('Protobuf round trip', async () => {
  await protobufRoundTrip(t, `${C}/a`);
  await protobufRoundTrip(t, `${C}/min`);
});

test('namespace deletion deletes its CSIStorageCapacities (this server; the reference has no namespace controller)', async () => {
  if (t.reference) return;
  const other = await t.createNamespace('wtst-capdel');
  const path = `${API}/namespaces/${other}/csistoragecapacities`;
  const c = await t.client.request('POST', path, { body: cap('gone', { storageClassName: 'fast' }) });
  assert.is(c.status, 201, show(c));
  const d = await t.client.request('DELETE', `/api/v1/namespaces/${other}`);
  assert.is(d.status, 200, show(d));
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ns = await t.client.request('GET', `/api/v1/namespaces/${other}`);
    if (ns.status === 404) break;
    assert.ok(Date.now() < deadline, `namespace still there: ${show(ns)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const l = await t.client.request('GET', `${API}/csistoragecapacities?fieldSelector=metadata.namespace%3D${other}`);
  assert.equal((l.json as any).items, [], show(l));
});

test.run();
