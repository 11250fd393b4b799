/**
 * Response negotiation and body media types of resource requests, as kube-apiserver 1.24 answers
 * them: the go-restful router's 406/415 ("406: Not Acceptable", empty details) before any handler
 * runs, then the handler's own negotiation (quality order, `as`/`g`/`v`, `stream`, `sv`).
 * Runs against this server and, with TEST_KUBECONFIG, the reference kube-apiserver.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, normalize, type Target } from '../target.ts';
import { show } from '../assertions.ts';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('negot');
  const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'cm' }, data: { k: 'v' } } });
  assert.is(r.status, 201, show(r));
});
test.after(async () => {
  await t?.close();
});

const status = (code: number, reason: string, message: string, details?: unknown): unknown => {
  const s: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) s.details = details;
  return s;
};
const ROUTE_406 = status(406, 'NotAcceptable', '406: Not Acceptable', {});
const HANDLER_406 = status(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
const ROUTE_415 = status(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
const BODY_415 = status(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');

test('GET: Accept headers → representation or the router/handler 406', async () => {
  // [Accept, expected Content-Type of a 200 | expected Status body]
  const cases: [string, string | unknown][] = [
    ['application/json', 'application/json'],
    [' application/json', 'application/json'],
    ['application/xml, */*', 'application/json'],
    ['*/*;q=0.8', 'application/json'],
    ['application/json;stream=watch', 'application/json'],
    ['application/json;q=0.5, application/yaml', 'application/yaml'],
    ['application/xml, */*;q=0.1', 'application/json'],
    ['application/vnd.kubernetes.protobuf, application/json', 'application/vnd.kubernetes.protobuf'],
    ['application/*', ROUTE_406],
    ['text/html', ROUTE_406],
    ['Application/JSON', ROUTE_406],
    ['application/json-patch+json', ROUTE_406],
    ['application/json;as=Foo;g=meta.k8s.io;v=v1', HANDLER_406],
    ['application/json;as=Table;g=foo;v=v1', HANDLER_406],
    ['application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1', HANDLER_406],
    ['application/yaml;stream=watch', HANDLER_406],
    ['application/json;sv=v2', HANDLER_406],
  ];
  for (const [i, [accept, want]] of cases.entries()) {
    const r = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/cm`, { headers: { accept } });
    if (typeof want === 'string') {
      assert.is(r.status, 200, `case ${i} (${accept}): ${show(r)}`);
      assert.is(String(r.headers['content-type']).split(';')[0], want, `case ${i} (${accept}): content type`);
    } else {
      assert.equal([r.status, normalize(r.json)], [(want as { code: number }).code, want], `case ${i} (${accept}): ${show(r)}`);
    }
  }
});

test('PATCH: the router checks the patch Content-Type (415 with a body, 406 without) before Accept', async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps/cm`;
  const cases: [string, string | undefined, string, unknown][] = [
    ['text/plain', '{}', 'text/html', ROUTE_415],
    ['Application/merge-patch+json', '{}', 'application/json', ROUTE_415],
    ['text/plain', undefined, 'application/json', ROUTE_406],
    ['application/merge-patch+json', '{}', 'text/html', ROUTE_406],
  ];
  for (const [i, [contentType, raw, accept, want]] of cases.entries()) {
    const headers: Record<string, string> = { accept };
    if (raw === undefined) headers['content-type'] = contentType;
    const r = await t.client.request('PATCH', path, raw === undefined ? { headers } : { raw, contentType, headers });
    assert.equal([r.status, normalize(r.json)], [(want as { code: number }).code, want], `case ${i} (${contentType}, ${accept}): ${show(r)}`);
  }
  const g = await t.client.request('GET', path);
  assert.equal(g.json.data, { k: 'v' }, 'nothing patched');
});

test('POST/PUT/DELETE bodies: only JSON, YAML and Protobuf (the handler 415 after the Accept check)', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const cases: [string, string, string, string, unknown][] = [
    ['POST', base, 'text/plain', 'application/json', BODY_415],
    ['POST', base, 'application/x-yaml', 'application/json', BODY_415],
    ['POST', base, 'text/yaml', 'application/json', BODY_415],
    ['POST', base, 'text/plain', 'text/html', ROUTE_406],
    ['PUT', `${base}/cm`, 'text/plain', 'application/json', BODY_415],
    ['DELETE', `${base}/cm`, 'text/plain', 'application/json', BODY_415],
    ['DELETE', `${base}/cm`, 'application/x-yaml', 'application/json', BODY_415],
  ];
  for (const [i, [method, path, contentType, accept, want]] of cases.entries()) {
    const r = await t.client.request(method, `${path}?dryRun=All`, { raw: 'metadata: {name: cm}', contentType, headers: { accept } });
    assert.equal([r.status, normalize(r.json)], [(want as { code: number }).code, want], `case ${i} (${method} ${contentType}): ${show(r)}`);
  }
  const g = await t.client.request('GET', `${base}/cm`);
  assert.is(g.status, 200, 'still there');
});

test.run();
