/**
 * The in-process disruption controller (kube-controller-manager's `disruption`) with pods/eviction:
 * a budget's status follows its Pods (integer minAvailable over the matched Pods; maxUnavailable as
 * a percentage of a ReplicaSet's replicas; failSafe for a Pod whose controller is unknown), and an
 * eviction takes one disruption, the next is refused until the controller sees the Pod gone.
 * This server only: the reference runs no kube-controller-manager (policy-eviction.test.ts checks
 * the eviction answers against it with budgets whose status the test writes).
 *
 *   node --import tsx test/run.ts test/disruption-controller.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from './assertions.ts';
import { startTarget, type Target } from './target.ts';

let t: Target;
let ns = '';
let P = '';
let B = '';

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('disrupt');
  P = `/api/v1/namespaces/${ns}/pods`;
  B = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
});
test.after(async () => {
  await t.close();
});

const merge = (path: string, b: unknown) => t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });
async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const status = async (name: string) => ((await t.client.request('GET', `${B}/${name}`)).json as any).status;
async function readyPod(name: string, labels: Record<string, string>, owner?: Record<string, unknown>): Promise<void> {
  const c = await t.client.request('POST', P, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels, ...(owner ? { ownerReferences: [owner] } : {}) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  assert.is(c.status, 201, show(c));
  assert.is((await merge(`${P}/${name}/status`, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } })).status, 200);
}

test('minAvailable 1 over two Ready Pods: one eviction allowed, the next refused', async () => {
  await readyPod('a1', { app: 'a' });
  await readyPod('a2', { app: 'a' });
  const c = await t.client.request('POST', B, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'a' }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } } } });
  assert.is(c.status, 201, show(c));
  const st = await until('budget a observed', () => status('a'), (s) => s.observedGeneration === 1 && s.disruptionsAllowed === 1);
  assert.equal([st.currentHealthy, st.desiredHealthy, st.expectedPods], [2, 1, 2]);
  assert.equal(st.conditions.map((x: any) => [x.type, x.status, x.reason]), [['DisruptionAllowed', 'True', 'SufficientPods']]);

  const e1 = await t.client.request('POST', `${P}/a1/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a1' } } });
  assert.is(e1.status, 201, show(e1));
  const e2 = await t.client.request('POST', `${P}/a2/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'a2' } } });
  assert.is(e2.status, 429, show(e2));
  const after = await until('budget a after the eviction', () => status('a'), (s) => s.expectedPods === 1);
  assert.equal([after.currentHealthy, after.disruptionsAllowed, after.disruptedPods], [1, 0, undefined]);
  assert.equal(after.conditions.map((x: any) => [x.status, x.reason]), [['False', 'InsufficientPods']]);
});

test("maxUnavailable 50% of a ReplicaSet's replicas; a Pod without a known controller: failSafe", async () => {
  const rs = await t.client.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
    body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' }, spec: { replicas: 4, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } },
  });
  assert.is(rs.status, 201, show(rs));
  const owner = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: (rs.json as any).metadata.uid, controller: true };
  for (const p of ['w1', 'w2', 'w3']) await readyPod(p, { app: 'web' }, owner);
  const c = await t.client.request('POST', B, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web' }, spec: { maxUnavailable: '50%', selector: { matchLabels: { app: 'web' } } } } });
  assert.is(c.status, 201, show(c));
  const st = await until('budget web observed', () => status('web'), (s) => s.observedGeneration === 1 && s.currentHealthy === 3);
  assert.equal([st.expectedPods, st.desiredHealthy, st.disruptionsAllowed], [4, 2, 1]);

  await readyPod('stray', { app: 'web' }, { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000001', controller: true });
  const failed = await until('budget web failSafe', () => status('web'), (s) => s.conditions?.[0]?.reason === 'SyncFailed');
  assert.is(failed.disruptionsAllowed, 0);
  assert.is(failed.conditions[0].message, 'found no controllers for pod "stray"');
});

test.run();
