import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import type { ApiError } from '../../api/errors.ts';
import { crdConversion, type ConversionWebhookCall, type ConvertedCRD } from './conversion.ts';
import { compareKubeAwareVersions } from './custom-resource.ts';
import { convertStored } from '../generic/view.ts';
import { goJson } from '../../gocompat/json.ts';

const schema = (properties: Record<string, unknown>) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } });
const crd = (conversion?: ConvertedCRD['spec']['conversion']): ConvertedCRD => ({
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Thing' },
    versions: [
      { name: 'v1', storage: true, schema: schema({ a: { type: 'string', default: 'one' }, both: { type: 'string' } }) as never },
      { name: 'v2', storage: false, schema: schema({ b: { type: 'integer', default: 2 }, both: { type: 'string' } }) as never },
    ],
    conversion,
  },
});
const thing = (v: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: `example.com/${v}`, kind: 'Thing', metadata: { name: 't', namespace: 'ns', uid: 'u1', ...meta }, spec }) as KubeObject;
const sync = <T>(x: T | Promise<T>): T => {
  assert.ok(!(x instanceof Promise), 'expected a synchronous result');
  return x as T;
};

test('None: read defaults at the stored version, converts apiVersion, prunes at the target (no target defaults)', () => {
  const c = crdConversion(crd());
  assert.is(c.storageVersion, 'v1');
  const [o] = sync(c.fromStorage([thing('v1', { both: 'x', junk: 1 })], 'v2'));
  assert.equal(o, thing('v2', { both: 'x' }));
  const [same] = sync(c.fromStorage([thing('v1', { both: 'x' })], 'v1'));
  assert.equal(same.spec, { both: 'x', a: 'one' });
  const stored = sync(c.toStorage(thing('v2', { b: 3, both: 'y' })));
  assert.equal(stored, thing('v1', { both: 'y' }));
});

test('a stored object already at the served version that decoding leaves alone is served as its stored bytes; others are encoded again', () => {
  const c = crdConversion(crd());
  // As written under the current schema: defaulted, nothing to prune (key order of a stored object).
  const clean = Buffer.from(goJson(thing('v1', { both: 'x<y', a: 'one' })));
  // Stored before `a` had a default, or with a field the schema no longer has: changed on read.
  const missingDefault = Buffer.from(goJson(thing('v1', { both: 'x' })));
  const unknown = Buffer.from(goJson(thing('v1', { a: 'one', gone: true })));
  const out = sync(convertStored(c, [clean, missingDefault, unknown], 'v1'));
  assert.ok(out[0] === clean, 'the stored buffer itself');
  assert.equal(JSON.parse(out[1].toString()).spec, { both: 'x', a: 'one' });
  assert.equal(JSON.parse(out[2].toString()).spec, { a: 'one' });
  // At another version: converted, so encoded again.
  const [v2] = sync(convertStored(c, [clean], 'v2'));
  assert.ok(v2 !== clean);
  assert.is(JSON.parse(v2.toString()).apiVersion, 'example.com/v2');
  // Served bytes are what encoding the decoded object gives (the same text either way).
  assert.is(out[0].toString(), goJson(JSON.parse(clean.toString())));
});

/** A webhook that answers `answer(review)`; records the reviews. */
function hook(answer: (review: any) => unknown): { call: ConversionWebhookCall; reviews: any[] } {
  const reviews: any[] = [];
  return { reviews, call: async (_name, _cc, review) => (reviews.push(review), answer(review)) };
}
const ok = (review: any, objects: unknown[], apiVersion = 'apiextensions.k8s.io/v1') => ({
  apiVersion,
  kind: 'ConversionReview',
  response: { uid: review.request.uid, convertedObjects: objects, result: { status: 'Success' } },
});
const webhookCRD = (versions = ['v1']) => crd({ strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: versions } });

async function failure(p: unknown): Promise<string> {
  try {
    await p;
  } catch (e) {
    const s = (e as ApiError).status;
    assert.is(s.code, 500);
    assert.is(s.reason, undefined);
    return s.message ?? '';
  }
  throw new Error('expected a failure');
}

test('Webhook: one review per object; only labels and annotations taken from the answer', async () => {
  const h = hook((r) => ok(r, r.request.objects.map((o: any) => ({ ...o, apiVersion: r.request.desiredAPIVersion, spec: { both: 'conv' }, metadata: { ...o.metadata, labels: { l: 'v' }, generation: 9 } }))));
  const c = crdConversion(webhookCRD(), h.call);
  const out = await c.fromStorage([thing('v1', { both: 'x' }), thing('v2', { both: 'y' }), thing('v1', { both: 'z' }, { name: 't2', uid: 'u2' })], 'v2');
  assert.equal(out.map((o) => [o.apiVersion, o.metadata.name, o.spec, o.metadata.labels, o.metadata.generation]), [
    ['example.com/v2', 't', { both: 'conv' }, { l: 'v' }, undefined],
    ['example.com/v2', 't', { both: 'y', b: 2 }, undefined, undefined], // stored at v2: v2's defaults
    ['example.com/v2', 't2', { both: 'conv' }, { l: 'v' }, undefined],
  ]);
  assert.equal(h.reviews.map((r) => [r.apiVersion, r.request.desiredAPIVersion, r.request.objects.length]), [
    ['apiextensions.k8s.io/v1', 'example.com/v2', 1],
    ['apiextensions.k8s.io/v1', 'example.com/v2', 1],
  ]);
  // At the storage version nothing is called.
  sync(c.fromStorage([thing('v1', {})], 'v1'));
  assert.is(h.reviews.length, 2);
});

test('Webhook answers kube refuses: uid, status, count, version, identity, labels', async () => {
  const pre = 'conversion webhook for example.com/v1, Kind=Thing';
  const cases: [(r: any) => unknown, string][] = [
    [(r) => ({ ...ok(r, []), response: { uid: 'other', convertedObjects: [], result: { status: 'Success' } } }), `${pre} failed: expected response.uid=`],
    [(r) => ({ ...ok(r, []), response: { uid: r.request.uid, result: { status: 'Failure', message: 'no way' } } }), `${pre} failed: no way`],
    [(r) => ({ ...ok(r, []), response: { uid: r.request.uid, result: { status: 'Failure' } } }), `${pre} failed: response.result.status was 'Failure', not 'Success'`],
    [(r) => ok(r, []), `${pre} returned 0 objects, expected 1`],
    [(r) => ok(r, [{ ...r.request.objects[0] }]), `${pre} returned invalid object at index 0: invalid groupVersion (expected example.com/v2, received example.com/v1)`],
    [(r) => ok(r, [{ ...r.request.objects[0], apiVersion: 'example.com/v2', metadata: { name: 't', namespace: 'ns', uid: 'u9' } }]), `${pre} returned invalid object: must have the same UID: u1 != u9`],
    [(r) => ok(r, [{ ...r.request.objects[0], apiVersion: 'example.com/v2', metadata: { ...r.request.objects[0].metadata, labels: { 'bad key!': 'v' } } }]), `${pre} returned invalid metadata: metadata.labels: Invalid value: "bad key!"`],
    [(r) => ({ apiVersion: 'v1', kind: 'Status', response: { uid: r.request.uid } }), `${pre} failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got v1, Kind=Status`],
  ];
  for (const [answer, message] of cases) {
    const c = crdConversion(webhookCRD(), hook(answer).call);
    const m = await failure(c.fromStorage([thing('v1', {})], 'v2'));
    assert.ok(m.startsWith(message), `${m}\n  wanted ${message}`);
  }
  // v1beta1 reviews: the uid is not checked.
  const beta = hook((r) => ok({ request: { uid: 'whatever' } }, r.request.objects.map((o: any) => ({ ...o, apiVersion: 'example.com/v2' })), 'apiextensions.k8s.io/v1beta1'));
  const out = await crdConversion(webhookCRD(['v1beta1', 'v1']), beta.call).fromStorage([thing('v1', {})], 'v2');
  assert.is(out[0].apiVersion, 'example.com/v2');
  assert.is(beta.reviews[0].apiVersion, 'apiextensions.k8s.io/v1beta1');
  // A call that fails: its message after kube's prefix.
  const down = crdConversion(webhookCRD(), async () => {
    throw new Error('Post "https://x?timeout=30s": dial tcp: connection refused');
  });
  assert.is(await failure(down.toStorage(thing('v2', {}))), 'conversion webhook for example.com/v2, Kind=Thing failed: Post "https://x?timeout=30s": dial tcp: connection refused');
});

test('kube-aware version order (apimachinery CompareKubeAwareVersionStrings)', () => {
  const sorted = ['v1alpha1', 'foo', 'v2', 'v1beta1', 'v1', 'v11alpha2', 'v12alpha1', 'bar', 'v1beta2', 'v10'].sort((a, b) => compareKubeAwareVersions(b, a));
  assert.equal(sorted, ['v10', 'v2', 'v1', 'v1beta2', 'v1beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});

test.run();
