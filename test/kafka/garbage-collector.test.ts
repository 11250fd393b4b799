/**
 * The garbage collector with two API replicas on one Kafka topic, both running it: every
 * decision is taken after a consistent read and every write is guarded (uid/resourceVersion
 * preconditions), so the two collectors racing on the same owners still delete each dependent
 * exactly once, finalize foreground owners only after their blocking dependents, and orphan
 * without losing references to other owners.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, sleep, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];
const NS = 'kafka-gc';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const N = 20;

const refTo = (o: any, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, ...extra });

async function eventually(label: string, fn: () => Promise<boolean>, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await fn())) {
    if (Date.now() > deadline) {
      printLogTails(replicas);
      throw new Error(`${label}: not reached within ${limitMs} ms`);
    }
    await sleep(50);
  }
}

/** Creates an owner on replica A and N dependents, alternating replicas. */
async function family(prefix: string, refExtra: Record<string, unknown> = {}): Promise<any> {
  const owner = await ok(replicas[0].client.request('POST', CM, { body: { metadata: { name: prefix } } }), 201, `${prefix} owner`);
  for (let i = 0; i < N; i++) {
    const r = replicas[i % 2];
    await ok(r.client.request('POST', CM, { body: { metadata: { name: `${prefix}-${i}`, ownerReferences: [refTo(owner, refExtra)] } } }), 201, `${prefix} dependent ${i}`);
  }
  return owner;
}

async function names(prefix: string): Promise<string[]> {
  const list = await ok(replicas[1].client.request('GET', CM), 200, 'list');
  return list.items.map((o: any) => o.metadata.name).filter((n: string) => n === prefix || n.startsWith(`${prefix}-`));
}

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-gc');
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  }),
);

test.after(() => stopAll(replicas, kafka));

test('foreground: each dependent deleted once, the owner only after all of them', async () => {
  const w = await openWatch(replicas[0].server.url, set.pkiDir, `${CM}?watch=1`);
  try {
    await family('fg', { blockOwnerDeletion: true });
    await ok(replicas[1].client.request('DELETE', `${CM}/fg?propagationPolicy=Foreground`), 200, 'delete owner');
    await eventually('family gone', async () => (await names('fg')).length === 0);
    await sleep(200);
    const deleted = w.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
    const deps = deleted.filter((n) => n.startsWith('fg-'));
    assert.is(deps.length, N, `every dependent deleted exactly once: ${deleted.join(' ')}`);
    assert.is(new Set(deps).size, N);
    assert.is(deleted[deleted.length - 1], 'fg', 'the owner goes last');
  } finally {
    await w.close();
  }
});

test('background: the owner at once, every dependent collected', async () => {
  await family('bg');
  await ok(replicas[1].client.request('DELETE', `${CM}/bg`), 200, 'delete owner');
  await eventually('dependents gone', async () => (await names('bg')).length === 0);
});

test('orphan: every dependent kept without the reference; the owner goes', async () => {
  const other = await ok(replicas[1].client.request('POST', CM, { body: { metadata: { name: 'or-other' } } }), 201, 'other owner');
  const owner = await ok(replicas[0].client.request('POST', CM, { body: { metadata: { name: 'or' } } }), 201, 'owner');
  for (let i = 0; i < N; i++) {
    await ok(replicas[i % 2].client.request('POST', CM, { body: { metadata: { name: `or-${i}`, ownerReferences: [refTo(owner), refTo(other)] } } }), 201, `dependent ${i}`);
  }
  await ok(replicas[1].client.request('DELETE', `${CM}/or?propagationPolicy=Orphan`), 200, 'delete owner');
  await eventually('owner gone', async () => (await replicas[0].client.request('GET', `${CM}/or`)).status === 404);
  const list = await ok(replicas[0].client.request('GET', CM), 200, 'list');
  const deps = list.items.filter((o: any) => /^or-\d+$/.test(o.metadata.name));
  assert.is(deps.length, N, 'all dependents kept');
  for (const d of deps) assert.equal(d.metadata.ownerReferences, [refTo(other)], d.metadata.name);
});

test.run();
