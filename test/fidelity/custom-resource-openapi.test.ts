/**
 * OpenAPI of custom resource kinds (issue 26): once a CRD is Established, /openapi/v2 and
 * /openapi/v3/apis/<group>/<version> describe its kinds as kube-apiserver 1.24's apiextensions
 * builder does, kubectl explain works on them, and a change or deletion of the CRD rebuilds the
 * documents (new ETag / hash; the definitions gone with the CRD).
 *
 * Content is compared with test/fidelity/golden/custom-resource-openapi.json: the reference's
 * answer for the CRDs below (whole path items, definitions, the v3 document's paths and custom
 * schemas, kubectl explain's output). The suite checks the reference against it too. Regenerate
 * it from the reference after changing the CRDs:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/custom-resource-openapi.test.ts
 *
 * The group is fixed (definition names and operation ids derive from it): the suite deletes its
 * CRDs before and after.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { eventually, type HttpResult } from '../harness.ts';
import { decodeSwagger, encodeSwagger } from '../../internal/http/openapi/proto.ts';
import { decodeOpenApiV3, encodeOpenApiV3 } from '../../internal/http/openapi/proto3.ts';
import type { CustomResourceDefinition } from '../../internal/registry/apiextensions/custom-resource.ts';

const GOLDEN = join(import.meta.dirname, 'golden', 'custom-resource-openapi.json');
const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB3 = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'openapi-golden.example.test';
/** Definition names: the group reversed (kube-openapi's ToRESTFriendlyName). */
const DEF = 'test.example.openapi-golden';
/** kubectl 1.24 reads the v2 document (protobuf); kubectl on PATH (1.32) reads v3. */
const KUBECTL_124 = join(homedir(), '.cache', 'kube-ref', 'bin', 'kubectl');

type CRD = CustomResourceDefinition & { apiVersion: string; kind: string };

const gadgetSchema = (sizeDoc: string) => ({
  description: 'Gadget is a test kind',
  type: 'object',
  properties: {
    spec: {
      description: 'Spec of the gadget',
      type: 'object',
      required: ['size', 'color'],
      properties: {
        size: { type: 'integer', description: sizeDoc, title: 'Size', minimum: 1, maximum: 10, default: 3 },
        // int-or-string with other anyOf clauses: Unfold prepends allOf [{anyOf: [integer, string]}].
        port2: { 'x-kubernetes-int-or-string': true, anyOf: [{ maximum: 5 }, { pattern: '^a' }] },
        // A nullable additionalProperties drops the map's `required` in v2.
        extra: { type: 'object', required: ['a'], additionalProperties: { type: 'string', nullable: true } },
        ratio: { type: 'number', exclusiveMinimum: true, minimum: 0, multipleOf: 0.25 },
        words: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, uniqueItems: false },
        bag: { type: 'object', minProperties: 1, maxProperties: 3, additionalProperties: { type: 'integer' } },
        replicas: { type: 'integer', format: 'int32' },
        color: { type: 'string', enum: ['red', 'blue'], nullable: true, example: 'red' },
        name: { type: 'string', maxLength: 20, pattern: '^[a-z]+$' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set', maxItems: 4 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { 'x-kubernetes-int-or-string': true } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'granular' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
        emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
        choice: { type: 'string', anyOf: [{ pattern: '^a' }, { pattern: '^b' }], not: { pattern: '^ab' } },
        limits: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], default: 'ten' },
        nested: { type: 'object', nullable: true, properties: { deep: { type: 'string', default: 'd' } } },
        opts: { type: 'object', default: { b: 2, a: 1 }, properties: { a: { type: 'integer' }, b: { type: 'integer' } } },
      },
    },
    status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' }, ready: { type: 'boolean' } } },
  },
});

const gadgets = (sizeDoc = 'how big'): CRD => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['gdg'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
        schema: { openAPIV3Schema: gadgetSchema(sizeDoc) },
      },
      // A root that preserves unknown fields: v2 publishes `type: object` alone.
      { name: 'v2beta1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } } },
      // Not served: not published.
      { name: 'v0', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } },
    ],
  },
});

const knobs: CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `knobs.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Cluster',
    names: { plural: 'knobs', singular: 'knob', kind: 'Knob', listKind: 'KnobList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { turns: { type: 'number', multipleOf: 0.5 } } } } } } }],
  },
};

let t: Target;
let agent: Agent;
let kcDir: string;

const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 600)}`;

async function raw(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const r = await request(t.url + path, { headers, dispatcher: agent });
  return { status: r.statusCode, headers: r.headers as Record<string, string | string[] | undefined>, body: Buffer.from(await r.body.arrayBuffer()) };
}

async function v2(): Promise<{ etag: string; doc: Record<string, any> }> {
  const r = await raw('/openapi/v2', { accept: 'application/json' });
  assert.is(r.status, 200);
  return { etag: String(r.headers.etag), doc: JSON.parse(r.body.toString('utf8')) };
}

const v3Index = async (): Promise<Record<string, { serverRelativeURL: string }>> => JSON.parse((await raw('/openapi/v3')).body.toString('utf8')).paths;

function kubectl(bin: string, args: string[], cacheDir = join(kcDir, 'cache')): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // A fresh cache per run: kubectl's discovery cache would hide kinds added since.
    execFile(bin, ['--kubeconfig', t.kubeconfig, ...args], { env: { ...process.env, KUBECACHEDIR: cacheDir, HOME: kcDir }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

const KUBECTL_RUNS: Record<string, [string, string[]]> = {
  'explain gadgets.spec': ['kubectl', ['explain', 'gadgets.spec']],
  'explain gadget.spec.template --recursive': ['kubectl', ['explain', 'gadget.spec.template', '--recursive']],
  'explain knobs': ['kubectl', ['explain', 'knobs']],
  'kubectl 1.24: explain gdg.spec': [KUBECTL_124, ['explain', 'gdg.spec']],
  'kubectl 1.24: explain gadgets --recursive': [KUBECTL_124, ['explain', 'gadgets', '--recursive']],
};

async function deleteCRDs(): Promise<void> {
  for (const name of [`gadgets.${GROUP}`, `knobs.${GROUP}`]) await t.client.request('DELETE', `${CRD_PATH}/${name}`);
  await eventually('the CRDs gone', async () => (await t.client.request('GET', `${CRD_PATH}/gadgets.${GROUP}`)).status === 404 && (await t.client.request('GET', `${CRD_PATH}/knobs.${GROUP}`)).status === 404, 60_000);
}

async function addCRD(crd: CRD): Promise<void> {
  const r = await t.client.request('POST', CRD_PATH, { body: crd });
  assert.is(r.status, 201, show(r));
}

const published = (doc: Record<string, any>): boolean => doc.definitions[`${DEF}.v1.Gadget`] !== undefined && doc.definitions[`${DEF}.v1.Knob`] !== undefined && doc.definitions[`${DEF}.v2beta1.Gadget`] !== undefined;

interface Golden {
  v2: { paths: Record<string, unknown>; definitions: Record<string, unknown> };
  v3: { paths: Record<string, unknown>; schemas: Record<string, unknown>; components: string[]; info: unknown };
  kubectl: Record<string, string>;
}

/** What the golden file holds of the documents: everything about GROUP. */
function subset(v2doc: Record<string, any>, v3doc: Record<string, any>): Omit<Golden, 'kubectl'> {
  const pick = (o: Record<string, unknown>, keep: (k: string) => boolean): Record<string, unknown> => Object.fromEntries(Object.keys(o).filter(keep).sort().map((k) => [k, o[k]]));
  return {
    v2: { paths: pick(v2doc.paths, (p) => p.includes(GROUP)), definitions: pick(v2doc.definitions, (d) => d.startsWith(DEF)) },
    v3: { paths: v3doc.paths, schemas: pick(v3doc.components.schemas, (d) => d.startsWith(DEF)), components: Object.keys(v3doc.components).sort().flatMap((c) => Object.keys(v3doc.components[c]).map((n) => `${c}/${n}`)), info: v3doc.info },
  };
}

let before: string;

test.before(async () => {
  t = await startTarget();
  const k = readKubeconfig(t.kubeconfig);
  agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  kcDir = mkdtempSync(join(tmpdir(), 'cr-openapi-kubectl-'));
  await deleteCRDs();
  before = (await v2()).etag;
  await addCRD(gadgets());
  await addCRD(knobs);
  await eventually('the kinds published in /openapi/v2', async () => published((await v2()).doc), 30_000);
});

test.after(async () => {
  await agent?.close();
  await t?.close();
});

async function current(): Promise<{ v2doc: Record<string, any>; v3doc: Record<string, any> }> {
  const idx = await v3Index();
  const r = await raw(idx[`apis/${GROUP}/v1`]!.serverRelativeURL, { accept: 'application/json' });
  assert.is(r.status, 200);
  return { v2doc: (await v2()).doc, v3doc: JSON.parse(r.body.toString('utf8')) };
}

if (process.env.UPDATE_GOLDEN) {
  test('UPDATE_GOLDEN: write the golden file from the reference', async () => {
    assert.ok(t.reference, 'the golden file is written from the reference only');
    const { v2doc, v3doc } = await current();
    const golden: Golden = { ...subset(v2doc, v3doc), kubectl: {} };
    for (const [name, [bin, args]] of Object.entries(KUBECTL_RUNS)) golden.kubectl[name] = (await kubectl(bin, args)).stdout;
    writeFileSync(GOLDEN, JSON.stringify(golden, null, 1) + '\n');
  });
}

const golden = (): Golden => JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;

test('v2: the kinds\' paths and definitions are kube\'s (no discovery path for the group, no unserved version)', async () => {
  const { v2doc, v3doc } = await current();
  const got = subset(v2doc, v3doc);
  const g = golden();
  assert.equal(Object.keys(got.v2.paths), Object.keys(g.v2.paths));
  for (const p of Object.keys(g.v2.paths)) assert.equal(got.v2.paths[p], g.v2.paths[p], `path ${p}`);
  assert.equal(Object.keys(got.v2.definitions), Object.keys(g.v2.definitions));
  // Serialized: the members' order too (kube-openapi's marshalling order).
  for (const d of Object.keys(g.v2.definitions)) assert.is(JSON.stringify(got.v2.definitions[d]), JSON.stringify(g.v2.definitions[d]), `definition ${d}`);
  assert.not.ok(Object.keys(got.v2.paths).some((p) => p === `/apis/${GROUP}/` || p === `/apis/${GROUP}/v1/` || p.includes('/watch/')));
  assert.not.ok(Object.keys(got.v2.definitions).some((d) => d.includes('.v0.')));
  // The meta types the kinds refer to are there.
  for (const d of ['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', 'io.k8s.api.autoscaling.v1.Scale']) assert.ok(v2doc.definitions[d], d);
});

test('v3: /openapi/v3 lists apis/<group>/<version> (not apis/<group>); the document is kube\'s', async () => {
  const idx = await v3Index();
  assert.ok(idx[`apis/${GROUP}/v1`] && idx[`apis/${GROUP}/v2beta1`]);
  assert.not.ok(idx[`apis/${GROUP}`]);
  assert.not.ok(idx[`apis/${GROUP}/v0`]);
  const { v2doc, v3doc } = await current();
  const got = subset(v2doc, v3doc);
  const g = golden();
  assert.equal(got.v3.info, g.v3.info);
  assert.equal(got.v3.components, g.v3.components);
  assert.equal(Object.keys(got.v3.paths), Object.keys(g.v3.paths));
  for (const p of Object.keys(g.v3.paths)) assert.equal(got.v3.paths[p], g.v3.paths[p], `path ${p}`);
  for (const d of Object.keys(g.v3.schemas)) assert.is(JSON.stringify(got.v3.schemas[d]), JSON.stringify(g.v3.schemas[d]), `schema ${d}`);
  // The meta schemas are the built-in documents' without their group-version-kinds.
  const core = JSON.parse((await raw(idx['api/v1']!.serverRelativeURL, { accept: 'application/json' })).body.toString('utf8'));
  const { 'x-kubernetes-group-version-kind': _gvk, ...objectMeta } = core.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'];
  assert.equal(v3doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'], objectMeta);
});

test('v2 protobuf (what kubectl 1.24 and client-go read) is gnostic\'s reading of the JSON document', async () => {
  const json = await raw('/openapi/v2', { accept: 'application/json' });
  const r = await raw('/openapi/v2', { accept: PB });
  assert.is(r.status, 200);
  const decoded = decodeSwagger(r.body);
  const expected = decodeSwagger(encodeSwagger(JSON.parse(json.body.toString('utf8'))));
  const defs = (d: Record<string, any>) => (d.definitions.additional_properties as { name: string }[]).filter((x) => x.name.startsWith(DEF));
  assert.equal(defs(decoded), defs(expected));
  assert.is(defs(decoded).length, 6);
});

test('v3 protobuf of the group version\'s document is gnostic\'s reading of its JSON', async () => {
  const idx = await v3Index();
  const url = idx[`apis/${GROUP}/v1`]!.serverRelativeURL;
  const json = await raw(url, { accept: 'application/json' });
  const r = await raw(url, { accept: PB3 });
  assert.is(r.status, 200);
  assert.is(JSON.stringify(decodeOpenApiV3(r.body)), JSON.stringify(decodeOpenApiV3(encodeOpenApiV3(JSON.parse(json.body.toString('utf8'))))));
});

test('kubectl explain <kind>.spec (1.32 through v3, 1.24 through v2 protobuf) prints what it prints on kube', async () => {
  const g = golden();
  for (const [name, [bin, args]] of Object.entries(KUBECTL_RUNS)) {
    if (bin !== 'kubectl' && !existsSync(bin)) continue;
    const r = await kubectl(bin, args);
    assert.is(r.code, 0, `${name}: ${r.stderr}`);
    assert.is(r.stdout, g.kubectl[name], name);
  }
  const missing = await kubectl('kubectl', ['explain', 'gadgets.spec.nope']);
  assert.is.not(missing.code, 0);
  assert.match(missing.stderr, /field "nope" does not exist/);
});

test('a change of the CRD\'s schema rebuilds the documents: new ETag and v3 hash, the new description', async () => {
  const { etag } = await v2();
  assert.is.not(etag, before);
  const hash = (await v3Index())[`apis/${GROUP}/v1`]!.serverRelativeURL;
  const cur = await t.client.request('GET', `${CRD_PATH}/gadgets.${GROUP}`);
  const next = gadgets('how big it is, now');
  const r = await t.client.request('PUT', `${CRD_PATH}/gadgets.${GROUP}`, { body: { ...next, metadata: cur.json.metadata } });
  assert.is(r.status, 200, show(r));
  await eventually('the new description published', async () => (await v2()).doc.definitions[`${DEF}.v1.Gadget`].properties.spec.properties.size.description === 'how big it is, now', 30_000);
  assert.is.not((await v2()).etag, etag);
  await eventually('a new v3 hash', async () => (await v3Index())[`apis/${GROUP}/v1`]?.serverRelativeURL !== hash, 30_000);
  const stale = await raw(hash, { accept: 'application/json' });
  assert.is(stale.status, 301);
  // Another cache: /openapi/v3 is served with Last-Modified = now (kube's too), so kubectl's HTTP
  // cache revalidating within the same second would get 304 and keep the old index.
  const explain = await kubectl('kubectl', ['explain', 'gadgets.spec.size'], join(kcDir, 'cache-after-change'));
  assert.match(explain.stdout, /how big it is, now/, `${explain.stdout} ${explain.stderr}`);
});

test('deleting the CRDs removes their paths, definitions and v3 documents (new ETag)', async () => {
  const { etag } = await v2();
  await deleteCRDs();
  await eventually('the definitions gone', async () => !Object.keys((await v2()).doc.definitions).some((d) => d.startsWith(DEF)), 30_000);
  const after = await v2();
  assert.is.not(after.etag, etag);
  assert.not.ok(Object.keys(after.doc.paths).some((p) => p.includes(GROUP)));
  const idx = await v3Index();
  assert.not.ok(Object.keys(idx).some((k) => k.includes(GROUP)));
  assert.is((await raw(`/openapi/v3/apis/${GROUP}/v1`, { accept: 'application/json' })).status, 404);
});

test.run();
