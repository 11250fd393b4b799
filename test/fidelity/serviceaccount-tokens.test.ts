/**
 * ServiceAccount tokens as kube-apiserver 1.24 issues and accepts them, on this server and on the
 * reference (started with its --service-account-* flags; see ../shared/reference/start.sh):
 * TokenRequest (serviceaccounts/token) answers and validation messages, `kubectl create token`,
 * tokens used as bearer tokens under RBAC, revocation when the account or the bound Pod/Secret
 * goes, expired / tampered / wrong-audience / wrong-issuer / foreign-key tokens → 401, the issuer
 * discovery documents and a token verified with jose against the published JWKS, and legacy token
 * Secrets (filled by the tokens controller; the reference has no controller-manager).
 *
 * Forged tokens are signed with the target's own signing key, `<kubeconfig dir>/pki/sa.key` on
 * both (this server generates it there; the reference's start.sh writes it there).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dirname, join } from 'node:path';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { generateKeyPairSync } from 'node:crypto';
import { Agent } from 'undici';
import { SignJWT, createLocalJWKSet, jwtVerify, decodeJwt } from 'jose';
import { agentClient, eventually, type Client } from '../harness.ts';
import { readKubeconfig, startTarget, type Target } from '../target.ts';
import { kubectlFor, type Kubectl } from '../kubectl-run.ts';
import { keyId, privateKeyFromFile } from '../../internal/auth/serviceaccount/keys.ts';

let t: Target;
let ns: string;
let kubectl: Kubectl;
const clients: Client[] = [];
const SA = 'robot';
const tmpDirs: string[] = [];

/** A client presenting no certificate and, when given, a bearer token. */
function bearer(token?: string): Client {
  const k = readKubeconfig(t.kubeconfig);
  const c = agentClient(k.server, new Agent({ connect: { ca: k.ca } }), token ? { authorization: `Bearer ${token}` } : {});
  clients.push(c);
  return c;
}

const tokenPath = (name = SA, namespace = ns) => `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`;

async function requestToken(body: unknown, name = SA): Promise<string> {
  const r = await t.client.request('POST', tokenPath(name), { body });
  assert.is(r.status, 201, r.text);
  return r.json.status.token as string;
}

async function create(path: string, body: unknown): Promise<any> {
  const r = await t.client.request('POST', path, { body });
  assert.is(r.status, 201, `${path}: ${r.text}`);
  return r.json;
}

/** Status code of a namespaced list with this token. */
async function listWith(token: string): Promise<number> {
  return (await bearer(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status;
}

const unauthorizedBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

/**
 * The token is refused with kube's 401 body. A token that authenticated before may be refused only
 * after a while (kube's token union caches successes for 10 s, and so does this server's): polled.
 */
async function expect401(token: string, what: string, revoked = false): Promise<void> {
  let r = await bearer(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  if (revoked) {
    await eventually(`${what}: 401`, async () => (r = await bearer(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status === 401, 20_000);
  }
  assert.is(r.status, 401, `${what}: ${r.text}`);
  assert.equal(r.json, unauthorizedBody, what);
}

/** The list answers `code` with this token (polled on the reference, whose RBAC cache follows a watch). */
async function expectList(token: string, code: number, what: string): Promise<void> {
  if (t.reference) await eventually(`${what}: ${code}`, async () => (await listWith(token)) === code);
  assert.is(await listWith(token), code, what);
}

let issuer: string;
let signingKeyFile: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('satoken');
  kubectl = kubectlFor(t.kubeconfig);
  signingKeyFile = join(dirname(t.kubeconfig), 'pki', 'sa.key');
  await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } });
  const d = await t.client.request('GET', '/.well-known/openid-configuration');
  assert.is(d.status, 200, d.text);
  issuer = d.json.issuer;
});

test.after(async () => {
  for (const c of clients) await c.close();
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('discovery: openid-configuration and JWKS as kube serves them; a token verifies with jose against the JWKS', async () => {
  const d = await t.client.request('GET', '/.well-known/openid-configuration');
  assert.is(d.headers['content-type'], 'application/json');
  assert.is(d.headers['cache-control'], 'public, max-age=3600');
  assert.equal(Object.keys(d.json), ['issuer', 'jwks_uri', 'response_types_supported', 'subject_types_supported', 'id_token_signing_alg_values_supported']);
  assert.is(d.json.jwks_uri, `${t.url}/openid/v1/jwks`);
  assert.equal(d.json.response_types_supported, ['id_token']);
  assert.equal(d.json.subject_types_supported, ['public']);
  assert.equal(d.json.id_token_signing_alg_values_supported, ['RS256']);
  assert.ok(!d.text.endsWith('\n'), 'pre-rendered bytes, no trailing newline');

  const k = await t.client.request('GET', '/openid/v1/jwks', { headers: { accept: '*/*' } });
  assert.is(k.status, 200);
  assert.is(k.headers['content-type'], 'application/jwk-set+json');
  assert.is(k.headers['cache-control'], 'public, max-age=3600');
  const key = k.json.keys[0];
  assert.equal(Object.keys(key), ['use', 'kty', 'kid', 'alg', 'n', 'e']);
  assert.is(key.use, 'sig');
  assert.is(key.alg, 'RS256');
  assert.is(key.kid, keyId(privateKeyFromFile(signingKeyFile)), 'kid = base64url(sha256(PKIX DER))');

  const token = await requestToken({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'] } });
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(k.json), { issuer: d.json.issuer, audience: 'vault' });
  assert.equal(protectedHeader, { alg: 'RS256', kid: key.kid });
  assert.is(payload.sub, `system:serviceaccount:${ns}:${SA}`);
});

test('discovery: methods, Accept, trailing slash; anonymous is forbidden, service accounts may read it', async () => {
  for (const p of ['/.well-known/openid-configuration', '/openid/v1/jwks']) {
    const post = await t.client.request('POST', p, { body: {} });
    assert.is(post.status, 405, p);
    assert.is(post.json.message, 'the server does not allow this method on the requested resource');
    const yaml = await t.client.request('GET', p, { headers: { accept: 'application/yaml' } });
    assert.is(yaml.status, 406, p);
    assert.match(yaml.text, "message: '406: Not Acceptable'");
    assert.is((await t.client.request('GET', `${p}/`, { headers: { accept: '*/*' } })).status, 200, `${p}/`);
    const anon = await bearer().request('GET', p);
    assert.is(anon.status, 403, p);
    assert.is(anon.json.message, `forbidden: User "system:anonymous" cannot get path "${p}"`);
  }
  assert.is((await t.client.request('GET', '/openid/v1/jwks', { headers: { accept: 'application/json' } })).status, 406, 'the JWKS route produces application/jwk-set+json only');
  const token = await requestToken({});
  assert.is((await bearer(token).request('GET', '/openid/v1/jwks', { headers: { accept: 'application/jwk-set+json' } })).status, 200, 'system:service-account-issuer-discovery is bound to system:serviceaccounts');
});

test('discovery of /api/v1 lists serviceaccounts/token as kube does', async () => {
  const r = await t.client.request('GET', '/api/v1');
  assert.equal(
    r.json.resources.find((x: any) => x.name === 'serviceaccounts/token'),
    { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
  );
});

test('TokenRequest: defaults, echo and claims', async () => {
  const r = await t.client.request('POST', tokenPath(), { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' } });
  assert.is(r.status, 201, r.text);
  const body = r.json;
  assert.equal(Object.keys(body), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  assert.equal(Object.keys(body.metadata), ['name', 'namespace', 'creationTimestamp', 'managedFields']);
  assert.is(body.metadata.name, SA);
  assert.is(body.metadata.namespace, ns);
  assert.equal(body.metadata.managedFields.map((m: any) => [m.operation, m.apiVersion, m.fieldsV1, m.subresource]), [['Update', 'authentication.k8s.io/v1', { 'f:spec': { 'f:expirationSeconds': {} } }, 'token']]);
  assert.equal(body.spec, { audiences: [issuer], expirationSeconds: 3600, boundObjectRef: null });
  const claims = decodeJwt(body.status.token);
  assert.equal(Object.keys(claims), ['aud', 'exp', 'iat', 'iss', 'kubernetes.io', 'nbf', 'sub']);
  assert.is(claims.iss, issuer);
  assert.equal(claims.aud, [issuer]);
  assert.is(claims.exp! - claims.iat!, 3600);
  assert.is(claims.nbf, claims.iat);
  const sa = (await t.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/${SA}`)).json;
  assert.equal(claims['kubernetes.io'], { namespace: ns, serviceaccount: { name: SA, uid: sa.metadata.uid } });
  assert.is(Date.parse(body.status.expirationTimestamp) / 1000, claims.exp);
});

test('TokenRequest: client metadata echoed in ObjectMeta order; dry run issues a token too; only POST', async () => {
  const r = await t.client.request('POST', `${tokenPath()}?dryRun=All`, { body: { metadata: { labels: { a: 'b' }, annotations: { c: 'd' }, uid: 'u1', resourceVersion: '5', generateName: 'g' } } });
  assert.is(r.status, 201, r.text);
  assert.equal(Object.keys(r.json.metadata), ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'annotations', 'managedFields']);
  assert.equal([r.json.metadata.uid, r.json.metadata.resourceVersion, r.json.metadata.labels, r.json.metadata.annotations], ['u1', '5', { a: 'b' }, { c: 'd' }]);
  assert.ok(decodeJwt(r.json.status.token).sub);
  const bad = await t.client.request('POST', `${tokenPath()}?dryRun=Bogus`, { body: {} });
  assert.is(bad.status, 422);
  assert.is(bad.json.details.causes[0].message, 'Unsupported value: []string{"Bogus"}: supported values: "All"');
  for (const m of ['GET', 'PUT', 'DELETE']) {
    const x = await t.client.request(m, tokenPath(), m === 'PUT' ? { body: {} } : {});
    assert.is(x.status, 405, m);
    assert.is(x.json.reason, 'MethodNotAllowed', m);
  }
});

test('TokenRequest: NamespaceLifecycle refuses it in a terminating namespace; a missing namespace is its 404', async () => {
  const gone = await t.createNamespace('satoken-gone');
  await create(`/api/v1/namespaces/${gone}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } });
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${gone}`)).status, 200);
  const r = await t.client.request('POST', tokenPath(SA, gone), { body: {} });
  assert.equal(r.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `serviceaccounts "${SA}" is forbidden: unable to create new content in namespace ${gone} because it is being terminated`,
    reason: 'Forbidden',
    details: { name: SA, kind: 'serviceaccounts', causes: [{ reason: 'NamespaceTerminating', message: `namespace ${gone} is being terminated`, field: 'metadata.namespace' }] },
    code: 403,
  });
  const missing = await t.client.request('POST', tokenPath(SA, 'satoken-no-such-namespace'), { body: {} });
  assert.is(missing.status, 404);
  assert.is(missing.json.message, 'namespaces "satoken-no-such-namespace" not found');
});

test('TokenRequest in Protobuf (as kubelet sends it): the answer decodes, and posted back as a request it is one', async () => {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const { request } = await import('undici');
    const first = await request(`${t.url}${tokenPath()}`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', accept: 'application/vnd.kubernetes.protobuf' }, body: JSON.stringify({ spec: { audiences: ['pb-aud'], expirationSeconds: 900 } }) });
    assert.is(first.statusCode, 201);
    assert.is(first.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const pb = Buffer.from(await first.body.arrayBuffer());
    assert.equal([...pb.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'kube\'s protobuf envelope');
    assert.ok(pb.includes(Buffer.from('authentication.k8s.io/v1')) && pb.includes(Buffer.from('TokenRequest')));
    const again = await request(`${t.url}${tokenPath()}`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' }, body: pb });
    const body = (await again.body.json()) as any;
    assert.is(again.statusCode, 201, JSON.stringify(body));
    assert.equal(body.spec, { audiences: ['pb-aud'], expirationSeconds: 900, boundObjectRef: null });
    assert.equal(decodeJwt(body.status.token).aud, ['pb-aud']);
  } finally {
    await agent.close();
  }
});

/** Requests whose answers must match kube's byte for byte (Status bodies). */
const errorCases: { name: string; body: unknown; sa?: string; code: number; message: (ns: string) => string; details?: (ns: string) => unknown }[] = [
  { name: 'expiration below 10 minutes', body: { spec: { expirationSeconds: 599 } }, code: 422, message: () => 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes' },
  { name: 'expiration 0', body: { spec: { expirationSeconds: 0 } }, code: 422, message: () => 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 0: may not specify a duration less than 10 minutes' },
  { name: 'expiration above 2^32', body: { spec: { expirationSeconds: 5000000000 } }, code: 422, message: () => 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 5000000000: may not specify a duration larger than 2^32 seconds' },
  { name: 'expiration of the wrong type', body: { spec: { expirationSeconds: 'x' } }, code: 400, message: () => 'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64' },
  { name: 'another name', body: { metadata: { name: 'other' } }, code: 422, message: () => `TokenRequest.authentication.k8s.io "${SA}" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified` },
  { name: 'another namespace', body: { metadata: { namespace: 'kube-system' } }, code: 400, message: () => 'the namespace of the provided object does not match the namespace sent on the request' },
  { name: 'bound to a ConfigMap', body: { spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } }, code: 400, message: () => 'cannot bind token to object of type /v1, Kind=ConfigMap' },
  { name: 'bound to an apps/v1 Pod', body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'apps/v1', name: 'x' } } }, code: 400, message: () => 'cannot bind token to object of type apps/v1, Kind=Pod' },
  { name: 'bound to no kind', body: { spec: { boundObjectRef: { name: 'x' } } }, code: 400, message: () => 'cannot bind token to object of type /, Kind=' },
  { name: 'bound to a missing Pod', body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'nope' } } }, code: 404, message: () => 'pods "nope" not found', details: () => ({ name: 'nope', kind: 'pods' }) },
  { name: 'bound to a missing Secret', body: { spec: { boundObjectRef: { kind: 'Secret', name: 'nope' } } }, code: 404, message: () => 'secrets "nope" not found', details: () => ({ name: 'nope', kind: 'secrets' }) },
  { name: 'missing account', sa: 'ghost', body: {}, code: 404, message: () => 'serviceaccounts "ghost" not found', details: () => ({ name: 'ghost', kind: 'serviceaccounts' }) },
  { name: 'another kind', body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' }, code: 400, message: () => 'TokenReview in version "v1" cannot be handled as a TokenRequest: converting (v1.TokenReview) to (authentication.TokenRequest): unknown conversion' },
];

errorCases.forEach((c, i) => {
  test(`TokenRequest error ${i}: ${c.name}`, async () => {
    const r = await t.client.request('POST', tokenPath(c.sa ?? SA), { body: c.body });
    assert.is(r.status, c.code, `case ${i}: ${r.text}`);
    assert.is(r.json.message, c.message(ns), `case ${i}`);
    assert.is(r.json.code, c.code, `case ${i}`);
    if (c.details) assert.equal(r.json.details, c.details(ns), `case ${i}`);
  });
});

test('TokenRequest: a 422 body is kube\'s', async () => {
  const r = await t.client.request('POST', tokenPath(), { body: { spec: { expirationSeconds: 10 } } });
  assert.equal(r.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
    reason: 'Invalid',
    details: { group: 'authentication.k8s.io', kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 10: may not specify a duration less than 10 minutes', field: 'spec.expirationSeconds' }] },
    code: 422,
  });
});

test('bound to a Pod: claims, wrong account, uid mismatch, revoked when the Pod goes', async () => {
  const pod = await create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { serviceAccountName: SA, containers: [{ name: 'c', image: 'busybox' }] } });
  await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'other' } });
  const wrong = await t.client.request('POST', tokenPath('other'), { body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } } });
  assert.is(wrong.status, 400);
  assert.is(wrong.json.message, 'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.');
  const stale = await t.client.request('POST', tokenPath(), { body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'not-the-uid' } } } });
  assert.is(stale.status, 409);
  assert.equal(stale.json, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Operation cannot be fulfilled on Pod "p": the UID in the bound object reference (not-the-uid) does not match the UID in record. The object might have been deleted and then recreated',
    reason: 'Conflict',
    details: { name: 'p', kind: 'Pod' },
    code: 409,
  });
  const r = await t.client.request('POST', tokenPath(), { body: { spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: pod.metadata.uid } } } });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.spec.boundObjectRef, { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: pod.metadata.uid });
  const token = r.json.status.token;
  const k8s = decodeJwt(token)['kubernetes.io'] as any;
  assert.equal(k8s.pod, { name: 'p', uid: pod.metadata.uid });
  assert.equal(Object.keys(k8s), ['namespace', 'pod', 'serviceaccount'], 'go-jose sorts nested claims too');
  assert.is(await listWith(token), 403, 'authenticated (RBAC denies)');
  // An unscheduled Pod is deleted at once; its tokens stop working.
  const del = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/p`);
  assert.is(del.status, 200, del.text);
  await eventually('the pod to be gone', async () => (await t.client.request('GET', `/api/v1/namespaces/${ns}/pods/p`)).status === 404);
  await expect401(token, 'token of a deleted pod', true);
});

test('bound to a scheduled Pod: its tokens outlive the graceful deletion period\'s start, and die with the Pod', async () => {
  await create(`/api/v1/namespaces/${ns}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'running' }, spec: { nodeName: 'node-1', serviceAccountName: SA, containers: [{ name: 'c', image: 'busybox' }] } });
  const token = await requestToken({ spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'running' } } });
  const del = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/running`);
  assert.is(del.status, 200, del.text);
  assert.ok(del.json.metadata.deletionTimestamp, 'a scheduled Pod is deleted gracefully');
  // kube refuses the token only once the Pod was marked deleted more than a minute ago.
  assert.is(await listWith(token), 403, 'still authenticated while the Pod terminates');
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${ns}/pods/running?gracePeriodSeconds=0`)).status, 200);
  await expect401(token, 'token of a force-deleted pod', true);
});

test('bound to a Secret: revoked when the Secret goes', async () => {
  const secret = await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'anchor' } });
  const token = await requestToken({ spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor' } } });
  assert.equal((decodeJwt(token)['kubernetes.io'] as any).secret, { name: 'anchor', uid: secret.metadata.uid });
  assert.is(await listWith(token), 403);
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/anchor`)).status, 200);
  await expect401(token, 'token of a deleted secret', true);
});

test('RBAC: the account gets what its bindings grant, on the next request', async () => {
  const token = await requestToken({});
  const denied = await bearer(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  assert.is(denied.status, 403);
  assert.is(denied.json.message, `configmaps is forbidden: User "system:serviceaccount:${ns}:${SA}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`);
  // A Role of its own: the aggregated `view` is empty on the reference (no aggregation controller there).
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'configmap-reader' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
  });
  await create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'robot-reader' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
    subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns }],
  });
  await expectList(token, 200, 'after the binding');
  const secrets = await bearer(token).request('GET', `/api/v1/namespaces/${ns}/secrets`);
  assert.is(secrets.status, 403, 'the Role does not grant Secrets');
  const other = await bearer(token).request('GET', '/api/v1/namespaces/default/configmaps');
  assert.is(other.status, 403, 'the binding is namespaced');
  const tr = await bearer(token).request('POST', tokenPath(), { body: {} });
  assert.is(tr.status, 403);
  assert.is(tr.json.message, `serviceaccounts "${SA}" is forbidden: User "system:serviceaccount:${ns}:${SA}" cannot create resource "serviceaccounts/token" in API group "" in the namespace "${ns}"`);
});

test('kubectl with the token as its only credential: RBAC answers for the account', async () => {
  const token = await requestToken({});
  const k = readKubeconfig(t.kubeconfig);
  const dir = mkdtempSync(join(tmpdir(), 'satoken-kc-'));
  tmpDirs.push(dir);
  const kc = join(dir, 'token.kubeconfig');
  writeFileSync(kc, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${k.server}\n    certificate-authority-data: ${Buffer.from(k.ca).toString('base64')}\nusers:\n- name: sa\n  user:\n    token: ${token}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: sa\n    namespace: ${ns}\ncurrent-context: x\n`);
  const asSa = kubectlFor(kc);
  await eventually('the RoleBinding to apply', async () => (await asSa.run('get', 'configmaps', '-o', 'name')).code === 0);
  const denied = await asSa.run('get', 'secrets');
  assert.is(denied.code, 1);
  assert.match(denied.stderr, `Error from server (Forbidden): secrets is forbidden: User "system:serviceaccount:${ns}:${SA}" cannot list resource "secrets" in API group "" in the namespace "${ns}"`);
  assert.is((await asSa.ok('auth', 'can-i', 'list', 'configmaps')).trim(), 'yes');
  const no = await asSa.run('auth', 'can-i', 'create', 'serviceaccounts', '--subresource=token');
  assert.is(no.stdout.trim(), 'no');
  const expired = kubectlFor(kc.replace('token.kubeconfig', 'bad.kubeconfig'));
  writeFileSync(kc.replace('token.kubeconfig', 'bad.kubeconfig'), readFileSync(kc, 'utf8').replace(token, `${token.slice(0, -4)}AAAA`));
  const bad = await expired.run('get', 'configmaps');
  assert.is(bad.code, 1);
  assert.match(bad.stderr, 'error: You must be logged in to the server (the server has asked for the client to provide credentials)');
});

test('kubectl create token: --audience, --duration, --bound-object-kind', async () => {
  const plain = (await kubectl.ok('create', 'token', SA, '-n', ns)).trim();
  assert.is(decodeJwt(plain).sub, `system:serviceaccount:${ns}:${SA}`);
  const custom = decodeJwt((await kubectl.ok('create', 'token', SA, '-n', ns, '--audience', 'a', '--audience', 'b', '--duration', '20m')).trim());
  assert.equal(custom.aud, ['a', 'b']);
  assert.is(custom.exp! - custom.iat!, 1200);
  const short = await kubectl.run('create', 'token', SA, '-n', ns, '--duration', '5m');
  assert.is(short.code, 1);
  assert.match(short.stderr, 'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes');
  await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kubectl-anchor' } });
  const bound = decodeJwt((await kubectl.ok('create', 'token', SA, '-n', ns, '--bound-object-kind', 'Secret', '--bound-object-name', 'kubectl-anchor')).trim());
  assert.is((bound['kubernetes.io'] as any).secret.name, 'kubectl-anchor');
  const missing = await kubectl.run('create', 'token', SA, '-n', ns, '--bound-object-kind', 'Pod', '--bound-object-name', 'nope');
  assert.match(missing.stderr, 'pods "nope" not found');
});

test('401: wrong audience, tampered, expired, not yet valid, wrong issuer, foreign key, revoked account', async () => {
  const other = await requestToken({ spec: { audiences: ['somebody-else'] } });
  await expect401(other, 'wrong audience');
  const good = await requestToken({});
  await expectList(good, 200, 'bound by the RoleBinding');
  const [h, p, s] = good.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: `system:serviceaccount:${ns}:admin` })).toString('base64url');
  await expect401(`${h}.${forged}.${s}`, 'tampered payload');
  await expect401(`${h}.${p}.${s.slice(0, -4)}AAAA`, 'tampered signature');

  const key = privateKeyFromFile(signingKeyFile);
  const sign = (c: Record<string, unknown>, k = key) => new SignJWT(c).setProtectedHeader({ alg: 'RS256', kid: keyId(k) }).sign(k);
  const now = Math.floor(Date.now() / 1000);
  assert.is(await listWith(await sign({ ...claims, iat: now, nbf: now, exp: now + 600 })), 200, 'a token signed with the key and valid claims is accepted');
  await expect401(await sign({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 }), 'expired');
  await expect401(await sign({ ...claims, iat: now + 3600, nbf: now + 3600, exp: now + 7200 }), 'not yet valid');
  await expect401(await sign({ ...claims, iss: 'https://evil.example' }), 'wrong issuer');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await expect401(await sign(claims, privateKey), 'signed with a key the server does not know');
  await expect401(await new SignJWT(claims).setProtectedHeader({ alg: 'none' } as any).sign(key).catch(() => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`), 'alg none');

  // The account deleted (and re-created under the same name: another uid) → its tokens are dead.
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/${SA}`)).status, 200);
  await expect401(good, 'token of a deleted account', true);
  await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: SA } });
  await expect401(good, 'token of a previous account of the same name');
  assert.is(await listWith(await requestToken({})), 200, 'the new account works');
});

test('legacy token Secret: filled by the tokens controller, usable, revoked with the Secret or the account', async () => {
  await create(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'legacy' } });
  const sa = (await t.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/legacy`)).json;
  assert.is(sa.secrets, undefined, '1.24 (LegacyServiceAccountTokenNoAutoGeneration) generates no token Secret');
  await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy-token', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' });
  if (t.reference) return; // no kube-controller-manager there: nothing fills the Secret
  let secret: any;
  await eventually('the token Secret to be filled', async () => {
    secret = (await t.client.request('GET', `/api/v1/namespaces/${ns}/secrets/legacy-token`)).json;
    return Boolean(secret.data?.token);
  });
  assert.equal(Object.keys(secret.data).sort(), ['ca.crt', 'namespace', 'token']);
  assert.is(Buffer.from(secret.data.namespace, 'base64').toString(), ns);
  assert.match(Buffer.from(secret.data['ca.crt'], 'base64').toString(), '-----BEGIN CERTIFICATE-----');
  assert.is(secret.metadata.annotations['kubernetes.io/service-account.uid'], sa.metadata.uid);
  const token = Buffer.from(secret.data.token, 'base64').toString();
  const claims = decodeJwt(token);
  assert.equal(claims, {
    iss: 'kubernetes/serviceaccount',
    'kubernetes.io/serviceaccount/namespace': ns,
    'kubernetes.io/serviceaccount/secret.name': 'legacy-token',
    'kubernetes.io/serviceaccount/service-account.name': 'legacy',
    'kubernetes.io/serviceaccount/service-account.uid': sa.metadata.uid,
    sub: `system:serviceaccount:${ns}:legacy`,
  });
  assert.is(await listWith(token), 403, 'authenticated as the account');
  const denied = await bearer(token).request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  assert.match(denied.json.message, `User "system:serviceaccount:${ns}:legacy"`);

  // Secret rewritten with another token → the old one no longer matches the server's copy.
  const changed = { ...secret, data: { ...secret.data, token: Buffer.from('not-a-token').toString('base64') } };
  assert.is((await t.client.request('PUT', `/api/v1/namespaces/${ns}/secrets/legacy-token`, { body: changed })).status, 200);
  await expect401(token, 'legacy token no longer in its Secret', true);

  // A second token Secret, then the account deleted: the Secret goes with it.
  await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'legacy-token-2', annotations: { 'kubernetes.io/service-account.name': 'legacy' } }, type: 'kubernetes.io/service-account-token' });
  let token2 = '';
  await eventually('the second token Secret to be filled', async () => {
    const s2 = (await t.client.request('GET', `/api/v1/namespaces/${ns}/secrets/legacy-token-2`)).json;
    token2 = s2.data?.token ? Buffer.from(s2.data.token, 'base64').toString() : '';
    return token2 !== '';
  });
  assert.is(await listWith(token2), 403);
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/legacy`)).status, 200);
  await eventually('the token Secrets of the deleted account to be deleted', async () => (await t.client.request('GET', `/api/v1/namespaces/${ns}/secrets/legacy-token-2`)).status === 404);
  await expect401(token2, 'legacy token of a deleted account', true);

  // A token Secret for an account that does not exist is deleted.
  await create(`/api/v1/namespaces/${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'orphan-token', annotations: { 'kubernetes.io/service-account.name': 'nobody' } }, type: 'kubernetes.io/service-account-token' });
  await eventually('the orphan token Secret to be deleted', async () => (await t.client.request('GET', `/api/v1/namespaces/${ns}/secrets/orphan-token`)).status === 404);
});

test.run();
