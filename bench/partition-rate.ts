/**
 * One Kafka partition's produce rate (`npm run bench:partition-rate`, issue 28's capacity model):
 * a KRaft broker on 127.0.0.1 (test/kafka/broker.ts), a topic of one partition, and --producers
 * idempotent kafkajs producers (acks=all, one request in flight each, as KafkaLog appends) sending
 * --events events of --bytes bytes (a ConfigMap-like JSON) in produce requests of --batch.
 * Reports events/s, MB/s and the broker JVM's CPU per event.
 *
 *   node --import tsx bench/partition-rate.ts [--events N] [--bytes B] [--batch N] [--producers N]
 */
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Kafka, logLevel } from 'kafkajs';
import { startKafka } from '../test/kafka/broker.ts';
import { procCpuMs, round } from './util.ts';

const { values: a } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, bytes: { type: 'string', default: '1500' }, batch: { type: 'string', default: '500' }, producers: { type: 'string', default: '1,3' } },
  strict: true,
});
const events = Number(a.events);
const bytes = Number(a.bytes);
const batch = Number(a.batch);
const log = (s: string) => process.stderr.write(`[partition-rate ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

async function main() {
  log('starting a KRaft broker');
  const cluster = await startKafka({ brokers: 1 });
  try {
    const brokerPids = readFileSync(cluster.pidFile, 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[1]));
    const kafka = new Kafka({ clientId: 'partition-rate', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    const lines: string[] = [`One partition's produce rate (bench/partition-rate.ts), 1 broker, acks=all, idempotent, ${bytes}-byte events in requests of ${batch}; load ${loadavg()[0]!.toFixed(1)} at start`];
    for (const producers of a.producers!.split(',').map(Number)) {
      const topic = `rate-${producers}-${Date.now()}`;
      await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'bench', uid: '00000000-0000-4000-8000-000000000000' }, data: { v: 'x'.repeat(Math.max(0, bytes - 160)) } });
      const value = Buffer.from(body);
      const ps = await Promise.all(
        Array.from({ length: producers }, async () => {
          const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
          await p.connect();
          return p;
        }),
      );
      // warm-up
      await Promise.all(ps.map((p) => p.send({ topic, acks: -1, messages: Array.from({ length: batch }, () => ({ value })) })));
      const b0 = brokerPids.reduce((s, p) => s + procCpuMs(p), 0);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      let sent = 0;
      await Promise.all(
        ps.map(async (p) => {
          while (sent < events) {
            sent += batch;
            await p.send({ topic, acks: -1, messages: Array.from({ length: batch }, () => ({ value })) });
          }
        }),
      );
      const ms = performance.now() - t0;
      const brokerMs = brokerPids.reduce((s, p) => s + procCpuMs(p), 0) - b0;
      const c = process.cpuUsage(c0);
      await Promise.all(ps.map((p) => p.disconnect()));
      const perSec = sent / (ms / 1000);
      lines.push(`  ${producers} producer${producers > 1 ? 's' : ' '}: ${Math.round(perSec).toLocaleString('en-US')} events/s, ${round((perSec * value.length) / 1e6, 1)} MB/s; broker CPU ${round((brokerMs * 1000) / sent, 1)} µs per event (${round((brokerMs / ms) * 100, 0)} % of a core); producers' CPU ${round((c.user + c.system) / sent, 1)} µs per event`);
      log(lines[lines.length - 1]!);
    }
    await admin.disconnect();
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`partition-rate failed: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
