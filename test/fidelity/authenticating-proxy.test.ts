/**
 * The authenticating proxy (kube's requestheader authenticator) as kube-apiserver 1.24 serves it,
 * on this server and on the reference started with the same flags:
 *
 *   --requestheader-client-ca-file=<dir>/ca.crt --requestheader-allowed-names=front-proxy,aggregator
 *   --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group
 *   --requestheader-extra-headers-prefix=X-Remote-Extra-
 *
 * Against the reference, TEST_REQUESTHEADER_CA_DIR names <dir> (its ca.crt and ca.key sign the
 * proxy certificates here, with openssl):
 *
 *   openssl req -x509 -newkey rsa:2048 -nodes -keyout $D/ca.key -out $D/ca.crt -days 3650 -subj /CN=front-proxy-ca
 *   EXTRA_APISERVER_FLAGS="--requestheader-client-ca-file=$D/ca.crt …" ../shared/reference/start.sh /tmp/ref 16443
 *   TEST_REQUESTHEADER_CA_DIR=$D TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/authenticating-proxy.test.ts
 *
 * (without it only the client-CA case runs there: a reference without those flags cannot answer the rest).
 * Locally the suite makes its own proxy CA and starts this server with the flags.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { TargetUsers, type CertPair } from '../target-users.ts';
import { kubectlFor } from '../kubectl-run.ts';
import { createCertificateAuthority, issueCertificate } from '../../internal/auth/certificates.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const external = Boolean(process.env.TEST_KUBECONFIG);
const caDir = process.env.TEST_REQUESTHEADER_CA_DIR;
const runnable = !external || Boolean(caDir);
const it = runnable ? test : test.skip;
if (!runnable) console.log('proxy cases skipped: the reference needs the requestheader flags and TEST_REQUESTHEADER_CA_DIR (see the file header)');

const FLAGS = { allowedNames: ['front-proxy', 'aggregator'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'] };
const tmp = mkdtempSync(join(tmpdir(), 'proxy-test-'));
let localCa: CertPair | undefined;
let t: Target;
let users: TargetUsers;
let ns: string;

/** A proxy (client) certificate with CN `cn`, signed by the requestheader CA. */
async function proxyCert(cn: string): Promise<CertPair> {
  if (localCa) return issueCertificate(localCa, { cn });
  const base = join(tmp, cn);
  writeFileSync(`${base}.ext`, 'extendedKeyUsage=clientAuth\n');
  execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}`], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', join(caDir!, 'ca.crt'), '-CAkey', join(caDir!, 'ca.key'), '-CAcreateserial', '-days', '1', '-extfile', `${base}.ext`, '-out', `${base}.crt`], { stdio: 'ignore' });
  return { certPem: readFileSync(`${base}.crt`, 'utf8'), keyPem: readFileSync(`${base}.key`, 'utf8') };
}

const forbiddenBody = (message: string, details: Record<string, string>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
const unauthorizedBody = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

test.before(async () => {
  if (!external) {
    localCa = await createCertificateAuthority('front-proxy-ca');
    writeFileSync(join(tmp, 'ca.crt'), localCa.certPem);
  }
  t = await startTarget(external ? {} : { requestHeader: { clientCaFile: join(tmp, 'ca.crt'), ...FLAGS } });
  users = new TargetUsers(t);
  ns = await t.createNamespace('proxy');
});

test.after(async () => {
  await users.close();
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

it('a verified proxy names the user and groups; RBAC decides for them', async () => {
  const alice = t.ns('alice');
  const group = `${t.ns('g2')}, g3`; // one header line is one group, commas and all
  const proxy = users.client(await proxyCert('front-proxy'));
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const headers = { 'X-Remote-User': alice, 'X-Remote-Group': group, 'X-Remote-Extra-Scopes': 'a' };
  const before = await proxy.request('GET', pods, { headers });
  assert.equal(before.json, forbiddenBody(`pods is forbidden: User "${alice}" cannot list resource "pods" in API group "" in the namespace "${ns}"`, { kind: 'pods' }));
  await t.client.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'pods' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] } });
  const rb = await t.client.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: { metadata: { name: 'pods' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: group }] } });
  assert.is(rb.status, 201, rb.text);
  const after = await proxy.request('GET', pods, { headers });
  assert.is(after.status, 200, after.text);
  // Header names are case-insensitive; the second allowed name works too.
  const other = users.client(await proxyCert('aggregator'));
  assert.is((await other.request('GET', pods, { headers: { 'x-remote-user': alice, 'x-remote-group': group } })).status, 200);
  // The user is system:authenticated: kube's basic-user role lets it review itself.
  const review = await proxy.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { headers: { 'X-Remote-User': alice, 'X-Remote-Group': group }, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: ns, verb: 'list', resource: 'pods' } } } });
  assert.is(review.status, 201, review.text);
  assert.is(review.json.status.allowed, true);
});

it('the proxied user can impersonate only what RBAC grants it', async () => {
  const proxy = users.client(await proxyCert('front-proxy'));
  const r = await proxy.request('GET', `/api/v1/namespaces/${ns}/pods`, { headers: { 'X-Remote-User': 'proxied-user', 'Impersonate-User': 'bob' } });
  assert.equal(r.json, forbiddenBody('users "bob" is forbidden: User "proxied-user" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'bob', kind: 'users' }));
  // kube's message sanitizer escapes & < > in the sentence it writes, not in the name before it.
  const odd = await proxy.request('GET', `/api/v1/namespaces/${ns}/pods`, { headers: { 'X-Remote-User': 'a<b&c', 'Impersonate-User': 'x>y' } });
  assert.equal(odd.json, forbiddenBody('users "x>y" is forbidden: User "a&lt;b&amp;c" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'x>y', kind: 'users' }));
});

it('a proxy certificate without a username header, or with a CN not allowed, is 401', async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const proxy = users.client(await proxyCert('front-proxy'));
  const none = await proxy.request('GET', pods);
  assert.is(none.status, 401);
  assert.equal(none.json, unauthorizedBody);
  const stranger = users.client(await proxyCert('not-allowed'));
  const r = await stranger.request('GET', pods, { headers: { 'X-Remote-User': 'alice' } });
  assert.equal(r.json, unauthorizedBody);
  // Go clients send a certificate only when the server asks for its CA: kubectl presenting a proxy
  // certificate gets the 401 (an unsent certificate would have been an anonymous 403).
  const k = kubectlFor(users.kubeconfig('front-proxy', await proxyCert('front-proxy')));
  const out = await k.run('get', 'pods', '-n', ns);
  assert.is(out.code, 1);
  assert.match(out.stderr, /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)/, out.stderr);
});

it('headers from an ordinary client certificate or from no certificate are ignored', async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const plain = t.ns('plain');
  const client = users.client(await users.cert(plain));
  const r = await client.request('GET', pods, { headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' } });
  assert.equal(r.json, forbiddenBody(`pods is forbidden: User "${plain}" cannot list resource "pods" in API group "" in the namespace "${ns}"`, { kind: 'pods' }));
  const anon = await users.client().request('GET', pods, { headers: { 'X-Remote-User': 'alice', 'X-Remote-Group': 'system:masters' } });
  assert.equal(anon.json, forbiddenBody(`pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "${ns}"`, { kind: 'pods' }));
});

test('kube-system/extension-apiserver-authentication publishes the client CA (with or without a proxy)', async () => {
  const r = await t.client.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  assert.is(r.status, 200, r.text);
  const data = r.json.data as Record<string, string>;
  const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  // The admin kubeconfig's CA signs the client certificates on both servers.
  assert.ok(data['client-ca-file']!.includes(der(readKubeconfig(t.kubeconfig).ca).slice(0, 64)), 'client CA published');
  assert.match(data['client-ca-file']!, /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/=]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n/);
});

it('kube-system/extension-apiserver-authentication publishes the proxy trust', async () => {
  const r = await t.client.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  assert.is(r.status, 200, r.text);
  const data = r.json.data as Record<string, string>;
  assert.equal(Object.keys(data).sort(), ['client-ca-file', 'requestheader-allowed-names', 'requestheader-client-ca-file', 'requestheader-extra-headers-prefix', 'requestheader-group-headers', 'requestheader-username-headers']);
  assert.is(data['requestheader-allowed-names'], '["front-proxy","aggregator"]');
  assert.is(data['requestheader-username-headers'], '["X-Remote-User"]');
  assert.is(data['requestheader-group-headers'], '["X-Remote-Group"]');
  assert.is(data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  const proxyCaPem = localCa?.certPem ?? readFileSync(join(caDir!, 'ca.crt'), 'utf8');
  assert.ok(data['requestheader-client-ca-file']!.includes(der(proxyCaPem).slice(0, 64)), 'proxy CA published');
});

test.run();
