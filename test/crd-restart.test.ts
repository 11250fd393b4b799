/**
 * An Established CRD survives a restart: the CRD controller's start-up scan serves its kind before
 * the server listens, so the first request after the restart reaches the custom resources stored
 * before it. This server only (a restart of the process over its own data directory).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartableServer, eventually } from './harness.ts';

const group = 'restart.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const s = new RestartableServer('crd-restart-');

test.after(() => s.cleanup());

test('an Established CRD and its custom resources are served right after a restart', async () => {
  let c = await s.start();
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: { group, names: { plural: 'widgets', kind: 'Widget' }, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  };
  const r = await c.request('POST', CRDS, { body: crd });
  assert.is(r.status, 201, r.text);
  await eventually('served', async () => (await c.request('GET', `/apis/${group}/v1/widgets`)).status === 200);
  const w = await c.request('POST', `/apis/${group}/v1/widgets`, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { a: 1 } } });
  assert.is(w.status, 201, w.text);
  await s.stop();

  c = await s.start();
  const got = await c.request('GET', `/apis/${group}/v1/widgets/w1`);
  assert.is(got.status, 200, got.text);
  assert.equal(got.json.spec, { a: 1 });
  const disc = await c.request('GET', `/apis/${group}/v1`);
  assert.equal(disc.json.resources.map((x: { name: string }) => x.name), ['widgets']);
});

test.run();
