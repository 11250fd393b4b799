/**
 * Custom resources with several versions (issue 26), through HTTP, the same assertions here and on
 * the reference kube-apiserver 1.24.17:
 *   - conversion None: objects are stored in the storage version and served in the request's —
 *     get, list (the list's apiVersion too), watch (initial and later events), a write's answer —
 *     pruned with the target version's schema; defaults are those of the version the object is
 *     decoded from (the stored one), not the target's;
 *   - a write at another version is stored in the storage version (what the storage version's
 *     schema does not know is gone when read back at the request's version);
 *   - changing the storage version: storedVersions keeps both, old objects still read at both;
 *   - defaulting from storage: a default added to the schema after an object was stored shows on
 *     get, list and watch;
 *   - conversion Webhook: a real HTTPS webhook on 127.0.0.1 (its own CA, trusted through caBundle)
 *     gets ConversionReview v1 (one review for a list), its answer is served; metadata other than
 *     labels and annotations comes from the stored object; failures are kube's codes and messages.
 *
 *   node --import tsx test/run.ts test/fidelity/custom-resource-versions.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/custom-resource-versions.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { startTarget, type Target } from '../target.ts';
import { eventually, type HttpResult } from '../harness.ts';
import { startWebhookServer, type WebhookServer } from '../webhook-server.ts';

type Json = Record<string, any>;
let t: Target;
let group: string;
let ns: string;
let wh: WebhookServer;
const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 800)}`;
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

const version = (name: string, storage: boolean, properties: Json, extra: Json = {}): Json => ({
  name,
  served: true,
  storage,
  schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } },
  ...extra,
});
const crdOf = (kind: string, versions: Json[], conversion?: Json): Json => {
  const singular = kind.toLowerCase();
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${singular}s.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural: `${singular}s`, singular, kind, listKind: `${kind}List` }, versions, ...(conversion ? { conversion } : {}) },
  };
};

async function established(name: string, versionName: string, resource: string): Promise<void> {
  await eventually(`${name} Established`, async () => {
    const c = await t.client.request('GET', `${CRD_PATH}/${name}`);
    const ok = (c.json?.status?.conditions ?? []).some((x: Json) => x.type === 'Established' && x.status === 'True');
    return ok && (await t.client.request('GET', `/apis/${group}/${versionName}/namespaces/${ns}/${resource}`)).status === 200;
  });
}

async function addCRD(crd: Json): Promise<void> {
  const r = await t.client.request('POST', CRD_PATH, { body: crd });
  assert.is(r.status, 201, show(r));
  await established(crd.metadata.name, crd.spec.versions[0].name, crd.spec.names.plural);
}

/** Apply a JSON patch to a CRD, then wait until reads of `probe` satisfy `ready` (kube rebuilds its serving info asynchronously). */
async function patchCRD(name: string, ops: Json[]): Promise<Json> {
  const r = await t.client.request('PATCH', `${CRD_PATH}/${name}`, { raw: JSON.stringify(ops), contentType: 'application/json-patch+json' });
  assert.is(r.status, 200, show(r));
  return r.json;
}

/** The events of a watch that ends after `seconds`. */
async function watchEvents(path: string, headers: Record<string, string> = {}, seconds = 1): Promise<Json[]> {
  const w = await t.client.request('GET', `${path}${path.includes('?') ? '&' : '?'}watch=1&timeoutSeconds=${seconds}`, { headers });
  assert.is(w.status, 200, show(w));
  return w.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

const names = (items: Json[]): string[] => items.map((i) => i.metadata.name).sort();

test.before(async () => {
  t = await startTarget({ namespaceDefaults: false });
  group = `${t.ns('ver')}.example.test`;
  ns = await t.createNamespace('versions');
  // The certificate also names the Service the service-reference case dials (`<svc>.<ns>.svc`).
  wh = await startWebhookServer([`convhook.${ns}.svc`]);
});

test.after(async () => {
  if (t?.reference) {
    for (const plural of ['pairs', 'stats', 'lates', 'hooks', 'svchooks']) await t.client.request('DELETE', `${CRD_PATH}/${plural}.${group}`);
  }
  await wh?.close();
  await t?.close();
});

// v1 stores; v1 knows `a` (default "one") and `both`, v2 knows `b` (default 2) and `both`.
const pairCRD = (): Json =>
  crdOf('Pair', [
    version('v1', true, { a: { type: 'string', default: 'one' }, both: { type: 'string' } }, { additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }] }),
    version('v2', false, { b: { type: 'integer', default: 2 }, both: { type: 'string' } }, { additionalPrinterColumns: [{ name: 'Both', type: 'string', jsonPath: '.spec.both' }] }),
  ]);
const at = (v: string, name = ''): string => `/apis/${group}/${v}/namespaces/${ns}/pairs${name ? `/${name}` : ''}`;

test('conversion None: stored in the storage version, served in the request version on get, list, watch and writes', async () => {
  await addCRD(pairCRD());
  const c1 = await t.client.request('POST', at('v1'), { body: { apiVersion: `${group}/v1`, kind: 'Pair', metadata: { name: 'p1' }, spec: { both: 'x' } } });
  assert.is(c1.status, 201, show(c1));
  assert.equal(c1.json.spec, { a: 'one', both: 'x' });
  const rv = c1.json.metadata.resourceVersion;

  // Read at v2: apiVersion v2, pruned with v2's schema; v2's defaults do not apply (an object is
  // defaulted at the version it is decoded from, the stored one).
  const g2 = await t.client.request('GET', at('v2', 'p1'));
  assert.is(g2.status, 200, show(g2));
  assert.is(g2.json.apiVersion, `${group}/v2`);
  assert.equal(g2.json.spec, { both: 'x' });
  assert.is(g2.json.metadata.resourceVersion, rv);

  // Written at v2: defaulted and validated with v2's schema, stored at v1 (b is not kept).
  const c2 = await t.client.request('POST', at('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Pair', metadata: { name: 'p2' }, spec: { both: 'y' } } });
  assert.is(c2.status, 201, show(c2));
  assert.is(c2.json.apiVersion, `${group}/v2`);
  assert.equal(c2.json.spec, { both: 'y' });
  const g1 = await t.client.request('GET', at('v1', 'p2'));
  assert.is(g1.json.apiVersion, `${group}/v1`);
  assert.equal(g1.json.spec, { a: 'one', both: 'y' });

  // Lists: the list and every item at the request's version.
  for (const v of ['v1', 'v2']) {
    const l = await t.client.request('GET', at(v));
    assert.is(l.status, 200, show(l));
    assert.is(l.json.apiVersion, `${group}/${v}`);
    assert.is(l.json.kind, 'PairList');
    assert.equal(names(l.json.items), ['p1', 'p2']);
    for (const i of l.json.items) assert.is(i.apiVersion, `${group}/${v}`);
    const paged = await t.client.request('GET', `${at(v)}?limit=1`);
    assert.is(paged.json.items[0].apiVersion, `${group}/${v}`);
  }

  // Updates at v2 start from the stored object read at v2 and answer the stored object read at
  // v2 (v2's default for b was applied to the patched object, then lost in v1 storage).
  const u2 = await t.client.request('PATCH', at('v2', 'p1'), { raw: JSON.stringify({ spec: { both: 'z' } }), contentType: 'application/merge-patch+json' });
  assert.is(u2.status, 200, show(u2));
  assert.is(u2.json.apiVersion, `${group}/v2`);
  assert.equal(u2.json.spec, { both: 'z' });
  const after = await t.client.request('GET', at('v1', 'p1'));
  assert.equal(after.json.spec, { a: 'one', both: 'z' });

  // Watch at v2: the initial state and later changes at v2; at v1 the same changes at v1.
  const initial = await watchEvents(at('v2'));
  assert.equal(initial.map((e) => `${e.type} ${e.object.apiVersion} ${e.object.metadata.name}`).sort(), [`ADDED ${group}/v2 p1`, `ADDED ${group}/v2 p2`]);
  for (const v of ['v1', 'v2']) {
    const events = await watchEvents(`${at(v)}?resourceVersion=${rv}`);
    assert.equal(events.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec]), [
      ['ADDED', `${group}/${v}`, 'p2', v === 'v1' ? { a: 'one', both: 'y' } : { both: 'y' }],
      ['MODIFIED', `${group}/${v}`, 'p1', v === 'v1' ? { a: 'one', both: 'z' } : { both: 'z' }],
    ]);
  }
  // A dry run answers what the write would store, read back at the request's version.
  const dry = await t.client.request('POST', `${at('v2')}?dryRun=All`, { body: { apiVersion: `${group}/v2`, kind: 'Pair', metadata: { name: 'p9' }, spec: { both: 'd' } } });
  assert.is(dry.status, 201, show(dry));
  assert.equal(dry.json.spec, { both: 'd' });
  const dryPatch = await t.client.request('PATCH', `${at('v2', 'p1')}?dryRun=All`, { raw: JSON.stringify({ spec: { both: 'e' } }), contentType: 'application/merge-patch+json' });
  assert.is(dryPatch.status, 200, show(dryPatch));
  assert.equal(dryPatch.json.spec, { both: 'e' });
  assert.is(dryPatch.json.apiVersion, `${group}/v2`);
  assert.is((await t.client.request('GET', at('v1', 'p9'))).status, 404);
  // Server-side apply at v2 (a create, then an update): answered at v2, stored at v1.
  for (const both of ['s1', 's2']) {
    const ap = await t.client.request('PATCH', `${at('v2', 'p5')}?fieldManager=tester`, { raw: JSON.stringify({ apiVersion: `${group}/v2`, kind: 'Pair', metadata: { name: 'p5' }, spec: { both } }), contentType: 'application/apply-patch+yaml' });
    assert.ok(ap.status === 200 || ap.status === 201, show(ap));
    assert.equal([ap.json.apiVersion, ap.json.spec], [`${group}/v2`, { both }]);
    // managedFields name the version the write addressed.
    assert.equal(ap.json.metadata.managedFields.map((e: Json) => [e.manager, e.operation, e.apiVersion]), [['tester', 'Apply', `${group}/v2`]]);
  }
  assert.equal((await t.client.request('GET', at('v1', 'p5'))).json.spec, { a: 'one', both: 's2' });
  assert.is((await t.client.request('DELETE', at('v1', 'p5'))).status, 200);
  const before = (await t.client.request('GET', at('v1'))).json.metadata.resourceVersion;
  const del = await t.client.request('DELETE', at('v2', 'p2'));
  assert.is(del.status, 200, show(del));
  // A delete at v2 reaches a watcher at v1 at v1.
  const gone = await watchEvents(`${at('v1')}?resourceVersion=${before}`);
  assert.equal(gone.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec]), [['DELETED', `${group}/v1`, 'p2', { a: 'one', both: 'y' }]]);
});

test('printer columns per version: each version\'s Table has its own columns', async () => {
  const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
  const v1 = await t.client.request('GET', at('v1'), { headers: accept });
  assert.is(v1.status, 200, show(v1));
  assert.equal(v1.json.columnDefinitions.map((c: Json) => c.name), ['Name', 'A']);
  assert.equal(v1.json.rows.map((r: Json) => r.cells.slice(0, 2)), [['p1', 'one']]);
  const v2 = await t.client.request('GET', at('v2', 'p1'), { headers: accept });
  assert.is(v2.status, 200, show(v2));
  assert.equal(v2.json.columnDefinitions.map((c: Json) => c.name), ['Name', 'Both']);
  assert.equal(v2.json.rows.map((r: Json) => r.cells.slice(0, 2)), [['p1', 'z']]);
  const w = await watchEvents(`${at('v2')}?fieldSelector=metadata.name%3Dp1`, accept);
  assert.equal(w.map((e) => [e.object.kind, e.object.columnDefinitions?.map((c: Json) => c.name), e.object.rows[0].cells.slice(0, 2)]), [['Table', ['Name', 'Both'], ['p1', 'z']]]);
});

test('subresources per version: status only where the version declares it (discovery, routes, write rules)', async () => {
  const withStatus = (name: string, storage: boolean, extra: Json = {}): Json => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } }, status: { type: 'object', properties: { phase: { type: 'string' } } } } } },
    ...extra,
  });
  await addCRD(crdOf('Stat', [withStatus('v1', true, { deprecated: true }), withStatus('v2', false, { subresources: { status: {} } })]));
  const discovered = async (v: string): Promise<string[]> => (await t.client.request('GET', `/apis/${group}/${v}`)).json.resources.map((r: Json) => r.name).filter((n: string) => n.startsWith('stats'));
  assert.equal(await discovered('v1'), ['stats']);
  assert.equal(await discovered('v2'), ['stats', 'stats/status']);
  const path = (v: string, rest = ''): string => `/apis/${group}/${v}/namespaces/${ns}/stats${rest}`;
  // v1 has no status subresource: a create keeps the status given.
  const c = await t.client.request('POST', path('v1'), { body: { apiVersion: `${group}/v1`, kind: 'Stat', metadata: { name: 's1' }, spec: { n: 1 }, status: { phase: 'a' } } });
  assert.is(c.status, 201, show(c));
  assert.equal(c.json.status, { phase: 'a' });
  // v1 is deprecated (kube's default text), v2 is not: the warning follows the request's version.
  assert.is(c.headers.warning, `299 - "${group}/v1 Stat is deprecated; use ${group}/v2 Stat"`);
  assert.is((await t.client.request('GET', path('v1', '/s1'))).headers.warning, `299 - "${group}/v1 Stat is deprecated; use ${group}/v2 Stat"`);
  assert.is((await t.client.request('GET', path('v2', '/s1'))).headers.warning, undefined);
  assert.is((await t.client.request('GET', path('v1', '/s1/status'))).status, 404);
  const st = await t.client.request('GET', path('v2', '/s1/status'));
  assert.is(st.status, 200, show(st));
  assert.equal(st.json.status, { phase: 'a' });
  // v2 has one: its main resource keeps the stored status; v1's main resource changes it.
  const u2 = await t.client.request('PATCH', path('v2', '/s1'), { raw: JSON.stringify({ spec: { n: 2 }, status: { phase: 'b' } }), contentType: 'application/merge-patch+json' });
  assert.is(u2.status, 200, show(u2));
  assert.equal([u2.json.spec, u2.json.status], [{ n: 2 }, { phase: 'a' }]);
  const u1 = await t.client.request('PATCH', path('v1', '/s1'), { raw: JSON.stringify({ status: { phase: 'c' } }), contentType: 'application/merge-patch+json' });
  assert.is(u1.status, 200, show(u1));
  assert.equal(u1.json.status, { phase: 'c' });
  const s2 = await t.client.request('PATCH', path('v2', '/s1/status'), { raw: JSON.stringify({ status: { phase: 'd' } }), contentType: 'application/merge-patch+json' });
  assert.is(s2.status, 200, show(s2));
  assert.equal([s2.json.apiVersion, s2.json.status], [`${group}/v2`, { phase: 'd' }]);
});

test('a body whose apiVersion is not the URL\'s version: 400, nothing stored', async () => {
  const r = await t.client.request('POST', at('v2'), { body: { apiVersion: `${group}/v1`, kind: 'Pair', metadata: { name: 'p3' }, spec: { both: 'w' } } });
  assert.is(r.status, 400, show(r));
  assert.is(r.json.message, `the API version in the data (${group}/v1) does not match the expected API version (${group}/v2)`);
  assert.is((await t.client.request('GET', at('v1', 'p3'))).status, 404);
});

test('changing the storage version: storedVersions keeps both; objects stored at either read at both', async () => {
  const before = await t.client.request('GET', `${CRD_PATH}/pairs.${group}`);
  assert.equal(before.json.status.storedVersions, ['v1']);
  const crd = await patchCRD(`pairs.${group}`, [
    { op: 'replace', path: '/spec/versions/0/storage', value: false },
    { op: 'replace', path: '/spec/versions/1/storage', value: true },
  ]);
  assert.equal(crd.status.storedVersions, ['v1', 'v2']);
  // New objects are stored at v2: b survives a write at v1 read back at v2 once kube serves the change.
  await eventually('stored at v2', async () => {
    await t.client.request('DELETE', at('v1', 'p4'));
    const c = await t.client.request('POST', at('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Pair', metadata: { name: 'p4' }, spec: { b: 5 } } });
    if (c.status !== 201) return false;
    const g = await t.client.request('GET', at('v2', 'p4'));
    return g.json.spec?.b === 5;
  });
  const g1 = await t.client.request('GET', at('v1', 'p4'));
  assert.is(g1.json.apiVersion, `${group}/v1`);
  assert.equal(g1.json.spec, {});
  // p1, stored at v1, still reads at both.
  const old = await t.client.request('GET', at('v2', 'p1'));
  assert.equal(old.json.spec, { both: 'z' });
  const oldV1 = await t.client.request('GET', at('v1', 'p1'));
  assert.equal(oldV1.json.spec, { a: 'one', both: 'z' });
});

test('defaulting from storage: a default added later shows on get, list and watch', async () => {
  await addCRD(crdOf('Late', [version('v1', true, { a: { type: 'string' }, b: { type: 'string' } })]));
  const path = `/apis/${group}/v1/namespaces/${ns}/lates`;
  const c = await t.client.request('POST', path, { body: { apiVersion: `${group}/v1`, kind: 'Late', metadata: { name: 'l1' }, spec: { b: 'x' } } });
  assert.is(c.status, 201, show(c));
  assert.equal(c.json.spec, { b: 'x' });
  await patchCRD(`lates.${group}`, [{ op: 'add', path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/a/default', value: 'A' }]);
  await eventually('defaulted on read', async () => (await t.client.request('GET', `${path}/l1`)).json.spec?.a === 'A');
  const l = await t.client.request('GET', path);
  assert.equal(l.json.items[0].spec, { a: 'A', b: 'x' });
  const w = await watchEvents(path);
  assert.equal(w.map((e) => e.object.spec), [{ a: 'A', b: 'x' }]);
  // Nothing was written: the stored object still has no `a` (its resourceVersion is unchanged).
  assert.is(l.json.items[0].metadata.resourceVersion, c.json.metadata.resourceVersion);
});

/** A ConversionReview v1 answer. */
const reviewAnswer = (review: Json, response: Json): { raw: { status: number; body: string } } => ({
  raw: { status: 200, body: JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: review.request.uid, ...response } }) },
});
/** Converts Hook objects: v1 spec.x ⇄ v2 spec.y (and labels the converted objects). */
function convertHooks(review: Json): { raw: { status: number; body: string } } {
  const want = review.request.desiredAPIVersion as string;
  const convertedObjects = review.request.objects.map((o: Json) => {
    const spec = { ...(o.spec ?? {}) };
    if (want.endsWith('/v2') && 'x' in spec) {
      spec.y = spec.x;
      delete spec.x;
    } else if (want.endsWith('/v1') && 'y' in spec) {
      spec.x = spec.y;
      delete spec.y;
    }
    // Only labels and annotations of the answer's metadata are kept.
    return { ...o, apiVersion: want, spec, metadata: { ...o.metadata, labels: { ...(o.metadata.labels ?? {}), converted: 'yes' }, generation: 99 } };
  });
  return reviewAnswer(review, { convertedObjects, result: { status: 'Success' } });
}

const hookCRD = (path: string, caBundle = wh.caBundle, url = `${wh.url}${path}`): Json =>
  crdOf('Hook', [version('v1', true, { x: { type: 'string' } }), version('v2', false, { y: { type: 'string' } })], {
    strategy: 'Webhook',
    webhook: { clientConfig: { url, caBundle }, conversionReviewVersions: ['v1'] },
  });
const hooks = (v: string, name = ''): string => `/apis/${group}/${v}/namespaces/${ns}/hooks${name ? `/${name}` : ''}`;

test('conversion Webhook: ConversionReview v1 over HTTPS, converted objects served, one review per list', async () => {
  wh.handle('/convert', convertHooks);
  await addCRD(hookCRD('/convert'));
  const c = await t.client.request('POST', hooks('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Hook', metadata: { name: 'h1' }, spec: { y: 'why' } } });
  assert.is(c.status, 201, show(c));
  assert.is(c.json.apiVersion, `${group}/v2`);
  assert.equal(c.json.spec, { y: 'why' });
  assert.is(c.json.metadata.generation, 1, show(c));
  const stored = await t.client.request('GET', hooks('v1', 'h1'));
  assert.is(stored.status, 200, show(stored));
  assert.equal(stored.json.spec, { x: 'why' });
  assert.equal(stored.json.metadata.labels, { converted: 'yes' });
  const reviews = wh.on('/convert');
  assert.ok(reviews.length >= 2, `${reviews.length} reviews`);
  const first = reviews[0].review;
  assert.is(first.apiVersion, 'apiextensions.k8s.io/v1');
  assert.is(first.kind, 'ConversionReview');
  assert.is(first.request.desiredAPIVersion, `${group}/v1`);
  assert.is(first.request.objects.length, 1);
  assert.is(first.request.objects[0].apiVersion, `${group}/v2`);
  assert.equal(first.request.objects[0].spec, { y: 'why' });

  const c2 = await t.client.request('POST', hooks('v1'), { body: { apiVersion: `${group}/v1`, kind: 'Hook', metadata: { name: 'h2' }, spec: { x: 'ex' } } });
  assert.is(c2.status, 201, show(c2));
  const n = wh.on('/convert').length;
  const l = await t.client.request('GET', hooks('v2'));
  assert.is(l.status, 200, show(l));
  assert.is(l.json.apiVersion, `${group}/v2`);
  assert.equal(l.json.items.map((i: Json) => `${i.metadata.name} ${i.apiVersion} ${JSON.stringify(i.spec)}`), [`h1 ${group}/v2 {"y":"why"}`, `h2 ${group}/v2 {"y":"ex"}`]);
  // One review per object not at the desired version (kube's storage decodes each item; its
  // watch cache of v2 converts the same objects in the background, so reviews may repeat).
  const listReviews = wh.on('/convert').slice(n).map((r) => r.review.request.objects.map((o: Json) => o.metadata.name));
  for (const objs of listReviews) assert.is(objs.length, 1, JSON.stringify(listReviews));
  assert.equal([...new Set(listReviews.flat())].sort(), ['h1', 'h2'], JSON.stringify(listReviews));

  const w = await watchEvents(hooks('v2'));
  // Later changes reach a watcher at v2 converted (the object is stored at v1).
  const fromRv = l.json.metadata.resourceVersion;
  const changed = await t.client.request('PATCH', hooks('v1', 'h2'), { raw: JSON.stringify({ spec: { x: 'changed' } }), contentType: 'application/merge-patch+json' });
  assert.is(changed.status, 200, show(changed));
  const live = await watchEvents(`${hooks('v2')}?resourceVersion=${fromRv}`);
  assert.equal(live.map((e) => `${e.type} ${e.object.apiVersion} ${e.object.metadata.name} ${JSON.stringify(e.object.spec)}`), [`MODIFIED ${group}/v2 h2 {"y":"changed"}`]);
  // (kube's watch cache sends its initial events in no fixed order)
  assert.equal(w.map((e) => `${e.type} ${e.object.apiVersion} ${e.object.metadata.name} ${JSON.stringify(e.object.spec)}`).sort(), [`ADDED ${group}/v2 h1 {"y":"why"}`, `ADDED ${group}/v2 h2 {"y":"ex"}`]);
});

/** A 500 without a reason, as kube answers a conversion that failed. */
function failedWith(r: HttpResult, message: string): void {
  assert.is(r.status, 500, show(r));
  assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}

test('conversion Webhook failures: 500 with kube\'s message; nothing stored when a write fails', async () => {
  const gvk = (v: string): string => `${group}/${v}, Kind=Hook`;
  wh.handle('/convert', (review: Json) => reviewAnswer(review, { convertedObjects: [], result: { status: 'Failure', message: 'cannot convert this' } }));
  failedWith(await t.client.request('GET', hooks('v2', 'h1')), `conversion webhook for ${gvk('v1')} failed: cannot convert this`);
  failedWith(await t.client.request('GET', hooks('v2')), `conversion webhook for ${gvk('v1')} failed: cannot convert this`);
  failedWith(await t.client.request('POST', hooks('v2'), { body: { apiVersion: `${group}/v2`, kind: 'Hook', metadata: { name: 'h3' }, spec: { y: 'z' } } }), `conversion webhook for ${gvk('v2')} failed: cannot convert this`);
  // Reads at the storage version need no webhook.
  assert.is((await t.client.request('GET', hooks('v1', 'h1'))).status, 200);
  assert.is((await t.client.request('GET', hooks('v1', 'h3'))).status, 404);

  wh.handle('/convert', (review: Json) => reviewAnswer(review, { convertedObjects: review.request.objects.map((o: Json) => ({ ...o, apiVersion: `${group}/v1` })), result: { status: 'Success' } }));
  failedWith(await t.client.request('GET', hooks('v2', 'h1')), `conversion webhook for ${gvk('v1')} returned invalid object at index 0: invalid groupVersion (expected ${group}/v2, received ${group}/v1)`);
  wh.handle('/convert', (review: Json) =>
    reviewAnswer(review, { convertedObjects: review.request.objects.map((o: Json) => ({ ...o, apiVersion: review.request.desiredAPIVersion, metadata: { ...o.metadata, name: 'other' } })), result: { status: 'Success' } }),
  );
  failedWith(await t.client.request('GET', hooks('v2', 'h1')), `conversion webhook for ${gvk('v1')} returned invalid object: must have the same name: h1 != other`);
  wh.handle('/convert', (review: Json) => reviewAnswer({ request: { uid: 'not-it' } }, { convertedObjects: review.request.objects, result: { status: 'Success' } }));
  const uid = await t.client.request('GET', hooks('v2', 'h1'));
  assert.is(uid.status, 500, show(uid));
  assert.match(uid.json.message, new RegExp(`^conversion webhook for ${gvk('v1').replace(/\./g, '\\.')} failed: expected response.uid="[0-9a-f-]{36}", got "not-it"$`));

  // Unreachable: a port nothing listens on.
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as import('node:net').AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  await patchCRD(`hooks.${group}`, [{ op: 'replace', path: '/spec/conversion/webhook/clientConfig/url', value: `https://127.0.0.1:${port}/convert` }]);
  let last: HttpResult | undefined;
  await eventually('the new url in use', async () => (last = await t.client.request('GET', hooks('v2', 'h1'))).text.includes(String(port)));
  failedWith(last!, `conversion webhook for ${gvk('v1')} failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`);
});

test('conversion Webhook by service reference: an ExternalName Service, TLS name <svc>.<ns>.svc; a missing Service', async () => {
  const svc = await t.client.request('POST', `/api/v1/namespaces/${ns}/services`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'convhook' }, spec: { type: 'ExternalName', externalName: 'localhost' } },
  });
  assert.is(svc.status, 201, show(svc));
  wh.handle('/by-service', convertHooks);
  const crd = crdOf('SvcHook', [version('v1', true, { x: { type: 'string' } }), version('v2', false, { y: { type: 'string' } })], {
    strategy: 'Webhook',
    webhook: { clientConfig: { service: { namespace: ns, name: 'convhook', path: '/by-service', port: wh.port }, caBundle: wh.caBundle }, conversionReviewVersions: ['v1'] },
  });
  await addCRD(crd);
  const path = (v: string, name = ''): string => `/apis/${group}/${v}/namespaces/${ns}/svchooks${name ? `/${name}` : ''}`;
  const c = await t.client.request('POST', path('v2'), { body: { apiVersion: `${group}/v2`, kind: 'SvcHook', metadata: { name: 's1' }, spec: { y: 'via' } } });
  assert.is(c.status, 201, show(c));
  assert.equal(c.json.spec, { y: 'via' });
  const g = await t.client.request('GET', path('v1', 's1'));
  assert.equal(g.json.spec, { x: 'via' });
  assert.ok(wh.on('/by-service').length >= 2);

  await patchCRD(`svchooks.${group}`, [{ op: 'replace', path: '/spec/conversion/webhook/clientConfig/service/name', value: 'nothing' }]);
  let last: HttpResult | undefined;
  await eventually('the missing service in use', async () => (last = await t.client.request('GET', path('v2', 's1'))).status === 500);
  failedWith(last!, `conversion webhook for ${group}/v1, Kind=SvcHook failed: Post "https://nothing.${ns}.svc:${wh.port}/by-service?timeout=30s": service "nothing" not found`);
});

test.run();
