/**
 * authentication.k8s.io/v1 TokenReview and bootstrap-token authentication, on both targets: the
 * reference must run with `--enable-bootstrap-token-auth` (its --service-account-issuer makes
 * `https://kubernetes.default.svc` its API audience; this server is given the same audience).
 *
 *   EXTRA_APISERVER_FLAGS=--enable-bootstrap-token-auth ../shared/reference/start.sh /tmp/ref 16443
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/tokenreview.test.ts
 *
 * Real bootstrap-token Secrets in kube-system, reviewed through TokenReview (whole 201 bodies:
 * user, groups, audiences, kube's "invalid bearer token") and used as bearer tokens (403/401
 * Status bodies), RBAC on tokenreviews (system:auth-delegator), discovery.
 *
 * kube caches a token's success for 10 s: every token here is used for the first time only once
 * its Secret is in its final state, so neither target answers from its cache.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { Agent, request as undiciRequest } from 'undici';
import { PROTOBUF, encodeProtobuf, decodeProtobuf } from '../../internal/http/protobuf.ts';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { agentClient, type Client } from '../harness.ts';

let t: Target;
let c: Client;
const tokenClients: Client[] = [];
const API_AUDIENCE = 'https://kubernetes.default.svc';
const GV = '/apis/authentication.k8s.io/v1';
const run = randomBytes(3).toString('hex');
const created: string[] = [];

test.before(async () => {
  t = await startTarget({ tokenAuth: { enableBootstrapTokenAuth: true, apiAudiences: [API_AUDIENCE] } });
  c = t.client;
});

test.after(async () => {
  for (const name of created) await c.request('DELETE', `/api/v1/namespaces/kube-system/secrets/${name}`);
  await c.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/tokenreview-delegator-${run}`);
  for (const x of tokenClients) await x.close();
  await t.close();
});

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const randomId = (n: number): string => Array.from(randomBytes(n), (b) => ALNUM[b % ALNUM.length]).join('');

interface BootstrapToken {
  id: string;
  secret: string;
  token: string;
  name: string;
}

/** A fresh bootstrap token and its Secret (fields given as stringData; `null` leaves one out). */
async function createToken(fields: Record<string, string | null> = {}, type = 'bootstrap.kubernetes.io/token', idOverride?: string): Promise<BootstrapToken> {
  const id = randomId(6);
  const secret = randomId(16);
  const data: Record<string, string> = {};
  const all: Record<string, string | null> = { 'token-id': idOverride ?? id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', ...fields };
  for (const [k, v] of Object.entries(all)) if (v !== null) data[k] = v;
  const name = `bootstrap-token-${id}`;
  const r = await c.request('POST', '/api/v1/namespaces/kube-system/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, type, stringData: data } });
  assert.is(r.status, 201, r.text);
  created.push(name);
  return { id, secret, token: `${id}.${secret}`, name };
}

/** POST a TokenReview as the admin; the body normalized (the token id becomes ID). */
async function review(spec: Record<string, unknown>, id = '', metadata?: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const r = await c.request('POST', `${GV}/tokenreviews`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', ...(metadata ? { metadata } : {}), spec }, headers: { 'user-agent': 'reviewer' } });
  return { status: r.status, body: normalize(r.json, id ? { [id]: 'ID' } : {}) };
}

/** A client that authenticates with `token` only (no client certificate). */
function tokenClient(token: string): Client {
  const x = agentClient(t.url, new Agent({ connect: { ca: readKubeconfig(t.kubeconfig).ca } }), { authorization: `Bearer ${token}` });
  tokenClients.push(x);
  return x;
}

const managed = (fields: Record<string, unknown>) => [{ manager: 'reviewer', operation: 'Update', apiVersion: 'authentication.k8s.io/v1', time: '<time>', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': fields } }];

const reviewBody = (spec: Record<string, unknown>, status: Record<string, unknown>, metadata: Record<string, unknown> = {}) => ({
  kind: 'TokenReview',
  apiVersion: 'authentication.k8s.io/v1',
  metadata: { ...metadata, creationTimestamp: null, managedFields: managed(Object.fromEntries(Object.keys(spec).map((k) => [`f:${k}`, {}]))) },
  spec,
  status,
});

const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };
const INVALID = { user: {}, error: 'invalid bearer token' };

test('discovery: tokenreviews, create only, cluster-scoped, no storage version hash', async () => {
  const l = await c.request('GET', GV);
  assert.is(l.status, 200);
  assert.equal(l.json, {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'authentication.k8s.io/v1',
    resources: [{ name: 'tokenreviews', singularName: '', namespaced: false, kind: 'TokenReview', verbs: ['create'] }],
  });
  const g = await c.request('GET', '/apis/authentication.k8s.io');
  assert.equal(g.json, {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'authentication.k8s.io',
    versions: [{ groupVersion: 'authentication.k8s.io/v1', version: 'v1' }],
    preferredVersion: { groupVersion: 'authentication.k8s.io/v1', version: 'v1' },
  });
  // In /apis, kube lists it right after events.k8s.io and before authorization.k8s.io.
  const groups = ((await c.request('GET', '/apis')).json.groups as { name: string }[]).map((x) => x.name);
  const at = groups.indexOf('authentication.k8s.io');
  assert.ok(at > 0);
  assert.is(groups[at + 1], 'authorization.k8s.io');
  assert.is(groups[at - 1], 'events.k8s.io');
});

test('a valid bootstrap token: user system:bootstrap:<id>, sorted groups, the API audience', async () => {
  const tok = await createToken({ 'auth-extra-groups': 'system:bootstrappers:zz,system:bootstrappers:aa-1,system:bootstrappers:zz', expiration: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z') });
  const r = await review({ token: tok.token }, tok.id);
  assert.is(r.status, 201);
  assert.equal(
    r.body,
    reviewBody(
      { token: `ID.${tok.secret}` },
      {
        authenticated: true,
        user: { username: 'system:bootstrap:ID', groups: ['system:bootstrappers', 'system:bootstrappers:aa-1', 'system:bootstrappers:zz', 'system:authenticated'] },
        audiences: [API_AUDIENCE],
      },
    ),
  );
  // Audiences asked for: only the server's own are answered for; none of them → not authenticated.
  const both = await review({ token: tok.token, audiences: ['other', API_AUDIENCE] }, tok.id);
  assert.equal((both.body as { status: unknown }).status, { authenticated: true, user: { username: 'system:bootstrap:ID', groups: ['system:bootstrappers', 'system:bootstrappers:aa-1', 'system:bootstrappers:zz', 'system:authenticated'] }, audiences: [API_AUDIENCE] });
  const other = await review({ token: tok.token, audiences: ['other'] }, tok.id);
  assert.equal(other.body, reviewBody({ token: `ID.${tok.secret}`, audiences: ['other'] }, INVALID));
  // The same token on a request: authenticated, then RBAC's 403 names the bootstrap user.
  const r2 = await tokenClient(tok.token).request('GET', '/api/v1/namespaces');
  assert.is(r2.status, 403);
  assert.equal(normalize(r2.json, { [tok.id]: 'ID' }), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'namespaces is forbidden: User "system:bootstrap:ID" cannot list resource "namespaces" in API group "" at the cluster scope',
    reason: 'Forbidden',
    details: { kind: 'namespaces' },
    code: 403,
  });
});

test('metadata: a name is echoed, a namespace dropped; a missing token is a 400', async () => {
  const tok = await createToken();
  const r = await review({ token: tok.token }, tok.id, { name: 'x', namespace: 'y', labels: { a: 'b' } });
  assert.is(r.status, 201);
  const body = r.body as { metadata: unknown; status: { authenticated: boolean } };
  const fields = { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } }, 'f:spec': { 'f:token': {} } };
  assert.equal(body.metadata, { name: 'x', creationTimestamp: null, labels: { a: 'b' }, managedFields: [{ ...managed({})[0], fieldsV1: fields }] });
  // Fields in Go order, as kube writes them.
  assert.equal(Object.keys(body.metadata as object), ['name', 'creationTimestamp', 'labels', 'managedFields']);
  assert.is(body.status.authenticated, true);
  const missing = await review({});
  assert.is(missing.status, 400);
  assert.equal(missing.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'token is required for TokenReview in authentication', reason: 'BadRequest', code: 400 });
});

test('decoding: wrong types are 400s, unknown fields dropped, a forged status overwritten as kube does', async () => {
  const badToken = await review({ token: 5 });
  assert.is(badToken.status, 400);
  assert.equal(badToken.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal number into Go struct field TokenReviewSpec.spec.token of type string',
    reason: 'BadRequest',
    code: 400,
  });
  const badAuds = await review({ token: 'x', audiences: 'a' });
  assert.is(badAuds.status, 400);
  assert.is((badAuds.body as { message: string }).message, 'TokenReview in version "v1" cannot be handled as a TokenReview: json: cannot unmarshal string into Go struct field TokenReviewSpec.spec.audiences of type []string');
  const unknown = await review({ token: 'x', bogus: 1 });
  assert.equal(unknown.body, reviewBody({ token: 'x' }, INVALID));
  // kube sets authenticated and error; a user it did not authenticate stays as the client sent it.
  const r = await c.request('POST', `${GV}/tokenreviews`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x' }, status: { authenticated: true, user: { username: 'forged' }, audiences: ['a'], error: 'e0' } },
  });
  assert.is(r.status, 201);
  assert.equal(r.json.status, { user: { username: 'forged' }, audiences: ['a'], error: 'invalid bearer token' });
  // Dry run answers the same; there is nothing to get.
  const dry = await c.request('POST', `${GV}/tokenreviews?dryRun=All`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x' } } });
  assert.is(dry.status, 201);
  assert.equal(dry.json.status, INVALID);
  const get = await c.request('GET', `${GV}/tokenreviews/x`);
  assert.is(get.status, 404);
});

test('protobuf in and out (client-go\'s delegated authentication speaks it), re-encoded byte for byte; YAML', async () => {
  const tok = await createToken({ 'auth-extra-groups': 'system:bootstrappers:pb' });
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const body = encodeProtobuf({ kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: {}, spec: { token: tok.token, audiences: ['other', API_AUDIENCE] } });
    const r = await undiciRequest(`${k.server}${GV}/tokenreviews`, { method: 'POST', headers: { accept: PROTOBUF, 'content-type': PROTOBUF, 'user-agent': 'reviewer' }, body, dispatcher: agent });
    const bytes = Buffer.from(await r.body.arrayBuffer());
    assert.is(r.statusCode, 201);
    assert.is(r.headers['content-type'], PROTOBUF);
    const got = decodeProtobuf(bytes).object;
    // Protobuf has no null: the zero creationTimestamp is simply absent.
    assert.equal(normalize(got, { [tok.id]: 'ID' }), {
      kind: 'TokenReview',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { managedFields: managed({ 'f:audiences': {}, 'f:token': {} }) },
      spec: { token: normalize(tok.token, { [tok.id]: 'ID' }), audiences: ['other', API_AUDIENCE] },
      status: { authenticated: true, user: { username: 'system:bootstrap:ID', groups: ['system:bootstrappers', 'system:bootstrappers:pb', 'system:authenticated'] }, audiences: [API_AUDIENCE] },
    });
    assert.is(encodeProtobuf(got).toString('hex'), bytes.toString('hex'));
  } finally {
    await agent.close();
  }
  const yaml = await c.request('POST', `${GV}/tokenreviews`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x' } }, headers: { accept: 'application/yaml' } });
  assert.is(yaml.status, 201);
  assert.match(yaml.text, /^apiVersion: authentication.k8s.io\/v1\nkind: TokenReview\nmetadata:\n  creationTimestamp: null\n/);
  assert.match(yaml.text, /\nspec:\n  token: x\nstatus:\n  error: invalid bearer token\n  user: \{\}\n$/);
});

/** Secrets that match a token's id but refuse it, each for one of kube's reasons. */
const REFUSALS: [string, () => Promise<{ token: string; id: string }>][] = [
  ['a wrong token-secret', async () => { const x = await createToken(); return { token: `${x.id}.${randomId(16)}`, id: x.id }; }],
  ['an expired token', () => createToken({ expiration: '2020-01-01T00:00:00Z' })],
  ['an unparseable expiration', () => createToken({ expiration: 'tomorrow' })],
  ['usage-bootstrap-authentication not "true"', () => createToken({ 'usage-bootstrap-authentication': 'yes' })],
  ['no usage-bootstrap-authentication', () => createToken({ 'usage-bootstrap-authentication': null })],
  ['an invalid extra group', () => createToken({ 'auth-extra-groups': 'system:bootstrappers:ok,system:masters' })],
  ['another Secret type', () => createToken({}, 'Opaque')],
  ['a token-id that differs from the name', () => createToken({}, 'bootstrap.kubernetes.io/token', 'zzzzzz')],
];

for (const [i, [what, make]] of REFUSALS.entries()) {
  test(`refused (${i}): ${what} → TokenReview unauthenticated, request 401`, async () => {
    const tok = await make();
    const r = await review({ token: tok.token }, tok.id);
    assert.is(r.status, 201, `case ${i}`);
    assert.equal((r.body as { status: unknown }).status, INVALID, `case ${i}`);
    const req = await tokenClient(tok.token).request('GET', '/api/v1/namespaces');
    assert.is(req.status, 401, `case ${i}`);
    assert.equal(req.json, UNAUTHORIZED, `case ${i}`);
  });
}

test('not bootstrap tokens at all: malformed, or no Secret', async () => {
  for (const token of ['not-a-token', `${randomId(6)}.${randomId(16)}`, `ABCDEF.${randomId(16)}`]) {
    const r = await review({ token });
    assert.equal((r.body as { status: unknown }).status, INVALID, token);
    const req = await tokenClient(token).request('GET', '/version');
    assert.is(req.status, 401, token);
    assert.equal(req.json, UNAUTHORIZED, token);
  }
});

test('a deleted Secret no longer authenticates its token', async () => {
  const tok = await createToken();
  const d = await c.request('DELETE', `/api/v1/namespaces/kube-system/secrets/${tok.name}`);
  assert.is(d.status, 200);
  const r = await review({ token: tok.token }, tok.id);
  assert.equal((r.body as { status: unknown }).status, INVALID);
  assert.is((await tokenClient(tok.token).request('GET', '/version')).status, 401);
});

test('a Secret being deleted (held by a finalizer) no longer authenticates its token', async () => {
  const tok = await createToken();
  const fin = await c.request('PATCH', `/api/v1/namespaces/kube-system/secrets/${tok.name}`, { raw: JSON.stringify({ metadata: { finalizers: ['example.com/hold'] } }), contentType: 'application/merge-patch+json' });
  assert.is(fin.status, 200, fin.text);
  try {
    const d = await c.request('DELETE', `/api/v1/namespaces/kube-system/secrets/${tok.name}`);
    assert.is(d.status, 200);
    assert.ok(d.json.metadata.deletionTimestamp);
    const r = await review({ token: tok.token }, tok.id);
    assert.equal((r.body as { status: unknown }).status, INVALID);
    assert.is((await tokenClient(tok.token).request('GET', '/version')).status, 401);
  } finally {
    await c.request('PATCH', `/api/v1/namespaces/kube-system/secrets/${tok.name}`, { raw: JSON.stringify({ metadata: { finalizers: null } }), contentType: 'application/merge-patch+json' });
  }
});

test('RBAC: creating a TokenReview needs `create tokenreviews` (system:auth-delegator)', async () => {
  const group = `system:bootstrappers:delegator-${run}`;
  const plain = await createToken();
  const delegate = await createToken({ 'auth-extra-groups': group });
  const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: plain.token } };
  const denied = await tokenClient(plain.token).request('POST', `${GV}/tokenreviews`, { body });
  assert.is(denied.status, 403);
  assert.equal(normalize(denied.json, { [plain.id]: 'ID' }), {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'tokenreviews.authentication.k8s.io is forbidden: User "system:bootstrap:ID" cannot create resource "tokenreviews" in API group "authentication.k8s.io" at the cluster scope',
    reason: 'Forbidden',
    details: { group: 'authentication.k8s.io', kind: 'tokenreviews' },
    code: 403,
  });
  const b = await c.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `tokenreview-delegator-${run}` }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:auth-delegator' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }] },
  });
  assert.is(b.status, 201, b.text);
  // The reference's RBAC authorizer follows its informer: allow it a moment to see the binding.
  let allowed;
  for (let i = 0; i < 50; i++) {
    allowed = await tokenClient(delegate.token).request('POST', `${GV}/tokenreviews`, { body });
    if (allowed.status !== 403) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.is(allowed!.status, 201, allowed!.text);
  assert.equal(normalize(allowed!.json.status, { [plain.id]: 'ID' }), { authenticated: true, user: { username: 'system:bootstrap:ID', groups: ['system:bootstrappers', 'system:authenticated'] }, audiences: [API_AUDIENCE] });
});

test.run();
