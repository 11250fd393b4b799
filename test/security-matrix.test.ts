/**
 * Security matrix (issue 13): every kind of identity the server authenticates × verbs × resources
 * (Secrets included) × namespaces, each request sent over HTTPS as its client would send it, and
 * its answer compared with what an independent model of the granted RBAC rules expects. Writes go
 * with `dryRun=All` — the same authorization as the real request, and the fixtures stay. The
 * test fails on any unexpected allow (the security property) and on any unexpected deny (the
 * grants must work), and reports every mismatch at once.
 *
 * The server runs as a child process (its log captured) with an audit log at
 * RequestResponse for everything; afterwards the Secret's value must appear in neither, nor in
 * any response but an allowed read of Secrets.
 *
 * The model is deliberately not RBAC code: a grant is (subject, namespace or all, resources, verbs),
 * and the bindings the test creates say exactly those grants through their own ClusterRoles.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'undici';
import { clientFor, agentClient, spawnServer, tempDir, type ChildServer, type Client } from './harness.ts';
import { ensurePki, issueClientCert, readCaKey } from '../internal/auth/pki.ts';
import { createCertificateAuthority, issueCertificate } from '../internal/auth/certificates.ts';
import { createTestProvider, type TestProvider } from './oidc-provider.ts';
import { startWebhookPeer, type WebhookPeer } from './token-webhook-peer.ts';

const SECRET_VALUE = 'matrix-secret-value-7f3c9a1e';
const SECRET_B64 = Buffer.from(SECRET_VALUE).toString('base64');
const NS_A = 'matrix-a';
const NS_B = 'matrix-b';
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;
type Verb = (typeof VERBS)[number];
const NAMESPACED = ['configmaps', 'secrets', 'serviceaccounts'] as const;
type Resource = (typeof NAMESPACED)[number] | 'namespaces';

/** A subject of a grant: a user name or a group. */
type Subject = { user: string } | { group: string };

interface Grant {
  subject: Subject;
  /** A namespace (RoleBinding), or '*' for every namespace (ClusterRoleBinding). */
  namespace: string;
  resources: Resource[];
  verbs: Verb[];
}

interface Identity {
  name: string;
  username: string;
  groups: string[];
  /** system:masters: everything is allowed. */
  admin?: boolean;
  /** What a 403 says this identity cannot do, when not the request's own verb (impersonation refused). */
  cannot?: string;
  /** Nothing is allowed (a refused impersonation): the model is not asked. */
  deniedAll?: boolean;
  client: Client;
}

const READ: Verb[] = ['get', 'list', 'watch'];
const ALL: Verb[] = [...VERBS];

/** What the test grants, through the RBAC objects made from it below. */
const GRANTS: Grant[] = [
  { subject: { user: 'alice' }, namespace: NS_A, resources: ['configmaps'], verbs: ALL },
  { subject: { user: 'alice' }, namespace: NS_B, resources: ['secrets'], verbs: READ },
  { subject: { group: 'team-b' }, namespace: '*', resources: ['namespaces'], verbs: READ },
  { subject: { group: 'team-b' }, namespace: NS_B, resources: ['configmaps', 'serviceaccounts'], verbs: ['get', 'list', 'create', 'update'] },
  { subject: { user: 'carol' }, namespace: '*', resources: ['secrets'], verbs: ['get', 'list'] },
  // A ServiceAccount by its username, and every account of NS_B by the namespace's group.
  { subject: { user: `system:serviceaccount:${NS_A}:robot` }, namespace: NS_A, resources: ['configmaps'], verbs: ['get', 'list', 'update'] },
  { subject: { group: `system:serviceaccounts:${NS_B}` }, namespace: NS_B, resources: ['serviceaccounts'], verbs: READ },
  { subject: { group: 'wh-group' }, namespace: NS_B, resources: ['secrets', 'configmaps'], verbs: ['get', 'create', 'patch'] },
  // OIDC users and groups carry the --oidc-*-prefix: the grants name them so.
  { subject: { group: 'oidc:ops' }, namespace: NS_A, resources: ['secrets', 'serviceaccounts'], verbs: ['get', 'list', 'watch', 'delete'] },
  { subject: { user: 'oidc:dana@example.com' }, namespace: NS_B, resources: ['configmaps'], verbs: ['patch', 'update'] },
  // The proxy's user: its own grant; its group header makes it a member of team-b as well.
  { subject: { user: 'paul' }, namespace: NS_A, resources: ['configmaps'], verbs: ['deletecollection', 'get'] },
  // Grants to names no identity has: a matcher that confuses prefixes or groups would allow them.
  { subject: { user: 'alice-evil' }, namespace: '*', resources: ['secrets'], verbs: ALL },
  { subject: { group: 'team' }, namespace: '*', resources: ['configmaps'], verbs: ALL },
  { subject: { group: 'ops' }, namespace: '*', resources: ['configmaps', 'secrets'], verbs: ALL },
  { subject: { user: 'dana@example.com' }, namespace: '*', resources: ['secrets'], verbs: ALL },
  // Bootstrap tokens: their extra group.
  { subject: { group: 'system:bootstrappers:matrix' }, namespace: NS_A, resources: ['configmaps', 'secrets'], verbs: READ },
];

function subjectMatches(s: Subject, id: Identity): boolean {
  return 'user' in s ? s.user === id.username : id.groups.includes(s.group);
}

/** The model: is `verb` on `resource` in `namespace` ('' = all namespaces / cluster scope) allowed? */
function expected(id: Identity, verb: Verb, resource: Resource, namespace: string): boolean {
  if (id.admin) return true;
  if (id.deniedAll) return false;
  return GRANTS.some(
    (g) => subjectMatches(g.subject, id) && g.resources.includes(resource) && g.verbs.includes(verb) && (g.namespace === '*' || (resource !== 'namespaces' && namespace !== '' && g.namespace === namespace)),
  );
}

let server: ChildServer;
let provider: TestProvider;
let tokenWebhook: WebhookPeer;
let dir: string;
let admin: Client;
let stderr = '';
const identities: Identity[] = [];
const extraClients: Client[] = [];

const AUDIT_POLICY = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n';

test.before(async () => {
  dir = tempDir('security-matrix-');
  writeFileSync(join(dir, 'tokens.csv'), 'alice-token-0123456789,alice,1001\nbob-token-0123456789,bob,1002,"team-b,other"\n');
  writeFileSync(join(dir, 'policy.yaml'), AUDIT_POLICY);
  // A real OpenID provider on loopback (TLS), issuing dana's id_token by the code flow.
  provider = await createTestProvider(join(dir, 'oidc-pki'));
  provider.accounts.set('dana', { email: 'dana@example.com', email_verified: true, groups: ['ops'] });
  await provider.listen();
  // A real token-review webhook (HTTPS, its own CA): tokens ending in -good are webhook-user of wh-group.
  tokenWebhook = await startWebhookPeer(join(dir, 'token-webhook'));
  // The authenticating proxy's own CA, and its client certificate.
  const proxyCa = await createCertificateAuthority('matrix-front-proxy-ca');
  writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.certPem);
  const proxyCert = await issueCertificate(proxyCa, { cn: 'front-proxy' });
  server = await spawnServer(join(dir, 'data'), 0, [
    '--token-auth-file', join(dir, 'tokens.csv'), '--enable-bootstrap-token-auth',
    '--audit-log-path', join(dir, 'audit.log'), '--audit-policy-file', join(dir, 'policy.yaml'),
    '--oidc-issuer-url', provider.issuer, '--oidc-client-id', 'kube', '--oidc-ca-file', provider.caFile,
    '--oidc-username-claim', 'email', '--oidc-username-prefix', 'oidc:', '--oidc-groups-claim', 'groups', '--oidc-groups-prefix', 'oidc:',
    '--requestheader-client-ca-file', join(dir, 'proxy-ca.crt'), '--requestheader-allowed-names', 'front-proxy',
    '--requestheader-username-headers', 'X-Remote-User', '--requestheader-group-headers', 'X-Remote-Group',
    '--authentication-token-webhook-config-file', tokenWebhook.kubeconfig, '--authentication-token-webhook-version', 'v1',
  ]);
  server.proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const pkiDir = join(dir, 'data', 'pki');
  admin = clientFor(server.url, pkiDir);
  const pki = await ensurePki(pkiDir);
  const caKey = await readCaKey(pki);
  const ca = readFileSync(join(pkiDir, 'ca.crt'), 'utf8');
  const headerClient = (headers: Record<string, string>, cert?: { certPem: string; keyPem: string }): Client => {
    const c = agentClient(server.url, new Agent({ connect: { ca, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) } }), headers);
    extraClients.push(c);
    return c;
  };
  const tokenClient = (token: string): Client => headerClient({ authorization: `Bearer ${token}` });
  const adminCert = { certPem: readFileSync(join(pkiDir, 'admin.crt'), 'utf8'), keyPem: readFileSync(join(pkiDir, 'admin.key'), 'utf8') };
  const oidc = tokenClient(await provider.idToken('dana'));
  // The OIDC authenticator discovers the provider in the background: wait until dana is known.
  for (let i = 0; ; i++) {
    const r = await oidc.request('GET', '/api/v1/namespaces/default/configmaps');
    if (r.status !== 401) break;
    if (i > 200) throw new Error(`the OIDC token is still refused: ${r.text}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  const carolCert = await issueClientCert(pki, caKey, 'carol', ['team-c']);
  const carol = clientFor(server.url, pkiDir, carolCert);
  const anonymous = clientFor(server.url, pkiDir, null);
  extraClients.push(carol, anonymous);
  identities.push(
    { name: 'admin certificate', username: 'admin', groups: ['system:masters'], admin: true, client: admin },
    { name: 'anonymous', username: 'system:anonymous', groups: ['system:unauthenticated'], client: anonymous },
    { name: 'token-file user', username: 'alice', groups: ['system:authenticated'], client: tokenClient('alice-token-0123456789') },
    { name: 'token-file user in a group', username: 'bob', groups: ['team-b', 'other', 'system:authenticated'], client: tokenClient('bob-token-0123456789') },
    { name: 'client-certificate user', username: 'carol', groups: ['team-c', 'system:authenticated'], client: carol },
    { name: 'OIDC user', username: 'oidc:dana@example.com', groups: ['oidc:ops', 'system:authenticated'], client: oidc },
    { name: 'authenticating-proxy user', username: 'paul', groups: ['team-b', 'system:authenticated'], client: headerClient({ 'X-Remote-User': 'paul', 'X-Remote-Group': 'team-b' }, proxyCert) },
    // Identity headers from a caller that is no trusted proxy are ignored: this is anonymous.
    { name: 'proxy headers without the proxy certificate', username: 'system:anonymous', groups: ['system:unauthenticated'], client: headerClient({ 'X-Remote-User': 'admin', 'X-Remote-Group': 'system:masters' }) },
    { name: 'webhook-token user', username: 'webhook-user', groups: ['wh-group', 'system:authenticated'], client: tokenClient('matrix-good') },
    // A token nobody accepts (the webhook says no) is a 401, never anonymous: asserted below.
    { name: 'admin impersonating alice', username: 'alice', groups: ['system:authenticated'], client: headerClient({ 'Impersonate-User': 'alice' }, adminCert) },
    { name: 'bob impersonating carol (no impersonate grant)', username: 'bob', groups: [], deniedAll: true, cannot: 'impersonate resource "users"', client: headerClient({ authorization: 'Bearer bob-token-0123456789', 'Impersonate-User': 'carol' }) },
  );
  await setUp();
  // A bootstrap token (its Secret made by the admin, as kubeadm does).
  await must(
    admin.request('POST', '/api/v1/namespaces/kube-system/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-mtx001' }, type: 'bootstrap.kubernetes.io/token', stringData: { 'token-id': 'mtx001', 'token-secret': 'matrixsecret0001', 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:matrix' } },
    }),
    'bootstrap token',
  );
  // A ServiceAccount's token from TokenRequest (what `kubectl create token` asks for).
  await must(admin.request('POST', `/api/v1/namespaces/${NS_A}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } }), 'robot');
  const tr = await admin.request('POST', `/api/v1/namespaces/${NS_A}/serviceaccounts/robot/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} } });
  if (tr.status !== 201) throw new Error(`TokenRequest: ${tr.status} ${tr.text}`);
  identities.push({ name: 'service account', username: `system:serviceaccount:${NS_A}:robot`, groups: ['system:serviceaccounts', `system:serviceaccounts:${NS_A}`, 'system:authenticated'], client: tokenClient(tr.json.status.token) });
  identities.push({ name: 'bootstrap token', username: 'system:bootstrap:mtx001', groups: ['system:bootstrappers', 'system:bootstrappers:matrix', 'system:authenticated'], client: tokenClient('mtx001.matrixsecret0001') });
});

test.after(async () => {
  for (const c of extraClients) await c.close().catch(() => undefined);
  await admin?.close();
  await server?.kill();
  await provider?.close().catch(() => undefined);
  await tokenWebhook?.close().catch(() => undefined);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function must(r: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const res = await r;
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${res.text}`);
}

/** Namespaces, fixtures, and the RBAC objects that say GRANTS. */
async function setUp(): Promise<void> {
  for (const ns of [NS_A, NS_B]) {
    await must(admin.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), `namespace ${ns}`);
    await must(admin.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fixture' }, data: { a: 'b' } } }), 'configmap');
    await must(admin.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fixture' }, stringData: { password: SECRET_VALUE } } }), 'secret');
    await must(admin.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'fixture' } } }), 'serviceaccount');
  }
  const RBAC = '/apis/rbac.authorization.k8s.io/v1';
  for (const [i, g] of GRANTS.entries()) {
    const role = `matrix-grant-${i}`;
    await must(admin.request('POST', `${RBAC}/clusterroles`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: [{ apiGroups: [''], resources: g.resources, verbs: g.verbs }] } }), role);
    const subject = 'user' in g.subject ? { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: g.subject.user } : { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: g.subject.group };
    const binding = { metadata: { name: role }, subjects: [subject], roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role } };
    if (g.namespace === '*') await must(admin.request('POST', `${RBAC}/clusterrolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', ...binding } }), `crb ${role}`);
    else await must(admin.request('POST', `${RBAC}/namespaces/${g.namespace}/rolebindings`, { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', ...binding } }), `rb ${role}`);
  }
}

interface Answer {
  status: number;
  text: string;
}

const KIND: Record<Resource, string> = { configmaps: 'ConfigMap', secrets: 'Secret', serviceaccounts: 'ServiceAccount', namespaces: 'Namespace' };

/** The request a client sends for `verb` (writes are dry runs). `namespace` '' = all namespaces. */
async function send(id: Identity, verb: Verb, resource: Resource, namespace: string): Promise<Answer> {
  const base = resource === 'namespaces' ? '/api/v1/namespaces' : namespace ? `/api/v1/namespaces/${namespace}/${resource}` : `/api/v1/${resource}`;
  const name = resource === 'namespaces' ? NS_A : 'fixture';
  const one = `${base}/${name}`;
  const dry = 'dryRun=All';
  const apiObject = (n: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: KIND[resource], metadata: { name: n, ...(resource === 'namespaces' ? {} : { namespace }) }, ...extra });
  switch (verb) {
    case 'get':
      return id.client.request('GET', one);
    case 'list':
      return id.client.request('GET', base);
    case 'watch':
      return watchStatus(id, `${base}?watch=1&timeoutSeconds=1`);
    case 'create':
      return id.client.request('POST', `${base}?${dry}`, { body: apiObject(`created-${resource}`) });
    case 'update': {
      // The current object, read by the admin: an update of it as the identity.
      const current = (await admin.request('GET', one)).json;
      return id.client.request('PUT', `${one}?${dry}`, { body: { ...current, metadata: { ...current.metadata, labels: { matrix: 'update' } } } });
    }
    case 'patch':
      return id.client.request('PATCH', `${one}?${dry}`, { body: { metadata: { labels: { matrix: 'patch' } } }, contentType: 'application/merge-patch+json' });
    case 'delete':
      return id.client.request('DELETE', `${one}?${dry}`);
    case 'deletecollection':
      return id.client.request('DELETE', `${base}?${dry}`);
  }
}

/** A watch's answer is its status line; the stream is dropped at once. */
async function watchStatus(id: Identity, path: string): Promise<Answer> {
  // The identity's client only answers whole bodies; a watch that is allowed ends by itself after
  // timeoutSeconds=1, so reading it whole costs a second per allowed watch at most.
  return id.client.request('GET', path);
}

interface Case {
  verb: Verb;
  resource: Resource;
  namespace: string;
}

function cases(): Case[] {
  const out: Case[] = [];
  for (const resource of NAMESPACED) {
    for (const namespace of [NS_A, NS_B]) for (const verb of VERBS) out.push({ verb, resource, namespace });
    // All namespaces: list and watch only (a write needs a namespace).
    for (const verb of ['list', 'watch'] as const) out.push({ verb, resource, namespace: '' });
  }
  for (const verb of VERBS) if (verb !== 'deletecollection') out.push({ verb, resource: 'namespaces', namespace: '' });
  return out;
}

const allAnswers: { id: Identity; c: Case; answer: Answer }[] = [];

test('identities × verbs × resources × namespaces: no unexpected allow, no unexpected deny', async () => {
  const mismatches: string[] = [];
  let allowed = 0;
  let denied = 0;
  for (const id of identities) {
    const list = cases();
    // A few requests in flight per identity: the order of the answers does not matter.
    const answers = await Promise.all(list.map((c) => send(id, c.verb, c.resource, c.namespace)));
    list.forEach((c, i) => {
      const answer = answers[i]!;
      allAnswers.push({ id, c, answer });
      const want = expected(id, c.verb, c.resource, c.namespace);
      const where = c.namespace ? ` in ${c.namespace}` : ' (all namespaces)';
      const label = `${id.name} ${c.verb} ${c.resource}${c.resource === 'namespaces' ? '' : where}`;
      const ok = answer.status >= 200 && answer.status < 300;
      if (want) {
        allowed++;
        if (!ok) mismatches.push(`unexpected deny: ${label} → ${answer.status} ${answer.text.slice(0, 200)}`);
      } else {
        denied++;
        if (answer.status !== 403) mismatches.push(`${ok ? 'UNEXPECTED ALLOW' : 'wrong status'}: ${label} → ${answer.status} ${answer.text.slice(0, 200)}`);
        else {
          const body = JSON.parse(answer.text);
          const cannot = `User "${id.username}" cannot ${id.cannot ?? c.verb}`;
          if (body.kind !== 'Status' || body.reason !== 'Forbidden' || !String(body.message).includes(cannot)) mismatches.push(`403 body: ${label} → ${answer.text}`);
        }
      }
    });
  }
  console.log(`security matrix: ${identities.length} identities, ${allowed + denied} requests, ${allowed} expected allowed, ${denied} expected denied, ${mismatches.length} mismatches`);
  assert.ok(allowed > 50 && denied > 100, `the matrix exercises both outcomes (${allowed} allowed, ${denied} denied)`);
  assert.equal(mismatches, [], mismatches.join('\n'));
});

test('credentials nobody accepts are 401 Status, never anonymous', async () => {
  const ca = readFileSync(join(dir, 'data', 'pki', 'ca.crt'), 'utf8');
  const unauthorized = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
  for (const token of ['matrix-error', 'matrix-unknown', 'alice-token-wrong', 'mtx001.wrongsecret000001', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln']) {
    const c = agentClient(server.url, new Agent({ connect: { ca } }), { authorization: `Bearer ${token}` });
    const r = await c.request('GET', `/api/v1/namespaces/${NS_A}/configmaps`);
    await c.close();
    assert.is(r.status, 401, token);
    assert.equal(r.json, unauthorized, token);
  }
});

test('the Secret value appears only in allowed reads of Secrets: not in other answers, the log, or the audit log', async () => {
  // The matrix ran, and the search can see the value where it belongs (an allowed read of a Secret).
  assert.ok(allAnswers.length > 0, 'the matrix test ran first');
  assert.ok(allAnswers.some(({ c, answer }) => c.resource === 'secrets' && c.verb === 'get' && answer.status === 200 && answer.text.includes(SECRET_B64)), 'an allowed get of a Secret carries its value');
  for (const { id, c, answer } of allAnswers) {
    if (!answer.text.includes(SECRET_B64) && !answer.text.includes(SECRET_VALUE)) continue;
    const legit = c.resource === 'secrets' && ['get', 'list', 'watch', 'update', 'patch', 'delete', 'deletecollection', 'create'].includes(c.verb) && answer.status < 300;
    assert.ok(legit, `${id.name} ${c.verb} ${c.resource} → ${answer.status} carries the secret value`);
  }
  // A Secret write that fails validation must not echo the value either.
  const bad = await admin.request('POST', `/api/v1/namespaces/${NS_A}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'Bad_Name' }, stringData: { 'bad key!': SECRET_VALUE } } });
  assert.is(bad.status, 422);
  assert.not.ok(bad.text.includes(SECRET_VALUE) || bad.text.includes(SECRET_B64), bad.text);
  await new Promise((r) => setTimeout(r, 300));
  const audit = readFileSync(join(dir, 'audit.log'), 'utf8');
  assert.ok(audit.includes('"resource":"secrets"'), 'secret requests were audited');
  assert.not.ok(audit.includes(SECRET_VALUE) || audit.includes(SECRET_B64), 'audit log holds the secret value');
  // What the server logged: the start-up lines the harness kept, and everything after.
  const log = server.logTail() + stderr;
  assert.ok(log.includes('API server ready'), 'the server log was captured');
  assert.not.ok(log.includes(SECRET_VALUE) || log.includes(SECRET_B64), 'server log holds the secret value');
});

test.run();
