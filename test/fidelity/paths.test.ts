/**
 * How kube-apiserver 1.24 answers paths, before any resource logic: its handler director sends
 * `/api…`, `/apis` and `/apis/` exactly, `/apis/<served group>…` and `/version…` to go-restful,
 * whose misses are Status bodies (404 "the server could not find the requested resource", 405
 * "the server does not allow this method…", both with empty details); everything else goes to a
 * plain mux whose misses are text/plain `404 page not found`. Trailing slashes name the same
 * discovery document; empty inner segments are kept (`/namespaces//configmaps` is the
 * all-namespaces list). Only paths both servers serve (the core group) are compared.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;

const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 300)}`;
const STATUS_404 = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 }) + '\n';
const STATUS_405 = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 }) + '\n';
const PAGE_NOT_FOUND = '404 page not found\n';

test.before(async () => {
  // The reference runs no controller-manager: without its per-namespace objects (kube-root-ca.crt,
  // the default ServiceAccount) our fresh namespaces hold exactly what the suite puts there, as its.
  t = await startTarget({ namespaceDefaults: false });
  ns = await t.createNamespace('paths');
  const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } } });
  assert.is(r.status, 201, show(r));
});

test.after(async () => {
  await t?.close();
});

test('trailing slashes name the same discovery document and /version', async () => {
  for (const [i, p] of ['/api', '/apis', '/version', '/api/v1'].entries()) {
    const plain = await t.client.request('GET', p);
    const slash = await t.client.request('GET', `${p}/`);
    assert.is(plain.status, 200, `case ${i} ${p}: ${show(plain)}`);
    assert.is(slash.status, 200, `case ${i} ${p}/: ${show(slash)}`);
    assert.is(slash.headers['content-type'], 'application/json', `case ${i}: content type`);
    assert.equal(slash.json, plain.json, `case ${i}: same document`);
  }
});

test('trailing slashes on resource paths: the same object or list', async () => {
  const obj = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/a/`);
  assert.is(obj.status, 200, show(obj));
  assert.equal([obj.json.kind, obj.json.metadata.name], ['ConfigMap', 'a']);
  const list = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/`);
  assert.is(list.status, 200, show(list));
  assert.equal([list.json.kind, list.json.items.length], ['ConfigMapList', 1]);
  const nsObj = await t.client.request('GET', `/api/v1/namespaces/${ns}/`);
  assert.equal([nsObj.status, nsObj.json?.kind, nsObj.json?.metadata?.name], [200, 'Namespace', ns], show(nsObj));
});

test('an empty namespace segment is the all-namespaces list', async () => {
  const r = await t.client.request('GET', `/api/v1/namespaces//configmaps?fieldSelector=metadata.namespace%3D${ns}`);
  assert.is(r.status, 200, show(r));
  assert.equal((r.json.items as any[]).map((x) => `${x.metadata.namespace}/${x.metadata.name}`), [`${ns}/a`]);
});

test('outside the API prefixes: the mux answers text/plain "404 page not found"', async () => {
  const cases: [string, string][] = [
    ['GET', '/nope'],
    ['GET', '//api/v1'],
    ['GET', '/apis/example.com'],
    ['GET', '/apis/example.com/'],
    ['GET', '/apis/example.com/v1'],
    ['GET', '/apis/example.com/v1/widgets'],
    ['GET', `/apis/example.com/v1/namespaces/${ns}/widgets/x`],
    ['POST', '/apis/example.com/v1/widgets'],
    ['POST', '/nope'],
    ['GET', '/healthz/'],
    ['GET', '/livez/'],
    ['GET', '/readyz/'],
    ['GET', '/healthz/nope'],
  ];
  for (const [i, [method, p]] of cases.entries()) {
    const r = await t.client.request(method, p, method === 'POST' ? { body: {} } : {});
    assert.is(r.status, 404, `case ${i} ${method} ${p}: ${show(r)}`);
    assert.is(r.headers['content-type'], 'text/plain; charset=utf-8', `case ${i}: content type`);
    assert.is(r.headers['x-content-type-options'], 'nosniff', `case ${i}: nosniff`);
    assert.is(r.text, PAGE_NOT_FOUND, `case ${i}: body`);
  }
});

test('under go-restful prefixes: a Status 404 with empty details', async () => {
  const cases: [string, string][] = [
    ['GET', '/api/v2'],
    ['GET', '/api/v2/configmaps'],
    ['GET', '/api//v1'],
    ['GET', '/api/v1/widgets'],
    ['GET', `/api/v1/namespaces/${ns}/widgets`],
    ['GET', `/api/v1/namespaces/${ns}/widgets/x`],
    ['GET', `/api/v1/namespaces/${ns}/configmaps/a/status`],
    ['GET', `/api/v1/namespaces/${ns}/configmaps/a/x/y`],
    ['GET', '/api/v1/configmaps/a'],
    ['GET', `/api/v1/namespaces/${ns}/namespaces`],
    ['GET', `/api/v1/namespaces/${ns}/status/x`],
    ['GET', '/api/v1/watch/widgets'],
    ['GET', '/version/foo'],
    ['POST', '/api/v1/widgets'],
    ['PUT', `/api/v1/namespaces/${ns}/configmaps/a/status`],
  ];
  for (const [i, [method, p]] of cases.entries()) {
    const r = await t.client.request(method, p, method === 'GET' ? {} : { body: {} });
    assert.is(r.status, 404, `case ${i} ${method} ${p}: ${show(r)}`);
    assert.is(r.headers['content-type'], 'application/json', `case ${i}: content type`);
    assert.is(r.text, STATUS_404, `case ${i}: body`);
  }
});

test('a path with routes but none for the method: the generic 405', async () => {
  const cases: [string, string][] = [
    ['POST', '/api'],
    ['POST', '/api/'],
    ['DELETE', '/api/v1'],
    ['POST', '/version'],
    ['POST', `/api/v1/namespaces/${ns}/configmaps/a`],
    ['DELETE', `/api/v1/namespaces/${ns}/status`],
    ['GET', `/api/v1/namespaces/${ns}/finalize`],
    ['POST', '/api/v1/configmaps'],
  ];
  for (const [i, [method, p]] of cases.entries()) {
    const r = await t.client.request(method, p, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
    assert.is(r.status, 405, `case ${i} ${method} ${p}: ${show(r)}`);
    assert.is(r.text, STATUS_405, `case ${i}: body`);
  }
});

test('/apis answers whatever the method (a plain handler, not a GET route)', async () => {
  for (const [i, method] of ['PUT', 'POST', 'DELETE'].entries()) {
    const r = await t.client.request(method, i % 2 ? '/apis/' : '/apis', method === 'DELETE' ? {} : { body: {} });
    assert.is(r.status, 200, `case ${i} ${method}: ${show(r)}`);
    assert.is(r.json.kind, 'APIGroupList', `case ${i}`);
  }
});

test('HEAD and OPTIONS have no routes: 405 on API paths, served by the mux elsewhere', async () => {
  for (const [i, [method, p]] of [['HEAD', '/api'], ['HEAD', '/api/v1'], ['HEAD', '/version'], ['HEAD', `/api/v1/namespaces/${ns}/configmaps`], ['HEAD', `/api/v1/namespaces/${ns}/configmaps/a`], ['OPTIONS', `/api/v1/namespaces/${ns}/configmaps`], ['OPTIONS', '/api']].entries()) {
    const r = await t.client.request(method, p);
    assert.is(r.status, 405, `case ${i} ${method} ${p}: ${show(r)}`);
    if (method !== 'HEAD') assert.is(r.text, STATUS_405, `case ${i}: body`);
  }
  for (const [i, p] of ['/apis', '/healthz'].entries()) {
    const r = await t.client.request('HEAD', p);
    assert.is(r.status, 200, `HEAD case ${i} ${p}: ${show(r)}`);
  }
});

test('a legacy watch path naming nothing: the request-info filter\'s text/plain 500', async () => {
  for (const [i, p] of ['/api/v1/watch', '/api/v1/watch/', '/api/v1/watch?x=1'].entries()) {
    const r = await t.client.request('GET', p);
    assert.is(r.status, 500, `case ${i} ${p}: ${show(r)}`);
    assert.is(r.headers['content-type'], 'text/plain; charset=utf-8', `case ${i}`);
    assert.is(r.text, `Internal Server Error: ${JSON.stringify(p)}: failed to create RequestInfo: unable to determine kind and namespace from url, ${p}\n`, `case ${i}`);
  }
});

test.run();
