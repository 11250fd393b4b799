/**
 * Pod-with-volumes create benchmark (`npm run bench:pods`, issue 10): how many Pods with five
 * volumes the API server creates per second next to how many 1 KiB ConfigMaps, on the same
 * connections in the same run, so that the ratio says what Pod defaulting, validation and
 * ServiceAccount admission cost (goal: validation is not the bottleneck).
 *
 *   node --import tsx bench/pod-volumes.ts [--rounds N] [--duration S] [--warmup S] [--connections N]
 *        [--goal-ratio R] [--ceiling-seconds S] [--ceiling-runs N] [--no-ceiling] [--quick] [--keep]
 *
 * The server runs as a child process over TLS on a fresh data dir (fsync on), as in bench/run.ts.
 * In namespace bench-pods (with its `default` ServiceAccount), --rounds (5) rounds each run two
 * closed-loop windows of --duration s (5) after --warmup s (1) on one pool of --connections (64)
 * keep-alive HTTP/1.1 connections with the admin client certificate: POST of a 1 KiB ConfigMap
 * (bench/util.ts configMapBody, the figure of bench/run.ts), and POST of a Pod whose one container
 * mounts five volumes — configMap (with items), secret (defaultMode), projected with a
 * serviceAccountToken (and a configMap source), emptyDir (sizeLimit) and downwardAPI (fieldRef and
 * resourceFieldRef) — which the server defaults, validates and admits (the ServiceAccount admission
 * adds the kube-api-access volume and mounts). The two windows alternate their order each round
 * (ABBA), so drift on a shared machine hits both. Reported: the median over rounds of creates/s,
 * latency p50/p99 and server CPU per create for each, the ratio Pod ÷ ConfigMap (against
 * --goal-ratio, default 0.8) and the ratio of their server CPU per create (steadier on a busy machine), the bare HTTPS ceiling of bench/run.ts taken in the same run, and a
 * check that a created Pod came back admitted (its volume count). JSON:
 * bench/results/pod-volumes-<timestamp>.json. With APISERVER_CPU_PROF=<dir> the server writes a V8
 * CPU profile of the whole run into <dir> (where a Pod create's CPU goes).
 *
 * --quick: 3 rounds of 2 s after 0.5 s, one 3 s ceiling run — a smoke test.
 */
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { makePool, runLoad, type LoadResult } from './load.ts';
import { serverLog, reportBenchFailure } from './server.ts';
import {
  benchSession, endBench, adminTls, apiJson, configMapBody, cpuSnapshot, cpuWindow, fmt, installWatchdog, measureHttpsCeiling,
  median, otherCpuPercent, round, sleep, spawnServerWithFlags, writeResult, type FlaggedServer, type HttpsCeiling,
} from './util.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '64' },
    'goal-ratio': { type: 'string', default: '0.8' },
    'ceiling-seconds': { type: 'string' },
    'ceiling-runs': { type: 'string' },
    'no-ceiling': { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const quick = args.quick!;
const cfg = {
  quick,
  rounds: Number(args.rounds ?? (quick ? 3 : 5)),
  durationS: Number(args.duration ?? (quick ? 2 : 5)),
  warmupS: Number(args.warmup ?? (quick ? 0.5 : 1)),
  connections: Number(args.connections),
  goalRatio: Number(args['goal-ratio']),
  ceiling: !args['no-ceiling'],
  ceilingSeconds: Number(args['ceiling-seconds'] ?? (quick ? 3 : 5)),
  ceilingRuns: Number(args['ceiling-runs'] ?? (quick ? 1 : 2)),
};
for (const [k, v] of Object.entries(cfg)) if (typeof v === 'number' && !(v > 0)) throw new Error(`bad --${k}: ${v}`);

const NS = 'bench-pods';

/** The benchmark's Pod: one container mounting the five volumes. */
function podBody(name: string, namespace: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app: 'bench', tier: 'pods' } },
    spec: {
      // Named (as most workloads do): the serviceAccountToken projection requires it, and the
      // ServiceAccount admission checks that it exists.
      serviceAccountName: 'default',
      containers: [{
        name: 'app',
        image: 'registry.example.com/app:1.2.3',
        command: ['/app', '--config=/etc/config/app.yaml'],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
        volumeMounts: [
          { name: 'config', mountPath: '/etc/config' },
          { name: 'creds', mountPath: '/etc/creds', readOnly: true },
          { name: 'token', mountPath: '/var/run/secrets/tokens' },
          { name: 'scratch', mountPath: '/scratch' },
          { name: 'podinfo', mountPath: '/etc/podinfo' },
        ],
      }],
      volumes: [
        { name: 'config', configMap: { name: 'app-config', items: [{ key: 'app.yaml', path: 'app.yaml', mode: 0o644 }] } },
        { name: 'creds', secret: { secretName: 'app-creds', defaultMode: 0o400 } },
        {
          name: 'token',
          projected: {
            sources: [
              { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'vault-token' } },
              { configMap: { name: 'ca-bundle', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
        { name: 'scratch', emptyDir: { sizeLimit: '256Mi' } },
        {
          name: 'podinfo',
          downwardAPI: {
            items: [
              { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
              { path: 'cpu_limit', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' } },
            ],
          },
        },
      ],
    },
  });
}

interface Window {
  kind: 'ConfigMap' | 'Pod';
  round: number;
  load: LoadResult;
  serverCpuMsPerCreate: number;
  serverMainThreadCpuPercent: number;
  otherCpuPercent: number;
}

installWatchdog(30 * 60_000);
const { log, tmpRoot, machine } = benchSession('pods', args.keep!, cfg);
const started = performance.now();
const problems: string[] = [];
let server: FlaggedServer | null = null;
try {
  const ceiling: HttpsCeiling | null = cfg.ceiling
    ? await measureHttpsCeiling({ tmpDir: tmpRoot, connections: cfg.connections, warmupS: cfg.warmupS, durationS: cfg.ceilingSeconds, runs: cfg.ceilingRuns, log })
    : null;

  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir);
  log(`starting API server on ${dataDir} (fsync on)`);
  // spawnServerWithFlags: with APISERVER_CPU_PROF=<dir> the server writes a V8 CPU profile there.
  server = await spawnServerWithFlags({ dataDir, flags: [], onLine: (line, level) => serverLog.note(line, level, '') });
  await server.ready;
  const tls = adminTls(join(dataDir, 'pki'));
  const setup = new Client(server.origin, { connect: tls });
  const ns = await apiJson(setup, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  if (ns.status !== 201) throw new Error(`creating namespace ${NS}: ${ns.status} ${ns.text.slice(0, 300)}`);
  // The server creates the namespace's default ServiceAccount; kube rejects Pods until it exists.
  let sa = 0;
  for (let i = 0; i < 50 && sa !== 200; i++) {
    sa = (await apiJson(setup, 'GET', `/api/v1/namespaces/${NS}/serviceaccounts/default`)).status;
    if (sa !== 200) await sleep(100);
  }
  // Without it (no ServiceAccount kind or controller yet) Pods are measured without the admission: said in the problems.
  if (sa !== 200) problems.push(`ServiceAccount ${NS}/default not there after 5 s (GET answered ${sa}): the server must create it, as kube's controller-manager does`);
  // One Pod first: a server without Pods (or with a validation bug) fails here, not in a window.
  const probe = await apiJson(setup, 'POST', `/api/v1/namespaces/${NS}/pods`, podBody('probe', NS));
  if (probe.status !== 201) throw new Error(`creating the benchmark's Pod: ${probe.status} ${probe.text.slice(0, 600)}`);
  const admitted = {
    volumes: (probe.json.spec.volumes as { name: string }[]).map((v) => v.name),
    mounts: (probe.json.spec.containers[0].volumeMounts as { name: string }[]).map((m) => m.name),
    serviceAccountName: probe.json.spec.serviceAccountName as string,
    bytesStored: Buffer.byteLength(JSON.stringify(probe.json)),
  };
  if (admitted.volumes.length !== 6 || !admitted.volumes.some((v) => v.startsWith('kube-api-access-'))) problems.push(`the Pod came back with volumes ${admitted.volumes.join(',')}: no ServiceAccount admission (kube-api-access-*)?`);
  await setup.close();

  const pool = makePool(server.origin, tls, cfg.connections);
  const windows: Window[] = [];
  const runWindow = async (kind: Window['kind'], round: number): Promise<Window> => {
    const prefix = `${kind === 'Pod' ? 'po' : 'cm'}-${round}`;
    let snap = cpuSnapshot();
    let cw = cpuWindow(server!.pid);
    const load = await runLoad({
      pool,
      connections: cfg.connections,
      warmupMs: cfg.warmupS * 1000,
      durationMs: cfg.durationS * 1000,
      expectStatus: 201,
      next: (w, seq) => (kind === 'Pod'
        ? { method: 'POST', path: `/api/v1/namespaces/${NS}/pods`, body: podBody(`${prefix}-${w}-${seq}`, NS) }
        : { method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: configMapBody(`${prefix}-${w}-${seq}`, NS) }),
      onWindowStart: () => {
        snap = cpuSnapshot();
        cw = cpuWindow(server!.pid);
      },
    });
    const cpu = cw(load.ok);
    const w: Window = { kind, round, load, serverCpuMsPerCreate: cpu.serverCpuMsPerRequest, serverMainThreadCpuPercent: cpu.serverMainThreadCpuPercent, otherCpuPercent: otherCpuPercent(snap, cpuSnapshot()) };
    log(`  round ${round} ${kind.padEnd(9)} ${fmt(load.okPerSec, 0).padStart(6)} creates/s  p50 ${fmt(load.latencyMs.p50)} ms p99 ${fmt(load.latencyMs.p99)} ms  server ${fmt(w.serverCpuMsPerCreate, 3)} CPU ms/create, main thread ${w.serverMainThreadCpuPercent}%  (other CPU ${w.otherCpuPercent}%)`);
    const bad = Object.entries(load.statuses).filter(([s]) => s !== '201');
    if (bad.length || load.errors) problems.push(`round ${round} ${kind}: statuses ${JSON.stringify(load.statuses)}, ${load.errors} transport errors; e.g. ${[...load.badSamples, ...load.errorSamples].slice(0, 2).join(' | ')}`);
    return w;
  };
  log(`${cfg.rounds} rounds of ConfigMap and Pod creates, ${cfg.connections} connections, ${cfg.warmupS}+${cfg.durationS} s each`);
  for (let r = 1; r <= cfg.rounds; r++) {
    const order: Window['kind'][] = r % 2 ? ['ConfigMap', 'Pod'] : ['Pod', 'ConfigMap'];
    for (const kind of order) windows.push(await runWindow(kind, r));
  }
  await pool.close().catch(() => undefined);

  const of = (kind: Window['kind']) => windows.filter((w) => w.kind === kind);
  const summary = (kind: Window['kind']) => {
    const ws = of(kind);
    return {
      createsPerSec: round(median(ws.map((w) => w.load.okPerSec)), 1),
      p50Ms: round(median(ws.map((w) => w.load.latencyMs.p50)), 2),
      p99Ms: round(median(ws.map((w) => w.load.latencyMs.p99)), 2),
      serverCpuMsPerCreate: round(median(ws.map((w) => w.serverCpuMsPerCreate)), 3),
      serverMainThreadCpuPercent: round(median(ws.map((w) => w.serverMainThreadCpuPercent)), 0),
      roundsCreatesPerSec: ws.map((w) => w.load.okPerSec),
    };
  };
  const cm = summary('ConfigMap');
  const pod = summary('Pod');
  const ratio = round(pod.createsPerSec / cm.createsPerSec, 3);
  // Server CPU per create is steadier than creates/s when other work shares the machine.
  const cpuRatio = round(pod.serverCpuMsPerCreate / cm.serverCpuMsPerCreate, 2);
  const goals = [
    { name: 'Pod (5 volumes) creates/s ÷ 1 KiB ConfigMap creates/s, medians of rounds', value: ratio, goal: `≥ ${cfg.goalRatio}`, met: ratio >= cfg.goalRatio },
  ];
  if (serverLog.error || serverLog.warn) problems.push(`server log: ${serverLog.error} error and ${serverLog.warn} warn lines; e.g.\n      ${serverLog.samples.join('\n      ')}`);
  for (const e of serverLog.unexpectedExits) problems.push(`server exited unexpectedly: ${e}`);

  const totalS = round((performance.now() - started) / 1000, 1);
  const report = { kind: 'pod-volumes-bench', timestamp: new Date().toISOString(), machine, config: cfg, httpsCeiling: ceiling, admittedPod: admitted, configMap: cm, pod, ratio, serverCpuPerCreateRatio: cpuRatio, goals, windows, problems, totalSeconds: totalS };
  const file = writeResult('pod-volumes', report);

  const L: string[] = ['', '=== Pod with 5 volumes vs ConfigMap creates (issue 10) ==='];
  L.push(`machine   ${machine.cpuCount} CPU × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}`);
  L.push(`config    ${cfg.rounds} rounds × (${cfg.warmupS}+${cfg.durationS} s ConfigMap, ${cfg.warmupS}+${cfg.durationS} s Pod), ${cfg.connections} connections, one pool; fsync on`);
  if (ceiling) L.push(`ceiling   bare node:https JSON echo ${fmt(ceiling.best.okPerSec, 0)} req/s (best of ${ceiling.attemptsReqPerSec.map((v) => fmt(v, 0)).join(' / ')}; other CPU ${ceiling.otherCpuPercent}%)`);
  L.push(`admitted  the Pod came back with ${admitted.volumes.length} volumes (${admitted.volumes.join(', ')}), serviceAccountName ${admitted.serviceAccountName}, ${admitted.bytesStored} B of JSON`);
  L.push('');
  for (const [name, s] of [['ConfigMap 1 KiB', cm], ['Pod, 5 volumes', pod]] as const) {
    L.push(`${name.padEnd(16)} ${fmt(s.createsPerSec, 0).padStart(6)} creates/s (rounds ${s.roundsCreatesPerSec.map((v) => fmt(v, 0)).join(' / ')})  p50 ${fmt(s.p50Ms)} ms  p99 ${fmt(s.p99Ms)} ms  server ${fmt(s.serverCpuMsPerCreate, 3)} CPU ms/create, main thread ${s.serverMainThreadCpuPercent}%`);
  }
  L.push('');
  L.push(`cpu       a Pod create costs the server ${fmt(cpuRatio, 2)} × a ConfigMap create's CPU (${fmt(pod.serverCpuMsPerCreate, 3)} vs ${fmt(cm.serverCpuMsPerCreate, 3)} ms)`);
  L.push(`ratio     Pod ÷ ConfigMap = ${fmt(ratio, 3)}${ceiling ? `; ConfigMap ÷ ceiling = ${fmt(cm.createsPerSec / ceiling.best.okPerSec, 3)}, Pod ÷ ceiling = ${fmt(pod.createsPerSec / ceiling.best.okPerSec, 3)}` : ''}`);
  for (const g of goals) L.push(`${g.met ? 'MET ' : 'MISS'}  ${g.name}: ${g.value}   goal ${g.goal}`);
  L.push(problems.length ? 'Problems seen' : 'Problems seen: none');
  for (const p of problems) L.push(`  - ${p}`);
  L.push('', `total ${totalS} s; JSON: ${file}`);
  process.stdout.write(L.join('\n') + '\n');
  if (problems.length) process.exitCode = 1;
} catch (e) {
  reportBenchFailure(e);
} finally {
  if (server) await server.stop('SIGTERM').catch(() => undefined);
  endBench(tmpRoot, args.keep!);
}
