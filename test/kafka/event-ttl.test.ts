/**
 * --event-ttl with two API replicas on one Kafka topic, both running the Event TTL controller:
 * every Event is deleted exactly once (uid + resourceVersion preconditions make the slower replica's
 * DELETE a 404/409), whichever replica it was written on, and an Event renewed by a write on the
 * other replica outlives the TTL of its first version.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, sleep, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';

const TTL_MS = 3000;
const N = 20;
const NS = 'kafka-ttl';
const EV = `/api/v1/namespaces/${NS}/events`;
let kafka: KafkaCluster;
let set: ReplicaSet;
let replicas: Replica[] = [];

const ev = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: NS }, reason: 'R', message: 'm' });

test.before(() =>
  setup(async () => {
    kafka = await startKafka({ brokers: 1 });
    set = replicaSet(kafka.bootstrap, 'kube-event-ttl', ['--event-ttl', `${TTL_MS}ms`]);
    replicas = await Promise.all([set.start(), set.start()]);
    await ok(replicas[0].client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  }),
);

test.after(() => stopAll(replicas, kafka));

test('each event expires once, on whichever replica; a renewal on the other replica wins', async () => {
  const watch = await openWatch(replicas[1].server.url, set.pkiDir, `${EV}?watch=1&resourceVersion=0`);
  try {
    for (let i = 0; i < N; i++) await ok(replicas[i % 2].client.request('POST', EV, { body: ev(`e${i}`) }), 201, `event ${i}`);
    await ok(replicas[0].client.request('POST', EV, { body: ev('renewed') }), 201, 'renewed');
    await sleep(TTL_MS / 2);
    await ok(replicas[1].client.request('PATCH', `${EV}/renewed`, { raw: '{"count":2}', contentType: 'application/merge-patch+json' }), 200, 'renew');
    const deadline = Date.now() + TTL_MS + 10_000;
    const deleted = (): string[] => watch.events.filter((e) => e.type === 'DELETED').map((e) => e.object.metadata.name);
    while (deleted().length < N && Date.now() < deadline) await sleep(100);
    const names = deleted();
    if (names.length < N) printLogTails(replicas);
    assert.equal([...names].sort(), Array.from({ length: N }, (_, i) => `e${i}`).sort(), 'each event deleted exactly once');
    assert.is((await replicas[0].client.request('GET', `${EV}/renewed`)).status, 200, 'renewed still there');
    await sleep(TTL_MS / 2 + 1500);
    assert.is((await replicas[0].client.request('GET', `${EV}/renewed`)).status, 404, 'renewed expired after its own TTL');
    await sleep(500);
    assert.is(deleted().filter((n) => n === 'renewed').length, 1, 'renewed deleted once');
    assert.is(deleted().length, N + 1);
  } finally {
    watch.close();
  }
});

test.run();
