/**
 * The LimitRanger admission plugin as kube-apiserver 1.24 runs it: default requests and limits of
 * `Container` items given to new Pods' containers and init containers (after requests defaulted
 * from limits) with the `kubernetes.io/limit-ranger` annotation; min, max and
 * maxLimitRequestRatio per Container, per Pod and per PersistentVolumeClaim refused with kube's
 * 403 messages. Each case has one violated resource per item, as Go walks resource maps in
 * random order.
 *
 *   node --import tsx test/run.ts test/fidelity/admission-limitranger.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/admission-limitranger.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { startTarget, type Target } from '../target.ts';
import { forbiddenStatus as forbidden } from './storage-helpers.ts';

let t: Target;

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t.close();
});

/** A fresh namespace with its `default` ServiceAccount and one LimitRange of these items. */
async function namespace(prefix: string, limits: unknown[]): Promise<string> {
  const ns = await t.createNamespace(prefix);
  const sa = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`service account: ${show(sa)}`);
  const lr = await t.client.request('POST', `/api/v1/namespaces/${ns}/limitranges`, { body: { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr' }, spec: { limits } } });
  assert.is(lr.status, 201, show(lr));
  return ns;
}

const container = (name: string, resources?: Record<string, unknown>) => ({ name, image: 'nginx:1.25', ...(resources ? { resources } : {}) });
const pod = (name: string, containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { automountServiceAccountToken: false, containers, ...extra },
});
const createPod = (ns: string, b: unknown, query = '') => t.client.request('POST', `/api/v1/namespaces/${ns}/pods${query}`, { body: b });

test('defaults: Container default and defaultRequest, requests from limits first, the annotation', async () => {
  const ns = await namespace('lr-def', [{ type: 'Container', default: { cpu: '500m', memory: '512Mi' }, defaultRequest: { cpu: '100m' } }]);
  const lr = await t.client.request('GET', `/api/v1/namespaces/${ns}/limitranges/lr`);
  assert.equal((lr.json as any).spec.limits[0].defaultRequest, { cpu: '100m', memory: '512Mi' }, 'defaultRequest defaulted from default');
  const b = pod('p', [container('c'), container('d', { limits: { cpu: '1' } }), container('e', { requests: { cpu: '50m', memory: '1Gi' }, limits: { memory: '1Gi', cpu: '500m' } })], {
    initContainers: [container('i', { requests: { memory: '64Mi' } })],
  });
  for (const query of ['?dryRun=All', '']) {
    const r = await createPod(ns, b, query);
    assert.is(r.status, 201, show(r));
    const p = r.json as any;
    assert.is(
      p.metadata.annotations['kubernetes.io/limit-ranger'],
      'LimitRanger plugin set: cpu, memory request for container c; cpu, memory limit for container c; memory request for container d; memory limit for container d; cpu request for init container i; cpu, memory limit for init container i',
    );
    assert.equal(
      p.spec.containers.map((c: any) => c.resources),
      [
        { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '512Mi' } },
        { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
        { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '50m', memory: '1Gi' } },
      ],
      query,
    );
    assert.equal(p.spec.initContainers[0].resources, { limits: { cpu: '500m', memory: '512Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
  }
  // A container with everything set is left alone: no annotation.
  const full = await createPod(ns, pod('full', [container('c', { requests: { cpu: '1', memory: '1Mi' }, limits: { cpu: '1', memory: '1Mi' } })]));
  assert.is(full.status, 201, show(full));
  assert.is((full.json as any).metadata.annotations, undefined, show(full));
  // Pod updates are not defaulted or checked.
  const u = await t.client.request('PATCH', `/api/v1/namespaces/${ns}/pods/full`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
  assert.is(u.status, 200, show(u));
});

test('Container min and max', async () => {
  const ns = await namespace('lr-minmax', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' } }]);
  const low = await createPod(ns, pod('low', [container('c', { requests: { cpu: '50m' } })]));
  assert.equal(low.json, forbidden('pods', 'low', 'minimum cpu usage per Container is 100m, but request is 50m'), show(low));
  const high = await createPod(ns, pod('high', [container('c', { requests: { cpu: '500m' }, limits: { cpu: '2' } })]));
  assert.equal(high.json, forbidden('pods', 'high', 'maximum cpu usage per Container is 1, but limit is 2'), show(high));
  const two = await createPod(ns, pod('two', [container('a', { requests: { cpu: '50m' } }), container('b', { requests: { cpu: '60m' } })]));
  assert.equal(two.json, forbidden('pods', 'two', '[minimum cpu usage per Container is 100m, but request is 50m, minimum cpu usage per Container is 100m, but request is 60m]'), show(two));
  const ok = await createPod(ns, pod('ok', [container('c')]));
  assert.is(ok.status, 201, show(ok));
  assert.equal((ok.json as any).spec.containers[0].resources, { limits: { cpu: '1' }, requests: { cpu: '1' } }, 'defaults from max');
  assert.is((await t.client.request('GET', `/api/v1/namespaces/${ns}/pods/low`)).status, 404, 'nothing stored');
});

test('Container maxLimitRequestRatio', async () => {
  const ns = await namespace('lr-ratio', [{ type: 'Container', maxLimitRequestRatio: { memory: '2' } }]);
  const r = await createPod(ns, pod('r', [container('c', { requests: { memory: '100Mi' }, limits: { memory: '300Mi' } })]));
  assert.equal(r.json, forbidden('pods', 'r', 'memory max limit to request ratio per Container is 2, but provided ratio is 3.000000'), show(r));
  const none = await createPod(ns, pod('none', [container('c', { requests: { memory: '100Mi' } })]));
  assert.equal(none.json, forbidden('pods', 'none', 'memory max limit to request ratio per Container is 2, but no limit is specified or limit is 0'), show(none));
  const ok = await createPod(ns, pod('ok', [container('c', { requests: { memory: '100Mi' }, limits: { memory: '150Mi' } })]));
  assert.is(ok.status, 201, show(ok));
});

test('Pod max: the containers summed (whole units, DecimalSI)', async () => {
  const ns = await namespace('lr-pod', [{ type: 'Pod', max: { memory: '1Gi' } }]);
  const r = await createPod(ns, pod('big', [container('a', { limits: { memory: '600Mi' } }), container('b', { limits: { memory: '600Mi' } })]));
  assert.equal(r.json, forbidden('pods', 'big', 'maximum memory usage per Pod is 1Gi, but limit is 1258291200'), show(r));
  const partial = await createPod(ns, pod('partial', [container('a', { limits: { memory: '600Mi' } }), container('b')]));
  assert.equal(partial.json, forbidden('pods', 'partial', 'maximum memory usage per Pod is 1Gi.  No limit is specified'), show(partial));
  const gen = await createPod(ns, { ...pod('', [container('a')]), metadata: { generateName: 'g-' } });
  assert.is(gen.status, 403, show(gen));
  assert.match((gen.json as any).message, /^pods "g-[a-z0-9]{5}" is forbidden: maximum memory usage per Pod is 1Gi\.  No limit is specified$/);
});

test('PersistentVolumeClaim min and max', async () => {
  const ns = await namespace('lr-pvc', [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '2Gi' } }]);
  const claim = (name: string, storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
  const C = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  const small = await t.client.request('POST', C, { body: claim('small', '500Mi') });
  assert.equal(small.json, forbidden('persistentvolumeclaims', 'small', 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'), show(small));
  const big = await t.client.request('POST', C, { body: claim('big', '5Gi') });
  assert.equal(big.json, forbidden('persistentvolumeclaims', 'big', 'maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi'), show(big));
  const ok = await t.client.request('POST', C, { body: claim('ok', '1536Mi') });
  assert.is(ok.status, 201, show(ok));
});

test.run();
