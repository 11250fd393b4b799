/**
 * Kinds added and removed at run time (issue 26's design step): the registry of served kinds is
 * the one source of truth, and everything built from it follows a change. Here a kind is added
 * through the running server's registry (a copy of ConfigMap's descriptor served as
 * `<unique>.example.test/v1` Widget: no production code knows it), and against the reference
 * (TEST_KUBECONFIG) through a real CustomResourceDefinition, so each assertion about what a client
 * sees is also Kubernetes' own answer:
 *   - discovery: the group joins /apis (after kube's groups), /apis/<g> and /apis/<g>/v1 describe it;
 *   - OpenAPI: the v2 ETag changes, /openapi/v3 lists `apis/<g>/v1`; both again once it leaves;
 *   - create, get, list, update, patch, watch and delete work on it;
 *   - Protobuf: an Accept of Protobuf only is 406 with kube's message (there is no message for the
 *     kind, as for custom resources), JSON when the client also accepts JSON;
 *   - admission webhooks whose rules name it are called, with its kind and resource in the review;
 *   - removed: gone from /apis, its paths 404, its open watches end.
 * This server only (the reference runs no controller-manager): its objects are deleted with their
 * namespace, the garbage collector collects a dependent of it and a dependent owned by it, its
 * requests are counted in apiserver_request_total (--runtime-config for kinds added later:
 * test/runtime-config.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { eventually, type HttpResult } from './harness.ts';
import { startWebhookServer, patch } from './webhook-server.ts';
import { storageVersionHash } from '../internal/http/discovery.ts';
import { configMapKind } from '../internal/registry/core/configmap.ts';
import type { KindDescriptor } from '../internal/registry/rest/strategy.ts';

let t: Target;
let group: string;
let ns: string;
const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 600)}`;

/** The test kind: ConfigMap's strategy and table, under a group of its own. */
const widgetKind = (g: string): KindDescriptor => ({ ...configMapKind, group: g, resource: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: [] });

const crd = (g: string) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${g}` },
  spec: {
    group: g,
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

const groupNames = async (): Promise<string[]> => (await t.client.request('GET', '/apis')).json.groups.map((g: { name: string }) => g.name);
const v2Etag = async (): Promise<string> => String((await t.client.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } })).headers.etag);
const v3Paths = async (): Promise<string[]> => Object.keys((await t.client.request('GET', '/openapi/v3')).json.paths);

async function addKind(): Promise<void> {
  if (t.local) {
    assert.ok(t.local.server.registry.add(widgetKind(group)));
    return;
  }
  const r = await t.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd(group) });
  assert.is(r.status, 201, show(r));
  await eventually('the CRD served', async () => (await t.client.request('GET', `/apis/${group}/v1`)).status === 200 && (await v3Paths()).includes(`apis/${group}/v1`));
}

async function removeKind(): Promise<void> {
  if (t.local) {
    assert.ok(t.local.server.registry.remove(group, 'v1', 'widgets'));
    return;
  }
  const r = await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
  assert.is(r.status, 200, show(r));
  await eventually('the CRD gone', async () => (await t.client.request('GET', `/apis/${group}/v1`)).status === 404 && !(await v3Paths()).includes(`apis/${group}/v1`), 60_000);
}

const widget = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name, ...extra }, data: { k: name } });

test.before(async () => {
  // One thread: the test adds kinds (code) to this process's registry, which a serving thread does not share.
  t = await startTarget({ namespaceDefaults: false, workers: 1 });
  group = `${t.ns('kr')}.example.test`;
  ns = await t.createNamespace('widgets');
});

test.after(async () => {
  // A failed run must not leave its CRD on the reference (other suites list every served group).
  if (t?.reference) await t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
  await t?.close();
});

test('added at run time: discovery, OpenAPI, CRUD, list, watch, Protobuf refused; removed: gone', async () => {
  assert.not.ok((await groupNames()).includes(group));
  assert.is((await t.client.request('GET', `/apis/${group}/v1`)).status, 404);
  const etag0 = await v2Etag();
  assert.not.ok((await v3Paths()).includes(`apis/${group}/v1`));

  await addKind();

  // Discovery: the new group after kube's own groups.
  const groups = await groupNames();
  assert.is(groups[groups.length - 1], group, groups.join(' '));
  const g = await t.client.request('GET', `/apis/${group}`);
  assert.is(g.status, 200, show(g));
  const gv = { groupVersion: `${group}/v1`, version: 'v1' };
  assert.equal(g.json, { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [gv], preferredVersion: gv });
  const list = await t.client.request('GET', `/apis/${group}/v1`);
  assert.is(list.status, 200, show(list));
  assert.is(list.json.groupVersion, `${group}/v1`);
  const [entry] = list.json.resources;
  assert.is(list.json.resources.length, 1, show(list));
  assert.is(entry.name, 'widgets');
  assert.is(entry.namespaced, true);
  assert.is(entry.kind, 'Widget');
  assert.equal([...entry.verbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
  assert.is(entry.storageVersionHash, storageVersionHash(group, 'v1', 'Widget'));
  // OpenAPI: rebuilt on the next request here (kube's aggregator republishes v2 a moment later).
  await eventually('the v2 ETag changed by the kind coming', async () => (await v2Etag()) !== etag0);
  const etag1 = await v2Etag();
  assert.ok((await v3Paths()).includes(`apis/${group}/v1`));

  // CRUD, list, watch.
  const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
  const created = await t.client.request('POST', base, { body: widget('w1') });
  assert.is(created.status, 201, show(created));
  assert.is(created.json.kind, 'Widget');
  assert.is(created.json.apiVersion, `${group}/v1`);
  const got = await t.client.request('GET', `${base}/w1`);
  assert.is(got.status, 200, show(got));
  assert.equal(got.json.data, { k: 'w1' });
  const listed = await t.client.request('GET', base);
  assert.is(listed.status, 200, show(listed));
  assert.is(listed.json.kind, 'WidgetList');
  assert.equal(listed.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['w1']);
  const rv = listed.json.metadata.resourceVersion;
  const put = await t.client.request('PUT', `${base}/w1`, { body: { ...got.json, data: { k: 'two' } } });
  assert.is(put.status, 200, show(put));
  const patched = await t.client.request('PATCH', `${base}/w1`, { raw: JSON.stringify({ data: { p: 'x' } }), contentType: 'application/merge-patch+json' });
  assert.is(patched.status, 200, show(patched));
  assert.equal(patched.json.data, { k: 'two', p: 'x' });
  const deleted = await t.client.request('DELETE', `${base}/w1`);
  assert.is(deleted.status, 200, show(deleted));
  const watched = await t.client.request('GET', `${base}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
  assert.is(watched.status, 200, show(watched));
  const events = watched.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  assert.equal(events.map((e) => `${e.type} ${e.object.kind} ${e.object.data?.k}`), ['MODIFIED Widget two', 'MODIFIED Widget two', 'DELETED Widget two']);

  // No Protobuf message for the kind: refused as kube refuses it for custom resources.
  const pb = await t.client.request('GET', base, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.is(pb.status, 406, show(pb));
  assert.is(pb.headers['content-type'], 'application/vnd.kubernetes.protobuf', 'kube writes the Status in the media type asked for');
  assert.ok(pb.text.includes('only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf'), show(pb));
  const either = await t.client.request('GET', base, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
  assert.is(either.status, 200, show(either));
  assert.match(String(either.headers['content-type']), /^application\/json/);

  // An open watch ends when the kind goes (kube: when the CRD is deleted), long before its timeout.
  const open = t.client.request('GET', `${base}?watch=1&timeoutSeconds=120`);
  await new Promise((r) => setTimeout(r, 500));
  const removing = Date.now();
  await removeKind();
  const ended = await open;
  assert.is(ended.status, 200, show(ended));
  assert.ok(Date.now() - removing < 60_000, 'the watch ended with the kind');
  assert.not.ok((await groupNames()).includes(group));
  assert.is((await t.client.request('GET', `/apis/${group}/v1`)).status, 404);
  assert.is((await t.client.request('GET', base)).status, 404);
  await eventually('the v2 ETag changed by the kind going', async () => (await v2Etag()) !== etag1);
  assert.not.ok((await v3Paths()).includes(`apis/${group}/v1`));
});

test('admission webhooks match the kind added at run time', async () => {
  const wh = await startWebhookServer();
  const config = `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${group}`;
  try {
    wh.handle('/widgets', (rv) => patch(rv, [{ op: 'add', path: '/data/mutated', value: 'yes' }]));
    await addKind();
    const created = await t.client.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: group },
        webhooks: [{
          name: `widgets.${group}`,
          clientConfig: { url: `${wh.url}/widgets`, caBundle: wh.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['*'], resources: ['widgets'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
        }],
      },
    });
    assert.is(created.status, 201, show(created));
    // The reference's webhook informer picks the configuration up a moment later.
    let w: HttpResult | undefined;
    let n = 0;
    await eventually('the webhook called', async () => {
      w = await t.client.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { body: widget(`hooked${n++}`) });
      return w.status !== 201 || w.json.data.mutated === 'yes';
    });
    assert.is(w!.status, 201, show(w!));
    assert.equal(w!.json.data, { k: `hooked${n - 1}`, mutated: 'yes' });
    const { request } = wh.on('/widgets').at(-1)!.review;
    assert.equal(request.kind, { group, version: 'v1', kind: 'Widget' });
    assert.equal(request.resource, { group, version: 'v1', resource: 'widgets' });
    assert.equal(request.requestKind, { group, version: 'v1', kind: 'Widget' });
  } finally {
    await t.client.request('DELETE', config);
    await removeKind();
    await wh.close();
  }
});

test('this server: added and removed from the fold\'s commit path, served as soon as the defining write is acknowledged', async () => {
  if (!t.local) return; // a CRD's establishment on kube is asynchronous (its controllers)
  const { registry, storage } = t.local.server;
  // A stand-in for the CRD's event: a ConfigMap named after the kind, folded on this replica.
  const definition = `define-${group}`;
  const unsubscribe = storage.onChange((changes) => {
    for (const c of changes) {
      if (c.key.resource !== 'configmaps' || c.key.name !== definition) continue;
      if (c.type === 'DELETED') registry.remove(group, 'v1', 'widgets');
      else if (!registry.lookup(group, 'v1', 'widgets')) registry.add(widgetKind(group));
    }
  });
  try {
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    assert.is((await t.client.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: definition } } })).status, 201);
    const w = await t.client.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { body: widget('right-after') });
    assert.is(w.status, 201, show(w));
    assert.is((await t.client.request('DELETE', `${cms}/${definition}`)).status, 200);
    assert.is((await t.client.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets/right-after`)).status, 404);
  } finally {
    unsubscribe();
    registry.remove(group, 'v1', 'widgets');
  }
});

test('this server: namespace deletion, garbage collection and metrics follow the kind', async () => {
  if (!t.local) return; // the reference runs no controller-manager
  const registry = t.local.server.registry;
  registry.add(widgetKind(group));
  try {
    const c = t.client;
    const posts = async (): Promise<number> => {
      const line = new RegExp(`^apiserver_request_total\\{code="201",component="apiserver",dry_run="",group="${group.replace(/\./g, '\\.')}",resource="widgets",scope="resource",subresource="",verb="POST",version="v1"\\} (\\d+)$`, 'm');
      return Number(line.exec((await c.request('GET', '/metrics')).text)?.[1] ?? 0);
    };
    const posted = await posts();
    // GC: a Widget owned by a ConfigMap, and a ConfigMap owned by a Widget.
    const owner = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } });
    assert.is(owner.status, 201, show(owner));
    const ref = (o: HttpResult) => [{ apiVersion: o.json.apiVersion, kind: o.json.kind, name: o.json.metadata.name, uid: o.json.metadata.uid }];
    const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const dependent = await c.request('POST', base, { body: widget('dependent', { ownerReferences: ref(owner) }) });
    assert.is(dependent.status, 201, show(dependent));
    const widgetOwner = await c.request('POST', base, { body: widget('owner') });
    assert.is(widgetOwner.status, 201, show(widgetOwner));
    const cmDependent = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: ref(widgetOwner) } } });
    assert.is(cmDependent.status, 201, show(cmDependent));
    assert.is((await c.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`)).status, 200);
    assert.is((await c.request('DELETE', `${base}/owner`)).status, 200);
    await eventually('the Widget dependent collected', async () => (await c.request('GET', `${base}/dependent`)).status === 404);
    await eventually('the ConfigMap dependent of a Widget collected', async () => (await c.request('GET', `/api/v1/namespaces/${ns}/configmaps/dependent`)).status === 404);

    // Metrics: requests to it are labelled with its group and resource.
    assert.is(await posts(), posted + 2);

    // Namespace deletion deletes its objects.
    const doomed = await t.createNamespace('doomed');
    const inDoomed = await c.request('POST', `/apis/${group}/v1/namespaces/${doomed}/widgets`, { body: widget('w') });
    assert.is(inDoomed.status, 201, show(inDoomed));
    assert.is((await c.request('DELETE', `/api/v1/namespaces/${doomed}`)).status, 200);
    await eventually('the namespace and its Widget gone', async () => (await c.request('GET', `/api/v1/namespaces/${doomed}`)).status === 404);
    assert.is((await c.request('GET', `/apis/${group}/v1/namespaces/${doomed}/widgets`)).json.items.length, 0);
  } finally {
    registry.remove(group, 'v1', 'widgets');
  }
});

test.run();
