/**
 * The `scale` subresource of custom resources (autoscaling/v1 Scale at `<plural>/<name>/scale`,
 * issue 26), here and on the reference:
 *   - discovery lists `<plural>/scale` as autoscaling/v1 Scale with get, patch, update;
 *   - get: the Scale at specReplicasPath/statusReplicasPath/labelSelectorPath (spec.replicas
 *     omitted when 0, status.replicas always); no spec replicas: 500 with kube's message; a Table
 *     of Desired/Available/Age; YAML; Protobuf only is 406;
 *   - update and merge/JSON patch write spec.replicas into the object (generation bumped), the
 *     answer is the Scale; a resourceVersion in the Scale is a precondition (409); a wrong name is
 *     400; a wrong kind or a field of the wrong type is kube's 400 / 422; negative replicas is the
 *     custom resource's 422; a patch that leaves missing replicas missing is 400;
 *   - managedFields: the replicas path leaves every manager's entry, none is added (kube 1.24's
 *     scale field manager drops the Scale's entries); apply on the scale is kube's 500;
 *   - strategic merge patch is 415; POST and DELETE are 405.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { dropCRD, scalerCRD, serveCRD, show } from '../crd-target.ts';

let t: Target;
let group: string;
let ns: string;

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  group = `${t.ns('scale')}.example.test`;
  ns = await t.createNamespace('scalers');
  await serveCRD(t, scalerCRD(group));
});

test.after(async () => {
  await dropCRD(t, `scalers.${group}`);
  await t?.close();
});

const base = (): string => `/apis/${group}/v1/namespaces/${ns}/scalers`;
const scaler = (name: string, spec: Record<string, unknown>) => ({ apiVersion: `${group}/v1`, kind: 'Scaler', metadata: { name }, spec });
const scaleBody = (name: string, replicas: number, extra: Record<string, unknown> = {}) => ({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, ...extra }, spec: { replicas } });

async function create(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await t.client.request('POST', base(), { body: scaler(name, spec) });
  assert.is(r.status, 201, show(r));
  if (!status) return r.json;
  const s = await t.client.request('PUT', `${base()}/${name}/status`, { body: { ...r.json, status } });
  assert.is(s.status, 200, show(s));
  return s.json;
}

test('discovery: <plural>/scale is autoscaling/v1 Scale', async () => {
  const r = await t.client.request('GET', `/apis/${group}/v1`);
  const sub = r.json.resources.find((x: { name: string }) => x.name === 'scalers/scale');
  assert.equal(sub, { name: 'scalers/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
});

test('get: the Scale of the object; no spec replicas is a 500; Table', async () => {
  const o = await create('g1', { replicas: 3 }, { replicas: 2, selector: 'app=g1' });
  const r = await t.client.request('GET', `${base()}/g1/scale`);
  assert.is(r.status, 200, show(r));
  const m = o.metadata;
  assert.equal(r.json, {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'g1', namespace: ns, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: { replicas: 3 },
    status: { replicas: 2, selector: 'app=g1' },
  });
  await create('g0', { replicas: 0 });
  const zero = await t.client.request('GET', `${base()}/g0/scale`);
  assert.equal([zero.json.spec, zero.json.status], [{}, { replicas: 0 }]);
  await create('gn', { note: 'none' });
  const none = await t.client.request('GET', `${base()}/gn/scale`);
  assert.is(none.status, 500, show(none));
  assert.is(none.json.message, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  const missing = await t.client.request('GET', `${base()}/nope/scale`);
  assert.is(missing.status, 404, show(missing));
  assert.is(missing.json.message, `scalers.${group} "nope" not found`);
  const table = await t.client.request('GET', `${base()}/g1/scale`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(table.status, 200, show(table));
  assert.equal(table.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Desired', 'Available', 'Age']);
  assert.equal(table.json.rows[0].cells.slice(0, 3), ['g1', 3, 2]);
  const pb = await t.client.request('GET', `${base()}/g1/scale`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.is(pb.status, 406, show(pb));
  const yaml = await t.client.request('GET', `${base()}/g1/scale`, { headers: { accept: 'application/yaml' } });
  assert.is(yaml.status, 200, show(yaml));
  assert.match(yaml.text, /^apiVersion: autoscaling\/v1\nkind: Scale\nmetadata:\n/);
});

test('update and patch write spec.replicas; the answer is the Scale', async () => {
  await create('u1', { replicas: 1, note: 'keep' });
  const put = await t.client.request('PUT', `${base()}/u1/scale`, { body: scaleBody('u1', 4) });
  assert.is(put.status, 200, show(put));
  assert.is(put.json.kind, 'Scale');
  assert.equal(put.json.spec, { replicas: 4 });
  const merge = await t.client.request('PATCH', `${base()}/u1/scale`, { raw: '{"spec":{"replicas":6}}', contentType: 'application/merge-patch+json' });
  assert.is(merge.status, 200, show(merge));
  assert.equal(merge.json.spec, { replicas: 6 });
  const json = await t.client.request('PATCH', `${base()}/u1/scale`, { raw: '[{"op":"replace","path":"/spec/replicas","value":7}]', contentType: 'application/json-patch+json' });
  assert.is(json.status, 200, show(json));
  const o = await t.client.request('GET', `${base()}/u1`);
  assert.equal(o.json.spec, { replicas: 7, note: 'keep' });
  assert.is(o.json.metadata.generation, 4);
  assert.is(json.json.metadata.resourceVersion, o.json.metadata.resourceVersion);
  // A body without kind and apiVersion is a Scale too; a missing object is 404.
  const bare = await t.client.request('PUT', `${base()}/u1/scale`, { body: { metadata: { name: 'u1' }, spec: { replicas: 2 } } });
  assert.is(bare.status, 200, show(bare));
  const gone = await t.client.request('PUT', `${base()}/nope/scale`, { body: scaleBody('nope', 1) });
  assert.is(gone.status, 404, show(gone));
  // An object without spec replicas: a PUT sets them (0 when the body has none); a patch must.
  await create('u0', { note: 'x' });
  const empty = await t.client.request('PATCH', `${base()}/u0/scale`, { raw: '{"metadata":{"labels":{"a":"b"}}}', contentType: 'application/merge-patch+json' });
  assert.is(empty.status, 400, show(empty));
  assert.is(empty.json.message, 'the spec replicas field ".spec.replicas" cannot be empty');
  const noSpec = await t.client.request('PUT', `${base()}/u0/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'u0' } } });
  assert.is(noSpec.status, 200, show(noSpec));
  assert.equal(noSpec.json.spec, {});
  assert.equal((await t.client.request('GET', `${base()}/u0`)).json.spec, { note: 'x', replicas: 0 });
});

test('bad scale writes: precondition, name, kind, types, negative replicas, patch types, verbs', async () => {
  await create('b1', { replicas: 1 });
  const stale = await t.client.request('PUT', `${base()}/b1/scale`, { body: scaleBody('b1', 2, { resourceVersion: '3' }) });
  assert.is(stale.status, 409, show(stale));
  assert.is(stale.json.message, `Operation cannot be fulfilled on scalers.${group} "b1": the object has been modified; please apply your changes to the latest version and try again`);
  const name = await t.client.request('PUT', `${base()}/b1/scale`, { body: scaleBody('b2', 2) });
  assert.is(name.status, 400, show(name));
  assert.is(name.json.message, 'the name of the object (b2) does not match the name on the URL (b1)');
  const NOT_A_SCALE = 'no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:100"';
  const kind = await t.client.request('PUT', `${base()}/b1/scale`, { body: { ...scaler('b1', { replicas: 2 }) } });
  assert.is(kind.status, 400, show(kind));
  assert.is(kind.json.message, NOT_A_SCALE);
  const typed = await t.client.request('PUT', `${base()}/b1/scale`, { body: { ...scaleBody('b1', 2), spec: { replicas: '2' } } });
  assert.is(typed.status, 400, show(typed));
  assert.is(typed.json.message, NOT_A_SCALE);
  const patched = await t.client.request('PATCH', `${base()}/b1/scale`, { raw: '{"spec":{"replicas":"2"}}', contentType: 'application/merge-patch+json' });
  assert.is(patched.status, 422, show(patched));
  assert.match(patched.json.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"autoscaling\/v1\\",\\"kind\\":\\"Scale\\",\\"metadata\\":\{\\"name\\":\\"b1\\",.*\\"spec\\":\{\\"replicas\\":\\"2\\"\},\\"status\\":\{\\"replicas\\":0\}\}": json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32$/);
  const negative = await t.client.request('PATCH', `${base()}/b1/scale`, { raw: '{"spec":{"replicas":-1}}', contentType: 'application/merge-patch+json' });
  assert.is(negative.status, 422, show(negative));
  assert.is(negative.json.message, `Scaler.${group} "b1" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`);
  assert.equal(negative.json.details.causes, [{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: should be a non-negative integer', field: '.spec.replicas' }]);
  const smp = await t.client.request('PATCH', `${base()}/b1/scale`, { raw: '{"spec":{"replicas":2}}', contentType: 'application/strategic-merge-patch+json' });
  assert.is(smp.status, 415, show(smp));
  assert.is(smp.json.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
  for (const method of ['POST', 'DELETE']) {
    const r = await t.client.request(method, `${base()}/b1/scale`, method === 'POST' ? { body: scaleBody('b1', 1) } : {});
    assert.is(r.status, 405, `${method}: ${show(r)}`);
  }
  assert.equal((await t.client.request('GET', `${base()}/b1`)).json.spec, { replicas: 1 });
});

test('managedFields: a scale write takes the replicas path from every manager and adds none; apply on scale is 500', async () => {
  const applied = await t.client.request('PATCH', `${base()}/m1?fieldManager=owner`, { raw: JSON.stringify(scaler('m1', { replicas: 2, note: 'n' })), contentType: 'application/apply-patch+yaml' });
  assert.is(applied.status, 201, show(applied));
  const up = await t.client.request('PATCH', `${base()}/m1?fieldManager=other`, { raw: '{"spec":{"replicas":3}}', contentType: 'application/merge-patch+json' });
  assert.is(up.status, 200, show(up));
  const scaled = await t.client.request('PATCH', `${base()}/m1/scale?fieldManager=scaler`, { raw: '{"spec":{"replicas":5}}', contentType: 'application/merge-patch+json' });
  assert.is(scaled.status, 200, show(scaled));
  const o = (await t.client.request('GET', `${base()}/m1`)).json;
  const entries = o.metadata.managedFields.map((e: Record<string, unknown>) => [e.manager, e.operation, e.subresource, e.fieldsV1]);
  assert.equal(entries, [['owner', 'Apply', undefined, { 'f:spec': { 'f:note': {} } }]]);
  const apply = await t.client.request('PATCH', `${base()}/m1/scale?fieldManager=a`, { raw: JSON.stringify(scaleBody('m1', 1)), contentType: 'application/apply-patch+yaml' });
  assert.is(apply.status, 500, show(apply));
  assert.is(apply.json.message, 'failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) to proper version: request to convert CR to an invalid group/version: autoscaling/v1');
});

test.run();
