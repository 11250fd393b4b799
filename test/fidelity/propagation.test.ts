/**
 * DELETE with propagation (kube-apiserver's generic Store.Delete with garbage collection on): the
 * immediate answer of a delete that only marks the object (finalizers `orphan` /
 * `foregroundDeletion`, deletionTimestamp, deletionGracePeriodSeconds 0, 200 or 202), a repeated
 * delete changing the GC finalizers of a terminating object, dry-run, and the Namespace variant.
 *
 * Runs on both targets. The reference has no garbage collector, so a marked object stays there
 * forever; here the garbage collector finalizes it soon after. Assertions that read the object
 * back therefore hold it first: a dependent with blockOwnerDeletion and a finalizer of its own
 * keeps a foreground owner waiting on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, normalize, type Target } from '../target.ts';
import { show, ok } from '../assertions.ts';
import type { Client } from '../harness.ts';

let t: Target;
let c: Client;
let ns: string;
const HOLD = 'example.com/hold';

const cms = (): string => `/api/v1/namespaces/${ns}/configmaps`;
const cmBody = (name: string, meta: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { k: 'v' } });

async function create(name: string, meta: Record<string, unknown> = {}): Promise<any> {
  return ok(c.request('POST', cms(), { body: cmBody(name, meta) }), 201, `create ${name}`);
}

/** Remove every finalizer so the object can go (test clean-up on both targets). */
async function release(name: string): Promise<void> {
  await c.request('PATCH', `${cms()}/${name}`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
}

/** What a marked object must look like: the stored one plus deletion fields and `finalizers`. */
function marked(created: any, finalizers: string[]): unknown {
  return normalize({
    ...created,
    metadata: { ...created.metadata, deletionTimestamp: 'x', deletionGracePeriodSeconds: 0, finalizers, resourceVersion: 'x' },
  });
}

/**
 * A Status with an empty `details.group` dropped: kube omits it (omitempty); the Status encoding
 * (not this suite's subject) is fixed elsewhere.
 */
const status = (v: any): unknown => (v?.details?.group === '' ? normalize({ ...v, details: Object.fromEntries(Object.entries(v.details).filter(([k]) => k !== 'group')) }) : normalize(v));

const deletedStatus = (created: any): unknown =>
  normalize({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: created.metadata.name, kind: 'configmaps', uid: created.metadata.uid } });

/** deletionTimestamp normalizes to <time>: a string placeholder "x" must too. */
const norm = (v: unknown): unknown => JSON.parse(JSON.stringify(normalize(v)).replace(/"x"/g, '"<time>"'));

/**
 * An owner held in "foreground deletion": a dependent with blockOwnerDeletion and its own
 * finalizer, already deleted (so it stays terminating). Returns the owner as created.
 */
async function heldOwner(name: string): Promise<any> {
  const owner = await create(name);
  await create(`${name}-dep`, {
    finalizers: [HOLD],
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: owner.metadata.uid, blockOwnerDeletion: true }],
  });
  await ok(c.request('DELETE', `${cms()}/${name}-dep`), 200, 'delete the dependent (held by its finalizer)');
  return owner;
}

test.before(async () => {
  t = await startTarget();
  c = t.client;
  ns = await t.createNamespace('propagation');
});

test.after(async () => {
  await c.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('propagationPolicy=Foreground marks the object: 200, foregroundDeletion, grace period 0', async () => {
  const owner = await heldOwner('fg');
  const r = await c.request('DELETE', `${cms()}/fg?propagationPolicy=Foreground`);
  assert.is(r.status, 200, show(r));
  assert.equal(normalize(r.json), norm(marked(owner, ['foregroundDeletion'])));
  const got = await ok(c.request('GET', `${cms()}/fg`), 200, 'still there while its blocking dependent exists');
  assert.equal(normalize(got), normalize(r.json));
  await release('fg-dep');
});

test('propagationPolicy=Orphan and orphanDependents=true add the orphan finalizer (200 + object)', async () => {
  const a = await create('orphan-policy', { finalizers: [HOLD] });
  const ra = await c.request('DELETE', `${cms()}/orphan-policy?propagationPolicy=Orphan`);
  assert.is(ra.status, 200, show(ra));
  assert.equal(normalize(ra.json), norm(marked(a, [HOLD, 'orphan'])));
  const b = await create('orphan-deprecated', { finalizers: [HOLD] });
  const rb = await c.request('DELETE', `${cms()}/orphan-deprecated`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: true } });
  assert.is(rb.status, 200, show(rb));
  assert.equal(normalize(rb.json), norm(marked(b, [HOLD, 'orphan'])));
  await release('orphan-policy');
  await release('orphan-deprecated');
});

test('orphanDependents=false: deleted at once without finalizers, 202 + object when one holds it', async () => {
  const plain = await create('od-false');
  const r1 = await c.request('DELETE', `${cms()}/od-false`, { body: { orphanDependents: false } });
  assert.is(r1.status, 200, show(r1));
  assert.equal(status(r1.json), deletedStatus(plain));
  assert.is((await c.request('GET', `${cms()}/od-false`)).status, 404);
  const held = await create('od-false-held', { finalizers: [HOLD] });
  const r2 = await c.request('DELETE', `${cms()}/od-false-held`, { body: { orphanDependents: false } });
  assert.is(r2.status, 202, show(r2));
  assert.equal(normalize(r2.json), norm(marked(held, [HOLD])));
  await release('od-false-held');
});

test('a repeated delete rewrites the GC finalizers of a terminating object; deletionTimestamp stays', async () => {
  const o = await create('repeat', { finalizers: [HOLD] });
  const first = await ok(c.request('DELETE', `${cms()}/repeat?propagationPolicy=Foreground`), 200, 'foreground');
  assert.equal(first.metadata.finalizers, [HOLD, 'foregroundDeletion']);
  const orphan = await ok(c.request('DELETE', `${cms()}/repeat?propagationPolicy=Orphan`), 200, 'orphan');
  assert.equal(normalize(orphan), norm(marked(o, [HOLD, 'orphan'])));
  assert.is(orphan.metadata.deletionTimestamp, first.metadata.deletionTimestamp, 'deletionTimestamp unchanged');
  const bg = await ok(c.request('DELETE', `${cms()}/repeat?propagationPolicy=Background`), 200, 'background');
  assert.equal(normalize(bg), norm(marked(o, [HOLD])));
  // Nothing to change: no new version is written.
  const again = await ok(c.request('DELETE', `${cms()}/repeat?propagationPolicy=Background`), 200, 'background again');
  assert.is(again.metadata.resourceVersion, bg.metadata.resourceVersion, 'no-op delete writes nothing');
  await release('repeat');
});

test('Background on an object held only by foregroundDeletion removes it at once', async () => {
  const owner = await heldOwner('fg-then-bg');
  await ok(c.request('DELETE', `${cms()}/fg-then-bg?propagationPolicy=Foreground`), 200, 'foreground');
  const r = await c.request('DELETE', `${cms()}/fg-then-bg?propagationPolicy=Background`);
  assert.is(r.status, 200, show(r));
  assert.equal(status(r.json), deletedStatus(owner));
  assert.is((await c.request('GET', `${cms()}/fg-then-bg`)).status, 404);
  await release('fg-then-bg-dep');
});

test('gracePeriodSeconds is ignored by kinds without graceful deletion; dry-run writes nothing', async () => {
  const o = await heldOwner('grace');
  const dry = await c.request('DELETE', `${cms()}/grace?propagationPolicy=Foreground&gracePeriodSeconds=30&dryRun=All`);
  assert.is(dry.status, 200, show(dry));
  assert.equal(normalize(dry.json), norm(marked(o, ['foregroundDeletion'])));
  const still = await ok(c.request('GET', `${cms()}/grace`), 200, 'dry run left it');
  assert.equal(normalize(still), normalize(o));
  const r = await c.request('DELETE', `${cms()}/grace?propagationPolicy=Foreground&gracePeriodSeconds=30`);
  assert.is(r.status, 200, show(r));
  assert.is(r.json.metadata.deletionGracePeriodSeconds, 0);
  await release('grace-dep');
});

test('Namespace: the first delete takes GC finalizers from the options; a repeated one changes nothing', async () => {
  const a = t.ns('prop-ns-a');
  const nsA = await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: a } } }), 201, 'create a');
  // Held on both targets: a dependent that blocks the namespace's foreground deletion and that
  // its own finalizer keeps (here the namespace controller deletes it; it stays terminating).
  await ok(
    c.request('POST', `/api/v1/namespaces/${a}/configmaps`, {
      body: { metadata: { name: 'held', finalizers: [HOLD], ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: a, uid: nsA.metadata.uid, blockOwnerDeletion: true }] } },
    }),
    201,
    'held dependent',
  );
  const ra = await c.request('DELETE', `/api/v1/namespaces/${a}?propagationPolicy=Foreground`);
  assert.is(ra.status, 200, show(ra));
  assert.equal(ra.json.metadata.finalizers, ['foregroundDeletion']);
  assert.is(ra.json.metadata.deletionGracePeriodSeconds, undefined);
  assert.is(ra.json.status.phase, 'Terminating');
  assert.equal(ra.json.spec.finalizers, ['kubernetes']);
  // Still finalizing (spec.finalizers): answered as stored, whatever the options.
  const again = await c.request('DELETE', `/api/v1/namespaces/${a}?propagationPolicy=Orphan`);
  assert.is(again.status, 200, show(again));
  assert.equal(normalize(again.json), normalize(ra.json));
  const deprecated = await c.request('DELETE', `/api/v1/namespaces/${a}`, { body: { orphanDependents: false } });
  assert.is(deprecated.status, 202, show(deprecated));
  assert.equal(normalize(deprecated.json), normalize(ra.json));
  await c.request('PATCH', `/api/v1/namespaces/${a}/configmaps/held`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  // Here (unlike the generic store) orphanDependents=false means foreground, and answers 202.
  const b = t.ns('prop-ns-b');
  await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: b } } }), 201, 'create b');
  const rb = await c.request('DELETE', `/api/v1/namespaces/${b}`, { body: { orphanDependents: false } });
  assert.is(rb.status, 202, show(rb));
  assert.equal(rb.json.metadata.finalizers, ['foregroundDeletion']);
});

test.run();
