/**
 * fieldValidation with the ServerSideFieldValidation gate on (`--feature-gates`), as later
 * Kubernetes releases answer it: Ignore drops unknown and duplicate fields silently, Warn adds one
 * `Warning: 299` header each, Strict refuses the body with 400 (`strict decoding error: …`). The
 * reference runs 1.24's defaults (gate off; see test/fidelity/decoding.test.ts), so this suite is
 * local only. The gate off is covered there too.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './harness.ts';
import { FeatureGates } from '../internal/features/gates.ts';
import { show } from './assertions.ts';

let s: TestServer;
const ns = 'fv';

test.before(async () => {
  s = await startTestServer({ featureGates: new FeatureGates('ServerSideFieldValidation=true') });
  const r = await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
  assert.is(r.status, 201, show(r));
});
test.after(async () => {
  await s?.close();
});

const BODY = (name: string): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","bogus":1},"data":{"a":"1"},"data":{"b":"2"},"spec":{"foo":1}}`;
const post = (query: string, raw: string, contentType = 'application/json') => s.client.request('POST', `/api/v1/namespaces/${ns}/configmaps${query}`, { raw, contentType });
const warnings = (h: Record<string, string | string[] | undefined>): string[] => {
  const w = h.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : w.split(/,(?= ?299 )/).map((x) => x.trim());
};

test('Strict: 400 listing duplicate and unknown fields', async () => {
  const r = await post('?fieldValidation=Strict', BODY('s1'));
  assert.is(r.status, 400, show(r));
  assert.is(r.json.reason, 'BadRequest');
  assert.is(r.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data", unknown field "metadata.bogus", unknown field "spec"');
  const g = await s.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/s1`);
  assert.is(g.status, 404);
});

test('Warn (and the default with the gate on): one warning each, fields dropped', async () => {
  for (const [query, name] of [['?fieldValidation=Warn', 'w1'], ['', 'w2']]) {
    const r = await post(query, BODY(name));
    assert.is(r.status, 201, show(r));
    assert.equal(warnings(r.headers), ['299 - "duplicate field \\"data\\""', '299 - "unknown field \\"metadata.bogus\\""', '299 - "unknown field \\"spec\\""']);
    assert.equal(r.json.data, { a: '1', b: '2' });
    assert.is(r.json.metadata.bogus, undefined);
    assert.is(r.json.spec, undefined);
  }
});

test('Ignore: silent', async () => {
  const r = await post('?fieldValidation=Ignore', BODY('i1'));
  assert.is(r.status, 201, show(r));
  assert.equal(warnings(r.headers), []);
  assert.equal(r.json.data, { a: '1', b: '2' });
});

test('Strict on update (400) and merge patch (422 on the patched document, decoded again)', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  assert.is((await post('', '{"metadata":{"name":"p1"}}')).status, 201);
  const put = await s.client.request('PUT', `${base}/p1?fieldValidation=Strict`, { raw: '{"metadata":{"name":"p1"},"x":{"y":1}}', contentType: 'application/json' });
  assert.is(put.status, 400, show(put));
  assert.is(put.json.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "x"');
  const patch = await s.client.request('PATCH', `${base}/p1?fieldValidation=Strict`, { raw: '{"metadata":{"labels":{"a":"b"},"zz":1}}', contentType: 'application/merge-patch+json' });
  // A patch reports it on the patched document, 422 (handlers/patch.go applyPatch).
  assert.is(patch.status, 422, show(patch));
  assert.match(patch.json.message, /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "metadata.zz"$/);
  assert.equal(patch.json.details.causes.map((c: { field: string }) => c.field), ['patch']);
  const ok = await s.client.request('PATCH', `${base}/p1?fieldValidation=Warn`, { raw: '{"metadata":{"labels":{"a":"b"},"zz":1}}', contentType: 'application/merge-patch+json' });
  assert.is(ok.status, 200, show(ok));
  assert.equal(warnings(ok.headers), ['299 - "unknown field \\"metadata.zz\\""']);
  assert.equal(ok.json.metadata.labels, { a: 'b' });
});

test('server-side apply: Strict refuses duplicate keys (400) after the apply, Warn and the default warn once per key', async () => {
  const body = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n  "b": p\n  "b": q\n`;
  const apply = (name: string, query: string) =>
    s.client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}?fieldManager=m${query}`, { raw: body(name), contentType: 'application/apply-patch+yaml' });
  const strict = await apply('ap-s', '&fieldValidation=Strict');
  assert.is(strict.status, 400, show(strict));
  assert.is(strict.json.message, 'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map\n  line 9: key "b" already set in map');
  for (const [name, query] of [['ap-w', '&fieldValidation=Warn'], ['ap-d', '']]) {
    const r = await apply(name, query);
    assert.is(r.status, 201, show(r));
    assert.equal(warnings(r.headers), ['299 - "line 7: key \\"a\\" already set in map"', '299 - "line 9: key \\"b\\" already set in map"']);
    assert.equal(r.json.data, { a: '2', b: 'q' });
  }
  const ignore = await apply('ap-i', '&fieldValidation=Ignore');
  assert.is(ignore.status, 201, show(ignore));
  assert.equal(warnings(ignore.headers), []);
});

test.run();
