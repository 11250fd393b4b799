/**
 * Decoding of write bodies as kube-apiserver 1.24's Go decoder does it: unknown fields dropped
 * (JSON, YAML, patches), wrong types / bad base64 / wrong TypeMeta as 400 with Go's message,
 * duplicate keys resolved as encoding/json resolves them, omitempty round trips and the stored
 * JSON's key order (Go struct order). Runs against this server and, with TEST_KUBECONFIG, the
 * reference. The gate-on behaviour (fieldValidation) is local only: the reference runs 1.24's
 * defaults, where ServerSideFieldValidation is off.
 */
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { encodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let n = 0;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('decode');
});
test.after(async () => {
  await t?.close();
});

const post = (resource: string, raw: string | Buffer, opts: { contentType?: string; query?: string } = {}) =>
  t.client.request('POST', `/api/v1/namespaces/${ns}/${resource}${opts.query ?? ''}`, { raw, contentType: opts.contentType ?? 'application/json' });

const badRequest = (message: string): unknown => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });

/** The stored object's raw JSON with volatile values blanked, keys in the order served. */
async function rawStored(resource: string, name: string): Promise<string> {
  const r = await t.client.request('GET', `/api/v1/namespaces/${ns}/${resource}/${name}`);
  assert.is(r.status, 200, show(r));
  const o = JSON.parse(r.text);
  delete o.metadata.managedFields;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp']) if (o.metadata[k]) o.metadata[k] = 'X';
  return JSON.stringify(o);
}

test('unknown fields at every level are dropped silently (fieldValidation ignored in 1.24)', async () => {
  const name = `u${++n}`;
  const r = await post('configmaps', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, bogus: 1, labels: { a: 'b' } }, data: { x: '1' }, Data: { y: '2' }, bogus: { z: 1 } }), { query: '?fieldValidation=Strict' });
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, undefined);
  assert.is(await rawStored('configmaps', name), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${name}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X","labels":{"a":"b"}},"data":{"x":"1"}}`);
  // YAML too.
  const y = `${name}y`;
  const ry = await post('configmaps', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${y}\n  foo: bar\ndata:\n  k: v\nextra: 1\n`, { contentType: 'application/yaml' });
  assert.is(ry.status, 201, show(ry));
  assert.is(await rawStored('configmaps', y), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${y}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X"},"data":{"k":"v"}}`);
});

test('patches: unknown fields in the patched result are dropped (merge, JSON, strategic)', async () => {
  const name = `p${++n}`;
  assert.is((await post('configmaps', JSON.stringify({ metadata: { name }, data: { a: '1' } }))).status, 201);
  const path = `/api/v1/namespaces/${ns}/configmaps/${name}`;
  const patches: Array<[string, unknown]> = [
    ['application/merge-patch+json', { bogus: 1, metadata: { bad: 2 } }],
    ['application/strategic-merge-patch+json', { bogus2: 1, metadata: { bad2: 2 } }],
    ['application/json-patch+json', [{ op: 'add', path: '/bogus3', value: 1 }]],
  ];
  for (const [ct, body] of patches) {
    const r = await t.client.request('PATCH', path, { raw: JSON.stringify(body), contentType: ct });
    assert.is(r.status, 200, show(r));
  }
  assert.is(await rawStored('configmaps', name), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${name}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X"},"data":{"a":"1"}}`);
});

test('wrong types, bad base64, bad times: 400 with Go\'s message', async () => {
  const pre = 'ConfigMap in version "v1" cannot be handled as a ConfigMap: ';
  const cases: Array<[string, string, string]> = [
    ['configmaps', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w1"},"data":{"x":1}}', `${pre}json: cannot unmarshal number into Go struct field ConfigMap.data of type string`],
    ['configmaps', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w2"},"data":"s"}', `${pre}json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string`],
    ['configmaps', '{"metadata":{"name":"w3","labels":"x"}}', `${pre}json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string`],
    ['configmaps', '{"metadata":{"name":"w4"},"immutable":"yes"}', `${pre}json: cannot unmarshal string into Go struct field ConfigMap.immutable of type bool`],
    ['configmaps', '{"metadata":{"name":"w5","generation":1.0}}', `${pre}json: cannot unmarshal number 1.0 into Go struct field ObjectMeta.metadata.generation of type int64`],
    ['configmaps', '{"metadata":{"name":"w6","finalizers":[1]}}', `${pre}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string`],
    ['configmaps', '{"metadata":{"name":"w7","creationTimestamp":"bad"}}', `${pre}parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"`],
    // time's own quoting: bytes of control and non-ASCII runes as \xNN, `"` escaped.
    ['configmaps', '{"metadata":{"name":"w7b","creationTimestamp":"2020-01-01T00:00:00\\u0001é\\"Z"}}', `${pre}parsing time "2020-01-01T00:00:00\\x01\\xc3\\xa9\\"Z" as "2006-01-02T15:04:05Z07:00": cannot parse "\\x01\\xc3\\xa9\\"Z" as "Z07:00"`],
    ['configmaps', '{"metadata":{"name":"w8","creationTimestamp":5}}', `${pre}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string`],
    ['configmaps', '{"metadata":{"name":"w9","ownerReferences":[{"apiVersion":"v1","kind":"X","name":"n","uid":"u","controller":"t"}]}}', `${pre}json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool`],
    ['secrets', '{"metadata":{"name":"w10"},"data":{"x":"!!!"}}', 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0'],
    ['configmaps', '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"w11"}}', 'ConfigMap in version "v2" cannot be handled as a ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:100"'],
    ['configmaps', '{"apiVersion":"v1","kind":"Foo","metadata":{"name":"w12"}}', 'Foo in version "v1" cannot be handled as a ConfigMap: no kind "Foo" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"'],
    ['configmaps', '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"w13"}}', 'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
  ];
  cases.push(['configmaps', '{"metadata":{"name":"w14","generation":1e3}}', `${pre}json: cannot unmarshal number 1e3 into Go struct field ObjectMeta.metadata.generation of type int64`]);
  cases.push(['configmaps', '{"metadata":{"name":"w15","generation":9223372036854775808}}', `${pre}json: cannot unmarshal number 9223372036854775808 into Go struct field ObjectMeta.metadata.generation of type int64`]);
  cases.push(['configmaps', '{"metadata":{"name":"w16","deletionGracePeriodSeconds":2.5}}', `${pre}json: cannot unmarshal number 2.5 into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64`]);
  for (const [resource, body, message] of cases) {
    const r = await post(resource, body);
    assert.equal(r.json, badRequest(message), `${body}\n${show(r)}`);
  }
});

test('duplicate keys resolve as Go does; omitempty empties and nulls; base64 canonical; key order', async () => {
  const name = `d${++n}`;
  const r = await post('configmaps', `{"metadata":{"name":"${name}","labels":{},"annotations":null,"finalizers":[]},"data":{"x":"1"},"data":{"y":"2","n":null},"binaryData":{}}`);
  assert.is(r.status, 201, show(r));
  assert.is(await rawStored('configmaps', name), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${name}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X"},"data":{"n":"","x":"1","y":"2"}}`);
  const s = `s${++n}`;
  const rs = await post('secrets', `{"metadata":{"name":"${s}"},"type":"Opaque","data":{"a":"YR==","b":"YWJj\\nZA=="},"kind":"Secret","apiVersion":"v1"}`);
  assert.is(rs.status, 201, show(rs));
  assert.is(await rawStored('secrets', s), `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"${s}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X"},"data":{"a":"YQ==","b":"YWJjZA=="},"type":"Opaque"}`);
  // The create response is the stored object, byte for byte (after blanking the same fields).
  const echo = JSON.parse(rs.text);
  assert.equal(Object.keys(echo.metadata), ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'managedFields']);
});

test('unreadable bodies: syntax errors and non-string version/kind as "the object provided is unrecognized"', async () => {
  const pre = 'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: ';
  const FIND_KIND = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  const cases: Array<[string, string]> = [
    ['{"a":', 'unexpected end of JSON input ({"a":)'],
    ['{bad}', "invalid character 'b' looking for beginning of object key string ({bad})"],
    ['{"a" 1}', "invalid character '1' after object key ({\"a\" 1})"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair ({"a":1 "b":2})'],
    ['[1,2', 'unexpected end of JSON input (5b312c32)'],
    ['{"a":1}x', "invalid character 'x' after top-level value ({\"a\":1}x)"],
    ['', 'unexpected end of JSON input (<empty>)'],
    ['"str"', `json: cannot unmarshal string into Go value of type ${FIND_KIND} (2273747222)`],
    ['12', `json: cannot unmarshal number into Go value of type ${FIND_KIND} (3132)`],
    ['[1]', `json: cannot unmarshal array into Go value of type ${FIND_KIND} (5b315d)`],
    ['{"apiVersion":1,"kind":"ConfigMap","metadata":{"name":"b4"}}', 'json: cannot unmarshal number into Go struct field .apiVersion of type string ({"apiVersion":1,"kind":"Config ...)'],
    ['{"kind":["x"]}', 'json: cannot unmarshal array into Go struct field .kind of type string ({"kind":["x"]})'],
    ['{"metadata":{"name":"q"},"data":{"a":tru}}', "invalid character '}' in literal true (expecting 'e') ({\"metadata\":{\"name\":\"q\"},\"data ...)"],
    ['{"metadata":{"name":"q"},"data":{"a":01}}', "invalid character '1' after object key:value pair ({\"metadata\":{\"name\":\"q\"},\"data ...)"],
  ];
  for (const [body, why] of cases) {
    const r = await post('configmaps', body, { query: '?dryRun=All' });
    assert.equal(r.json, badRequest(pre + why), `${body}\n${show(r)}`);
  }
});

test('Go type names in messages: named types, slices, nested structs (Namespace)', async () => {
  const pre = 'Namespace in version "v1" cannot be handled as a Namespace: ';
  const cases: Array<[unknown, string]> = [
    [{ spec: { finalizers: [1] } }, 'json: cannot unmarshal number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName'],
    [{ spec: { finalizers: 'k' } }, 'json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName'],
    [{ status: { phase: 1 } }, 'json: cannot unmarshal number into Go struct field NamespaceStatus.status.phase of type v1.NamespacePhase'],
    [{ status: { conditions: [{ type: 1 }] } }, 'json: cannot unmarshal number into Go struct field NamespaceCondition.status.conditions.type of type v1.NamespaceConditionType'],
    [{ spec: 'x' }, 'json: cannot unmarshal string into Go struct field Namespace.spec of type v1.NamespaceSpec'],
    [{ status: { conditions: [{ type: 'a', lastTransitionTime: 1 }] } }, 'json: cannot unmarshal number into Go struct field NamespaceCondition.status.conditions.lastTransitionTime of type string'],
    [{ status: { conditions: 'x' } }, 'json: cannot unmarshal string into Go struct field NamespaceStatus.status.conditions of type []v1.NamespaceCondition'],
  ];
  for (const [extra, message] of cases) {
    const r = await t.client.request('POST', '/api/v1/namespaces?dryRun=All', { body: { metadata: { name: t.ns('typ') }, ...(extra as object) } });
    assert.equal(r.json, badRequest(pre + message), show(r));
  }
});

test('YAML bodies: a later duplicate key wins (no merge), floats that are integers pass, type errors as JSON', async () => {
  const yaml = 'application/yaml';
  const dup = await post('configmaps', 'metadata:\n  name: y1\ndata:\n  a: "1"\ndata:\n  b: "2"\n', { contentType: yaml, query: '?dryRun=All' });
  assert.is(dup.status, 201, show(dup));
  assert.equal(dup.json.data, { b: '2' });
  const gen = await post('configmaps', 'metadata:\n  name: y2\n  generation: 1.0\n', { contentType: yaml, query: '?dryRun=All' });
  assert.is(gen.status, 201, show(gen));
  const bad = await post('configmaps', 'metadata:\n  name: y3\ndata:\n  a: 1\n', { contentType: yaml, query: '?dryRun=All' });
  assert.equal(bad.json, badRequest('ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string'));
});

test('Protobuf bodies are decoded into the same Go shape (map keys sorted, Go key order)', async () => {
  const name = `pb${++n}`;
  const raw = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { z: '1', a: '2' } }, data: { b: '1', a: '2' } });
  const r = await post('configmaps', raw, { contentType: 'application/vnd.kubernetes.protobuf' });
  assert.is(r.status, 201, show(r));
  assert.is(await rawStored('configmaps', name), `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"${name}","namespace":"${ns}","uid":"X","resourceVersion":"X","creationTimestamp":"X","labels":{"a":"2","z":"1"}},"data":{"a":"2","b":"1"}}`);
});

test('malformed patch bodies: encoding/json scanner messages (merge: "Invalid JSON Patch")', async () => {
  const name = `mp${++n}`;
  assert.is((await post('configmaps', JSON.stringify({ metadata: { name } }))).status, 201);
  const cases: Array<[string, string, string]> = [
    ['application/json-patch+json', 'nope', "invalid character 'o' in literal null (expecting 'u')"],
    ['application/json-patch+json', '[{"op":"add"', 'unexpected end of JSON input'],
    ['application/strategic-merge-patch+json', 'nope', "invalid character 'o' in literal null (expecting 'u')"],
    ['application/strategic-merge-patch+json', '{"a":', 'unexpected end of JSON input'],
    ['application/merge-patch+json', 'nope', 'Invalid JSON Patch'],
  ];
  for (const [contentType, raw, message] of cases) {
    const r = await t.client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${name}`, { raw, contentType });
    assert.equal(r.json, badRequest(message), `${contentType} ${raw}\n${show(r)}`);
  }
});

test('stored and echoed JSON escapes <, >, & and U+2028 as Go does', async () => {
  const name = `esc${++n}`;
  const r = await post('configmaps', JSON.stringify({ metadata: { name, annotations: { a: 'x<y>&z\u2028' } }, data: { k: '<&>' } }));
  assert.is(r.status, 201, show(r));
  const g = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
  for (const text of [r.text, g.text]) {
    assert.ok(text.includes('"a":"x\\u003cy\\u003e\\u0026z\\u2028"'), text);
    assert.ok(text.includes('"data":{"k":"\\u003c\\u0026\\u003e"}'), text);
  }
  const dry = await post('configmaps', JSON.stringify({ metadata: { name: `${name}d` }, data: { k: '<' } }), { query: '?dryRun=All' });
  assert.ok(dry.text.includes('"data":{"k":"\\u003c"}'), dry.text);
});

test('merge and JSON patches whose result does not decode: 422 on the patched document', async () => {
  const name = `pu${++n}`;
  assert.is((await post('configmaps', JSON.stringify({ metadata: { name } }))).status, 201);
  const path = `/api/v1/namespaces/${ns}/configmaps/${name}`;
  const doc = (extra: string, top = '"apiVersion":"v1"', kind = 'ConfigMap'): string =>
    `{${top},${extra}"kind":"${kind}","metadata":{"name":"${name}","namespace":"NS","uid":"UID","resourceVersion":"RV","creationTimestamp":"TS"}}`;
  const cases: Array<[string, string, string, string]> = [
    ['application/merge-patch+json', '{"data":{"x":1}}', doc('"data":{"x":1},'), 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['application/json-patch+json', '[{"op":"add","path":"/data","value":{"x":1}}]', doc('"data":{"x":1},'), 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['application/merge-patch+json', '{"kind":"Secret"}', doc('', '"apiVersion":"v1"', 'Secret'), 'converting (v1.Secret) to (core.ConfigMap): unknown conversion'],
    ['application/merge-patch+json', '{"apiVersion":"v2"}', doc('', '"apiVersion":"v2"'), 'no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:100"'],
  ];
  for (const [contentType, raw, document, why] of cases) {
    const r = await t.client.request('PATCH', path, { raw, contentType });
    assert.is(r.status, 422, show(r));
    const norm = (m: string): string =>
      m.replaceAll(ns, 'NS').replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'UID').replace(/\\"resourceVersion\\":\\"\d+\\"/g, '\\"resourceVersion\\":\\"RV\\"').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, 'TS');
    const body = `Invalid value: ${JSON.stringify(document)}: ${why}`;
    assert.is(norm(r.json.message), ` "" is invalid: patch: ${body}`, `${contentType} ${raw}`);
    assert.equal(r.json.details.causes.map((c: { message: string }) => norm(c.message)), [body]);
  }
});

/** A response body with volatile values blanked and the run's namespace as NS, keys as served. */
function blank(text: string): string {
  const o = JSON.parse(text);
  const m = o.metadata;
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp']) if (m[k]) m[k] = 'X';
  if (m.managedFields) m.managedFields = m.managedFields.map((e: Record<string, unknown>) => ({ ...e, time: 'T' }));
  return JSON.stringify(o).replaceAll(ns, 'NS');
}

test('echoed bodies of create, dry-run create, update, dry-run patch: Go key order byte for byte', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const json = 'application/json';
  const mf = (fields: string): string => `"managedFields":[{"manager":"unknown","operation":"Update","apiVersion":"v1","time":"T","fieldsType":"FieldsV1","fieldsV1":${fields}}]`;
  const steps: Array<[string, string, string, string, string]> = [
    ['POST', `${base}?dryRun=All`, json, '{"metadata":{"name":"e1","labels":{"b":"1","a":"2"},"finalizers":["x/y"]},"data":{"b":"1","a":"2"}}',
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"e1","namespace":"NS","uid":"X","creationTimestamp":"X","labels":{"a":"2","b":"1"},"finalizers":["x/y"],${mf('{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:finalizers":{".":{},"v:\\"x/y\\"":{}},"f:labels":{".":{},"f:a":{},"f:b":{}}}}')}},"data":{"a":"2","b":"1"}}`],
    ['POST', base, json, '{"metadata":{"name":"e1","labels":{"b":"1","a":"2"}},"data":{"b":"1","a":"2"}}',
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"e1","namespace":"NS","uid":"X","resourceVersion":"X","creationTimestamp":"X","labels":{"a":"2","b":"1"},${mf('{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{".":{},"f:a":{},"f:b":{}}}}')}},"data":{"a":"2","b":"1"}}`],
    ['PUT', `${base}/e1`, json, '{"metadata":{"name":"e1","annotations":{"z":"1"}},"immutable":false,"data":{"b":"1","a":"2"}}',
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"e1","namespace":"NS","uid":"X","resourceVersion":"X","creationTimestamp":"X","annotations":{"z":"1"},${mf('{"f:data":{".":{},"f:a":{},"f:b":{}},"f:immutable":{},"f:metadata":{"f:annotations":{".":{},"f:z":{}}}}')}},"immutable":false,"data":{"a":"2","b":"1"}}`],
    ['PATCH', `${base}/e1?dryRun=All`, 'application/merge-patch+json', '{"metadata":{"labels":{"c":"3"}}}',
      `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"e1","namespace":"NS","uid":"X","resourceVersion":"X","creationTimestamp":"X","labels":{"c":"3"},"annotations":{"z":"1"},${mf('{"f:data":{".":{},"f:a":{},"f:b":{}},"f:immutable":{},"f:metadata":{"f:annotations":{".":{},"f:z":{}},"f:labels":{".":{},"f:c":{}}}}')}},"immutable":false,"data":{"a":"2","b":"1"}}`],
    ['POST', `/api/v1/namespaces/${ns}/secrets`, json, '{"metadata":{"name":"s1"},"stringData":{"a":"b"}}',
      `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s1","namespace":"NS","uid":"X","resourceVersion":"X","creationTimestamp":"X",${mf('{"f:data":{".":{},"f:a":{}},"f:type":{}}')}},"data":{"a":"Yg=="},"type":"Opaque"}`],
  ];
  for (const [method, path, contentType, raw, want] of steps) {
    const r = await t.client.request(method, path, { raw, contentType });
    assert.ok(r.status < 300, show(r));
    assert.is(blank(r.text), want, `${method} ${path}`);
  }
});

/** kubectl (1.32 on PATH) against the target; resolves exit code and stdout. */
function kubectl(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, KUBECACHEDIR: join(tmpdir(), 'decode-kubectl-cache'), KUBECTL_EXTERNAL_DIFF: 'diff -u' };
    const child = execFile('kubectl', ['--kubeconfig', t.kubeconfig, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout, err: stderr }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

test('kubectl diff -f of an applied manifest shows nothing (empties, key order, base64)', async () => {
  const manifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kd${++n}
  namespace: ${ns}
  labels: {}
  annotations: {}
data:
  z: "1"
  a: "2"
---
apiVersion: v1
kind: Secret
metadata:
  name: kds${n}
  namespace: ${ns}
type: Opaque
data:
  k: YR==
stringData: {}
`;
  const applied = await kubectl(['apply', '-f', '-'], manifest);
  assert.is(applied.code, 0, applied.err);
  const diff = await kubectl(['diff', '-f', '-'], manifest);
  // The Secret's data is shown masked; a canonicalized base64 value is not a change kube reports.
  assert.is(diff.err, '');
  assert.is(diff.out, '');
  assert.is(diff.code, 0);
});

test.run();
