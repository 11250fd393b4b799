/**
 * Webhook token authentication on both targets, against the same REAL webhook
 * (test/token-webhook-peer.ts: HTTPS, its own CA, a required client certificate): what the API
 * server sends the webhook (bytes, URL, headers, how often — retries and caches counted by the
 * webhook), the 401s, and TokenReview's status for every kind of webhook answer (kube's error
 * texts: client-go's and Go's JSON decoder's words).
 *
 * Against the reference, the webhook must be the one it was started with:
 *
 *   node --import tsx -e "import('./test/token-webhook-peer.ts').then((m) => m.prepareWebhookDir('/tmp/wh', 16491))"
 *   EXTRA_APISERVER_FLAGS="--authentication-token-webhook-config-file=/tmp/wh/webhook.kubeconfig \
 *     --authentication-token-webhook-cache-ttl=2s" ../shared/reference/start.sh /tmp/ref 16443
 *   TOKEN_WEBHOOK_DIR=/tmp/wh TOKEN_WEBHOOK_PORT=16491 TEST_KUBECONFIG=/tmp/ref/kubeconfig \
 *     node --import tsx test/run.ts test/fidelity/token-webhook.test.ts
 *
 * Tokens carry a per-run prefix, so a long-lived reference never answers them from its caches.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { agentClient, type Client } from '../harness.ts';
import { startWebhookPeer, type WebhookPeer } from '../token-webhook-peer.ts';

if (process.env.TEST_KUBECONFIG && !(process.env.TOKEN_WEBHOOK_DIR && process.env.TOKEN_WEBHOOK_PORT)) {
  throw new Error('against an external cluster this suite needs TOKEN_WEBHOOK_DIR and TOKEN_WEBHOOK_PORT: the webhook the cluster was started with (see the header of this file)');
}

/** The reference's --service-account-issuer makes this its API audience; ours is given the same. */
const API_AUDIENCE = 'https://kubernetes.default.svc';
const CACHE_TTL_MS = 2000;
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const run = randomBytes(4).toString('hex');
const tmp = mkdtempSync(join(tmpdir(), 'token-webhook-fidelity-'));
let peer: WebhookPeer;
let t: Target;
const clients: Client[] = [];

test.before(async () => {
  peer = await startWebhookPeer(process.env.TOKEN_WEBHOOK_DIR ?? tmp, Number(process.env.TOKEN_WEBHOOK_PORT ?? 0));
  t = await startTarget({ tokenAuth: { webhookConfigFile: peer.kubeconfig, webhookCacheTtlMs: CACHE_TTL_MS, apiAudiences: [API_AUDIENCE] } });
});

test.after(async () => {
  for (const c of clients) await c.close();
  await t?.close();
  await peer?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const tok = (kind: string): string => `${run}-${Math.random().toString(36).slice(2, 8)}-${kind}`;

function tokenClient(token: string): Client {
  const c = agentClient(t.url, new Agent({ connect: { ca: readKubeconfig(t.kubeconfig).ca } }), { authorization: `Bearer ${token}` });
  clients.push(c);
  return c;
}

async function review(spec: Record<string, unknown>): Promise<unknown> {
  const r = await t.client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec } });
  assert.is(r.status, 201, r.text);
  return r.json.status;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('what the webhook is sent: a v1beta1 TokenReview with the API audience, as client-go writes it', async () => {
  const token = tok('good');
  const r = await tokenClient(token).request('GET', '/api/v1/namespaces');
  assert.is(r.status, 403);
  assert.is(r.json.message, 'namespaces is forbidden: User "webhook-user" cannot list resource "namespaces" in API group "" at the cluster scope');
  const calls = peer.callsFor(token);
  assert.is(calls.length, 1);
  const c = calls[0]!;
  assert.equal(
    { method: c.method, url: c.url, type: c.headers['content-type'], accept: c.headers.accept, agent: c.headers['user-agent'], cn: c.clientCN, body: c.body },
    {
      method: 'POST',
      url: '/authenticate?timeout=30s',
      type: 'application/json',
      accept: 'application/json, */*',
      agent: 'Go-http-client/1.1',
      cn: 'kube-apiserver',
      body: `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1beta1","metadata":{"creationTimestamp":null},"spec":{"token":"${token}","audiences":["${API_AUDIENCE}"]},"status":{"user":{}}}\n`,
    },
  );
});

test('TokenReview of a token the webhook accepts: its user, system:authenticated, the audiences', async () => {
  const token = tok('good');
  const user = { username: 'webhook-user', uid: 'u1', groups: ['wh-group', 'system:authenticated'], extra: { k: ['v'] } };
  assert.equal(await review({ token }), { authenticated: true, user, audiences: [API_AUDIENCE] });
  assert.equal(await review({ token, audiences: ['x', API_AUDIENCE] }), { authenticated: true, user, audiences: [API_AUDIENCE] });
  assert.equal(JSON.parse(peer.callsFor(token).at(-1)!.body).spec.audiences, ['x', API_AUDIENCE]);
  assert.equal(await review({ token, audiences: ['x'] }), { user: {}, error: 'invalid bearer token' });
});

/** [answer kind, TokenReview error, webhook calls per review]. */
const REFUSED: [string, string, number][] = [
  ['aud', 'invalid bearer token', 1],
  ['unknown', 'invalid bearer token', 1],
  ['error', '[invalid bearer token, token revoked]', 1],
  ['forbidden', '[invalid bearer token, unknown]', 1],
  ['boom', '[invalid bearer token, an error on the server ("unknown") has prevented the request from succeeding]', 5],
  ['textboom', '[invalid bearer token, an error on the server ("boom in text") has prevented the request from succeeding]', 5],
  ['status', '[invalid bearer token, custom failure]', 5],
  ['badgroups', '[invalid bearer token, json: cannot unmarshal string into Go struct field UserInfo.status.user.groups of type []string]', 1],
  ['badextra', '[invalid bearer token, json: cannot unmarshal string into Go struct field UserInfo.status.user.extra of type v1beta1.ExtraValue]', 1],
  ['badstatus', '[invalid bearer token, json: cannot unmarshal string into Go struct field TokenReview.status of type v1beta1.TokenReviewStatus]', 1],
  ['notjson', '[invalid bearer token, couldn\'t get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }]', 1],
];

for (const [i, [kind, error, attempts]] of REFUSED.entries()) {
  test(`refused (${i}) ${kind}: TokenReview error, calls, 401 Status`, async () => {
    const token = tok(kind);
    assert.equal(await review({ token }), { user: {}, error }, `case ${i}`);
    assert.is(peer.callsFor(token).length, attempts, `case ${i}: calls`);
    const r = await tokenClient(token).request('GET', '/version');
    assert.is(r.status, 401, `case ${i}`);
    assert.equal(r.json, UNAUTHORIZED, `case ${i}`);
  });
}

test('caches: a rejection kept for the webhook TTL, errors never, a success also by the 10 s outer cache', async () => {
  const rejected = tok('unknown');
  const c = tokenClient(rejected);
  for (let i = 0; i < 3; i++) assert.is((await c.request('GET', '/version')).status, 401);
  assert.is(peer.callsFor(rejected).length, 1, 'rejection cached');
  await sleep(CACHE_TTL_MS + 500);
  assert.is((await c.request('GET', '/version')).status, 401);
  assert.is(peer.callsFor(rejected).length, 2, 'asked again after the webhook TTL');
  const failing = tok('error');
  const e = tokenClient(failing);
  for (let i = 0; i < 3; i++) assert.is((await e.request('GET', '/version')).status, 401);
  assert.is(peer.callsFor(failing).length, 3, 'errors are not cached');
  const good = tok('good');
  const g = tokenClient(good);
  for (let i = 0; i < 3; i++) assert.is((await g.request('GET', '/api/v1/namespaces')).status, 403);
  await sleep(CACHE_TTL_MS + 500);
  assert.is((await g.request('GET', '/api/v1/namespaces')).status, 403);
  assert.is(peer.callsFor(good).length, 1, 'a success outlives the webhook TTL in the 10 s cache');
});

test.run();
