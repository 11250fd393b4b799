/**
 * Custom resources served from a CustomResourceDefinition (issue 26). On both servers the CRD is
 * created over HTTP and awaited Established (here the CRD controller then serves its kinds with
 * `customResourceKinds(crd)`). Every assertion is then about what a client sees, and
 * holds on both:
 *   - discovery: singularName, shortNames, categories, verbs in kube's (unsorted) order, the
 *     status subresource;
 *   - create: unknown fields pruned, defaults applied, status dropped, generation 1; a CR that
 *     fails the schema is 422 with kube's message and causes; nothing stored;
 *   - update: a spec change bumps generation, status is kept; /status changes only status and is
 *     validated against the schema;
 *   - merge and JSON patch work; strategic merge patch is 415 with kube's message;
 *   - Table: Name and the printer columns (integer, string with priority, date as a duration);
 *     a CRD without columns: Name and Age;
 *   - list and watch with label and metadata field selectors; other field selectors 400;
 *   - Protobuf: Accept of Protobuf only is 406; a Protobuf body is kube's 400;
 *   - server-side apply (conflicts), dry-run, metadata of the wrong type (400), two versions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { eventually, type HttpResult } from '../harness.ts';
import { storageVersionHash } from '../../internal/http/discovery.ts';
import type { CustomResourceDefinition } from '../../internal/registry/apiextensions/custom-resource.ts';
import type { JSONSchemaProps } from '../../internal/apiextensions/types.ts';

let t: Target;
let group: string;
let ns: string;
const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 800)}`;
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const gizmoCRD = (g: string): CRD => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gizmos.${g}` },
  spec: {
    group: g,
    scope: 'Namespaced',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz'], categories: ['toys'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color', priority: 1, description: 'the color' },
          { name: 'Made', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1 },
                  color: { type: 'string', default: 'red', enum: ['red', 'blue'] },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string', maxLength: 5 } } },
            },
          },
        },
      },
    ],
  },
});

type CRD = CustomResourceDefinition & { apiVersion: string; kind: string };
type Versions = CustomResourceDefinition['spec']['versions'];

/** A CRD of kind `kind` (plural: lower case + s) with the given scope and versions. */
const crdOf = (g: string, kind: string, scope: 'Namespaced' | 'Cluster', versions: Versions): CRD => {
  const singular = kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${singular}s.${g}` },
    spec: { group: g, scope, names: { plural: `${singular}s`, singular, kind, listKind: `${kind}List` }, versions },
  };
};
/** A version whose spec has the given properties. */
const specVersion = (name: string, storage: boolean, properties: Record<string, JSONSchemaProps>): Versions[number] => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
});

/** A cluster-scoped kind with no printer columns and no status subresource. */
const plainCRD = (g: string): CRD => crdOf(g, 'Plain', 'Cluster', [specVersion('v1', true, { n: { type: 'integer', default: 7 } })]);

/** Two versions, conversion None: v1 stores; v2 has another schema. */
const twoCRD = (g: string): CRD =>
  crdOf(g, 'Twin', 'Namespaced', [specVersion('v1', true, { a: { type: 'string', default: 'one' } }), specVersion('v2', false, { b: { type: 'integer', maximum: 3 } })]);

async function addCRD(crd: CRD): Promise<void> {
  const r = await t.client.request('POST', CRD_PATH, { body: crd });
  assert.is(r.status, 201, show(r));
  const established = async (): Promise<boolean> => {
    const c = await t.client.request('GET', `${CRD_PATH}/${crd.metadata!.name}`);
    return (c.json?.status?.conditions ?? []).some((x: { type: string; status: string }) => x.type === 'Established' && x.status === 'True');
  };
  await eventually('the CRD Established', async () => (await established()) && (await t.client.request('GET', `/apis/${crd.spec.group}/v1`)).status === 200);
}

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  group = `${t.ns('cr')}.example.test`;
  ns = await t.createNamespace('gizmos');
  await addCRD(gizmoCRD(group));
  await addCRD(plainCRD(group));
  await addCRD(twoCRD(group));
});

test.after(async () => {
  if (t?.reference) {
    await t.client.request('DELETE', `${CRD_PATH}/gizmos.${group}`);
    await t.client.request('DELETE', `${CRD_PATH}/plains.${group}`);
    await t.client.request('DELETE', `${CRD_PATH}/twins.${group}`);
  }
  await t?.close();
});

const base = (): string => `/apis/${group}/v1/namespaces/${ns}/gizmos`;
const gizmo = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name }, spec, ...extra });

/** A custom resource's verbs as kube's discovery lists them (not sorted, unlike built-in kinds'). */
const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

test('discovery: singularName, short names, categories, verbs in kube order, status', async () => {
  const r = await t.client.request('GET', `/apis/${group}/v1`);
  assert.is(r.status, 200, show(r));
  const byName = new Map(r.json.resources.map((e: { name: string }) => [e.name, e]));
  assert.equal(byName.get('gizmos'), {
    name: 'gizmos',
    singularName: 'gizmo',
    namespaced: true,
    kind: 'Gizmo',
    verbs: CR_VERBS,
    shortNames: ['gz'],
    categories: ['toys'],
    storageVersionHash: storageVersionHash(group, 'v1', 'Gizmo'),
  });
  assert.equal(byName.get('gizmos/status'), { name: 'gizmos/status', singularName: '', namespaced: true, kind: 'Gizmo', verbs: ['get', 'patch', 'update'] });
  assert.equal(byName.get('plains'), {
    name: 'plains',
    singularName: 'plain',
    namespaced: false,
    kind: 'Plain',
    verbs: CR_VERBS,
    storageVersionHash: storageVersionHash(group, 'v1', 'Plain'),
  });
  assert.is(r.json.resources.length, 4, show(r));
});

test('create: pruned, defaulted, status dropped, generation 1; invalid: 422 with causes, nothing stored', async () => {
  const c = await t.client.request('POST', base(), { body: gizmo('g1', { size: 2, junk: 1 }, { status: { phase: 'x' }, extra: 5 }) });
  assert.is(c.status, 201, show(c));
  assert.equal(c.json.spec, { color: 'red', size: 2 });
  assert.is(c.json.status, undefined, show(c));
  assert.is(c.json.extra, undefined, show(c));
  assert.is(c.json.metadata.generation, 1);
  assert.is(c.json.kind, 'Gizmo');
  const got = await t.client.request('GET', `${base()}/g1`);
  assert.equal(got.json.spec, { color: 'red', size: 2 });

  const bad = await t.client.request('POST', base(), { body: gizmo('g2', { size: 0, color: 'green', tags: 'x' }) });
  assert.is(bad.status, 422, show(bad));
  assert.is(bad.json.reason, 'Invalid');
  // kube's go-openapi validator walks properties in Go map order: the causes' order varies.
  const causes = [
    { reason: 'FieldValueInvalid', message: 'Invalid value: 0: spec.size in body should be greater than or equal to 1', field: 'spec.size' },
    { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "string": spec.tags in body must be of type array: "string"', field: 'spec.tags' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "green": supported values: "red", "blue"', field: 'spec.color' },
  ];
  const byField = (a: { field: string }, b: { field: string }): number => a.field.localeCompare(b.field);
  assert.equal({ ...bad.json.details, causes: [...bad.json.details.causes].sort(byField) }, { name: 'g2', group, kind: 'Gizmo', causes: [...causes].sort(byField) });
  assert.ok(bad.json.message.startsWith(`Gizmo.${group} "g2" is invalid: [`), show(bad));
  for (const c of causes) assert.ok(bad.json.message.includes(`${c.field}: ${c.message}`), show(bad));
  const missing = await t.client.request('POST', base(), { body: gizmo('g3', {}) });
  assert.is(missing.status, 422, show(missing));
  assert.is(missing.json.message, `Gizmo.${group} "g3" is invalid: spec.size: Required value`);
  assert.is((await t.client.request('GET', `${base()}/g2`)).status, 404);

  // Cluster scope, defaults without a status subresource.
  const p = await t.client.request('POST', `/apis/${group}/v1/plains`, { body: { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: `p-${ns}` }, spec: {} } });
  assert.is(p.status, 201, show(p));
  assert.equal(p.json.spec, { n: 7 });
  assert.is(p.json.metadata.namespace, undefined);
  const del = await t.client.request('DELETE', `/apis/${group}/v1/plains/p-${ns}`);
  assert.is(del.status, 200, show(del));
  assert.is(del.json.kind, 'Status', show(del));
});

test('update keeps status and bumps generation; /status changes only status, validated', async () => {
  const cur = (await t.client.request('GET', `${base()}/g1`)).json;
  const put = await t.client.request('PUT', `${base()}/g1`, { body: { ...cur, spec: { size: 3 }, status: { phase: 'y' } } });
  assert.is(put.status, 200, show(put));
  assert.equal(put.json.spec, { color: 'red', size: 3 });
  assert.is(put.json.status, undefined);
  assert.is(put.json.metadata.generation, 2);

  const st = await t.client.request('PUT', `${base()}/g1/status`, { body: { ...put.json, spec: { size: 9 }, status: { phase: 'ok', junk: 1 } } });
  assert.is(st.status, 200, show(st));
  assert.equal(st.json.status, { phase: 'ok' });
  assert.equal(st.json.spec, { color: 'red', size: 3 });
  assert.is(st.json.metadata.generation, 2);

  const badStatus = await t.client.request('PATCH', `${base()}/g1/status`, { raw: JSON.stringify({ status: { phase: 'toolong' } }), contentType: 'application/merge-patch+json' });
  assert.is(badStatus.status, 422, show(badStatus));
  assert.is(badStatus.json.message, `Gizmo.${group} "g1" is invalid: status.phase: Too long: may not be longer than 5`);

  // A metadata-only change keeps the generation; a main-resource write keeps the status.
  const labeled = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify({ metadata: { labels: { a: 'b' } }, status: { phase: 'no' } }), contentType: 'application/merge-patch+json' });
  assert.is(labeled.status, 200, show(labeled));
  assert.is(labeled.json.metadata.generation, 2);
  assert.equal(labeled.json.status, { phase: 'ok' });
});

test('merge and JSON patch; strategic merge patch refused with 415', async () => {
  const merge = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify({ spec: { color: 'blue', bogus: true } }), contentType: 'application/merge-patch+json' });
  assert.is(merge.status, 200, show(merge));
  assert.equal(merge.json.spec, { color: 'blue', size: 3 });
  const json = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify([{ op: 'replace', path: '/spec/size', value: 4 }]), contentType: 'application/json-patch+json' });
  assert.is(json.status, 200, show(json));
  assert.equal(json.json.spec, { color: 'blue', size: 4 });
  const badPatch = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify([{ op: 'replace', path: '/spec/size', value: -1 }]), contentType: 'application/json-patch+json' });
  assert.is(badPatch.status, 422, show(badPatch));
  const smp = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify({ spec: { size: 5 } }), contentType: 'application/strategic-merge-patch+json' });
  assert.is(smp.status, 415, show(smp));
  assert.is(smp.json.reason, 'UnsupportedMediaType');
  assert.is(smp.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
});

test('list and watch: label and metadata field selectors; other field selectors refused', async () => {
  const byField = await t.client.request('GET', `${base()}?fieldSelector=metadata.name%3Dg1`);
  assert.is(byField.status, 200, show(byField));
  assert.is(byField.json.kind, 'GizmoList');
  assert.equal(byField.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['g1']);
  const byLabel = await t.client.request('GET', `${base()}?labelSelector=a%3Db`);
  assert.equal(byLabel.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['g1']);
  const other = await t.client.request('GET', `${base()}?fieldSelector=spec.size%3D1`);
  assert.is(other.status, 400, show(other));
  assert.is(other.json.message, 'field label not supported: spec.size');
  const rv = byField.json.metadata.resourceVersion;
  const patched = await t.client.request('PATCH', `${base()}/g1`, { raw: JSON.stringify({ spec: { size: 6 } }), contentType: 'application/merge-patch+json' });
  assert.is(patched.status, 200, show(patched));
  const watched = await t.client.request('GET', `${base()}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Dg1&timeoutSeconds=1`);
  assert.is(watched.status, 200, show(watched));
  const events = watched.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  assert.equal(events.map((e) => `${e.type} ${e.object.kind} ${e.object.spec.size} ${e.object.metadata.generation}`), ['MODIFIED Gizmo 6 5']);
});

test('Table: Name and the printer columns; without columns Name and Age', async () => {
  const tbl = await t.client.request('GET', base(), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(tbl.status, 200, show(tbl));
  assert.equal(
    tbl.json.columnDefinitions.map((c: Record<string, unknown>) => [c.name, c.type, c.format, c.priority, c.description]),
    [
      ['Name', 'string', 'name', 0, tbl.json.columnDefinitions[0].description],
      ['Size', 'integer', '', 0, 'Custom resource definition column (in JSONPath format): .spec.size'],
      ['Color', 'string', '', 1, 'the color'],
      ['Made', 'date', '', 0, 'Custom resource definition column (in JSONPath format): .metadata.creationTimestamp'],
    ],
  );
  assert.is(tbl.json.rows.length, 1);
  const [name, size, color, made] = tbl.json.rows[0].cells;
  assert.equal([name, size, color], ['g1', 6, 'blue']);
  assert.match(made, /^\d+s$/);

  const plain = await t.client.request('POST', `/apis/${group}/v1/plains`, { body: { apiVersion: `${group}/v1`, kind: 'Plain', metadata: { name: `q-${ns}` } } });
  assert.is(plain.status, 201, show(plain));
  const pt = await t.client.request('GET', `/apis/${group}/v1/plains/q-${ns}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(pt.status, 200, show(pt));
  assert.equal(pt.json.columnDefinitions.map((c: Record<string, unknown>) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Age', 'date', '']]);
  assert.is(pt.json.rows[0].cells[0], `q-${ns}`);
  assert.match(pt.json.rows[0].cells[1], /^\d+s$/);
  assert.is((await t.client.request('DELETE', `/apis/${group}/v1/plains/q-${ns}`)).status, 200);
});

test('server-side apply and dry-run; metadata of the wrong type is 400', async () => {
  // (An applied field the schema does not declare is kube's 500 "failed to create typed patch
  // object …: .spec.junk: field not declared in schema": asserted in custom-resource-apply.test.ts.)
  const applied = await t.client.request('PATCH', `${base()}/a1?fieldManager=one`, {
    raw: JSON.stringify(gizmo('a1', { size: 2, tags: ['x'] })),
    contentType: 'application/apply-patch+yaml',
  });
  assert.is(applied.status, 201, show(applied));
  assert.equal(applied.json.spec, { color: 'red', size: 2, tags: ['x'] });
  const again = await t.client.request('PATCH', `${base()}/a1?fieldManager=two`, { raw: JSON.stringify(gizmo('a1', { size: 5 })), contentType: 'application/apply-patch+yaml' });
  assert.is(again.status, 409, show(again));
  assert.is(again.json.reason, 'Conflict');
  assert.is(again.json.details.causes[0].field, '.spec.size');

  const dry = await t.client.request('POST', `${base()}?dryRun=All`, { body: gizmo('d1', { size: 1 }) });
  assert.is(dry.status, 201, show(dry));
  assert.equal(dry.json.spec, { color: 'red', size: 1 });
  assert.is((await t.client.request('GET', `${base()}/d1`)).status, 404);

  const badMeta = await t.client.request('POST', base(), { body: { ...gizmo('m1', { size: 1 }), metadata: { name: 'm1', labels: 'x' } } });
  assert.is(badMeta.status, 400, show(badMeta));
  assert.is(badMeta.json.message, `Gizmo in version "v1" cannot be handled as a Gizmo: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string`);
});

// (Reading an object at another version than it was written in — kube answers it in the requested
// version — is not asserted: this server answers it as stored.)
test('two versions (conversion None): each request pruned, defaulted and validated with its version\'s schema', async () => {
  const v = (ver: string) => `/apis/${group}/${ver}/namespaces/${ns}/twins`;
  const c2 = await t.client.request('POST', v('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Twin', metadata: { name: 'x' }, spec: { a: 'gone', b: 2 } } });
  assert.is(c2.status, 201, show(c2));
  assert.is(c2.json.apiVersion, `${group}/v2`);
  // `a` is pruned by v2's schema, `b` by the storage version's (v1) on the way to storage.
  assert.equal(c2.json.spec, {});
  const bad = await t.client.request('POST', v('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Twin', metadata: { name: 'y' }, spec: { b: 4 } } });
  assert.is(bad.status, 422, show(bad));
  assert.is(bad.json.message, `Twin.${group} "y" is invalid: spec.b: Invalid value: 4: spec.b in body should be less than or equal to 3`);
  const c1 = await t.client.request('POST', v('v1'), { body: { apiVersion: `${group}/v1`, kind: 'Twin', metadata: { name: 'z' }, spec: { b: 9 } } });
  assert.is(c1.status, 201, show(c1));
  assert.equal(c1.json.spec, { a: 'one' });
  const g1 = await t.client.request('GET', `${v('v1')}/z`);
  assert.is(g1.json.apiVersion, `${group}/v1`);
  const listed = await t.client.request('GET', v('v1'));
  assert.equal(listed.json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['x', 'z']);
});

test('Protobuf: refused as kube refuses it for custom resources', async () => {
  const pb = await t.client.request('GET', base(), { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.is(pb.status, 406, show(pb));
  const body = Buffer.concat([Buffer.from('k8s\0'), Buffer.from([0x0a, 0x00])]);
  const post = await t.client.request('POST', base(), { raw: body, contentType: 'application/vnd.kubernetes.protobuf' });
  // kube's protobuf decoder cannot fill an Unstructured: the empty target has no kind.
  assert.is(post.status, 400, show(post));
  assert.is(post.json.message, `Gizmo in version "v1" cannot be handled as a Gizmo: Object 'Kind' is missing in 'object has no kind field '`);
});

test.run();
