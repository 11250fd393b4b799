/**
 * The edges of CustomResourceDefinitions and their custom resources, as kube-apiserver 1.24.17
 * answers them (runs on both targets):
 *   - invalid schemas (structural-schema rules beyond crds.test.ts's sample): 422 with kube's whole
 *     message, nothing stored; what kube lets through (a typed int-or-string, an unknown format)
 *     is accepted;
 *   - `x-kubernetes-validations` (CEL, alpha and off in 1.24): dropped from properties, items and
 *     additionalProperties on create and update; under allOf it is refused as non-structural;
 *   - big schemas are no error: a CRD with 1,000 properties and its custom resources (time per
 *     create printed and bounded), a CRD nested 50 levels deep (defaults, pruning and field paths
 *     at the bottom);
 *   - custom resources failing the schema in many ways (types, formats, enum, pattern, bounds,
 *     lengths, required, nullable, list-type set, oneOf/anyOf/allOf/not): 422 with kube's causes and
 *     field paths (kube walks properties in Go map order, so causes are compared sorted), nothing
 *     stored;
 *   - sizes: a 1.4 MB custom resource is stored, a 1.6 MB one is etcd's 500, a 2.2 MB one the gRPC
 *     client's 500 (with the etcd request's size), a body over 3 MiB is 413; an object too large only
 *     with its managedFields is stored without them; nothing else stored;
 *   - a CRD being deleted (Terminating, held by a custom resource's finalizer): creates are kube's
 *     405 (before the body is read: a broken body or a dry run too), server-side apply may still
 *     create, reads, updates and deletes go on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { eventually, type Client, type HttpResult } from '../harness.ts';

let t: Target;
let c: Client;
let G: string;
let ns: string;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 800)}`;
const made: string[] = [];

type Schema = Record<string, unknown>;
const crdOf = (plural: string, kind: string, schema: Schema) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${G}` },
  spec: { group: G, names: { plural, kind }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }] },
});
const specSchema = (spec: Schema): Schema => ({ type: 'object', properties: { spec } });

/** Create the CRD and wait until its kind is served. */
async function addCRD(plural: string, kind: string, schema: Schema): Promise<string> {
  const r = await c.request('POST', CRDS, { body: crdOf(plural, kind, schema) });
  assert.is(r.status, 201, show(r));
  made.push(`${plural}.${G}`);
  const base = `/apis/${G}/v1/namespaces/${ns}/${plural}`;
  await eventually(`${plural} served`, async () => (await c.request('GET', base)).status === 200);
  return base;
}

const cr = (kind: string, name: string, body: Record<string, unknown>) => ({ apiVersion: `${G}/v1`, kind, metadata: { name }, ...body });
const names = async (base: string): Promise<string[]> => (await c.request('GET', base)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();

interface Cause {
  reason: string;
  message: string;
  field: string;
}
const sorted = (causes: Cause[]): Cause[] => [...causes].sort((a, b) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`));

/** A 422 of kind `kind` for `name` with exactly these causes (any order), each in the message too. */
function assertInvalid(r: HttpResult, kind: string, name: string, causes: Cause[]): void {
  assert.is(r.status, 422, show(r));
  assert.is(r.json.reason, 'Invalid');
  assert.equal(sorted(r.json.details.causes), sorted(causes), name);
  assert.equal([r.json.details.name, r.json.details.group, r.json.details.kind], [name, G, kind]);
  const head = `${kind}.${G} "${name}" is invalid: `;
  assert.ok(r.json.message.startsWith(head), show(r));
  if (causes.length === 1) assert.is(r.json.message, `${head}${causes[0]!.field}: ${causes[0]!.message}`);
  else for (const x of causes) assert.ok(r.json.message.includes(`${x.field}: ${x.message}`), `${name}: ${x.field}: ${x.message} in ${r.json.message}`);
}

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  c = t.client;
  G = `${t.ns('lim')}.example.com`;
  ns = await t.createNamespace('lim');
});

test.after(async () => {
  for (const name of made) await c.request('DELETE', `${CRDS}/${name}`);
  await c.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const S = 'spec.validation.openAPIV3Schema';
const INVALID_SCHEMAS: Record<string, [Schema, string]> = {
  rootNotObject: [{ type: 'string' }, `${S}.type: Invalid value: "string": must be object at the root`],
  typeInAllOf: [specSchema({ type: 'object', allOf: [{ type: 'string' }] }), `${S}.properties[spec].allOf[0].type: Forbidden: must be empty to be structural`],
  typeInNot: [specSchema({ type: 'object', not: { type: 'object' } }), `${S}.properties[spec].not.type: Forbidden: must be empty to be structural`],
  descriptionInAnyOf: [specSchema({ type: 'object', anyOf: [{ description: 'x' }] }), `${S}.properties[spec].anyOf[0].description: Forbidden: must be empty to be structural`],
  propertiesAndAdditional: [
    specSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }),
    `${S}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
  ],
  metadataFields: [
    { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
    `${S}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
  ],
  defaultFailsSchema: [specSchema({ type: 'object', properties: { a: { type: 'integer', minimum: 3, default: 1 } } }), `${S}.properties[spec].properties[a].default: Invalid value: 1:  in body should be greater than or equal to 3`],
  defaultPruned: [
    specSchema({ type: 'object', properties: { a: { type: 'object', default: { b: 1 }, properties: { c: { type: 'string' } } } } }),
    `${S}.properties[spec].properties[a].default: Invalid value: map[string]interface {}{"b":1}: must not have unknown fields`,
  ],
  listMapWithoutKeys: [
    specSchema({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } } } }),
    `${S}.properties[spec].properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
  ],
  listMapKeyOptional: [
    specSchema({ type: 'object', properties: { a: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' } } } } } }),
    `${S}.properties[spec].properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
  ],
  uniqueItems: [
    specSchema({ type: 'object', properties: { a: { type: 'array', uniqueItems: true, items: { type: 'string' } } } }),
    `${S}.properties[spec].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
  ],
  ref: [specSchema({ type: 'object', properties: { a: { $ref: '#/definitions/x' } } }), `${S}.properties[spec].properties[a].$ref: Forbidden: $ref is not supported`],
  embeddedNotObject: [
    specSchema({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-embedded-resource': true } } }),
    `[${S}.properties[spec].properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields, ${S}.properties[spec].properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true]`,
  ],
  arrayWithoutItems: [specSchema({ type: 'object', properties: { a: { type: 'array' } } }), `${S}.properties[spec].properties[a].items: Required value: must be specified`],
  unknownType: [
    specSchema({ type: 'object', properties: { a: { type: 'float' } } }),
    `${S}.properties[spec].properties[a].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`,
  ],
  badPattern: [
    specSchema({ type: 'object', properties: { a: { type: 'string', pattern: '([a-z' } } }),
    `${S}.properties[spec].properties[a].pattern: Invalid value: "([a-z": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: \`[a-z\``,
  ],
  preserveFalse: [specSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': false }), `${S}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
  celInAllOf: [
    specSchema({ type: 'object', properties: { a: { type: 'integer' } }, allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.a > 1' }] }] }),
    `${S}.properties[spec].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural`,
  ],
};

/** Schemas kube 1.24 accepts although they look wrong. */
const ACCEPTED_SCHEMAS: Record<string, Schema> = {
  typedIntOrString: specSchema({ type: 'object', properties: { a: { type: 'string', 'x-kubernetes-int-or-string': true } } }),
  enumOfAnotherType: specSchema({ type: 'object', properties: { a: { type: 'integer', enum: ['x'] } } }),
  unknownFormat: specSchema({ type: 'object', properties: { a: { type: 'string', format: 'foo' } } }),
  additionalPropertiesFalse: specSchema({ type: 'object', additionalProperties: false }),
};

test("invalid schemas: 422 with kube's whole message, nothing stored; what kube accepts is accepted", async () => {
  for (const [label, [schema, detail]] of Object.entries(INVALID_SCHEMAS)) {
    const r = await c.request('POST', CRDS, { body: crdOf('widgets', 'Widget', schema) });
    assert.is(r.status, 422, `${label}: ${show(r)}`);
    assert.is(r.json.reason, 'Invalid', label);
    assert.is(r.json.message, `CustomResourceDefinition.apiextensions.k8s.io "widgets.${G}" is invalid: ${detail}`, label);
  }
  assert.is((await c.request('GET', `${CRDS}/widgets.${G}`)).status, 404);
  for (const [label, schema] of Object.entries(ACCEPTED_SCHEMAS)) {
    const r = await c.request('POST', `${CRDS}?dryRun=All`, { body: crdOf('widgets', 'Widget', schema) });
    assert.is(r.status, 201, `${label}: ${show(r)}`);
    assert.equal(r.json.spec.versions[0].schema.openAPIV3Schema, schema, label);
  }
});

test('x-kubernetes-validations (CEL, gate off in 1.24): dropped on create and update', async () => {
  const rules = [{ rule: 'self.a > 0', message: 'positive' }];
  const withRules = specSchema({
    type: 'object',
    'x-kubernetes-validations': rules,
    properties: {
      a: { type: 'integer', 'x-kubernetes-validations': [{ rule: '' }] },
      list: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': rules } },
      map: { type: 'object', additionalProperties: { type: 'string', 'x-kubernetes-validations': rules } },
    },
  });
  const without = specSchema({
    type: 'object',
    properties: { a: { type: 'integer' }, list: { type: 'array', items: { type: 'string' } }, map: { type: 'object', additionalProperties: { type: 'string' } } },
  });
  const r = await c.request('POST', CRDS, { body: crdOf('rules', 'Rule', withRules) });
  assert.is(r.status, 201, show(r));
  made.push(`rules.${G}`);
  assert.equal(r.json.spec.versions[0].schema.openAPIV3Schema, without);
  assert.equal((await c.request('GET', `${CRDS}/rules.${G}`)).json.spec.versions[0].schema.openAPIV3Schema, without);
  const base = `/apis/${G}/v1/namespaces/${ns}/rules`;
  await eventually('rules served', async () => (await c.request('GET', base)).status === 200);
  // An update adding rules: dropped too, after the generation was counted (kube's order).
  const cur = (await c.request('GET', `${CRDS}/rules.${G}`)).json;
  const next = structuredClone(cur);
  next.spec.versions[0].schema.openAPIV3Schema = withRules;
  const u = await c.request('PUT', `${CRDS}/rules.${G}`, { body: next });
  assert.is(u.status, 200, show(u));
  assert.equal(u.json.spec.versions[0].schema.openAPIV3Schema, without);
  assert.is(u.json.metadata.generation, 2);
  // No rule is enforced: a custom resource breaking it is stored.
  const o = await c.request('POST', base, { body: cr('Rule', 'r1', { spec: { a: -1 } }) });
  assert.is(o.status, 201, show(o));
});

test('a CRD with 1,000 properties: served, its custom resources created at a normal pace', async () => {
  const properties: Record<string, Schema> = {};
  for (let i = 0; i < 1000; i++) properties[`field${i}`] = i % 2 ? { type: 'integer', minimum: 0 } : { type: 'string', maxLength: 20 };
  const base = await addCRD('wides', 'Wide', specSchema({ type: 'object', properties }));
  const spec = (n: number): Record<string, unknown> => Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`field${i}`, i % 2 ? n + i : `v${n}-${i}`]));
  const N = 20;
  const t0 = performance.now();
  for (let n = 0; n < N; n++) {
    const r = await c.request('POST', base, { body: cr('Wide', `w${n}`, { spec: spec(n) }) });
    assert.is(r.status, 201, show(r));
  }
  const perCreate = (performance.now() - t0) / N;
  console.log(`  1,000-property custom resource: ${perCreate.toFixed(1)} ms per create (${t.reference ? 'reference' : 'this server'})`);
  // A bound for this server only (the reference takes ~190 ms here: its schema walk is slower).
  if (!t.reference) assert.ok(perCreate < 150, `${perCreate} ms per create`);
  const got = await c.request('GET', `${base}/w3`);
  assert.equal(got.json.spec, spec(3));
  // Every field wrong: one cause each.
  const bad = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`field${i}`, i % 2 ? -1 : 'x'.repeat(21)]));
  const r = await c.request('POST', base, { body: cr('Wide', 'bad', { spec: bad }) });
  assert.is(r.status, 422, show(r));
  assert.is(r.json.details.causes.length, 1000);
  assert.equal(r.json.details.causes.find((x: Cause) => x.field === 'spec.field1'), { reason: 'FieldValueInvalid', message: 'Invalid value: -1: spec.field1 in body should be greater than or equal to 0', field: 'spec.field1' });
  assert.equal(r.json.details.causes.find((x: Cause) => x.field === 'spec.field998'), { reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 20', field: 'spec.field998' });
  assert.is((await names(base)).length, N);
});

test('a CRD nested 50 levels deep: defaults, pruning and field paths at the bottom', async () => {
  const DEPTH = 50;
  let leaf: Schema = { type: 'object', properties: { n: { type: 'integer', maximum: 5 }, d: { type: 'string', default: 'deep' } } };
  for (let i = 0; i < DEPTH; i++) leaf = { type: 'object', properties: { a: leaf } };
  const base = await addCRD('deeps', 'Deep', specSchema(leaf));
  const nest = (bottom: Record<string, unknown>): Record<string, unknown> => {
    let o = bottom;
    for (let i = 0; i < DEPTH; i++) o = { a: o };
    return o;
  };
  const r = await c.request('POST', base, { body: cr('Deep', 'd1', { spec: nest({ n: 1, junk: true }) }) });
  assert.is(r.status, 201, show(r));
  assert.equal(r.json.spec, nest({ n: 1, d: 'deep' }));
  const path = `spec${'.a'.repeat(DEPTH)}.n`;
  const bad = await c.request('POST', base, { body: cr('Deep', 'd2', { spec: nest({ n: 6 }) }) });
  assertInvalid(bad, 'Deep', 'd2', [{ reason: 'FieldValueInvalid', message: `Invalid value: 6: ${path} in body should be less than or equal to 5`, field: path }]);
  assert.equal(await names(base), ['d1']);
});

const THING_SPEC: Schema = {
  type: 'object',
  required: ['req'],
  properties: {
    req: { type: 'string' },
    i: { type: 'integer', minimum: 1, maximum: 10, multipleOf: 2 },
    ex: { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    n: { type: 'number' },
    b: { type: 'boolean' },
    s: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
    e: { type: 'string', enum: ['a', 'b'] },
    dt: { type: 'string', format: 'date-time' },
    uuid: { type: 'string', format: 'uuid' },
    email: { type: 'string', format: 'email' },
    byte: { type: 'string', format: 'byte' },
    ip: { type: 'string', format: 'ipv4' },
    arr: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 },
    set: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    m: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1, minProperties: 1 },
    nul: { type: 'string' },
    nulok: { type: 'string', nullable: true },
    one: { type: 'integer', oneOf: [{ minimum: 5 }, { maximum: 7 }] },
    any: { type: 'integer', anyOf: [{ minimum: 50 }, { maximum: 1 }] },
    all: { type: 'string', allOf: [{ minLength: 2 }, { maxLength: 3 }] },
    not: { type: 'string', not: { enum: ['x'] } },
    obj: { type: 'object', required: ['a', 'b'], properties: { a: { type: 'string' }, b: { type: 'integer' } } },
    ios: { 'x-kubernetes-int-or-string': true },
  },
};

const typeErr = (field: string, got: string, want: string): Cause => ({ reason: 'FieldValueTypeInvalid', message: `Invalid value: "${got}": ${field} in body must be of type ${want}: "${got}"`, field });
const invalidErr = (field: string, value: string, text: string): Cause => ({ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${field} in body ${text}`, field });
const formatErr = (field: string, value: string, format: string): Cause => ({ reason: 'FieldValueTypeInvalid', message: `Invalid value: "${value}": ${field} in body must be of type ${format}: "${value}"`, field });
const combo = (field: string, text: string): Cause => ({ reason: 'FieldValueInvalid', message: `Invalid value: "": "${field}" ${text}`, field: '<nil>' });

const THING_CASES: Record<string, [Record<string, unknown>, Cause[]]> = {
  types: [
    { req: 1, i: 'x', n: 'y', b: 'true', s: 5, arr: {}, m: [], obj: 'z', ios: 1.5 },
    [
      typeErr('spec.req', 'integer', 'string'),
      typeErr('spec.i', 'string', 'integer'),
      typeErr('spec.n', 'string', 'number'),
      typeErr('spec.b', 'string', 'boolean'),
      typeErr('spec.s', 'integer', 'string'),
      typeErr('spec.arr', 'object', 'array'),
      typeErr('spec.m', 'array', 'object'),
      typeErr('spec.obj', 'string', 'object'),
      typeErr('spec.ios', 'number', 'integer,string'),
    ],
  ],
  upperBounds: [
    { req: 'r', i: 11, ex: 10, s: 'ABCDEFG', arr: [1, 2, 3], m: { a: 'x', b: 'y' } },
    [
      invalidErr('spec.i', '11', 'should be a multiple of 2'),
      invalidErr('spec.i', '11', 'should be less than or equal to 10'),
      invalidErr('spec.ex', '10', 'should be less than 10'),
      { reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 4', field: 'spec.s' },
      { reason: 'FieldValueTooMany', message: 'Too many: 3: must have at most 2 items', field: 'spec.arr' },
      { reason: 'FieldValueTooMany', message: 'Too many: 2: must have at most 1 items', field: 'spec.m' },
    ],
  ],
  lowerBounds: [
    { req: 'r', i: 3, ex: 1, s: 'a', arr: [], m: {} },
    [
      invalidErr('spec.i', '3', 'should be a multiple of 2'),
      invalidErr('spec.ex', '1', 'should be greater than 1'),
      invalidErr('spec.s', '"a"', 'should be at least 2 chars long'),
      invalidErr('spec.arr', '0', 'should have at least 1 items'),
      invalidErr('spec.m', '0', 'should have at least 1 properties'),
    ],
  ],
  pattern: [{ req: 'r', s: 'AB' }, [invalidErr('spec.s', '"AB"', 'should match \'^[a-z]+$\'')]],
  enumAndFormats: [
    { req: 'r', e: 'c', dt: 'yesterday', uuid: 'nope', email: 'x', byte: '!!', ip: '1.2.3' },
    [
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "c": supported values: "a", "b"', field: 'spec.e' },
      formatErr('spec.dt', 'yesterday', 'date-time'),
      formatErr('spec.uuid', 'nope', 'uuid'),
      formatErr('spec.email', 'x', 'email'),
      formatErr('spec.byte', '!!', 'byte'),
      formatErr('spec.ip', '1.2.3', 'ipv4'),
    ],
  ],
  // A null where the schema is not nullable is pruned from objects (kube's decoder drops it); in a
  // list it stays and fails the type.
  nulls: [{ req: 'r', nul: null, nulok: null, i: null, obj: null, arr: [null] }, [typeErr('spec.arr[0]', 'null', 'integer')]],
  required: [
    { obj: {} },
    [
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.req' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.obj.a' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.obj.b' },
    ],
  ],
  combinators: [
    { req: 'r', one: 6, any: 10, all: 'abcd', not: 'x' },
    [
      combo('spec.one', 'must validate one and only one schema (oneOf). Found 2 valid alternatives'),
      combo('spec.any', 'must validate at least one schema (anyOf)'),
      invalidErr('spec.any', '10', 'should be greater than or equal to 50'),
      combo('spec.all', 'must validate all the schemas (allOf)'),
      { reason: 'FieldValueTooLong', message: 'Too long: may not be longer than 3', field: 'spec.all' },
      combo('spec.not', 'must not validate the schema (not)'),
    ],
  ],
  set: [{ req: 'r', set: ['a', 'a'] }, [{ reason: 'FieldValueDuplicate', message: 'Duplicate value: "a"', field: 'spec.set[1]' }]],
};

test("custom resources failing the schema: kube's causes and field paths, nothing stored", async () => {
  const base = await addCRD('things', 'Thing', specSchema(THING_SPEC));
  for (const [name, [spec, causes]] of Object.entries(THING_CASES)) {
    const r = await c.request('POST', base, { body: cr('Thing', name.toLowerCase(), { spec }) });
    assertInvalid(r, 'Thing', name.toLowerCase(), causes);
  }
  const good = {
    req: 'r', i: 2, ex: 5, s: 'ab', e: 'a', dt: '2020-01-01T00:00:00Z', uuid: '123e4567-e89b-12d3-a456-426614174000', email: 'a@b.c', byte: 'YQ==', ip: '1.2.3.4',
    arr: [1], set: ['a', 'b'], m: { a: 'b' }, nulok: null, one: 1, any: 60, all: 'ab', not: 'y', obj: { a: 'x', b: 1 }, ios: 'x',
  };
  const ok = await c.request('POST', base, { body: cr('Thing', 'good', { spec: good }) });
  assert.is(ok.status, 201, show(ok));
  assert.equal(ok.json.spec, good);
  assert.equal(await names(base), ['good']);
  // An update failing the schema leaves the object as it was.
  const bad = await c.request('PUT', `${base}/good`, { body: { ...ok.json, spec: { ...good, i: 3 } } });
  assertInvalid(bad, 'Thing', 'good', [invalidErr('spec.i', '3', 'should be a multiple of 2')]);
  assert.is((await c.request('GET', `${base}/good`)).json.metadata.resourceVersion, ok.json.metadata.resourceVersion);
});

test("sizes: 1.4 MB stored; over etcd's 1.5 MiB or gRPC's 2 MiB kube's 500s; a body over 3 MiB 413; managedFields dropped to fit", async () => {
  const base = await addCRD('blobs', 'Blob', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const blob = (name: string, bytes: number) => cr('Blob', name, { data: 'x'.repeat(bytes) });
  const small = await c.request('POST', base, { body: blob('s14', 1_400_000) });
  assert.is(small.status, 201, show(small));
  for (const bytes of [1_600_000, 2_000_000]) {
    const r = await c.request('POST', base, { body: blob(`s${bytes}`, bytes) });
    assert.is(r.status, 500, show(r));
    assert.equal([r.json.kind, r.json.reason, r.json.message], ['Status', undefined, 'etcdserver: request is too large']);
  }
  const huge = await c.request('POST', base, { body: blob('huge', 3 * 1024 * 1024) });
  assert.is(huge.status, 413, show(huge));
  assert.equal([huge.json.reason, huge.json.message], ['RequestEntityTooLarge', 'Request entity too large: limit is 3145728']);
  // Between 2 and 3 MiB the gRPC client refuses the etcd request first (its size is N; the object is
  // retried without managedFields before that answer, as kube's handlers do).
  // N: the value (the object's JSON and a newline) and the key (twice), which both hold the group,
  // the namespace and the name; the rest is fixed (247 bytes, measured on kube-apiserver 1.24.17).
  for (const [name, bytes] of [['s22', 2_200_000], ['abcdefghij', 2_500_000]] as const) {
    const txn = bytes + 247 + 3 * (G.length + ns.length + name.length);
    const r = await c.request('POST', base, { body: blob(name, bytes) });
    assert.is(r.status, 500, show(r));
    assert.equal([r.json.reason, r.json.message], [undefined, `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${txn} vs. 2097152)`]);
  }
  // Over the limit only with its managedFields: stored without them.
  // (1.5 MB of data and 5,000 fields: ~1.56 MB, and ~70 KB more of managedFields.)
  const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${String(i).padStart(5, '0')}`, '']));
  const trimmed = await c.request('POST', base, { body: cr('Blob', 'fields', { spec: many, data: 'x'.repeat(1_500_000) }) });
  assert.is(trimmed.status, 201, show(trimmed));
  assert.is(trimmed.json.metadata.managedFields, undefined);
  assert.is(Object.keys(trimmed.json.spec).length, 5_000);
  // An update growing the object past the limit leaves it as it was.
  const grown = await c.request('PUT', `${base}/s14`, { body: { ...small.json, data: 'y'.repeat(1_600_000) } });
  assert.is(grown.status, 500, show(grown));
  assert.is((await c.request('GET', `${base}/s14`)).json.metadata.resourceVersion, small.json.metadata.resourceVersion);
  assert.equal(await names(base), ['fields', 's14']);
});

test('a Terminating CRD: creates are 405 (even broken or dry-run ones), reads, updates, deletes and apply go on', async () => {
  const base = await addCRD('holds', 'Hold', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  const held = await c.request('POST', base, { body: cr('Hold', 'held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }) });
  assert.is(held.status, 201, show(held));
  const other = await c.request('POST', base, { body: cr('Hold', 'other', {}) });
  assert.is(other.status, 201, show(other));
  const d = await c.request('DELETE', `${CRDS}/holds.${G}`);
  assert.is(d.status, 200, show(d));
  // The cleanup marks `held` for deletion and waits for its finalizer: the CRD stays Terminating.
  await eventually('held marked', async () => (await c.request('GET', `${base}/held`)).json.metadata?.deletionTimestamp !== undefined, 30_000);
  const refused = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'create not allowed while custom resource definition is terminating', reason: 'MethodNotAllowed', details: { group: G, kind: 'holds' }, code: 405 };
  for (const [label, r] of [
    ['create', await c.request('POST', base, { body: cr('Hold', 'new', {}) })],
    ['broken body', await c.request('POST', base, { raw: '{', contentType: 'application/json' })],
    ['dry run', await c.request('POST', `${base}?dryRun=All`, { body: cr('Hold', 'new', {}) })],
  ] as const) {
    assert.is(r.status, 405, `${label}: ${show(r)}`);
    assert.equal(r.json, refused, label);
  }
  assert.is((await c.request('GET', `${base}/new`)).status, 404);
  // Server-side apply is a patch: it may create (kube checks the create verb only).
  const applied = await c.request('PATCH', `${base}/late?fieldManager=m`, { raw: JSON.stringify(cr('Hold', 'late', {})), contentType: 'application/apply-patch+yaml' });
  assert.is(applied.status, 201, show(applied));
  // (The cleanup, retrying while `held` stays, may delete it first.)
  const late = await c.request('DELETE', `${base}/late`);
  assert.ok(late.status === 200 || late.status === 404, show(late));
  const cur = (await c.request('GET', `${base}/held`)).json;
  const upd = await c.request('PUT', `${base}/held`, { body: { ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } } } });
  assert.is(upd.status, 200, show(upd));
  assert.is((await c.request('GET', base)).status, 200);
  // Letting go of the last custom resource lets the CRD go.
  const released = await c.request('PATCH', `${base}/held`, { raw: JSON.stringify({ metadata: { finalizers: null } }), contentType: 'application/merge-patch+json' });
  assert.is(released.status, 200, show(released));
  await eventually('the CRD gone', async () => (await c.request('GET', `${CRDS}/holds.${G}`)).status === 404, 60_000);
});

test.run();
