/**
 * The official JavaScript client (@kubernetes/client-node v2, object-parameter API) against an
 * in-process server, configured only from the kubeconfig the server writes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApiException as ApiExceptionT, CoreV1Api as CoreV1ApiT, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { startTestServer, type TestServer } from './harness.ts';

// package.json overrides the client's undici with the project's undici 7: undici 8 needs Node >= 22.
const { ApiException, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } = await import('@kubernetes/client-node');
type ApiException<T> = ApiExceptionT<T>;
type CoreV1Api = CoreV1ApiT;

let server: TestServer;
let core: CoreV1Api;
const NS = 'client-node';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run `fn`, expecting an ApiException; return it. */
async function apiError(fn: () => Promise<unknown>): Promise<ApiException<any>> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof ApiException) return e;
    throw e;
  }
  throw new Error('expected an ApiException, the call succeeded');
}

/** The client hands a failing call's body over as the raw text; normalize to an object. */
function statusOf(e: ApiException<any>): any {
  return typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
}

test.before(async () => {
  // Without kube-controller-manager's per-namespace objects (kube-root-ca.crt, the default
  // ServiceAccount): the suite counts exactly the objects it makes in its namespaces.
  server = await startTestServer({ namespaceDefaults: false });
  const kc = new KubeConfig();
  kc.loadFromFile(server.server.kubeconfigPath);
  core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
});

test.after(async () => {
  await server?.close();
});

test('kubeconfig points at the server and carries the admin client cert', () => {
  const kc = new KubeConfig();
  kc.loadFromFile(server.server.kubeconfigPath);
  assert.is(kc.getCurrentCluster()?.server, server.url);
  const user = kc.getCurrentUser();
  assert.ok(user?.certData || user?.certFile, 'client certificate in kubeconfig');
  assert.ok(user?.keyData || user?.keyFile, 'client key in kubeconfig');
});

test('list namespaces sees the bootstrap namespaces', async () => {
  const list = await core.listNamespace();
  const names = list.items.map((n) => n.metadata?.name);
  for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease', NS]) assert.ok(names.includes(n), `namespace ${n} listed`);
  for (const n of list.items) if (n.metadata?.name !== NS) assert.is(n.status?.phase, 'Active');
  assert.ok(list.metadata?.resourceVersion, 'list has a resourceVersion');
  const ns = await core.readNamespace({ name: 'default' });
  assert.is(ns.metadata?.name, 'default');
  assert.ok(ns.metadata?.uid);
});

test('ConfigMap create / read / replace / merge patch / list by label / delete', async () => {
  const created = await core.createNamespacedConfigMap({
    namespace: NS,
    body: { metadata: { name: 'cm1', labels: { app: 'web', tier: 'front' } }, data: { a: '1' } },
  });
  assert.is(created.metadata?.name, 'cm1');
  assert.is(created.metadata?.namespace, NS);
  assert.ok(created.metadata?.uid);
  assert.ok(created.metadata?.resourceVersion);
  assert.ok(created.metadata?.creationTimestamp instanceof Date, 'creationTimestamp deserialized as a Date');
  assert.equal(created.data, { a: '1' });

  const read = await core.readNamespacedConfigMap({ name: 'cm1', namespace: NS });
  assert.equal(read.data, { a: '1' });
  assert.is(read.metadata?.resourceVersion, created.metadata?.resourceVersion);

  // replace with the current resourceVersion
  const replaced = await core.replaceNamespacedConfigMap({
    name: 'cm1',
    namespace: NS,
    body: { ...read, data: { a: '2', b: 'x' } },
  });
  assert.equal(replaced.data, { a: '2', b: 'x' });
  assert.ok(Number(replaced.metadata!.resourceVersion) > Number(read.metadata!.resourceVersion));
  assert.is(replaced.metadata?.uid, created.metadata?.uid);

  // replace with a stale resourceVersion → 409 Conflict
  const stale = await apiError(() => core.replaceNamespacedConfigMap({ name: 'cm1', namespace: NS, body: { ...read, data: { a: '3' } } }));
  assert.is(stale.code, 409);
  assert.is(statusOf(stale).reason, 'Conflict');

  // merge patch: set c, delete b
  const patched = await core.patchNamespacedConfigMap(
    { name: 'cm1', namespace: NS, body: { data: { c: 'y', b: null }, metadata: { labels: { patched: 'yes' } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  assert.equal(patched.data, { a: '2', c: 'y' });
  assert.is(patched.metadata?.labels?.patched, 'yes');
  assert.is(patched.metadata?.labels?.app, 'web');

  // JSON patch (the client's default patch content type)
  const jp = await core.patchNamespacedConfigMap({ name: 'cm1', namespace: NS, body: [{ op: 'replace', path: '/data/a', value: '9' }] });
  assert.is(jp.data?.a, '9');

  // strategic merge patch
  const smp = await core.patchNamespacedConfigMap(
    { name: 'cm1', namespace: NS, body: { data: { d: 'z' } } },
    setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
  );
  assert.equal(smp.data, { a: '9', c: 'y', d: 'z' });

  // more objects for the selector
  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'cm2', labels: { app: 'web', tier: 'back' } }, data: {} } });
  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'cm3', labels: { app: 'db' } } } });

  const web = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'app=web' });
  assert.equal(web.items.map((c) => c.metadata?.name).sort(), ['cm1', 'cm2']);
  const front = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'app=web,tier!=back' });
  assert.equal(front.items.map((c) => c.metadata?.name), ['cm1']);
  const setBased = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'app in (db,cache)' });
  assert.equal(setBased.items.map((c) => c.metadata?.name), ['cm3']);
  const byField = await core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'metadata.name=cm2' });
  assert.equal(byField.items.map((c) => c.metadata?.name), ['cm2']);
  const all = await core.listConfigMapForAllNamespaces({ labelSelector: 'app' });
  assert.equal(all.items.map((c) => c.metadata?.name).sort(), ['cm1', 'cm2', 'cm3']);

  // paging
  const page1 = await core.listNamespacedConfigMap({ namespace: NS, limit: 2 });
  assert.is(page1.items.length, 2);
  assert.ok(page1.metadata?._continue, 'continue token on a partial page');
  const page2 = await core.listNamespacedConfigMap({ namespace: NS, limit: 2, _continue: page1.metadata!._continue });
  assert.is(page2.items.length, 1);
  assert.not.ok(page2.metadata?._continue);

  // delete → Status (the client deserializes it as V1Status)
  const del = await core.deleteNamespacedConfigMap({ name: 'cm1', namespace: NS });
  assert.is((del as any).status, 'Success');
  const gone = await apiError(() => core.readNamespacedConfigMap({ name: 'cm1', namespace: NS }));
  assert.is(gone.code, 404);

  // deletecollection by label
  await core.deleteCollectionNamespacedConfigMap({ namespace: NS, labelSelector: 'app' });
  const left = await core.listNamespacedConfigMap({ namespace: NS });
  assert.equal(left.items.map((c) => c.metadata?.name), []);
});

test('Secret: stringData in, base64 data out; type defaults to Opaque', async () => {
  const created: V1Secret = await core.createNamespacedSecret({
    namespace: NS,
    body: { metadata: { name: 's1', labels: { kind: 'cred' } }, stringData: { user: 'admin', password: 'p@ss wörd' }, data: { raw: Buffer.from([0, 1, 2, 255]).toString('base64') } },
  });
  assert.is(created.type, 'Opaque');
  assert.is(created.stringData, undefined, 'stringData is write-only');
  assert.is(created.data?.user, Buffer.from('admin').toString('base64'));
  assert.is(Buffer.from(created.data!.password!, 'base64').toString('utf8'), 'p@ss wörd');
  assert.equal([...Buffer.from(created.data!.raw!, 'base64')], [0, 1, 2, 255]);

  const read = await core.readNamespacedSecret({ name: 's1', namespace: NS });
  assert.equal(read.data, created.data);

  const replaced = await core.replaceNamespacedSecret({ name: 's1', namespace: NS, body: { ...read, stringData: { extra: 'e' } } });
  assert.is(Buffer.from(replaced.data!.extra!, 'base64').toString(), 'e');
  assert.is(replaced.data?.user, read.data?.user);

  const patched = await core.patchNamespacedSecret(
    { name: 's1', namespace: NS, body: { data: { user: Buffer.from('root').toString('base64'), raw: null } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  assert.is(Buffer.from(patched.data!.user!, 'base64').toString(), 'root');
  assert.is(patched.data?.raw, undefined);

  // invalid base64 in data → 400/422 ApiException with a Status
  const bad = await apiError(() => core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 's-bad' }, data: { x: '%%%not-base64' } } }));
  assert.ok(bad.code === 400 || bad.code === 422, `bad base64 → ${bad.code}`);
  assert.is(statusOf(bad).kind, 'Status');

  const list = await core.listNamespacedSecret({ namespace: NS, labelSelector: 'kind=cred' });
  assert.equal(list.items.map((s) => s.metadata?.name), ['s1']);

  await core.deleteNamespacedSecret({ name: 's1', namespace: NS });
  const gone = await apiError(() => core.readNamespacedSecret({ name: 's1', namespace: NS }));
  assert.is(gone.code, 404);
});

test('errors: missing object → ApiException 404 with a Status body; duplicates → 409', async () => {
  const e = await apiError(() => core.readNamespacedConfigMap({ name: 'does-not-exist', namespace: NS }));
  assert.is(e.code, 404);
  const st = statusOf(e);
  assert.is(st.kind, 'Status');
  assert.is(st.apiVersion, 'v1');
  assert.is(st.status, 'Failure');
  assert.is(st.reason, 'NotFound');
  assert.is(st.code, 404);
  assert.is(st.details?.name, 'does-not-exist');
  assert.is(st.details?.kind, 'configmaps');
  assert.is(st.message, 'configmaps "does-not-exist" not found');

  const nsMissing = await apiError(() => core.readNamespace({ name: 'no-such-ns' }));
  assert.is(nsMissing.code, 404);
  assert.is(statusOf(nsMissing).details?.kind, 'namespaces');

  await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'dup' } } });
  const dup = await apiError(() => core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'dup' } } }));
  assert.is(dup.code, 409);
  assert.is(statusOf(dup).reason, 'AlreadyExists');

  const invalid = await apiError(() => core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'Bad_Name' } } }));
  assert.is(invalid.code, 422);
  assert.is(statusOf(invalid).reason, 'Invalid');

  const noNs = await apiError(() => core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }));
  assert.is(noNs.code, 404);
  assert.is(statusOf(noNs).reason, 'NotFound');
  await core.deleteNamespacedConfigMap({ name: 'dup', namespace: NS });
});

test('Namespace: create, delete → Terminating, contents removed, eventually gone', async () => {
  const ns = await core.createNamespace({ body: { metadata: { name: 'doomed', labels: { team: 'x' } } } });
  assert.is(ns.status?.phase, 'Active');
  assert.equal(ns.spec?.finalizers, ['kubernetes']);
  await core.createNamespacedConfigMap({ namespace: 'doomed', body: { metadata: { name: 'inside' }, data: { k: 'v' } } });
  await core.createNamespacedSecret({ namespace: 'doomed', body: { metadata: { name: 'inside' }, stringData: { k: 'v' } } });

  const labelled = await core.listNamespace({ labelSelector: 'team=x' });
  assert.equal(labelled.items.map((n) => n.metadata?.name), ['doomed']);

  // kube-apiserver answers a namespace delete with the (now Terminating) Namespace object; the
  // client types the answer as V1Status and keeps only the fields V1Status has.
  const del = await core.deleteNamespace({ name: 'doomed' });
  assert.is((del as any).kind, 'Namespace');

  // while terminating (if still visible), creates in it are refused
  let gone = false;
  for (let i = 0; i < 200 && !gone; i++) {
    try {
      const cur = await core.readNamespace({ name: 'doomed' });
      assert.is(cur.status?.phase, 'Terminating');
      assert.ok(cur.metadata?.deletionTimestamp);
      await sleep(25);
    } catch (e) {
      if (!(e instanceof ApiException) || e.code !== 404) throw e;
      gone = true;
    }
  }
  assert.ok(gone, 'namespace removed after its contents were cleaned up');
  const cms = await core.listConfigMapForAllNamespaces({ fieldSelector: 'metadata.namespace=doomed' });
  assert.is(cms.items.length, 0);
  const secrets = await core.listSecretForAllNamespaces({ fieldSelector: 'metadata.namespace=doomed' });
  assert.is(secrets.items.length, 0);

  const undeletable = await apiError(() => core.deleteNamespace({ name: 'default' }));
  assert.is(undeletable.code, 403);
  assert.is(statusOf(undeletable).reason, 'Forbidden');
});

test('creates in a Terminating namespace are refused with 403', async () => {
  await core.createNamespace({ body: { metadata: { name: 'term2' } } });
  // a finalizer-holding ConfigMap keeps the namespace Terminating until we release it
  await core.createNamespacedConfigMap({ namespace: 'term2', body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
  await core.deleteNamespace({ name: 'term2' });
  const ns = await core.readNamespace({ name: 'term2' });
  assert.is(ns.status?.phase, 'Terminating');
  const refused = await apiError(() => core.createNamespacedConfigMap({ namespace: 'term2', body: { metadata: { name: 'new' } } }));
  assert.is(refused.code, 403);
  assert.is(statusOf(refused).reason, 'Forbidden');
  assert.match(statusOf(refused).message, /being terminated/);
  // release the finalizer; the namespace then goes away
  // The namespace controller's first pass comes after kube's 5 s grace period: wait by the
  // clock, not by a number of reads (reads got faster than the grace period's 100 × 50 ms).
  let held: V1ConfigMap | undefined;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
    held = await core.readNamespacedConfigMap({ name: 'held', namespace: 'term2' });
    if (held.metadata?.deletionTimestamp) break;
    await sleep(20);
  }
  assert.ok(held?.metadata?.deletionTimestamp, 'namespace controller marked the held object for deletion');
  await core.patchNamespacedConfigMap(
    { name: 'held', namespace: 'term2', body: { metadata: { finalizers: null } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  let gone = false;
  for (let i = 0; i < 200 && !gone; i++) {
    try {
      await core.readNamespace({ name: 'term2' });
      await sleep(25);
    } catch (e) {
      if (!(e instanceof ApiException) || e.code !== 404) throw e;
      gone = true;
    }
  }
  assert.ok(gone, 'namespace removed once the finalizer was released');
});

test('server-side apply (PatchStrategy.ServerSideApply): create, conflict 409, force', async () => {
  const apply = (manager: string, data: Record<string, string>, force?: boolean) =>
    core.patchNamespacedConfigMap(
      { name: 'applied', namespace: NS, fieldManager: manager, force, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data } },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    );
  const created = await apply('node-app', { a: '1', b: '2' });
  assert.equal(created.data, { a: '1', b: '2' });
  assert.equal(
    created.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
    [['node-app', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } }]],
  );
  const e = await apiError(() => apply('other', { a: 'x' }));
  assert.is(e.code, 409);
  const status = statusOf(e);
  assert.is(status.message, 'Apply failed with 1 conflict: conflict with "node-app": .data.a');
  assert.equal(status.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "node-app"', field: '.data.a' }]);
  const forced = await apply('other', { a: 'x' }, true);
  assert.equal(forced.data, { a: 'x', b: '2' });
  assert.equal(
    forced.metadata?.managedFields?.map((m) => [m.manager, m.fieldsV1]).sort(),
    [['node-app', { 'f:data': { 'f:b': {} } }], ['other', { 'f:data': { 'f:a': {} } }]],
  );
});

test.run();
