/**
 * The Kafka test harness against real brokers (test/kafka/broker.ts): one node takes a topic, an
 * idempotent acks=all producer and a consumer group; three nodes (RF 3, min.insync.replicas 2)
 * keep accepting acks=all writes with one node down, refuse them within a bounded time with two
 * down, and accept them again once a node is back, with every acknowledged write still readable.
 *
 * Under CI=true a broker that cannot start fails the suite (startKafka throws); nothing skips.
 * Prints start-up times and each broker's resident memory, for docs and regressions.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { Kafka, Partitioners, logLevel, type Admin, type Producer } from 'kafkajs';
import { startKafka, kafkaVersion, type KafkaCluster } from './broker.ts';

/** A write that cannot reach min.insync.replicas must fail within this (retries included). */
const FAIL_WITHIN_MS = 20_000;
/** After a node is back, acks=all writes must succeed again within this. */
const RECOVER_WITHIN_MS = 60_000;

/**
 * How a broker refuses an acks=all write below min.insync.replicas: before the append, after it
 * (ISR shrank meanwhile), or, if the request reached no leader, a request timeout.
 */
const REFUSALS = ['NOT_ENOUGH_REPLICAS', 'NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'REQUEST_TIMED_OUT', 'KafkaJSRequestTimeoutError'];

const clusters: KafkaCluster[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function client(bootstrap: string): Kafka {
  return new Kafka({
    clientId: 'broker-test',
    brokers: bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
  });
}

/** pid and resident memory (MiB) of each running broker, from the cluster's pid file and /proc. */
function brokerMemory(c: KafkaCluster): string {
  return readFileSync(c.pidFile, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [id, pid] = line.split(' ');
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return `broker ${id}: ${Math.round(kb / 1024)} MiB RSS`;
    })
    .join(', ');
}

function pidsOf(c: KafkaCluster): number[] {
  return readFileSync(c.pidFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => Number(l.split(' ')[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Read `n` messages of `topic` from the beginning with a fresh consumer group. */
async function consume(kafka: Kafka, topic: string, n: number, timeoutMs = 30_000): Promise<Map<string, string>> {
  const consumer = kafka.consumer({ groupId: `g-${topic}-${Date.now()}` });
  const got = new Map<string, string>();
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`consumed ${got.size}/${n} of ${topic} in ${timeoutMs} ms`)), timeoutMs);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            got.set(message.key!.toString(), message.value!.toString());
            if (got.size >= n) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return got;
}

async function partitionState(admin: Admin, topic: string): Promise<{ leader: number; isr: number[]; replicas: number[] }> {
  const md = await admin.fetchTopicMetadata({ topics: [topic] });
  const p = md.topics[0]!.partitions[0]!;
  return { leader: p.leader, isr: [...p.isr].sort(), replicas: [...p.replicas].sort() };
}

test('single broker: topic, idempotent acks=all producer, consumer group', async () => {
  const t0 = Date.now();
  const k = await startKafka({ brokers: 1 });
  clusters.push(k);
  console.log(`kafka ${kafkaVersion()}: 1 broker up in ${Date.now() - t0} ms (${brokerMemory(k)})`);
  assert.match(k.bootstrap, /^127\.0\.0\.1:\d+$/);

  const kafka = client(k.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  const cluster = await admin.describeCluster();
  assert.equal(cluster.brokers.map((b) => b.nodeId), [0]);
  assert.is(cluster.clusterId, k.clusterId);
  assert.ok(await admin.createTopics({ topics: [{ topic: 'single', numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true }));
  assert.ok((await admin.listTopics()).includes('single'));

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const sent = new Map<string, string>();
  for (let i = 0; i < 20; i++) sent.set(`k${i}`, `value-${i}`);
  const acks = await producer.send({ topic: 'single', acks: -1, messages: [...sent].map(([key, value]) => ({ key, value })) });
  assert.ok(acks.every((a) => a.errorCode === 0), JSON.stringify(acks));
  await producer.disconnect();

  const got = await consume(kafka, 'single', sent.size);
  assert.equal([...got].sort(), [...sent].sort());
  await admin.disconnect();

  const pids = pidsOf(k);
  const s0 = Date.now();
  await k.stop();
  console.log(`1 broker stopped in ${Date.now() - s0} ms`);
  assert.ok(pids.length === 1 && pids.every((p) => !alive(p)), `broker JVMs ${pids} still alive after stop()`);
});

test('3 brokers, RF 3, min.insync.replicas 2: one down ok, two down refused, back recovers', async () => {
  const t0 = Date.now();
  const k = await startKafka({ brokers: 3 });
  clusters.push(k);
  console.log(`kafka ${kafkaVersion()}: 3 brokers up in ${Date.now() - t0} ms (${brokerMemory(k)})`);
  assert.is(k.bootstrap.split(',').length, 3);

  const kafka = client(k.bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  assert.equal((await admin.describeCluster()).brokers.map((b) => b.nodeId).sort(), [0, 1, 2]);
  const topic = 'replicated';
  await admin.createTopics({
    topics: [{ topic, numPartitions: 1, replicationFactor: 3, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }],
    waitForLeaders: true,
  });
  const initial = await partitionState(admin, topic);
  assert.equal(initial.replicas, [0, 1, 2]);
  assert.equal(initial.isr, [0, 1, 2]);

  // few, short retries: a refused write must surface in seconds, not after kafkajs' default backoff
  const producer: Producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: 3, initialRetryTime: 200, maxRetryTime: 1000 },
  });
  await producer.connect();
  const acked = new Map<string, string>();
  let seq = 0;
  const produce = async (): Promise<void> => {
    const key = `m${seq++}`;
    const value = `v-${key}`;
    await producer.send({ topic, acks: -1, timeout: 5000, messages: [{ key, value }] });
    acked.set(key, value);
  };
  await produce();

  // 1) the leader goes away (controlled shutdown): 2 of 3 in sync, acks=all still succeeds
  const first = initial.leader;
  const s1 = Date.now();
  await k.stopBroker(first);
  console.log(`leader ${first} stopped (controlled shutdown) in ${Date.now() - s1} ms`);
  assert.not.ok(k.isRunning(first));
  await produce();
  const afterOne = await partitionState(admin, topic);
  assert.ok(afterOne.leader !== first, `leader moved off broker ${first}`);
  assert.is(afterOne.isr.length, 2, `isr after one stop: ${afterOne.isr}`);

  // 2) a second node goes away: ISR 1 < min.insync.replicas 2, acks=all is refused, in bounded time
  const second = afterOne.leader === (first + 1) % 3 ? (first + 2) % 3 : (first + 1) % 3;
  const s2 = Date.now();
  await k.stopBroker(second);
  console.log(`broker ${second} stopped in ${Date.now() - s2} ms`);
  const f0 = Date.now();
  let refused: Error | undefined;
  try {
    await produce();
  } catch (err) {
    refused = err as Error;
  }
  const failMs = Date.now() - f0;
  assert.ok(refused, 'acks=all produce with 1 of 3 replicas must fail');
  // kafkajs wraps the broker's error in KafkaJSNumberOfRetriesExceeded; the code is on the cause
  const cause = ((refused as { cause?: Error }).cause ?? refused) as Error & { type?: string };
  console.log(`two brokers down: produce refused after ${failMs} ms (${refused.name} ← ${cause.name} ${cause.type ?? ''})`);
  assert.ok(failMs < FAIL_WITHIN_MS, `refusal took ${failMs} ms`);
  assert.ok(
    REFUSALS.includes(cause.type ?? cause.name),
    `refused with ${cause.name} ${cause.type}: ${cause.message}, expected one of ${REFUSALS}`,
  );

  // 3) one node is back: quorum and ISR regained, acks=all succeeds again
  const r0 = Date.now();
  await k.startBroker(second);
  console.log(`broker ${second} restarted and listed in ${Date.now() - r0} ms`);
  let recovered = false;
  let lastErr = '';
  while (Date.now() - r0 < RECOVER_WITHIN_MS) {
    try {
      await produce();
      recovered = true;
      break;
    } catch (err) {
      lastErr = (err as Error).message;
      await sleep(500);
    }
  }
  assert.ok(recovered, `produce did not recover within ${RECOVER_WITHIN_MS} ms: ${lastErr}`);
  console.log(`produce recovered ${Date.now() - r0} ms after restarting broker ${second}`);

  // 4) the last one back too: all three in sync again
  await k.startBroker(first);
  const deadline = Date.now() + RECOVER_WITHIN_MS;
  let state = await partitionState(admin, topic);
  while (state.isr.length < 3 && Date.now() < deadline) {
    await sleep(500);
    state = await partitionState(admin, topic);
  }
  assert.equal(state.isr, [0, 1, 2], 'all replicas back in sync');
  await produce();
  await producer.disconnect();

  // every acknowledged write survived the faults
  const got = await consume(kafka, topic, acked.size);
  for (const [key, value] of acked) assert.is(got.get(key), value, `acknowledged ${key} lost`);
  await admin.disconnect();

  const pids = pidsOf(k);
  const s0 = Date.now();
  await k.stop();
  console.log(`3 brokers stopped in ${Date.now() - s0} ms`);
  assert.ok(pids.length === 3 && pids.every((p) => !alive(p)), `broker JVMs still alive after stop(): ${pids.filter(alive)}`);
});

test.after(async () => {
  await Promise.all(clusters.map((c) => c.stop()));
});

test.run();
