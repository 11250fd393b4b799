/**
 * kwok nodes and Pods through the real control plane, this server against kube-apiserver 1.24.17 +
 * etcd, side by side in one run (`npm run bench:kwok`, issue 27's bench figure).
 *
 *   node --import tsx bench/kwok.ts [--nodes 100] [--pods 1000] [--per-deployment 100]
 *        [--order this,kube] [--port 16574] [--ref-port 16573] [--timeout S]
 *        [--reference-dir ../shared/reference] [--keep]
 *
 * Per server, on a fresh data dir: the server (this one as `npm start` runs it, its in-process
 * controllers that kube-controller-manager also runs switched off as test/control-plane.test.ts
 * does; the reference through ../shared/reference/start.sh, etcd fsync on), then
 * kube-controller-manager and kube-scheduler v1.24.17 and kwok v0.4.0 (test/control-plane-bin.ts
 * builds them) against it, each without client rate limits (`--kube-api-qps 5000 --kube-api-burst
 * 10000`, what kwokctl's --disable-qps-limits passes; kwok has none), so the API server is what
 * the figure measures. Then, timed from the first Node create:
 *   1. --nodes Nodes created (32 in flight), kwok (--manage-all-nodes) makes them Ready and KCM's
 *      node lifecycle controller lifts TaintNodesByCondition's not-ready taint: "nodes Ready". kwok
 *      renews a Lease per Node (40 s, renewed every 10 s, as kubelet does): without leases its Node
 *      status heartbeats fell behind at 1,000 Nodes on the loaded machine, the node lifecycle
 *      controller marked Nodes NotReady and their Pods unready, and the Pods never all got Ready;
 *      with leases too (renewals late by over 40 s on this server at 1,000 Nodes / 10,000 Pods,
 *      the machine at load 7), so KCM runs with --node-monitor-grace-period=5m: the figure is the
 *      Pods' throughput, and a late heartbeat is not a lost Node here;
 *   2. --pods Pods as Deployments of --per-deployment replicas each (created 8 in flight): KCM's
 *      deployment and replicaset controllers create the Pods, the default scheduler profile binds
 *      them, kwok makes them Running and Ready: "Pods Ready" when the Deployments' readyReplicas
 *      sum to --pods (polled every second), then one list of the Pods checks every one is bound
 *      to a node and Ready.
 * Reported: wall time of each phase; the API server's CPU seconds over the timed part and since
 * its launch, and its max RSS (VmHWM) — for the reference kube-apiserver + etcd summed —, the
 * same for KCM, the scheduler and kwok for context; the load average at each start (the machine
 * is shared). Prints a table and writes bench/results/kwok-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'undici';
import { reference, ensureServerBuilt } from './reference.ts';
import { tlsFromKubeconfig } from './loadgen-client.ts';
import { spawnApiServer, serverLog, reportBenchFailure } from './server.ts';
import { apiJson, benchSession, endBench, fmt, installWatchdog, loadAvg1, procCpuMs, readRss, round, sleep, spawnTracked, stopChild, writeResult } from './util.ts';
import { controlPlaneBinaries, HANDED_OVER, KUBE_VERSION, KWOK_VERSION } from '../test/control-plane-bin.ts';

const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string' },
    pods: { type: 'string' },
    'per-deployment': { type: 'string' },
    order: { type: 'string' },
    port: { type: 'string' },
    'ref-port': { type: 'string' },
    timeout: { type: 'string' },
    'reference-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = {
  nodes: Number(args.nodes ?? 100),
  pods: Number(args.pods ?? 1000),
  perDeployment: Number(args['per-deployment'] ?? 100),
  order: (args.order ?? 'this,kube').split(',') as ('this' | 'kube')[],
  port: Number(args.port ?? 16574),
  refPort: Number(args['ref-port'] ?? 16573),
  /** Per server, for both phases. */
  timeoutS: Number(args.timeout ?? 900),
};
for (const [k, v] of Object.entries(cfg)) if (typeof v === 'number' && !(v > 0)) throw new Error(`bad --${k}: ${v}`);
if (!cfg.order.length || cfg.order.some((o) => o !== 'this' && o !== 'kube')) throw new Error(`bad --order: ${args.order}`);
const ref = reference(args['reference-dir']);

installWatchdog((cfg.timeoutS * cfg.order.length + 600) * 1000);
const { log, tmpRoot, machine } = benchSession('kwok', args.keep!, cfg);

const NAMESPACE = 'bench-kwok';
const QPS = ['--kube-api-qps=5000', '--kube-api-burst=10000'];

interface Server {
  dataDir: string;
  kubeconfig: string;
  /** The API server's processes (kube-apiserver and etcd for the reference). */
  pids: { pid: number; name: string }[];
  stop(): Promise<void>;
}

async function launchThis(dataDir: string): Promise<Server> {
  const s = await spawnApiServer(dataDir, cfg.port, [`--controllers=*,${HANDED_OVER.map((c) => `-${c}`).join(',')}`]);
  await s.readyLog;
  return { dataDir, kubeconfig: join(dataDir, 'kubeconfig'), pids: [{ pid: s.pid, name: 'apiserver' }], stop: () => s.stop('SIGTERM') };
}

async function launchKube(dataDir: string): Promise<Server> {
  mkdirSync(dataDir, { recursive: true });
  const r = await ref.start(dataDir, cfg.refPort);
  if (r.code !== 0) throw new Error(`reference start.sh failed: ${r.out}`);
  log(`  ${r.out.split('\n')[0]}`);
  const pids = readFileSync(join(dataDir, 'pids'), 'utf8').trim().split('\n').map((l) => ({ pid: Number(l.split(' ')[0]), name: l.split(' ')[1]! }));
  return { dataDir, kubeconfig: join(dataDir, 'kubeconfig'), pids, stop: () => ref.stop(dataDir) };
}

interface Component {
  name: string;
  pid: number;
  stop(): Promise<unknown>;
}

/** kube-controller-manager, kube-scheduler and kwok against the server, logs in dataDir/logs. */
async function startControlPlane(s: Server): Promise<Component[]> {
  const bins = await controlPlaneBinaries();
  const logs = join(s.dataDir, 'logs');
  mkdirSync(logs, { recursive: true });
  const pki = join(s.dataDir, 'pki');
  const sched = join(s.dataDir, 'scheduler.yaml');
  writeFileSync(
    sched,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1beta3',
      'kind: KubeSchedulerConfiguration',
      'leaderElection: {leaderElect: false}',
      `clientConnection: {kubeconfig: ${JSON.stringify(s.kubeconfig)}, qps: 5000, burst: 10000}`,
      '',
    ].join('\n'),
  );
  const one = (name: string, file: string, argv: string[]): Component => {
    const out = createWriteStream(join(logs, `${name}.log`));
    const proc = spawnTracked(file, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.pipe(out);
    proc.stderr!.pipe(out);
    return { name, pid: proc.pid!, stop: () => stopChild(proc, 'SIGTERM', 5_000) };
  };
  return [
    one('kube-controller-manager', bins.kubeControllerManager, [
      `--kubeconfig=${s.kubeconfig}`,
      '--leader-elect=false',
      '--secure-port=0',
      '--controllers=*',
      '--node-monitor-period=1s',
      // A Lease renewed late under load does not mark its Node NotReady (and its Pods unready).
      '--node-monitor-grace-period=5m',
      `--service-account-private-key-file=${join(pki, 'sa.key')}`,
      `--root-ca-file=${join(pki, 'ca.crt')}`,
      ...QPS,
      '--v=1',
    ]),
    one('kube-scheduler', bins.kubeScheduler, [`--config=${sched}`, '--secure-port=0', '--v=1']),
    one('kwok', bins.kwok, [`--kubeconfig=${s.kubeconfig}`, '--manage-all-nodes=true', '--node-lease-duration-seconds=40', '--server-address=']),
  ];
}

const node = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' }, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/role': 'agent', type: 'kwok' } },
  status: { allocatable: { cpu: '32', memory: '256Gi', pods: '110' }, capacity: { cpu: '32', memory: '256Gi', pods: '110' } },
});

const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NAMESPACE },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
      },
    },
  },
});

/** `n` creates with `inFlight` requests at a time; each must answer 201. */
async function createAll(c: Client, n: number, inFlight: number, one: (i: number) => [string, unknown]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const [path, body] = one(next++);
      const r = await apiJson(c, 'POST', path, body);
      if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, worker));
}

async function until(what: string, deadline: number, check: () => Promise<string | true>): Promise<void> {
  let last = '';
  let logged = 0;
  for (;;) {
    const r = await check();
    if (r === true) return;
    last = r;
    if (Date.now() > deadline) throw new Error(`${what}: not done within the timeout (${last})`);
    if (Date.now() - logged > 15_000) {
      log(`  … ${what}: ${last}`);
      logged = Date.now();
    }
    await sleep(1000);
  }
}

interface Usage {
  cpuSeconds: number;
  maxRssMiB: number;
}
const usage = (pids: number[], cpu0: number[] = pids.map(() => 0)): Usage => ({
  cpuSeconds: round(pids.reduce((a, p, i) => a + procCpuMs(p) - cpu0[i]!, 0) / 1000, 1),
  maxRssMiB: round(pids.reduce((a, p) => a + readRss(p).hwmMiB, 0), 0),
});

interface Run {
  target: 'this' | 'kube';
  loadAvg1AtStart: number;
  nodesReadySeconds: number;
  podsReadySeconds: number;
  totalSeconds: number;
  apiServer: { timed: Usage; sinceLaunch: Usage; perProcess: { name: string; cpuSeconds: number; maxRssMiB: number }[] };
  components: Record<string, Usage>;
  check: { pods: number; ready: number; bound: number; nodesUsed: number; maxPodsPerNode: number };
}

async function runOne(target: 'this' | 'kube'): Promise<Run> {
  log(`${target === 'this' ? 'this server' : 'kube-apiserver + etcd'}: launching (load avg ${loadAvg1()})`);
  const loadAvg1AtStart = loadAvg1();
  const dataDir = join(tmpRoot, target);
  const s = target === 'this' ? await launchThis(dataDir) : await launchKube(dataDir);
  const components: Component[] = [];
  const tls = tlsFromKubeconfig(s.kubeconfig, join(dataDir, 'client'));
  const c = new Client(tls.server, { connect: { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } });
  try {
    components.push(...(await startControlPlane(s)));
    const deadline = Date.now() + cfg.timeoutS * 1000;
    const ns = await apiJson(c, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status} ${ns.text.slice(0, 300)}`);
    // KCM's serviceaccount controller: the ServiceAccount admission needs `default` for every Pod.
    await until('ServiceAccount default', deadline, async () => ((await apiJson(c, 'GET', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default`)).status === 200 ? true : 'absent'));
    const pids = s.pids.map((p) => p.pid);
    const cpu0 = pids.map((p) => procCpuMs(p));
    const t0 = performance.now();
    log(`  creating ${cfg.nodes} Nodes`);
    await createAll(c, cfg.nodes, 32, (i) => ['/api/v1/nodes', node(`kwok-${String(i).padStart(5, '0')}`)]);
    await until('Nodes Ready', deadline, async () => {
      const items: any[] = (await apiJson(c, 'GET', '/api/v1/nodes')).json?.items ?? [];
      const ready = items.filter((n) => (n.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True') && !(n.spec?.taints ?? []).some((t: any) => t.key === 'node.kubernetes.io/not-ready'));
      return ready.length >= cfg.nodes ? true : `${ready.length}/${cfg.nodes} Ready`;
    });
    const tNodes = performance.now();
    log(`  ${cfg.nodes} Nodes Ready after ${fmt((tNodes - t0) / 1000)} s; creating Deployments for ${cfg.pods} Pods`);
    const deployments = Math.ceil(cfg.pods / cfg.perDeployment);
    await createAll(c, deployments, 8, (i) => [`/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, deployment(`web-${i}`, Math.min(cfg.perDeployment, cfg.pods - i * cfg.perDeployment))]);
    await until('Pods Ready', deadline, async () => {
      const items: any[] = (await apiJson(c, 'GET', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`)).json?.items ?? [];
      const ready = items.reduce((a, d) => a + (d.status?.readyReplicas ?? 0), 0);
      return ready >= cfg.pods ? true : `${ready}/${cfg.pods} Ready`;
    });
    const tPods = performance.now();
    const timed = usage(pids, cpu0);
    const sinceLaunch = usage(pids);
    const perProcess = s.pids.map((p) => ({ name: p.name, ...usage([p.pid]) }));
    const compUsage = Object.fromEntries(components.map((x) => [x.name, usage([x.pid])]));
    log(`  ${cfg.pods} Pods Ready after ${fmt((tPods - tNodes) / 1000)} s more; API server CPU ${timed.cpuSeconds} s, max RSS ${timed.maxRssMiB} MiB`);
    const pods: any[] = (await apiJson(c, 'GET', `/api/v1/namespaces/${NAMESPACE}/pods`)).json?.items ?? [];
    const perNode = new Map<string, number>();
    for (const p of pods) if (p.spec?.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
    const check = {
      pods: pods.length,
      ready: pods.filter((p) => p.status?.phase === 'Running' && (p.status?.conditions ?? []).some((x: any) => x.type === 'Ready' && x.status === 'True')).length,
      bound: pods.filter((p) => p.spec?.nodeName).length,
      nodesUsed: perNode.size,
      maxPodsPerNode: Math.max(0, ...perNode.values()),
    };
    if (check.ready < cfg.pods || check.bound < cfg.pods) throw new Error(`${target}: the Pod list disagrees with the Deployments: ${JSON.stringify(check)}`);
    return {
      target,
      loadAvg1AtStart,
      nodesReadySeconds: round((tNodes - t0) / 1000, 1),
      podsReadySeconds: round((tPods - tNodes) / 1000, 1),
      totalSeconds: round((tPods - t0) / 1000, 1),
      apiServer: { timed, sinceLaunch, perProcess },
      components: compUsage,
      check,
    };
  } finally {
    await c.close();
    await Promise.all(components.map((x) => x.stop()));
    await s.stop();
  }
}

/** Both servers in --order; the printed report's lines. */
async function main(): Promise<string[]> {
  const started = performance.now();
  ensureServerBuilt(log);
  ref.ensureBuilt(log);
  const bins = await controlPlaneBinaries();
  log(`control plane: ${Object.values(bins).join(' ')}`);
  const runs: Run[] = [];
  // A server that fails (e.g. times out) is reported as failed; the other one still runs.
  const failed: { target: string; error: string }[] = [];
  for (const target of cfg.order) {
    try {
      runs.push(await runOne(target));
    } catch (e) {
      log(`${target}: FAILED: ${(e as Error).message}`);
      failed.push({ target, error: (e as Error).message });
      process.exitCode = 1;
    }
  }
  const by = (t: 'this' | 'kube') => runs.find((r) => r.target === t);
  const report = {
    kind: 'kwok',
    timestamp: new Date().toISOString(),
    config: cfg,
    machine,
    versions: { reference: spawnSync(join(ref.bin, 'kube-apiserver'), ['--version'], { encoding: 'utf8' }).stdout.trim(), controlPlane: KUBE_VERSION, kwok: KWOK_VERSION },
    runs,
    failed,
    serverLog: { warn: serverLog.warn, error: serverLog.error, samples: serverLog.samples, unexpectedExits: serverLog.unexpectedExits },
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  const file = writeResult('kwok', report);
  const row = (name: string, t: string, k: string) => `| ${name.padEnd(46)} | ${t.padStart(12)} | ${k.padStart(22)} |`;
  const col = (f: (r: Run) => string) => [by('this'), by('kube')].map((r) => (r ? f(r) : '-')) as [string, string];
  return [
    '',
    `${cfg.nodes} kwok Nodes and ${cfg.pods} Pods (${Math.ceil(cfg.pods / cfg.perDeployment)} Deployments) through kube-controller-manager + kube-scheduler ${KUBE_VERSION} and kwok ${KWOK_VERSION},`,
    `this server vs ${report.versions.reference} + etcd (both fsync on), run order ${cfg.order.join(' then ')}; ${machine.cpuCount} cores, load avg at start ${runs.map((r) => `${r.target} ${r.loadAvg1AtStart}`).join(', ')}`,
    '',
    row('figure', 'this server', 'kube-apiserver + etcd'),
    row('-'.repeat(46), '-'.repeat(12), '-'.repeat(22)),
    row('Nodes Ready (s, from the first create)', ...col((r) => fmt(r.nodesReadySeconds))),
    row('then Pods Ready (s, from the first Deployment)', ...col((r) => fmt(r.podsReadySeconds))),
    row('wall time to all Ready (s)', ...col((r) => fmt(r.totalSeconds))),
    row('API server CPU over that time (s)', ...col((r) => fmt(r.apiServer.timed.cpuSeconds))),
    row('API server CPU since launch (s)', ...col((r) => fmt(r.apiServer.sinceLaunch.cpuSeconds))),
    row('API server max RSS (MiB, VmHWM)', ...col((r) => fmt(r.apiServer.timed.maxRssMiB, 0))),
    ...['kube-controller-manager', 'kube-scheduler', 'kwok'].map((n) => row(`${n} CPU s / max RSS MiB`, ...col((r) => `${fmt(r.components[n]!.cpuSeconds)} / ${fmt(r.components[n]!.maxRssMiB, 0)}`))),
    '',
    ...runs.map((r) => `${r.target}: per process ${r.apiServer.perProcess.map((p) => `${p.name} ${p.cpuSeconds} s CPU since launch, ${p.maxRssMiB} MiB`).join('; ')}; Pods ${JSON.stringify(r.check)}`),
    ...failed.map((f) => `${f.target}: FAILED: ${f.error}`),
    `total ${report.totalSeconds} s; JSON: ${file}`,
  ];
}

try {
  process.stdout.write((await main()).join('\n') + '\n');
} catch (e) {
  reportBenchFailure(e);
} finally {
  endBench(tmpRoot, args.keep!);
}
