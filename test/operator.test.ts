/**
 * A real operator (test/go/operator, sigs.k8s.io/controller-runtime v0.12.3 on client-go v0.24.17,
 * built and run by test/operator-process.ts): it installs its own CRD (widgets.demo.operator.test,
 * a structural schema with defaults, the status subresource) and waits for Established, then runs
 * a manager with leader election on a coordination.k8s.io/v1 Lease. Driven here over HTTP: a
 * Widget becomes a ConfigMap owned by it, with the Widget's /status written, a finalizer added and
 * an Event recorded; its status writes settle (an unchanged status is a no-op update); a hand edit
 * of the ConfigMap is seen through a metadata-only watch and undone; a spec update reaches the
 * ConfigMap; deleting the Widget runs the finalizer (the operator deletes the ConfigMap itself:
 * the reference has no garbage collector) and the Widget goes; a second instance does nothing
 * while the first holds the Lease, takes over within a retry period once the first is stopped by
 * SIGTERM (it releases the Lease), finds the first one's Widgets up to date and writes nothing.
 *
 * Runs against this server, or against any cluster with TEST_KUBECONFIG (test/target.ts):
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/operator.test.ts
 * A missing Go toolchain or module proxy fails the suite (never a silent skip).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { eventually } from './harness.ts';
import { show } from './assertions.ts';
import { Operator, Widgets, buildOperator, reconciled, acts, sleep, CRD, FINALIZER, LEASE_MS, RETRY_MS } from './operator-process.ts';

let t: Target;
let bin: string;
let ns: string;
let w8s: Widgets;
const operators: Operator[] = [];
let a: Operator;
let b: Operator;
let firstHolder: string;

const describe = (): string => operators.map((o) => o.describe()).join('\n');
const start = (id: string): Operator => {
  const o = new Operator(bin, t.kubeconfig, ns, id);
  operators.push(o);
  return o;
};
const get = (p: string): Promise<any> => w8s.get(p);
const widgets = (name = ''): string => w8s.path(name);
const configMap = (widget: string): string => w8s.configMap(widget);
const lease = (): string => w8s.lease();

test.before(async () => {
  bin = await buildOperator();
  t = await startTarget();
  ns = await t.createNamespace('operator');
  w8s = new Widgets(t.client, ns, describe);
});
test.after(async () => {
  for (const o of operators) await o.kill();
  await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('the operator installs its CRD (Established) and leads on a Lease; a second instance follows', async () => {
  a = start('operator-a');
  await a.waitFor('established', (e) => e.event === 'established', 60_000);
  const crd = await get(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
  const cond = (type: string) => crd.status.conditions.find((c: any) => c.type === type)?.status;
  assert.is(cond('NamesAccepted'), 'True');
  assert.is(cond('Established'), 'True');
  assert.equal(crd.status.acceptedNames.shortNames, ['wdg']);
  assert.equal(crd.status.storedVersions, ['v1']);
  await a.waitFor('leading', (e) => e.event === 'leading', 30_000);

  b = start('operator-b');
  await b.waitFor('started', (e) => e.event === 'started', 60_000);
  const l = await get(lease());
  assert.ok(l.spec.holderIdentity, JSON.stringify(l.spec));
  assert.is(l.spec.leaseDurationSeconds, LEASE_MS / 1000);
  firstHolder = l.spec.holderIdentity;
});

test('a Widget becomes a ConfigMap owned by it, with the schema defaults, a finalizer and /status', async () => {
  const { w, cm } = await w8s.create('alpha', { message: 'hello' });
  assert.equal(w.spec, { message: 'hello', color: 'blue', size: 1 }, 'defaulted by the schema');
  assert.equal(w.metadata.finalizers, [FINALIZER]);
  assert.is(w.status.configMapName, 'alpha-widget');
  const [ready] = w.status.conditions;
  assert.is(w.status.conditions.length, 1);
  assert.equal({ ...ready, lastTransitionTime: typeof ready.lastTransitionTime }, {
    type: 'Ready', status: 'True', reason: 'ConfigMapSynced', observedGeneration: 1,
    message: 'ConfigMap alpha-widget holds the spec', lastTransitionTime: 'string',
  });
  assert.equal(cm.data, { message: 'hello', color: 'blue', size: '1' });
  assert.equal(cm.metadata.labels, { 'demo.operator.test/widget': 'alpha' });
  assert.equal(cm.metadata.ownerReferences, [
    { apiVersion: 'demo.operator.test/v1', kind: 'Widget', name: 'alpha', uid: w.metadata.uid, controller: true, blockOwnerDeletion: true },
  ]);

  // The Event the operator recorded about its Widget (a core/v1 Event with a custom involvedObject).
  let events: any[] = [];
  const sel = encodeURIComponent('involvedObject.kind=Widget,involvedObject.name=alpha,reason=ConfigMapSynced');
  await eventually('the ConfigMapSynced Event', async () => (events = (await get(`/api/v1/namespaces/${ns}/events?fieldSelector=${sel}`)).items).length > 0);
  const [ev] = events;
  assert.equal(
    { ...ev.involvedObject, resourceVersion: typeof ev.involvedObject.resourceVersion },
    { kind: 'Widget', namespace: ns, name: 'alpha', uid: w.metadata.uid, apiVersion: 'demo.operator.test/v1', resourceVersion: 'string' },
  );
  assert.equal([ev.type, ev.message, ev.source.component], ['Normal', 'ConfigMap alpha-widget created', 'widget-operator']);

  // The operator writes its status unconditionally: once settled, an unchanged status is a no-op
  // update (no new resourceVersion, no watch event), so reconciling stops.
  await sleep(1000);
  const settled = (await get(widgets('alpha'))).metadata.resourceVersion;
  const n = a.count(reconciled('alpha'));
  await sleep(2000);
  assert.is(a.count(reconciled('alpha')), n, `reconciles kept coming: ${a.describe()}`);
  assert.is((await get(widgets('alpha'))).metadata.resourceVersion, settled);
});

test('a hand edit of the ConfigMap is seen by the metadata-only watch and undone', async () => {
  const r = await t.client.request('PATCH', configMap('alpha'), { body: { data: { message: 'tampered' } }, contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, show(r));
  await eventually('the ConfigMap restored', async () => (await get(configMap('alpha'))).data.message === 'hello', 10_000);
  assert.equal((await get(configMap('alpha'))).data, { message: 'hello', color: 'blue', size: '1' });
});

test('a spec update reaches the ConfigMap and the status follows the generation; the schema refuses a bad size', async () => {
  assert.is((await w8s.patch('alpha', { spec: { message: 'bye', color: 'green', size: 3 } })).metadata.generation, 2);
  const w = await w8s.ready('alpha', 2);
  assert.equal(w.spec, { message: 'bye', color: 'green', size: 3 });
  assert.equal((await get(configMap('alpha'))).data, { message: 'bye', color: 'green', size: '3' });

  const bad = await t.client.request('PATCH', widgets('alpha'), { body: { spec: { size: 11 } }, contentType: 'application/merge-patch+json' });
  assert.is(bad.status, 422, show(bad));
  assert.is((await get(widgets('alpha'))).metadata.generation, 2);
});

test('deleting a Widget runs the finalizer: the operator deletes the ConfigMap, then the Widget goes', async () => {
  await w8s.delete('alpha');
  await a.waitFor('finalized alpha', (e) => e.event === 'finalized' && e.widget === 'alpha', 5000);
});

test('the follower never acted while the leader held the Lease; after SIGTERM it takes over and reconciles', async () => {
  assert.is(b.count(acts), 0, b.describe());
  assert.not.ok(b.events.some((e) => e.event === 'leading'), b.describe());

  // gamma, reconciled by a, stays across the handoff.
  const gamma = (await w8s.create('gamma', { message: 'kept', color: 'red' })).w;
  await a.waitFor('reconciled gamma', reconciled('gamma', 1), 5000);
  await sleep(500);
  const gammaRV = (await get(widgets('gamma'))).metadata.resourceVersion;

  const stoppedAt = Date.now();
  assert.is(await a.stop(), 0, a.describe());
  await a.waitFor('exited', (e) => e.event === 'exited', 1000);
  const took = await b.waitFor('leading after the leader stopped', (e) => e.event === 'leading', 15_000);
  const takeover = took.at - stoppedAt;
  console.log(`takeover ${takeover} ms after SIGTERM (lease ${LEASE_MS} ms, retry ${RETRY_MS} ms)`);
  assert.ok(takeover < LEASE_MS, `took ${takeover} ms: the stopped leader did not release the Lease`);
  const l = await get(lease());
  assert.ok(l.spec.holderIdentity && l.spec.holderIdentity !== firstHolder, JSON.stringify(l.spec));
  assert.is(l.spec.leaseTransitions, 1, JSON.stringify(l.spec));

  // The new leader's first pass finds gamma up to date: nothing written (an unchanged status
  // update is a no-op).
  const first = await b.waitFor('reconciled gamma', reconciled('gamma', 1), 5000);
  assert.is(first.configMap, 'unchanged', b.describe());
  assert.is(b.count((e) => e.event === 'finalizer-added'), 0, b.describe());
  assert.is((await get(widgets('gamma'))).metadata.resourceVersion, gammaRV, 'gamma rewritten by the new leader');
  assert.is(gamma.status.configMapName, 'gamma-widget');

  const { cm } = await w8s.create('beta', { message: 'from b', size: 2 });
  assert.equal(cm.data, { message: 'from b', color: 'blue', size: '2' });
  // Its stdout line may come after the status it wrote is visible.
  await b.waitFor('reconciled beta', reconciled('beta', 1), 5000);
  await w8s.delete('beta');
  await w8s.delete('gamma');
  await b.waitFor('finalized beta', (e) => e.event === 'finalized' && e.widget === 'beta', 5000);
  await b.waitFor('finalized gamma', (e) => e.event === 'finalized' && e.widget === 'gamma', 5000);
  assert.is(a.count((e) => e.widget === 'beta'), 0, 'the stopped instance did nothing');

  assert.is(await b.stop(), 0, b.describe());
});

test.run();
