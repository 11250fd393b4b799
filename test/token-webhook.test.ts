/**
 * Webhook token authentication against a REAL HTTPS webhook on loopback (its own CA, and a client
 * certificate it requires of the API server), through this server over HTTPS: what the webhook is
 * sent (TokenReview v1beta1 or v1, as client-go writes it), who the tokens authenticate as (RBAC's
 * 403 names them; kubectl --token), TokenReview's answers, the 401s, retries, and the caches
 * (counted by the webhook): rejections kept for --authentication-token-webhook-cache-ttl, errors
 * never, successes also by kube's outer 10 s cache.
 *
 * The webhook is test/token-webhook-peer.ts; what kube-apiserver 1.24 sends it and answers is
 * checked on both targets by test/fidelity/token-webhook.test.ts. This suite adds what needs this
 * server's options: a short retry backoff, the v1 version, an unreachable webhook, kubectl
 * --token with RBAC bindings, start-up errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { once } from 'node:events';
import { execFile } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, startTestServer, tempDir, type Client, type TestServer } from './harness.ts';
import { prepareWebhookDir, startWebhookPeer, type WebhookPeer } from './token-webhook-peer.ts';
import type { ServerOptions } from '../internal/app/app.ts';

const API_AUDIENCE = 'https://kubernetes.default.svc';
const WEBHOOK_TTL_MS = 1500;
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

let dir: string;
let peer: WebhookPeer;
let v1beta1: TestServer;
const clients: Client[] = [];

const callsFor = (token: string) => peer.callsFor(token);

const FAST_RETRY = { initialMs: 20, factor: 1.5, jitter: 0.2, steps: 5 };

async function startWith(configFile: string, extra: Partial<NonNullable<ServerOptions['tokenAuth']>> = {}): Promise<TestServer> {
  return startTestServer({ tokenAuth: { webhookConfigFile: configFile, webhookCacheTtlMs: WEBHOOK_TTL_MS, webhookRetryBackoff: FAST_RETRY, apiAudiences: [API_AUDIENCE], ...extra } });
}

/** A client of `s` that presents only `token` (no client certificate). */
function tokenClient(s: TestServer, token: string): Client {
  const x = agentClient(s.url, new Agent({ connect: { ca: s.server.pki.caCertPem } }), { authorization: `Bearer ${token}` });
  clients.push(x);
  return x;
}

async function review(s: TestServer, spec: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await s.client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
  assert.is(r.status, 201, r.text);
  return r.json.status;
}

test.before(async () => {
  dir = tempDir('token-webhook-');
  peer = await startWebhookPeer(dir);
  v1beta1 = await startWith(peer.kubeconfig);
});

test.after(async () => {
  for (const c of clients) await c.close();
  await v1beta1?.close();
  await peer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the webhook gets a v1beta1 TokenReview as client-go sends it, over mutual TLS', async () => {
  const r = await tokenClient(v1beta1, 'x-good').request('GET', '/api/v1/namespaces');
  assert.is(r.status, 403);
  const [call, ...more] = callsFor('x-good');
  assert.is(more.length, 0);
  assert.is(call!.method, 'POST');
  assert.is(call!.url, '/authenticate?timeout=30s');
  assert.is(call!.clientCN, 'kube-apiserver');
  assert.is(call!.headers['content-type'], 'application/json');
  assert.is(call!.headers.accept, 'application/json, */*');
  assert.is(
    call!.body,
    `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1beta1","metadata":{"creationTimestamp":null},"spec":{"token":"x-good","audiences":["${API_AUDIENCE}"]},"status":{"user":{}}}\n`,
  );
});

test('an authenticated token acts as the webhook says: RBAC names the user, its groups count', async () => {
  const c = tokenClient(v1beta1, 'x-good');
  const denied = await c.request('GET', '/api/v1/namespaces');
  assert.is(denied.status, 403);
  assert.is(denied.json.message, 'namespaces is forbidden: User "webhook-user" cannot list resource "namespaces" in API group "" at the cluster scope');
  const b = await v1beta1.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'wh-group-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'wh-group' }] },
  });
  assert.is(b.status, 201, b.text);
  const allowed = await c.request('GET', '/api/v1/namespaces/default/configmaps');
  assert.is(allowed.status, 200, allowed.text);
});

test('kubectl --token: a token only the webhook knows', async () => {
  const caFile = join(dir, 'apiserver-ca.crt');
  writeFileSync(caFile, v1beta1.server.pki.caCertPem);
  const kubectl = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('kubectl', ['--kubeconfig', '/dev/null', '--server', v1beta1.url, '--certificate-authority', caFile, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const ok = await kubectl(['--token=kubectl-good', 'get', 'configmaps', '-n', 'kube-system', '-o', 'name']);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /configmap\/kube-root-ca\.crt/);
  const forbidden = await kubectl(['--token=kubectl-good', 'get', 'secrets', '-n', 'kube-system']);
  assert.is(forbidden.code, 1);
  assert.match(forbidden.stderr, /Error from server \(Forbidden\): secrets is forbidden: User "webhook-user" cannot list resource "secrets" in API group "" in the namespace "kube-system"/);
  const bad = await kubectl(['--token=unknown', 'get', 'configmaps']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
});

test('TokenReview: the webhook user (uid, extra, system:authenticated) and the API audience', async () => {
  assert.equal(await review(v1beta1, { token: 'x-good' }), {
    authenticated: true,
    user: { username: 'webhook-user', uid: 'u1', groups: ['wh-group', 'system:authenticated'], extra: { k: ['v'] } },
    audiences: [API_AUDIENCE],
  });
  // Audiences asked for: the webhook is asked for them; without its own it answers for --api-audiences.
  assert.equal(await review(v1beta1, { token: 'x-good', audiences: ['x', API_AUDIENCE] }), {
    authenticated: true,
    user: { username: 'webhook-user', uid: 'u1', groups: ['wh-group', 'system:authenticated'], extra: { k: ['v'] } },
    audiences: [API_AUDIENCE],
  });
  assert.equal(JSON.parse(callsFor('x-good').at(-1)!.body).spec.audiences, ['x', API_AUDIENCE]);
  assert.equal(await review(v1beta1, { token: 'x-good', audiences: ['x'] }), { user: {}, error: 'invalid bearer token' });
});

/** Tokens the webhook refuses or fails on: TokenReview's error (as kube words it) and the 401. */
const REFUSED: [string, string, number][] = [
  ['x-aud', 'invalid bearer token', 1],
  ['never-seen', 'invalid bearer token', 1],
  ['x-error', '[invalid bearer token, token revoked]', 1],
  ['x-forbidden', '[invalid bearer token, unknown]', 1],
  ['x-boom', '[invalid bearer token, an error on the server ("unknown") has prevented the request from succeeding]', 5],
  ['x-textboom', '[invalid bearer token, an error on the server ("boom in text") has prevented the request from succeeding]', 5],
  ['x-status', '[invalid bearer token, custom failure]', 5],
];

for (const [i, [token, error, attempts]] of REFUSED.entries()) {
  test(`refused (${i}) ${token}: TokenReview error, 401 Status, ${attempts} attempt(s)`, async () => {
    const before = callsFor(token).length;
    assert.equal(await review(v1beta1, { token }), { user: {}, error }, `case ${i}`);
    assert.is(callsFor(token).length - before, attempts, `case ${i}: attempts`);
    const r = await tokenClient(v1beta1, token).request('GET', '/version');
    assert.is(r.status, 401, `case ${i}`);
    assert.equal(r.json, UNAUTHORIZED, `case ${i}`);
  });
}

test('cache: a rejection is kept for the webhook TTL, an error never', async () => {
  const token = 'cache-probe';
  const c = tokenClient(v1beta1, token);
  assert.is((await c.request('GET', '/version')).status, 401);
  assert.is(callsFor(token).length, 1);
  for (let i = 0; i < 3; i++) assert.is((await c.request('GET', '/version')).status, 401);
  assert.is(callsFor(token).length, 1, 'rejection served from the cache');
  await new Promise((r) => setTimeout(r, WEBHOOK_TTL_MS + 200));
  assert.is((await c.request('GET', '/version')).status, 401);
  assert.is(callsFor(token).length, 2, 'asked again after the TTL');
  // Errors are not cached: every request asks the webhook again.
  const before = callsFor('x-error').length;
  const e = tokenClient(v1beta1, 'x-error');
  for (let i = 0; i < 3; i++) assert.is((await e.request('GET', '/version')).status, 401);
  assert.is(callsFor('x-error').length - before, 3);
});

test('cache: a success is kept per token and audiences (kube also keeps it 10 s above the webhook)', async () => {
  const token = 'x-good';
  const before = callsFor(token).length;
  const c = tokenClient(v1beta1, token);
  // Cached by the earlier tests' calls with the same audiences, then by the outer cache.
  for (let i = 0; i < 3; i++) assert.is((await c.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  await new Promise((r) => setTimeout(r, WEBHOOK_TTL_MS + 200));
  assert.is((await c.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  assert.is(callsFor(token).length - before, 0, 'the outer 10 s success cache answers past the webhook TTL');
  // Other audiences are another key.
  await review(v1beta1, { token, audiences: [API_AUDIENCE, 'y'] });
  assert.is(callsFor(token).length - before, 1);
  await review(v1beta1, { token, audiences: [API_AUDIENCE, 'y'] });
  assert.is(callsFor(token).length - before, 1);
});

test('--authentication-token-webhook-version=v1: a v1 TokenReview, its v1 answer read', async () => {
  const s = await startWith(peer.kubeconfig, { webhookVersion: 'v1' });
  try {
    const token = 'x-good';
    const before = callsFor(token).length;
    assert.equal(await review(s, { token }), { authenticated: true, user: { username: 'webhook-user', uid: 'u1', groups: ['wh-group', 'system:authenticated'], extra: { k: ['v'] } }, audiences: [API_AUDIENCE] });
    const sent = callsFor(token).slice(before);
    assert.is(sent.length, 1);
    assert.is(JSON.parse(sent[0]!.body).apiVersion, 'authentication.k8s.io/v1');
  } finally {
    await s.close();
  }
});

test('an unreachable webhook: 401, and TokenReview says why (Go\'s dial error)', async () => {
  const probe = net.createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((r) => probe.close(r));
  const url = `https://127.0.0.1:${port}/authenticate`;
  const s = await startWith(await prepareWebhookDir(dir, port, 'webhook-down.kubeconfig'));
  try {
    const r = await tokenClient(s, 'any').request('GET', '/version');
    assert.is(r.status, 401);
    assert.equal(r.json, UNAUTHORIZED);
    assert.equal(await review(s, { token: 'any' }), { user: {}, error: `[invalid bearer token, Post "${url}?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused]` });
    // The admin's client certificate still works: the webhook only sees bearer tokens.
    assert.is((await s.client.request('GET', '/api/v1/namespaces')).status, 200);
  } finally {
    await s.close();
  }
});

test('start-up fails on an unusable webhook kubeconfig, naming it', async () => {
  const missing = join(dir, 'missing.kubeconfig');
  await startWith(missing).then(
    () => assert.unreachable('started'),
    (e: Error) => assert.match(e.message, /error loading config file ".*missing\.kubeconfig"/),
  );
  const noContext = join(dir, 'no-context.kubeconfig');
  writeFileSync(noContext, 'apiVersion: v1\nkind: Config\nclusters: []\n');
  await startWith(noContext).then(
    () => assert.unreachable('started'),
    (e: Error) => assert.match(e.message, /no current-context/),
  );
});

test('--workers 2: one webhook cache and one outer cache for the server, whichever thread a connection lands on', async () => {
  const s = await startTestServer({ workers: 2, tokenAuth: { webhookConfigFile: peer.kubeconfig, webhookCacheTtlMs: 60_000, webhookRetryBackoff: FAST_RETRY, apiAudiences: [API_AUDIENCE] } });
  try {
    const good = callsFor('x-good').length;
    // 16 connections (SO_REUSEPORT spreads them over both threads), the same tokens on each.
    for (let i = 0; i < 16; i++) {
      const c = tokenClient(s, 'x-good');
      // Authenticated (403 from RBAC, not 401).
      assert.is((await c.request('GET', '/api/v1/namespaces/default/configmaps')).status, 403);
      assert.is((await tokenClient(s, 'workers-nope').request('GET', '/version')).status, 401);
    }
    assert.is(callsFor('workers-nope').length, 1, 'a rejection asked once, cached for the TTL');
    assert.is(callsFor('x-good').length - good, 1, 'a success asked once');
    const review = await s.client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'workers-nope', audiences: [API_AUDIENCE] } } });
    assert.is(review.status, 201, review.text);
    assert.is(review.json.status.authenticated, undefined);
    assert.is(callsFor('workers-nope').length, 1, 'TokenReview on any thread reads the same cache');
  } finally {
    await s.close();
  }
});

test.run();
