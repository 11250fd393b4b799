/**
 * `.` and `..` path segments, raw and %-encoded, answered as kube-apiserver answers them: the path
 * is never cleaned, so `…/configmaps/..` names a ConfigMap `..` (400 from the registry), a `..`
 * namespace makes a key etcd refuses (500), and `…/configmaps/../../kube-system/secrets` has no
 * route (404) — never the Namespace or another namespace's Secrets. Requests go out unnormalized
 * (node:https; undici and curl resolve dot segments before sending). Runs against the reference
 * with TEST_KUBECONFIG.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { rawRequest, type RawResult } from './raw-request.ts';

let t: Target;
let ns: string;

const show = (r: RawResult): string => `HTTP ${r.status}: ${r.text.slice(0, 400)}`;
const get = (path: string) => rawRequest(t.kubeconfig, 'GET', path);

function expectFailure(r: RawResult, code: number, reason: string | undefined, message: string, label: string): void {
  assert.is(r.status, code, `${label}: ${show(r)}`);
  assert.is(r.json?.kind, 'Status', `${label}: ${show(r)}`);
  assert.is(r.json.code, code, `${label}: ${show(r)}`);
  assert.is(r.json.reason, reason, `${label}: reason; ${show(r)}`);
  assert.is(r.json.message, message, `${label}: message; ${show(r)}`);
}

const NOT_FOUND = 'the server could not find the requested resource';
const dotdot = `Name parameter invalid: "..": may not be '..'`;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('dots');
  const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } } });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await t?.close();
});

test('a `..` or `.` name is refused (400), raw or %-encoded, never the Namespace', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  for (const p of [`${base}/..`, `${base}/%2e%2e`, `${base}/%2E%2E`, `${base}/.%2e`, `${base}/%2e%2e%2f`, `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/..`, `/api/v1/namespaces/..`, `/api/v1/namespaces/%2e%2e`, `${base}/..?watch=1`]) {
    expectFailure(await get(p), 400, 'BadRequest', dotdot, `GET ${p}`);
  }
  for (const p of [`${base}/.`, `${base}/%2e`, `${base}/./`, `/api/v1/namespaces/.`]) {
    expectFailure(await get(p), 400, 'BadRequest', `Name parameter invalid: ".": may not be '.'`, `GET ${p}`);
  }
  expectFailure(await get(`${base}/a%252fb`), 400, 'BadRequest', `Name parameter invalid: "a%2fb": may not contain '%'`, 'a name with %');
  // Dots inside a name are an ordinary (missing) name.
  for (const name of ['x.', '..x', '...']) {
    expectFailure(await get(`${base}/${name}`), 404, 'NotFound', `configmaps "${name}" not found`, `GET ${name}`);
  }
});

test('`..` cannot climb into another namespace or resource (404: no route)', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  for (const p of [`${base}/../../kube-system/secrets`, `${base}/%2E%2E/%2e%2e/kube-system/secrets`, `${base}/../../../namespaces/kube-system/secrets`, `${base}/c/..`, `/api/v1/namespaces/${ns}/./configmaps`, `/api/v1/./namespaces`, `/api/..`, `${base}/a%2Fb`]) {
    expectFailure(await get(p), 404, 'NotFound', NOT_FOUND, `GET ${p}`);
  }
  // Outside the API prefixes: the mux's plain-text 404.
  for (const p of ['/./api/v1/namespaces', '/healthz/..']) {
    const r = await get(p);
    assert.is(r.status, 404, `GET ${p}: ${show(r)}`);
    assert.is(r.text.trim(), '404 page not found', `GET ${p}`);
  }
});

test('writes through `..` change nothing: the namespace and its objects stay as they were', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const before = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  const patched = await rawRequest(t.kubeconfig, 'PATCH', `${base}/..`, { body: JSON.stringify({ metadata: { labels: { climbed: 'yes' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
  expectFailure(patched, 400, 'BadRequest', dotdot, 'PATCH ..');
  const put = await rawRequest(t.kubeconfig, 'PUT', `${base}/..`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }) });
  expectFailure(put, 400, 'BadRequest', 'the name of the object (x) does not match the name on the URL (..)', 'PUT .. (body name x)');
  const put2 = await rawRequest(t.kubeconfig, 'PUT', `${base}/..`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '..' } }) });
  expectFailure(put2, 400, 'BadRequest', dotdot, 'PUT .. (body name ..)');
  const del = await rawRequest(t.kubeconfig, 'DELETE', `${base}/..`);
  expectFailure(del, 400, 'BadRequest', dotdot, 'DELETE ..');
  const post = await rawRequest(t.kubeconfig, 'POST', `${base}/..`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'y' } }) });
  assert.is(post.status, 405, `POST ..: ${show(post)}`);
  const after = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  assert.is(after.status, 200, after.text);
  assert.equal(after.json.metadata.labels, before.json.metadata.labels, 'namespace labels unchanged');
  assert.is(after.json.metadata.resourceVersion, before.json.metadata.resourceVersion, 'namespace not written');
  assert.is(after.json.status.phase, 'Active', 'namespace not deleted');
  const c = await t.client.request('GET', `${base}/c`);
  assert.is(c.status, 200, 'the ConfigMap is still there');
});

test('a `.` or `..` namespace is a key etcd refuses (500 without a reason)', async () => {
  expectFailure(await get('/api/v1/namespaces/../configmaps'), 500, undefined, 'invalid key: "/configmaps/.."', 'list in ..');
  expectFailure(await get('/api/v1/namespaces/%2e%2e/configmaps'), 500, undefined, 'invalid key: "/configmaps/.."', 'list in %2e%2e');
  expectFailure(await get('/api/v1/namespaces/./configmaps/c'), 500, undefined, 'invalid key: "/configmaps/./c"', 'get in .');
  expectFailure(await rawRequest(t.kubeconfig, 'DELETE', '/api/v1/namespaces/../configmaps'), 500, undefined, 'invalid key: "/configmaps/.."', 'deletecollection in ..');
  // A name check comes before the key: 400.
  expectFailure(await get('/api/v1/namespaces/../configmaps/..'), 400, 'BadRequest', dotdot, 'get .. in ..');
  const post = await rawRequest(t.kubeconfig, 'POST', '/api/v1/namespaces/../configmaps', { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'z' } }) });
  expectFailure(post, 500, 'InternalError', `Internal error occurred: invalid resource name "..": [may not be '..']`, 'create in ..');
});

test("a malformed %-escape in the path is Go's plain-text 400", async () => {
  const r = await get(`/api/v1/namespaces/${ns}/configmaps/a%zz`);
  assert.is(r.status, 400, show(r));
  assert.is(r.text, '400 Bad Request');
  // In the query a malformed pair is dropped (Go's ParseQuery), the request served.
  const q = await get(`/api/v1/namespaces/${ns}/configmaps?limit=%zz`);
  assert.is(q.status, 200, show(q));
  assert.ok(q.json.items.some((i: any) => i.metadata.name === 'c'), 'the list is served');
  assert.is(q.json.metadata.continue, undefined, 'no limit applied');
});

test.run();
