/**
 * Legacy discovery (/api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>) compared byte for byte with
 * kube-apiserver 1.24 for what this server serves. The reference serves many more resources and
 * groups; the suite checks the entries of ours exactly (as kube writes them) and the shape of
 * every document.
 *
 *   node --import tsx test/run.ts test/fidelity/discovery.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/discovery.test.ts
 */
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { ok, show } from '../assertions.ts';

let t: Target;
test.before(async () => {
  t = await startTarget();
});
test.after(async () => {
  await t.close();
});

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The core/v1 entries this server serves, exactly as kube-apiserver 1.24 lists them (in its order). */
const CORE_V1 = [
  { name: 'componentstatuses', singularName: '', namespaced: false, kind: 'ComponentStatus', verbs: ['get', 'list'], shortNames: ['cs'] },
  { name: 'configmaps', singularName: '', namespaced: true, kind: 'ConfigMap', verbs: ALL, shortNames: ['cm'], storageVersionHash: 'qFsyl6wFWjQ=' },
  { name: 'limitranges', singularName: '', namespaced: true, kind: 'LimitRange', verbs: ALL, shortNames: ['limits'], storageVersionHash: 'EBKMFVe6cwo=' },
  { name: 'namespaces', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'], storageVersionHash: 'Q3oi5N2YM8M=' },
  { name: 'namespaces/finalize', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['update'] },
  { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
  { name: 'podtemplates', singularName: '', namespaced: true, kind: 'PodTemplate', verbs: ALL, storageVersionHash: 'LIXB2x4IFpk=' },
  { name: 'replicationcontrollers', singularName: '', namespaced: true, kind: 'ReplicationController', verbs: ALL, shortNames: ['rc'], categories: ['all'], storageVersionHash: 'Jond2If31h0=' },
  { name: 'replicationcontrollers/status', singularName: '', namespaced: true, kind: 'ReplicationController', verbs: ['get', 'patch', 'update'] },
  { name: 'resourcequotas', singularName: '', namespaced: true, kind: 'ResourceQuota', verbs: ALL, shortNames: ['quota'], storageVersionHash: '8uhSgffRX6w=' },
  { name: 'resourcequotas/status', singularName: '', namespaced: true, kind: 'ResourceQuota', verbs: ['get', 'patch', 'update'] },
  { name: 'secrets', singularName: '', namespaced: true, kind: 'Secret', verbs: ALL, storageVersionHash: 'S6u1pOWzb84=' },
];

/** More core/v1 entries as kube lists them, compared whenever the target serves them. */
const CORE_V1_IF_SERVED = [
  { name: 'endpoints', singularName: '', namespaced: true, kind: 'Endpoints', verbs: ALL, shortNames: ['ep'], storageVersionHash: 'fWeeMqaN/OA=' },
  { name: 'services', singularName: '', namespaced: true, kind: 'Service', verbs: ALL, shortNames: ['svc'], categories: ['all'], storageVersionHash: '0/CO1lhkEBI=' },
  { name: 'services/status', singularName: '', namespaced: true, kind: 'Service', verbs: ['get', 'patch', 'update'] },
];

/** The storage.k8s.io/v1 entries, as kube-apiserver 1.24 lists them (CSIStorageCapacity is stored as v1beta1). */
const STORAGE_V1 = [
  { name: 'csidrivers', singularName: '', namespaced: false, kind: 'CSIDriver', verbs: ALL, storageVersionHash: 'hL6j/rwBV5w=' },
  { name: 'csinodes', singularName: '', namespaced: false, kind: 'CSINode', verbs: ALL, storageVersionHash: 'Pe62DkZtjuo=' },
  { name: 'csistoragecapacities', singularName: '', namespaced: true, kind: 'CSIStorageCapacity', verbs: ALL, storageVersionHash: '4as6MA/kOg0=' },
  { name: 'storageclasses', singularName: '', namespaced: false, kind: 'StorageClass', verbs: ALL, shortNames: ['sc'], storageVersionHash: 'K+m6uJwbjGY=' },
  { name: 'volumeattachments', singularName: '', namespaced: false, kind: 'VolumeAttachment', verbs: ALL, storageVersionHash: 'tJx/ezt6UDU=' },
  { name: 'volumeattachments/status', singularName: '', namespaced: false, kind: 'VolumeAttachment', verbs: ['get', 'patch', 'update'] },
];

/** The admissionregistration.k8s.io/v1 document, byte for byte as kube-apiserver 1.24 writes it. */
const ADMISSION_V1 =
  '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"admissionregistration.k8s.io/v1","resources":[' +
  '{"name":"mutatingwebhookconfigurations","singularName":"","namespaced":false,"kind":"MutatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"],"storageVersionHash":"Sqi0GUgDaX0="},' +
  '{"name":"validatingwebhookconfigurations","singularName":"","namespaced":false,"kind":"ValidatingWebhookConfiguration","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"],"storageVersionHash":"B0wHjQmsGNk="}]}';

/** metav1.APIResource's JSON field order. */
const RESOURCE_FIELDS = ['name', 'singularName', 'namespaced', 'group', 'version', 'kind', 'verbs', 'shortNames', 'categories', 'storageVersionHash'];

function checkResourceList(doc: any, groupVersion: string, label: string): void {
  // The core list is written without apiVersion; group lists carry apiVersion v1.
  const head = groupVersion === 'v1' ? ['kind', 'groupVersion', 'resources'] : ['kind', 'apiVersion', 'groupVersion', 'resources'];
  assert.equal(Object.keys(doc), head, `${label}: top-level fields`);
  assert.is(doc.kind, 'APIResourceList', label);
  if (groupVersion !== 'v1') assert.is(doc.apiVersion, 'v1', label);
  assert.is(doc.groupVersion, groupVersion, label);
  const names = (doc.resources as any[]).map((r) => r.name);
  assert.equal(names, [...names].sort(), `${label}: resources sorted by name`);
  for (const r of doc.resources as any[]) {
    const keys = Object.keys(r);
    assert.equal(keys, RESOURCE_FIELDS.filter((k) => keys.includes(k)), `${label} ${r.name}: field order`);
    assert.is(r.singularName, '', `${label} ${r.name}: 1.24 leaves singularName empty`);
    assert.equal(r.verbs, [...r.verbs].sort(), `${label} ${r.name}: verbs sorted`);
    // Subresources never carry a storageVersionHash (nor do resources that are never stored, e.g. bindings).
    if (r.name.includes('/')) assert.not.ok('storageVersionHash' in r, `${label} ${r.name}: no storageVersionHash on subresources`);
    if (r.storageVersionHash) assert.match(r.storageVersionHash, /^[A-Za-z0-9+/]{11}=$/, `${label} ${r.name}: 8 bytes of base64`);
  }
}

test('/api and /api/ (APIVersions)', async () => {
  for (const p of ['/api', '/api/']) {
    const r = await t.client.request('GET', p);
    assert.is(r.status, 200, show(r));
    assert.equal(Object.keys(r.json), ['kind', 'versions', 'serverAddressByClientCIDRs'], p);
    assert.is(r.json.kind, 'APIVersions');
    assert.equal(r.json.versions, ['v1']);
    assert.equal(r.json.serverAddressByClientCIDRs.map((c: any) => c.clientCIDR), ['0.0.0.0/0']);
  }
});

test('/api/v1: our entries byte for byte as kube lists them, in its order', async () => {
  for (const p of ['/api/v1', '/api/v1/']) {
    const doc = await ok(t.client.request('GET', p), 200, p);
    checkResourceList(doc, 'v1', p);
    const ours = new Set(CORE_V1.map((e) => e.name));
    const got = (doc.resources as any[]).filter((r) => ours.has(r.name));
    assert.is(JSON.stringify(got), JSON.stringify(CORE_V1), p);
    for (const want of CORE_V1_IF_SERVED) {
      const entry = (doc.resources as any[]).find((r) => r.name === want.name);
      if (entry) assert.is(JSON.stringify(entry), JSON.stringify(want), `${p} ${want.name}`);
    }
  }
});

test('/apis/storage.k8s.io/v1: the five storage kinds byte for byte as kube lists them', async () => {
  const doc = await ok(t.client.request('GET', '/apis/storage.k8s.io/v1'), 200, 'storage.k8s.io/v1');
  checkResourceList(doc, 'storage.k8s.io/v1', 'storage.k8s.io/v1');
  const ours = new Set(STORAGE_V1.map((e) => e.name));
  assert.is(JSON.stringify((doc.resources as any[]).filter((r) => ours.has(r.name))), JSON.stringify(STORAGE_V1));
  const group = await ok(t.client.request('GET', '/apis/storage.k8s.io'), 200, 'storage.k8s.io');
  assert.equal(group.preferredVersion, { groupVersion: 'storage.k8s.io/v1', version: 'v1' });
});

test('/apis/admissionregistration.k8s.io/v1 and its group: byte for byte as kube writes them', async () => {
  const r = await t.client.request('GET', '/apis/admissionregistration.k8s.io/v1');
  assert.is(r.status, 200);
  assert.is(r.text.trim(), ADMISSION_V1);
  const g = await t.client.request('GET', '/apis/admissionregistration.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"admissionregistration.k8s.io","versions":[{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"admissionregistration.k8s.io/v1","version":"v1"}}',
  );
});

test('/apis/coordination.k8s.io: v1 only (v1beta1 removed in 1.22: 404), leases byte for byte as kube lists them', async () => {
  const r = await t.client.request('GET', '/apis/coordination.k8s.io/v1');
  assert.is(r.status, 200, show(r));
  assert.is(
    r.text.trim(),
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"coordination.k8s.io/v1","resources":[' +
      '{"name":"leases","singularName":"","namespaced":true,"kind":"Lease","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"gqkMMb/YqFM="}]}',
  );
  const g = await t.client.request('GET', '/apis/coordination.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"coordination.k8s.io","versions":[{"groupVersion":"coordination.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"coordination.k8s.io/v1","version":"v1"}}',
  );
  for (const p of ['/apis/coordination.k8s.io/v1beta1', '/apis/coordination.k8s.io/v1beta1/namespaces/default/leases']) {
    const gone = await t.client.request('GET', p);
    assert.is(gone.status, 404, show(gone));
    assert.is(gone.json.message, 'the server could not find the requested resource', p);
  }
});

test('/apis/apps: v1 only (v1beta1/v1beta2 removed in 1.16: 404), the workloads byte for byte as kube lists them', async () => {
  const r = await t.client.request('GET', '/apis/apps/v1');
  assert.is(r.status, 200, show(r));
  assert.is(
    r.text.trim(),
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[' +
      '{"name":"controllerrevisions","singularName":"","namespaced":true,"kind":"ControllerRevision","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"85nkx63pcBU="},' +
      '{"name":"daemonsets","singularName":"","namespaced":true,"kind":"DaemonSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ds"],"categories":["all"],"storageVersionHash":"dd7pWHUlMKQ="},' +
      '{"name":"daemonsets/status","singularName":"","namespaced":true,"kind":"DaemonSet","verbs":["get","patch","update"]},' +
      '{"name":"deployments","singularName":"","namespaced":true,"kind":"Deployment","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["deploy"],"categories":["all"],"storageVersionHash":"8aSe+NMegvE="},' +
      '{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},' +
      '{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]},' +
      '{"name":"replicasets","singularName":"","namespaced":true,"kind":"ReplicaSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["rs"],"categories":["all"],"storageVersionHash":"P1RzHs8/mWQ="},' +
      '{"name":"replicasets/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},' +
      '{"name":"replicasets/status","singularName":"","namespaced":true,"kind":"ReplicaSet","verbs":["get","patch","update"]},' +
      '{"name":"statefulsets","singularName":"","namespaced":true,"kind":"StatefulSet","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["sts"],"categories":["all"],"storageVersionHash":"H+vl74LkKdo="},' +
      '{"name":"statefulsets/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},' +
      '{"name":"statefulsets/status","singularName":"","namespaced":true,"kind":"StatefulSet","verbs":["get","patch","update"]}]}',
  );
  const g = await t.client.request('GET', '/apis/apps');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}',
  );
  for (const p of ['/apis/apps/v1beta1', '/apis/apps/v1beta2/namespaces/default/deployments']) {
    const gone = await t.client.request('GET', p);
    assert.is(gone.status, 404, show(gone));
    assert.is(gone.json.message, 'the server could not find the requested resource', p);
  }
});

/** kube 1.24's networking.k8s.io/v1 entries, byte for byte (`kubectl get --raw /apis/networking.k8s.io/v1`). */
const NETWORKING_V1: Record<string, string> = {
  ingressclasses:
    '{"name":"ingressclasses","singularName":"","namespaced":false,"kind":"IngressClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"l/iqIbDgFyQ="}',
  ingresses:
    '{"name":"ingresses","singularName":"","namespaced":true,"kind":"Ingress","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["ing"],"storageVersionHash":"39NQlfNR+bo="}',
  'ingresses/status': '{"name":"ingresses/status","singularName":"","namespaced":true,"kind":"Ingress","verbs":["get","patch","update"]}',
  networkpolicies:
    '{"name":"networkpolicies","singularName":"","namespaced":true,"kind":"NetworkPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["netpol"],"storageVersionHash":"YpfwF18m1G8="}',
  'networkpolicies/status': '{"name":"networkpolicies/status","singularName":"","namespaced":true,"kind":"NetworkPolicy","verbs":["get","patch","update"]}',
};

test('/apis/networking.k8s.io: v1 only (v1beta1 removed in 1.22: 404); v1 byte for byte as kube lists it', async () => {
  const r = await t.client.request('GET', '/apis/networking.k8s.io/v1');
  assert.is(r.status, 200, show(r));
  assert.is(r.text.trim(), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"networking.k8s.io/v1","resources":[${Object.values(NETWORKING_V1).join(',')}]}`);
  const g = await t.client.request('GET', '/apis/networking.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"networking.k8s.io","versions":[{"groupVersion":"networking.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"networking.k8s.io/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/networking.k8s.io/v1beta1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/scheduling.k8s.io: v1 only (v1beta1 removed in 1.22: 404), priorityclasses byte for byte as kube lists them', async () => {
  const r = await t.client.request('GET', '/apis/scheduling.k8s.io/v1');
  assert.is(r.status, 200, show(r));
  assert.is(
    r.text.trim(),
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"scheduling.k8s.io/v1","resources":[' +
      '{"name":"priorityclasses","singularName":"","namespaced":false,"kind":"PriorityClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pc"],"storageVersionHash":"1QwjyaZjj3Y="}]}',
  );
  const g = await t.client.request('GET', '/apis/scheduling.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"scheduling.k8s.io","versions":[{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"scheduling.k8s.io/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/scheduling.k8s.io/v1beta1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/node.k8s.io: v1 (preferred) and v1beta1 (same storage version hash), byte for byte as kube lists them', async () => {
  for (const v of ['v1', 'v1beta1']) {
    const r = await t.client.request('GET', `/apis/node.k8s.io/${v}`);
    assert.is(r.status, 200, show(r));
    assert.is(
      r.text.trim(),
      `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"node.k8s.io/${v}","resources":[` +
        '{"name":"runtimeclasses","singularName":"","namespaced":false,"kind":"RuntimeClass","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"WQTu1GL3T2Q="}]}',
    );
  }
  const g = await t.client.request('GET', '/apis/node.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"node.k8s.io","versions":[{"groupVersion":"node.k8s.io/v1","version":"v1"},{"groupVersion":"node.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"node.k8s.io/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/node.k8s.io/v1alpha1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/certificates.k8s.io: v1 with /approval and /status, byte for byte as kube lists them (v1beta1 left in 1.22)', async () => {
  const r = await t.client.request('GET', '/apis/certificates.k8s.io/v1');
  assert.is(r.status, 200, show(r));
  assert.is(
    r.text.trim(),
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"certificates.k8s.io/v1","resources":[' +
      '{"name":"certificatesigningrequests","singularName":"","namespaced":false,"kind":"CertificateSigningRequest","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["csr"],"storageVersionHash":"95fRKMXA+00="},' +
      '{"name":"certificatesigningrequests/approval","singularName":"","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]},' +
      '{"name":"certificatesigningrequests/status","singularName":"","namespaced":false,"kind":"CertificateSigningRequest","verbs":["get","patch","update"]}]}',
  );
  const g = await t.client.request('GET', '/apis/certificates.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"certificates.k8s.io","versions":[{"groupVersion":"certificates.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"certificates.k8s.io/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/certificates.k8s.io/v1beta1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/discovery.k8s.io: v1 (preferred) and v1beta1 (same storage version hash), byte for byte as kube lists them', async () => {
  for (const v of ['v1', 'v1beta1']) {
    const r = await t.client.request('GET', `/apis/discovery.k8s.io/${v}`);
    assert.is(r.status, 200, show(r));
    assert.is(
      r.text.trim(),
      `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"discovery.k8s.io/${v}","resources":[` +
        '{"name":"endpointslices","singularName":"","namespaced":true,"kind":"EndpointSlice","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"storageVersionHash":"Nx3SIv6I0mE="}]}',
    );
  }
  const g = await t.client.request('GET', '/apis/discovery.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"discovery.k8s.io","versions":[{"groupVersion":"discovery.k8s.io/v1","version":"v1"},{"groupVersion":"discovery.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"discovery.k8s.io/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/discovery.k8s.io/v1alpha1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/autoscaling: v2 (preferred), v1, v2beta1, v2beta2 with v1\'s storage version hash, byte for byte as kube lists them', async () => {
  for (const v of ['v2', 'v1', 'v2beta1', 'v2beta2']) {
    const r = await t.client.request('GET', `/apis/autoscaling/${v}`);
    assert.is(r.status, 200, show(r));
    assert.is(
      r.text.trim(),
      `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"autoscaling/${v}","resources":[` +
        '{"name":"horizontalpodautoscalers","singularName":"","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["hpa"],"categories":["all"],"storageVersionHash":"oQlkt7f5j/A="},' +
        '{"name":"horizontalpodautoscalers/status","singularName":"","namespaced":true,"kind":"HorizontalPodAutoscaler","verbs":["get","patch","update"]}]}',
    );
  }
  const g = await t.client.request('GET', '/apis/autoscaling');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"},{"groupVersion":"autoscaling/v2beta1","version":"v2beta1"},{"groupVersion":"autoscaling/v2beta2","version":"v2beta2"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}}',
  );
  const gone = await t.client.request('GET', '/apis/autoscaling/v3');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/batch: v1 (Job, CronJob) and v1beta1 (CronJob, the same storage version hash), byte for byte as kube lists them', async () => {
  const ALL_VERBS = '["create","delete","deletecollection","get","list","patch","update","watch"]';
  const cronjobs =
    `{"name":"cronjobs","singularName":"","namespaced":true,"kind":"CronJob","verbs":${ALL_VERBS},"shortNames":["cj"],"categories":["all"],"storageVersionHash":"sd5LIXh4Fjs="},` +
    '{"name":"cronjobs/status","singularName":"","namespaced":true,"kind":"CronJob","verbs":["get","patch","update"]}';
  const jobs =
    `{"name":"jobs","singularName":"","namespaced":true,"kind":"Job","verbs":${ALL_VERBS},"categories":["all"],"storageVersionHash":"mudhfqk/qZY="},` +
    '{"name":"jobs/status","singularName":"","namespaced":true,"kind":"Job","verbs":["get","patch","update"]}';
  for (const [v, resources] of [['v1', `${cronjobs},${jobs}`], ['v1beta1', cronjobs]]) {
    const r = await t.client.request('GET', `/apis/batch/${v}`);
    assert.is(r.status, 200, show(r));
    assert.is(r.text.trim(), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"batch/${v}","resources":[${resources}]}`);
  }
  const g = await t.client.request('GET', '/apis/batch');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"batch","versions":[{"groupVersion":"batch/v1","version":"v1"},{"groupVersion":"batch/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"batch/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/batch/v2alpha1');
  assert.is(gone.status, 404, show(gone));
});

/** kube 1.24's policy entries, byte for byte (`kubectl get --raw /apis/policy/<version>`). */
const PDB_ENTRIES =
  '{"name":"poddisruptionbudgets","singularName":"","namespaced":true,"kind":"PodDisruptionBudget","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["pdb"],"storageVersionHash":"6BGBu0kpHtk="},' +
  '{"name":"poddisruptionbudgets/status","singularName":"","namespaced":true,"kind":"PodDisruptionBudget","verbs":["get","patch","update"]}';
const PSP_ENTRY =
  '{"name":"podsecuritypolicies","singularName":"","namespaced":false,"kind":"PodSecurityPolicy","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["psp"],"storageVersionHash":"khBLobUXkqA="}';

test('/apis/policy: v1 (preferred) and v1beta1 (PodDisruptionBudget with v1\'s storage version hash, PodSecurityPolicy), byte for byte as kube lists them', async () => {
  for (const [v, entries] of [['v1', PDB_ENTRIES], ['v1beta1', `${PDB_ENTRIES},${PSP_ENTRY}`]]) {
    const r = await t.client.request('GET', `/apis/policy/${v}`);
    assert.is(r.status, 200, show(r));
    assert.is(r.text.trim(), `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"policy/${v}","resources":[${entries}]}`);
  }
  const g = await t.client.request('GET', '/apis/policy');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"policy","versions":[{"groupVersion":"policy/v1","version":"v1"},{"groupVersion":"policy/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"policy/v1","version":"v1"}}',
  );
  const gone = await t.client.request('GET', '/apis/policy/v1alpha1');
  assert.is(gone.status, 404, show(gone));
});

test('/apis/flowcontrol.apiserver.k8s.io: v1beta2 (preferred) and v1beta1 (same storage version hashes), byte for byte as kube lists them', async () => {
  for (const v of ['v1beta2', 'v1beta1']) {
    const r = await t.client.request('GET', `/apis/flowcontrol.apiserver.k8s.io/${v}`);
    assert.is(r.status, 200, show(r));
    const verbs = '"verbs":["create","delete","deletecollection","get","list","patch","update","watch"]';
    assert.is(
      r.text.trim(),
      `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"flowcontrol.apiserver.k8s.io/${v}","resources":[` +
        `{"name":"flowschemas","singularName":"","namespaced":false,"kind":"FlowSchema",${verbs},"storageVersionHash":"9bSnTLYweJ0="},` +
        '{"name":"flowschemas/status","singularName":"","namespaced":false,"kind":"FlowSchema","verbs":["get","patch","update"]},' +
        `{"name":"prioritylevelconfigurations","singularName":"","namespaced":false,"kind":"PriorityLevelConfiguration",${verbs},"storageVersionHash":"BFVwf8eYnsw="},` +
        '{"name":"prioritylevelconfigurations/status","singularName":"","namespaced":false,"kind":"PriorityLevelConfiguration","verbs":["get","patch","update"]}]}',
    );
  }
  const g = await t.client.request('GET', '/apis/flowcontrol.apiserver.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"flowcontrol.apiserver.k8s.io","versions":[{"groupVersion":"flowcontrol.apiserver.k8s.io/v1beta2","version":"v1beta2"},{"groupVersion":"flowcontrol.apiserver.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"flowcontrol.apiserver.k8s.io/v1beta2","version":"v1beta2"}}',
  );
  const off = await t.client.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1alpha1');
  assert.is(off.status, 404, show(off));
});

test('/apis/apiextensions.k8s.io/v1 and its group: byte for byte as kube writes them (v1 only; v1beta1 left in 1.22)', async () => {
  const r = await t.client.request('GET', '/apis/apiextensions.k8s.io/v1');
  assert.is(r.status, 200);
  assert.is(
    r.text.trim(),
    '{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apiextensions.k8s.io/v1","resources":[' +
      '{"name":"customresourcedefinitions","singularName":"","namespaced":false,"kind":"CustomResourceDefinition","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"shortNames":["crd","crds"],"categories":["api-extensions"],"storageVersionHash":"jfWCUB31mvA="},' +
      '{"name":"customresourcedefinitions/status","singularName":"","namespaced":false,"kind":"CustomResourceDefinition","verbs":["get","patch","update"]}]}',
  );
  const g = await t.client.request('GET', '/apis/apiextensions.k8s.io');
  assert.is(
    g.text.trim(),
    '{"kind":"APIGroup","apiVersion":"v1","name":"apiextensions.k8s.io","versions":[{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apiextensions.k8s.io/v1","version":"v1"}}',
  );
});

test('storageVersionHash is base64 of the first 8 bytes of sha256(<group>/<version>/<kind>)', async () => {
  const doc = await ok(t.client.request('GET', '/api/v1'), 200, '/api/v1');
  for (const e of CORE_V1.filter((x) => x.storageVersionHash)) {
    const want = createHash('sha256').update(`/v1/${e.kind}`).digest().subarray(0, 8).toString('base64');
    assert.is(e.storageVersionHash, want, `${e.name}: the expected value is kube's rule`);
    assert.is(doc.resources.find((r: any) => r.name === e.name).storageVersionHash, want, e.name);
  }
});

test('/apis, /apis/<g>, /apis/<g>/<v>: shapes as kube writes them, for every group served', async () => {
  const list = await ok(t.client.request('GET', '/apis'), 200, '/apis');
  assert.equal(Object.keys(list), ['kind', 'apiVersion', 'groups']);
  assert.is(list.kind, 'APIGroupList');
  assert.is(list.apiVersion, 'v1');
  const slash = await ok(t.client.request('GET', '/apis/'), 200, '/apis/');
  assert.equal(slash, list, '/apis/ is /apis');
  for (const g of list.groups as any[]) {
    assert.equal(Object.keys(g), ['name', 'versions', 'preferredVersion'], `${g.name}: group fields`);
    assert.equal(g.preferredVersion, g.versions[0], `${g.name}: preferred version listed first`);
    const one = await ok(t.client.request('GET', `/apis/${g.name}`), 200, g.name);
    assert.is(JSON.stringify(one), JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...g }), `/apis/${g.name}`);
    for (const v of g.versions as any[]) {
      const doc = await ok(t.client.request('GET', `/apis/${v.groupVersion}`), 200, v.groupVersion);
      checkResourceList(doc, v.groupVersion, `/apis/${v.groupVersion}`);
    }
  }
});

test("/apis lists groups (and each group's versions) in kube-apiserver 1.24's order", async () => {
  // Kube's order for its built-in groups; on the reference this checks the list itself.
  const KUBE: [string, string[]][] = [
    ['apiregistration.k8s.io', ['v1']], ['apps', ['v1']], ['events.k8s.io', ['v1', 'v1beta1']], ['authentication.k8s.io', ['v1']],
    ['authorization.k8s.io', ['v1']], ['autoscaling', ['v2', 'v1', 'v2beta1', 'v2beta2']], ['batch', ['v1', 'v1beta1']],
    ['certificates.k8s.io', ['v1']], ['networking.k8s.io', ['v1']], ['policy', ['v1', 'v1beta1']], ['rbac.authorization.k8s.io', ['v1']],
    ['storage.k8s.io', ['v1', 'v1beta1']], ['admissionregistration.k8s.io', ['v1']], ['apiextensions.k8s.io', ['v1']],
    ['scheduling.k8s.io', ['v1']], ['coordination.k8s.io', ['v1']], ['node.k8s.io', ['v1', 'v1beta1']],
    ['discovery.k8s.io', ['v1', 'v1beta1']], ['flowcontrol.apiserver.k8s.io', ['v1beta2', 'v1beta1']],
  ];
  const order = new Map(KUBE);
  const list = await ok(t.client.request('GET', '/apis'), 200, '/apis');
  const known = (list.groups as any[]).filter((g) => order.has(g.name));
  assert.equal(known.map((g) => g.name), KUBE.map(([g]) => g).filter((g) => known.some((k) => k.name === g)), 'group order');
  for (const g of known) {
    const versions = g.versions.map((v: any) => v.version);
    assert.equal(versions, order.get(g.name)!.filter((v) => versions.includes(v)), `${g.name}: version order`);
  }
});

test('paths that name nothing: plain-text 404 for unknown groups, Status 404 for unknown versions', async () => {
  const text = await t.client.request('GET', '/apis/no-such-group.example.com');
  assert.is(text.status, 404, show(text));
  assert.is(text.text, '404 page not found\n');
  assert.match(String(text.headers['content-type']), /^text\/plain/);
  const r = await t.client.request('GET', '/api/v2');
  assert.is(r.status, 404, show(r));
  assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
});

test.run();
