/**
 * DefaultStorageClass and the storage protection controllers on this server, through HTTP. (The
 * shared reference cannot host these cases: a second default StorageClass there would break
 * everyone's claims; the fidelity suites cover what can run on both.) Messages are kube 1.24's
 * (plugin/pkg/admission/storage/storageclass/setdefault: an InternalError wrapped in Forbidden).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './harness.ts';
import { show } from './assertions.ts';

let s: TestServer;
const SC = '/apis/storage.k8s.io/v1/storageclasses';
const C = '/api/v1/namespaces/default/persistentvolumeclaims';
const MERGE = 'application/merge-patch+json';

test.before(async () => {
  s = await startTestServer();
});
test.after(async () => {
  await s.close();
});

const sc = (name: string, isDefault: boolean) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
  provisioner: 'example.com/p',
});
const pvc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

test('DefaultStorageClass: a claim naming no class gets the one default class; two defaults refuse it', async () => {
  const none = await s.client.request('POST', C, { body: pvc('no-default') });
  assert.is(none.status, 201, show(none));
  assert.is((none.json as any).spec.storageClassName, undefined);

  assert.is((await s.client.request('POST', SC, { body: sc('std', true) })).status, 201);
  assert.is((await s.client.request('POST', SC, { body: sc('other', false) })).status, 201);
  const a = await s.client.request('POST', C, { body: pvc('a') });
  assert.is(a.status, 201, show(a));
  assert.is((a.json as any).spec.storageClassName, 'std');
  // An explicit class, even "", and the beta annotation are kept.
  const b = await s.client.request('POST', C, { body: pvc('b', { storageClassName: '' }) });
  assert.is((b.json as any).spec.storageClassName, '');
  const c = await s.client.request('POST', C, { body: { ...pvc('c'), metadata: { name: 'c', annotations: { 'volume.beta.kubernetes.io/storage-class': 'x' } } } });
  assert.is((c.json as any).spec.storageClassName, undefined);

  assert.is((await s.client.request('POST', SC, { body: sc('std2', true) })).status, 201);
  const two = await s.client.request('POST', C, { body: pvc('d') });
  assert.is(two.status, 403, show(two));
  assert.is((two.json as any).message, 'persistentvolumeclaims "d" is forbidden: Internal error occurred: 2 default StorageClasses were found');
  assert.is((await s.client.request('DELETE', `${SC}/std2`)).status, 200);
});

test('PersistentVolumeClaimResize: a bound claim grows only within a class that allows expansion', async () => {
  await s.client.request('POST', SC, { body: { ...sc('grow', false), allowVolumeExpansion: true } });
  for (const [name, cls] of [['g1', 'grow'], ['g2', 'other']]) {
    assert.is((await s.client.request('POST', C, { body: pvc(name, { storageClassName: cls }) })).status, 201);
    assert.is((await s.client.request('PATCH', `${C}/${name}/status`, { body: { status: { phase: 'Bound' } }, contentType: MERGE })).status, 200);
  }
  const ok = await s.client.request('PATCH', `${C}/g1`, { body: { spec: { resources: { requests: { storage: '3Gi' } } } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  const no = await s.client.request('PATCH', `${C}/g2`, { body: { spec: { resources: { requests: { storage: '3Gi' } } } }, contentType: MERGE });
  assert.is(no.status, 403, show(no));
  // The class disappearing makes the growth refused too.
  await s.client.request('DELETE', `${SC}/grow`);
  const gone = await s.client.request('PATCH', `${C}/g1`, { body: { spec: { resources: { requests: { storage: '4Gi' } } } }, contentType: MERGE });
  assert.is(gone.status, 403, show(gone));
});

test('protection controllers: a finalizer removed by a client is added back while the object lives', async () => {
  const r = await s.client.request('PATCH', `${C}/a`, { body: { metadata: { finalizers: null } }, contentType: MERGE });
  assert.is(r.status, 200, show(r));
  let fin: unknown;
  for (let i = 0; i < 100; i++) {
    fin = ((await s.client.request('GET', `${C}/a`)).json as any).metadata.finalizers;
    if (fin) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(fin, ['kubernetes.io/pvc-protection']);
});

test.run();
