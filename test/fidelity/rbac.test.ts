/**
 * RBAC as kube-apiserver 1.24 enforces it (its default authorization here), on this server and on
 * the reference: anonymous requests see only what the bootstrap policy grants them, a user gets what
 * their bindings grant (on the next request after a binding changes), 403 bodies in kube's words,
 * escalation prevention (Roles granting more than the writer holds, bindings to roles the writer
 * lacks, the `escalate` and `bind` verbs), the aggregated `view` role, access reviews and
 * `kubectl auth can-i` with RBAC's reasons, immutable roleRef, Tables.
 *
 * Users are client certificates signed by the target's CA (the reference's via openssl).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Agent } from 'undici';
import { agentClient, type Client } from '../harness.ts';
import { readKubeconfig, startTarget, type Target } from '../target.ts';
import { ensurePki, issueClientCert, readCaKey } from '../../internal/auth/pki.ts';
import { kubectlFor } from '../kubectl-run.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let t: Target;
let ns: string;
const tmp = mkdtempSync(join(tmpdir(), 'rbac-test-'));
const clients: Client[] = [];

/** A client certificate for `user` signed by the target's CA. */
async function certFor(user: string, groups: string[]): Promise<{ certPem: string; keyPem: string }> {
  const pkiDir = join(dirname(t.kubeconfig), 'pki');
  if (!t.reference) {
    const pki = await ensurePki(pkiDir);
    return issueClientCert(pki, await readCaKey(pki), user, groups);
  }
  const base = join(tmp, user);
  const subj = `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`;
  execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subj], { stdio: 'ignore' });
  execFileSync('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', join(pkiDir, 'ca.crt'), '-CAkey', join(pkiDir, 'ca.key'), '-CAcreateserial', '-days', '1', '-out', `${base}.crt`], { stdio: 'ignore' });
  return { certPem: readFileSync(`${base}.crt`, 'utf8'), keyPem: readFileSync(`${base}.key`, 'utf8') };
}

function clientWith(cert?: { certPem: string; keyPem: string }): Client {
  const k = readKubeconfig(t.kubeconfig);
  const c = agentClient(k.server, new Agent({ connect: { ca: k.ca, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) } }));
  clients.push(c);
  return c;
}

/** A kubeconfig for `user` (for kubectl auth can-i). */
function kubeconfigWith(user: string, cert: { certPem: string; keyPem: string }): string {
  const k = readKubeconfig(t.kubeconfig);
  const f = join(tmp, `${user}.kubeconfig`);
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  writeFileSync(f, `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: ${k.server}\n    certificate-authority-data: ${b64(k.ca)}\nusers:\n- name: u\n  user:\n    client-certificate-data: ${b64(cert.certPem)}\n    client-key-data: ${b64(cert.keyPem)}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n`);
  return f;
}

const forbiddenBody = (message: string, details: Record<string, string>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('rbac');
});
test.after(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('anonymous: health and version allowed by the bootstrap policy, everything else 403', async () => {
  const anon = clientWith();
  const h = await anon.request('GET', '/healthz');
  assert.is(h.status, 200);
  assert.is(h.text, 'ok');
  assert.is((await anon.request('GET', '/version')).status, 200);
  assert.equal((await anon.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json, forbiddenBody(`configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`, { kind: 'configmaps' }));
  assert.equal((await anon.request('GET', '/metrics')).json, forbiddenBody('forbidden: User "system:anonymous" cannot get path "/metrics"', {}));
});

test('a user gets what a binding grants, from the next request on; 403 in kube words otherwise', async () => {
  const user = `alice-${ns}`;
  const alice = clientWith(await certFor(user, []));
  const CM = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await alice.request('GET', CM)).json, forbiddenBody(`configmaps is forbidden: User "${user}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`, { kind: 'configmaps' }));
  assert.is((await t.client.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] } })).status, 201);
  const rb = await t.client.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: { metadata: { name: 'alice-reads' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'User', name: user }] } });
  assert.is(rb.status, 201, rb.text);
  assert.equal(rb.json.subjects, [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: user }], 'subject apiGroup defaulted');
  assert.is((await alice.request('GET', CM)).status, 200);
  assert.equal((await alice.request('GET', `/api/v1/namespaces/${ns}/secrets`)).json, forbiddenBody(`secrets is forbidden: User "${user}" cannot list resource "secrets" in API group "" in the namespace "${ns}"`, { kind: 'secrets' }));
  assert.equal((await alice.request('DELETE', `${CM}/x`)).json, forbiddenBody(`configmaps "x" is forbidden: User "${user}" cannot delete resource "configmaps" in API group "" in the namespace "${ns}"`, { name: 'x', kind: 'configmaps' }));

  // SubjectAccessReview (admin asks about alice): RBAC's reason.
  const sar = await t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', { body: { spec: { user, resourceAttributes: { namespace: ns, verb: 'list', resource: 'configmaps' } } } });
  assert.equal(sar.json.status, { allowed: true, reason: `RBAC: allowed by RoleBinding "alice-reads/${ns}" of Role "cm-reader" to User "${user}"` });
  // kubectl auth can-i as alice.
  const k = kubectlFor(kubeconfigWith(user, await certFor(user, [])));
  const yes = await k.run('auth', 'can-i', 'list', 'configmaps', '-n', ns);
  assert.equal([yes.code, yes.stdout.trim()], [0, 'yes']);
  const no = await k.run('auth', 'can-i', 'get', 'secrets', '-n', ns);
  assert.equal([no.code, no.stdout.trim()], [1, 'no']);

  // Removing the binding takes effect on the next request.
  assert.is((await t.client.request('DELETE', `${RBAC}/namespaces/${ns}/rolebindings/alice-reads`)).status, 200);
  assert.is((await alice.request('GET', CM)).status, 403);
});

test('escalation: a role with rules the writer lacks, a binding to such a role; escalate and bind verbs', async () => {
  const user = `bob-${ns}`;
  const bob = clientWith(await certFor(user, []));
  // Bob may manage roles and bindings in the namespace, and read configmaps.
  assert.is((await t.client.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'rbac-manager' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'list'] }, { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } })).status, 201);
  assert.is((await t.client.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: { metadata: { name: 'bob-manages' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'rbac-manager' }, subjects: [{ kind: 'User', name: user }] } })).status, 201);

  const within = await bob.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'cm-get' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] } });
  assert.is(within.status, 201, within.text);
  const beyond = await bob.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'secret-reader' }, rules: [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list'] }] } });
  assert.equal(beyond.json, forbiddenBody(`roles.rbac.authorization.k8s.io "secret-reader" is forbidden: user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}`, { name: 'secret-reader', group: 'rbac.authorization.k8s.io', kind: 'roles' }));

  // Binding a role Bob does not hold is refused; with `bind` on it, allowed.
  const secretAdmin = `secret-admin-${ns}`;
  assert.is((await t.client.request('POST', `${RBAC}/clusterroles`, { body: { metadata: { name: secretAdmin }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] } })).status, 201);
  const bindEdit = { metadata: { name: 'bob-binds-edit' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: secretAdmin }, subjects: [{ kind: 'User', name: 'carol' }] };
  const refused = await bob.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: bindEdit });
  assert.is(refused.status, 403, refused.text);
  assert.is(refused.json.message, `rolebindings.rbac.authorization.k8s.io "bob-binds-edit" is forbidden: user "${user}" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}`);
  assert.is((await t.client.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'may-bind-edit' }, rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: [secretAdmin] }] } })).status, 201);
  assert.is((await t.client.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: { metadata: { name: 'bob-may-bind' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'may-bind-edit' }, subjects: [{ kind: 'User', name: user }] } })).status, 201);
  const bound = await bob.request('POST', `${RBAC}/namespaces/${ns}/rolebindings`, { body: bindEdit });
  assert.is(bound.status, 201, bound.text);
  await t.client.request('DELETE', `${RBAC}/clusterroles/${secretAdmin}`);
});

test('the aggregated view ClusterRole holds the rules of the system:aggregate-to-view roles', async () => {
  // Aggregation is kube-controller-manager's work; the reference runs without one.
  if (t.reference) return;
  const view = (await t.client.request('GET', `${RBAC}/clusterroles/view`)).json;
  assert.equal(view.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  const has = (rule: unknown) => view.rules.some((r: unknown) => JSON.stringify(r) === JSON.stringify(rule));
  assert.ok(has({ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status'] }), JSON.stringify(view.rules).slice(0, 2000));
  // A new role labelled for aggregation joins `view`.
  const name = `extra-view-${ns}`;
  assert.is((await t.client.request('POST', `${RBAC}/clusterroles`, { body: { metadata: { name, labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [{ apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get'] }] } })).status, 201);
  try {
    let rules: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      rules = (await t.client.request('GET', `${RBAC}/clusterroles/view`)).json.rules;
      if (rules.some((r) => JSON.stringify(r) === JSON.stringify({ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(rules.some((r) => JSON.stringify(r) === JSON.stringify({ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] })), 'aggregated');
  } finally {
    await t.client.request('DELETE', `${RBAC}/clusterroles/${name}`);
  }
});

test('roleRef is immutable; validation; Table columns', async () => {
  const b = (await t.client.request('GET', `${RBAC}/namespaces/${ns}/rolebindings/bob-manages`)).json;
  const r = await t.client.request('PUT', `${RBAC}/namespaces/${ns}/rolebindings/bob-manages`, { body: { ...b, roleRef: { ...b.roleRef, name: 'cm-reader' } } });
  assert.is(r.status, 422);
  assert.is(r.json.message, 'RoleBinding.rbac.authorization.k8s.io "bob-manages" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"cm-reader"}: cannot change roleRef');
  const bad = await t.client.request('POST', `${RBAC}/namespaces/${ns}/roles`, { body: { metadata: { name: 'bad' }, rules: [{ verbs: [], nonResourceURLs: ['/x'] }] } });
  assert.is(bad.status, 422);
  assert.equal(bad.json.details.causes, [
    { reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"/x"}: namespaced rules cannot apply to non-resource URLs', field: 'rules[0].nonResourceURLs' },
  ]);
  const tbl = await t.client.request('GET', `${RBAC}/namespaces/${ns}/rolebindings/bob-manages`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.equal(tbl.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Role', 'Age', 'Users', 'Groups', 'ServiceAccounts']);
  const cells = tbl.json.rows[0].cells;
  assert.equal([cells[0], cells[1], cells[3], cells[4], cells[5]], ['bob-manages', 'Role/rbac-manager', `bob-${ns}`, '', '']);
});

test.run();
