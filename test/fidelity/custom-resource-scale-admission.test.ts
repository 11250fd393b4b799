/**
 * Admission webhooks on a custom resource's `scale` subresource (issue 26), here and on the
 * reference, with a real HTTPS webhook server on loopback (its own CA, trusted through caBundle):
 *   - the AdmissionReview of a scale update or patch carries kube's autoscaling/v1 Scale: kind and
 *     requestKind Scale, resource and requestResource the custom resource's, subResource `scale`,
 *     object and oldObject Scales (the mutating webhook sees the Scale the client asked for and
 *     the Scale of the stored object; the validating webhook the Scales of the new and the old
 *     object);
 *   - a mutating webhook's JSONPatch of the Scale's spec.replicas is what gets written;
 *   - a validating webhook's denial is the answer and nothing is written.
 *
 *   node --import tsx test/run.ts test/fidelity/custom-resource-scale-admission.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/custom-resource-scale-admission.test.ts
 *
 * The configurations match only this run's CRD group and namespace; they are deleted at the end.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { dropCRD, scalerCRD, serveCRD, show } from '../crd-target.ts';
import { startWebhookServer, allow, patch, deny, type WebhookServer } from '../webhook-server.ts';
import { eventually } from '../harness.ts';
import { writeFileSync } from 'node:fs';

type Json = Record<string, any>;
const AR = '/apis/admissionregistration.k8s.io/v1';
let t: Target;
let wh: WebhookServer;
let group: string;
let ns: string;
let run: string;
const created: string[] = [];

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  run = t.ns('r');
  group = `${t.ns('scaleadm')}.example.test`;
  wh = await startWebhookServer();
  ns = await t.createNamespace('scaleadm');
  const r = await t.client.request('PATCH', `/api/v1/namespaces/${ns}`, { raw: JSON.stringify({ metadata: { labels: { 'scaleadm-run': run } } }), contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, show(r));
  // A second served version (conversion None), for matchPolicy Equivalent.
  const c = scalerCRD(group);
  c.spec.versions.push({ ...c.spec.versions[0], name: 'v2', storage: false });
  await serveCRD(t, c);
});

test.after(async () => {
  // DUMP_REVIEWS=<file>: the reviews received (dry-run probes left out), to compare two targets.
  if (process.env.DUMP_REVIEWS) writeFileSync(process.env.DUMP_REVIEWS, JSON.stringify(wh.received.filter((x) => !x.review.request.dryRun), null, 1));
  for (const path of created) await t.client.request('DELETE', path);
  await dropCRD(t, `scalers.${group}`);
  await wh?.close();
  await t?.close();
});

const base = (): string => `/apis/${group}/v1/namespaces/${ns}/scalers`;

function hook(name: string, path: string, extra: Json = {}): Json {
  return {
    name: `${name}.scaleadm.example.com`,
    clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ['UPDATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['scalers/scale'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    namespaceSelector: { matchLabels: { 'scaleadm-run': run } },
    timeoutSeconds: 5,
    ...extra,
  };
}

async function configure(type: 'mutating' | 'validating', name: string, path: string, extra: Json = {}): Promise<void> {
  const kind = type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  const at = `${AR}/${type}webhookconfigurations`;
  const r = await t.client.request('POST', at, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: `${name}-${run}` }, webhooks: [hook(name, path, extra)] } });
  assert.is(r.status, 201, show(r));
  created.push(`${at}/${name}-${run}`);
}

/** Wait until a dry-run scale patch of `name` reaches the webhook at `path` (kube reads configurations through an informer). */
async function active(name: string, path: string): Promise<void> {
  await eventually(`${path} active`, async () => {
    const before = wh.on(path).length;
    await t.client.request('PATCH', `${base()}/${name}/scale?dryRun=All`, { raw: '{"spec":{"replicas":1}}', contentType: 'application/merge-patch+json' });
    return wh.on(path).length > before;
  });
}

async function createScaler(name: string): Promise<Json> {
  const r = await t.client.request('POST', base(), { body: { apiVersion: `${group}/v1`, kind: 'Scaler', metadata: { name, labels: { app: name } }, spec: { replicas: 2, note: 'keep' } } });
  assert.is(r.status, 201, show(r));
  const s = await t.client.request('PUT', `${base()}/${name}/status`, { body: { ...r.json, status: { replicas: 2, selector: `app=${name}` } } });
  assert.is(s.status, 200, show(s));
  return s.json;
}

/** The Scale of a stored Scaler as kube's scaleFromCustomResource builds it. */
const scaleOf = (o: Json, replicas: number): Json => ({
  kind: 'Scale',
  apiVersion: 'autoscaling/v1',
  metadata: { name: o.metadata.name, namespace: ns, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion, creationTimestamp: o.metadata.creationTimestamp },
  spec: { replicas },
  status: { replicas: 2, selector: `app=${o.metadata.name}` },
});

test('the review of a scale write is an autoscaling/v1 Scale; a mutating webhook’s patch of the Scale is written', async () => {
  const o = await createScaler('s1');
  wh.handle('/mutate', (rv) => (rv.request.dryRun ? allow(rv) : patch(rv, [{ op: 'replace', path: '/spec/replicas', value: 5 }])));
  await configure('mutating', 'mutate', '/mutate');
  await configure('validating', 'validate', '/validate');
  await active('s1', '/mutate');
  await active('s1', '/validate');
  const nm = wh.on('/mutate').length;
  const nv = wh.on('/validate').length;

  const r = await t.client.request('PATCH', `${base()}/s1/scale`, { raw: '{"spec":{"replicas":3}}', contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, show(r));
  assert.equal(r.json.spec, { replicas: 5 });
  const stored = await t.client.request('GET', `${base()}/s1`);
  assert.equal(stored.json.spec, { replicas: 5, note: 'keep' });

  const m = wh.on('/mutate').slice(nm);
  const v = wh.on('/validate').slice(nv);
  assert.is(m.length, 1);
  assert.is(v.length, 1);
  for (const q of [m[0].review.request, v[0].review.request]) {
    assert.equal(q.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(q.resource, { group, version: 'v1', resource: 'scalers' });
    assert.is(q.subResource, 'scale');
    assert.equal(q.requestKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.equal(q.requestResource, { group, version: 'v1', resource: 'scalers' });
    assert.is(q.requestSubResource, 'scale');
    assert.is(q.name, 's1');
    assert.is(q.namespace, ns);
    assert.is(q.operation, 'UPDATE');
    assert.equal(q.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
  }
  // The mutating webhook's old Scale carries the parent's owners of spec.replicas as owners of
  // the Scale's (kube's ScaleHandler.ToSubresource); the validating webhook's has none.
  const creator = o.metadata.managedFields.find((e: Json) => e.operation === 'Update' && !e.subresource);
  const old = m[0].review.request.oldObject;
  assert.equal(old.metadata.managedFields, [{ manager: creator.manager, operation: 'Update', apiVersion: 'autoscaling/v1', time: creator.time, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }]);
  delete old.metadata.managedFields;
  assert.equal(old, scaleOf(o, 2));
  assert.equal(v[0].review.request.oldObject, scaleOf(o, 2));
  // The mutating webhook sees the patched Scale; the validating one the Scale of the new object.
  assert.equal(m[0].review.request.object, scaleOf(o, 3));
  assert.equal(v[0].review.request.object, scaleOf(o, 5));

  // An update (PUT) goes through the same webhooks with the client's Scale.
  const before = wh.on('/mutate').length;
  const put = await t.client.request('PUT', `${base()}/s1/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's1' }, spec: { replicas: 8 } } });
  assert.is(put.status, 200, show(put));
  assert.equal(put.json.spec, { replicas: 5 });
  const q = wh.on('/mutate').slice(before)[0].review.request;
  // The request's namespace is filled in; another one is a 400 before any webhook is called.
  assert.equal(q.object, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 's1', namespace: ns, creationTimestamp: null }, spec: { replicas: 8 }, status: { replicas: 0 } });
  assert.equal(q.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  const calls = wh.on('/mutate').length;
  const other = await t.client.request('PUT', `${base()}/s1/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 's1', namespace: 'elsewhere' }, spec: { replicas: 8 } } });
  assert.is(other.status, 400, show(other));
  assert.is(other.json.message, 'the namespace of the provided object does not match the namespace sent on the request');
  assert.is(wh.on('/mutate').length, calls);
});

test('a validating webhook’s denial of a scale write is the answer; nothing is written', async () => {
  await createScaler('s2');
  wh.handle('/deny', (rv) => (rv.request.dryRun ? allow(rv) : rv.request.object?.spec?.replicas > 4 ? deny(rv, { code: 403, message: 'too many replicas' }) : allow(rv)));
  await configure('validating', 'deny', '/deny');
  await active('s2', '/deny');
  const r = await t.client.request('PATCH', `${base()}/s2/scale`, { raw: '{"spec":{"replicas":4}}', contentType: 'application/merge-patch+json' });
  assert.is(r.status, 403, show(r));
  assert.is(r.json.message, 'admission webhook "deny.scaleadm.example.com" denied the request: too many replicas');
  const stored = await t.client.request('GET', `${base()}/s2`);
  assert.equal(stored.json.spec, { replicas: 2, note: 'keep' });
});

test('matchPolicy Equivalent: a webhook for another version gets that resource and the same Scale', async () => {
  const o = await createScaler('s3');
  await configure('validating', 'equiv', '/equiv', { rules: [{ operations: ['UPDATE'], apiGroups: [group], apiVersions: ['v2'], resources: ['scalers/scale'] }], matchPolicy: 'Equivalent' });
  await active('s3', '/equiv');
  const before = wh.on('/equiv').length;
  const r = await t.client.request('PATCH', `${base()}/s3/scale`, { raw: '{"spec":{"replicas":3}}', contentType: 'application/merge-patch+json' });
  assert.is(r.status, 403, show(r)); // the mutating webhook sets 5, the deny webhook refuses it
  // Validating webhooks are called in parallel: the denial may answer before this one is received.
  await eventually('/equiv called', async () => wh.on('/equiv').length > before);
  const q = wh.on('/equiv')[before].review.request;
  assert.equal(q.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  assert.equal(q.resource, { group, version: 'v2', resource: 'scalers' });
  assert.is(q.subResource, 'scale');
  assert.equal(q.requestKind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  assert.equal(q.requestResource, { group, version: 'v1', resource: 'scalers' });
  assert.equal(q.object, scaleOf(o, 5));
  assert.equal(q.oldObject, scaleOf(o, 2));
});

test.run();
