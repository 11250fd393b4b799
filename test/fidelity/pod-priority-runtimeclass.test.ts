/**
 * The Priority and RuntimeClass admission plugins over the served PriorityClass and RuntimeClass
 * objects, as kube-apiserver 1.24 applies them to Pod creates: priority and preemptionPolicy from
 * the class, one global default class at most, a RuntimeClass's overhead and scheduling merged
 * into the Pod, and kube's 403s.
 *
 *   node --import tsx test/run.ts test/fidelity/pod-priority-runtimeclass.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/pod-priority-runtimeclass.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';

let t: Target;
let ns: string;
let run: string;
const PC = '/apis/scheduling.k8s.io/v1/priorityclasses';
const RC = '/apis/node.k8s.io/v1/runtimeclasses';

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('prio');
  run = ns.split('-').pop()!;
  // The reference has no controller-manager: the ServiceAccount admission plugin needs `default`.
  await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
});
test.after(async () => {
  for (const p of [`${PC}/wtst-p-${run}`, `${PC}/wtst-def-${run}`, `${PC}/wtst-def2-${run}`, `${RC}/wtst-rc-${run}`]) await t.client.request('DELETE', p);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'busybox' }], ...spec },
});
const createPod = (name: string, spec: Record<string, unknown> = {}) => t.client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(name, spec) });
const msg = (r: { json: unknown }) => (r.json as any).message;

test('Priority: a Pod takes its class value and policy; an unknown class is refused; only one global default', async () => {
  const c = await t.client.request('POST', PC, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: `wtst-p-${run}` }, value: 12345, preemptionPolicy: 'Never' } });
  assert.is(c.status, 201, show(c));
  const p = await createPod('p1', { priorityClassName: `wtst-p-${run}` });
  assert.is(p.status, 201, show(p));
  assert.equal([(p.json as any).spec.priority, (p.json as any).spec.preemptionPolicy], [12345, 'Never']);
  const sys = await createPod('p2', { priorityClassName: 'system-cluster-critical' });
  assert.is(sys.status, 201, show(sys));
  assert.equal([(sys.json as any).spec.priority, (sys.json as any).spec.preemptionPolicy], [2000000000, 'PreemptLowerPriority']);
  const bad = await createPod('p3', { priorityClassName: 'nope' });
  assert.is(bad.status, 403, show(bad));
  assert.is(msg(bad), 'pods "p3" is forbidden: no PriorityClass with name nope was found');
  const wrong = await createPod('p4', { priorityClassName: `wtst-p-${run}`, priority: 1 });
  assert.is(msg(wrong), 'pods "p4" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 12345 from the given PriorityClass name');
  const d1 = await t.client.request('POST', PC, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: `wtst-def-${run}` }, value: 7, globalDefault: true } });
  assert.is(d1.status, 201, show(d1));
  try {
    const d2 = await t.client.request('POST', PC, { body: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: `wtst-def2-${run}` }, value: 8, globalDefault: true } });
    assert.is(d2.status, 403, show(d2));
    assert.is(msg(d2), `priorityclasses.scheduling.k8s.io "wtst-def2-${run}" is forbidden: PriorityClass wtst-def-${run} is already marked as default. Only one default can exist`);
    const dflt = await createPod('p5');
    assert.is(dflt.status, 201, show(dflt));
    assert.equal([(dflt.json as any).spec.priorityClassName, (dflt.json as any).spec.priority], [`wtst-def-${run}`, 7]);
  } finally {
    await t.client.request('DELETE', `${PC}/wtst-def-${run}`);
  }
});

test('RuntimeClass: overhead and scheduling merged into the Pod; conflicts and mismatches refused', async () => {
  const rc = await t.client.request('POST', RC, {
    body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: `wtst-rc-${run}` }, handler: 'h', overhead: { podFixed: { cpu: '100m' } }, scheduling: { nodeSelector: { zone: 'a' }, tolerations: [{ key: 'k', operator: 'Exists' }] } },
  });
  assert.is(rc.status, 201, show(rc));
  const p = await createPod('r1', { runtimeClassName: `wtst-rc-${run}`, nodeSelector: { disk: 'ssd' }, tolerations: [{ key: 'k', operator: 'Equal', value: 'v' }] });
  assert.is(p.status, 201, show(p));
  const s = (p.json as any).spec;
  assert.equal(s.overhead, { cpu: '100m' });
  assert.equal(s.nodeSelector, { disk: 'ssd', zone: 'a' });
  // DefaultTolerationSeconds ran first; the class's `k Exists` covers the Pod's `k Equal v`.
  assert.equal(s.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'k', operator: 'Exists' },
  ]);
  const conflict = await createPod('r2', { runtimeClassName: `wtst-rc-${run}`, nodeSelector: { zone: 'b' } });
  assert.is(conflict.status, 403, show(conflict));
  assert.is(msg(conflict), 'pods "r2" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[zone] = a; pod.spec.nodeSelector[zone] = b');
  const mismatch = await createPod('r3', { runtimeClassName: `wtst-rc-${run}`, overhead: { cpu: '1' } });
  assert.is(msg(mismatch), `pods "r3" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
  const same = await createPod('r4', { runtimeClassName: `wtst-rc-${run}`, overhead: { cpu: '0.1' } });
  assert.is(same.status, 201, show(same));
  const none = await createPod('r5', { overhead: { cpu: '1' } });
  assert.is(msg(none), 'pods "r5" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  const missing = await createPod('r6', { runtimeClassName: 'nope' });
  assert.is(msg(missing), 'pods "r6" is forbidden: pod rejected: RuntimeClass "nope" not found');
});

test.run();
