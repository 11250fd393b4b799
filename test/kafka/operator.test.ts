/**
 * The controller-runtime operator (test/go/operator, see test/operator.test.ts) across two API
 * replicas on one Kafka topic: instance A talks to replica 0, instance B to replica 1. Both
 * install the CRD at once (one creates it, the other finds it, on a replica that may not have
 * folded it yet), leader election on the Lease elects one across the replicas, Widgets written on
 * either replica are reconciled by the leader through its own, and after SIGTERM the other
 * instance takes over on its replica. This server only (the reference has no replicas).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, setup, stopAll, printLogTails, type Replica } from './replicas.ts';
import { ok } from '../assertions.ts';
import { Operator, Widgets, buildOperator, reconciled, acts, CRD, LEASE_MS } from '../operator-process.ts';
import { join } from 'node:path';

const NS = 'kafka-operator';
let kafka: KafkaCluster;
let replicas: Replica[] = [];
let bin: string;
const operators: Operator[] = [];
/** The Widgets seen through replica 0 and replica 1. */
let on: Widgets[];

const describe = (): string => {
  printLogTails(replicas);
  return operators.map((o) => o.describe()).join('\n');
};

test.before(() =>
  setup(async () => {
    [bin, kafka] = await Promise.all([buildOperator(), startKafka({ brokers: 1 })]);
    const set = replicaSet(kafka.bootstrap, 'kube-operator');
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
    on = replicas.map((r) => new Widgets(r.client, NS, describe));
  }),
);

test.after(async () => {
  for (const o of operators) await o.kill();
  await stopAll(replicas, kafka);
});

test('two instances on two replicas: one leads, Widgets from either replica are reconciled, the other takes over on SIGTERM', async () => {
  const [a, b] = replicas.map((r, i) => new Operator(bin, join(r.dataDir, 'kubeconfig'), NS, `operator-${'ab'[i]}`));
  operators.push(a, b);
  const leading = (e: { event: string }) => e.event === 'leading';
  const first = await Promise.race([a.waitFor('leading', leading, 60_000), b.waitFor('leading', leading, 60_000)]);
  const [leader, follower] = first.id === a.id ? [a, b] : [b, a];
  await follower.waitFor('started', (e) => e.event === 'started', 30_000);
  for (const r of replicas) {
    const crd = await ok(r.client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`), 200, 'CRD');
    assert.ok(crd.status.conditions.some((c: any) => c.type === 'Established' && c.status === 'True'), JSON.stringify(crd.status));
  }

  // Written on each replica, reconciled by the leader through its own.
  const one = await on[0].create('one', { message: 'via replica 0' });
  const two = await on[1].create('two', { message: 'via replica 1', size: 5 });
  assert.equal(one.cm.data, { message: 'via replica 0', color: 'blue', size: '1' });
  assert.equal(two.cm.data, { message: 'via replica 1', color: 'blue', size: '5' });
  assert.is(two.cm.metadata.ownerReferences[0].uid, two.w.metadata.uid);
  const patched = await on[1].patch('one', { spec: { color: 'red' } });
  assert.is(patched.metadata.generation, 2);
  await on[0].ready('one', 2);
  assert.is((await on[1].get(on[1].configMap('one'))).data.color, 'red');
  await on[0].delete('two');
  assert.is(follower.count(acts), 0, follower.describe());

  const stoppedAt = Date.now();
  assert.is(await leader.stop(), 0, leader.describe());
  const took = await follower.waitFor('leading after the leader stopped', leading, 15_000);
  console.log(`takeover ${took.at - stoppedAt} ms after SIGTERM, across replicas`);
  assert.ok(took.at - stoppedAt < LEASE_MS, 'the stopped leader released the Lease');
  const first1 = await follower.waitFor('reconciled one', reconciled('one', 2), 10_000);
  assert.is(first1.configMap, 'unchanged', follower.describe());

  await on[0].create('three', { message: 'after the handoff' });
  await follower.waitFor('reconciled three', reconciled('three', 1), 5000);
  await on[1].delete('one');
  await on[0].delete('three');
  assert.is(await follower.stop(), 0, follower.describe());
});

test.run();
