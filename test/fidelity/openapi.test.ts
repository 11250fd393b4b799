/**
 * OpenAPI served as kube-apiserver 1.24 serves it: `/openapi/v2` (JSON, gnostic protobuf, ETag →
 * 304, gzip, 406), `/openapi/v3` discovery and the per-group-version documents (hash links,
 * immutable caching, 301 on a stale hash, 404), the documents' content for what this server
 * serves, and the kubectl commands built on them (`explain`, client-side validation).
 *
 * Content is compared through test/fidelity/golden/openapi.json: for every path item and every
 * definition this server serves, the SHA-256 of its canonical JSON as the reference serves it,
 * plus kubectl's outputs. The suite checks the reference against it too, so the golden file is
 * kube's answer. Regenerate it (after adding a kind) from the reference:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/openapi.test.ts
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { decodeSwagger, encodeSwagger } from '../../internal/http/openapi/proto.ts';
import { decodeOpenApiV3, encodeOpenApiV3 } from '../../internal/http/openapi/proto3.ts';
import { Registry } from '../../internal/registry/registry.ts';
import { namespaceKind, configMapKind } from '../../internal/registry/core/index.ts';
import { defaultKinds } from '../../internal/registry/kinds.ts';
import { generatedSource, descriptionsOf } from '../../internal/schema/registry.ts';
import { buildSwagger, generatedProvider } from '../../internal/http/openapi/v2.ts';
import { buildV3 } from '../../internal/http/openapi/v3.ts';
import { startTestServer } from '../harness.ts';

const GOLDEN = join(import.meta.dirname, 'golden', 'openapi.json');
const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let t: Target;
let agent: Agent;
let base: string;

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Raw bytes and headers (the harness client decodes JSON; here the bytes matter). */
async function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  const r = await request(base + path, { method: method as 'GET', headers, dispatcher: agent });
  const body = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, headers: r.headers as Raw['headers'], body };
}

const canon = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]));
  return v;
};
const sha = (v: unknown): string => createHash('sha256').update(JSON.stringify(canon(v))).digest('hex');

interface Golden {
  v2: { paths: Record<string, string>; definitions: Record<string, string> };
  v3: Record<string, { paths: Record<string, string>; schemas: Record<string, string> }>;
  kubectl: Record<string, string>;
}

const KUBECTL_RUNS: Record<string, string[]> = {
  'explain configmap.data': ['explain', 'configmap.data'],
  'explain secret --recursive': ['explain', 'secret', '--recursive'],
  // Enum fields: kubectl prints the served `enum` as ENUM lines after the description.
  'explain namespace.status.phase': ['explain', 'namespace.status.phase'],
  'explain service.spec.ports.protocol': ['explain', 'service.spec.ports.protocol'],
  'explain storageclass.provisioner': ['explain', 'storageclass.provisioner'],
  'explain volumeattachment.spec.source': ['explain', 'volumeattachment.spec.source'],
  'explain csidriver.spec.fsGroupPolicy': ['explain', 'csidriver.spec.fsGroupPolicy'],
  'explain csinode.spec.drivers': ['explain', 'csinode.spec.drivers'],
  'explain csistoragecapacity --recursive': ['explain', 'csistoragecapacity', '--recursive'],
};

let kcDir: string;
function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', t.kubeconfig, ...args], { env: { ...process.env, KUBECACHEDIR: join(kcDir, 'cache') }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

test.before(async () => {
  t = await startTarget();
  const k = readKubeconfig(t.kubeconfig);
  agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  base = t.url;
  kcDir = mkdtempSync(join(tmpdir(), 'openapi-kubectl-'));
});
test.after(async () => {
  await agent?.close();
  await t?.close();
});

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(', ') : v);
const varies = (h: Raw['headers']): string[] => (Array.isArray(h.vary) ? h.vary : (h.vary ?? '').split(',')).map((s) => s.trim()).filter(Boolean);

test('GET /openapi/v2 (JSON): headers kube-openapi sends', async () => {
  const r = await raw('/openapi/v2', { accept: 'application/json' });
  assert.is(r.status, 200);
  assert.is(one(r.headers['content-type']), 'text/plain; charset=utf-8');
  assert.is(one(r.headers['cache-control']), 'no-cache, private');
  assert.is(one(r.headers['accept-ranges']), 'bytes');
  assert.match(one(r.headers.etag) ?? '', /^"[0-9A-F]{128}"$/);
  assert.ok(one(r.headers['last-modified']));
  assert.equal(varies(r.headers), ['Accept-Encoding', 'Accept']);
  assert.is(one(r.headers['content-length']), String(r.body.length));
  // The ETag is the SHA-512 of exactly these bytes.
  assert.is(one(r.headers.etag), `"${createHash('sha512').update(r.body).digest('hex').toUpperCase()}"`);
  const doc = JSON.parse(r.body.toString('utf8'));
  assert.is(doc.swagger, '2.0');
  assert.equal(doc.info, { title: 'Kubernetes', version: 'v1.24.17' });
  assert.equal(doc.security, [{ BearerToken: [] }]);
  assert.equal(doc.securityDefinitions, { BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' } });
});

test('If-None-Match with the ETag → 304 without a body; a stale one → 200', async () => {
  const first = await raw('/openapi/v2', { accept: 'application/json' });
  const etag = one(first.headers.etag)!;
  const r = await raw('/openapi/v2', { accept: 'application/json', 'if-none-match': etag });
  assert.is(r.status, 304);
  assert.is(r.body.length, 0);
  assert.is(one(r.headers.etag), etag);
  assert.is(r.headers['content-type'], undefined);
  assert.equal(varies(r.headers), ['Accept-Encoding', 'Accept']);
  const stale = await raw('/openapi/v2', { accept: 'application/json', 'if-none-match': '"0"' });
  assert.is(stale.status, 200);
});

test('Accept-Encoding: gzip → gzip body (no Content-Length), same bytes inflated', async () => {
  const plain = await raw('/openapi/v2', { accept: 'application/json' });
  const r = await raw('/openapi/v2', { accept: 'application/json', 'accept-encoding': 'gzip' });
  assert.is(r.status, 200);
  assert.is(one(r.headers['content-encoding']), 'gzip');
  assert.is(r.headers['content-length'], undefined);
  assert.ok(gunzipSync(r.body).equals(plain.body));
});

test('Range (http.ServeContent): 206 with Content-Range, 416 past the end', async () => {
  const whole = await raw('/openapi/v2', { accept: 'application/json' });
  const size = whole.body.length;
  const r = await raw('/openapi/v2', { accept: 'application/json', range: 'bytes=0-9' });
  assert.is(r.status, 206);
  assert.is(one(r.headers['content-range']), `bytes 0-9/${size}`);
  assert.is(r.body.toString(), whole.body.subarray(0, 10).toString());
  const tail = await raw('/openapi/v2', { accept: 'application/json', range: 'bytes=-5' });
  assert.is(one(tail.headers['content-range']), `bytes ${size - 5}-${size - 1}/${size}`);
  const past = await raw('/openapi/v2', { accept: 'application/json', range: `bytes=${size + 10}-` });
  assert.is(past.status, 416);
  assert.is(one(past.headers['content-range']), `bytes */${size}`);
  assert.is(past.body.toString(), 'invalid range: failed to overlap\n');
});

test('Accept it cannot produce → 406 with an empty body', async () => {
  const r = await raw('/openapi/v2', { accept: 'text/html' });
  assert.is(r.status, 406);
  assert.is(r.body.length, 0);
  assert.equal(varies(r.headers), ['Accept-Encoding', 'Accept']);
});

test('any method gets the document (kube\'s OpenAPI handlers do not check it)', async () => {
  const get = await raw('/openapi/v2', { accept: 'application/json' });
  const post = await raw('/openapi/v2', { accept: 'application/json' }, 'POST');
  assert.is(post.status, 200);
  assert.is(one(post.headers.etag), one(get.headers.etag));
  const head = await raw('/openapi/v2', { accept: 'application/json' }, 'HEAD');
  assert.is(head.status, 200);
  assert.is(head.body.length, 0);
  assert.is(one(head.headers['content-length']), String(get.body.length));
});

test('protobuf form (client-go OpenAPISchema): gnostic Document of the same document, same ETag', async () => {
  const json = await raw('/openapi/v2', { accept: 'application/json' });
  // client-go's OpenAPISchema() asks for exactly this type.
  const r = await raw('/openapi/v2', { accept: PB });
  assert.is(r.status, 200);
  assert.is(one(r.headers['content-type']), 'application/octet-stream');
  assert.is(one(r.headers.etag), one(json.headers.etag));
  const decoded = decodeSwagger(r.body);
  // What the server encoded equals gnostic's reading of its JSON document (checked on kube too).
  const expected = decodeSwagger(encodeSwagger(JSON.parse(json.body.toString('utf8'))));
  assert.ok(JSON.stringify(decoded) === JSON.stringify(expected), 'protobuf document differs from the JSON one');
  assert.ok((decoded.paths as { path: unknown[] }).path.length > 0);
});

/** Our served subset, from this server's registry (golden regeneration only). */
function servedSubset(): { v2paths: string[]; v2defs: string[]; v3: Record<string, { paths: string[]; schemas: string[] }> } {
  // serviceaccounts/token is served whenever a token issuer exists (always, in a running server).
  const reg = new Registry([...defaultKinds], null as never, null as never, { serviceAccountTokens: {} as never });
  const provider = generatedProvider(generatedSource(), descriptionsOf);
  const v2 = buildSwagger(reg, provider, 'v1.24.17') as { paths: object; definitions: object };
  const v3: Record<string, { paths: string[]; schemas: string[] }> = {};
  for (const [k, d] of buildV3(reg, provider, 'v1.24.17')) {
    const doc = d as { paths: object; components: { schemas: object } };
    v3[k] = { paths: Object.keys(doc.paths), schemas: Object.keys(doc.components.schemas) };
  }
  return { v2paths: Object.keys(v2.paths), v2defs: Object.keys(v2.definitions), v3 };
}

async function v3Doc(key: string): Promise<Record<string, any>> {
  const disc = JSON.parse((await raw('/openapi/v3')).body.toString('utf8'));
  const r = await raw(disc.paths[key].serverRelativeURL, { accept: 'application/json' });
  assert.is(r.status, 200);
  return JSON.parse(r.body.toString('utf8'));
}

if (process.env.UPDATE_GOLDEN) {
  test('UPDATE_GOLDEN: write the golden file from the reference', async () => {
    assert.ok(t.reference, 'the golden file is written from the reference only');
    const sub = servedSubset();
    const v2 = JSON.parse((await raw('/openapi/v2', { accept: 'application/json' })).body.toString('utf8'));
    const golden: Golden = { v2: { paths: {}, definitions: {} }, v3: {}, kubectl: {} };
    for (const p of sub.v2paths) golden.v2.paths[p] = sha(v2.paths[p]);
    for (const d of sub.v2defs) golden.v2.definitions[d] = sha(v2.definitions[d]);
    for (const [key, s] of Object.entries(sub.v3)) {
      const doc = await v3Doc(key);
      golden.v3[key] = { paths: {}, schemas: {} };
      for (const p of s.paths) golden.v3[key]!.paths[p] = sha(doc.paths[p]);
      for (const n of s.schemas) golden.v3[key]!.schemas[n] = sha(doc.components.schemas[n]);
    }
    for (const [name, args] of Object.entries(KUBECTL_RUNS)) golden.kubectl[name] = (await kubectl(args)).stdout;
    writeFileSync(GOLDEN, JSON.stringify(golden, null, 1) + '\n');
  });
}

const golden = (): Golden => JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;

test('v2 content: every path item and definition we serve equals kube-apiserver 1.24\'s', async () => {
  const g = golden();
  const doc = JSON.parse((await raw('/openapi/v2', { accept: 'application/json' })).body.toString('utf8'));
  const bad: string[] = [];
  for (const [p, h] of Object.entries(g.v2.paths)) if (sha(doc.paths[p]) !== h) bad.push(`path ${p}`);
  for (const [d, h] of Object.entries(g.v2.definitions)) if (sha(doc.definitions[d]) !== h) bad.push(`definition ${d}`);
  assert.equal(bad, []);
  if (!t.reference) {
    // Only what this server serves: no other path, no unreferenced definition.
    assert.equal(Object.keys(doc.paths).sort(), Object.keys(g.v2.paths).sort());
    assert.equal(Object.keys(doc.definitions).sort(), Object.keys(g.v2.definitions).sort());
  }
});

test('v2 operations carry kube\'s operationId, x-kubernetes-action and group-version-kind', async () => {
  const doc = JSON.parse((await raw('/openapi/v2', { accept: 'application/json' })).body.toString('utf8'));
  const item = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'];
  assert.is(item.patch.operationId, 'patchCoreV1NamespacedConfigMap');
  assert.is(item.patch['x-kubernetes-action'], 'patch');
  assert.equal(item.patch['x-kubernetes-group-version-kind'], { group: '', kind: 'ConfigMap', version: 'v1' });
  assert.equal(item.parameters.map((p: { name: string }) => p.name), ['name', 'namespace', 'pretty']);
  const meta = doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties;
  assert.is(meta.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
  assert.is(meta.ownerReferences['x-kubernetes-patch-strategy'], 'merge');
  assert.is(meta.managedFields.items.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry');
});

test('/openapi/v3 discovery: group versions with ?hash= links (no ETag, no caching)', async () => {
  const r = await raw('/openapi/v3');
  assert.is(r.status, 200);
  assert.is(one(r.headers['content-type']), 'text/plain; charset=utf-8');
  assert.is(one(r.headers['cache-control']), 'no-cache, private');
  assert.is(r.headers.etag, undefined);
  const disc = JSON.parse(r.body.toString('utf8'));
  assert.match(disc.paths['api/v1'].serverRelativeURL, /^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
  if (!t.reference) assert.equal(Object.keys(disc.paths), Object.keys(golden().v3));
});

test('/openapi/v3/api/v1: immutable with the current hash, 301 with a stale one, no-cache without', async () => {
  const disc = JSON.parse((await raw('/openapi/v3')).body.toString('utf8'));
  const url: string = disc.paths['api/v1'].serverRelativeURL;
  const hash = url.split('hash=')[1]!;
  const r = await raw(url, { accept: 'application/json' });
  assert.is(r.status, 200);
  assert.is(one(r.headers['cache-control']), 'public, immutable');
  assert.is(one(r.headers.etag), `"${hash}"`);
  assert.is(one(r.headers.vary), 'Accept');
  assert.is(one(r.headers['content-type']), 'text/plain; charset=utf-8');
  const expires = Date.parse(one(r.headers.expires)!.replace(/UTC$/, 'GMT'));
  assert.ok(Math.abs(expires - Date.now() - 365 * 86400_000) < 2 * 86400_000, `Expires ${one(r.headers.expires)}`);
  assert.match(one(r.headers.expires)!, / UTC$/);
  assert.is(createHash('sha512').update(r.body).digest('hex').toUpperCase(), hash);

  const stale = await raw('/openapi/v3/api/v1?hash=abc', { accept: 'application/json' });
  assert.is(stale.status, 301);
  assert.is(one(stale.headers.location), `/openapi/v3/api/v1?hash=${hash}`);
  assert.is(one(stale.headers['content-type']), 'text/html; charset=utf-8');
  assert.is(stale.body.toString(), `<a href="/openapi/v3/api/v1?hash=${hash}">Moved Permanently</a>.\n\n`);

  const plain = await raw('/openapi/v3/api/v1', { accept: 'application/json' });
  assert.is(plain.status, 200);
  assert.is(one(plain.headers['cache-control']), 'no-cache, private');
  assert.is(plain.headers.expires, undefined);
  const again = await raw('/openapi/v3/api/v1', { accept: 'application/json', 'if-none-match': `"${hash}"` });
  assert.is(again.status, 304);

  const missing = await raw('/openapi/v3/apis/nope.example.com/v1', { accept: 'application/json' });
  assert.is(missing.status, 404);
  assert.is(missing.body.length, 0);
});

test('/openapi/v3/api/v1 protobuf form: gnostic v3 Document of the JSON document, same ETag', async () => {
  const disc = JSON.parse((await raw('/openapi/v3')).body.toString('utf8'));
  const url: string = disc.paths['api/v1'].serverRelativeURL;
  const json = await raw(url, { accept: 'application/json' });
  const r = await raw(url, { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' });
  assert.is(r.status, 200);
  assert.is(one(r.headers['content-type']), 'application/octet-stream');
  assert.is(one(r.headers['cache-control']), 'public, immutable');
  assert.is(one(r.headers.etag), one(json.headers.etag));
  const expected = decodeOpenApiV3(encodeOpenApiV3(JSON.parse(json.body.toString('utf8'))));
  assert.ok(JSON.stringify(decodeOpenApiV3(r.body)) === JSON.stringify(expected), 'v3 protobuf document differs from the JSON one');
  const html = await raw(url, { accept: 'text/html' });
  assert.is(html.status, 406);
});

test('v3 content: every path item and schema we serve equals kube-apiserver 1.24\'s', async () => {
  const g = golden();
  for (const [key, want] of Object.entries(g.v3)) {
    const doc = await v3Doc(key);
    const bad: string[] = [];
    for (const [p, h] of Object.entries(want.paths)) if (sha(doc.paths[p]) !== h) bad.push(`${key} path ${p}`);
    for (const [n, h] of Object.entries(want.schemas)) if (sha(doc.components.schemas[n]) !== h) bad.push(`${key} schema ${n}`);
    assert.equal(bad, []);
    if (!t.reference) {
      assert.equal(Object.keys(doc.paths).sort(), Object.keys(want.paths).sort());
      assert.equal(Object.keys(doc.components.schemas).sort(), Object.keys(want.schemas).sort());
    }
  }
});

test('kubectl explain prints what it prints on kube', async () => {
  const g = golden();
  for (const [name, args] of Object.entries(KUBECTL_RUNS)) {
    const r = await kubectl(args);
    assert.is(r.code, 0, r.stderr);
    assert.fixture(r.stdout, g.kubectl[name]!);
  }
});

test('kubectl apply of an unknown field: client-side validation refuses it, as on kube', async () => {
  const ns = await t.createNamespace('oa');
  const file = join(kcDir, 'bad.yaml');
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: ${ns}\n  bogusMeta: 1\ndata:\n  a: "1"\nbogus: 2\n`);
  const want = 'error: error validating "' + file + '": error validating data: [ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap, ValidationError(ConfigMap.metadata): unknown field "bogusMeta" in io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta]; ';
  for (const extra of [[], ['--validate=strict']]) {
    const r = await kubectl(['apply', ...extra, '-f', file]);
    assert.is(r.code, 1);
    // Everything that depends on the server's OpenAPI, up to kubectl's fixed one-line hint after it.
    assert.ok(r.stderr.startsWith(want) && r.stderr.indexOf('\n') === r.stderr.length - 1, r.stderr);
  }
  // Without the unknown fields the same manifest applies with kubectl's defaults.
  writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n  namespace: ${ns}\ndata:\n  a: "1"\n`);
  const r = await kubectl(['apply', '-f', file]);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'configmap/good created\n');
});

test('derived from the registry: a server without Secrets serves no Secret paths or definitions', async () => {
  if (t.reference) return; // needs a second, differently configured server of ours
  const small = await startTestServer({ kinds: [namespaceKind, configMapKind] });
  try {
    const r = await small.client.request('GET', '/openapi/v2');
    const doc = r.json as { paths: Record<string, unknown>; definitions: Record<string, unknown> };
    assert.ok(doc.paths['/api/v1/namespaces/{namespace}/configmaps']);
    assert.equal(Object.keys(doc.paths).filter((p) => p.includes('secrets')), []);
    assert.is(doc.definitions['io.k8s.api.core.v1.Secret'], undefined);
    const mine = JSON.parse((await raw('/openapi/v3')).body.toString('utf8')).paths['api/v1'].serverRelativeURL;
    const theirs = ((await small.client.request('GET', '/openapi/v3')).json as { paths: Record<string, { serverRelativeURL: string }> }).paths['api/v1']!.serverRelativeURL;
    assert.is.not(theirs, mine);
  } finally {
    await small.close();
  }
});

test.run();
