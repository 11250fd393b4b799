/**
 * Broker faults under write load, against real KRaft brokers:
 *   - 3 brokers, replication factor 3, min.insync.replicas 2: losing one broker keeps writes
 *     going; losing two makes writes fail fast (503/504 Status, never a hang) while "any" reads
 *     keep working; writes recover by themselves when the brokers return.
 *   - 1 broker stopped and restarted: same contract.
 * Every acknowledged write must be present afterwards on every replica with the version it was
 * acknowledged with, and in the log itself at that offset.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, cm, sleep, stopAll, printLogTails, type Replica } from './replicas.ts';
import { KafkaLog } from '../../internal/storage/log/kafka-log.ts';
import { ok, show } from '../assertions.ts';
import type { Client } from '../harness.ts';

/** A write must answer within this (the server's Kafka write timeout is 10 s, plus slack). */
const ANSWER_WITHIN_MS = 16_000;
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

interface Outcome {
  name: string;
  status: number;
  rv?: string;
  ms: number;
  reason?: string;
}

/** Writers issuing creates in a loop until stopped; every answer is recorded. */
function writeLoad(client: Client, prefix: string, concurrency = 4) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const workers = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      const name = `${prefix}-${n++}`;
      const t = Date.now();
      const r = await client.request('POST', CM, { body: cm(name, { v: name }) }).catch((e: Error) => ({ status: 0, json: { reason: e.message }, text: '' }));
      outcomes.push({ name, status: r.status, rv: r.json?.metadata?.resourceVersion, ms: Date.now() - t, reason: r.json?.reason });
      if (r.status !== 201) await sleep(100);
    }
  });
  return {
    outcomes,
    acked: () => outcomes.filter((o) => o.status === 201),
    since: (i: number) => outcomes.slice(i),
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

async function waitUntil(what: string, ms: number, f: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for: ${what}`);
    await sleep(200);
  }
}

/** Every acknowledged create is on every replica with its version, and in the log at that offset. */
async function checkNoAckedWriteLost(kafka: KafkaCluster, topic: string, replicas: Replica[], acked: Outcome[]): Promise<void> {
  for (const [i, r] of replicas.entries()) {
    const list = await ok(r.client.request('GET', CM), 200, `list on replica ${i}`);
    const have = new Map<string, string>(list.items.map((x: any) => [x.metadata.name, x.metadata.resourceVersion]));
    for (const a of acked) assert.is(have.get(a.name), a.rv, `replica ${i}: acknowledged ${a.name}@${a.rv}`);
  }
  const client = new Kafka({ clientId: 'fault-check', brokers: kafka.bootstrap.split(','), logLevel: logLevel.NOTHING });
  const log = await KafkaLog.open(client, { topic, readOnly: true, replicationFactor: 1, minInsyncReplicas: 1, checkpointsCover: false, appendTimeoutMs: 10_000, clientId: 'fault-check' });
  try {
    const byOffset = new Map<number, string>();
    for await (const { offset, event } of log.read(0)) if (event.op === 'CREATE') byOffset.set(offset, event.name);
    for (const a of acked) assert.is(byOffset.get(Number(a.rv)), a.name, `log offset ${a.rv} holds ${a.name}`);
  } finally {
    await log.close();
  }
}

function assertFailedFast(outcomes: Outcome[], label: string): void {
  const failed = outcomes.filter((o) => o.status !== 201);
  assert.ok(failed.length > 0, `${label}: some writes failed while the log was unavailable`);
  for (const f of failed) {
    assert.ok(f.status === 503 || f.status === 504, `${label}: ${f.name} answered ${f.status} ${f.reason ?? ''} (want 503/504)`);
    assert.ok(f.ms <= ANSWER_WITHIN_MS, `${label}: ${f.name} took ${f.ms} ms`);
  }
}

interface Scenario {
  kafka: KafkaCluster;
  replicas: Replica[];
  load: ReturnType<typeof writeLoad>;
}

/**
 * Brokers, `replicaCount` replicas on `topic` and a write load on the first replica, then `body`
 * (the faults); afterwards writes must recover and every acknowledged write must be kept.
 */
async function faultScenario(brokers: 1 | 3, topic: string, replicaCount: number, replicaArgs: string[], body: (s: Scenario) => Promise<void>): Promise<void> {
  const kafka = await startKafka({ brokers });
  const set = replicaSet(kafka.bootstrap, topic, replicaArgs);
  const replicas: Replica[] = [];
  try {
    for (let i = 0; i < replicaCount; i++) replicas.push(await set.start());
    const load = writeLoad(replicas[0].client, topic);
    await waitUntil('first writes', 20_000, () => load.acked().length >= 20);
    await body({ kafka, replicas, load });
    const back = load.outcomes.length;
    await waitUntil('writes recover when the brokers are back', 90_000, () => okSince(load, back) >= 20);
    await load.stop();
    await checkNoAckedWriteLost(kafka, topic, replicas, load.acked());
  } catch (err) {
    printLogTails(replicas);
    throw err;
  } finally {
    await stopAll(replicas, kafka);
  }
}

const okSince = (load: Scenario['load'], i: number): number => load.since(i).filter((o) => o.status === 201).length;
const failedSince = (load: Scenario['load'], i: number): Outcome[] => load.since(i).filter((o) => o.status !== 201);

test('3 brokers (RF 3, min ISR 2): one down keeps writing, two down fails fast, all back recovers, nothing acknowledged is lost', () =>
  faultScenario(3, 'kube-faults3', 2, ['--kafka-replication-factor', '3', '--kafka-min-insync-replicas', '2'], async ({ kafka, replicas, load }) => {
    await kafka.stopBroker(0);
    const afterOne = load.outcomes.length;
    await waitUntil('writes continue with one broker down', 30_000, () => okSince(load, afterOne) >= 20);

    await kafka.stopBroker(1);
    const afterTwo = load.outcomes.length;
    // Let in-flight acknowledgements drain, then every write must fail, quickly.
    await waitUntil('writes fail with two of three brokers down', 40_000, () => failedSince(load, afterTwo).length >= 6);
    assertFailedFast(failedSince(load, afterTwo), 'two brokers down');
    for (const [i, r] of replicas.entries()) {
      const any = await r.client.request('GET', `${CM}?resourceVersion=0`);
      assert.is(any.status, 200, `replica ${i}: list with resourceVersion=0 while the log is down: ${show(any)}`);
      const get = await r.client.request('GET', `${CM}/${load.acked()[0].name}?resourceVersion=0`);
      assert.is(get.status, 200, `replica ${i}: get with resourceVersion=0: ${show(get)}`);
    }
    await kafka.startBroker(1);
    await kafka.startBroker(0);
  }));

test('1 broker stopped under load: writes fail fast, any reads work, writes recover after restart', () =>
  faultScenario(1, 'kube-faults1', 1, [], async ({ kafka, replicas: [a], load }) => {
    await kafka.stopBroker(0);
    const down = load.outcomes.length;
    await waitUntil('writes fail with the broker down', 40_000, () => failedSince(load, down).length >= 6);
    assertFailedFast(failedSince(load, down), 'broker down');
    const any = await a.client.request('GET', `${CM}?resourceVersion=0`);
    assert.is(any.status, 200, `list with resourceVersion=0 while the broker is down: ${show(any)}`);
    const consistent = await a.client.request('GET', CM);
    assert.ok(consistent.status === 200 || consistent.status === 503 || consistent.status === 504, `consistent list while down answers a Status, not a hang: ${show(consistent)}`);
    // The storage health check probes the log: unhealthy while the broker is down, live again after.
    const etcd = await a.client.request('GET', '/readyz?verbose');
    assert.is(etcd.status, 500, show(etcd));
    assert.match(etcd.text, '[-]etcd failed: reason withheld');
    await kafka.startBroker(0);
    await waitUntil('the etcd check recovers with the broker', 40_000, async () => (await a.client.request('GET', '/livez/etcd')).status === 200);
  }));

test.run();
