/**
 * The ResourceQuota admission plugin as kube-apiserver 1.24 runs it: creates (and service / claim
 * updates) checked against the namespace's quotas' status.hard, kube's 403s (`exceeded quota`,
 * `failed quota: … must specify`, `status unknown for quota`), status.used grown by admission
 * through `/status` (manager kube-apiserver), dry runs counted but not written.
 *
 * The reference runs no controller-manager, so there status.hard/used are only what a client
 * writes and what admission adds: each test writes the status kube's resourcequota controller
 * would (`initStatus`), after waiting here for this server's controller to have done its first
 * sync (so the two writes do not race). The controller's own work (status from spec, usage of the
 * objects present, replenishment on delete and on a terminal pod) is checked here, and on the
 * reference when kube-controller-manager runs its resourcequota controller beside it:
 *
 *   node --import tsx test/run.ts test/fidelity/admission-resourcequota.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/admission-resourcequota.test.ts
 *   kube-controller-manager --kubeconfig=/tmp/ref/kubeconfig --authentication-kubeconfig=/tmp/ref/kubeconfig \
 *     --authorization-kubeconfig=/tmp/ref/kubeconfig --leader-elect=false --controllers=resourcequota --secure-port=16599 &
 *   TEST_REF_QUOTA_CONTROLLER=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/admission-resourcequota.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { eventually } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { forbiddenStatus as forbidden } from './storage-helpers.ts';

let t: Target;

/**
 * Whether a resourcequota controller runs: always here; on the reference only when a
 * kube-controller-manager with it was started beside it (TEST_REF_QUOTA_CONTROLLER=1).
 */
const controllerRuns = (): boolean => !t.reference || process.env.TEST_REF_QUOTA_CONTROLLER === '1';

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t.close();
});

/** A fresh namespace with its `default` ServiceAccount (the reference has no controller to add it). */
async function namespace(prefix: string): Promise<string> {
  const ns = await t.createNamespace(prefix);
  const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`service account: ${show(r)}`);
  return ns;
}

const Q = (ns: string) => `/api/v1/namespaces/${ns}/resourcequotas`;

/** Create a quota and give it the status kube's controller would: hard = spec.hard, used as given. */
async function quota(ns: string, name: string, hard: Record<string, string>, used: Record<string, string>, spec: Record<string, unknown> = {}): Promise<void> {
  const r = await t.client.request('POST', Q(ns), { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...spec } } });
  assert.is(r.status, 201, show(r));
  await initStatus(ns, name, { hard, used });
}

async function initStatus(ns: string, name: string, status: Record<string, unknown>): Promise<void> {
  if (controllerRuns()) await eventually('the resourcequota controller syncs the new quota', async () => Boolean((await getQuota(ns, name)).status?.used));
  const q = await getQuota(ns, name);
  delete q.metadata.resourceVersion;
  const r = await t.client.request('PUT', `${Q(ns)}/${name}/status`, { body: { ...q, status } });
  assert.is(r.status, 200, show(r));
}

async function getQuota(ns: string, name: string): Promise<any> {
  const r = await t.client.request('GET', `${Q(ns)}/${name}`);
  assert.is(r.status, 200, show(r));
  return r.json;
}

const used = async (ns: string, name: string): Promise<Record<string, string>> => (await getQuota(ns, name)).status.used;

const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: {} });
const pod = (name: string, resources?: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25', ...(resources ? { resources } : {}) }], ...spec },
});

test('object count: secrets over the limit refused, usage grown by admission, dry run not counted', async () => {
  const ns = await namespace('rqa-count');
  await quota(ns, 'q', { secrets: '1', 'count/secrets': '5' }, { secrets: '0', 'count/secrets': '0' });
  const S = `/api/v1/namespaces/${ns}/secrets`;
  const dry = await t.client.request('POST', `${S}?dryRun=All`, { body: secret('dry') });
  assert.is(dry.status, 201, show(dry));
  assert.equal(await used(ns, 'q'), { secrets: '0', 'count/secrets': '0' }, 'a dry run writes no usage');
  const a = await t.client.request('POST', S, { body: secret('a') });
  assert.is(a.status, 201, show(a));
  const q = await getQuota(ns, 'q');
  assert.equal(q.status.used, { 'count/secrets': '1', secrets: '1' });
  const mf = (q.metadata.managedFields as any[]).find((m) => m.manager === 'kube-apiserver');
  assert.ok(mf, 'admission writes status.used as kube-apiserver');
  assert.is(mf.operation, 'Update');
  assert.is(mf.subresource, 'status');
  assert.equal(mf.fieldsV1, { 'f:status': { 'f:used': { 'f:count/secrets': {}, 'f:secrets': {} } } });
  const b = await t.client.request('POST', S, { body: secret('b') });
  assert.equal(b.json, forbidden('secrets', 'b', 'exceeded quota: q, requested: secrets=1, used: secrets=1, limited: secrets=1'), show(b));
  const dryOver = await t.client.request('POST', `${S}?dryRun=All`, { body: secret('c') });
  assert.is(dryOver.status, 403, show(dryOver));
  const gen = await t.client.request('POST', S, { body: { ...secret(''), metadata: { generateName: 'gen-' } } });
  assert.is(gen.status, 403, show(gen));
  assert.match((gen.json as any).message, /^secrets "gen-[a-z0-9]{5}" is forbidden: exceeded quota: q,/);
  assert.is((await t.client.request('GET', `${S}/b`)).status, 404, 'nothing stored');
  // Updates are not counted for object counts.
  const u = await t.client.request('PATCH', `${S}/a`, { body: { metadata: { labels: { x: 'y' } } }, contentType: 'application/merge-patch+json' });
  assert.is(u.status, 200, show(u));
});

test('a create refused after admission (AlreadyExists) keeps the usage admission added', async () => {
  const ns = await namespace('rqa-exists');
  await quota(ns, 'cm', { 'count/configmaps': '5' }, { 'count/configmaps': '0' });
  const C = `/api/v1/namespaces/${ns}/configmaps`;
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
  assert.is((await t.client.request('POST', C, { body: cm })).status, 201);
  const again = await t.client.request('POST', C, { body: cm });
  assert.is(again.status, 409, show(again));
  assert.equal(await used(ns, 'cm'), { 'count/configmaps': '2' }, 'counted until the controller recalculates');
});

test('count/<resource>.<group>: deployments.apps', async () => {
  const ns = await namespace('rqa-deploy');
  await quota(ns, 'apps', { 'count/deployments.apps': '1' }, { 'count/deployments.apps': '0' });
  const D = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const deploy = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { selector: { matchLabels: { a: name } }, template: { metadata: { labels: { a: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  });
  const d1 = await t.client.request('POST', D, { body: deploy('d1') });
  assert.is(d1.status, 201, show(d1));
  const d2 = await t.client.request('POST', D, { body: deploy('d2') });
  assert.equal(d2.json, forbidden('deployments', 'd2', 'exceeded quota: apps, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1', 'apps'), show(d2));
  assert.equal(await used(ns, 'apps'), { 'count/deployments.apps': '1' });
});

test('pods: must specify, compute usage summed in the quantities formats, exceeded lists only what is over', async () => {
  const ns = await namespace('rqa-pods');
  await quota(ns, 'compute', { pods: '3', 'requests.cpu': '1', 'requests.memory': '1Gi', 'limits.memory': '2Gi' }, { pods: '0', 'requests.cpu': '0', 'requests.memory': '0', 'limits.memory': '0' });
  const P = `/api/v1/namespaces/${ns}/pods`;
  const none = await t.client.request('POST', P, { body: pod('none') });
  assert.equal(none.json, forbidden('pods', 'none', 'failed quota: compute: must specify limits.memory for: c; requests.cpu for: c; requests.memory for: c'), show(none));
  const partial = await t.client.request('POST', P, { body: pod('partial', { requests: { cpu: '100m', memory: '1Mi' } }, { initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { memory: '1Mi' } } }] }) });
  assert.equal(partial.json, forbidden('pods', 'partial', 'failed quota: compute: must specify limits.memory for: c; requests.cpu for: init'), show(partial));
  const res = { requests: { cpu: '300m', memory: '600Mi' }, limits: { memory: '1Gi' } };
  const p1 = await t.client.request('POST', P, { body: pod('p1', res) });
  assert.is(p1.status, 201, show(p1));
  assert.equal(await used(ns, 'compute'), { 'limits.memory': '1Gi', pods: '1', 'requests.cpu': '300m', 'requests.memory': '600Mi' });
  const p2 = await t.client.request('POST', P, { body: pod('p2', { requests: { cpu: '300m', memory: '100Mi' }, limits: { memory: '500Mi' } }) });
  assert.is(p2.status, 201, show(p2));
  assert.equal(await used(ns, 'compute'), { 'limits.memory': '1524Mi', pods: '2', 'requests.cpu': '600m', 'requests.memory': '700Mi' });
  const p3 = await t.client.request('POST', P, { body: pod('p3', res) });
  assert.equal(
    p3.json,
    forbidden('pods', 'p3', 'exceeded quota: compute, requested: limits.memory=1Gi,requests.memory=600Mi, used: limits.memory=1524Mi,requests.memory=700Mi, limited: limits.memory=2Gi,requests.memory=1Gi'),
    show(p3),
  );
  // Pod updates are not evaluated.
  const u = await t.client.request('PATCH', `${P}/p1`, { body: { metadata: { labels: { x: 'y' } } }, contentType: 'application/merge-patch+json' });
  assert.is(u.status, 200, show(u));
});

test('pods: scopes (BestEffort, PriorityClass In) pick the pods a quota counts', async () => {
  const ns = await namespace('rqa-scope');
  await quota(ns, 'besteffort', { pods: '1' }, { pods: '0' }, { scopes: ['BestEffort'] });
  await quota(ns, 'high', { pods: '0' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['system-cluster-critical'] }] } });
  const P = `/api/v1/namespaces/${ns}/pods`;
  const be = await t.client.request('POST', P, { body: pod('be1') });
  assert.is(be.status, 201, show(be));
  const be2 = await t.client.request('POST', P, { body: pod('be2') });
  assert.equal(be2.json, forbidden('pods', 'be2', 'exceeded quota: besteffort, requested: pods=1, used: pods=1, limited: pods=1'), show(be2));
  const burst = await t.client.request('POST', P, { body: pod('burst', { requests: { cpu: '10m' } }) });
  assert.is(burst.status, 201, show(burst));
  const crit = await t.client.request('POST', P, { body: pod('crit', { requests: { cpu: '10m' } }, { priorityClassName: 'system-cluster-critical' }) });
  assert.equal(crit.json, forbidden('pods', 'crit', 'exceeded quota: high, requested: pods=1, used: pods=0, limited: pods=0'), show(crit));
  assert.equal(await used(ns, 'besteffort'), { pods: '1' });
});

test('services: node ports and load balancers, updates counted by their difference', async () => {
  const ns = await namespace('rqa-svc');
  await quota(ns, 'svc', { services: '3', 'services.nodeports': '1', 'services.loadbalancers': '0' }, { services: '0', 'services.nodeports': '0', 'services.loadbalancers': '0' });
  const V = `/api/v1/namespaces/${ns}/services`;
  const svc = (name: string, type: string, ports: number) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { type, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) },
  });
  const c = await t.client.request('POST', V, { body: svc('c', 'ClusterIP', 1) });
  assert.is(c.status, 201, show(c));
  const np = await t.client.request('POST', V, { body: svc('np', 'NodePort', 2) });
  assert.equal(np.json, forbidden('services', 'np', 'exceeded quota: svc, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1'), show(np));
  const lb = await t.client.request('PATCH', `${V}/c`, { body: { spec: { type: 'LoadBalancer' } }, contentType: 'application/merge-patch+json' });
  assert.equal(lb.json, forbidden('services', 'c', 'exceeded quota: svc, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0'), show(lb));
  const np1 = await t.client.request('PATCH', `${V}/c`, { body: { spec: { type: 'NodePort' } }, contentType: 'application/merge-patch+json' });
  assert.is(np1.status, 200, show(np1));
  assert.equal(await used(ns, 'svc'), { services: '1', 'services.loadbalancers': '0', 'services.nodeports': '1' });
});

test('persistent volume claims: requests.storage rounded up, per storage class', async () => {
  const ns = await namespace('rqa-pvc');
  const hard = { persistentvolumeclaims: '5', 'requests.storage': '10Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' };
  await quota(ns, 'storage', hard, { persistentvolumeclaims: '0', 'requests.storage': '0', 'gold.storageclass.storage.k8s.io/requests.storage': '0' });
  const C = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  const pvc = (name: string, storage: string, cls?: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...(cls ? { storageClassName: cls } : {}) },
  });
  const gold = await t.client.request('POST', C, { body: pvc('gold', '2Gi', 'gold') });
  assert.equal(
    gold.json,
    forbidden('persistentvolumeclaims', 'gold', 'exceeded quota: storage, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=0, limited: gold.storageclass.storage.k8s.io/requests.storage=1Gi'),
    show(gold),
  );
  const frac = await t.client.request('POST', C, { body: pvc('frac', '1500m', 'silver') });
  assert.is(frac.status, 201, show(frac));
  assert.equal(await used(ns, 'storage'), { 'gold.storageclass.storage.k8s.io/requests.storage': '0', persistentvolumeclaims: '1', 'requests.storage': '2' });
});

test('status unknown: a tracked resource without usage refuses the create', async () => {
  const ns = await namespace('rqa-unknown');
  const r = await t.client.request('POST', Q(ns), { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'u' }, spec: { hard: { secrets: '5', configmaps: '5' } } } });
  assert.is(r.status, 201, show(r));
  await initStatus(ns, 'u', { hard: { secrets: '5', configmaps: '5' }, used: { configmaps: '0' } });
  const s = await t.client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret('s') });
  assert.equal(s.json, forbidden('secrets', 's', 'status unknown for quota: u, resources: secrets'), show(s));
});

test('controller (here, and on the reference with a kube-controller-manager): status from spec and the objects present; replenished on delete', async () => {
  if (!controllerRuns()) return; // the reference runs no controller-manager unless told
  const ns = await namespace('rqa-ctl');
  const S = `/api/v1/namespaces/${ns}/secrets`;
  for (const n of ['a', 'b']) assert.is((await t.client.request('POST', S, { body: secret(n) })).status, 201);
  const P = `/api/v1/namespaces/${ns}/pods`;
  assert.is((await t.client.request('POST', P, { body: pod('p', { requests: { cpu: '250m' } }) })).status, 201);
  const r = await t.client.request('POST', Q(ns), { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'c' }, spec: { hard: { secrets: '10', pods: '4', 'requests.cpu': '2', 'count/deployments.apps': '3' } } } });
  assert.is(r.status, 201, show(r));
  const want = (secrets: string, pods: string, cpu: string) => ({ 'count/deployments.apps': '0', pods, 'requests.cpu': cpu, secrets });
  await eventually('status computed', async () => JSON.stringify((await getQuota(ns, 'c')).status.used) === JSON.stringify(want('2', '1', '250m')));
  assert.equal((await getQuota(ns, 'c')).status.hard, { 'count/deployments.apps': '3', pods: '4', 'requests.cpu': '2', secrets: '10' });
  assert.is((await t.client.request('DELETE', `${S}/a`)).status, 200);
  await eventually('replenished after a delete', async () => (await used(ns, 'c')).secrets === '1');
  const done = await t.client.request('PATCH', `${P}/p/status`, { body: { status: { phase: 'Succeeded' } }, contentType: 'application/merge-patch+json' });
  assert.is(done.status, 200, show(done));
  await eventually('a terminal pod frees its compute quota', async () => JSON.stringify(await used(ns, 'c')) === JSON.stringify(want('1', '0', '0')));
  const spec = await t.client.request('PATCH', `${Q(ns)}/c`, { body: { spec: { hard: { secrets: '1', pods: null, 'requests.cpu': null, 'count/deployments.apps': null } } }, contentType: 'application/merge-patch+json' });
  assert.is(spec.status, 200, show(spec));
  await eventually('a spec change rewrites status.hard', async () => JSON.stringify((await getQuota(ns, 'c')).status) === JSON.stringify({ hard: { secrets: '1' }, used: { secrets: '1' } }));
});

test.run();
