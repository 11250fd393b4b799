/**
 * A client-go v0.24.17 dynamic informer (dynamicinformer) on a custom resource
 * (test/go/dynamic-informer, built from the Go module proxy), here and on the reference
 * (TEST_KUBECONFIG): the program creates a CRD with the dynamic client and, once it is served,
 * watches its kind in one namespace. Asserted: adds, an update and a delete arrive in order; changes
 * the watch missed (a create and a delete while its events were dropped) are recovered when the
 * reflector relists after its watch ends and the next watch fails (the deletion as a tombstone), the
 * store then holding exactly what the server holds; the periodic resync delivers same-version
 * updates. Under CI a missing Go toolchain or module fails the test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startGoSteps } from './go-env.ts';
import { startTarget, type Target } from './target.ts';
import { eventually } from './harness.ts';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('dyn-informer');
});

test.after(async () => {
  await t?.close();
});

test('dynamic informer on a custom resource: ordered events, relist recovers missed changes, resync', async () => {
  const group = `${ns}.example.test`;
  const go = startGoSteps('dynamic-informer', [t.kubeconfig, ns, group]);
  const step = go.step;
  try {
    const synced = await step('synced');
    assert.is(synced.lists, 1);
    const events = await step('events');
    assert.equal(events.events, ['ADD g1', 'ADD g2', 'UPDATE g1 n=2', 'DELETE g2']);
    const relist = await step('relist');
    assert.equal(relist.missed, []);
    assert.ok(relist.relisted, 'the reflector listed again');
    assert.equal(relist.events, ['ADD g3', 'DELETE g1 (tombstone)']);
    assert.equal(relist.names, ['g3']);
    const resync = await step('resync');
    assert.ok(resync.resyncs >= 1, `resyncs: ${resync.resyncs}`);
    assert.equal(resync.events, []);
    assert.is(await go.exited, 0, go.stderr());
  } finally {
    go.kill();
  }
  // The program deleted its CRD on the way out (its custom resources first: the cleanup finalizer).
  await eventually('the CRD gone', async () => (await t.client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.${group}`)).status === 404);
});

test.run();
