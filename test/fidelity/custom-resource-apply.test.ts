/**
 * Server-side apply of custom resources with the schema's merge types (issue 26), here and on the
 * reference: `x-kubernetes-list-type: set` lists merge by value, `map` lists by their
 * `x-kubernetes-list-map-keys`, `atomic` lists and `x-kubernetes-map-type: atomic` maps are owned
 * whole (a second applier conflicts on them), granular maps by key; managedFields name each
 * element as kube does (v:"a", k:{"name":"http"}, no "." on struct fields); an applier dropping an
 * element removes it unless another manager owns it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { dropCRD, namespacedCRD, serveCRD, show } from '../crd-target.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let group: string;
let ns: string;

const crd = (g: string) =>
  namespacedCRD(g, { plural: 'mergers', singular: 'merger', kind: 'Merger', listKind: 'MergerList' }, {
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: {
            type: 'object',
            properties: {
              tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
              ports: {
                type: 'array',
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['name', 'protocol'],
                items: { type: 'object', required: ['name', 'protocol'], properties: { name: { type: 'string' }, protocol: { type: 'string' }, port: { type: 'integer' } } },
              },
              args: { type: 'array', items: { type: 'string' } },
              env: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } },
              labels: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
              extra: { type: 'object', additionalProperties: { type: 'string' } },
              inner: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { a: { type: 'string' }, b: { type: 'string' } } },
            },
          },
        },
      },
    },
  });

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  group = `${t.ns('apply')}.example.test`;
  ns = await t.createNamespace('mergers');
  await serveCRD(t, crd(group));
});

test.after(async () => {
  await dropCRD(t, `mergers.${group}`);
  await t?.close();
});

const base = (): string => `/apis/${group}/v1/namespaces/${ns}/mergers`;
const apply = (name: string, manager: string, spec: Record<string, unknown>, force = false): Promise<HttpResult> =>
  t.client.request('PATCH', `${base()}/${name}?fieldManager=${manager}${force ? '&force=true' : ''}`, {
    raw: JSON.stringify({ apiVersion: `${group}/v1`, kind: 'Merger', metadata: { name }, spec }),
    contentType: 'application/apply-patch+yaml',
  });
const fieldsOf = (o: Record<string, any>): Record<string, unknown> => Object.fromEntries(o.metadata.managedFields.map((e: Record<string, unknown>) => [e.manager, e.fieldsV1]));

test('set and map lists merge per element, granular maps per key; managedFields name the elements', async () => {
  const a = await apply('m1', 'a', { tags: ['x', 'y'], ports: [{ name: 'http', protocol: 'TCP', port: 80 }], extra: { k1: 'v1' } });
  assert.is(a.status, 201, show(a));
  const b = await apply('m1', 'b', { tags: ['z'], ports: [{ name: 'http', protocol: 'UDP', port: 81 }], extra: { k2: 'v2' } });
  assert.is(b.status, 200, show(b));
  assert.equal(b.json.spec, {
    tags: ['x', 'y', 'z'],
    ports: [{ name: 'http', protocol: 'TCP', port: 80 }, { name: 'http', protocol: 'UDP', port: 81 }],
    extra: { k1: 'v1', k2: 'v2' },
  });
  assert.equal(fieldsOf(b.json), {
    a: { 'f:spec': { 'f:extra': { 'f:k1': {} }, 'f:ports': { 'k:{"name":"http","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } }, 'f:tags': { 'v:"x"': {}, 'v:"y"': {} } } },
    b: { 'f:spec': { 'f:extra': { 'f:k2': {} }, 'f:ports': { 'k:{"name":"http","protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} } }, 'f:tags': { 'v:"z"': {} } } },
  });
  // a drops "y" and its port: gone, as nobody else owns them; b's elements stay.
  const dropped = await apply('m1', 'a', { tags: ['x'], extra: { k1: 'v1' } });
  assert.is(dropped.status, 200, show(dropped));
  assert.equal(dropped.json.spec, { tags: ['x', 'z'], ports: [{ name: 'http', protocol: 'UDP', port: 81 }], extra: { k1: 'v1', k2: 'v2' } });
  // The same element from two appliers with the same value is shared; another value conflicts.
  const shared = await apply('m1', 'b', { tags: ['z', 'x'], ports: [{ name: 'http', protocol: 'UDP', port: 81 }], extra: { k2: 'v2', k1: 'v1' } });
  assert.is(shared.status, 200, show(shared));
  const clash = await apply('m1', 'b', { tags: ['z'], ports: [{ name: 'http', protocol: 'UDP', port: 81 }], extra: { k2: 'v2', k1: 'other' } });
  assert.is(clash.status, 409, show(clash));
  assert.equal(clash.json.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.extra.k1' }]);
});

test('atomic lists, atomic maps and atomic structs are owned whole: a second applier conflicts', async () => {
  const a = await apply('m2', 'a', { args: ['1'], env: ['E=1'], labels: { x: '1' }, inner: { a: 'A' } });
  assert.is(a.status, 201, show(a));
  assert.equal(fieldsOf(a.json), { a: { 'f:spec': { 'f:args': {}, 'f:env': {}, 'f:inner': {}, 'f:labels': {} } } });
  const b = await apply('m2', 'b', { args: ['2'], env: ['E=2'], labels: { y: '2' }, inner: { b: 'B' } });
  assert.is(b.status, 409, show(b));
  assert.equal(
    b.json.details.causes.map((c: { field: string }) => c.field),
    ['.spec.args', '.spec.env', '.spec.inner', '.spec.labels'],
  );
  const forced = await apply('m2', 'b', { args: ['2'], env: ['E=2'], labels: { y: '2' }, inner: { b: 'B' } }, true);
  assert.is(forced.status, 200, show(forced));
  assert.equal(forced.json.spec, { args: ['2'], env: ['E=2'], labels: { y: '2' }, inner: { b: 'B' } });
  assert.equal(fieldsOf(forced.json), { b: { 'f:spec': { 'f:args': {}, 'f:env': {}, 'f:inner': {}, 'f:labels': {} } } });
});

test('an Update (merge patch) takes the elements it changes from the appliers', async () => {
  const a = await apply('m3', 'a', { tags: ['x'], ports: [{ name: 'p', protocol: 'TCP', port: 1 }] });
  assert.is(a.status, 201, show(a));
  const up = await t.client.request('PATCH', `${base()}/m3?fieldManager=u`, { raw: JSON.stringify({ spec: { tags: ['x', 'w'], ports: [{ name: 'p', protocol: 'TCP', port: 2 }] } }), contentType: 'application/merge-patch+json' });
  assert.is(up.status, 200, show(up));
  assert.equal(fieldsOf(up.json), {
    a: { 'f:spec': { 'f:ports': { 'k:{"name":"p","protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:protocol': {} } }, 'f:tags': { 'v:"x"': {} } } },
    u: { 'f:spec': { 'f:ports': { 'k:{"name":"p","protocol":"TCP"}': { 'f:port': {} } }, 'f:tags': { 'v:"w"': {} } } },
  });
});

test('an applied object the schema does not type is kube\'s 500: undeclared field, wrong type, list item without its key', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ junk: 1 }, '.spec.junk: field not declared in schema'],
    [{ tags: 'x' }, '.spec.tags: expected list, got &{x}'],
    [{ ports: [{ name: 'a', port: 1 }] }, '.spec.ports: element 0: associative list with keys has an element that omits key field "protocol" (and doesn\'t have default value)'],
  ];
  for (const [spec, why] of cases) {
    const r = await apply('m4', 'a', spec);
    assert.is(r.status, 500, show(r));
    assert.is(r.json.message, `failed to create typed patch object (/m4; ${group}/v1, Kind=Merger): ${why}`);
  }
  assert.is((await t.client.request('GET', `${base()}/m4`)).status, 404);
});

test.run();
