/**
 * User impersonation as kube-apiserver 1.24 serves it (WithImpersonation), on this server and on
 * the reference: each Impersonate-* part authorized with the `impersonate` verb on users, groups,
 * serviceaccounts (a `system:serviceaccount:<ns>:<name>` user, in its namespace), uids and
 * userextras/<key>; the 403 of the first part refused in kube's words; groups without a user as
 * kube's plain-text 500; the impersonated user's groups (service-account defaults,
 * system:authenticated added); the request then authorized as the impersonated user; and
 * `kubectl --as/--as-group` and `kubectl auth can-i --as`.
 *
 * The requestor is a client certificate signed by the target's CA (test/target-users.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Client } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { TargetUsers } from '../target-users.ts';
import { kubectlFor, type Kubectl } from '../kubectl-run.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
let t: Target;
let users: TargetUsers;
let ns: string;
/** Unique per run: the reference is long-lived and keeps earlier runs' bindings. */
let requestor: string;
let bob: string;
let devs: string;
let imp: Client;
let kubectl: Kubectl;

const forbiddenBody = (message: string, details: Record<string, string>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });

async function create(path: string, body: unknown): Promise<void> {
  const r = await t.client.request('POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
}

test.before(async () => {
  t = await startTarget();
  users = new TargetUsers(t);
  ns = await t.createNamespace('imp');
  requestor = t.ns('imp-user');
  bob = t.ns('bob');
  devs = t.ns('devs');
  const name = t.ns('imp-test');
  await create(`${RBAC}/clusterroles`, {
    metadata: { name },
    rules: [
      { apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: [bob, 'system:anonymous'] },
      { apiGroups: [''], resources: ['groups'], verbs: ['impersonate'], resourceNames: [devs, 'system:unauthenticated'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['uids'], verbs: ['impersonate'], resourceNames: ['u1'] },
      { apiGroups: ['authentication.k8s.io'], resources: ['userextras/scopes'], verbs: ['impersonate'], resourceNames: ['s1'] },
    ],
  });
  await create(`${RBAC}/clusterrolebindings`, { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: requestor }] });
  await create(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'imp-sa' }, rules: [{ apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'], resourceNames: ['robot'] }] });
  await create(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'imp-sa' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'imp-sa' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: requestor }] });
  // What the impersonated identities may do in the namespace.
  await create(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'pods-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] });
  await create(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
  await create(`${RBAC}/namespaces/${ns}/roles`, { metadata: { name: 'secrets-reader' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] });
  await create(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'devs-pods' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pods-reader' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: devs }] });
  await create(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'sa-cms' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: `system:serviceaccounts:${ns}` }] });
  await create(`${RBAC}/namespaces/${ns}/rolebindings`, { metadata: { name: 'authenticated-secrets' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'secrets-reader' }, subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' }] });
  const cert = await users.cert(requestor, ['imp-group']);
  imp = users.client(cert);
  kubectl = kubectlFor(users.kubeconfig(requestor, cert));
});

test.after(async () => {
  await users.close();
  const name = t.ns('imp-test');
  await t.client.request('DELETE', `${RBAC}/clusterrolebindings/${name}`);
  await t.client.request('DELETE', `${RBAC}/clusterroles/${name}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('each part refused is a 403 naming it, in kube\'s words', async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  const cases: Array<{ headers: Record<string, string>; body: unknown }> = [
    { headers: { 'Impersonate-User': 'carol' }, body: forbiddenBody(`users "carol" is forbidden: User "${requestor}" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: 'carol', kind: 'users' }) },
    { headers: { 'Impersonate-User': `system:serviceaccount:${ns}:other` }, body: forbiddenBody(`serviceaccounts "other" is forbidden: User "${requestor}" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "${ns}"`, { name: 'other', kind: 'serviceaccounts' }) },
    // Not a valid service-account name: a plain user.
    { headers: { 'Impersonate-User': `system:serviceaccount:${ns}` }, body: forbiddenBody(`users "system:serviceaccount:${ns}" is forbidden: User "${requestor}" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: `system:serviceaccount:${ns}`, kind: 'users' }) },
    { headers: { 'Impersonate-User': bob, 'Impersonate-Group': 'ops' }, body: forbiddenBody(`groups "ops" is forbidden: User "${requestor}" cannot impersonate resource "groups" in API group "" at the cluster scope`, { name: 'ops', kind: 'groups' }) },
    { headers: { 'Impersonate-User': bob, 'Impersonate-Uid': 'u2' }, body: forbiddenBody(`uids.authentication.k8s.io "u2" is forbidden: User "${requestor}" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`, { name: 'u2', group: 'authentication.k8s.io', kind: 'uids' }) },
    { headers: { 'Impersonate-User': bob, 'Impersonate-Extra-Scopes': 's2' }, body: forbiddenBody(`userextras.authentication.k8s.io "s2" is forbidden: User "${requestor}" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope`, { name: 's2', group: 'authentication.k8s.io', kind: 'userextras' }) },
    { headers: { 'Impersonate-User': bob, 'Impersonate-Extra-Other': 's1' }, body: forbiddenBody(`userextras.authentication.k8s.io "s1" is forbidden: User "${requestor}" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope`, { name: 's1', group: 'authentication.k8s.io', kind: 'userextras' }) },
    // The key is lower-cased and %-unescaped (kube's unescapeExtraKey).
    { headers: { 'Impersonate-User': bob, 'Impersonate-Extra-Example.COM%2FScope': 'v' }, body: forbiddenBody(`userextras.authentication.k8s.io "v" is forbidden: User "${requestor}" cannot impersonate resource "userextras/example.com/scope" in API group "authentication.k8s.io" at the cluster scope`, { name: 'v', group: 'authentication.k8s.io', kind: 'userextras' }) },
  ];
  for (const [i, c] of cases.entries()) {
    const r = await imp.request('GET', pods, { headers: c.headers });
    assert.is(r.status, 403, `case ${i}: ${r.text}`);
    assert.equal(r.json, c.body, `case ${i}`);
    assert.is(r.headers['x-content-type-options'], 'nosniff', `case ${i}`);
  }
  // Anonymous requests may impersonate only what RBAC grants system:anonymous (nothing here).
  const anon = await users.client().request('GET', pods, { headers: { 'Impersonate-User': bob } });
  assert.equal(anon.json, forbiddenBody(`users "${bob}" is forbidden: User "system:anonymous" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: bob, kind: 'users' }));
});

test('groups, uid or extras without a user: kube\'s plain-text 500', async () => {
  const path = `/api/v1/namespaces/${ns}/pods?a=1`;
  const r = await imp.request('GET', path, { headers: { 'Impersonate-Group': devs } });
  assert.is(r.status, 500);
  assert.is(r.headers['content-type'], 'text/plain; charset=utf-8');
  assert.is(r.text, `Internal Server Error: "${path}": requested [{Group  ${devs}    }] without impersonating a user\n`);
  const u = await imp.request('GET', path, { headers: { 'Impersonate-Uid': 'u1' } });
  assert.is(u.text, `Internal Server Error: "${path}": requested [{UID  u1  authentication.k8s.io/v1  }] without impersonating a user\n`);
});

test('allowed: the request is authorized as the impersonated user and groups', async () => {
  const pods = `/api/v1/namespaces/${ns}/pods`;
  // bob alone has no pods access; bob in devs has.
  const alone = await imp.request('GET', pods, { headers: { 'Impersonate-User': bob } });
  assert.equal(alone.json, forbiddenBody(`pods is forbidden: User "${bob}" cannot list resource "pods" in API group "" in the namespace "${ns}"`, { kind: 'pods' }));
  const asDev = await imp.request('GET', pods, { headers: { 'Impersonate-User': bob, 'Impersonate-Group': devs, 'Impersonate-Uid': 'u1', 'Impersonate-Extra-Scopes': 's1' } });
  assert.is(asDev.status, 200, asDev.text);
  assert.is(asDev.json.kind, 'PodList');
  // system:authenticated is added to an impersonated user (secrets are granted to it)...
  assert.is((await imp.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { 'Impersonate-User': bob } })).status, 200);
  // ...but not when system:unauthenticated is asked for.
  const unauth = await imp.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { 'Impersonate-User': bob, 'Impersonate-Group': 'system:unauthenticated' } });
  assert.is(unauth.status, 403);
  // system:anonymous gets system:unauthenticated, not system:authenticated.
  const anon = await imp.request('GET', `/api/v1/namespaces/${ns}/secrets`, { headers: { 'Impersonate-User': 'system:anonymous' } });
  assert.equal(anon.json, forbiddenBody(`secrets is forbidden: User "system:anonymous" cannot list resource "secrets" in API group "" in the namespace "${ns}"`, { kind: 'secrets' }));
});

test('a service account gets its groups unless groups are given', async () => {
  const cms = `/api/v1/namespaces/${ns}/configmaps`;
  const sa = `system:serviceaccount:${ns}:robot`;
  const r = await imp.request('GET', cms, { headers: { 'Impersonate-User': sa } });
  assert.is(r.status, 200, r.text);
  const withGroup = await imp.request('GET', cms, { headers: { 'Impersonate-User': sa, 'Impersonate-Group': devs } });
  assert.equal(withGroup.json, forbiddenBody(`configmaps is forbidden: User "${sa}" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`, { kind: 'configmaps' }));
});

test('kubectl --as / --as-group and kubectl auth can-i --as', async () => {
  const out = await kubectl.run('get', 'pods', '-n', ns, '--as', bob, '--as-group', devs);
  assert.is(out.code, 0, out.stderr);
  assert.match(out.stderr, /No resources found/);
  const uid = await kubectl.run('get', 'pods', '-n', ns, '--as', bob, '--as-group', devs, '--as-uid', 'u1');
  assert.is(uid.code, 0, uid.stderr);
  const badUid = await kubectl.run('get', 'pods', '-n', ns, '--as', bob, '--as-uid', 'u2');
  assert.match(badUid.stderr, `Error from server (Forbidden): uids.authentication.k8s.io "u2" is forbidden: User "${requestor}" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope`);
  const denied = await kubectl.run('get', 'pods', '-n', ns, '--as', 'carol');
  assert.is(denied.code, 1);
  assert.match(denied.stderr, `Error from server (Forbidden): users "carol" is forbidden: User "${requestor}" cannot impersonate resource "users" in API group "" at the cluster scope`);
  const yes = await kubectl.run('auth', 'can-i', 'list', 'pods', '-n', ns, '--as', bob, '--as-group', devs);
  assert.equal([yes.code, yes.stdout.trim()], [0, 'yes']);
  const no = await kubectl.run('auth', 'can-i', 'list', 'pods', '-n', ns, '--as', bob);
  assert.equal([no.code, no.stdout.trim()], [1, 'no']);
  // A service account impersonated by kubectl gets its groups (configmaps are granted to them).
  const sa = await kubectl.run('auth', 'can-i', 'list', 'configmaps', '-n', ns, '--as', `system:serviceaccount:${ns}:robot`);
  assert.equal([sa.code, sa.stdout.trim()], [0, 'yes'], sa.stderr);
  // The requestor's own permission to impersonate, through the admin's --as.
  const admin = kubectlFor(t.kubeconfig);
  const can = await admin.run('auth', 'can-i', 'impersonate', `users/${bob}`, '--as', requestor);
  assert.equal([can.code, can.stdout.trim()], [0, 'yes']);
  const cannot = await admin.run('auth', 'can-i', 'impersonate', 'users/carol', '--as', requestor);
  assert.equal([cannot.code, cannot.stdout.trim()], [1, 'no']);
});

test.run();
