/**
 * Object metadata in protobuf: `application/vnd.kubernetes.protobuf;as=PartialObjectMetadata[List];
 * g=meta.k8s.io;v=v1|v1beta1`, what client-go's metadata client asks for first (controller-runtime's
 * OnlyMetadata watches, kube-controller-manager's garbage collector and namespace controller).
 * For a built-in kind and for a custom resource (whose own objects have no protobuf form), get,
 * list and watch answer the meta.k8s.io message, and it decodes to the JSON answer of the same
 * conversion. A Table has no protobuf form (406 unless JSON is acceptable too). Runs against this
 * server and, with TEST_KUBECONFIG, the reference kube-apiserver.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { eventually } from '../harness.ts';
import { show } from '../assertions.ts';
import { PROTOBUF, decodeProtobuf, decodeWatchEvent, encodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let group: string;
let agent: Agent;

const as = (rep: string, kind: string, v = 'v1'): string => `${rep};as=${kind};g=meta.k8s.io;v=${v}`;
/** Both kinds: a ConfigMap and a custom resource, by their collection path. */
const collections = (): Record<string, string> => ({
  configmaps: `/api/v1/namespaces/${ns}/configmaps`,
  custom: `/apis/${group}/v1/namespaces/${ns}/gizmos`,
});

async function get(path: string, accept: string): Promise<{ status: number; type: unknown; bytes: Buffer }> {
  const k = readKubeconfig(t.kubeconfig);
  const headers: Record<string, string> = { accept };
  if (k.token) headers.authorization = `Bearer ${k.token}`;
  const r = await undiciRequest(k.server + path, { headers, dispatcher: agent });
  return { status: r.statusCode, type: r.headers['content-type'], bytes: Buffer.from(await r.body.arrayBuffer()) };
}
async function json(path: string, accept: string): Promise<any> {
  const r = await t.client.request('GET', path, { headers: { accept } });
  assert.is(r.status, 200, show(r));
  return r.json;
}
/**
 * The decoded protobuf answer, after checking it is one and that its decoding encodes back to the
 * same bytes (against the reference: our encoder writes kube's bytes for these messages).
 */
async function protobuf(path: string, accept: string): Promise<Record<string, unknown>> {
  const r = await get(path, accept);
  assert.is(r.status, 200, `${path} ${accept}: ${r.bytes.toString('utf8').slice(0, 300)}`);
  assert.is(r.type, PROTOBUF);
  const { object } = decodeProtobuf(r.bytes);
  assert.ok(encodeProtobuf(object).equals(r.bytes), `${path} ${accept}: re-encoded bytes differ`);
  return object;
}

test.before(async () => {
  t = await startTarget();
  const k = readKubeconfig(t.kubeconfig);
  agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  ns = await t.createNamespace('metapb');
  group = `${ns}.example.com`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } } }],
    },
  };
  const r = await t.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.is(r.status, 201, show(r));
  const { configmaps, custom } = collections();
  const labels = { app: 'metapb' };
  for (const name of ['one', 'two']) {
    const c = await t.client.request('POST', configmaps, { body: { metadata: { name, labels, annotations: { a: name } }, data: { k: name } } });
    assert.is(c.status, 201, show(c));
  }
  for (const name of ['one', 'two']) {
    // The custom kind is served once the CRD is Established (on the reference, a moment later).
    await eventually(`gizmo ${name} created`, async () => (await t.client.request('POST', custom, { body: { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name, labels, finalizers: ['example.com/f'] }, spec: { n: 1 } } })).status === 201);
  }
});
test.after(async () => {
  const { custom } = collections();
  for (const name of ['one', 'two']) await t.client.request('PATCH', `${custom}/${name}`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.${group}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await agent?.close();
  await t?.close();
});

test('get and list as PartialObjectMetadata(List) v1 and v1beta1 in protobuf decode to the JSON answer, custom resources included', async () => {
  for (const [what, path] of Object.entries(collections())) {
    for (const v of ['v1', 'v1beta1']) {
      const one = await protobuf(`${path}/one`, as(PROTOBUF, 'PartialObjectMetadata', v));
      assert.equal(one, await json(`${path}/one`, as('application/json', 'PartialObjectMetadata', v)), `${what} ${v} get`);
      const list = await protobuf(`${path}?labelSelector=app%3Dmetapb`, as(PROTOBUF, 'PartialObjectMetadataList', v));
      const want = await json(`${path}?labelSelector=app%3Dmetapb`, as('application/json', 'PartialObjectMetadataList', v));
      // A list's resourceVersion is the store's latest: equal unless a write came in between.
      // Protobuf items have no TypeMeta (PartialObjectMetadata's has no protobuf field).
      const items = want.items.map(({ kind, apiVersion, ...rest }: any) => rest);
      assert.equal({ ...list, metadata: {} }, { ...want, metadata: {}, items }, `${what} ${v} list`);
      assert.is((list.items as unknown[]).length, 2);
    }
    // client-go's metadata client: protobuf first, JSON as the fallback.
    const accept = `${as(PROTOBUF, 'PartialObjectMetadataList')},${as('application/json', 'PartialObjectMetadataList')},application/json`;
    const r = await get(path, accept);
    assert.is(r.type, PROTOBUF, what);
  }
});

test('a watch as PartialObjectMetadata in protobuf sends meta.k8s.io objects in its WatchEvents', async () => {
  for (const [what, path] of Object.entries(collections())) {
    const r = await get(`${path}?watch=1&labelSelector=app%3Dmetapb&timeoutSeconds=1`, as(PROTOBUF, 'PartialObjectMetadata'));
    assert.is(r.status, 200, r.bytes.toString('utf8').slice(0, 300));
    assert.is(r.type, `${PROTOBUF};stream=watch`);
    const events: { type: string; object: Record<string, unknown> }[] = [];
    for (let at = 0; at < r.bytes.length; ) {
      const n = r.bytes.readUInt32BE(at);
      const ev = decodeWatchEvent(r.bytes.subarray(at + 4, at + 4 + n));
      events.push({ type: ev.type, object: ev.object! });
      at += 4 + n;
    }
    assert.equal(events.map((e) => [e.type, e.object.kind, e.object.apiVersion, (e.object.metadata as any).name]).sort(), [
      ['ADDED', 'PartialObjectMetadata', 'meta.k8s.io/v1', 'one'],
      ['ADDED', 'PartialObjectMetadata', 'meta.k8s.io/v1', 'two'],
    ], what);
    const one = events.find((e) => (e.object.metadata as any).name === 'one')!.object;
    assert.equal(one, await json(`${path}/one`, as('application/json', 'PartialObjectMetadata')), what);
  }
});

test('Table has no protobuf form; a custom resource itself has none either', async () => {
  const { configmaps, custom } = collections();
  for (const path of [configmaps, custom]) {
    const r = await get(path, as(PROTOBUF, 'Table'));
    assert.is(r.status, 406, path);
  }
  const plain = await get(`${custom}/one`, PROTOBUF);
  assert.is(plain.status, 406);
  const fallback = await get(`${custom}/one`, `${PROTOBUF},application/json`);
  assert.is(fallback.status, 200);
  assert.is(fallback.type, 'application/json');
});

test.run();
