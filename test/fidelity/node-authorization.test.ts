/**
 * Kubelet identities as kube-apiserver 1.24 with `--authorization-mode=Node,RBAC` treats them (the
 * Node authorizer): a node (client certificate CN=system:node:<name>, O=system:nodes) reads the
 * secrets, configmaps, PVCs, PVs and service-account tokens reachable from pods bound to it and no
 * others, its own Lease only, kube's static node rules for the rest, with kube's reasons in the 403s.
 *
 *   node --import tsx test/run.ts test/fidelity/node-authorization.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/node-authorization.test.ts
 *   (the reference's start.sh passes --authorization-mode Node,RBAC)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { eventually, type Client } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { TargetUsers } from '../target-users.ts';

let t: Target;
let users: TargetUsers;
let ns: string;
let nodeA: Client;
let nodeB: Client;
let notANode: Client;
const pvs: string[] = [];

const forbidden = (user: string, verb: string, resource: string, group: string, name: string, namespace: string, reason: string) => {
  const res = resource.split('/')[0];
  const qualified = group ? `${res}.${group}` : res;
  const what = name ? `${qualified} "${name}"` : qualified;
  const where = namespace ? ` in the namespace "${namespace}"` : " at the cluster scope";
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${what} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}"${where}${reason ? `: ${reason}` : ''}`,
    reason: 'Forbidden',
    details: { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: res },
    code: 403,
  };
};

const must = async (p: Promise<{ status: number; text: string }>, status = 201) => {
  const r = await p;
  assert.is(r.status, status, r.text);
  return r;
};

test.before(async () => {
  t = await startTarget();
  users = new TargetUsers(t);
  ns = await t.createNamespace('nodeauthz');
  nodeA = users.client(await users.cert('system:node:node-a', ['system:nodes']));
  nodeB = users.client(await users.cert('system:node:node-b', ['system:nodes']));
  notANode = users.client(await users.cert('system:node:node-a', []));
  const c = t.client;
  const post = (path: string, body: unknown) => must(c.request('POST', path, { body }));
  await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa1' } });
  await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { metadata: { name: 'sa2' } });
  for (const s of ['s-vol', 's-env', 's-pull', 's-other', 's-pv'])
    await post(`/api/v1/namespaces/${ns}/secrets`, { metadata: { name: s }, stringData: { k: 'v' } });
  for (const m of ['cm-env', 'cm-proj', 'cm-other']) await post(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: m }, data: { k: 'v' } });
  await post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
    metadata: { name: 'claim1' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const pv = (name: string, claimRef?: Record<string, string>) => ({
    metadata: { name },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      csi: { driver: 'example.com', volumeHandle: name, nodePublishSecretRef: { name: 's-pv', namespace: ns } },
      ...(claimRef ? { claimRef } : {}),
    },
  });
  for (const [name, claim] of [[`${ns}-pv1`, true], [`${ns}-pv2`, false]] as const) {
    await post('/api/v1/persistentvolumes', pv(name, claim ? { namespace: ns, name: 'claim1' } : undefined));
    pvs.push(name);
  }
  await post(`/api/v1/namespaces/${ns}/pods`, {
    metadata: { name: 'p1' },
    spec: {
      nodeName: 'node-a',
      serviceAccountName: 'sa1',
      imagePullSecrets: [{ name: 's-pull' }],
      containers: [
        {
          name: 'c',
          image: 'busybox',
          env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's-env', key: 'k' } } }],
          envFrom: [{ configMapRef: { name: 'cm-env' } }],
        },
      ],
      volumes: [
        { name: 'v1', secret: { secretName: 's-vol' } },
        { name: 'v2', projected: { sources: [{ configMap: { name: 'cm-proj' } }] } },
        { name: 'v3', persistentVolumeClaim: { claimName: 'claim1' } },
      ],
    },
  });
});

test.after(async () => {
  for (const pv of pvs) await t.client.request('DELETE', `/api/v1/persistentvolumes/${pv}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await users?.close();
  await t?.close();
});

test('a node reads the secrets, configmaps, PVC and PV its pods reference (graph edges followed from the fold)', async () => {
  for (const path of [
    `/api/v1/namespaces/${ns}/secrets/s-vol`,
    `/api/v1/namespaces/${ns}/secrets/s-env`,
    `/api/v1/namespaces/${ns}/secrets/s-pull`,
    `/api/v1/namespaces/${ns}/secrets/s-pv`,
    `/api/v1/namespaces/${ns}/configmaps/cm-env`,
    `/api/v1/namespaces/${ns}/configmaps/cm-proj`,
    `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim1`,
    `/api/v1/persistentvolumes/${ns}-pv1`,
  ]) {
    // The graph follows the fold (kube's informers): allowed once the pod is seen.
    await eventually(`node-a reads ${path}`, async () => (await nodeA.request('GET', path)).status === 200);
  }
  // A watch of one named secret (fieldSelector metadata.name) is a read of that object.
  const w = await nodeA.request('GET', `/api/v1/namespaces/${ns}/secrets?fieldSelector=metadata.name%3Ds-vol`);
  assert.is(w.status, 200, show(w));
});

test('objects no pod of the node references: 403 with "no relationship found"', async () => {
  const cases: [Client, string, string, string, string, string][] = [
    [nodeA, 'node-a', `/api/v1/namespaces/${ns}/secrets/s-other`, 'secrets', 's-other', ns],
    [nodeA, 'node-a', `/api/v1/namespaces/${ns}/configmaps/cm-other`, 'configmaps', 'cm-other', ns],
    [nodeA, 'node-a', `/api/v1/persistentvolumes/${ns}-pv2`, 'persistentvolumes', `${ns}-pv2`, ''],
    [nodeB, 'node-b', `/api/v1/namespaces/${ns}/secrets/s-vol`, 'secrets', 's-vol', ns],
    [nodeB, 'node-b', `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim1`, 'persistentvolumeclaims', 'claim1', ns],
  ];
  for (const [client, node, path, resource, name, namespace] of cases) {
    const r = await client.request('GET', path);
    assert.equal(r.json, forbidden(`system:node:${node}`, 'get', resource, '', name, namespace, `no relationship found between node '${node}' and this object`), `${node} ${path}: ${show(r)}`);
  }
  // A list or watch naming one object by field selector is authorized (and refused) for that name.
  const r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/secrets?watch=true&fieldSelector=metadata.name%3Ds-other`);
  assert.equal(r.json, forbidden('system:node:node-a', 'watch', 'secrets', '', 's-other', ns, "no relationship found between node 'node-a' and this object"), show(r));
});

test("the verbs kube's graph checks allow: list without a name, writes, subresources", async () => {
  const node = 'system:node:node-a';
  let r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.equal(r.json, forbidden(node, 'list', 'secrets', '', '', ns, 'No Object name found'), show(r));
  r = await nodeA.request('DELETE', `/api/v1/namespaces/${ns}/secrets/s-vol`);
  assert.equal(r.json, forbidden(node, 'delete', 'secrets', '', 's-vol', ns, 'can only read resources of this type'), show(r));
  r = await nodeA.request('GET', '/api/v1/secrets');
  assert.equal(r.json, forbidden(node, 'list', 'secrets', '', '', '', 'can only read namespaced object of this type'), show(r));
  r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims`);
  assert.equal(r.json, forbidden(node, 'list', 'persistentvolumeclaims', '', '', ns, 'can only get individual resources of this type'), show(r));
  r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/persistentvolumeclaims/claim1/status`);
  assert.equal(r.json, forbidden(node, 'get', 'persistentvolumeclaims/status', '', 'claim1', ns, 'can only get/update/patch this type'), show(r));
  r = await nodeA.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/sa2/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  assert.equal(r.json, forbidden(node, 'create', 'serviceaccounts/token', '', 'sa2', ns, "no relationship found between node 'node-a' and this object"), show(r));
  r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/sa1`);
  assert.equal(r.json, forbidden(node, 'get', 'serviceaccounts', '', 'sa1', ns, 'can only create tokens for individual service accounts'), show(r));
});

test('leases: only the node\'s own, in kube-node-lease', async () => {
  const node = 'system:node:node-a';
  let r = await nodeA.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-b');
  assert.equal(r.json, forbidden(node, 'get', 'leases', 'coordination.k8s.io', 'node-b', 'kube-node-lease', 'can only access node lease with the same name as the requesting node'), show(r));
  r = await nodeA.request('GET', `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/node-a`);
  assert.equal(r.json, forbidden(node, 'get', 'leases', 'coordination.k8s.io', 'node-a', ns, 'can only access leases in the "kube-node-lease" system namespace'), show(r));
  r = await nodeA.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases');
  assert.equal(r.json, forbidden(node, 'list', 'leases', 'coordination.k8s.io', '', 'kube-node-lease', 'can only get, create, update, patch, or delete a node lease'), show(r));
  r = await nodeA.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a');
  assert.ok(r.status === 200 || r.status === 404, show(r));
});

test("kube's static node rules: services, nodes, pods, CSRs; nothing else; a user not in system:nodes is no node", async () => {
  for (const path of ['/api/v1/services', '/api/v1/nodes', '/api/v1/pods', `/api/v1/namespaces/${ns}/endpoints/x`, '/apis/certificates.k8s.io/v1/certificatesigningrequests', '/apis/node.k8s.io/v1/runtimeclasses']) {
    const r = await nodeA.request('GET', path);
    assert.ok(r.status === 200 || r.status === 404, `${path}: ${show(r)}`);
  }
  let r = await nodeA.request('GET', '/api/v1/namespaces');
  assert.equal(r.json, forbidden('system:node:node-a', 'list', 'namespaces', '', '', '', ''), show(r));
  r = await notANode.request('GET', `/api/v1/namespaces/${ns}/secrets/s-vol`);
  assert.equal(r.json, forbidden('system:node:node-a', 'get', 'secrets', '', 's-vol', ns, ''), show(r));
  r = await notANode.request('GET', '/api/v1/services');
  assert.is(r.status, 403, show(r));
});

test('a SubjectAccessReview for a node identity answers with the Node authorizer\'s decision and reason', async () => {
  const sar = (name: string) => ({
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: { user: 'system:node:node-a', groups: ['system:nodes', 'system:authenticated'], resourceAttributes: { namespace: ns, verb: 'get', resource: 'secrets', name } },
  });
  let r = await t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: sar('s-vol') });
  assert.equal((r.json as any).status, { allowed: true }, show(r));
  r = await t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: sar('s-other') });
  assert.equal((r.json as any).status, { allowed: false, reason: "no relationship found between node 'node-a' and this object" }, show(r));
});

test('a SelfSubjectRulesReview of a node is incomplete, with the Node authorizer\'s error', async () => {
  const r = await nodeA.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } } });
  assert.is(r.status, 201, show(r));
  const status = (r.json as any).status;
  assert.is(status.incomplete, true, show(r));
  assert.is(status.evaluationError, 'node authorizer does not support user rule resolution', show(r));
});

test('edges appear when a pod is bound (pods/binding); a mirror pod grants nothing; VolumeAttachments by spec.nodeName', async () => {
  const c = t.client;
  for (const m of ['cm-bind', 'cm-mirror']) await must(c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: m }, data: { k: 'v' } } }));
  const withConfigMap = (name: string, cm: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
    metadata: { name, ...meta },
    spec: { serviceAccountName: 'sa1', containers: [{ name: 'c', image: 'busybox', envFrom: [{ configMapRef: { name: cm } }] }], ...extra },
  });
  await must(c.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: withConfigMap('unbound', 'cm-bind') }));
  const path = `/api/v1/namespaces/${ns}/configmaps/cm-bind`;
  let r = await nodeA.request('GET', path);
  assert.equal(r.json, forbidden('system:node:node-a', 'get', 'configmaps', '', 'cm-bind', ns, "no relationship found between node 'node-a' and this object"), show(r));
  await must(c.request('POST', `/api/v1/namespaces/${ns}/pods/unbound/binding`, { body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'unbound' }, target: { kind: 'Node', name: 'node-a' } } }));
  await eventually('node-a reads cm-bind once the pod is bound', async () => (await nodeA.request('GET', path)).status === 200);

  await must(
    c.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: withConfigMap('mirror', 'cm-mirror', { nodeName: 'node-a', serviceAccountName: undefined, automountServiceAccountToken: false }, { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
    }),
  );
  // A pod that is only written after the mirror pod is seen proves the graph has caught up.
  await must(c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cm-after' }, data: {} } }));
  await must(c.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: withConfigMap('after', 'cm-after', { nodeName: 'node-a' }) }));
  await eventually('node-a reads cm-after', async () => (await nodeA.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-after`)).status === 200);
  r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm-mirror`);
  assert.equal(r.json, forbidden('system:node:node-a', 'get', 'configmaps', '', 'cm-mirror', ns, "no relationship found between node 'node-a' and this object"), show(r));

  const va = `${ns}-va`;
  await must(
    c.request('POST', '/apis/storage.k8s.io/v1/volumeattachments', {
      body: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: va }, spec: { attacher: 'example.com', nodeName: 'node-a', source: { persistentVolumeName: 'x' } } },
    }),
  );
  try {
    await eventually('node-a reads its VolumeAttachment', async () => (await nodeA.request('GET', `/apis/storage.k8s.io/v1/volumeattachments/${va}`)).status === 200);
    r = await nodeB.request('GET', `/apis/storage.k8s.io/v1/volumeattachments/${va}`);
    assert.equal(r.json, forbidden('system:node:node-b', 'get', 'volumeattachments', 'storage.k8s.io', va, '', "no relationship found between node 'node-b' and this object"), show(r));
  } finally {
    await c.request('DELETE', `/apis/storage.k8s.io/v1/volumeattachments/${va}`);
  }
});

test('deleting the pod removes its edges: the secret is no longer readable', async () => {
  await must(t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/p1?gracePeriodSeconds=0`), 200);
  await eventually('node-a loses s-vol', async () => (await nodeA.request('GET', `/api/v1/namespaces/${ns}/secrets/s-vol`)).status === 403);
  const r = await nodeA.request('GET', `/api/v1/namespaces/${ns}/secrets/s-vol`);
  assert.equal(r.json, forbidden('system:node:node-a', 'get', 'secrets', '', 's-vol', ns, "no relationship found between node 'node-a' and this object"), show(r));
});

test.run();
