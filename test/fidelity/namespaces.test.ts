/**
 * Namespace termination as kube-apiserver 1.24 (with kube-controller-manager's namespace
 * controller) shows it: a deleted namespace stays visible as Terminating until its contents are
 * gone, creates in it are refused with kube's exact 403, a repeated DELETE answers the namespace,
 * `kubectl delete -f` of a file holding a namespace and its objects succeeds, and (this server
 * only, the reference has no controller-manager) the namespace goes once it is empty.
 *
 *   node --import tsx test/run.ts test/fidelity/namespaces.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/namespaces.test.ts
 */
import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, normalize, type Target } from '../target.ts';
import { ok, show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

/**
 * The body's bytes without kube's trailing newline (its JSON encoder ends every body with one;
 * whether ours does is the business of the byte-level suite, not of this one).
 */
const body = (r: HttpResult): string => r.text.replace(/\n$/, '');

let t: Target;
const held: { ns: string; name: string }[] = [];

test.before(async () => {
  t = await startTarget();
});
test.after(async () => {
  // Release what held namespaces open, so this server's controller can finish them.
  for (const h of held) {
    await t.client.request('PATCH', `/api/v1/namespaces/${h.ns}/configmaps/${h.name}`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  }
  await t.close();
});

function kubectl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', t.kubeconfig, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Poll until `fn` is true (this server's controller works in the background). */
async function eventually(label: string, fn: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`${label}: not within ${limitMs} ms`);
    await sleep(200);
  }
}

/** A namespace with one ConfigMap whose finalizer keeps the namespace Terminating. */
async function heldNamespace(prefix: string): Promise<{ ns: string; before: any }> {
  const ns = await t.createNamespace(prefix);
  await ok(t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } } }), 201, 'held cm');
  held.push({ ns, name: 'held' });
  const before = await ok(t.client.request('GET', `/api/v1/namespaces/${ns}`), 200, 'get ns');
  return { ns, before };
}

test('a deleted namespace stays visible, Terminating, until its contents are gone', async () => {
  const { ns, before } = await heldNamespace('nsterm');
  const del = await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'delete');
  const want = {
    ...before,
    metadata: { ...before.metadata, resourceVersion: del.metadata.resourceVersion, deletionTimestamp: del.metadata.deletionTimestamp },
    status: { phase: 'Terminating' },
  };
  assert.equal(normalize(del), normalize(want), 'DELETE answers the Terminating namespace');
  assert.is(del.metadata.deletionGracePeriodSeconds, undefined, 'namespaces get no deletionGracePeriodSeconds');
  for (const o of [before, del]) assert.equal(Object.keys(o), ['kind', 'apiVersion', 'metadata', 'spec', 'status'], 'field order');
  const got = await ok(t.client.request('GET', `/api/v1/namespaces/${ns}`), 200, 'get after delete');
  assert.equal(normalize(got), normalize(del), 'GET sees it Terminating');
  // A repeated DELETE answers 200 with the namespace as it is (no 409 in 1.24).
  const again = await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  assert.is(again.status, 200, show(again));
  assert.equal(normalize(again.json), normalize(got), 'repeated DELETE');
  // Its name is still taken.
  const recreate = await t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
  assert.is(recreate.status, 409, show(recreate));
  assert.is(body(recreate), JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `object is being deleted: namespaces "${ns}" already exists`,
    reason: 'AlreadyExists',
    details: { name: ns, kind: 'namespaces' },
    code: 409,
  }));
  // Listed with the Terminating phase, and selected by it.
  const list = await ok(t.client.request('GET', `/api/v1/namespaces?fieldSelector=metadata.name=${ns}`), 200, 'list');
  assert.equal(list.items.map((i: any) => i.status.phase), ['Terminating']);
});

test('creates in a terminating namespace: 403 with kube Status (name, generateName, neither)', async () => {
  const { ns } = await heldNamespace('nscreate');
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'delete');
  const cases = [
    { meta: { name: 'c2' }, shown: 'c2', resource: 'configmaps', kind: 'ConfigMap' },
    { meta: { generateName: 'gen-' }, shown: 'gen-', resource: 'configmaps', kind: 'ConfigMap' },
    { meta: {}, shown: 'Unknown', resource: 'configmaps', kind: 'ConfigMap' },
    { meta: { name: 's2' }, shown: 's2', resource: 'secrets', kind: 'Secret' },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/${tc.resource}`, { body: { apiVersion: 'v1', kind: tc.kind, metadata: tc.meta } });
    assert.is(r.status, 403, `case ${i}: ${show(r)}`);
    // Byte for byte: the Status's fields in kube's order.
    assert.is(body(r), JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `${tc.resource} "${tc.shown}" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      reason: 'Forbidden',
      details: { name: tc.shown, kind: tc.resource, causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }] },
      code: 403,
    }), `case ${i}`);
  }
  // Updates and deletes of existing content stay allowed.
  await ok(t.client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { body: { data: { k: 'v' } }, contentType: 'application/merge-patch+json' }), 200, 'patch in terminating ns');
});

test('PUT finalize with no finalizers left removes a terminating namespace (answer: spec {})', async () => {
  // What the namespace controller does last; done by hand here, so it runs on the reference too.
  const ns = await t.createNamespace('nsfin');
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'delete');
  const cur = await ok(t.client.request('GET', `/api/v1/namespaces/${ns}`), 200, 'get');
  const watching = t.client.request('GET', `/api/v1/namespaces?watch=1&timeoutSeconds=2&fieldSelector=metadata.name%3D${ns}&resourceVersion=${cur.metadata.resourceVersion}`);
  await sleep(500);
  const r = await t.client.request('PUT', `/api/v1/namespaces/${ns}/finalize`, { body: { ...cur, spec: { finalizers: [] } } });
  assert.is(r.status, 200, show(r));
  // Store.Update → deleteWithoutFinalizers answers the updated object at its old version.
  assert.equal(normalize(r.json), normalize({ ...cur, spec: {} }), 'an emptied finalizer list is omitted; nothing else changed');
  assert.is(r.json.metadata.resourceVersion, cur.metadata.resourceVersion, 'the answer keeps the version it was read at');
  await eventually('namespace gone', async () => (await t.client.request('GET', `/api/v1/namespaces/${ns}`)).status === 404, 5_000);
  // Watchers see it DELETED as it was last stored (finalizer still listed), at a new version.
  const events = (await watching).text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(events.map((e: any) => e.type), ['DELETED']);
  assert.equal(normalize(events[0].object), normalize(cur));
  assert.ok(Number(events[0].object.metadata.resourceVersion) > Number(cur.metadata.resourceVersion), 'DELETED at a new version');
});

test('PUT status keeps the request metadata, resets spec; PUT finalize resets status only', async () => {
  const ns = t.ns('nssub');
  await ok(t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { a: '1' } } } }), 201, 'create');
  const st = await ok(
    t.client.request('PUT', `/api/v1/namespaces/${ns}/status`, {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { b: '2' }, annotations: { z: 'q' } }, spec: { finalizers: ['example.com/q'] }, status: { phase: 'Active', conditions: [] } },
    }),
    200,
    'status',
  );
  assert.equal([st.metadata.labels, st.metadata.annotations, st.spec, st.status], [{ b: '2', 'kubernetes.io/metadata.name': ns }, { z: 'q' }, { finalizers: ['kubernetes'] }, { phase: 'Active' }]);
  const fin = await ok(
    t.client.request('PUT', `/api/v1/namespaces/${ns}/finalize`, {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { c: '3' } }, spec: { finalizers: ['kubernetes', 'example.com/z'] }, status: { phase: 'Terminating' } },
    }),
    200,
    'finalize',
  );
  assert.equal([fin.metadata.labels, fin.metadata.annotations, fin.spec, fin.status], [{ c: '3', 'kubernetes.io/metadata.name': ns }, undefined, { finalizers: ['kubernetes', 'example.com/z'] }, { phase: 'Active' }]);
  await ok(t.client.request('PUT', `/api/v1/namespaces/${ns}/finalize`, { body: { ...fin, spec: { finalizers: ['kubernetes'] } } }), 200, 'release example.com/z');
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'clean up');
});

test('DELETE preconditions that fail: Namespace REST wording (namespaces, "Precondition failed: …")', async () => {
  const ns = await t.createNamespace('nspre');
  const cur = await ok(t.client.request('GET', `/api/v1/namespaces/${ns}`), 200, 'get');
  const wrongUid = '6f1e3f6e-0000-4000-8000-000000000000';
  const cases = [
    { preconditions: { uid: wrongUid }, why: `Precondition failed: UID in precondition: ${wrongUid}, UID in object meta: ${cur.metadata.uid}` },
    { preconditions: { resourceVersion: '1' }, why: `Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${cur.metadata.resourceVersion}` },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await t.client.request('DELETE', `/api/v1/namespaces/${ns}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: tc.preconditions } });
    assert.is(r.status, 409, `case ${i}: ${show(r)}`);
    assert.is(body(r), JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on namespaces "${ns}": ${tc.why}`,
      reason: 'Conflict',
      details: { name: ns, kind: 'namespaces' },
      code: 409,
    }), `case ${i}`);
  }
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'clean up');
});

test('a create in a namespace that does not exist: 404 naming the namespace', async () => {
  const ns = t.ns('nsmissing');
  const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } });
  assert.is(r.status, 404, show(r));
  assert.is(body(r), JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `namespaces "${ns}" not found`,
    reason: 'NotFound',
    details: { name: ns, kind: 'namespaces' },
    code: 404,
  }));
});

test('kubectl delete -f of a namespace and the objects in it exits 0', async () => {
  const ns = t.ns('nsfile');
  const dir = mkdtempSync(join(tmpdir(), 'nsfile-'));
  const file = join(dir, 'all.yaml');
  writeFileSync(file, [
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: ${ns}\ndata:\n  a: "1"\n`,
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec\n  namespace: ${ns}\nstringData:\n  a: "1"\n`,
  ].join('---\n'));
  const created = await kubectl(['create', '-f', file]);
  assert.is(created.code, 0, created.stderr);
  // The reference never finishes deleting a namespace (no controller-manager): don't wait there.
  const del = await kubectl(['delete', '-f', file, `--wait=${t.reference ? 'false' : 'true'}`]);
  assert.is(del.code, 0, `kubectl delete -f: ${del.stderr}`);
  assert.is(del.stdout, `namespace "${ns}" deleted\nconfigmap "cfg" deleted\nsecret "sec" deleted\n`);
  if (!t.reference) {
    // kubectl waited for all three to go; the namespace controller emptied and removed the namespace.
    const r = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
    assert.is(r.status, 404, show(r));
  }
});

test('kubectl delete ns --wait returns once the namespace is gone (this server)', async () => {
  // Needs a namespace controller, which the reference lacks (it would wait forever).
  if (t.reference) return;
  const ns = await t.createNamespace('nswait');
  await ok(t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }), 201, 'cm');
  const r = await kubectl(['delete', 'namespace', ns, '--wait=true', '--timeout=60s']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, `namespace "${ns}" deleted\n`);
  const gone = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  assert.is(gone.status, 404, show(gone));
  const cms = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  assert.equal(cms.json.items, [], 'contents removed');
});

test("the namespace controller's conditions while content with finalizers remains (this server)", async () => {
  // kube-controller-manager's namespace controller writes these; the reference runs none.
  if (t.reference) return;
  const { ns } = await heldNamespace('nscond');
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}`), 200, 'delete');
  let conditions: any[] = [];
  await eventually('conditions written', async () => {
    conditions = (await t.client.request('GET', `/api/v1/namespaces/${ns}`)).json.status?.conditions ?? [];
    return conditions.length > 0;
  });
  assert.equal(normalize(conditions), [
    { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '<time>', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
    { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', lastTransitionTime: '<time>', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
    { type: 'NamespaceDeletionContentFailure', status: 'False', lastTransitionTime: '<time>', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
    { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: '<time>', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' },
    { type: 'NamespaceFinalizersRemaining', status: 'True', lastTransitionTime: '<time>', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances' },
  ]);
  // Releasing the last finalizer lets the namespace go: the change inside it triggers a pass (after
  // at most the 5 s grace that follows the controller's own condition update), not the 15 s poll.
  await ok(t.client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }), 200, 'release');
  await eventually('namespace gone', async () => (await t.client.request('GET', `/api/v1/namespaces/${ns}`)).status === 404, 8_000);
});

test.run();
