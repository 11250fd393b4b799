/**
 * pods/eviction honouring PodDisruptionBudgets as kube-apiserver 1.24's EvictionREST does (no
 * disruption controller runs on either server: the tests write the budgets' status themselves):
 * a budget not yet observed (429, Retry-After 10), no disruption allowed (429 with the healthy
 * counts), dry run (nothing written), a successful eviction (status decremented, disruptedPods and
 * the DisruptionAllowed condition written by manager kube-apiserver), Pending Pods evicted
 * directly, an unready Pod while enough are healthy, an empty selector never matching, two budgets
 * (500), a negative budget (403), policy/v1beta1 Eviction bodies.
 *
 *   node --import tsx test/run.ts test/fidelity/policy-eviction.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/policy-eviction.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { startTarget, type Target } from '../target.ts';

let t: Target;
let ns = '';
let P = '';
let B = '';

test.before(async () => {
  // Without the disruption controller here: the reference runs no kube-controller-manager either.
  t = await startTarget({ controllers: ['*', '-disruption'] });
  ns = await t.createNamespace('evict');
  P = `/api/v1/namespaces/${ns}/pods`;
  B = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
  if (t.reference) await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const merge = (path: string, b: unknown) => t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });
const evict = (name: string, extra: Record<string, unknown> = {}, version = 'v1', query = '') =>
  t.client.request('POST', `${P}/${name}/eviction${query}`, { body: { apiVersion: `policy/${version}`, kind: 'Eviction', metadata: { name }, ...extra } });
const exists = async (name: string) => (await t.client.request('GET', `${P}/${name}`)).status === 200;
const budget = async (name: string) => (await t.client.request('GET', `${B}/${name}`)).json as any;

async function pod(name: string, labels: Record<string, string>, phase?: string, ready = true): Promise<void> {
  const c = await t.client.request('POST', P, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  assert.is(c.status, 201, show(c));
  if (!phase) return;
  const s = await merge(`${P}/${name}/status`, { status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  assert.is(s.status, 200, show(s));
}
async function pdb(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): Promise<void> {
  const c = await t.client.request('POST', B, { body: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec } });
  assert.is(c.status, 201, show(c));
  if (status) assert.is((await merge(`${B}/${name}/status`, { status })).status, 200);
}

const SUCCESS = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";
const tooMany = (message: string, retryAfterSeconds?: number) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: VIOLATION,
  reason: 'TooManyRequests',
  details: { causes: [{ reason: 'DisruptionBudget', message }], ...(retryAfterSeconds ? { retryAfterSeconds } : {}) },
  code: 429,
});

test('a budget not yet observed, then none allowed: 429; a dry run writes nothing; an eviction takes one disruption', async () => {
  for (const p of ['w1', 'w2', 'w3']) await pod(p, { app: 'web' }, 'Running');
  await pdb('web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } });

  const stale = await evict('w1');
  assert.is(stale.status, 429, show(stale));
  assert.equal(stale.json, tooMany('The disruption budget web is still being processed by the server.', 10));
  assert.is(stale.headers['retry-after'], '10', show(stale));

  const observed = { observedGeneration: 1, disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 };
  assert.is((await merge(`${B}/web/status`, { status: observed })).status, 200);
  const none = await evict('w1', {}, 'v1beta1');
  assert.is(none.status, 429, show(none));
  assert.equal(none.json, tooMany('The disruption budget web needs 2 healthy pods and has 3 currently'));
  assert.is(none.headers['retry-after'], undefined, show(none));
  assert.ok(await exists('w1'));

  assert.is((await merge(`${B}/web/status`, { status: { disruptionsAllowed: 1 } })).status, 200);
  const rv = (await budget('web')).metadata.resourceVersion;
  for (const dry of [{ query: '?dryRun=All', extra: {} }, { query: '', extra: { deleteOptions: { dryRun: ['All'] } } }]) {
    const d = await evict('w1', dry.extra, 'v1', dry.query);
    assert.is(d.status, 201, show(d));
    assert.equal(d.json, SUCCESS);
  }
  assert.is((await budget('web')).metadata.resourceVersion, rv, 'a dry run writes no budget');
  assert.ok(await exists('w1'), 'a dry run deletes no Pod');

  const ok = await evict('w1');
  assert.is(ok.status, 201, show(ok));
  assert.equal(ok.json, SUCCESS);
  assert.not.ok(await exists('w1'));
  const after = await budget('web');
  const { conditions, disruptedPods, ...counters } = after.status;
  assert.equal(counters, { ...observed, disruptionsAllowed: 0 });
  assert.equal(Object.keys(disruptedPods), ['w1']);
  assert.match(disruptedPods.w1, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(conditions.map(({ lastTransitionTime: _, ...c }: any) => c), [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 1, reason: 'InsufficientPods', message: '' }]);
  const writer = after.metadata.managedFields.find((m: any) => m.manager === 'kube-apiserver');
  assert.equal([writer?.operation, writer?.apiVersion, writer?.subresource], ['Update', 'policy/v1', 'status'], JSON.stringify(after.metadata.managedFields));

  const again = await evict('w2');
  assert.is(again.status, 429, show(again));
  assert.equal(again.json, tooMany('The disruption budget web needs 2 healthy pods and has 3 currently'));
});

test('Pending Pods are evicted directly; an unready Pod while enough are healthy leaves the budget alone', async () => {
  await pod('w-pending', { app: 'web' });
  const p = await evict('w-pending');
  assert.is(p.status, 201, show(p));
  assert.not.ok(await exists('w-pending'));
  await pod('w-unready', { app: 'web' }, 'Running', false);
  const rv = (await budget('web')).metadata.resourceVersion;
  const u = await evict('w-unready');
  assert.is(u.status, 201, show(u));
  assert.not.ok(await exists('w-unready'));
  assert.is((await budget('web')).metadata.resourceVersion, rv);
});

test('empty and missing selectors match no Pod; two matching budgets: 500; a negative budget: 403', async () => {
  await pod('x1', { app: 'x' }, 'Running');
  await pdb('all-v1', { selector: {} }, { observedGeneration: 1 });
  await pdb('none', {}, { observedGeneration: 1 });
  await pdb('x-a', { maxUnavailable: 1, selector: { matchLabels: { app: 'x' } } }, { observedGeneration: 1, disruptionsAllowed: 1 });
  await pdb('x-b', { maxUnavailable: 1, selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['x', 'y'] }] } }, { observedGeneration: 1, disruptionsAllowed: 1 });
  const two = await evict('x1');
  assert.is(two.status, 500, show(two));
  assert.equal(two.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', code: 500 });
  assert.ok(await exists('x1'));

  assert.is((await t.client.request('DELETE', `${B}/x-b`)).status, 200);
  // v1 refuses a negative count on /status; v1beta1's /status does not check it.
  const neg = await merge(`/apis/policy/v1beta1/namespaces/${ns}/poddisruptionbudgets/x-a/status`, { status: { disruptionsAllowed: -1 } });
  assert.is(neg.status, 200, show(neg));
  const f = await evict('x1');
  assert.is(f.status, 403, show(f));
  assert.equal(f.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'poddisruptionbudget.policy "x-a" is forbidden: pdb disruptions allowed is negative',
    reason: 'Forbidden',
    details: { name: 'x-a', group: 'policy', kind: 'poddisruptionbudget' },
    code: 403,
  });
  assert.is((await t.client.request('DELETE', `${B}/x-a`)).status, 200);
  // Only the empty-selector budgets are left, with no disruption allowed: they do not apply.
  const free = await evict('x1', {}, 'v1beta1');
  assert.is(free.status, 201, show(free));
  assert.not.ok(await exists('x1'));
});

test("RBAC bootstrap: edit's rules (system:aggregate-to-edit: the reference runs no aggregation controller) create budgets and evictions; the disruption controller's role updates budget status", async () => {
  const rb = await t.client.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'alice-edit' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:aggregate-to-edit' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }] },
  });
  assert.is(rb.status, 201, show(rb));
  const can = async (user: string, attrs: Record<string, unknown>) => {
    const r = await t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, resourceAttributes: { namespace: ns, ...attrs } } } });
    assert.is(r.status, 201, show(r));
    return (r.json as any).status.allowed === true;
  };
  // The binding reaches the authorizer's cache asynchronously on both servers.
  const deadline = Date.now() + 5000;
  while (!(await can('alice', { verb: 'create', group: 'policy', resource: 'poddisruptionbudgets' })) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(await can('alice', { verb: 'create', group: 'policy', resource: 'poddisruptionbudgets' }));
  assert.ok(await can('alice', { verb: 'create', group: '', resource: 'pods', subresource: 'eviction' }));
  assert.not.ok(await can('alice', { verb: 'update', group: 'policy', resource: 'poddisruptionbudgets', subresource: 'status' }));
  assert.ok(await can('system:serviceaccount:kube-system:disruption-controller', { verb: 'update', group: 'policy', resource: 'poddisruptionbudgets', subresource: 'status' }));
  assert.not.ok(await can('alice', { verb: 'use', group: 'policy', resource: 'podsecuritypolicies', name: 'any' }));
});

test.run();
