/**
 * Overload, side by side with kube-apiserver 1.24.17 + etcd (`npm run bench:overload`, issue 24):
 * N HTTP/1.1 connections (default 2,000, one per client) create 1 KiB ConfigMaps closed-loop for
 * --duration s as a ServiceAccount (flow schema service-accounts, a limited priority level; an
 * admin would be exempt), honouring Retry-After after a 429 as client-go does. Beside the load,
 * every --probe-interval ms: an admin `kubectl get ns` (GET /api/v1/namespaces, system:masters, a
 * fresh TLS connection with kubectl's 10 s handshake timeout) and an anonymous GET /readyz.
 *
 *   node --import tsx bench/overload.ts [--connections 2000] [--duration 20] [--warmup 2]
 *        [--probe-interval 500] [--only this|kube] [--port 16462] [--ref-port 16461]
 *        [--workers N] [--server-flags="--max-requests-inflight=400 …"] [--keep]
 *
 * --workers N is passed to this server only (its serving threads, internal/app/workers.ts; absent:
 * the server's default); --server-flags go to both.
 *
 * Reported per server: answers by status, client-side failures (reset, refused, timeouts, EOF),
 * latency p50/p99/max of every answer (and of 201s, 429s), creates/s, the admin and health
 * probes' p99 and failures, and where a probe waited (p99 of its TCP connect, TLS handshake and
 * request to the first response byte), the kernel's ListenOverflows/ListenDrops during the run (system-wide,
 * /proc/net/netstat) and the server's RSS (max; the reference: kube-apiserver + etcd). The load
 * generator is bench/loadgen (Go), the same binary for both; the servers run one after the other
 * on fresh data dirs, fsync on. Writes bench/results/overload-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { buildIsFresh, nodeArgsFor } from '../test/server-command.ts';
import { spawnApiServer, reportBenchFailure } from './server.ts';
import { buildLoadgen, runLoadgen, tlsFromKubeconfig, type TlsFiles } from './loadgen-client.ts';
import { benchSession, endBench, installWatchdog, readRss, round, sleep, writeResult } from './util.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '2000' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '2' },
    'probe-interval': { type: 'string', default: '500' },
    only: { type: 'string' },
    port: { type: 'string', default: '16462' },
    'ref-port': { type: 'string', default: '16461' },
    'server-flags': { type: 'string', default: '' },
    workers: { type: 'string' },
    'reference-dir': { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = {
  connections: Number(args.connections),
  durationS: Number(args.duration),
  warmupS: Number(args.warmup),
  probeIntervalMs: Number(args['probe-interval']),
  port: Number(args.port),
  refPort: Number(args['ref-port']),
  serverFlags: args['server-flags']!.split(/\s+/).filter(Boolean),
  /** This server's --workers (undefined: its default). */
  workers: args.workers === undefined ? undefined : Number(args.workers),
  only: args.only,
};
// ../shared/reference from the main checkout, ../../shared/reference from a worktree under wt/.
const refDir = resolve(args['reference-dir'] ?? [join(ROOT, '..', 'shared', 'reference'), join(ROOT, '..', '..', 'shared', 'reference')].find((d) => existsSync(d)) ?? join(ROOT, '..', 'shared', 'reference'));
installWatchdog(30 * 60_000);
const { log, tmpRoot, machine } = benchSession('overload', args.keep!, cfg);

interface Summary {
  n: number;
  p50: number;
  p99: number;
  max: number;
}
interface Probe {
  latencyMs: Summary;
  connectMs: Summary;
  handshakeMs: Summary;
  requestMs: Summary;
  statuses: Record<string, number>;
  failures: Record<string, number>;
  samples: string[] | null;
}
interface OverloadOut {
  sent: number;
  statuses: Record<string, number>;
  failures: Record<string, number>;
  failureSamples: string[] | null;
  badSamples: string[] | null;
  retryAfter: Record<string, number>;
  latencyMs: Summary;
  createdLatencyMs: Summary;
  rejectedLatencyMs: Summary;
  createdPerSec: number;
  admin: Probe;
  health: Probe;
  firstAnswerMs: Summary;
  client: { cpuSeconds: number; wallSeconds: number };
}

let loadgenBin = '';
const loadgen = <T>(mode: string, tls: TlsFiles, params: Record<string, unknown>): Promise<T> => runLoadgen<T>(loadgenBin, mode, tls, params);

/** TcpExt counters of /proc/net/netstat (system-wide). */
function tcpExt(): Record<string, number> {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]!.split(/\s+/).slice(1);
  const values = lines[1]!.split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

/**
 * The accept queue of each listening socket on `port` (`ss`'s Recv-Q of a LISTEN socket: connections
 * the kernel completed that no thread has accepted yet), by the socket's fd (one socket per serving
 * thread with SO_REUSEPORT; the leader's was opened first).
 */
function acceptQueues(port: number): Map<string, number> {
  const r = spawnSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const out = new Map<string, number>();
  for (const l of (r.stdout ?? '').split('\n').filter(Boolean)) out.set(/fd=(\d+)/.exec(l)?.[1] ?? String(out.size), Number(l.trim().split(/\s+/)[1] ?? 0));
  return out;
}

/**
 * Namespace `overload`, a ServiceAccount allowed to create ConfigMaps there (a Role of its own: the
 * reference runs no controller-manager to aggregate `edit`), and its token; waits until it works.
 */
async function loadIdentity(tls: TlsFiles): Promise<string> {
  const admin = new Agent({ connect: { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } });
  const call = async (method: 'POST' | 'GET', path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> => {
    const r = await request(tls.server + path, {
      method, dispatcher: token ? new Agent({ connect: { ca: readFileSync(tls.ca) } }) : admin,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.body.text();
    return { status: r.statusCode, json: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const must = async (path: string, body: unknown) => {
    const r = await call('POST', path, body);
    if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  await must('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'overload' } });
  await must('/api/v1/namespaces/overload/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'load' } });
  await must('/apis/rbac.authorization.k8s.io/v1/namespaces/overload/roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'load' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'get', 'list'] }] });
  await must('/apis/rbac.authorization.k8s.io/v1/namespaces/overload/rolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'load' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'load' }, subjects: [{ kind: 'ServiceAccount', name: 'load', namespace: 'overload' }] });
  const token = (await must('/api/v1/namespaces/overload/serviceaccounts/load/token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } })).status.token as string;
  for (let i = 0; i < 100; i++) {
    if ((await call('GET', '/api/v1/namespaces/overload/configmaps?limit=1', undefined, token)).status === 200) break;
    await sleep(100);
  }
  await admin.close();
  return token;
}

interface Running {
  label: string;
  port: number;
  pids: number[];
  tls: TlsFiles;
  stop(): Promise<void>;
}

function runScript(script: string, argv: string[], extraFlags: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolveP) => {
    const env: NodeJS.ProcessEnv = { ...process.env, REF_BIN: process.env.REF_BIN ?? join(homedir(), '.cache', 'kube-ref', 'bin') };
    delete env.ETCD_UNSAFE_NO_FSYNC;
    if (extraFlags.length) env.EXTRA_APISERVER_FLAGS = extraFlags.join(' ');
    else delete env.EXTRA_APISERVER_FLAGS;
    const p = spawn('bash', [join(refDir, script), ...argv], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (out += c.toString()));
    p.once('exit', (code) => resolveP({ code, out }));
  });
}

async function launchKube(): Promise<Running> {
  const dir = join(tmpRoot, 'kube');
  const r = await runScript('start.sh', [dir, String(cfg.refPort)], cfg.serverFlags);
  if (r.code !== 0) throw new Error(`reference start.sh failed: ${r.out}`);
  process.on('exit', () => spawnSync('bash', [join(refDir, 'stop.sh'), dir], { stdio: 'ignore' }));
  const pids = readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[0]));
  return { label: 'kube-apiserver + etcd', port: cfg.refPort, pids, tls: tlsFromKubeconfig(join(dir, 'kubeconfig'), join(dir, 'client')), stop: async () => void (await runScript('stop.sh', [dir], [])) };
}

async function launchThis(): Promise<Running> {
  if (!buildIsFresh(ROOT)) {
    log('dist/ is older than the source: npm run build first');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'cmd/build.ts'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) throw new Error('build failed');
  }
  const flags = [...cfg.serverFlags, ...(cfg.workers === undefined ? [] : ['--workers', String(cfg.workers)])];
  log(`this server runs as: node ${nodeArgsFor('cmd/apiserver.ts').join(' ')} ${flags.join(' ')}`);
  const dir = join(tmpRoot, 'this');
  const s = await spawnApiServer(dir, cfg.port, flags);
  await s.readyLog;
  return { label: cfg.workers === undefined ? 'this server' : `this server (--workers ${cfg.workers})`, port: cfg.port, pids: [s.pid], tls: tlsFromKubeconfig(join(dir, 'kubeconfig'), join(dir, 'client')), stop: () => s.stop('SIGTERM') };
}

async function measure(launch: () => Promise<Running>): Promise<Record<string, unknown>> {
  const srv = await launch();
  try {
    const token = await loadIdentity(srv.tls);
    const rss = (): number => round(srv.pids.reduce((a, p) => a + readRss(p).rssMiB, 0), 1);
    const idleMiB = rss();
    let maxMiB = idleMiB;
    let acceptQueueMax = 0;
    const perSocketMax: Record<string, number> = {};
    const timer = setInterval(() => {
      maxMiB = Math.max(maxMiB, rss());
      const queues = acceptQueues(srv.port);
      acceptQueueMax = Math.max(acceptQueueMax, [...queues.values()].reduce((a, b) => a + b, 0));
      for (const [fd, n] of queues) perSocketMax[`fd ${fd}`] = Math.max(perSocketMax[`fd ${fd}`] ?? 0, n);
    }, 200);
    const before = tcpExt();
    log(`${srv.label}: ${cfg.connections} connections × ${cfg.warmupS + cfg.durationS} s`);
    const out = await loadgen<OverloadOut>('overload', srv.tls, { namespace: 'overload', conns: cfg.connections, warmupMs: cfg.warmupS * 1000, durationMs: cfg.durationS * 1000, prefix: 'o', token, probeIntervalMs: cfg.probeIntervalMs });
    clearInterval(timer);
    const after = tcpExt();
    return {
      server: srv.label,
      ...out,
      listenOverflows: after.ListenOverflows! - before.ListenOverflows!,
      listenDrops: after.ListenDrops! - before.ListenDrops!,
      acceptQueueMax,
      acceptQueueMaxBySocket: perSocketMax,
      rssIdleMiB: idleMiB,
      rssMaxMiB: maxMiB,
      rssEndMiB: rss(),
    };
  } finally {
    await srv.stop();
  }
}

function table(rows: Record<string, any>[]): string {
  const line = (r: Record<string, any>): string[] => {
    const failures = Object.entries(r.failures as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ') || '0';
    const probe = (p: Probe) =>
      `p99 ${p.latencyMs.p99} ms (n ${p.latencyMs.n}${Object.keys(p.failures).length ? `, failed ${JSON.stringify(p.failures)}` : ''}; p99 connect ${p.connectMs.p99} / TLS ${p.handshakeMs.p99} / request ${p.requestMs.p99})`;
    return [
      r.server,
      `${r.statuses['201'] ?? 0} / ${r.statuses['429'] ?? 0} / ${Object.entries(r.statuses).filter(([k]) => k !== '201' && k !== '429').map(([k, v]) => `${k}:${v}`).join(' ') || '0'}`,
      failures,
      `${r.latencyMs.p50} / ${r.latencyMs.p99} / ${r.latencyMs.max}`,
      String(r.createdPerSec),
      probe(r.admin),
      probe(r.health),
      `${r.listenOverflows} (accept queue max ${r.acceptQueueMax}${Object.keys(r.acceptQueueMaxBySocket).length > 1 ? ` ${JSON.stringify(r.acceptQueueMaxBySocket)}` : ''})`,
      `${r.rssIdleMiB} → ${r.rssMaxMiB}`,
    ];
  };
  const head = ['server', '201 / 429 / other', 'client failures', 'latency p50/p99/max ms', 'creates/s', 'admin (get ns)', 'health (/readyz)', 'listen overflows', 'RSS MiB idle → max'];
  return [head, ...rows.map(line)].map((c) => c.join(' | ')).join('\n');
}

try {
  loadgenBin = buildLoadgen(tmpRoot, 'loadgen', log);
  const rows: Record<string, unknown>[] = [];
  if (cfg.only !== 'kube') rows.push(await measure(launchThis));
  if (cfg.only !== 'this') rows.push(await measure(launchKube));
  const report = { timestamp: new Date().toISOString(), machine, config: cfg, results: rows };
  const file = writeResult('overload', report);
  process.stdout.write(table(rows) + '\n');
  log(`wrote ${file}`);
} catch (e) {
  reportBenchFailure(e);
}
endBench(tmpRoot, args.keep!);
