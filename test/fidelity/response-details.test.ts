/**
 * Small answers found by the fidelity bench, byte for byte as kube-apiserver 1.24 writes them:
 *   - the pretty serializer (`?pretty=true|1`, or a curl/Wget/browser User-Agent) is
 *     json.MarshalIndent: two-space indent and no trailing newline, for objects, lists and Status;
 *     `pretty=false` (or any non-empty value ParseBool does not read as true) is compact + newline;
 *   - an undecodable continue token reports encoding/json's syntax error;
 *   - a strategic merge patch with an unknown `$patch` directive is a 500 without a reason;
 *   - a merge patch that changes `kind` fails decoding: 422 naming the patched document (its
 *     managedFields included) and the unknown conversion (the data is valid base64, so decoding
 *     as a Secret succeeds and only the conversion fails);
 *   - discovery documents in Protobuf (meta/v1 APIVersions, APIGroupList, APIGroup,
 *     APIResourceList) when the client accepts it first, JSON when JSON comes first;
 *   - /version and the / index are written with json.MarshalIndent (no trailing newline);
 *   - YAML request bodies are read as go-yaml v2 reads them (YAML 1.1 booleans, timestamps kept
 *     as strings).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, Agent } from 'undici';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';
import { PROTOBUF, encodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let CM: string;

const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 800)}`;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('details');
  CM = `/api/v1/namespaces/${ns}/configmaps`;
  const r = await t.client.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { x: '1' } }, data: { a: 'b25l', b: 'dHdv' } } });
  assert.is(r.status, 201, show(r));
});

test.after(async () => {
  await t?.close();
});

test('pretty=true / pretty=1: indented JSON without a trailing newline', async () => {
  for (const q of ['pretty=true', 'pretty=1', 'pretty=True']) {
    for (const path of [`${CM}/c?${q}`, `${CM}?${q}`]) {
      const r = await t.client.request('GET', path);
      assert.is(r.status, 200, show(r));
      assert.is(r.text, JSON.stringify(r.json, null, 2), `${path}: MarshalIndent bytes`);
    }
  }
  // Errors go through the same serializer.
  const e = await t.client.request('GET', `${CM}/nope?pretty=true`);
  assert.is(e.status, 404);
  assert.is(e.text, JSON.stringify(e.json, null, 2));
  assert.ok(e.text.includes('\n  "kind": "Status"'), e.text);
});

test('pretty=false and unparsable values: compact JSON with a newline', async () => {
  for (const q of ['pretty=false', 'pretty=0', 'pretty=yes', 'pretty=']) {
    const r = await t.client.request('GET', `${CM}/c?${q}`);
    assert.is(r.status, 200, show(r));
    assert.is(r.text, JSON.stringify(r.json) + '\n', q);
  }
});

test('a curl User-Agent gets pretty output unless pretty says otherwise', async () => {
  const r = await t.client.request('GET', `${CM}/c`, { headers: { 'User-Agent': 'curl/8.5.0' } });
  assert.is(r.text, JSON.stringify(r.json, null, 2));
  const c = await t.client.request('GET', `${CM}/c?pretty=false`, { headers: { 'User-Agent': 'curl/8.5.0' } });
  assert.is(c.text, JSON.stringify(c.json) + '\n');
});

test('continue token that is not JSON: encoding/json syntax error text', async () => {
  const token = Buffer.from('not-a-token').toString('base64url');
  const r = await t.client.request('GET', `${CM}?limit=2&continue=${token}`);
  assert.is(r.status, 400, show(r));
  assert.is(r.json.message, "invalid continue token: continue key is not valid: invalid character 'o' in literal null (expecting 'u')");
});

test('strategic merge patch with an unknown $patch directive: 500, no reason', async () => {
  for (const [patch, map] of [
    [{ data: { $patch: 'explode' } }, 'map[$patch:explode]'],
    [{ data: { z: '1', $patch: 'explode' } }, 'map[$patch:explode z:1]'],
    [{ $patch: 'explode' }, 'map[$patch:explode]'],
  ] as const) {
    const r = await t.client.request('PATCH', `${CM}/c`, { body: patch, contentType: 'application/strategic-merge-patch+json' });
    assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `unknown patch type: explode in map: ${map}`, code: 500 }) + '\n', show(r));
  }
  const g = await t.client.request('GET', `${CM}/c`);
  assert.equal(g.json.data, { a: 'b25l', b: 'dHdv' }, 'nothing written');
});

test('merge patch that sets kind: 422 naming the patched document with its managedFields', async () => {
  const cur = (await t.client.request('GET', `${CM}/c`)).json;
  assert.ok(cur.metadata.managedFields?.length, 'the object has managedFields');
  const doc = `{"apiVersion":"v1","data":${JSON.stringify(cur.data)},"kind":"Secret","metadata":${JSON.stringify(cur.metadata)}}`;
  const body = `Invalid value: ${JSON.stringify(doc)}: converting (v1.Secret) to (core.ConfigMap): unknown conversion`;
  const r = await t.client.request('PATCH', `${CM}/c`, { body: { kind: 'Secret' }, contentType: 'application/merge-patch+json' });
  assert.is(r.status, 422, show(r));
  assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: ` "" is invalid: patch: ${body}`, reason: 'Invalid', details: { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] }, code: 422 });
});

test('merge patch that sets kind on data that is not base64: the Secret decode error comes first', async () => {
  const name = 'plain';
  const c = await t.client.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'one' } } });
  assert.is(c.status, 201, show(c));
  const r = await t.client.request('PATCH', `${CM}/${name}`, { body: { kind: 'Secret' }, contentType: 'application/merge-patch+json' });
  assert.is(r.status, 422, show(r));
  assert.ok(r.json.message.endsWith('}}": illegal base64 data at input byte 0'), r.json.message);
});

test('YAML bodies resolve plain scalars as go-yaml v2 (YAML 1.1): y/on keys are booleans', async () => {
  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml11\ndata:\n  y: "1"\n  off: "2"\n  t: 2001-12-14\n  s: "1:20"\n  plain: 1:20\n';
  const r = await t.client.request('POST', CM, { raw: yaml, contentType: 'application/yaml' });
  assert.is(r.status, 201, show(r));
  assert.equal(r.json.data, { false: '2', plain: '1:20', s: '1:20', t: '2001-12-14', true: '1' });
  const bad = await t.client.request('POST', CM, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml11b\ndata:\n  k: yes\n', contentType: 'application/yaml' });
  assert.is(bad.status, 400, show(bad));
  assert.ok(bad.json.message.includes('cannot unmarshal bool into Go struct field ConfigMap.data of type string'), bad.json.message);
});

/** A raw GET (bytes and content type) with the target's admin credentials. */
async function rawGet(path: string, accept: string): Promise<{ status: number; body: Buffer; type: string }> {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const r = await request(k.server + path, { headers: { accept }, dispatcher: agent });
    return { status: r.statusCode, body: Buffer.from(await r.body.arrayBuffer()), type: String(r.headers['content-type'] ?? '') };
  } finally {
    await agent.close();
  }
}

test('discovery in Protobuf: the meta/v1 message of the JSON document, byte for byte', async () => {
  for (const path of ['/api', '/api/v1', '/apis', '/apis/events.k8s.io', '/apis/events.k8s.io/v1']) {
    const json = await rawGet(path, 'application/json');
    for (const accept of [PROTOBUF, `${PROTOBUF}, application/json`]) {
      const pb = await rawGet(path, accept);
      assert.is(pb.status, 200, path);
      assert.is(pb.type, PROTOBUF, `${path} [${accept}]`);
      assert.equal(pb.body, encodeProtobuf(JSON.parse(json.body.toString('utf8'))), `${path}: protobuf bytes`);
    }
    const j = await rawGet(path, `application/json, ${PROTOBUF}`);
    assert.is(j.type, 'application/json', `${path}: JSON first`);
  }
});

test('/version and / are indented JSON without a trailing newline', async () => {
  for (const path of ['/version', '/']) {
    const r = await t.client.request('GET', path);
    assert.is(r.status, 200);
    assert.is(r.text, JSON.stringify(r.json, null, 2), path);
  }
});

test.run();
