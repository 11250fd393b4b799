/**
 * Namespace lifecycle over HTTPS: the bootstrap namespaces, protected namespaces, name rules,
 * cascading deletion by the namespace controller (with an object held by a finalizer), creation
 * refused in a terminating namespace, name reuse, and the finalize / status subresources.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer, type Client } from './harness.ts';
import { show, expectStatus, expectInvalid, ok } from './assertions.ts';

let srv: TestServer;
let c: Client;

const NS = '/api/v1/namespaces';
const POLL_LIMIT_MS = 10_000;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');




/** Poll `fn` until it returns something truthy, at most `limitMs`. */
async function eventually<T>(label: string, fn: () => Promise<T | undefined | null | false>, limitMs = POLL_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`${label}: not reached within ${limitMs} ms (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await sleep(50);
  }
}

const nsBody = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra });
const cm = (name: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { a: '1' } });
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { a: b64('1') } });
const names = (list: any): string[] => (list.items as any[]).map((i) => i.metadata.name).sort();

test.before(async () => {
  srv = await startTestServer();
  c = srv.client;
});

test.after(async () => {
  await srv?.close();
});

test('bootstrap namespaces exist, Active, with spec.finalizers [kubernetes]', async () => {
  const want = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
  for (const [i, name] of want.entries()) {
    const o = await ok(c.request('GET', `${NS}/${name}`), 200, `case ${i} (${name})`);
    assert.is(o.kind, 'Namespace', `case ${i} (${name}): kind`);
    assert.is(o.status?.phase, 'Active', `case ${i} (${name}): status.phase`);
    assert.equal(o.spec?.finalizers, ['kubernetes'], `case ${i} (${name}): spec.finalizers`);
    assert.is(o.metadata.labels?.['kubernetes.io/metadata.name'], name, `case ${i} (${name}): name label`);
    assert.is(o.metadata.deletionTimestamp, undefined, `case ${i} (${name}): not deleting`);
  }
  const list = await ok(c.request('GET', NS), 200, 'list namespaces');
  assert.is(list.kind, 'NamespaceList');
  for (const name of want) assert.ok(names(list).includes(name), `list includes ${name}`);
});

test('deleting default, kube-system, kube-public → 403 Forbidden, and they stay Active', async () => {
  for (const [i, name] of ['default', 'kube-system', 'kube-public'].entries()) {
    const r = await c.request('DELETE', `${NS}/${name}`);
    expectStatus(r, 403, 'Forbidden', `case ${i} (${name})`);
    const o = await ok(c.request('GET', `${NS}/${name}`), 200, `case ${i} (${name}) get`);
    assert.is(o.status.phase, 'Active', `case ${i} (${name}): still Active`);
    assert.is(o.metadata.deletionTimestamp, undefined, `case ${i} (${name}): no deletionTimestamp`);
  }
});

test('namespace names are DNS labels; create sets phase Active and the kubernetes finalizer', async () => {
  const bad: [string, string][] = [
    ['dotted', 'a.b'],
    ['upper case', 'UPPER'],
    ['64 characters', 'a'.repeat(64)],
    ['leading dash', '-abc'],
    ['underscore', 'a_b'],
  ];
  for (const [i, [label, name]] of bad.entries()) {
    const r = await c.request('POST', NS, { body: nsBody(name) });
    expectStatus(r, 422, 'Invalid', `case ${i} (${label}: ${name})`);
    // The kubernetes.io/metadata.name label is defaulted from the name before validation, so a
    // name that is not a valid label value is reported under metadata.labels as well.
    const fields = ((r.json.details?.causes ?? []) as { field: string }[]).map((x) => x.field);
    assert.ok(fields.includes('metadata.name'), `case ${i} (${label}): a metadata.name cause; ${show(r)}`);
    assert.ok(fields.every((f) => f === 'metadata.name' || f === 'metadata.labels'), `case ${i} (${label}): only name/label causes; ${show(r)}`);
    expectStatus(await c.request('GET', `${NS}/${name}`), 404, 'NotFound', `case ${i}: not created`);
  }
  // What a client sends in status and spec.finalizers on create is replaced / extended.
  const o = await ok(c.request('POST', NS, { body: nsBody('created-ns', { spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } }) }), 201, 'create');
  assert.is(o.status.phase, 'Active', 'status.phase forced to Active');
  assert.equal(o.spec.finalizers, ['example.com/x', 'kubernetes'], 'kubernetes finalizer appended');
  assert.is(o.metadata.labels['kubernetes.io/metadata.name'], 'created-ns', 'name label set');
  const ok63 = await ok(c.request('POST', NS, { body: nsBody('a'.repeat(63)) }), 201, '63-character name');
  assert.is(ok63.metadata.name.length, 63);
});

test('cascading delete: contents removed, finalizer holds the namespace, name reusable afterwards', async () => {
  const t1 = await ok(c.request('POST', NS, { body: nsBody('t1') }), 201, 'create t1');
  for (const name of ['c1', 'c2']) await ok(c.request('POST', `${NS}/t1/configmaps`, { body: cm(name) }), 201, `create cm ${name}`);
  await ok(c.request('POST', `${NS}/t1/configmaps`, { body: cm('held', { finalizers: ['example.com/hold'] }) }), 201, 'create held cm');
  for (const name of ['s1', 's2']) await ok(c.request('POST', `${NS}/t1/secrets`, { body: secret(name) }), 201, `create secret ${name}`);

  const del = await ok(c.request('DELETE', `${NS}/t1`), 200, 'delete t1');
  assert.is(del.kind, 'Namespace', 'namespace delete returns the Namespace');
  assert.is(del.status?.phase, 'Terminating', 'phase Terminating');
  assert.ok(del.metadata.deletionTimestamp, 'deletionTimestamp set');
  assert.equal(del.spec?.finalizers, ['kubernetes'], 'spec.finalizers still [kubernetes]');

  // New content is refused while terminating.
  const creates: [string, unknown][] = [
    ['configmaps', cm('late')],
    ['secrets', secret('late')],
  ];
  for (const [i, [resource, body]] of creates.entries()) {
    const r = await c.request('POST', `${NS}/t1/${resource}`, { body });
    expectStatus(r, 403, 'Forbidden', `case ${i} (create ${resource} in terminating t1)`);
    const causes = (r.json.details?.causes ?? []) as { reason: string }[];
    assert.ok(causes.some((x) => x.reason === 'NamespaceTerminating'), `case ${i}: a NamespaceTerminating cause; ${show(r)}`);
  }

  // Objects without finalizers go; the held one stays with deletionTimestamp; the namespace stays.
  await eventually('configmaps c1, c2 and both secrets deleted', async () => {
    const cms = await ok(c.request('GET', `${NS}/t1/configmaps`), 200, 'list cms');
    const secs = await ok(c.request('GET', `${NS}/t1/secrets`), 200, 'list secrets');
    return names(cms).join(',') === 'held' && secs.items.length === 0;
  });
  const held = await ok(c.request('GET', `${NS}/t1/configmaps/held`), 200, 'held cm still there');
  assert.ok(held.metadata.deletionTimestamp, 'held cm has deletionTimestamp');
  assert.equal(held.metadata.finalizers, ['example.com/hold'], 'held cm keeps its finalizer');
  await sleep(300);
  const ns = await ok(c.request('GET', `${NS}/t1`), 200, 'namespace still exists while content remains');
  assert.is(ns.status.phase, 'Terminating', 'namespace Terminating');
  assert.equal(ns.spec.finalizers, ['kubernetes'], 'kubernetes finalizer kept while content remains');
  assert.is(ns.metadata.deletionTimestamp, del.metadata.deletionTimestamp, 'deletionTimestamp unchanged');

  // Release the finalizer: the ConfigMap goes, then the namespace.
  const patched = await c.request('PATCH', `${NS}/t1/configmaps/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  assert.is(patched.status, 200, `remove finalizer: ${show(patched)}`);
  await eventually('held cm gone', async () => (await c.request('GET', `${NS}/t1/configmaps/held`)).status === 404);
  await eventually('namespace t1 gone', async () => (await c.request('GET', `${NS}/t1`)).status === 404);
  expectStatus(await c.request('GET', `${NS}/t1`), 404, 'NotFound', 'namespace t1 after finalization');

  // The name is reusable.
  const again1 = await ok(c.request('POST', NS, { body: nsBody('t1') }), 201, 're-create t1');
  assert.is(again1.status.phase, 'Active', 're-created t1 is Active');
  assert.is.not(again1.metadata.uid, t1.metadata.uid, 're-created t1 has a new uid');
  assert.is(again1.metadata.deletionTimestamp, undefined, 're-created t1 is not deleting');
  const fresh = await ok(c.request('GET', `${NS}/t1/configmaps`), 200, 'list cms in new t1');
  // Only what the root-CA publisher puts in every namespace (as kube-controller-manager does).
  assert.equal(fresh.items.filter((o: { metadata: { name: string } }) => o.metadata.name !== 'kube-root-ca.crt'), [], 'new t1 starts empty');
  await ok(c.request('POST', `${NS}/t1/configmaps`, { body: cm('c1') }), 201, 'create in new t1');
});

test('a second DELETE of a namespace that is still finalizing → 200 with the namespace, unchanged', async () => {
  await ok(c.request('POST', NS, { body: nsBody('t2') }), 201, 'create t2');
  await ok(c.request('POST', `${NS}/t2/configmaps`, { body: cm('held', { finalizers: ['example.com/hold'] }) }), 201, 'create held cm');
  const first = await ok(c.request('DELETE', `${NS}/t2`), 200, 'first delete');
  assert.is(first.status.phase, 'Terminating');
  // kube-apiserver's Namespace REST Delete: when deletionTimestamp is set and spec.finalizers is
  // not empty it answers the namespace as stored, whatever the DeleteOptions (checked against
  // kube-apiserver 1.24; test/fidelity/propagation.test.ts runs the same on both).
  const again = await c.request('DELETE', `${NS}/t2?propagationPolicy=Foreground`);
  // clean up before asserting, so a failure here leaves no terminating namespace behind
  await ok(c.request('PATCH', `${NS}/t2/configmaps/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }), 200, 'release');
  await eventually('namespace t2 gone', async () => (await c.request('GET', `${NS}/t2`)).status === 404);
  assert.is(again.status, 200, show(again));
  assert.is(again.json.kind, 'Namespace');
  assert.is(again.json.status.phase, 'Terminating');
  assert.is(again.json.metadata.deletionTimestamp, first.metadata.deletionTimestamp, 'same deletionTimestamp');
  assert.is(again.json.metadata.deletionGracePeriodSeconds, undefined, 'namespaces carry no deletionGracePeriodSeconds');
  assert.is(again.json.metadata.resourceVersion, first.metadata.resourceVersion, 'nothing written');
  assert.is(again.json.metadata.finalizers, undefined, 'the options changed no finalizer');
});

test('empty namespace: delete → Terminating (or gone), then gone within the poll bound', async () => {
  await ok(c.request('POST', NS, { body: nsBody('empty-ns') }), 201, 'create');
  const r = await c.request('DELETE', `${NS}/empty-ns`);
  assert.is(r.status, 200, show(r));
  assert.is(r.json.kind, 'Namespace', 'returns the Namespace');
  await eventually('empty namespace gone', async () => (await c.request('GET', `${NS}/empty-ns`)).status === 404);
});

test('PUT /finalize changes only spec.finalizers', async () => {
  const base = await ok(c.request('POST', NS, { body: nsBody('fin-x') }), 201, 'create');
  const body = {
    ...base,
    spec: { finalizers: ['kubernetes', 'example.com/extra'] },
    status: { phase: 'Terminating' },
  };
  const r = await ok(c.request('PUT', `${NS}/fin-x/finalize`, { body }), 200, 'finalize add');
  assert.equal(r.spec.finalizers, ['kubernetes', 'example.com/extra'], 'spec.finalizers replaced');
  assert.is(r.status.phase, 'Active', 'status untouched by /finalize');
  assert.is(r.metadata.deletionTimestamp, undefined, 'not deleting');
  const g = await ok(c.request('GET', `${NS}/fin-x`), 200, 'get');
  assert.equal(g.spec.finalizers, ['kubernetes', 'example.com/extra'], 'stored spec.finalizers');
  assert.is(g.status.phase, 'Active', 'stored status unchanged');

  const bad = await c.request('PUT', `${NS}/fin-x/finalize`, { body: { ...g, spec: { finalizers: ['kubernetes', 'badname'] } } });
  expectInvalid(bad, ['spec.finalizers[1]'], 'unqualified finalizer via /finalize');

  const back = await ok(c.request('PUT', `${NS}/fin-x/finalize`, { body: { ...g, spec: { finalizers: ['kubernetes'] } } }), 200, 'finalize restore');
  assert.equal(back.spec.finalizers, ['kubernetes']);

  // The main resource cannot change spec.finalizers or status.
  const main = await ok(
    c.request('PUT', `${NS}/fin-x`, { body: { ...back, metadata: { ...back.metadata, labels: { team: 'a' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } } }),
    200,
    'main PUT',
  );
  assert.equal(main.spec.finalizers, ['kubernetes'], 'main PUT keeps spec.finalizers');
  assert.is(main.status.phase, 'Active', 'main PUT keeps status');
  assert.is(main.metadata.labels.team, 'a', 'main PUT changes labels');
  assert.is(main.metadata.labels['kubernetes.io/metadata.name'], 'fin-x', 'name label kept');

  const patch = await ok(c.request('PATCH', `${NS}/fin-x`, { body: { spec: { finalizers: ['example.com/p'] } }, contentType: 'application/merge-patch+json' }), 200, 'main merge patch of spec.finalizers');
  assert.equal(patch.spec.finalizers, ['kubernetes'], 'main PATCH keeps spec.finalizers');
});

test('PUT /status changes only status; phase must agree with deletionTimestamp', async () => {
  const base = await ok(c.request('POST', NS, { body: nsBody('stat-x') }), 201, 'create');
  const condition = {
    type: 'NamespaceDeletionDiscoveryFailure',
    status: 'False',
    reason: 'ResourcesDiscovered',
    message: 'All resources successfully discovered',
    lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
  const r = await ok(
    c.request('PUT', `${NS}/stat-x/status`, { body: { ...base, spec: { finalizers: [] }, status: { phase: 'Active', conditions: [condition] } } }),
    200,
    'status PUT',
  );
  assert.equal(r.status.conditions, [condition], 'status.conditions written');
  assert.equal(r.spec.finalizers, ['kubernetes'], 'spec untouched by /status');
  const g = await ok(c.request('GET', `${NS}/stat-x`), 200, 'get');
  assert.equal(g.status.conditions, [condition], 'stored conditions');
  assert.equal(g.spec.finalizers, ['kubernetes'], 'stored spec unchanged');

  const gs = await ok(c.request('GET', `${NS}/stat-x/status`), 200, 'GET /status');
  assert.is(gs.kind, 'Namespace', 'GET /status returns the Namespace');
  assert.equal(gs.status, g.status);

  const bad = await c.request('PUT', `${NS}/stat-x/status`, { body: { ...g, status: { phase: 'Terminating' } } });
  expectInvalid(bad, ['status.Phase'], 'Terminating without deletionTimestamp');

  const p = await ok(c.request('PATCH', `${NS}/stat-x/status`, { body: { status: { conditions: null } }, contentType: 'application/merge-patch+json' }), 200, 'status merge patch');
  assert.is(p.status.conditions, undefined, 'conditions removed through /status patch');
  assert.is(p.status.phase, 'Active');
});

test.run();
