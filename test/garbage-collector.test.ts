/**
 * The garbage collector over HTTPS (this server only: the reference runs no controller-manager):
 * background, foreground (a 3-level chain held by blockOwnerDeletion) and orphan propagation,
 * dangling owners (absent, or another uid), owners looked up in the dependent's own namespace,
 * a cluster-scoped owner of namespaced dependents, resuming after a restart, and kubectl's
 * `--cascade` flags with `--wait`.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, tempDir, type TestServer, type Client } from './harness.ts';
import { ok, show } from './assertions.ts';
import { coreKinds, configMapKind } from '../internal/registry/core/index.ts';
import type { KindDescriptor } from '../internal/registry/rest/strategy.ts';

let srv: TestServer;
let c: Client;
const NS = 'gc-main';
const HOLD = 'example.com/hold';
const POLL_LIMIT_MS = 15_000;

const cms = (ns = NS): string => `/api/v1/namespaces/${ns}/configmaps`;

interface Ref {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}

const refTo = (o: any, extra: Partial<Ref> = {}): Ref => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, ...extra });

async function createCm(name: string, meta: Record<string, unknown> = {}, ns = NS, client = c): Promise<any> {
  return ok(client.request('POST', cms(ns), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta } } }), 201, `create ${ns}/${name}`);
}

async function getCm(name: string, ns = NS, client = c): Promise<any | undefined> {
  const r = await client.request('GET', `${cms(ns)}/${name}`);
  if (r.status === 404) return undefined;
  assert.is(r.status, 200, show(r));
  return r.json;
}

async function eventually<T>(label: string, fn: () => Promise<T | undefined | null | false>, limitMs = POLL_LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${label}: not reached within ${limitMs} ms`);
    await sleep(30);
  }
}

const gone = (name: string, ns = NS, client = c) => eventually(`${ns}/${name} gone`, async () => (await getCm(name, ns, client)) === undefined);

/** Let the collector act on what it saw (it reacts within milliseconds; this bounds "does not"). */
const settle = (): Promise<unknown> => sleep(300);

test.before(async () => {
  srv = await startTestServer();
  c = srv.client;
  for (const ns of [NS, 'gc-other']) await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201, `namespace ${ns}`);
});

test.after(async () => {
  await srv.close();
});

test('background (default): the owner goes at once, then its dependents of any kind', async () => {
  const owner = await createCm('bg-owner');
  await createCm('bg-dep1', { ownerReferences: [refTo(owner)] });
  await ok(c.request('POST', `/api/v1/namespaces/${NS}/secrets`, { body: { metadata: { name: 'bg-dep2', ownerReferences: [refTo(owner)] } } }), 201, 'secret dependent');
  const r = await ok(c.request('DELETE', `${cms()}/bg-owner`), 200, 'delete owner');
  assert.is(r.kind, 'Status', 'deleted at once');
  await gone('bg-dep1');
  await eventually('secret dependent gone', async () => (await c.request('GET', `/api/v1/namespaces/${NS}/secrets/bg-dep2`)).status === 404);
});

test('foreground: a 3-level chain is deleted bottom-up; blockOwnerDeletion holds each owner', async () => {
  const a = await createCm('fg-a');
  const b = await createCm('fg-b', { ownerReferences: [refTo(a, { blockOwnerDeletion: true })] });
  await createCm('fg-c', { finalizers: [HOLD], ownerReferences: [refTo(b, { blockOwnerDeletion: true })] });
  const r = await ok(c.request('DELETE', `${cms()}/fg-a?propagationPolicy=Foreground`), 200, 'delete a');
  assert.equal(r.metadata.finalizers, ['foregroundDeletion']);
  // b has a dependent of its own, so the collector deletes it with Foreground too; c is held.
  await eventually('c terminating', async () => (await getCm('fg-c'))?.metadata.deletionTimestamp);
  const bNow = await eventually('b in foreground deletion', async () => {
    const o = await getCm('fg-b');
    return o?.metadata.deletionTimestamp && o.metadata.finalizers?.includes('foregroundDeletion') ? o : undefined;
  });
  assert.ok(bNow);
  await settle();
  assert.ok(await getCm('fg-a'), 'a waits for b');
  assert.ok(await getCm('fg-b'), 'b waits for c');
  await ok(c.request('PATCH', `${cms()}/fg-c`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }), 200, 'release c');
  await gone('fg-c');
  await gone('fg-b');
  await gone('fg-a');
});

test('foreground without blockOwnerDeletion does not wait; the dependent is still collected', async () => {
  const a = await createCm('fgnb-a');
  await createCm('fgnb-b', { ownerReferences: [refTo(a)] });
  await ok(c.request('DELETE', `${cms()}/fgnb-a?propagationPolicy=Foreground`), 200, 'delete');
  await gone('fgnb-a');
  await gone('fgnb-b');
});

test('orphan: dependents lose the reference to the owner (other references stay), then the owner goes', async () => {
  const owner = await createCm('or-owner');
  const other = await createCm('or-other');
  await createCm('or-dep1', { ownerReferences: [refTo(owner)] });
  await createCm('or-dep2', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true }), refTo(other)] });
  const r = await ok(c.request('DELETE', `${cms()}/or-owner?propagationPolicy=Orphan`), 200, 'delete');
  assert.equal(r.metadata.finalizers, ['orphan']);
  await gone('or-owner');
  const d1 = await getCm('or-dep1');
  const d2 = await getCm('or-dep2');
  assert.ok(d1 && d2, 'dependents kept');
  assert.is(d1.metadata.ownerReferences, undefined);
  assert.equal(d2.metadata.ownerReferences, [refTo(other)]);
  await settle();
  assert.ok(await getCm('or-dep1'), 'an orphan is not collected later');
});

test('dangling owners: absent or another uid → deleted; a solid owner keeps it and only the dangling reference goes', async () => {
  const owner = await createCm('dg-owner');
  await createCm('dg-absent', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'dg-never', uid: '7a3c5a36-0000-4000-8000-000000000001' }] });
  await createCm('dg-uid', { ownerReferences: [{ ...refTo(owner), uid: '7a3c5a36-0000-4000-8000-000000000002' }] });
  await createCm('dg-mixed', { ownerReferences: [refTo(owner), { apiVersion: 'v1', kind: 'ConfigMap', name: 'dg-never', uid: '7a3c5a36-0000-4000-8000-000000000003' }] });
  // An owner of a kind this server does not serve is never judged absent (kube's collector
  // cannot map it and retries; it never deletes the dependent).
  await createCm('dg-unknown-kind', { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '7a3c5a36-0000-4000-8000-000000000005' }] });
  await gone('dg-absent');
  await gone('dg-uid');
  const mixed = await eventually('dangling reference dropped', async () => {
    const o = await getCm('dg-mixed');
    return o?.metadata.ownerReferences?.length === 1 ? o : undefined;
  });
  assert.equal(mixed.metadata.ownerReferences, [refTo(owner)]);
  assert.ok(await getCm('dg-unknown-kind'), 'owner of an unknown kind: kept');
});

test('an owner is looked up in the dependent\'s namespace: a namespaced owner elsewhere counts as absent', async () => {
  const owner = await createCm('xns-owner', {}, 'gc-other');
  await createCm('xns-dep', { ownerReferences: [refTo(owner)] });
  await gone('xns-dep');
  assert.ok(await getCm('xns-owner', 'gc-other'), 'the owner in the other namespace is untouched');
});

test('a cluster-scoped owner (a Namespace) owns objects in other namespaces', async () => {
  const nsOwner = await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gc-owner-ns' } } }), 201, 'owner namespace');
  await createCm('by-ns', { ownerReferences: [refTo(nsOwner)] });
  await settle();
  assert.ok(await getCm('by-ns'), 'kept while the owner namespace exists');
  await ok(c.request('DELETE', '/api/v1/namespaces/gc-owner-ns'), 200, 'delete owner namespace');
  await gone('by-ns');
});

test('cluster-scoped dependents: a cluster-scoped owner counts; a namespaced one is invalid and ignored', async () => {
  const owner = await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gc-ns-owner' } } }), 201, 'owner namespace');
  await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'gc-ns-dep', ownerReferences: [refTo(owner)] } } }), 201, 'dependent namespace');
  // A cluster-scoped object cannot have a namespaced owner: kube's collector reports it and
  // never deletes the object, even though no such ConfigMap exists anywhere.
  await ok(
    c.request('POST', '/api/v1/namespaces', {
      body: { metadata: { name: 'gc-ns-bad-owner', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nowhere', uid: '7a3c5a36-0000-4000-8000-000000000004' }] } },
    }),
    201,
    'namespace with a namespaced owner',
  );
  await ok(c.request('DELETE', '/api/v1/namespaces/gc-ns-owner'), 200, 'delete the owner namespace');
  await eventually('dependent namespace gone', async () => (await c.request('GET', '/api/v1/namespaces/gc-ns-dep')).status === 404);
  const bad = await ok(c.request('GET', '/api/v1/namespaces/gc-ns-bad-owner'), 200, 'still there');
  assert.is(bad.metadata.deletionTimestamp, undefined, 'not deleted');
});

test('a namespace deleted with Foreground or Orphan still goes (GC finalizer, then the namespace controller)', async () => {
  for (const policy of ['Foreground', 'Orphan']) {
    const name = `gc-ns-${policy.toLowerCase()}`;
    await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } }), 201, `create ${name}`);
    await createCm('content', {}, name);
    const r = await ok(c.request('DELETE', `/api/v1/namespaces/${name}?propagationPolicy=${policy}`), 200, `delete ${name}`);
    assert.equal(r.metadata.finalizers, [policy === 'Foreground' ? 'foregroundDeletion' : 'orphan']);
    await eventually(`${name} gone`, async () => (await c.request('GET', `/api/v1/namespaces/${name}`)).status === 404);
  }
});

test('a restarted server resumes collection left undone', async () => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir, garbageCollector: false });
  const fc = first.client;
  try {
    await ok(fc.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'ns');
    const bg = await createCm('rs-bg', {}, NS, fc);
    for (let i = 0; i < 3; i++) await createCm(`rs-bg-dep${i}`, { ownerReferences: [refTo(bg)] }, NS, fc);
    const fg = await createCm('rs-fg', {}, NS, fc);
    await createCm('rs-fg-dep', { ownerReferences: [refTo(fg, { blockOwnerDeletion: true })] }, NS, fc);
    const or = await createCm('rs-or', {}, NS, fc);
    await createCm('rs-or-dep', { ownerReferences: [refTo(or)] }, NS, fc);
    await ok(fc.request('DELETE', `${cms()}/rs-bg`), 200, 'bg');
    await ok(fc.request('DELETE', `${cms()}/rs-fg?propagationPolicy=Foreground`), 200, 'fg');
    await ok(fc.request('DELETE', `${cms()}/rs-or?propagationPolicy=Orphan`), 200, 'or');
    await settle();
    assert.ok(await getCm('rs-bg-dep0', NS, fc), 'nothing collected without the collector');
    assert.ok(await getCm('rs-fg', NS, fc), 'foreground owner waiting');
  } finally {
    await first.close();
  }
  const second = await startTestServer({ dataDir });
  try {
    const sc = second.client;
    for (let i = 0; i < 3; i++) await gone(`rs-bg-dep${i}`, NS, sc);
    await gone('rs-fg-dep', NS, sc);
    await gone('rs-fg', NS, sc);
    await gone('rs-or', NS, sc);
    const orphan = await getCm('rs-or-dep', NS, sc);
    assert.ok(orphan, 'orphan kept');
    assert.is(orphan.metadata.ownerReferences, undefined);
  } finally {
    await second.close();
  }
});

test('a kind added later is collected too, and its default policy (OrphanDependents) applies', async () => {
  // A kind this server does not ship, in its own group: nothing in the store or the collector
  // names kinds, so it works the day it is registered.
  const widgetKind: KindDescriptor = {
    ...configMapKind,
    group: 'example.com',
    resource: 'widgets',
    singular: 'widget',
    kind: 'Widget',
    listKind: 'WidgetList',
    shortNames: [],
    strategy: { ...configMapKind.strategy, defaultGarbageCollectionPolicy: 'OrphanDependents' },
  };
  const s2 = await startTestServer({ kinds: [...coreKinds, widgetKind] });
  try {
    const c2 = s2.client;
    const W = `/apis/example.com/v1/namespaces/${NS}/widgets`;
    await ok(c2.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'ns');
    const w = await ok(c2.request('POST', W, { body: { metadata: { name: 'w1' } } }), 201, 'widget');
    await createCm('w-dep', { ownerReferences: [refTo(w)] }, NS, c2);
    await ok(c2.request('POST', W, { body: { metadata: { name: 'w-dep', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'gone', uid: '7a3c5a36-0000-4000-8000-000000000006' }] } } }), 201, 'widget with a dangling owner');
    await eventually('dangling widget collected', async () => (await c2.request('GET', `${W}/w-dep`)).status === 404);
    // No propagationPolicy: the kind's default orphans.
    const r = await ok(c2.request('DELETE', `${W}/w1`), 200, 'delete widget');
    assert.equal(r.metadata.finalizers, ['orphan']);
    await eventually('widget gone', async () => (await c2.request('GET', `${W}/w1`)).status === 404);
    const dep = await getCm('w-dep', NS, c2);
    assert.ok(dep, 'dependent orphaned, not deleted');
    assert.is(dep.metadata.ownerReferences, undefined);
  } finally {
    await s2.close();
  }
});

// ---------------------------------------------------------------- kubectl

const KUBECTL = process.env.KUBECTL ?? 'kubectl';

function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(KUBECTL, ['--kubeconfig', `${srv.dataDir}/kubeconfig`, ...args], { timeout: 60_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err && (err as NodeJS.ErrnoException).code === 'ENOENT') return reject(err);
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    child.stdin?.end();
  });
}

const hasKubectl = await new Promise<boolean>((r) => execFile(KUBECTL, ['version', '--client'], (err) => r(!err)));
const inCI = process.env.CI === 'true' || process.env.CI === '1';

if (hasKubectl || inCI) {
  test('kubectl delete --cascade=foreground returns once the owner is really gone, after its dependents', async () => {
    const owner = await createCm('kc-fg');
    await createCm('kc-fg-dep', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })] });
    const r = await kubectl('delete', 'configmap', 'kc-fg', '-n', NS, '--cascade=foreground');
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /configmap "kc-fg" deleted/);
    assert.is(await getCm('kc-fg'), undefined, 'gone when kubectl returns');
    assert.is(await getCm('kc-fg-dep'), undefined, 'its blocking dependent went first');
  });

  test('kubectl delete --cascade=orphan keeps dependents without the reference; default cascades in background', async () => {
    const owner = await createCm('kc-or');
    await createCm('kc-or-dep', { ownerReferences: [refTo(owner)] });
    const r = await kubectl('delete', 'configmap', 'kc-or', '-n', NS, '--cascade=orphan', '--wait=true');
    assert.is(r.code, 0, r.stderr);
    assert.is(await getCm('kc-or'), undefined, 'owner gone when kubectl returns');
    const dep = await getCm('kc-or-dep');
    assert.ok(dep, 'dependent kept');
    assert.is(dep.metadata.ownerReferences, undefined);

    const owner2 = await createCm('kc-bg');
    await createCm('kc-bg-dep', { ownerReferences: [refTo(owner2)] });
    const r2 = await kubectl('delete', 'configmap', 'kc-bg', '-n', NS);
    assert.is(r2.code, 0, r2.stderr);
    assert.is(await getCm('kc-bg'), undefined);
    await gone('kc-bg-dep');
  });
}

test.run();
