/**
 * Server-side apply (PATCH application/apply-patch+yaml) as kube-apiserver 1.24 answers it: the
 * seed's field-ownership table row by row, conflicts and force, lists of each type, /status,
 * dry run, the client-side → server-side upgrade, errors, protobuf answers. The whole
 * managedFields list is asserted after every step (times masked). Runs on this server and, with
 * TEST_KUBECONFIG, on the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('ssa');
});
test.after(async () => {
  await t?.close();
});

type Entry = { manager?: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: unknown; subresource?: string };

const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';
const CM = (): string => `/api/v1/namespaces/${ns}/configmaps`;
const SVC = (): string => `/api/v1/namespaces/${ns}/services`;

/** PATCH an apply (JSON or YAML text) as `manager`; returns the raw answer. */
async function apply(path: string, body: unknown, manager: string | undefined, query = '', headers: Record<string, string> = {}): Promise<HttpResult> {
  const q = [manager !== undefined ? `fieldManager=${encodeURIComponent(manager)}` : '', query].filter(Boolean).join('&');
  return t.client.request('PATCH', `${path}${q ? `?${q}` : ''}`, { raw: typeof body === 'string' ? body : JSON.stringify(body), contentType: APPLY, headers });
}

async function ok(r: Promise<HttpResult>, code = 200): Promise<Record<string, any>> {
  const res = await r;
  assert.is(res.status, code, res.text);
  return res.json;
}

const cm = (name: string, data?: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...((extra.metadata as object) ?? {}) },
  ...(data ? { data } : {}),
});

/** managedFields with times masked, sorted by manager/operation/subresource (kube orders by time). */
function mf(obj: Record<string, any>): Entry[] | undefined {
  const entries = obj.metadata.managedFields as Entry[] | undefined;
  if (!entries) return undefined;
  for (const e of entries) assert.ok(e.time, `entry without time: ${JSON.stringify(e)}`);
  const key = (e: Entry): string => `${e.manager}/${e.operation}/${e.subresource ?? ''}`;
  return entries.map((e) => ({ ...e, time: '<time>' })).sort((a, b) => (key(a) < key(b) ? -1 : 1));
}

const ap = (manager: string, fieldsV1: unknown, subresource?: string): Entry => ({
  manager,
  operation: 'Apply',
  apiVersion: 'v1',
  time: '<time>',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...(subresource ? { subresource } : {}),
});
const upd = (manager: string, fieldsV1: unknown, subresource?: string): Entry => ({ ...ap(manager, fieldsV1, subresource), operation: 'Update' });

/** Causes sorted (kube lists managers in map order, which varies). */
function conflictOf(r: HttpResult): { message: string; causes: unknown[] } {
  assert.is(r.status, 409, r.text);
  assert.is(r.json.reason, 'Conflict');
  assert.equal(Object.keys(r.json.details), ['causes']);
  const causes = [...r.json.details.causes].sort((a: any, b: any) => (`${a.message}${a.field}` < `${b.message}${b.field}` ? -1 : 1));
  return { message: r.json.message, causes };
}

const cause = (manager: string, field: string): unknown => ({ reason: 'FieldManagerConflict', message: `conflict with ${manager}`, field });

test('apply creates a missing object (201), owned by the applier alone', async () => {
  const o = await ok(apply(`${CM()}/c-create`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-create\ndata:\n  a: "1"\n  b: "2"\n', 'mgr1'), 201);
  assert.equal(o.data, { a: '1', b: '2' });
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:a': {}, 'f:b': {} } })]);
  // Applying the same configuration again changes nothing (same resourceVersion, same time).
  const again = await ok(apply(`${CM()}/c-create`, cm('c-create', { a: '1', b: '2' }), 'mgr1'));
  assert.is(again.metadata.resourceVersion, o.metadata.resourceVersion);
  assert.equal(again.metadata.managedFields, o.metadata.managedFields);
});

test('ownership table: Apply by B of a different value conflicts without force; the object is unchanged', async () => {
  const p = `${CM()}/c-conflict`;
  const o = await ok(apply(p, cm('c-conflict', { key: 'a', other: 'x' }), 'mgr1'), 201);
  const one = conflictOf(await apply(p, cm('c-conflict', { key: 'b' }), 'mgr2'));
  assert.is(one.message, 'Apply failed with 1 conflict: conflict with "mgr1": .data.key');
  assert.equal(one.causes, [cause('"mgr1"', '.data.key')]);
  const two = conflictOf(await apply(p, cm('c-conflict', { key: 'b', other: 'y' }), 'mgr2'));
  assert.is(two.message, 'Apply failed with 2 conflicts: conflicts with "mgr1":\n- .data.key\n- .data.other');
  assert.equal(two.causes, [cause('"mgr1"', '.data.key'), cause('"mgr1"', '.data.other')]);
  const now = await ok(t.client.request('GET', p));
  assert.is(now.metadata.resourceVersion, o.metadata.resourceVersion);
});

test('ownership table: force=true gives the field to B alone and changes the value', async () => {
  const p = `${CM()}/c-force`;
  await ok(apply(p, cm('c-force', { key: 'a', keep: 'k' }), 'mgr1'), 201);
  const o = await ok(apply(p, cm('c-force', { key: 'b' }), 'mgr2', 'force=true'));
  assert.equal(o.data, { key: 'b', keep: 'k' });
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:keep': {} } }), ap('mgr2', { 'f:data': { 'f:key': {} } })]);
  // force is read as kube reads boolean query parameters: only "0" and "false" are false.
  for (const [i, q] of ['force=1', 'force=yes', 'force'].entries()) {
    const f = await ok(apply(p, cm('c-force', { key: `v${i}` }), `mgr-${i}`, q));
    assert.is(f.data.key, `v${i}`, q);
  }
  assert.is((await apply(p, cm('c-force', { key: 'no' }), 'mgr-x', 'force=False')).status, 409);
});

test('ownership table: the same value applied by B is shared; a later change by either sharer conflicts', async () => {
  const p = `${CM()}/c-shared`;
  await ok(apply(p, cm('c-shared', { key: 'a' }), 'mgr1'), 201);
  const o = await ok(apply(p, cm('c-shared', { key: 'a' }), 'mgr2'));
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:key': {} } }), ap('mgr2', { 'f:data': { 'f:key': {} } })]);
  const c1 = conflictOf(await apply(p, cm('c-shared', { key: 'b' }), 'mgr1'));
  assert.is(c1.message, 'Apply failed with 1 conflict: conflict with "mgr2": .data.key');
  const c2 = conflictOf(await apply(p, cm('c-shared', { key: 'c' }), 'mgr2'));
  assert.is(c2.message, 'Apply failed with 1 conflict: conflict with "mgr1": .data.key');
});

test('ownership table: an Update by B takes the field without conflict; applying over it names the Update manager', async () => {
  const p = `${CM()}/c-update`;
  await ok(apply(p, cm('c-update', { key: 'a' }), 'mgr1'), 201);
  const o = await ok(t.client.request('PATCH', `${p}?fieldManager=writer`, { body: { data: { key: 'b' } }, contentType: MERGE }));
  assert.equal(mf(o), [upd('writer', { 'f:data': { 'f:key': {} } })], 'mgr1 lost its only field: entry removed');
  const c = conflictOf(await apply(p, cm('c-update', { key: 'c' }), 'mgr1'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "writer" using v1: .data.key');
  assert.equal(c.causes, [cause('"writer" using v1', '.data.key')]);
  const c3 = conflictOf(await apply(p, cm('c-update', { key: 'c', more: 'm' }), 'mgr1'));
  assert.is(c3.message, 'Apply failed with 1 conflict: conflict with "writer" using v1: .data.key');
});

test('ownership table: an Apply that omits a field nobody else owns removes it', async () => {
  const p = `${CM()}/c-remove`;
  await ok(apply(p, cm('c-remove', { a: '1', b: '2' }), 'mgr1'), 201);
  const o = await ok(apply(p, cm('c-remove', { a: '1' }), 'mgr1'));
  assert.equal(o.data, { a: '1' });
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:a': {} } })]);
  // Omitting everything: data disappears and the entry with it (an empty entry is removed).
  const gone = await ok(apply(p, cm('c-remove'), 'mgr1'));
  assert.is(gone.data, undefined);
  assert.is(gone.metadata.managedFields, undefined);
});

test('ownership table: an omitted field reset to its default (Service sessionAffinity)', async () => {
  const p = `${SVC()}/s-default`;
  const spec = { ports: [{ name: 'http', port: 80 }] };
  let o = await ok(apply(p, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-default' }, spec: { ...spec, sessionAffinity: 'ClientIP' } }, 'mgr1'), 201);
  assert.is(o.spec.sessionAffinity, 'ClientIP');
  o = await ok(apply(p, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-default' }, spec }, 'mgr1'));
  assert.is(o.spec.sessionAffinity, 'None');
  assert.equal(mf(o), [ap('mgr1', { 'f:spec': { 'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } })]);
});

test('ownership table: an omitted field another manager owns keeps its value; the applier gives it up', async () => {
  const p = `${CM()}/c-giveup`;
  await ok(apply(p, cm('c-giveup', { a: '1', b: '2' }), 'mgr1'), 201);
  await ok(apply(p, cm('c-giveup', { a: '1' }), 'mgr2'));
  const o = await ok(apply(p, cm('c-giveup', { b: '2' }), 'mgr1'));
  assert.equal(o.data, { a: '1', b: '2' });
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:b': {} } }), ap('mgr2', { 'f:data': { 'f:a': {} } })]);
  // The remaining owner can now change it freely.
  const o2 = await ok(apply(p, cm('c-giveup', { a: 'changed' }), 'mgr2'));
  assert.is(o2.data.a, 'changed');
});

test('lists: a map list (Service ports keyed by port+protocol) merges per item; an atomic list (externalIPs) conflicts whole', async () => {
  const p = `${SVC()}/s-lists`;
  const svc = (spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's-lists' }, spec });
  await ok(apply(p, svc({ ports: [{ name: 'http', port: 80 }, { name: 'dns', port: 53, protocol: 'UDP' }], externalIPs: ['192.0.2.1'] }), 'mgr1'), 201);
  let o = await ok(apply(p, svc({ ports: [{ name: 'https', port: 443 }] }), 'mgr2'));
  assert.equal(o.spec.ports.map((x: any) => `${x.port}/${x.protocol}`), ['80/TCP', '53/UDP', '443/TCP']);
  assert.equal(mf(o), [
    ap('mgr1', {
      'f:spec': {
        'f:externalIPs': {},
        'f:ports': {
          'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {} },
          'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} },
        },
      },
    }),
    ap('mgr2', { 'f:spec': { 'f:ports': { 'k:{"port":443,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } }),
  ]);
  const c = conflictOf(await apply(p, svc({ ports: [{ name: 'https', port: 443 }], externalIPs: ['192.0.2.2'] }), 'mgr2'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "mgr1": .spec.externalIPs');
  // mgr1 drops the UDP port: removed (nobody else owns it); mgr2's port stays.
  o = await ok(apply(p, svc({ ports: [{ name: 'http', port: 80 }], externalIPs: ['192.0.2.1'] }), 'mgr1'));
  assert.equal(o.spec.ports.map((x: any) => `${x.port}/${x.protocol}`), ['80/TCP', '443/TCP']);
});

test('lists: a set (metadata.finalizers) merges per value, and labels per key', async () => {
  const p = `${CM()}/c-set`;
  const meta = (m: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c-set', ...m } });
  await ok(apply(p, meta({ finalizers: ['example.com/a'], labels: { x: '1' } }), 'mgr1'), 201);
  let o = await ok(apply(p, meta({ finalizers: ['example.com/b'], labels: { y: '2' } }), 'mgr2'));
  assert.equal(o.metadata.finalizers, ['example.com/a', 'example.com/b']);
  assert.equal(mf(o), [
    ap('mgr1', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/a"': {} }, 'f:labels': { 'f:x': {} } } }),
    ap('mgr2', { 'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} }, 'f:labels': { 'f:y': {} } } }),
  ]);
  o = await ok(apply(p, meta({}), 'mgr1'));
  assert.equal(o.metadata.finalizers, ['example.com/b']);
  assert.equal(o.metadata.labels, { y: '2' });
  o = await ok(apply(p, meta({}), 'mgr2'));
  assert.is(o.metadata.finalizers, undefined);
  assert.is(o.metadata.managedFields, undefined);
});

test('apply on /status owns status only, with subresource "status"', async () => {
  const p = `${SVC()}/s-status`;
  await ok(apply(p, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-status' }, spec: { type: 'LoadBalancer', ports: [{ name: 'x', port: 80 }] } }, 'mgr1'), 201);
  const o = await ok(apply(`${p}/status`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-status' }, status: { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } } }, 'lb'));
  assert.equal(o.status, { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } });
  const lb = mf(o)!.find((e) => e.manager === 'lb');
  assert.equal(lb, ap('lb', { 'f:status': { 'f:loadBalancer': { 'f:ingress': {} } } }, 'status'));
  // The main resource ignores status in an apply (the strategy resets it) and owns none of it.
  const main = await ok(apply(p, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-status' }, spec: { type: 'LoadBalancer', ports: [{ name: 'x', port: 80 }] }, status: { loadBalancer: {} } }, 'mgr1'));
  assert.equal(main.status, { loadBalancer: { ingress: [{ ip: '192.0.2.9' }] } });
  // Service updates may create (AllowCreateOnUpdate), so an apply on the /status of a missing
  // Service creates it as the main resource would, and fails validation here (no ports).
  const missing = await apply(`/api/v1/namespaces/${ns}/services/nope-missing/status`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'nope-missing' } }, 'lb');
  assert.is(missing.status, 422, 'Service may be created by an update: it is, and fails validation');
  // Created through /status: the status storage has no allocation hooks in kube (no cluster IP),
  // and the applier owns nothing (status only is tracked there, and it applied none).
  const made = await ok(apply(`/api/v1/namespaces/${ns}/services/via-status/status`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'via-status' }, spec: { ports: [{ port: 80 }] } }, 'lb'), 201);
  assert.equal([made.spec.clusterIP, made.spec.type, made.metadata.managedFields], [undefined, 'ClusterIP', undefined]);
});

test('dry-run apply: the answer of the real apply, nothing stored', async () => {
  const p = `${CM()}/c-dry`;
  const o = await ok(apply(p, cm('c-dry', { a: '1' }), 'mgr1', 'dryRun=All'), 201);
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:a': {} } })]);
  assert.is((await t.client.request('GET', p)).status, 404);
  const real = await ok(apply(p, cm('c-dry', { a: '1' }), 'mgr1'), 201);
  const dry = await ok(apply(p, cm('c-dry', { a: '2' }), 'mgr1', 'dryRun=All'));
  assert.is(dry.data.a, '2');
  const now = await ok(t.client.request('GET', p));
  assert.is(now.data.a, '1');
  assert.is(now.metadata.resourceVersion, real.metadata.resourceVersion);
  // A watch sees no event for a dry run: the first event after it is the next real write.
  const watch = t.client.request('GET', `${CM()}?watch=1&resourceVersion=${real.metadata.resourceVersion}&fieldSelector=metadata.name%3Dc-dry&timeoutSeconds=2`);
  await new Promise((r) => setTimeout(r, 300));
  await ok(apply(p, cm('c-dry', { a: '3' }), 'mgr1', 'dryRun=All'));
  await ok(apply(p, cm('c-dry', { a: 'real' }), 'mgr1'));
  const events = (await watch).text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(events.map((e: any) => [e.type, e.object.data.a]), [['MODIFIED', 'real']]);
});

test('errors: fieldManager required (422), managedFields in the applied object (400), version, typed object, names', async () => {
  const p = `${CM()}/c-err`;
  const r = await apply(p, cm('c-err'), undefined);
  assert.is(r.status, 422);
  assert.is(r.json.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  const mfr = await apply(p, { ...cm('c-err'), metadata: { name: 'c-err', managedFields: [] } }, 'm');
  assert.is(mfr.status, 400);
  assert.is(mfr.json.message, 'metadata.managedFields must be nil');
  const v = await apply(p, { ...cm('c-err'), apiVersion: 'v2' }, 'm');
  assert.is(v.status, 400);
  assert.is(v.json.message, 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1');
  const unknown = await apply(p, { ...cm('c-err'), foo: 1 }, 'm');
  assert.is(unknown.status, 500);
  assert.is(unknown.json.message, 'failed to create typed patch object (/c-err; /v1, Kind=ConfigMap): .foo: field not declared in schema');
  const typ = await apply(p, cm('c-err', { a: 1 as unknown as string }), 'm');
  assert.is(typ.status, 500);
  assert.is(typ.json.message, 'failed to create typed patch object (/c-err; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:1}');
  const noName = await apply(p, { apiVersion: 'v1', kind: 'ConfigMap' }, 'm');
  assert.is(noName.status, 400);
  assert.is(noName.json.message, 'the name of the object (c-err based on URL) was undeterminable: name must be provided');
  const other = await apply(p, cm('c-other'), 'm');
  assert.is(other.status, 400);
  assert.is(other.json.message, 'the name of the object (c-other) does not match the name on the URL (c-err)');
  const arr = await apply(p, '[1]', 'm');
  assert.is(arr.status, 400);
  assert.is(arr.json.message, 'error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}');
  // A map-list item without its key field: the key's Go zero value (port 0), then validation.
  const noKey = await apply(`${SVC()}/s-nokey`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 's-nokey' }, spec: { ports: [{ name: 'x' }] } }, 'm');
  assert.is(noKey.status, 422, noKey.text);
  assert.equal(noKey.json.details.causes.map((c: any) => c.field), ['spec.ports[0].port', 'spec.ports[0].targetPort']);
  const inv = await apply(p, cm('c-err', { 'a b': '1' }), 'm');
  assert.is(inv.status, 422);
  assert.is(inv.json.details.causes[0].field, 'data[a b]');
});

test('client-side → server-side apply: kubectl takes over fields last applied client-side without conflicts', async () => {
  const p = `${CM()}/c-upgrade`;
  const lastApplied = `${JSON.stringify({ apiVersion: 'v1', data: { a: '1', b: '2' }, kind: 'ConfigMap', metadata: { annotations: {}, name: 'c-upgrade', namespace: ns } })}\n`;
  const created = await ok(
    t.client.request('POST', `${CM()}?fieldManager=kubectl-client-side-apply`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c-upgrade', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }, data: { a: '1', b: '2' } },
    }),
    201,
  );
  assert.equal(mf(created), [
    upd('kubectl-client-side-apply', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }),
  ]);
  // Another manager still conflicts; kubectl does not (the live values equal the annotation's).
  const c = conflictOf(await apply(p, cm('c-upgrade', { a: 'x' }), 'other'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a');
  const o = await ok(apply(p, cm('c-upgrade', { a: 'x', b: '2' }), 'kubectl'));
  assert.equal(o.data, { a: 'x', b: '2' });
  assert.is(o.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"v1","data":{"a":"x","b":"2"},"kind":"ConfigMap","metadata":{"name":"c-upgrade"}}\n');
  // Only the conflicting field changed hands: b (same value) is shared.
  assert.equal(mf(o), [
    upd('kubectl-client-side-apply', { 'f:data': { '.': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }),
    ap('kubectl', { 'f:data': { 'f:a': {}, 'f:b': {} } }),
  ]);
  // A field changed since by someone else is a real conflict for kubectl too.
  await ok(t.client.request('PATCH', `${p}?fieldManager=editor`, { body: { data: { b: 'edited' } }, contentType: MERGE }));
  const c2 = conflictOf(await apply(p, cm('c-upgrade', { a: 'x', b: '3' }), 'kubectl'));
  assert.is(c2.message, 'Apply failed with 1 conflict: conflict with "editor" using v1: .data.b');
});

test('answers in protobuf when asked; YAML bodies with comments', async () => {
  const p = `${CM()}/c-pb`;
  const r = await apply(p, '# a comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c-pb\ndata:\n  k: v # trailing\n', 'mgr1', '', { accept: 'application/vnd.kubernetes.protobuf' });
  assert.is(r.status, 201, r.text);
  assert.is(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  const get = await ok(t.client.request('GET', p));
  assert.equal(mf(get), [ap('mgr1', { 'f:data': { 'f:k': {} } })]);
});

test('a non-apply write with managedFields [{}] clears them; the next apply starts over', async () => {
  const p = `${CM()}/c-reset`;
  await ok(apply(p, cm('c-reset', { a: '1' }), 'mgr1'), 201);
  let o = await ok(t.client.request('PATCH', `${p}?fieldManager=resetter`, { body: { metadata: { managedFields: [{}] } }, contentType: MERGE }));
  assert.is(o.metadata.managedFields, undefined);
  // The live fields go to "before-first-apply" (Update), then the applier takes what it applies.
  o = await ok(apply(p, cm('c-reset', { b: '2' }), 'mgr2'));
  assert.equal(o.data, { a: '1', b: '2' });
  assert.equal(mf(o), [upd('before-first-apply', { 'f:data': { '.': {}, 'f:a': {} } }), ap('mgr2', { 'f:data': { 'f:b': {} } })]);
});

test('cluster-scoped kinds: a Namespace applied (labels, spec.finalizers ignored on the main resource)', async () => {
  const name = t.ns('ssa-nsapply');
  const o = await ok(apply(`/api/v1/namespaces/${name}`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { team: 'a' } } }, 'mgr1'), 201);
  assert.equal(o.metadata.labels, { 'kubernetes.io/metadata.name': name, team: 'a' });
  assert.equal(mf(o), [ap('mgr1', { 'f:metadata': { 'f:labels': { 'f:team': {} } } })]);
  await t.client.request('DELETE', `/api/v1/namespaces/${name}`);
});

test('other kinds: Secret stringData, Endpoints (atomic subsets), Events in both groups, resourceVersion precondition', async () => {
  const sp = `/api/v1/namespaces/${ns}/secrets/s-apply`;
  let o = await ok(apply(sp, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-apply' }, stringData: { a: 'x' }, data: { b: 'eA==' } }, 'mgr1'), 201);
  assert.equal([o.data, o.type], [{ a: 'eA==', b: 'eA==' }, 'Opaque']);
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:b': {} }, 'f:stringData': { 'f:a': {} } })]);
  o = await ok(apply(sp, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-apply' }, data: { b: 'eQ==' } }, 'mgr1'));
  assert.equal(o.data, { a: 'eA==', b: 'eQ==' });
  assert.equal(mf(o), [ap('mgr1', { 'f:data': { 'f:b': {} } })]);
  const stale = await apply(sp, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's-apply', resourceVersion: '1' }, data: { b: 'eQ==' } }, 'mgr1');
  assert.is(stale.status, 409);
  assert.is(stale.json.message, 'Operation cannot be fulfilled on secrets "s-apply": the object has been modified; please apply your changes to the latest version and try again');

  const ep = `/api/v1/namespaces/${ns}/endpoints/e-apply`;
  o = await ok(apply(ep, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e-apply' }, subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 80 }] }] }, 'mgr1'), 201);
  assert.equal(mf(o), [ap('mgr1', { 'f:subsets': {} })]);
  const c = conflictOf(await apply(ep, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e-apply' }, subsets: [{ addresses: [{ ip: '10.1.1.2' }] }] }, 'mgr2'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "mgr1": .subsets');

  const ev = `/api/v1/namespaces/${ns}/events/ev-apply`;
  o = await ok(apply(ev, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'ev-apply' }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns }, reason: 'R', message: 'hello', type: 'Normal', count: 1 }, 'mgr1'), 201);
  assert.equal(mf(o), [ap('mgr1', { 'f:count': {}, 'f:involvedObject': {}, 'f:message': {}, 'f:reason': {}, 'f:type': {} })]);
  const imm = await apply(`/apis/events.k8s.io/v1/namespaces/${ns}/events/ev-apply`, { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev-apply' }, note: 'changed' }, 'mgr2');
  assert.is(imm.status, 422);
  assert.is(imm.json.message, 'Event "ev-apply" is invalid: message: Invalid value: "changed": field is immutable');
  const wrong = await apply(`${CM()}/c-group`, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'c-group' } }, 'mgr1');
  assert.is(wrong.status, 400);
  assert.is(wrong.json.message, 'Incorrect version specified in apply patch. Specified patch version: apps/v1, expected: v1');
  const noStatus = await apply(`${CM()}/c-create/status`, cm('c-create'), 'mgr1');
  assert.is(noStatus.status, 404);
});

test('versions: entries of another version of the group are kept and conflict; another group\'s are dropped', async () => {
  const ev = (v: string): string => `/apis/events.k8s.io/${v}/namespaces/${ns}/events/ev-versions`;
  const base = { eventTime: '2026-01-01T00:00:00.000000Z', reportingController: 'a/b', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'ConfigMap', name: 'x', namespace: ns } };
  await ok(apply(ev('v1'), { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'ev-versions', labels: { a: '1' } }, ...base }, 'm1'), 201);
  let o = await ok(apply(ev('v1beta1'), { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'ev-versions', labels: { b: '1' } } }, 'm2'));
  assert.equal(o.metadata.managedFields.map((e: Entry) => `${e.manager}/${e.apiVersion}`).sort(), ['m1/events.k8s.io/v1', 'm2/events.k8s.io/v1beta1']);
  const c = conflictOf(await apply(ev('v1beta1'), { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'ev-versions', labels: { a: '2' } } }, 'm2'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "m1": .metadata.labels.a');
  // A write through core/v1 (another group) cannot convert them: they are dropped.
  o = await ok(t.client.request('PATCH', `/api/v1/namespaces/${ns}/events/ev-versions?fieldManager=m3`, { body: { metadata: { labels: { d: '1' } } }, contentType: MERGE }));
  assert.equal(mf(o), [upd('m3', { 'f:metadata': { 'f:labels': { 'f:d': {} } } })]);
});

test('Pod: container lists keyed by name, their env and ports lists, conflicts inside an item, /status', async () => {
  // The reference has no controller-manager: the namespace's default ServiceAccount is created here.
  await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'default' } } });
  const p = `/api/v1/namespaces/${ns}/pods/p-apply`;
  const pod = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-apply', ...meta }, spec });
  let o = await ok(apply(p, pod({ containers: [{ name: 'a', image: 'nginx', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80 }] }] }), 'mgr1'), 201);
  const mgr1 = ap('mgr1', {
    'f:spec': {
      'f:containers': {
        'k:{"name":"a"}': { '.': {}, 'f:env': { 'k:{"name":"X"}': { '.': {}, 'f:name': {}, 'f:value': {} } }, 'f:image': {}, 'f:name': {}, 'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } } },
      },
    },
  });
  assert.equal(mf(o), [mgr1]);
  const c = conflictOf(await apply(p, pod({ containers: [{ name: 'a', image: 'busybox' }] }), 'mgr2'));
  assert.is(c.message, 'Apply failed with 1 conflict: conflict with "mgr1": .spec.containers[name="a"].image');
  o = await ok(apply(p, pod({ containers: [{ name: 'a', image: 'busybox' }] }), 'mgr2', 'force=true'));
  assert.is(o.spec.containers[0].image, 'busybox');
  const mgr1After = structuredClone(mgr1);
  delete (mgr1After.fieldsV1 as any)['f:spec']['f:containers']['k:{"name":"a"}']['f:image'];
  assert.equal(mf(o), [mgr1After, ap('mgr2', { 'f:spec': { 'f:containers': { 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } })]);
  o = await ok(apply(`${p}/status`, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p-apply' }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } }, 'kubelet'));
  assert.is(o.status.phase, 'Running');
  assert.equal(mf(o)!.find((e) => e.manager === 'kubelet'), ap('kubelet', { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } }, 'status'));
});

test.run();
