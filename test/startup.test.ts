/**
 * Start-up (issue 14), through the server process as `npm start` runs it (test/server-command.ts:
 * the built dist/ when fresh): a first start creates the bootstrap namespaces and the whole RBAC
 * bootstrap policy (created concurrently); a restart writes none of them again, still reconciles
 * the policy (an autoupdate object gets a lost rule back, an autoupdate "false" one is left
 * alone), and the key index it loads in bulk (kept as text until first read) gives the same
 * verdicts as before the restart: a taken name conflicts, a resourceVersion precondition holds, an
 * object being deleted stays deleting, a namespace's entry admits creates into it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { RestartableServer, type Client } from './harness.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const policy = JSON.parse(readFileSync(new URL('../internal/auth/rbac/bootstrap-policy.json', import.meta.url), 'utf8')) as Record<string, { metadata: { name: string; namespace?: string } }[]>;

const run = new RestartableServer('apiserver-startup-');
const start = (): Promise<Client> => run.start();
const stop = (): Promise<void> => run.stop();

/** name (namespace/name for namespaced kinds) → resourceVersion of every object of a list. */
async function versions(c: Client, path: string): Promise<Map<string, string>> {
  const r = await c.request('GET', path);
  assert.is(r.status, 200, r.text);
  const out = new Map<string, string>();
  for (const o of r.json.items) out.set(o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name, o.metadata.resourceVersion);
  return out;
}

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: name } });

test.after(() => run.cleanup());

test('first start: the bootstrap namespaces and every object of the RBAC bootstrap policy', async () => {
  const c = await start();
  assert.match(run.server!.logTail(), /"phases":\{"beforeStart":\d+,"pki":\d+,"storage":\d+/, 'the ready line says where start-up time went');
  const ns = await versions(c, '/api/v1/namespaces');
  for (const n of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) assert.ok(ns.has(n), n);
  for (const resource of ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings']) {
    const have = await versions(c, `${RBAC}/${resource}`);
    for (const o of policy[resource]!) {
      const key = o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name;
      assert.ok(have.has(key), `${resource} ${key}`);
    }
  }
});

test('restart: nothing rewritten, the policy still reconciled, the loaded key index gives the same verdicts', async () => {
  let c = run.client!;
  // Objects whose index entries the restart must bring back.
  assert.is((await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'startup' } } })).status, 201);
  const a = await c.request('POST', '/api/v1/namespaces/startup/configmaps', { body: cm('a') });
  assert.is(a.status, 201, a.text);
  assert.is((await c.request('POST', '/api/v1/namespaces/startup/configmaps', { body: cm('held', { finalizers: ['example.com/hold'] }) })).status, 201);
  const del = await c.request('DELETE', '/api/v1/namespaces/startup/configmaps/held');
  assert.is(del.status, 200, del.text);
  assert.ok(del.json.metadata.deletionTimestamp, 'held is being deleted (its finalizer holds it)');
  // Policy drift: an autoupdate object loses a rule; an opted-out one loses one too.
  const discovery = (await c.request('GET', `${RBAC}/clusterroles/system:discovery`)).json;
  const lostRule = discovery.rules[0];
  assert.is((await c.request('PUT', `${RBAC}/clusterroles/system:discovery`, { body: { ...discovery, rules: discovery.rules.slice(1) } })).status, 200);
  const put = await c.request('PUT', `${RBAC}/clusterroles/system:basic-user`, { body: { ...(await c.request('GET', `${RBAC}/clusterroles/system:basic-user`)).json, rules: [] } });
  assert.is(put.status, 200, put.text);
  const basicUser = put.json;
  const optOut = await c.request('PUT', `${RBAC}/clusterroles/system:basic-user`, {
    body: { ...basicUser, metadata: { ...basicUser.metadata, annotations: { ...basicUser.metadata.annotations, 'rbac.authorization.kubernetes.io/autoupdate': 'false' } } },
  });
  assert.is(optOut.status, 200, optOut.text);
  const before = {
    namespaces: await versions(c, '/api/v1/namespaces'),
    clusterroles: await versions(c, `${RBAC}/clusterroles`),
    clusterrolebindings: await versions(c, `${RBAC}/clusterrolebindings`),
    roles: await versions(c, `${RBAC}/roles`),
    rolebindings: await versions(c, `${RBAC}/rolebindings`),
  };
  const lastRv = Number(optOut.json.metadata.resourceVersion);

  await stop();
  c = await start();

  // Warm start: the bootstrap objects are compared, not written (same resourceVersions), except
  // the one that drifted under autoupdate, which got its rule back.
  assert.equal(await versions(c, '/api/v1/namespaces'), before.namespaces);
  for (const r of ['clusterrolebindings', 'roles', 'rolebindings'] as const) assert.equal(await versions(c, `${RBAC}/${r}`), before[r], r);
  const roles = await versions(c, `${RBAC}/clusterroles`);
  for (const [name, rv] of before.clusterroles) {
    if (name === 'system:discovery') assert.ok(Number(roles.get(name)) > lastRv, 'system:discovery reconciled');
    else assert.is(roles.get(name), rv, `${name} not rewritten`);
  }
  const restored = (await c.request('GET', `${RBAC}/clusterroles/system:discovery`)).json;
  assert.ok(restored.rules.some((r: unknown) => JSON.stringify(r) === JSON.stringify(lostRule)), 'the lost rule is back');
  assert.equal((await c.request('GET', `${RBAC}/clusterroles/system:basic-user`)).json.rules ?? [], [], 'autoupdate "false" left alone');

  // The key index as loaded: the name is taken, the precondition holds, the rv keeps growing.
  const again = await c.request('POST', '/api/v1/namespaces/startup/configmaps', { body: cm('a') });
  assert.is(again.status, 409, again.text);
  assert.is(again.json.reason, 'AlreadyExists');
  const stale = await c.request('PUT', '/api/v1/namespaces/startup/configmaps/a', { body: { ...cm('a'), metadata: { name: 'a', resourceVersion: String(Number(a.json.metadata.resourceVersion) - 1) } } });
  assert.is(stale.status, 409, stale.text);
  const upd = await c.request('PUT', '/api/v1/namespaces/startup/configmaps/a', { body: { ...cm('a'), metadata: { name: 'a', resourceVersion: a.json.metadata.resourceVersion }, data: { k: 'updated' } } });
  assert.is(upd.status, 200, upd.text);
  assert.ok(Number(upd.json.metadata.resourceVersion) > lastRv);
  // Still deleting after the restart: dropping its finalizer completes the deletion.
  const held = (await c.request('GET', '/api/v1/namespaces/startup/configmaps/held')).json;
  assert.ok(held.metadata.deletionTimestamp);
  const release = await c.request('PUT', '/api/v1/namespaces/startup/configmaps/held', { body: { ...held, metadata: { ...held.metadata, finalizers: [] } } });
  assert.is(release.status, 200, release.text);
  assert.is((await c.request('GET', '/api/v1/namespaces/startup/configmaps/held')).status, 404);
  // The namespace's own entry admits creates into it.
  assert.is((await c.request('POST', '/api/v1/namespaces/startup/configmaps', { body: cm('b') })).status, 201);
});

test.run();
