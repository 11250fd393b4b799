/**
 * Every error the API answers is a Status (kind Status, apiVersion v1, status Failure, code =
 * HTTP code, a reason), for each code a client can provoke: 400, 401, 404, 405, 406, 409, 413,
 * 415, 422. Also discovery (/api, /api/v1, /apis, /version) and the health endpoints, and the
 * process staying up after all of it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestServer, clientFor, tempDir, type TestServer, type HttpResult, type Client } from './harness.ts';
import { show, expectStatus } from './assertions.ts';
import { ensurePki, issueClientCert, readCaKey } from '../internal/auth/pki.ts';

let srv: TestServer;
let c: Client;
const extraClients: Client[] = [];
const extraDirs: string[] = [];

const NS = 'errs';
const CM = `/api/v1/namespaces/${NS}/configmaps`;


/** Assert `r` is a failure Status with this HTTP code and reason. */

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra });

test.before(async () => {
  srv = await startTestServer();
  c = srv.client;
  const r = await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } });
  assert.is(r.status, 201, show(r));
  const e = await c.request('POST', CM, { body: cm('exists') });
  assert.is(e.status, 201, show(e));
});

test.after(async () => {
  for (const x of extraClients) await x.close().catch(() => undefined);
  await srv?.close();
  for (const d of extraDirs) rmSync(d, { recursive: true, force: true });
});

// ------------------------------------------------------------------------------------------ 400

test('400 BadRequest: malformed bodies and body/URL disagreements', async () => {
  const cases: { label: string; method: string; path: string; raw?: string; body?: unknown }[] = [
    { label: 'malformed JSON', method: 'POST', path: CM, raw: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":' },
    { label: 'apiVersion mismatch', method: 'POST', path: CM, body: { ...cm('badver'), apiVersion: 'v2' } },
    { label: 'apiVersion of another group', method: 'POST', path: CM, body: { ...cm('badgrp'), apiVersion: 'apps/v1' } },
    { label: 'kind mismatch', method: 'POST', path: CM, body: { ...cm('badkind'), kind: 'Secret' } },
    { label: 'name in body != name in URL on PUT', method: 'PUT', path: `${CM}/exists`, body: cm('other') },
    { label: 'namespace in body != URL namespace (create)', method: 'POST', path: CM, body: cm('nsmismatch', { metadata: { name: 'nsmismatch', namespace: 'default' } }) },
    { label: 'namespace in body != URL namespace (update)', method: 'PUT', path: `${CM}/exists`, body: cm('exists', { metadata: { name: 'exists', namespace: 'default' } }) },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, tc.path, tc.raw !== undefined ? { raw: tc.raw } : { body: tc.body });
    expectStatus(r, 400, 'BadRequest', `case ${i} (${tc.label})`);
  }
  // nothing was created by the rejected requests
  for (const name of ['badver', 'badgrp', 'badkind', 'nsmismatch']) {
    const g = await c.request('GET', `${CM}/${name}`);
    expectStatus(g, 404, 'NotFound', `GET ${name} after rejected create`);
  }
  const g = await c.request('GET', `/api/v1/namespaces/default/configmaps/nsmismatch`);
  expectStatus(g, 404, 'NotFound', 'nothing created in the body namespace either');
});

test('400 BadRequest: invalid label selectors', async () => {
  const selectors = ['x in (a', '=nokey', 'a b', 'a=b=c=', '!'];
  for (const [i, sel] of selectors.entries()) {
    const r = await c.request('GET', `${CM}?labelSelector=${encodeURIComponent(sel)}`);
    expectStatus(r, 400, 'BadRequest', `case ${i} (labelSelector ${JSON.stringify(sel)})`);
  }
});

// ------------------------------------------------------------------------------------------ 401

test('no credentials: system:anonymous, 403 from RBAC; public paths answer (and 401 with --anonymous-auth=false)', async () => {
  const anon = clientFor(srv.url, join(srv.dataDir, 'pki'), null);
  extraClients.push(anon);
  const resourcePaths = ['/api/v1/namespaces', CM, `${CM}/exists`, '/api/v1/configmaps'];
  for (const [i, p] of resourcePaths.entries()) {
    expectStatus(await anon.request('GET', p), 403, 'Forbidden', `case ${i} (GET ${p} without credentials)`);
  }
  expectStatus(await anon.request('POST', CM, { body: cm('anon') }), 403, 'Forbidden', 'POST without credentials');
  expectStatus(await c.request('GET', `${CM}/anon`), 404, 'NotFound', 'the unauthenticated create did not happen');

  const strict = await startTestServer({ anonymousAuth: false });
  try {
    const none = clientFor(strict.url, join(strict.dataDir, 'pki'), null);
    extraClients.push(none);
    for (const p of ['/api/v1/namespaces', '/healthz', '/version']) expectStatus(await none.request('GET', p), 401, 'Unauthorized', `GET ${p} with anonymous auth off`);
  } finally {
    await strict.close();
  }

  const publicPaths = ['/healthz', '/livez', '/readyz', '/version'];
  for (const [i, p] of publicPaths.entries()) {
    const r = await anon.request('GET', p);
    assert.is(r.status, 200, `case ${i} (GET ${p} without credentials): ${show(r)}`);
  }
});

test('401 Unauthorized for a client certificate signed by another CA', async () => {
  const otherDir = tempDir('apiserver-other-ca-');
  extraDirs.push(otherDir);
  const other = await ensurePki(otherDir);
  const cert = await issueClientCert(other, await readCaKey(other), 'mallory', ['system:masters']);
  const foreign = clientFor(srv.url, join(srv.dataDir, 'pki'), cert);
  extraClients.push(foreign);
  expectStatus(await foreign.request('GET', CM), 401, 'Unauthorized', 'GET with a foreign-CA certificate');
  expectStatus(await foreign.request('POST', CM, { body: cm('foreign') }), 401, 'Unauthorized', 'POST with a foreign-CA certificate');
  expectStatus(await c.request('GET', `${CM}/foreign`), 404, 'NotFound', 'the foreign-CA create did not happen');

  // Control: a certificate from the server's own CA authenticates (alice, then authorized by RBAC:
  // 403 naming her without a binding, 200 as a member of system:masters).
  const pki = srv.server.pki;
  const good = clientFor(srv.url, join(srv.dataDir, 'pki'), await issueClientCert(pki, await readCaKey(pki), 'alice', []));
  extraClients.push(good);
  const r = await good.request('GET', CM);
  assert.is(r.status, 403, `own-CA certificate: ${show(r)}`);
  assert.match(r.json.message, 'User "alice" cannot list resource "configmaps"');
  const admin = clientFor(srv.url, join(srv.dataDir, 'pki'), await issueClientCert(pki, await readCaKey(pki), 'alice', ['system:masters']));
  extraClients.push(admin);
  assert.is((await admin.request('GET', CM)).status, 200);
});

// ------------------------------------------------------------------------------------------ 404

test('404 NotFound: unknown resource, unknown object, unknown namespace', async () => {
  const cases: { label: string; method: string; path: string; body?: unknown; message?: RegExp }[] = [
    { label: 'unknown resource (namespaced)', method: 'GET', path: `/api/v1/namespaces/${NS}/widgets` },
    { label: 'unknown resource (cluster)', method: 'GET', path: '/api/v1/widgets' },
    { label: 'unknown version', method: 'GET', path: `/api/v2/namespaces/${NS}/configmaps` },
    { label: 'unknown object (get)', method: 'GET', path: `${CM}/nope`, message: /configmaps "nope" not found/ },
    { label: 'unknown object (delete)', method: 'DELETE', path: `${CM}/nope`, message: /configmaps "nope" not found/ },
    { label: 'unknown object (put)', method: 'PUT', path: `${CM}/nope`, body: cm('nope'), message: /configmaps "nope" not found/ },
    { label: 'unknown secret', method: 'GET', path: `/api/v1/namespaces/${NS}/secrets/nope`, message: /secrets "nope" not found/ },
    { label: 'unknown namespace (get)', method: 'GET', path: '/api/v1/namespaces/x', message: /namespaces "x" not found/ },
    { label: 'create in unknown namespace', method: 'POST', path: '/api/v1/namespaces/x/configmaps', body: cm('a'), message: /namespaces "x" not found/ },
    { label: 'create secret in unknown namespace', method: 'POST', path: '/api/v1/namespaces/x/secrets', body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } }, message: /namespaces "x" not found/ },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, tc.path, tc.body !== undefined ? { body: tc.body } : {});
    expectStatus(r, 404, 'NotFound', `case ${i} (${tc.label})`);
    if (tc.message) assert.match(r.json.message, tc.message, `case ${i} (${tc.label}): message ${r.json.message}`);
  }
  // A group no one serves is not under any go-restful prefix: kube's mux answers in plain text.
  const g = await c.request('GET', '/apis/example.com/v1/widgets');
  assert.is(g.status, 404, show(g));
  assert.is(g.headers['content-type'], 'text/plain; charset=utf-8', 'unknown group: content type');
  assert.is(g.text, '404 page not found\n', 'unknown group: body');
  const r = await c.request('GET', `${CM}/nope`);
  assert.is(r.json.details?.name, 'nope', 'details.name');
  assert.is(r.json.details?.kind, 'configmaps', 'details.kind');
});

// ------------------------------------------------------------------------------------------ 405

test('405 MethodNotAllowed for verbs a path does not serve', async () => {
  // kube-apiserver registers no POST route on item paths, no PATCH/PUT on collections and no
  // DELETE on the namespaces collection (namespaces have no deletecollection); go-restful answers
  // 405 and the apiserver's service error handler turns that into a MethodNotAllowed Status.
  const cases: { label: string; method: string; path: string; body?: unknown; contentType?: string }[] = [
    { label: 'POST to an item path', method: 'POST', path: `${CM}/exists`, body: cm('exists') },
    { label: 'PATCH on a collection', method: 'PATCH', path: CM, body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' },
    { label: 'PUT on a collection', method: 'PUT', path: CM, body: cm('x') },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, tc.path, tc.body !== undefined ? { body: tc.body, contentType: tc.contentType } : {});
    expectStatus(r, 405, 'MethodNotAllowed', `case ${i} (${tc.label})`);
  }
  const still = await c.request('GET', `${CM}/exists`);
  assert.is(still.status, 200, `the object survived: ${show(still)}`);
  assert.equal(still.json.metadata.labels, undefined, 'PATCH on the collection changed nothing');
});

test('405 MethodNotAllowed for DELETE on the namespaces collection (namespaces have no deletecollection)', async () => {
  // kube-apiserver's namespace REST storage does not implement rest.CollectionDeleter, so no
  // DELETE route exists on /api/v1/namespaces and discovery lists no deletecollection verb.
  const labelled = await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dc-victim', labels: { victim: 'yes' } } } });
  assert.is(labelled.status, 201, show(labelled));
  const r = await c.request('DELETE', `/api/v1/namespaces?labelSelector=${encodeURIComponent('victim=yes')}`);
  const after = await c.request('GET', '/api/v1/namespaces/dc-victim');
  expectStatus(r, 405, 'MethodNotAllowed', 'DELETE /api/v1/namespaces');
  assert.is(after.json?.metadata?.deletionTimestamp, undefined, 'the labelled namespace was not deleted');
});

// ------------------------------------------------------------------------------------------ 406

test('406 NotAcceptable for Accept: application/xml', async () => {
  const cases = [
    { method: 'GET', path: `${CM}/exists` },
    { method: 'GET', path: CM },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, tc.path, { headers: { accept: 'application/xml' } });
    expectStatus(r, 406, 'NotAcceptable', `case ${i} (${tc.method} ${tc.path})`);
  }
});

// ------------------------------------------------------------------------------------------ 409

test('409 AlreadyExists on a duplicate create', async () => {
  const kinds = [
    { path: CM, body: cm('dup'), resource: 'configmaps' },
    { path: `/api/v1/namespaces/${NS}/secrets`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dup' } }, resource: 'secrets' },
    { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }, resource: 'namespaces', existing: true },
  ];
  for (const [i, k] of kinds.entries()) {
    if (!k.existing) {
      const first = await c.request('POST', k.path, { body: k.body });
      assert.is(first.status, 201, `case ${i}: first create: ${show(first)}`);
    }
    const r = await c.request('POST', k.path, { body: k.body });
    expectStatus(r, 409, 'AlreadyExists', `case ${i} (${k.resource})`);
    assert.is(r.json.details?.kind, k.resource, `case ${i}: details.kind`);
    assert.is(r.json.details?.name, (k.body.metadata as { name: string }).name, `case ${i}: details.name`);
  }
});

// ------------------------------------------------------------------------------------------ 413

test('413 RequestEntityTooLarge for a body over 3 MiB', async () => {
  const big = JSON.stringify(cm('huge', { data: { k: 'x'.repeat(3 * 1024 * 1024 + 16) } }));
  let r: HttpResult;
  try {
    r = await c.request('POST', CM, { raw: big });
  } catch (e) {
    assert.unreachable(`the server must answer 413, not drop the connection: ${(e as Error).message}`);
    return;
  }
  expectStatus(r, 413, 'RequestEntityTooLarge', 'POST 3 MiB + 16 B');
  expectStatus(await c.request('GET', `${CM}/huge`), 404, 'NotFound', 'the oversized object was not created');
  // the client (and server) keep working afterwards
  const ok = await c.request('GET', `${CM}/exists`);
  assert.is(ok.status, 200, `after 413: ${show(ok)}`);
});

// ------------------------------------------------------------------------------------------ 415

test('415 UnsupportedMediaType for unknown body and patch content types', async () => {
  const cases: { label: string; method: string; path: string; contentType: string; raw: string }[] = [
    { label: 'text/plain create', method: 'POST', path: CM, contentType: 'text/plain', raw: JSON.stringify(cm('plain')) },
    { label: 'application/xml create', method: 'POST', path: CM, contentType: 'application/xml', raw: '<ConfigMap/>' },
    { label: 'text/plain update', method: 'PUT', path: `${CM}/exists`, contentType: 'text/plain', raw: JSON.stringify(cm('exists')) },
    { label: 'unknown patch type', method: 'PATCH', path: `${CM}/exists`, contentType: 'application/foo-patch+json', raw: '{"metadata":{"labels":{"a":"b"}}}' },
    { label: 'plain JSON as patch type', method: 'PATCH', path: `${CM}/exists`, contentType: 'application/json', raw: '{"metadata":{"labels":{"a":"b"}}}' },
    { label: 'text/plain patch', method: 'PATCH', path: `${CM}/exists`, contentType: 'text/plain', raw: '{"metadata":{"labels":{"a":"b"}}}' },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, tc.path, { raw: tc.raw, contentType: tc.contentType });
    expectStatus(r, 415, 'UnsupportedMediaType', `case ${i} (${tc.label})`);
  }
  expectStatus(await c.request('GET', `${CM}/plain`), 404, 'NotFound', 'text/plain create did not happen');
});

// ------------------------------------------------------------------------------------------ 422

test('422 Invalid with one cause per bad field', async () => {
  const cases: { label: string; body: unknown; fields: string[] }[] = [
    { label: 'two bad keys', body: cm('twobad', { data: { 'bad key': 'x', 'also/bad': 'y' } }), fields: ['data[also/bad]', 'data[bad key]'] },
    { label: 'one bad key', body: cm('onebad', { data: { 'bad key': 'x' } }), fields: ['data[bad key]'] },
    { label: 'bad name', body: cm('Not_A_Name'), fields: ['metadata.name'] },
    { label: 'bad name and bad label value', body: cm('UPPER', { metadata: { name: 'UPPER', labels: { a: 'not ok' } } }), fields: ['metadata.labels', 'metadata.name'] },
    { label: 'no name', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, fields: ['metadata.name'] },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request('POST', CM, { body: tc.body });
    expectStatus(r, 422, 'Invalid', `case ${i} (${tc.label})`);
    const causes = (r.json.details?.causes ?? []) as { field: string; reason: string; message: string }[];
    assert.equal(causes.map((x) => x.field).sort(), tc.fields, `case ${i} (${tc.label}): cause fields; ${show(r)}`);
    for (const cause of causes) assert.ok(cause.reason && cause.message, `case ${i}: cause has reason and message: ${JSON.stringify(cause)}`);
    assert.is(r.json.details?.kind, 'ConfigMap', `case ${i}: details.kind`);
    assert.match(r.json.message, /^ConfigMap ".*" is invalid: /, `case ${i}: message`);
  }
});

// ------------------------------------------------------------------------------------------ discovery

test('discovery: /api, /api/v1, /apis, /version', async () => {
  const api = await c.request('GET', '/api');
  assert.is(api.status, 200, show(api));
  assert.is(api.json.kind, 'APIVersions');
  assert.equal(api.json.versions, ['v1']);
  assert.ok(Array.isArray(api.json.serverAddressByClientCIDRs), '/api serverAddressByClientCIDRs');

  const v1 = await c.request('GET', '/api/v1');
  assert.is(v1.status, 200, show(v1));
  assert.is(v1.json.kind, 'APIResourceList');
  assert.is(v1.json.groupVersion, 'v1');
  const byName = new Map<string, any>((v1.json.resources as any[]).map((r) => [r.name, r]));
  const full = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
  // Verb lists as kube-apiserver 1.24 publishes them.
  const want: { name: string; kind: string; namespaced: boolean; verbs: string[]; shortNames?: string[] }[] = [
    { name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: full, shortNames: ['cm'] },
    { name: 'secrets', kind: 'Secret', namespaced: true, verbs: full },
    { name: 'namespaces/status', kind: 'Namespace', namespaced: false, verbs: ['get', 'patch', 'update'] },
    { name: 'namespaces/finalize', kind: 'Namespace', namespaced: false, verbs: ['update'] },
  ];
  for (const [i, w] of want.entries()) {
    const r = byName.get(w.name);
    assert.ok(r, `case ${i}: /api/v1 lists ${w.name}`);
    assert.is(r.kind, w.kind, `case ${i} (${w.name}): kind`);
    assert.is(r.namespaced, w.namespaced, `case ${i} (${w.name}): namespaced`);
    if (w.shortNames) assert.equal(r.shortNames, w.shortNames, `case ${i} (${w.name}): shortNames`);
    assert.equal([...r.verbs].sort(), w.verbs, `case ${i} (${w.name}): verbs`);
  }

  const apis = await c.request('GET', '/apis');
  assert.is(apis.status, 200, show(apis));
  assert.is(apis.json.kind, 'APIGroupList');
  assert.ok(Array.isArray(apis.json.groups), '/apis groups');

  const ver = await c.request('GET', '/version');
  assert.is(ver.status, 200, show(ver));
  assert.is(ver.json.major, '1');
  assert.is(ver.json.minor, '24');
  assert.match(ver.json.gitVersion, /^v1\.24\./);
});

test('discovery: namespaces verbs are those of kube-apiserver (no deletecollection)', async () => {
  const v1 = await c.request('GET', '/api/v1');
  assert.is(v1.status, 200, show(v1));
  const ns = (v1.json.resources as any[]).find((r) => r.name === 'namespaces');
  assert.ok(ns, '/api/v1 lists namespaces');
  assert.is(ns.kind, 'Namespace');
  assert.is(ns.namespaced, false);
  assert.equal(ns.shortNames, ['ns']);
  assert.equal([...ns.verbs].sort(), ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], 'namespaces verbs');
});

// ------------------------------------------------------------------------------------------ health

test('health endpoints: verbose, exclude, single checks', async () => {
  for (const ep of ['livez', 'readyz', 'healthz']) {
    const plain = await c.request('GET', `/${ep}`);
    assert.is(plain.status, 200, `${ep}: ${show(plain)}`);
    assert.is(plain.text, 'ok', `/${ep} body`);
  }
  for (const ep of ['livez', 'readyz']) {
    const v = await c.request('GET', `/${ep}?verbose`);
    assert.is(v.status, 200, `${ep}?verbose: ${show(v)}`);
    const lines = v.text.split('\n').filter((l) => l !== '');
    assert.ok(lines.includes('[+]ping ok'), `/${ep}?verbose has "[+]ping ok": ${v.text}`);
    assert.is(lines[lines.length - 1], `${ep} check passed`, `/${ep}?verbose last line`);

    const ex = await c.request('GET', `/${ep}?verbose&exclude=ping`);
    assert.is(ex.status, 200, show(ex));
    const exLines = ex.text.split('\n');
    assert.ok(exLines.includes('[+]ping excluded: ok'), `/${ep}?exclude=ping: ${ex.text}`);
    assert.not.ok(exLines.includes('[+]ping ok'), `/${ep}?exclude=ping must not run ping: ${ex.text}`);
  }
  // /healthz runs the livez checks (kube-apiserver's healthz has no informer-sync or shutdown).
  const checkNames = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('[')).map((l) => l.replace(/ ok$/, ''));
  const hz = await c.request('GET', '/healthz?verbose');
  assert.is(hz.status, 200, show(hz));
  assert.equal(checkNames(hz.text), checkNames((await c.request('GET', '/livez?verbose')).text), '/healthz?verbose lists the livez checks');
  assert.match(hz.text, /healthz check passed\n$/);
  const one = await c.request('GET', '/readyz/ping');
  assert.is(one.status, 200, show(one));
  assert.is(one.text, 'ok');
  const livePing = await c.request('GET', '/livez/ping');
  assert.is(livePing.status, 200, show(livePing));
  const nope = await c.request('GET', '/readyz/nope');
  assert.is(nope.status, 404, show(nope));
});

// ------------------------------------------------------------------------------------------ survival

test('the process is still serving after every error above', async () => {
  const r = await c.request('GET', '/readyz');
  assert.is(r.status, 200, show(r));
  assert.is(r.text, 'ok');
  const g = await c.request('GET', `${CM}/exists`);
  assert.is(g.status, 200, show(g));
});

test.run();
