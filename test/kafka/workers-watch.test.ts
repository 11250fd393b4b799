/**
 * Kafka mode with serving threads (`--workers 2`, issue 28): a watch that resumes below a
 * thread's ring is replayed from the topic — read by the replica's leader for the thread
 * (storage/follower.ts 'lr') — exactly as the replica's single thread serves it, not answered 410.
 *
 * Replica A writes; replica B starts afterwards with --workers 2, so both of B's threads hold
 * none of those writes in their rings. Every watch opens its own connection: the kernel spreads
 * them over B's threads (reusePort), so the serving thread answers some of them (8 connections:
 * all on the leader with probability 1/256). This server's internals (threads, rings): here only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, openWatch, cm, setup, stopAll, printLogTails, type Replica, type ReplicaSet } from './replicas.ts';
import { ok } from '../assertions.ts';

let kafka: KafkaCluster;
let set: ReplicaSet;
const replicas: Replica[] = [];
const NS = 'resume';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
/** This suite's ConfigMaps (the namespace also gets kube-root-ca.crt from a controller). */
const labeled = (name: string) => ({ ...cm(name), metadata: { name, labels: { suite: 'workers-watch' } } });
const SELECTOR = 'labelSelector=suite%3Dworkers-watch';
let from = '';

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, 'kube-workers-watch');
  replicas.push(await set.start());
  const a = replicas[0]!.client;
  await ok(a.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  const first = await ok(a.request('POST', CM, { body: labeled('cm-0') }), 201, 'cm-0');
  from = first.metadata.resourceVersion;
  for (let i = 1; i <= 4; i++) await ok(a.request('POST', CM, { body: labeled(`cm-${i}`) }), 201, `cm-${i}`);
  replicas.push(await set.start(undefined, 0, ['--workers', '2']));
  // B has folded A's writes (a consistent list on B waits for the topic's end).
  const list = await ok(replicas[1]!.client.request('GET', `${CM}?${SELECTOR}`), 200, 'list on B');
  assert.is(list.items.length, 5);
}));

test.after(() => stopAll(replicas, kafka));

test('a watch resuming below the rings of a --workers 2 replica replays the topic on every thread', async () => {
  try {
    for (let attempt = 0; attempt < 8; attempt++) {
      const w = await openWatch(replicas[1]!.server.url, set.pkiDir, `${CM}?watch=1&${SELECTOR}&resourceVersion=${from}`);
      try {
        assert.is(w.status, 200, `watch ${attempt}`);
        const events = await w.waitFor(4);
        assert.equal(
          events.map((e: any) => `${e.type} ${e.object?.metadata?.name ?? e.object?.code}`),
          ['ADDED cm-1', 'ADDED cm-2', 'ADDED cm-3', 'ADDED cm-4'],
          `watch ${attempt}: the writes after ${from}, in log order`,
        );
      } finally {
        await w.close();
      }
    }
  } catch (err) {
    printLogTails(replicas);
    throw err;
  }
});

test.run();
