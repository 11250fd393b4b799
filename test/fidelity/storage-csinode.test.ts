/**
 * CSINode (storage.k8s.io/v1) as kube-apiserver 1.24 serves it: drivers validation (names,
 * nodeID, allocatable, topologyKeys), the update rule (entries of a driver both versions have
 * cannot change; each update error listed twice), list/watch/delete, the Table and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-csinode.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-csinode.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { API, body, invalidStatus, item, protobufRoundTrip, same, stored, table, watchEvents, type Cause } from './storage-helpers.ts';

let t: Target;
let n: (s: string) => string;
let names: Record<string, string>;
const C = `${API}/csinodes`;

test.before(async () => {
  t = await startTarget();
  const run = t.ns('x').slice(2);
  n = (s) => `wtst-node-${s}-${run}`;
  names = { [`-${run}`]: '' };
});
test.after(async () => {
  for (const s of ['a', 'empty', 'bad', 'upd', 'w', 'pb']) await t.client.request('DELETE', `${C}/${n(s)}`);
  await t.close();
});

const node = (name: string, drivers?: unknown[]) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: drivers === undefined ? {} : { drivers } });
const post = (b: unknown) => t.client.request('POST', C, { body: b });
const D1 = { name: 'a.example.com', nodeID: 'n1', topologyKeys: ['topology.kubernetes.io/zone'], allocatable: { count: 3 } };

test('create: drivers kept in Go order; an empty list comes back null (as stored in Protobuf)', async () => {
  const r = await post(node(n('a'), [{ allocatable: { count: 3 }, topologyKeys: ['topology.kubernetes.io/zone'], nodeID: 'n1', name: 'a.example.com' }]));
  assert.is(r.status, 201, show(r));
  assert.is(JSON.stringify((r.json as any).spec.drivers[0]), JSON.stringify(D1));
  same(body(r, names), stored('CSINode', 'wtst-node-a', { spec: { drivers: [D1] } }), 'create', r);
  const e = await post(node(n('empty'), []));
  assert.is(e.status, 201, show(e));
  same(body(e, names), stored('CSINode', 'wtst-node-empty', { spec: { drivers: null } }), 'no drivers', e);
  assert.equal((e.json as any).metadata.managedFields[0].fieldsV1, { 'f:spec': { 'f:drivers': {} } }, 'the request set drivers');
});

test('create: rejections with field paths and messages', async () => {
  const key = (v: string) =>
    `Invalid value: "${v}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`;
  const r = await post(
    node(n('bad'), [
      { name: 'a.example.com', nodeID: '', allocatable: { count: -1 }, topologyKeys: ['k', 'k', '', 'a b'] },
      { name: 'a.example.com', nodeID: 'x'.repeat(257) },
      { name: 'Bad_Driver', nodeID: 'n' },
    ]),
  );
  same(
    body(r, names),
    invalidStatus('CSINode', 'wtst-node-bad', [
      ['FieldValueRequired', 'spec.drivers[0].nodeID', 'Required value'],
      ['FieldValueInvalid', 'spec.drivers[0].allocatable.count', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueDuplicate', 'spec.drivers[0]', 'Duplicate value: "k"'],
      ['FieldValueRequired', 'spec.drivers[0]', 'Required value'],
      ['FieldValueInvalid', 'spec.drivers[0]', 'Invalid value: "": name part must be non-empty'],
      ['FieldValueInvalid', 'spec.drivers[0]', key('')],
      ['FieldValueInvalid', 'spec.drivers[0]', key('a b')],
      ['FieldValueInvalid', 'spec.drivers[1].nodeID', `Invalid value: "${'x'.repeat(257)}": must be 256 characters or less`],
      ['FieldValueDuplicate', 'spec.drivers[1].name', 'Duplicate value: "a.example.com"'],
      [
        'FieldValueInvalid',
        'spec.drivers[2].name',
        "Invalid value: \"Bad_Driver\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ]),
    'driver errors',
    r,
  );
});

test('update: a driver entry cannot change; drivers may be added and removed; errors listed twice', async () => {
  const c = await post(node(n('upd'), [D1]));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const chg = await t.client.request('PUT', `${C}/${n('upd')}`, { body: { ...cur, spec: { drivers: [{ ...D1, nodeID: 'n2', allocatable: undefined }] } } });
  same(
    body(chg, names),
    invalidStatus('CSINode', 'wtst-node-upd', [
      ['FieldValueInvalid', 'CSINodeDriver', 'Invalid value: storage.CSINodeDriver{Name:"a.example.com", NodeID:"n2", TopologyKeys:[]string{"topology.kubernetes.io/zone"}, Allocatable:(*storage.VolumeNodeResources)(nil)}: field is immutable'],
    ]),
    'driver changed',
    chg,
  );
  const dup = await t.client.request('PUT', `${C}/${n('upd')}`, { body: { ...cur, spec: { drivers: [D1, { name: 'b.example.com', nodeID: '' }] } } });
  const e: Cause = ['FieldValueRequired', 'spec.drivers[1].nodeID', 'Required value'];
  same(body(dup, names), invalidStatus('CSINode', 'wtst-node-upd', [e, e]), 'errors twice', dup);
  const add = await t.client.request('PUT', `${C}/${n('upd')}`, { body: { ...cur, spec: { drivers: [D1, { name: 'b.example.com', nodeID: 'n' }] } } });
  assert.is(add.status, 200, show(add));
  const rm = await t.client.request('PUT', `${C}/${n('upd')}`, { body: { ...(add.json as any), spec: { drivers: [{ name: 'b.example.com', nodeID: 'n' }] } } });
  assert.is(rm.status, 200, show(rm));
  same(body(rm, names), stored('CSINode', 'wtst-node-upd', { spec: { drivers: [{ name: 'b.example.com', nodeID: 'n', topologyKeys: null }] } }), 'removed', rm);
});

test('list, watch, delete; Table as printCSINode', async () => {
  const c = await post(node(n('w'), [D1, { name: 'b.example.com', nodeID: 'n' }]));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${n('w')}`);
  assert.is((l.json as any).kind, 'CSINodeList', show(l));
  same(body(l, names).items, [item(stored('CSINode', 'wtst-node-w', { spec: { drivers: [D1, { name: 'b.example.com', nodeID: 'n', topologyKeys: null }] } }))], 'list', l);
  const tb = await table(t, `${C}/${n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Drivers', 'integer', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.is(tb.descriptions[1], 'Drivers indicates the number of CSI drivers registered on the node');
  assert.equal(tb.rows, [[n('w'), 2]]);
  const d = await t.client.request('DELETE', `${C}/${n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'CSINode');
  assert.equal(await watchEvents(t, C, rv, `metadata.name=${n('w')}`), [['DELETED', n('w')]]);
});

test('Protobuf round trip', async () => {
  const c = await post(node(n('pb'), [D1, { name: 'b.example.com', nodeID: 'n', topologyKeys: ['a', 'b'] }]));
  assert.is(c.status, 201, show(c));
  await protobufRoundTrip(t, `${C}/${n('pb')}`);
});

test.run();
