/**
 * OpenID Connect authentication (`--oidc-*`) against a REAL provider: `oidc-provider` on
 * 127.0.0.1 over TLS with a test CA (test/oidc-provider.ts), issuing id_tokens through its
 * authorization-code flow. The server under test runs with
 *
 *   --oidc-issuer-url=<provider> --oidc-client-id=kube --oidc-ca-file=<provider CA>
 *   --oidc-username-claim=email --oidc-username-prefix=oidc: --oidc-groups-claim=groups
 *   --oidc-groups-prefix=oidc: --oidc-required-claim=tenant=acme          (RS256 only, the default)
 *
 * and is started BEFORE the provider listens (kube discovers the provider in the background and
 * refuses its tokens until then). The same file runs against the reference kube-apiserver 1.24
 * started with the same flags against the same provider (a fixed port and CA directory):
 *
 *   node --import tsx -e "await (await import('./internal/auth/pki.ts')).ensurePki('/tmp/oidc-ref-pki')"
 *   EXTRA_APISERVER_FLAGS="--oidc-issuer-url=https://127.0.0.1:16454 --oidc-client-id=kube \
 *     --oidc-ca-file=/tmp/oidc-ref-pki/ca.crt --oidc-username-claim=email --oidc-username-prefix=oidc: \
 *     --oidc-groups-claim=groups --oidc-groups-prefix=oidc: --oidc-required-claim=tenant=acme" \
 *     ../shared/reference/start.sh /tmp/ref-oidc 16453
 *   TEST_KUBECONFIG=/tmp/ref-oidc/kubeconfig OIDC_PROVIDER_PORT=16454 OIDC_PROVIDER_DIR=/tmp/oidc-ref-pki \
 *     node --import tsx test/run.ts test/oidc.test.ts
 *
 * Every token refused must get kube's plain 401 Status; the resulting user is read from what
 * RBAC lets it do, from SelfSubjectAccessReview/SelfSubjectRulesReview, from the user name in 403
 * messages and from `kubectl --token … auth can-i`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, startTestServer, type Client, type HttpResult } from './harness.ts';
import { readKubeconfig, startTarget, type Target } from './target.ts';
import { createTestProvider, type TestProvider } from './oidc-provider.ts';
import { oidcConfigFromFlags, type OidcFlags } from '../internal/auth/oidc-claims.ts';
import { kubectlFor, kubectlVersion } from './kubectl-run.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

if (process.env.TEST_KUBECONFIG && !(process.env.OIDC_PROVIDER_PORT && process.env.OIDC_PROVIDER_DIR)) {
  throw new Error('against an external cluster this suite needs OIDC_PROVIDER_PORT and OIDC_PROVIDER_DIR: the port and CA directory of the provider the cluster was started with (see the header of this file)');
}
const tmp = mkdtempSync(join(tmpdir(), 'oidc-test-'));
const providerDir = process.env.OIDC_PROVIDER_DIR ?? join(tmp, 'provider-pki');
let provider: TestProvider;
let t: Target;
let ns: string;
let startedAt = 0;

/** The flags of the server under test (and of the reference), for `provider`. */
function serverFlags(p: TestProvider): OidcFlags {
  return {
    issuerUrl: p.issuer,
    clientId: 'kube',
    caFile: p.caFile,
    usernameClaim: 'email',
    usernamePrefix: 'oidc:',
    groupsClaim: 'groups',
    groupsPrefix: 'oidc:',
    signingAlgs: ['RS256'],
    requiredClaims: { tenant: 'acme' },
  };
}

const clients: Client[] = [];
function tokenClient(token: string, target: { kubeconfig: string } = t): Client {
  const k = readKubeconfig(target.kubeconfig);
  const c = agentClient(k.server, new Agent({ connect: { ca: k.ca } }), { authorization: `Bearer ${token}` });
  clients.push(c);
  return c;
}

const listConfigMaps = (token: string): Promise<HttpResult> => tokenClient(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`);

async function assertUnauthorized(token: string, what: string): Promise<void> {
  const r = await listConfigMaps(token);
  assert.is(r.status, 401, `${what}: ${r.text.slice(0, 300)}`);
  assert.equal(r.json, UNAUTHORIZED, what);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  provider = await createTestProvider(providerDir, Number(process.env.OIDC_PROVIDER_PORT ?? 0));
  provider.accounts.set('alice', { email: 'alice@example.com', email_verified: true, groups: ['devs', 'ops'], tenant: 'acme' });
  // A groups claim may be one string; email_verified may be absent.
  provider.accounts.set('carol', { email: 'carol@example.com', groups: 'devs', tenant: 'acme' });
  provider.accounts.set('dave', { email: 'dave@example.com', email_verified: false, groups: ['devs'], tenant: 'acme' });
  provider.accounts.set('grace', { email: 'grace@example.com', email_verified: 'true', groups: ['devs'], tenant: 'acme' });
  provider.accounts.set('erin', { email: 'erin@example.com', email_verified: true, groups: ['devs'] });
  // henry's groups are a distributed claim: the endpoint answers with henry-groups' id_token.
  provider.accounts.set('henry', { email: 'henry@example.com', email_verified: true, tenant: 'acme', ...provider.distributedGroups('henry-groups') });
  provider.accounts.set('henry-groups', { groups: ['devs'] });
  provider.accounts.set('ivan', { email: 'ivan@example.com', email_verified: true, tenant: 'acme', ...provider.distributedGroups('nobody') });
  provider.accounts.set('frank', { email: 'frank@example.com', email_verified: true, groups: ['devs'], tenant: 'other' });
  startedAt = Date.now();
  t = await startTarget({ oidc: oidcConfigFromFlags(serverFlags(provider))! });
  ns = await t.createNamespace('oidc');
  const post = async (path: string, body: unknown) => {
    const r = await t.client.request('POST', path, { body });
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  };
  await post(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] });
  await post(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'devs' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'oidc:devs' }] });
  await post(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] });
  await post(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'alice' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secret-reader' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'oidc:alice@example.com' }] });
});

test.after(async () => {
  for (const c of clients) await c.close();
  await t?.close();
  await provider?.close();
  rmSync(tmp, { recursive: true, force: true });
});

test('the server starts while the provider is down; its tokens are refused until discovery succeeds, then accepted', async () => {
  await provider.listen();
  const token = await provider.idToken('alice');
  if (!t.reference) {
    // Our server tried discovery once at start (refused: nothing listened) and retries every
    // 10 s, so right now the provider is up but not yet known. (The reference was started long
    // before this run: where its 10 s retry cycle stands is unknown, so this is ours only.)
    assert.ok(Date.now() - startedAt < 9_000, 'set-up took too long to see the not-yet-initialized state');
    await assertUnauthorized(token, 'before discovery');
  }
  let r: HttpResult | undefined;
  const deadline = Date.now() + 25_000;
  while (Date.now() < deadline) {
    r = await listConfigMaps(token);
    if (r.status === 200) break;
    assert.is(r.status, 401, r.text);
    await sleep(500);
  }
  assert.is(r?.status, 200, `never accepted: ${r?.text}`);
});

test('a valid id_token: the prefixed user and groups (plus system:authenticated) are what RBAC sees', async () => {
  const token = await provider.idToken('alice');
  const c = tokenClient(token);
  assert.is((await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status, 200); // via Group oidc:devs
  assert.is((await c.request('GET', `/api/v1/namespaces/${ns}/secrets`)).status, 200); // via User oidc:alice@example.com
  const pods = await c.request('GET', `/api/v1/namespaces/${ns}/pods`);
  assert.is(pods.status, 403);
  assert.equal(pods.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `pods is forbidden: User "oidc:alice@example.com" cannot list resource "pods" in API group "" in the namespace "${ns}"`,
    reason: 'Forbidden',
    details: { kind: 'pods' },
    code: 403,
  });
  const ssar = async (resource: string, verb: string) => {
    const r = await c.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: ns, verb, resource } } } });
    assert.is(r.status, 201, r.text);
    return r.json.status;
  };
  assert.equal(await ssar('configmaps', 'list'), { allowed: true, reason: `RBAC: allowed by RoleBinding "devs/${ns}" of Role "cm-reader" to Group "oidc:devs"` });
  assert.equal(await ssar('secrets', 'list'), { allowed: true, reason: `RBAC: allowed by RoleBinding "alice/${ns}" of Role "secret-reader" to User "oidc:alice@example.com"` });
  assert.equal(await ssar('pods', 'list'), { allowed: false });
  // The rules review: the two roles' rules plus what system:authenticated gets cluster-wide.
  const rules = await c.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } } });
  assert.is(rules.status, 201, rules.text);
  const resourceRules = rules.json.status.resourceRules as { verbs: string[]; resources?: string[] }[];
  assert.ok(resourceRules.some((x) => x.resources?.includes('configmaps') && x.verbs.includes('list')), JSON.stringify(resourceRules));
  assert.ok(resourceRules.some((x) => x.resources?.includes('secrets') && x.verbs.includes('list')), JSON.stringify(resourceRules));
  assert.ok(resourceRules.some((x) => x.resources?.includes('selfsubjectaccessreviews')), 'system:authenticated (system:basic-user) rules are missing');
});

test('a groups claim given as one string is one group; an absent email_verified is no objection', async () => {
  const c = tokenClient(await provider.idToken('carol'));
  assert.is((await c.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status, 200);
  const secrets = await c.request('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.is(secrets.status, 403);
  assert.is(secrets.json.message, `secrets is forbidden: User "oidc:carol@example.com" cannot list resource "secrets" in API group "" in the namespace "${ns}"`);
});

test('distributed groups claim (_claim_names/_claim_sources): resolved from its endpoint, whose JWT is verified; an endpoint that fails → 401', async () => {
  const token = await provider.idToken('henry');
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
  assert.is(claims.groups, undefined);
  assert.equal(claims._claim_names, { groups: 'src1' });
  // kube starts discovering the endpoint JWT's issuer on first use and races it against that
  // first lookup (which then usually fails: 401); ours waits for that first attempt. So poll.
  let r: HttpResult | undefined;
  for (let i = 0; i < 10; i++) {
    r = await listConfigMaps(token);
    if (r.status === 200) break;
    assert.is(r.status, 401, r.text.slice(0, 300));
    await sleep(500);
  }
  assert.is(r?.status, 200, 'groups from the distributed claim (oidc:devs) should grant the list');
  const secrets = await tokenClient(token).request('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.is(secrets.status, 403);
  assert.is(secrets.json.message, `secrets is forbidden: User "oidc:henry@example.com" cannot list resource "secrets" in API group "" in the namespace "${ns}"`);
  // The endpoint answers 500 for an unknown holder: the claim cannot be resolved.
  await assertUnauthorized(await provider.idToken('ivan'), 'distributed claim endpoint failing');
});

test('kubectl --token=<id_token> works (auth can-i, get)', async () => {
  if (!(await kubectlVersion())) {
    assert.ok(!(process.env.CI === 'true' || process.env.CI === '1'), 'kubectl is required under CI=true');
    return;
  }
  const k = readKubeconfig(t.kubeconfig);
  const kc = join(tmp, 'token.kubeconfig');
  writeFileSync(kc, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${k.server}\n    certificate-authority-data: ${Buffer.from(k.ca).toString('base64')}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
  const kubectl = kubectlFor(kc);
  const token = await provider.idToken('alice');
  assert.is((await kubectl.ok(`--token=${token}`, 'auth', 'can-i', 'list', 'configmaps', '-n', ns)).trim(), 'yes');
  const no = await kubectl.run(`--token=${token}`, 'auth', 'can-i', 'list', 'pods', '-n', ns);
  assert.is(no.code, 1);
  assert.is(no.stdout.trim(), 'no');
  assert.match(await kubectl.ok(`--token=${token}`, 'get', 'configmaps', '-n', ns, '-o', 'name'), /^(configmap\/kube-root-ca\.crt\n)?$/);
  const bad = await kubectl.run('--token=not-a-token', 'get', 'configmaps', '-n', ns);
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /Unauthorized|provide credentials/);
});

test('an expired id_token → 401', async () => {
  provider.idTokenTtl = 1;
  let token: string;
  try {
    token = await provider.idToken('alice');
  } finally {
    provider.idTokenTtl = 600;
  }
  const exp = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp as number;
  await sleep(Math.max(0, exp * 1000 - Date.now()) + 1_100);
  await assertUnauthorized(token, 'expired');
});

test('an id_token for another client (audience) → 401', async () => {
  await assertUnauthorized(await provider.idToken('alice', 'other'), 'wrong audience');
});

test('an id_token of another issuer → 401', async () => {
  const other = await createTestProvider(providerDir);
  try {
    other.accounts.set('alice', provider.accounts.get('alice')!);
    await other.listen();
    await assertUnauthorized(await other.idToken('alice'), 'wrong issuer');
  } finally {
    await other.close();
  }
});

test('a tampered id_token (claims changed, signature kept) → 401; a bearer token that is no JWT → 401', async () => {
  const [h, p, s] = (await provider.idToken('carol')).split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  claims.groups = ['devs', 'admins'];
  await assertUnauthorized(`${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`, 'tampered payload');
  await assertUnauthorized(`${h}.${p}.${s.slice(0, -4)}AAAA`, 'tampered signature');
  await assertUnauthorized('not-a-jwt', 'garbage');
});

test('an id_token signed with an algorithm not in --oidc-signing-algs (ES256 vs RS256) → 401', async () => {
  provider.reconfigure({ kubeAlg: 'ES256' });
  let token: string;
  try {
    token = await provider.idToken('alice');
  } finally {
    provider.reconfigure({ kubeAlg: 'RS256' });
  }
  assert.is(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).alg, 'ES256');
  await assertUnauthorized(token, 'ES256');
});

test('a required claim missing or with another value → 401', async () => {
  await assertUnauthorized(await provider.idToken('erin'), 'tenant missing');
  await assertUnauthorized(await provider.idToken('frank'), 'tenant=other');
});

test('username claim email: email_verified false (or not a boolean) → 401', async () => {
  await assertUnauthorized(await provider.idToken('dave'), 'email_verified false');
  await assertUnauthorized(await provider.idToken('grace'), 'email_verified "true"');
});

test('key rotation at the provider: tokens signed by the new key are accepted without a restart; the retired key is no longer trusted', async () => {
  const before = provider.kids();
  const oldToken = await provider.idToken('carol'); // never presented before the rotation
  provider.reconfigure({ rotateKeys: true });
  assert.not.equal(provider.kids(), before);
  const newToken = await provider.idToken('carol');
  assert.is(JSON.parse(Buffer.from(newToken.split('.')[0]!, 'base64url').toString()).kid, provider.kids()[0]);
  assert.is((await listConfigMaps(newToken)).status, 200);
  await assertUnauthorized(oldToken, 'token of the retired key');
});

test('the provider down after discovery: tokens signed by keys already fetched are still accepted, unknown keys refused', async () => {
  const known = await provider.idToken('carol'); // signed by the key the server fetched in the rotation test
  provider.reconfigure({ rotateKeys: true });
  const unknown = await provider.idToken('carol'); // a key the server has never seen
  await provider.stop();
  try {
    assert.is((await listConfigMaps(known)).status, 200);
    await assertUnauthorized(unknown, 'unknown key while the provider is down');
  } finally {
    await provider.listen();
  }
  // Back up: the unknown key is fetched on its next use.
  assert.is((await listConfigMaps(await provider.idToken('carol'))).status, 200);
});

test('defaults: --oidc-username-claim=sub without a prefix → "<issuer>#<sub>", no groups claim → only system:authenticated', async () => {
  if (t.reference) return; // the reference runs with one set of flags: the defaults are checked on ours only
  const s = await startTestServer({ oidc: oidcConfigFromFlags({ ...serverFlags(provider), usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', requiredClaims: {} })! });
  try {
    const c = tokenClient(await provider.idToken('alice'), { kubeconfig: join(s.dataDir, 'kubeconfig') });
    let r: HttpResult;
    const deadline = Date.now() + 5_000;
    do {
      r = await c.request('GET', '/api/v1/namespaces/default/pods');
      if (r.status !== 401) break;
      await sleep(100); // discovery is asynchronous even when the provider is up
    } while (Date.now() < deadline);
    assert.is(r.status, 403, r.text);
    assert.is(r.json.message, `pods is forbidden: User "${provider.issuer}#alice" cannot list resource "pods" in API group "" in the namespace "default"`);
  } finally {
    await s.close();
  }
});

test.run();
