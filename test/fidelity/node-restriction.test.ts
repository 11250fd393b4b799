/**
 * The NodeRestriction admission plugin (kubeadm enables it; this server always runs it) on the
 * writes of a kubelet identity (client certificate CN=system:node:<name>, O=system:nodes): its own
 * Node only, without taints or restricted labels, mirror pods bound to itself only, the status and
 * evictions of its own pods, its own Lease, tokens bound to its own pods, PVC status capacity and
 * conditions only; kube's 403 messages.
 *
 *   node --import tsx test/run.ts test/fidelity/node-restriction.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/node-restriction.test.ts
 *   (the reference needs EXTRA_APISERVER_FLAGS=--enable-admission-plugins=NodeRestriction: kube's
 *   default plugin list lacks it)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { show } from '../assertions.ts';
import type { Client, HttpResult } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { TargetUsers } from '../target-users.ts';

const MERGE = 'application/merge-patch+json';
const run = randomBytes(3).toString('hex');
const me = `nr-a-${run}`;
const other = `nr-b-${run}`;
let t: Target;
let users: TargetUsers;
let ns: string;
let node: Client;
let nodeUid = '';
const cleanup: string[] = [];

/** kube's admission 403 (admission.NewForbidden). */
function refused(r: HttpResult, resource: string, name: string, message: string): void {
  const [res, group = ''] = resource.split(/\.(.*)/s);
  assert.equal(
    r.json,
    { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${resource} "${name}" is forbidden: ${message}`, reason: 'Forbidden', details: { name, ...(group ? { group } : {}), kind: res }, code: 403 },
    show(r),
  );
}

const pod = (name: string, nodeName: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...meta },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], ...extra },
});

test.before(async () => {
  t = await startTarget();
  users = new TargetUsers(t);
  ns = await t.createNamespace('noderestrict');
  node = users.client(await users.cert(`system:node:${me}`, ['system:nodes']));
  // The reference runs no ServiceAccount controller: the pods need their `default` account.
  const sa = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'default' } } });
  assert.ok(sa.status === 201 || sa.status === 409, show(sa));
  const claim = await t.client.request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
    body: { metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  });
  assert.is(claim.status, 201, show(claim));
  const claimVolume = { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'claim' } }] };
  for (const [n, p, extra] of [['on-me', me, {}], ['on-other', other, {}], ['with-claim', me, claimVolume]] as const) {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod(n, p, extra) });
    assert.is(r.status, 201, show(r));
  }
});

test.after(async () => {
  for (const path of cleanup) await t.client.request('DELETE', path);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await users?.close();
  await t?.close();
});

test('a node creates only its own Node, without restricted labels', async () => {
  let r = await node.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: other } } });
  refused(r, 'nodes', other, `node "${me}" is not allowed to modify node "${other}"`);
  r = await node.request('POST', '/api/v1/nodes', {
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: me, labels: { 'node-restriction.kubernetes.io/pool': 'a', 'foo.kubernetes.io/x': 'y', 'kubernetes.io/hostname': me, 'example.com/free': 'ok' } } },
  });
  refused(r, 'nodes', me, `node "${me}" is not allowed to set the following labels: foo.kubernetes.io/x, node-restriction.kubernetes.io/pool`);
  r = await node.request('POST', '/api/v1/nodes', {
    body: { apiVersion: 'v1', kind: 'Node', metadata: { name: me, labels: { 'kubernetes.io/hostname': me, 'node.kubernetes.io/instance-type': 'big', 'x.kubelet.kubernetes.io/y': 'z' } } },
  });
  assert.is(r.status, 201, show(r));
  cleanup.push(`/api/v1/nodes/${me}`);
  nodeUid = (r.json as any).metadata.uid;
});

test('updates of its Node: no taint changes, no restricted labels; other labels and status are fine', async () => {
  let r = await node.request('PATCH', `/api/v1/nodes/${me}`, { contentType: MERGE, body: { spec: { taints: [{ key: 'mine', effect: 'NoSchedule' }] } } });
  refused(r, 'nodes', me, `node "${me}" is not allowed to modify taints`);
  r = await node.request('PATCH', `/api/v1/nodes/${me}`, { contentType: MERGE, body: { metadata: { labels: { 'node-restriction.kubernetes.io/pool': 'b', 'kubernetes.io/role': 'x' } } } });
  refused(r, 'nodes', me, 'is not allowed to modify labels: kubernetes.io/role, node-restriction.kubernetes.io/pool');
  r = await node.request('PATCH', `/api/v1/nodes/${me}`, { contentType: MERGE, body: { metadata: { labels: { 'example.com/free': 'ok', 'topology.kubernetes.io/zone': 'z1' } } } });
  assert.is(r.status, 200, show(r));
  r = await node.request('PATCH', `/api/v1/nodes/${me}/status`, { contentType: MERGE, body: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ok' }] } } });
  assert.is(r.status, 200, show(r));
  r = await node.request('PATCH', `/api/v1/nodes/${other}`, { contentType: MERGE, body: { metadata: { labels: { a: 'b' } } } });
  // The update handler looks the node up first (404) on both servers? Either way a node never touches another's.
  assert.ok(r.status === 403 || r.status === 404, show(r));
});

test('pods: only mirror pods bound to itself, owned by its Node, referencing nothing', async () => {
  const mirror = { annotations: { 'kubernetes.io/config.mirror': 'hash' } };
  const owner = () => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: me, uid: nodeUid, controller: true }] });
  let r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('plain', me) });
  refused(r, 'pods', 'plain', `pod does not have "kubernetes.io/config.mirror" annotation, node "${me}" can only create mirror pods`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m0', other, {}, mirror) });
  refused(r, 'pods', 'm0', `node "${me}" can only create pods with spec.nodeName set to itself`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m1', me, {}, mirror) });
  refused(r, 'pods', 'm1', `node "${me}" can only create pods with an owner reference set to itself`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m2', me, {}, { ...mirror, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: me, uid: nodeUid }] }) });
  refused(r, 'pods', 'm2', `node "${me}" can only create pods with a controller owner reference set to itself`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m3', me, {}, { ...mirror, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: me, uid: 'wrong', controller: true }] }) });
  refused(r, 'pods', 'm3', `node ${me} UID mismatch: expected wrong got ${nodeUid}`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m4', me, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }, { ...mirror, ...owner() }) });
  // The ServiceAccount plugin (before NodeRestriction in kube's order) refuses it first.
  refused(r, 'pods', 'm4', 'a mirror pod may not reference secrets');
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m5', me, { volumes: [{ name: 'v', configMap: { name: 'c' } }] }, { ...mirror, ...owner() }) });
  refused(r, 'pods', 'm5', `node "${me}" can not create pods that reference configmaps`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('m6', me, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }, { ...mirror, ...owner() }) });
  refused(r, 'pods', 'm6', `node "${me}" can not create pods that reference persistentvolumeclaims`);
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: pod('mirror', me, {}, { ...mirror, ...owner() }) });
  assert.is(r.status, 201, show(r));
});

test("pod status, evictions and deletes: only its own pods'", async () => {
  let r = await node.request('PATCH', `/api/v1/namespaces/${ns}/pods/on-other/status`, { contentType: MERGE, body: { status: { message: 'x' } } });
  refused(r, 'pods', 'on-other', `node "${me}" can only update pod status for pods with spec.nodeName set to itself`);
  r = await node.request('PATCH', `/api/v1/namespaces/${ns}/pods/on-me/status`, { contentType: MERGE, body: { metadata: { labels: { a: 'b' } }, status: { message: 'x' } } });
  refused(r, 'pods', 'on-me', `node "${me}" cannot update labels through pod status`);
  r = await node.request('PATCH', `/api/v1/namespaces/${ns}/pods/on-me/status`, { contentType: MERGE, body: { status: { message: 'running' } } });
  assert.is(r.status, 200, show(r));
  r = await node.request('POST', `/api/v1/namespaces/${ns}/pods/on-other/eviction`, { body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'on-other' } } });
  refused(r, 'pods', 'on-other', `node ${me} can only evict pods with spec.nodeName set to itself`);
  r = await node.request('DELETE', `/api/v1/namespaces/${ns}/pods/on-other`);
  refused(r, 'pods', 'on-other', `node "${me}" can only delete pods with spec.nodeName set to itself`);
});

test('leases: its own, in kube-node-lease', async () => {
  let r = await node.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: other } } });
  refused(r, 'leases.coordination.k8s.io', other, 'can only access node lease with the same name as the requesting node');
  r = await node.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: me }, spec: { holderIdentity: me } } });
  assert.is(r.status, 201, show(r));
  cleanup.push(`/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${me}`);
});

test('service-account tokens: bound to one of its pods, with the uid', async () => {
  const path = `/api/v1/namespaces/${ns}/serviceaccounts/default/token`;
  const tr = (ref?: Record<string, string>) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: [], ...(ref ? { boundObjectRef: ref } : {}) } });
  const uidOf = async (name: string) => ((await t.client.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).json as any).metadata.uid as string;
  let r = await node.request('POST', path, { body: tr() });
  refused(r, 'serviceaccounts', 'default', 'node requested token not bound to a pod');
  r = await node.request('POST', path, { body: tr({ apiVersion: 'v1', kind: 'Pod', name: 'on-me' }) });
  refused(r, 'serviceaccounts', 'default', 'node requested token with a pod binding without a uid');
  r = await node.request('POST', path, { body: tr({ apiVersion: 'v1', kind: 'Pod', name: 'on-me', uid: 'nope' }) });
  refused(r, 'serviceaccounts', 'default', 'the UID in the bound object reference (nope) does not match the UID in record. The object might have been deleted and then recreated');
  r = await node.request('POST', path, { body: tr({ apiVersion: 'v1', kind: 'Pod', name: 'on-other', uid: await uidOf('on-other') }) });
  // The Node authorizer already refuses: the default ServiceAccount is used by on-other only via node other.
  assert.is(r.status, 403, show(r));
  r = await node.request('POST', path, { body: tr({ apiVersion: 'v1', kind: 'Pod', name: 'on-me', uid: await uidOf('on-me') }) });
  assert.is(r.status, 201, show(r));
});

test('PVC status: capacity and conditions only', async () => {
  const path = `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim/status`;
  let r = await node.request('PATCH', path, { contentType: MERGE, body: { status: { capacity: { storage: '2Gi' }, conditions: [{ type: 'Resizing', status: 'True' }] } } });
  assert.is(r.status, 200, show(r));
  r = await node.request('PATCH', path, { contentType: MERGE, body: { status: { phase: 'Lost' } } });
  assert.is(r.status, 403, show(r));
  // kube appends a go-cmp diff of its internal objects; the sentence before it is kube's.
  const message = (r.json as any).message as string;
  const expected = `persistentvolumeclaims "claim" is forbidden: node "${me}" is not allowed to update fields other than status.capacity and status.conditions: `;
  assert.is(message.slice(0, expected.length), expected, show(r));
  r = await node.request('PATCH', `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim`, { contentType: MERGE, body: { metadata: { labels: { a: 'b' } } } });
  assert.equal(
    r.json,
    {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', details: { name: 'claim', kind: 'persistentvolumeclaims' }, code: 403,
      message: `persistentvolumeclaims "claim" is forbidden: User "system:node:${me}" cannot patch resource "persistentvolumeclaims" in API group "" in the namespace "${ns}": can only get individual resources of this type`,
    },
    show(r),
  );
});

test.run();
