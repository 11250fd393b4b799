/**
 * storage.k8s.io/v1beta1 CSIStorageCapacity as kube-apiserver 1.24 serves it (deprecated, removed in
 * 1.27): the same stored objects as v1 (written through either version, read through both, nothing
 * lost), kube's deprecation warning on every response, discovery and protobuf of the version, and
 * — on this server — the deprecated-API metric and `--runtime-config=storage.k8s.io/v1beta1=false`,
 * the seed's way of testing the removal (404, and kubectl refuses v1beta1 manifests).
 *
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-csistoragecapacity-v1beta1.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { startTestServer } from '../harness.ts';
import { kubectlFor } from '../kubectl-run.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';

const WARNING = '299 - "storage.k8s.io/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use storage.k8s.io/v1 CSIStorageCapacity"';
const V1 = '/apis/storage.k8s.io/v1';
const BETA = '/apis/storage.k8s.io/v1beta1';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('cap-beta');
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const cap = (version: string, name: string, fields: Record<string, unknown>) => ({ apiVersion: `storage.k8s.io/${version}`, kind: 'CSIStorageCapacity', metadata: { name }, ...fields });
const strip = (o: any) => {
  const { managedFields: _m, resourceVersion: _r, ...meta } = o.metadata;
  return { ...o, metadata: meta };
};

test('written through v1beta1, read through v1 (and back): same object, apiVersion converted; every v1beta1 answer warns', async () => {
  const r = await t.client.request('POST', `${BETA}/namespaces/${ns}/csistoragecapacities`, { body: cap('v1beta1', 'b1', { storageClassName: 'fast', capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { zone: 'z1' } } }) });
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, WARNING);
  assert.is(r.json.apiVersion, 'storage.k8s.io/v1beta1');
  const v1 = await t.client.request('GET', `${V1}/namespaces/${ns}/csistoragecapacities/b1`);
  assert.is(v1.status, 200);
  assert.is(v1.headers.warning, undefined, 'no warning on v1');
  assert.is(v1.json.apiVersion, 'storage.k8s.io/v1');
  assert.equal(strip({ ...v1.json, apiVersion: 'x' }), strip({ ...r.json, apiVersion: 'x' }), 'same object in both versions');
  assert.equal(Object.keys(v1.json), ['kind', 'apiVersion', 'metadata', 'nodeTopology', 'storageClassName', 'capacity', 'maximumVolumeSize']);

  const w = await t.client.request('POST', `${V1}/namespaces/${ns}/csistoragecapacities`, { body: cap('v1', 'a1', { storageClassName: 'slow', capacity: '1500M' }) });
  assert.is(w.status, 201, show(w));
  const b = await t.client.request('GET', `${BETA}/namespaces/${ns}/csistoragecapacities/a1`);
  assert.is(b.status, 200);
  assert.is(b.headers.warning, WARNING);
  assert.is(b.json.apiVersion, 'storage.k8s.io/v1beta1');
  assert.is(b.json.capacity, '1500M');

  const list = await t.client.request('GET', `${BETA}/namespaces/${ns}/csistoragecapacities`);
  assert.is(list.headers.warning, WARNING);
  assert.is(list.json.kind, 'CSIStorageCapacityList');
  assert.is(list.json.apiVersion, 'storage.k8s.io/v1beta1');
  assert.equal(list.json.items.map((i: any) => i.metadata.name), ['a1', 'b1']);

  // Update through v1beta1 keeps what v1 wrote; immutability rules are the same.
  const upd = await t.client.request('PUT', `${BETA}/namespaces/${ns}/csistoragecapacities/a1`, { body: { ...b.json, capacity: '2G' } });
  assert.is(upd.status, 200, show(upd));
  assert.is((await t.client.request('GET', `${V1}/namespaces/${ns}/csistoragecapacities/a1`)).json.capacity, '2G');
  const imm = await t.client.request('PUT', `${BETA}/namespaces/${ns}/csistoragecapacities/a1`, { body: { ...upd.json, storageClassName: 'other' } });
  assert.is(imm.status, 422, show(imm));
  assert.is(imm.json.details.kind, 'CSIStorageCapacity');
  assert.is(imm.json.details.group, 'storage.k8s.io');

  const del = await t.client.request('DELETE', `${BETA}/namespaces/${ns}/csistoragecapacities/b1`);
  assert.is(del.status, 200);
  assert.is(del.json.kind, 'Status');
  assert.is(del.headers.warning, WARNING);
  assert.is((await t.client.request('GET', `${V1}/namespaces/${ns}/csistoragecapacities/b1`)).status, 404);
});

test('discovery of storage.k8s.io/v1beta1 and the group (v1 preferred)', async () => {
  const d = await t.client.request('GET', BETA);
  assert.equal(d.json, {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'storage.k8s.io/v1beta1',
    resources: [{ name: 'csistoragecapacities', singularName: '', namespaced: true, kind: 'CSIStorageCapacity', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], storageVersionHash: '4as6MA/kOg0=' }],
  });
  const g = await t.client.request('GET', '/apis/storage.k8s.io');
  assert.equal(g.json.versions, [{ groupVersion: 'storage.k8s.io/v1', version: 'v1' }, { groupVersion: 'storage.k8s.io/v1beta1', version: 'v1beta1' }]);
  assert.equal(g.json.preferredVersion, { groupVersion: 'storage.k8s.io/v1', version: 'v1' });
});

test('protobuf: a v1beta1 object in and out', async () => {
  const body = encodeProtobuf(cap('v1beta1', 'pb', { storageClassName: 'fast', capacity: '5Gi' }));
  const r = await t.client.request('POST', `${BETA}/namespaces/${ns}/csistoragecapacities`, { raw: body, contentType: PROTOBUF, headers: { accept: PROTOBUF } });
  assert.is(r.status, 201, r.text);
  const got = await fetchProto(`${BETA}/namespaces/${ns}/csistoragecapacities/pb`);
  assert.is(got.apiVersion, 'storage.k8s.io/v1beta1');
  assert.is(got.kind, 'CSIStorageCapacity');
  assert.is(got.object.capacity, '5Gi');
});

async function fetchProto(path: string) {
  const { request } = await import('undici');
  const { readKubeconfig } = await import('../target.ts');
  const { Agent } = await import('undici');
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const r = await request(t.url + path, { headers: { accept: PROTOBUF, ...(k.token ? { authorization: `Bearer ${k.token}` } : {}) }, dispatcher: agent });
    return decodeProtobuf(Buffer.from(await r.body.arrayBuffer()));
  } finally {
    await agent.close();
  }
}

test('this server: the deprecated-API metric, and --runtime-config=storage.k8s.io/v1beta1=false removes the version', async () => {
  if (t.reference) return; // the shared reference runs with its own flags
  const m = await t.client.request('GET', '/metrics');
  assert.match(m.text, 'apiserver_requested_deprecated_apis{group="storage.k8s.io",removed_release="1.27",resource="csistoragecapacities",subresource="",version="v1beta1"} 1');

  const s = await startTestServer({ runtimeConfig: 'storage.k8s.io/v1beta1=false' });
  try {
    assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'rc' } } })).status, 201);
    assert.is((await s.client.request('GET', `${BETA}/namespaces/rc/csistoragecapacities`)).status, 404);
    assert.equal((await s.client.request('GET', '/apis/storage.k8s.io')).json.versions, [{ groupVersion: 'storage.k8s.io/v1', version: 'v1' }]);
    const dir = mkdtempSync(join(tmpdir(), 'cap-beta-'));
    const f = join(dir, 'cap.yaml');
    writeFileSync(f, 'apiVersion: storage.k8s.io/v1beta1\nkind: CSIStorageCapacity\nmetadata:\n  name: x\n  namespace: rc\nstorageClassName: fast\n');
    const r = await kubectlFor(join(s.dataDir, 'kubeconfig')).run('apply', '-f', f);
    assert.is(r.code, 1);
    assert.match(r.stderr, 'no matches for kind "CSIStorageCapacity" in version "storage.k8s.io/v1beta1"');
    // v1 keeps working.
    assert.is((await s.client.request('GET', `${V1}/namespaces/rc/csistoragecapacities`)).status, 200);
  } finally {
    await s.close();
  }
});

test('kubectl shows the warning for v1beta1', async () => {
  const r = await kubectlFor(t.kubeconfig).run('-n', ns, 'get', 'csistoragecapacities.v1beta1.storage.k8s.io');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stderr, 'Warning: storage.k8s.io/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use storage.k8s.io/v1 CSIStorageCapacity');
});

test.run();
