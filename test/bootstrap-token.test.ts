/**
 * Bootstrap tokens end to end over HTTPS (--enable-bootstrap-token-auth): real Secrets in
 * kube-system, tokens used by a raw client and by `kubectl --token`, RBAC on their groups, the
 * websocket bearer subprotocol, the tokencleaner deleting expired token Secrets (also those that
 * expired while the server was down), and the flag's absence. TokenReview's answers and the
 * 401/403 bodies are compared with kube-apiserver in test/fidelity/tokenreview.test.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, startTestServer, tempDir, type Client, type TestServer } from './harness.ts';

let s: TestServer;
let dir: string;
const clients: Client[] = [];

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');
const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Create a bootstrap-token Secret in kube-system through the API; returns its token and name. */
async function createToken(server: TestServer, fields: Record<string, string> = {}, opts: { type?: string; namespace?: string } = {}): Promise<{ id: string; token: string; name: string }> {
  const id = randomId(6);
  const secret = randomId(16);
  const name = `bootstrap-token-${id}`;
  const r = await server.client.request('POST', `/api/v1/namespaces/${opts.namespace ?? 'kube-system'}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type: opts.type ?? 'bootstrap.kubernetes.io/token', stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...fields } },
  });
  assert.is(r.status, 201, r.text);
  return { id, token: `${id}.${secret}`, name };
}

function tokenClient(server: TestServer, token: string): Client {
  const x = agentClient(server.url, new Agent({ connect: { ca: server.server.pki.caCertPem } }), { authorization: `Bearer ${token}` });
  clients.push(x);
  return x;
}

const secretStatus = async (server: TestServer, name: string, namespace = 'kube-system'): Promise<number> => (await server.client.request('GET', `/api/v1/namespaces/${namespace}/secrets/${name}`)).status;

/** Poll until the Secret is gone (or the deadline passes); returns its last status. */
async function waitGone(server: TestServer, name: string, ms: number): Promise<number> {
  const deadline = Date.now() + ms;
  let st = await secretStatus(server, name);
  while (st !== 404 && Date.now() < deadline) {
    await sleep(100);
    st = await secretStatus(server, name);
  }
  return st;
}

test.before(async () => {
  dir = tempDir('bootstrap-token-');
  s = await startTestServer({ dataDir: join(dir, 'data'), tokenAuth: { enableBootstrapTokenAuth: true } });
});

test.after(async () => {
  for (const c of clients) await c.close();
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a bootstrap token authenticates as system:bootstrap:<id>; RBAC on its extra group applies', async () => {
  const group = 'system:bootstrappers:readers';
  const tok = await createToken(s, { 'auth-extra-groups': group });
  const c = tokenClient(s, tok.token);
  const denied = await c.request('GET', '/api/v1/namespaces/default/configmaps');
  assert.is(denied.status, 403);
  assert.is(denied.json.message, `configmaps is forbidden: User "system:bootstrap:${tok.id}" cannot list resource "configmaps" in API group "" in the namespace "default"`);
  const b = await s.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bootstrap-readers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }] },
  });
  assert.is(b.status, 201, b.text);
  assert.is((await c.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  // The same token as a websocket bearer subprotocol (kube's second token authenticator).
  const ws = agentClient(s.url, new Agent({ connect: { ca: s.server.pki.caCertPem } }), { 'sec-websocket-protocol': `base64url.bearer.authorization.k8s.io.${Buffer.from(tok.token).toString('base64url')}` });
  clients.push(ws);
  assert.is((await ws.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
});

test('kubectl --token=<id>.<secret>', async () => {
  const group = 'system:bootstrappers:kubectl';
  const tok = await createToken(s, { 'auth-extra-groups': group });
  const b = await s.client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'bootstrap-kubectl' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }] },
  });
  assert.is(b.status, 201, b.text);
  const caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, s.server.pki.caCertPem);
  const kubectl = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile('kubectl', ['--kubeconfig', '/dev/null', '--server', s.url, '--certificate-authority', caFile, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  const ok = await kubectl([`--token=${tok.token}`, 'get', 'configmap', 'kube-root-ca.crt', '-n', 'default', '-o', 'jsonpath={.metadata.name}']);
  assert.is(ok.code, 0, ok.stderr);
  assert.is(ok.stdout, 'kube-root-ca.crt');
  const write = await kubectl([`--token=${tok.token}`, 'create', 'configmap', 'nope', '-n', 'default']);
  assert.is(write.code, 1);
  assert.match(write.stderr, new RegExp(`User "system:bootstrap:${tok.id}" cannot create resource "configmaps"`));
  const bad = await kubectl([`--token=${tok.id}.${randomId(16)}`, 'get', 'configmaps']);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  // The admin reviews the token with kubectl (client-side validation reads the served OpenAPI).
  const file = join(dir, 'review.yaml');
  writeFileSync(file, `apiVersion: authentication.k8s.io/v1\nkind: TokenReview\nspec:\n  token: ${tok.token}\n`);
  const reviewed = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('kubectl', ['--kubeconfig', join(s.dataDir, 'kubeconfig'), 'create', '-f', file, '-o', 'jsonpath={.status.authenticated} {.status.user.username} {.status.user.groups}'], { timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
  });
  assert.is(reviewed.code, 0, reviewed.stderr);
  assert.is(reviewed.stdout, `true system:bootstrap:${tok.id} ["system:bootstrappers","system:bootstrappers:kubectl","system:authenticated"]`);
});

test('tokencleaner: expired, soon-expiring and unparseable tokens are deleted; others stay', async () => {
  const expired = await createToken(s, { expiration: '2020-01-01T00:00:00Z' });
  const garbled = await createToken(s, { expiration: 'next tuesday' });
  const soon = await createToken(s, { expiration: rfc3339(Date.now() + 2000) });
  const forever = await createToken(s);
  const later = await createToken(s, { expiration: rfc3339(Date.now() + 3600_000) });
  const opaque = await createToken(s, { expiration: '2020-01-01T00:00:00Z' }, { type: 'Opaque' });
  const elsewhere = await createToken(s, { expiration: '2020-01-01T00:00:00Z' }, { namespace: 'default' });
  assert.is(await waitGone(s, expired.name, 3000), 404, 'expired');
  assert.is(await waitGone(s, garbled.name, 3000), 404, 'unparseable expiration');
  // Valid until it expires, then refused and deleted.
  assert.is((await tokenClient(s, soon.token).request('GET', '/version')).status, 200);
  assert.is(await waitGone(s, soon.name, 6000), 404, 'expired while the server ran');
  for (const [what, name, ns] of [['no expiration', forever.name, 'kube-system'], ['future expiration', later.name, 'kube-system'], ['not a bootstrap token', opaque.name, 'kube-system'], ['another namespace', elsewhere.name, 'default']] as const) {
    assert.is(await secretStatus(s, name, ns), 200, what);
  }
});

test('tokencleaner: an expiration extended before it passes keeps the Secret', async () => {
  const tok = await createToken(s, { expiration: rfc3339(Date.now() + 1500) });
  const p = await s.client.request('PATCH', `/api/v1/namespaces/kube-system/secrets/${tok.name}`, {
    raw: JSON.stringify({ stringData: { expiration: rfc3339(Date.now() + 3600_000) } }),
    contentType: 'application/merge-patch+json',
  });
  assert.is(p.status, 200, p.text);
  await sleep(2500);
  assert.is(await secretStatus(s, tok.name), 200);
  assert.is((await tokenClient(s, tok.token).request('GET', '/version')).status, 200);
});

test('tokencleaner: a token that expired while the server was down is deleted at the next start', async () => {
  const dataDir = join(dir, 'restart');
  const first = await startTestServer({ dataDir, tokenAuth: { enableBootstrapTokenAuth: true } });
  let tok;
  try {
    tok = await createToken(first, { expiration: rfc3339(Date.now() + 1500) });
  } finally {
    await first.close();
  }
  await sleep(2000);
  const second = await startTestServer({ dataDir, tokenAuth: { enableBootstrapTokenAuth: true } });
  try {
    assert.is(await waitGone(second, tok.name, 3000), 404);
  } finally {
    await second.close();
  }
});

test('without --enable-bootstrap-token-auth: tokens are 401 and expired Secrets stay', async () => {
  const plain = await startTestServer({});
  try {
    const tok = await createToken(plain, { expiration: '2020-01-01T00:00:00Z' });
    const live = await createToken(plain);
    const r = await tokenClient(plain, live.token).request('GET', '/version');
    assert.is(r.status, 401);
    await sleep(500);
    assert.is(await secretStatus(plain, tok.name), 200);
  } finally {
    await plain.close();
  }
});

test.run();
