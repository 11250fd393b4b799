/**
 * ComponentStatus (core/v1, deprecated, read-only) as kube-apiserver 1.24 serves it with no
 * kube-scheduler or kube-controller-manager listening on this host: scheduler and
 * controller-manager Unhealthy (connection refused), etcd-0 Healthy (here: the store's health in
 * etcd's /health body), the Warning on every answer, selectors, the 500 for an unknown name, writes
 * and watch refused, the Table (printComponentStatus), YAML and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/componentstatus.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/componentstatus.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { startTarget, type Target } from '../target.ts';
import { getProtobuf, table } from './storage-helpers.ts';
import { decodeProtobuf } from '../../internal/http/protobuf.ts';

const C = '/api/v1/componentstatuses';
const WARNING = '299 - "v1 ComponentStatus is deprecated in v1.19+"';
let t: Target;

test.before(async () => {
  t = await startTarget();
});
test.after(async () => {
  await t.close();
});

const refused = (port: number) => `Get "https://127.0.0.1:${port}/healthz": dial tcp 127.0.0.1:${port}: connect: connection refused`;
const cs = (name: string, status: string, message: string) => ({ metadata: { name, creationTimestamp: null }, conditions: [{ type: 'Healthy', status, message }] });
const EXPECTED: Record<string, unknown> = {
  scheduler: cs('scheduler', 'False', refused(10259)),
  'controller-manager': cs('controller-manager', 'False', refused(10257)),
  'etcd-0': cs('etcd-0', 'True', '{"health":"true","reason":""}'),
};

test('list: the three components (in no fixed order), ListMeta without a resourceVersion, the Warning', async () => {
  const r = await t.client.request('GET', C);
  assert.is(r.status, 200, show(r));
  assert.is(r.headers.warning, WARNING, show(r));
  const j = r.json as any;
  assert.equal([j.kind, j.apiVersion, j.metadata], ['ComponentStatusList', 'v1', {}]);
  const byName = Object.fromEntries(j.items.map((i: any) => [i.metadata.name, i]));
  assert.equal(byName, EXPECTED);
  const sel = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3Detcd-0`);
  assert.equal((sel.json as any).items, [EXPECTED['etcd-0']]);
  const none = await t.client.request('GET', `${C}?labelSelector=a%3Db`);
  assert.equal((none.json as any).items, []);
  const bad = await t.client.request('GET', `${C}?fieldSelector=status%3Dx`);
  assert.is(bad.status, 400, show(bad));
  assert.is((bad.json as any).message, '"status" is not a known field selector: only "metadata.name", "metadata.namespace"');
});

test('get: one component; an unknown one is a 500 "Component not found"', async () => {
  for (const name of Object.keys(EXPECTED)) {
    const r = await t.client.request('GET', `${C}/${name}`);
    assert.is(r.status, 200, show(r));
    assert.equal(r.json, { kind: 'ComponentStatus', apiVersion: 'v1', ...(EXPECTED[name] as object) });
  }
  const nope = await t.client.request('GET', `${C}/nope`);
  assert.is(nope.status, 500, show(nope));
  assert.is(nope.headers.warning, WARNING, show(nope));
  assert.equal(nope.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Component not found: nope', code: 500 });
});

test('read-only: writes and watch are 405', async () => {
  const writes = [
    await t.client.request('POST', C, { body: { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'x' } } }),
    await t.client.request('DELETE', `${C}/etcd-0`),
    await t.client.request('PUT', `${C}/etcd-0`, { body: { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0' } } }),
    await t.client.request('GET', `${C}?watch=1`),
  ];
  const noMethod = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
  assert.equal(
    writes.map((w) => [w.status, w.json]),
    [
      [405, noMethod],
      [405, noMethod],
      [405, noMethod],
      [405, { ...noMethod, message: 'watch is not supported on resources of kind "componentstatuses"', details: { kind: 'componentstatuses' } }],
    ],
    writes.map(show).join('\n'),
  );
});

test('Table as printComponentStatus; Protobuf', async () => {
  const tb = await table(t, `${C}/etcd-0`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Status', 'string', '', 0],
    ['Message', 'string', '', 0],
    ['Error', 'string', '', 0],
  ]);
  assert.equal(tb.descriptions.slice(1), ['Status of the component conditions', 'Message of the component conditions', 'Error of the component conditions']);
  assert.equal(tb.rows, [['etcd-0', 'Healthy', '{"health":"true","reason":""}', '']]);
  const all = await table(t, C);
  assert.equal(Object.fromEntries(all.rows.map((r) => [r[0], r.slice(1)])), {
    scheduler: ['Unhealthy', refused(10259), ''],
    'controller-manager': ['Unhealthy', refused(10257), ''],
    'etcd-0': ['Healthy', '{"health":"true","reason":""}', ''],
  });
  const pb = decodeProtobuf(await getProtobuf(t, `${C}/etcd-0`));
  assert.equal([pb.kind, (pb.object as any).metadata.name, (pb.object as any).conditions], ['ComponentStatus', 'etcd-0', (EXPECTED['etcd-0'] as any).conditions]);
});

test.run();
