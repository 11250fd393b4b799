/**
 * Kafka benchmark (`npm run bench:kafka`, issue 4): Kafka mode against a real broker, next to the
 * embedded default in the same run.
 *
 *   node --import tsx bench/kafka.ts [--duration S] [--warmup S] [--connections N] [--events N]
 *                                    [--brokers 1|3] [--replay-runs N] [--bootstrap-runs N]
 *                                    [--keep] [--quick]
 *
 *  a. embedded default: durable creates/s and create latency p50/p99 — bench/run.ts's create
 *     scenario (TLS, --connections keep-alive connections, default 64, 1 KiB ConfigMaps, --warmup
 *     + --duration s, default 2 + 10);
 *  b. the same load on one API replica on a Kafka topic (test/kafka/broker.ts: KRaft broker(s) on
 *     127.0.0.1, jars from Maven Central into .cache/);
 *  c. the same load spread round-robin over three replicas of that topic (same total connections);
 *  d. replay: the topic is filled up to --events (default 100,000) with a direct producer of valid
 *     events (clones of a create the replicas logged), then `cmd/replay.ts rebuild --log kafka://…`
 *     rebuilds it from offset 0, --replay-runs times (default 3); events/s as the tool reports it,
 *     its progress lines passed through;
 *  e. bootstrap: `cmd/materializer.ts --once` publishes a checkpoint of the topic, then new
 *     replicas start on empty data dirs, alternately from the checkpoint and from offset 0,
 *     --bootstrap-runs times each (default 3): spawn → /readyz 200, and the catchUpMs they log.
 *
 * --brokers 3: three brokers (replication factor 3, min.insync.replicas 2) instead of one.
 * --steps: the steps to run (default abcde), e.g. `--steps bc` for the replica figures alone (b and
 *   c always run: c adds replicas to b's, and d and e replay the topic they wrote).
 * --pin-replicas CPUS / --pin-rest CPUS: `taskset -c` lists for the API replicas and for the rest
 *   (broker JVMs and this process, the load generator), e.g. `--pin-replicas 1 --pin-rest 0`: then
 *   3 replicas get the same one core that 1 replica had, so the c/b loss shows what sharing that
 *   core costs, with the broker and the load kept off it.
 * --quick: 1 + 3 s windows, 20,000 events, one replay and one bootstrap of each kind (a smoke test).
 * Prints a table with the ratios against the issue's goals and writes bench/results/kafka-<ts>.json.
 * Only 127.0.0.1 is used; children (servers, tools, brokers) are killed on exit; a watchdog ends
 * the run after 20 minutes.
 */
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Pool } from 'undici';
import { Kafka, logLevel } from 'kafkajs';
import { ensurePki } from '../internal/auth/pki.ts';
import { encodeEvent, type LogEvent } from '../internal/storage/log/event.ts';
import { openReadableLog } from '../internal/replay/open-log.ts';
import { startKafka, kafkaVersion, type KafkaCluster } from '../test/kafka/broker.ts';
import { makePool, runLoad, type LoadResult, type RequestSpec } from './load.ts';
import { spawnApiServer, pollReadyz, serverLog, reportBenchFailure, type ApiServer } from './server.ts';
import {
  endBench,
  adminTls, configMapBody, cpuSnapshot, cpuWindow, fmt, installWatchdog, loadAvg1, machineFacts, median, otherCpuPercent, procCpuMs, round,
  spawnServerWithFlags, spawnTracked, writeResult, type FlaggedServer, type LatencySummary, type ServerStartLog,
} from './util.ts';

const ROOT = new URL('..', import.meta.url).pathname;

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    events: { type: 'string' },
    brokers: { type: 'string' },
    'replay-runs': { type: 'string' },
    'bootstrap-runs': { type: 'string' },
    keep: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    steps: { type: 'string' },
    'pin-replicas': { type: 'string' },
    'pin-rest': { type: 'string' },
  },
  strict: true,
});
const steps = new Set((args.steps ?? 'abcde').split(''));
if (![...steps].every((c) => 'abcde'.includes(c)) || !steps.has('b') || !steps.has('c')) {
  throw new Error('--steps: letters of abcde, b and c always (c adds replicas to b\'s; d and e replay the topic they wrote)');
}
const CPU_LIST = /^\d+([-,]\d+)*$/;
for (const k of ['pin-replicas', 'pin-rest'] as const) if (args[k] !== undefined && !CPU_LIST.test(args[k]!)) throw new Error(`--${k}: a taskset CPU list such as 1 or 0-1, got ${args[k]}`);

/** `taskset -a -p -c cpus pid`: every thread of a running process (new threads inherit it). */
function pin(pid: number, cpus: string | undefined): void {
  if (cpus === undefined) return;
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}
const quick = args.quick!;
const cfg = {
  quick,
  durationS: Number(args.duration ?? (quick ? 3 : 10)),
  warmupS: Number(args.warmup ?? (quick ? 1 : 2)),
  connections: Number(args.connections ?? 64),
  events: Number(args.events ?? (quick ? 20_000 : 100_000)),
  brokers: Number(args.brokers ?? 1),
  replayRuns: Number(args['replay-runs'] ?? (quick ? 1 : 3)),
  bootstrapRuns: Number(args['bootstrap-runs'] ?? (quick ? 1 : 3)),
  replicas: 3,
  steps: [...steps].sort().join(''),
  pinReplicas: args['pin-replicas'] ?? null,
  pinRest: args['pin-rest'] ?? null,
};
for (const [k, v] of Object.entries(cfg)) if (typeof v === 'number' && !(v > 0)) throw new Error(`bad --${k}: ${v}`);
if (cfg.brokers !== 1 && cfg.brokers !== 3) throw new Error('--brokers: 1 or 3');

installWatchdog(20 * 60_000);
const log = (s: string) => process.stderr.write(`[bench:kafka ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

/**
 * kafkajs errors of a new cluster's first second (test/kafka/README.md: logged, then retried):
 * counted apart, not reported as problems.
 */
const TRANSIENT_KAFKA = /coordinator is loading|group coordinator is not available|not the leader for|no leader for this topic/i;
let transientKafkaErrors = 0;
function noteLine(line: string, level: number): void {
  if (level >= 50 && TRANSIENT_KAFKA.test(line)) transientKafkaErrors++;
  else serverLog.note(line, level, '');
}

/** The issue's goals. */
const GOALS = { kafka1OverEmbedded: 0.5, kafka3Loss: 0.2, replayEventsPerSec: 100_000, bootstrapSpeedup: 10 };

const runId = Date.now().toString(36);
const createSpec = (prefix: string) => (w: number, seq: number): RequestSpec => ({
  method: 'POST',
  path: '/api/v1/namespaces/default/configmaps',
  body: configMapBody(`${prefix}-${w}-${seq}`, 'default'),
});

/** One dispatcher over several pools, request by request in turn (the load generator takes one). */
function roundRobin(pools: Pool[]): Pool {
  let i = 0;
  return { request: (o: Parameters<Pool['request']>[0]) => pools[i++ % pools.length].request(o) } as unknown as Pool;
}

interface LoadFigures {
  result: LoadResult;
  otherCpuPercent: number;
  /** Per server process: CPU % of a core (whole process / main thread). */
  servers: { serverCpuPercent: number; serverMainThreadCpuPercent: number }[];
  /** % of a core: the broker JVM(s), this load generator, and the whole machine (200 = 2 cores busy). */
  brokerCpuPercent: number;
  loadGenCpuPercent: number;
  machineBusyPercent: number;
}

/** Pids of the running broker JVMs (the cluster's pid file: `<node id> <pid>` lines). */
function brokerPids(): number[] {
  if (!kafka) return [];
  try {
    return readFileSync(kafka.pidFile, 'utf8').split('\n').map((l) => Number(l.split(' ')[1])).filter((p) => p > 0);
  } catch {
    return [];
  }
}

/** The create load of bench/run.ts against `pools` (one per server, `connections` in total). */
async function createLoad(label: string, origins: string[], pids: number[], tls: ReturnType<typeof adminTls>): Promise<LoadFigures> {
  const per = origins.map((_, i) => Math.floor(cfg.connections / origins.length) + (i < cfg.connections % origins.length ? 1 : 0));
  const pools = origins.map((o, i) => makePool(o, tls, per[i]));
  try {
    log(`${label}: creates, ${cfg.connections} connections over ${origins.length} server(s), ${cfg.warmupS}+${cfg.durationS} s`);
    let snap = cpuSnapshot();
    let windows = pids.map((p) => cpuWindow(p));
    const brokers = brokerPids();
    let broker0 = brokers.reduce((a, p) => a + procCpuMs(p), 0);
    let t0 = performance.now();
    let own0 = process.cpuUsage();
    const result = await runLoad({
      pool: pools.length === 1 ? pools[0] : roundRobin(pools),
      connections: cfg.connections,
      warmupMs: cfg.warmupS * 1000,
      durationMs: cfg.durationS * 1000,
      expectStatus: 201,
      next: createSpec(`${label.replace(/\W+/g, '')}-${runId}`),
      onWindowStart: () => {
        snap = cpuSnapshot();
        windows = pids.map((p) => cpuWindow(p));
        broker0 = brokers.reduce((a, p) => a + procCpuMs(p), 0);
        t0 = performance.now();
        own0 = process.cpuUsage();
      },
    });
    const wallMs = performance.now() - t0;
    const end = cpuSnapshot();
    const own = process.cpuUsage(own0);
    const servers = windows.map((w) => w(result.ok)).map((c) => ({ serverCpuPercent: c.serverCpuPercent, serverMainThreadCpuPercent: c.serverMainThreadCpuPercent }));
    return {
      result,
      otherCpuPercent: otherCpuPercent(snap, end),
      servers,
      brokerCpuPercent: brokers.length ? round(((brokers.reduce((a, p) => a + procCpuMs(p), 0) - broker0) / wallMs) * 100, 0) : NaN,
      loadGenCpuPercent: round(((own.user + own.system) / 1000 / wallMs) * 100, 0),
      machineBusyPercent: round(((end.busyTicks - snap.busyTicks) * 10 / wallMs) * 100, 0),
    };
  } finally {
    await Promise.all(pools.map((p) => p.close().catch(() => undefined)));
  }
}

/** Run a tool (cmd/*.ts) to its end; stdout collected, stderr lines passed to `onErr`. */
function runTool(args: string[], onErr: (line: string) => void, timeoutMs = 10 * 60_000): Promise<{ code: number | null; stdout: string; ms: number }> {
  const t0 = performance.now();
  const p = spawnTracked(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  p.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  createInterface({ input: p.stderr! }).on('line', onErr);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${args[0]} did not finish in ${timeoutMs} ms`));
    }, timeoutMs);
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, ms: round(performance.now() - t0, 1) });
    });
  });
}

/**
 * Append creates to the topic until it ends at `events` offsets: clones (new name, uid, id, time)
 * of the newest ConfigMap create a replica logged, in produce requests of 500 (~0.8 MiB) with
 * acks=all and the idempotent producer, as KafkaLog appends.
 */
async function fillTopic(bootstrap: string, topic: string, events: number): Promise<{ produced: number; ms: number; end: number }> {
  const reader = await openReadableLog({ kind: 'kafka', brokers: bootstrap.split(','), topic });
  let template: LogEvent | null = null;
  let end: number;
  try {
    end = await reader.endOffset();
    for await (const e of reader.read(Math.max(0, end - 200), end)) {
      if (e.event.op === 'CREATE' && e.event.resource === 'configmaps' && e.event.object) template = e.event;
    }
  } finally {
    await reader.close();
  }
  if (!template) throw new Error(`no ConfigMap create among the last events of ${topic} to clone`);
  const need = events - end;
  if (need <= 0) return { produced: 0, ms: 0, end };
  const obj = JSON.parse(template.object!.toString('utf8'));
  obj.metadata.name = '@@NAME@@';
  obj.metadata.uid = '@@UID@@';
  const text = JSON.stringify(obj);
  const kafka = new Kafka({ clientId: 'bench-fill', brokers: bootstrap.split(','), logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const t0 = performance.now();
  try {
    for (let i = 0; i < need; ) {
      const messages: { value: Buffer }[] = [];
      for (const stop = Math.min(need, i + 500); i < stop; i++) {
        const name = `fill-${runId}-${i}`;
        const uid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
        const e: LogEvent = { ...template, id: `fill-${runId}-${i}`, name, uid, time: Date.now(), object: Buffer.from(text.replace('@@NAME@@', name).replace('@@UID@@', uid)) };
        messages.push({ value: encodeEvent(e) });
      }
      await producer.send({ topic, acks: -1, messages });
    }
  } finally {
    await producer.disconnect().catch(() => undefined);
  }
  return { produced: need, ms: round(performance.now() - t0, 1), end: events };
}

/** Start a new replica on an empty data dir; time spawn → /readyz 200; stop it. */
async function bootstrapOnce(flags: string[], pkiDir: string): Promise<{ readyzMs: number; log: ServerStartLog }> {
  const dataDir = mkdtempSync(join(tmpRoot, 'boot-'));
  const s = await spawnServerWithFlags({ dataDir, flags, onLine: noteLine });
  try {
    const r = await pollReadyz(s.port, pkiDir, s.spawnedAt, 180_000);
    return { readyzMs: r.ms, log: await s.ready };
  } finally {
    await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const tmpRoot = mkdtempSync(join(tmpdir(), 'apiserver-bench-kafka-'));
process.on('exit', () => {
  if (!args.keep) rmSync(tmpRoot, { recursive: true, force: true });
});
const started = performance.now();
const results: Record<string, unknown> = {};
const problems: string[] = [];
let kafka: KafkaCluster | null = null;
let embedded: ApiServer | null = null;
const replicas: FlaggedServer[] = [];

try {
  const machine = { ...machineFacts(), loadAvg1AtStart: loadAvg1() };
  log(`machine: ${machine.cpuCount} × ${machine.cpuModel}, node ${machine.node}, load ${machine.loadAvg1AtStart}; tmp ${tmpRoot}`);
  log(`config: ${JSON.stringify(cfg)}`);

  pin(process.pid, cfg.pinRest ?? undefined);
  // --- a. the embedded default.
  let embeddedLoad: LoadFigures | null = null;
  if (steps.has('a')) {
    const embDir = join(tmpRoot, 'embedded');
    mkdirSync(embDir);
    log('starting the embedded server (fsync on)');
    embedded = await spawnApiServer(embDir);
    await embedded.readyLog;
    pin(embedded.pid, cfg.pinReplicas ?? undefined);
    embeddedLoad = await createLoad('embedded', [embedded.origin], [embedded.pid], adminTls(embedded.pkiDir));
    results.embedded = embeddedLoad;
    await embedded.stop();
    embedded = null;
  }

  // --- b. one replica on a Kafka topic.
  log(`starting Kafka ${kafkaVersion()}: ${cfg.brokers} broker(s)`);
  const k0 = performance.now();
  kafka = await startKafka({ brokers: cfg.brokers as 1 | 3 });
  for (const p of brokerPids()) pin(p, cfg.pinRest ?? undefined);
  results.kafka = { version: kafkaVersion(), brokers: cfg.brokers, bootstrap: kafka.bootstrap, startMs: round(performance.now() - k0, 0) };
  const topic = `bench-${runId}`;
  const uri = `kafka://${kafka.bootstrap}/${topic}`;
  const pkiDir = join(tmpRoot, 'pki');
  await ensurePki(pkiDir, { hosts: ['127.0.0.1'] });
  const tls = adminTls(pkiDir);
  const rf = cfg.brokers === 3 ? ['--kafka-replication-factor', '3', '--kafka-min-insync-replicas', '2'] : [];
  const replicaFlags = ['--log', uri, '--pki-dir', pkiDir, ...rf];
  const startReplica = async (i: number): Promise<FlaggedServer> => {
    const s = await spawnServerWithFlags({ dataDir: join(tmpRoot, `replica-${i}`), flags: replicaFlags, onLine: noteLine });
    replicas.push(s);
    pin(s.pid, cfg.pinReplicas ?? undefined);
    return s;
  };
  log(`replica 1 on ${uri}`);
  const r1 = await startReplica(1);
  const r1Start = await r1.ready;
  const kafka1 = await createLoad('kafka-1-replica', [r1.origin], [r1.pid], tls);
  results.kafka1 = { ...kafka1, start: r1Start };

  // --- c. three replicas on the same topic (the new two fold what b wrote first).
  log('replicas 2 and 3');
  const more = await Promise.all([startReplica(2), startReplica(3)]);
  const moreStarts = await Promise.all(more.map((s) => s.ready));
  const all = [r1, ...more];
  const kafka3 = await createLoad('kafka-3-replicas', all.map((s) => s.origin), all.map((s) => s.pid), tls);
  results.kafka3 = { ...kafka3, starts: moreStarts };
  for (const s of replicas.splice(0)) await s.stop();

  // --- d. replay from offset 0.
  let replay: { fill: Awaited<ReturnType<typeof fillTopic>>; runs: { ms: number; toolSeconds: number; eventsPerSecond: number; events: number; objects: number }[]; eps: number } | null = null;
  if (steps.has('d') || steps.has('e')) {
    log(`filling ${topic} up to ${cfg.events} events`);
    const fill = await fillTopic(kafka.bootstrap, topic, cfg.events);
    results.fill = fill;
    log(`filled: ${fill.produced} events produced in ${fmt(fill.ms / 1000, 1)} s; the topic ends at offset ${fill.end - 1}`);
    const replays: { ms: number; toolSeconds: number; eventsPerSecond: number; events: number; objects: number }[] = [];
    for (let i = 0; i < (steps.has('d') ? cfg.replayRuns : 0); i++) {
      const out = join(tmpRoot, `replay-${i}`);
      log(`replay ${i + 1}/${cfg.replayRuns}: cmd/replay.ts rebuild --log ${uri}`);
      const r = await runTool(['cmd/replay.ts', 'rebuild', '--log', uri, '--out', out], (l) => log(`  replay: ${l}`));
      if (r.code !== 0) throw new Error(`replay exited with ${r.code}: ${r.stdout}`);
      const m = /\((\d+) events;[\s\S]*?(\d+) objects[\s\S]*?([\d.]+) s, (\d+) events\/s/.exec(r.stdout);
      if (!m) throw new Error(`cannot read the replay summary: ${r.stdout}`);
      replays.push({ ms: r.ms, toolSeconds: Number(m[3]), eventsPerSecond: Number(m[4]), events: Number(m[1]), objects: Number(m[2]) });
      rmSync(out, { recursive: true, force: true });
    }
    const replayEps = median(replays.map((r) => r.eventsPerSecond));
    if (steps.has('d')) results.replay = { runs: replays, medianEventsPerSecond: replayEps, medianToolWallMs: median(replays.map((r) => r.ms)) };
    replay = { fill, runs: replays, eps: replayEps };
  }

  // --- e. bootstrap from a checkpoint vs from offset 0.
  type Boot = { readyzMs: number; log: ServerStartLog };
  let boot: { mat: { ms: number }; checkpoint: { offset: number; keys: number; ms: number }; bootstrap: { fromCheckpoint: { readyzMs: number; catchUpMs: number; copyMs: number; startupMs: number }; fromZero: { readyzMs: number; catchUpMs: number; startupMs: number } } } | null = null;
  if (steps.has('e')) {
    const cpDir = join(tmpRoot, 'checkpoints');
    log('cmd/materializer.ts --once: fold the topic and publish a checkpoint');
    const mat = await runTool(['cmd/materializer.ts', '--log', uri, '--data-dir', join(tmpRoot, 'materializer'), '--checkpoint-dir', cpDir, '--once'], (l) => noteLine(l, /^\{/.test(l) ? (JSON.parse(l).level ?? 30) : 40));
    if (mat.code !== 0) throw new Error(`materializer exited with ${mat.code}: ${serverLog.samples.slice(-3).join('\n')}`);
    const checkpoint = JSON.parse(mat.stdout.trim().split('\n').pop()!).checkpoint as { offset: number; keys: number; ms: number };
    results.materializer = { wallMs: mat.ms, checkpoint };
    const boots: { fromCheckpoint: { readyzMs: number; log: ServerStartLog }[]; fromZero: { readyzMs: number; log: ServerStartLog }[] } = { fromCheckpoint: [], fromZero: [] };
    for (let i = 0; i < cfg.bootstrapRuns; i++) {
      log(`bootstrap ${i + 1}/${cfg.bootstrapRuns}: from the checkpoint at offset ${checkpoint.offset}, then from offset 0`);
      boots.fromCheckpoint.push(await bootstrapOnce([...replicaFlags, '--checkpoint-dir', cpDir], pkiDir));
      boots.fromZero.push(await bootstrapOnce(replicaFlags, pkiDir));
    }
    const med = (xs: Boot[], f: (x: Boot) => number | null) => round(median(xs.map((x) => f(x) ?? NaN)), 1);
    const bootstrap = {
      runs: boots,
      fromCheckpoint: { readyzMs: med(boots.fromCheckpoint, (x) => x.readyzMs), catchUpMs: med(boots.fromCheckpoint, (x) => x.log.catchUpMs), copyMs: med(boots.fromCheckpoint, (x) => x.log.checkpoint?.ms ?? null), startupMs: med(boots.fromCheckpoint, (x) => x.log.startupMs) },
      fromZero: { readyzMs: med(boots.fromZero, (x) => x.readyzMs), catchUpMs: med(boots.fromZero, (x) => x.log.catchUpMs), startupMs: med(boots.fromZero, (x) => x.log.startupMs) },
    };
    results.bootstrap = bootstrap;
    boot = { mat, checkpoint, bootstrap };
  }

  // --- ratios and report.
  const e = embeddedLoad?.result ?? null;
  const k1 = kafka1.result;
  const k3 = kafka3.result;
  const ratios = {
    kafka1OverEmbedded: e ? round(k1.okPerSec / e.okPerSec, 3) : NaN,
    kafka3LossVsKafka1: round(1 - k3.okPerSec / k1.okPerSec, 3),
    bootstrapSpeedupReadyz: boot ? round(boot.bootstrap.fromZero.readyzMs / boot.bootstrap.fromCheckpoint.readyzMs, 2) : NaN,
    bootstrapSpeedupCatchUp: boot ? round(boot.bootstrap.fromZero.catchUpMs / Math.max(1, boot.bootstrap.fromCheckpoint.catchUpMs), 1) : NaN,
  };
  results.ratios = ratios;
  const replayEps = replay?.eps ?? NaN;
  const goals = [
    { name: 'Kafka 1 replica ÷ embedded creates/s', value: ratios.kafka1OverEmbedded, goal: `≥ ${GOALS.kafka1OverEmbedded}`, met: ratios.kafka1OverEmbedded >= GOALS.kafka1OverEmbedded },
    { name: '3 replicas: loss vs 1 replica', value: ratios.kafka3LossVsKafka1, goal: `≤ ${GOALS.kafka3Loss}`, met: ratios.kafka3LossVsKafka1 <= GOALS.kafka3Loss },
    { name: 'replay from offset 0 (events/s)', value: replayEps, goal: `≥ ${GOALS.replayEventsPerSec}`, met: replayEps >= GOALS.replayEventsPerSec },
    { name: 'bootstrap: from 0 ÷ from checkpoint (readyz)', value: ratios.bootstrapSpeedupReadyz, goal: `≥ ${GOALS.bootstrapSpeedup}`, met: ratios.bootstrapSpeedupReadyz >= GOALS.bootstrapSpeedup },
  ].filter((g) => !Number.isNaN(g.value));
  results.goals = goals;

  for (const [label, f] of [['embedded', embeddedLoad], ['Kafka 1 replica', kafka1], ['Kafka 3 replicas', kafka3]] as const) {
    if (!f) continue;
    const bad = Object.entries(f.result.statuses).filter(([s]) => s !== '201');
    if (bad.length) problems.push(`${label}: non-201 answers ${JSON.stringify(Object.fromEntries(bad))}; e.g. ${f.result.badSamples.join(' | ')}`);
    if (f.result.errors) problems.push(`${label}: ${f.result.errors} transport errors; e.g. ${f.result.errorSamples.join(' | ')}`);
    if (f.result.maxGapMs > 500) problems.push(`${label}: a ${f.result.maxGapMs} ms gap with no completed request (stall)`);
    if (f.otherCpuPercent >= 15) problems.push(`not a quiet machine: other processes used ${f.otherCpuPercent}% of a core during ${label} — rerun on an idle machine`);
  }
  results.transientKafkaErrors = transientKafkaErrors;
  if (serverLog.error || serverLog.warn) problems.push(`server log: ${serverLog.error} error and ${serverLog.warn} warn lines; e.g.\n      ${serverLog.samples.join('\n      ')}`);

  const totalS = round((performance.now() - started) / 1000, 1);
  const report = { kind: 'kafka-bench', timestamp: new Date().toISOString(), machine, config: cfg, results, problems, totalSeconds: totalS };
  const ms = (v: number) => `${fmt(v, 1)} ms`;
  const lat = (l: LatencySummary) => `p50 ${ms(l.p50).padStart(9)}  p99 ${ms(l.p99).padStart(9)}`;
  const cpu = (f: LoadFigures) =>
    `server ${f.servers.map((s) => `${s.serverCpuPercent}% (main ${s.serverMainThreadCpuPercent}%)`).join(' + ')}; ${Number.isNaN(f.brokerCpuPercent) ? '' : `broker ${f.brokerCpuPercent}%; `}load gen ${f.loadGenCpuPercent}%; machine ${f.machineBusyPercent}%`;
  const L: string[] = [''];
  L.push('=== Kafka benchmark (issue 4) ===');
  L.push(`machine   ${machine.cpuCount} CPU × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}`);
  L.push(`kafka     ${kafkaVersion()} KRaft, ${cfg.brokers} broker${cfg.brokers > 1 ? 's (RF 3, min ISR 2)' : ' (RF 1)'} on this machine; topic ${topic}`);
  L.push(`load      ${cfg.connections} TLS connections, 1 KiB ConfigMap creates, warm-up ${cfg.warmupS} s, window ${cfg.durationS} s${quick ? '  [--quick]' : ''}`);
  L.push(`noise     CPU of processes outside the bench during the windows (% of a core): ${embeddedLoad ? `embedded ${embeddedLoad.otherCpuPercent}%, ` : ''}kafka-1 ${kafka1.otherCpuPercent}%, kafka-3 ${kafka3.otherCpuPercent}%`);
  if (cfg.pinReplicas || cfg.pinRest) L.push(`pinned    replicas${embeddedLoad ? ' and the embedded server' : ''} on CPUs ${cfg.pinReplicas ?? 'any'}; broker(s) and load generator on CPUs ${cfg.pinRest ?? 'any'} (taskset)`);
  L.push('');
  L.push('                          creates/s      create latency            CPU, % of one core (the machine has ' + machine.cpuCount + ')');
  if (e && embeddedLoad) L.push(`  embedded (fsync)     ${fmt(e.okPerSec).padStart(10)}   ${lat(e.latencyMs)}   ${cpu(embeddedLoad)}`);
  L.push(`  Kafka, 1 replica     ${fmt(k1.okPerSec).padStart(10)}   ${lat(k1.latencyMs)}   ${cpu(kafka1)}`);
  L.push(`  Kafka, 3 replicas    ${fmt(k3.okPerSec).padStart(10)}   ${lat(k3.latencyMs)}   ${cpu(kafka3)}`);
  const cpuPerCreate = (f: LoadFigures) => round((f.servers.reduce((a, x) => a + x.serverCpuPercent, 0) * 10) / f.result.okPerSec, 3);
  L.push(`  replica CPU per create: 1 replica ${cpuPerCreate(kafka1)} ms, 3 replicas ${cpuPerCreate(kafka3)} ms (all replicas together)`);
  L.push(`  (replicas 2 and 3 caught up with ${moreStarts.map((s) => `${s.caughtUpAt} in ${s.catchUpMs} ms`).join(' and ')}; replica 1 started in ${r1Start.readyLogMs} ms)`);
  L.push('');
  if (replay) {
    const fill = replay.fill;
    const replays = replay.runs;
    L.push(`  fill                 ${fill.produced} events produced in ${fmt(fill.ms / 1000, 1)} s (${fmt(fill.produced / Math.max(0.001, fill.ms / 1000), 0)}/s); topic offsets 0..${fill.end - 1}`);
    if (replays.length) L.push(`  replay from 0        median ${fmt(replayEps, 0)} events/s  (runs: ${replays.map((r) => `${fmt(r.eventsPerSecond, 0)}/s in ${r.toolSeconds} s, tool wall ${fmt(r.ms / 1000, 2)} s`).join('; ')}; ${replays[0]?.objects} objects)`);
  }
  if (boot) {
    const { mat, checkpoint, bootstrap } = boot;
    L.push(`  checkpoint           materializer --once ${fmt(mat.ms / 1000, 2)} s wall; checkpoint at offset ${checkpoint.offset}, ${checkpoint.keys} keys, written in ${checkpoint.ms} ms`);
    L.push(`  bootstrap            from checkpoint: spawn → /readyz ${ms(bootstrap.fromCheckpoint.readyzMs)} (copy ${ms(bootstrap.fromCheckpoint.copyMs)}, catch-up ${ms(bootstrap.fromCheckpoint.catchUpMs)}, startServer ${ms(bootstrap.fromCheckpoint.startupMs)})`);
    L.push(`                       from offset 0:   spawn → /readyz ${ms(bootstrap.fromZero.readyzMs)} (catch-up ${ms(bootstrap.fromZero.catchUpMs)}, startServer ${ms(bootstrap.fromZero.startupMs)})`);
    L.push(`                       catch-up alone: ${ratios.bootstrapSpeedupCatchUp}x faster from the checkpoint`);
  }
  L.push('');
  L.push('Ratios and goals');
  for (const g of goals) L.push(`  ${g.met ? 'MET ' : 'MISS'}  ${g.name.padEnd(46)} ${String(g.value).padStart(9)}   goal ${g.goal}`);
  L.push('');
  if (transientKafkaErrors) L.push(`(${transientKafkaErrors} transient kafkajs "coordinator loading / not available" errors at start-up, retried by kafkajs)`);
  L.push(problems.length ? 'Problems seen' : 'Problems seen: none');
  for (const p of problems) L.push(`  - ${p}`);
  L.push('');
  const file = writeResult('kafka', report);
  L.push(`total ${totalS} s; JSON: ${file}`);
  process.stdout.write(L.join('\n') + '\n');
} catch (err) {
  reportBenchFailure(err);
} finally {
  for (const s of replicas) await s.stop().catch(() => undefined);
  if (embedded) await embedded.stop().catch(() => undefined);
  if (kafka) await kafka.stop().catch(() => undefined);
  endBench(tmpRoot, args.keep);
}
