/**
 * kube-controller-manager's per-namespace objects over HTTPS (this server runs them in process):
 * the serviceaccounts controller (`default` in every Active namespace, re-created when deleted)
 * and the root-ca-cert-publisher (`kube-root-ca.crt` with this server's CA, restored when changed
 * or deleted); Pods created right after their namespace are admitted (the ServiceAccount plugin
 * waits for `default`); namespace deletion completes with both objects present and never gets
 * them back; a restarted server fills namespaces made while the controllers were off.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, tempDir, type TestServer, type Client } from './harness.ts';
import { show, ok } from './assertions.ts';

let srv: TestServer;
let c: Client;
let ca: string;

const NS = '/api/v1/namespaces';
const POLL_LIMIT_MS = 10_000;
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Poll `fn` until it returns something truthy, at most `limitMs`. */
async function eventually<T>(label: string, fn: () => Promise<T | undefined | null | false>, limitMs = POLL_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${label}: not reached within ${limitMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await sleep(50);
  }
}

const getJson = async (client: Client, path: string): Promise<any> => {
  const r = await client.request('GET', path);
  return r.status === 200 ? r.json : null;
};
const createNs = (client: Client, name: string) => ok(client.request('POST', NS, { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201, `create namespace ${name}`);
const saPath = (ns: string, name = 'default') => `${NS}/${ns}/serviceaccounts/${name}`;
const cmPath = (ns: string) => `${NS}/${ns}/configmaps/kube-root-ca.crt`;

test.before(async () => {
  srv = await startTestServer();
  c = srv.client;
  ca = readFileSync(join(srv.dataDir, 'pki', 'ca.crt'), 'utf8');
});
test.after(async () => {
  await srv?.close();
});

test('bootstrap namespaces get the default ServiceAccount and kube-root-ca.crt', async () => {
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    const sa = await eventually(`${ns}: default SA`, () => getJson(c, saPath(ns)));
    assert.equal(Object.keys(sa), ['kind', 'apiVersion', 'metadata']);
    assert.is(sa.metadata.name, 'default');
    const cm = await eventually(`${ns}: kube-root-ca.crt`, () => getJson(c, cmPath(ns)));
    assert.equal(cm.data, { 'ca.crt': ca });
  }
});

test('a new namespace: default SA (no managedFields: nothing was set) and kube-root-ca.crt as the publisher writes it', async () => {
  await createNs(c, 'fresh');
  const sa = await eventually('default SA', () => getJson(c, saPath('fresh')));
  assert.equal(sa.metadata.managedFields, undefined);
  assert.equal(Object.keys(sa.metadata), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp']);
  const cm = await eventually('kube-root-ca.crt', () => getJson(c, cmPath('fresh')));
  assert.equal(cm.metadata.annotations, { 'kubernetes.io/description': DESCRIPTION });
  assert.equal(cm.data, { 'ca.crt': ca });
  assert.match(cm.metadata.managedFields?.[0]?.time ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.equal(cm.metadata.managedFields, [
    {
      manager: 'kube-controller-manager',
      operation: 'Update',
      apiVersion: 'v1',
      time: cm.metadata.managedFields[0].time,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:ca.crt': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubernetes.io/description': {} } } },
    },
  ]);
  // Exactly one of each (several triggers per namespace must not make several objects).
  const sas = await getJson(c, `${NS}/fresh/serviceaccounts`);
  assert.equal(sas.items.map((i: any) => i.metadata.name), ['default']);
  const cms = await getJson(c, `${NS}/fresh/configmaps`);
  assert.equal(cms.items.map((i: any) => i.metadata.name), ['kube-root-ca.crt']);
});

test('the default SA comes back after deletion (a new object); other accounts are left alone', async () => {
  const before = await eventually('default SA', () => getJson(c, saPath('fresh')));
  await ok(c.request('DELETE', saPath('fresh')), 200, 'delete default SA');
  const after = await eventually('default SA re-created', async () => {
    const sa = await getJson(c, saPath('fresh'));
    return sa && sa.metadata.uid !== before.metadata.uid ? sa : null;
  });
  assert.is(after.metadata.name, 'default');
  await ok(c.request('POST', `${NS}/fresh/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'mine' } } }), 201, 'create mine');
  await ok(c.request('DELETE', saPath('fresh', 'mine')), 200, 'delete mine');
  await sleep(300);
  assert.is((await c.request('GET', saPath('fresh', 'mine'))).status, 404);
});

test('kube-root-ca.crt: restored after deletion, after a data change, after losing its annotation (other fields kept)', async () => {
  const first = await eventually('kube-root-ca.crt', () => getJson(c, cmPath('fresh')));
  await ok(c.request('DELETE', cmPath('fresh')), 200, 'delete');
  const recreated = await eventually('re-created', async () => {
    const cm = await getJson(c, cmPath('fresh'));
    return cm && cm.metadata.uid !== first.metadata.uid ? cm : null;
  });
  assert.equal(recreated.data, { 'ca.crt': ca });

  const changed = await ok(
    c.request('PUT', cmPath('fresh'), {
      body: { ...recreated, metadata: { ...recreated.metadata, labels: { keep: 'me' }, annotations: { other: 'x' } }, data: { 'ca.crt': 'tampered', extra: '1' } },
    }),
    200,
    'tamper',
  );
  const restored = await eventually('restored', async () => {
    const cm = await getJson(c, cmPath('fresh'));
    return cm && Number(cm.metadata.resourceVersion) > Number(changed.metadata.resourceVersion) ? cm : null;
  });
  assert.equal(restored.data, { 'ca.crt': ca });
  assert.equal(restored.metadata.annotations, { other: 'x', 'kubernetes.io/description': DESCRIPTION });
  assert.equal(restored.metadata.labels, { keep: 'me' });
  assert.is(restored.metadata.uid, recreated.metadata.uid, 'updated in place');
  // In sync: no further writes.
  await sleep(300);
  assert.is((await getJson(c, cmPath('fresh'))).metadata.resourceVersion, restored.metadata.resourceVersion);
});

test('a Pod created right after its namespace is admitted with the default account and token volume', async () => {
  for (let i = 0; i < 3; i++) {
    const ns = `quick-${i}`;
    await createNs(c, ns);
    const r = await c.request('POST', `${NS}/${ns}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } });
    assert.is(r.status, 201, show(r));
    assert.is(r.json.spec.serviceAccountName, 'default');
    assert.match(r.json.spec.volumes[0].name, /^kube-api-access-/);
  }
});

test('namespace deletion completes with the default SA, kube-root-ca.crt and a pod in it; nothing comes back', async () => {
  await createNs(c, 'doomed');
  await eventually('default SA', () => getJson(c, saPath('doomed')));
  await eventually('kube-root-ca.crt', () => getJson(c, cmPath('doomed')));
  await ok(c.request('POST', `${NS}/doomed/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } }), 201, 'pod');
  await ok(c.request('DELETE', `${NS}/doomed`), 200, 'delete namespace');
  // Terminating: the publisher's and the controller's creates are refused; the namespace goes.
  await eventually('namespace gone', async () => (await c.request('GET', `${NS}/doomed`)).status === 404, 20_000);
  await sleep(300);
  for (const p of [saPath('doomed'), cmPath('doomed')]) assert.is((await c.request('GET', p)).status, 404, p);
  // A namespace of the same name made again gets fresh ones.
  await createNs(c, 'doomed');
  await eventually('default SA again', () => getJson(c, saPath('doomed')));
  await eventually('kube-root-ca.crt again', () => getJson(c, cmPath('doomed')));
});

test('restart: namespaces made while the controllers were off are filled by the start-up scan', async () => {
  const dataDir = tempDir();
  try {
    const off = await startTestServer({ dataDir, namespaceDefaults: false });
    await createNs(off.client, 'made-offline');
    await sleep(200);
    assert.is((await off.client.request('GET', saPath('made-offline'))).status, 404);
    assert.is((await off.client.request('GET', cmPath('made-offline'))).status, 404);
    await off.close();
    const on = await startTestServer({ dataDir });
    try {
      await eventually('default SA after restart', () => getJson(on.client, saPath('made-offline')));
      await eventually('kube-root-ca.crt after restart', () => getJson(on.client, cmPath('made-offline')));
    } finally {
      await on.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
