/**
 * Size limits answered as kube-apiserver answers them: headers and the request line up to Go's
 * 1 MiB (a 20 KB header and a 1 MB query string are served; over it Go's plain-text 431), request
 * bodies up to 3 MiB (over it 413 `Request entity too large: limit is 3145728`, with or without a
 * Content-Length), and objects up to etcd's 1.5 MiB request limit (over it kube's plain 500
 * `etcdserver: request is too large`, nothing written). Runs against the reference with
 * TEST_KUBECONFIG (HTTP/1.1 requests).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { rawRequest, type RawResult } from './raw-request.ts';

let t: Target;
let ns: string;
let cms: string;
let roles: string;

const show = (r: RawResult): string => `HTTP ${r.status}: ${r.text.slice(0, 300)}`;

/** A Role whose resourceNames make its JSON about `bytes` long (RBAC puts no bound on them). */
function role(name: string, bytes: number): string {
  const names: string[] = [];
  for (let n = 0; n < bytes; n += 100) names.push(`n${names.length}-${'x'.repeat(90)}`);
  return JSON.stringify({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: names }] });
}

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('limits');
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  roles = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles`;
  const r = await t.client.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await t?.close();
});

test("headers and query strings up to Go's 1 MiB are served; beyond, Go's plain-text 431", async () => {
  const big = await rawRequest(t.kubeconfig, 'GET', cms, { headers: { 'x-big': 'h'.repeat(20_000) } });
  assert.is(big.status, 200, `20 KB header: ${show(big)}`);
  const bigger = await rawRequest(t.kubeconfig, 'GET', cms, { headers: { 'x-big': 'h'.repeat(1_000_000) } });
  assert.is(bigger.status, 200, `1 MB header: ${show(bigger)}`);
  const query = await rawRequest(t.kubeconfig, 'GET', `${cms}?limit=1&x=${'q'.repeat(1_000_000)}`);
  assert.is(query.status, 200, `1 MB query string: ${show(query)}`);
  assert.is(query.json.items.length, 1);
  for (const [label, path, headers] of [
    ['header', cms, { 'x-big': 'h'.repeat(1_060_000) }],
    ['query string', `${cms}?x=${'q'.repeat(1_060_000)}`, {}],
  ] as const) {
    const r = await rawRequest(t.kubeconfig, 'GET', path, { headers });
    assert.is(r.status, 431, `${label} over 1 MiB: ${show(r)}`);
    assert.is(r.headers['content-type'], 'text/plain; charset=utf-8');
    assert.is(r.text, '431 Request Header Fields Too Large');
  }
  // The server still answers.
  assert.is((await rawRequest(t.kubeconfig, 'GET', `${cms}/c`)).status, 200);
});

test('bodies over 3 MiB: 413 RequestEntityTooLarge, with or without Content-Length, for every write', async () => {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { k: 'x'.repeat(3 * 1024 * 1024) } });
  const expect413 = (r: RawResult, label: string): void => {
    assert.is(r.status, 413, `${label}: ${show(r)}`);
    assert.is(r.json?.reason, 'RequestEntityTooLarge', label);
    assert.is(r.json.message, 'Request entity too large: limit is 3145728', label);
  };
  expect413(await rawRequest(t.kubeconfig, 'POST', cms, { body }), 'create');
  expect413(await rawRequest(t.kubeconfig, 'POST', cms, { body, chunked: true }), 'create, chunked');
  expect413(await rawRequest(t.kubeconfig, 'PUT', `${cms}/c`, { body: body.replace('"huge"', '"c"') }), 'update');
  expect413(await rawRequest(t.kubeconfig, 'PATCH', `${cms}/c`, { body, headers: { 'content-type': 'application/merge-patch+json' } }), 'merge patch');
  expect413(await rawRequest(t.kubeconfig, 'PATCH', `${cms}/c?fieldManager=m`, { body, headers: { 'content-type': 'application/apply-patch+yaml' } }), 'apply');
  assert.is((await t.client.request('GET', `${cms}/huge`)).status, 404);
});

test("objects over etcd's 1.5 MiB request limit: kube's 500, nothing written", async () => {
  const ok = await rawRequest(t.kubeconfig, 'POST', roles, { body: role('r14', 1_400_000) });
  assert.is(ok.status, 201, `1.4 MB Role: ${show(ok)}`);
  const over = await rawRequest(t.kubeconfig, 'POST', roles, { body: role('r17', 1_700_000) });
  assert.is(over.status, 500, `1.7 MB Role: ${show(over)}`);
  assert.is(over.json?.kind, 'Status');
  assert.is(over.json.message, 'etcdserver: request is too large');
  assert.is(over.json.reason, undefined);
  assert.is((await t.client.request('GET', `${roles}/r17`)).status, 404, 'not created');
  // An update that grows an object past the limit leaves it as it was.
  const before = await t.client.request('GET', `${roles}/r14`);
  const grown = await rawRequest(t.kubeconfig, 'PUT', `${roles}/r14`, { body: role('r14', 1_700_000) });
  assert.is(grown.status, 500, show(grown));
  assert.is(grown.json.message, 'etcdserver: request is too large');
  const after = await t.client.request('GET', `${roles}/r14`);
  assert.is(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion, 'unchanged');
  // A dry run never reaches etcd: kube accepts it.
  const dry = await rawRequest(t.kubeconfig, 'POST', `${roles}?dryRun=All`, { body: role('r17', 1_700_000) });
  assert.is(dry.status, 201, `dry run: ${show(dry)}`);
});

test.run();
