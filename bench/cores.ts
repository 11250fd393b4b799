/**
 * Scaling from 1 core to 2, this server against kube-apiserver 1.24.17 + etcd, same run
 * (`npm run bench:cores`, issue 28).
 *
 *   node --import tsx bench/cores.ts [--rounds 2] [--duration S] [--warmup S] [--objects 10000]
 *        [--clients 16] [--connections 64] [--readers 4] [--get-conns 16] [--limit 500]
 *        [--watchers 1000] [--watch-rate 200] [--workers-list 1,2] [--compare-dir DIR]
 *        [--port 16592] [--ref-port 16582] [--reference-dir ../shared/reference] [--quick] [--plan] [--keep]
 *
 * Each server runs in two phases per round: pinned to 1 core, then to 2 (`taskset -c` at spawn, so
 * every thread and child process — for the reference etcd and kube-apiserver both — runs there
 * from its first instruction, and Go's GOMAXPROCS and Node's available parallelism see that many
 * cores; checked on every thread through /proc before the figures). The load generator (the Go
 * bench/loadgen of bench/vs-kube.ts, same bodies, same TLS) runs on the cores the server does not
 * use when there are any: core 1 in the 1-core phase; in the 2-core phase on this 2-core machine it
 * necessarily shares the server's two cores — the report says so and gives the generator's own CPU
 * per figure, so a figure the generator limits can be told apart. This server gets `--workers N`
 * on N cores (N from --workers-list, one entry per core count; since the leader serves no HTTP
 * with N > 1, `--workers 2` is two serving threads beside the log writer — what the
 * leader-stops-accepting experiment ran as `--workers 3`) when its command line accepts the
 * flag (detected before the run: a start with `--workers 1` and an unknown flag after it shows
 * which one the argument parser refuses); otherwise it runs as it is, and the report says which.
 * --compare-dir DIR runs another checkout of this server (e.g. a worktree at an older commit) in
 * the 1-core phases too, for the "no regression at 1 core" goal. Each phase is a fresh data dir;
 * the servers never run at the same time; their order alternates between rounds and phases;
 * figures are medians over the rounds.
 *
 * One phase of one server: launch → /readyz; namespaces, 100 probe ConfigMaps; fill a namespace
 * with --objects 1 KiB ConfigMaps (HTTP/1.1 × --connections); then, --warmup + --duration s each:
 *   pages/s: --clients clients (a connection each) listing that namespace in pages of --limit
 *     following continue, over and over, as JSON, as Table (as=Table;v=v1;g=meta.k8s.io) and as
 *     Protobuf;
 *   creates/s: --connections HTTP/1.1 connections, closed loop, with --readers sequential GET
 *     readers on their own connections beside them (GET p99 during creates: the mixed load);
 *   updates/s: PUT (whole object), merge patch and server-side apply, each worker of the
 *     --connections updating its own ConfigMap (a real change every time), readers beside;
 *   GETs/s: single-object GETs, --get-conns connections;
 *   watch: --watchers watches of one namespace (HTTP/2, 100 streams per connection) while a paced
 *     writer creates --watch-rate ConfigMaps/s: events delivered per second inside the window
 *     (rate × watchers when the server keeps up) and the delivery p99 (receive − the writer's ack).
 *
 * --quick: 1 round, 2,000 objects, 100 watchers at 50/s, 0.5 + 2 s windows (a few minutes).
 * --plan: print the CPU sets, the --workers detection and the config as JSON, and exit.
 * Prints a table and PASS/FAIL lines for issue 28's goals; writes bench/results/cores-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { reference, ensureServerBuilt } from './reference.ts';
import { buildLoadgen } from './loadgen-client.ts';
import { serverLog, reportBenchFailure } from './server.ts';
import { sideBySide, affinityOf, cpuOf, type ClientUse, type LoadOut, type Target, type WatchOut } from './side-by-side.ts';
import { benchSession, endBench, cpuSnapshot, otherCpuPercent, loadAvg1, fmt, installWatchdog, median, round, writeResult } from './util.ts';
import { nodeArgsFor } from '../test/server-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    objects: { type: 'string' },
    clients: { type: 'string' },
    connections: { type: 'string' },
    readers: { type: 'string' },
    'get-conns': { type: 'string' },
    limit: { type: 'string' },
    watchers: { type: 'string' },
    'watch-rate': { type: 'string' },
    'workers-list': { type: 'string' },
    'compare-dir': { type: 'string' },
    port: { type: 'string' },
    'ref-port': { type: 'string' },
    'reference-dir': { type: 'string' },
    quick: { type: 'boolean', default: false },
    plan: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const quick = args.quick!;
const CORES = [1, 2] as const;
const cfg = {
  quick,
  rounds: Number(args.rounds ?? (quick ? 1 : 2)),
  durationS: Number(args.duration ?? (quick ? 2 : 8)),
  warmupS: Number(args.warmup ?? (quick ? 0.5 : 2)),
  objects: Number(args.objects ?? (quick ? 2000 : 10000)),
  clients: Number(args.clients ?? 16),
  connections: Number(args.connections ?? 64),
  readers: Number(args.readers ?? 4),
  getConns: Number(args['get-conns'] ?? 16),
  limit: Number(args.limit ?? 500),
  watchers: Number(args.watchers ?? (quick ? 100 : 1000)),
  watchRate: Number(args['watch-rate'] ?? (quick ? 50 : 200)),
  port: Number(args.port ?? 16592),
  refPort: Number(args['ref-port'] ?? 16582),
  probeObjects: 100,
};
for (const [k, v] of Object.entries(cfg)) if (typeof v === 'number' && !(v > 0)) throw new Error(`bad --${k}: ${v}`);
if (cfg.connections > cfg.probeObjects) throw new Error(`--connections ${cfg.connections}: at most ${cfg.probeObjects} (each update worker owns one probe object)`);
const workersList = (args['workers-list'] ?? '1,2').split(',').map((s) => Number(s.trim()));
if (workersList.length !== CORES.length || workersList.some((n) => !Number.isInteger(n) || n < 0)) throw new Error(`--workers-list: ${CORES.length} counts (for ${CORES.join(' and ')} core(s); 0 = no flag), got ${args['workers-list']}`);
const compareDir = args['compare-dir'] ? resolve(args['compare-dir']) : undefined;

// ---------------------------------------------------------------------------------------------
// CPU sets and the --workers flag

/** The CPUs of a `taskset -c`/Cpus_allowed_list list such as "0-1,4". */
function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`bad CPU list ${JSON.stringify(list)}`);
    for (let c = Number(m[1]); c <= Number(m[2] ?? m[1]); c++) out.push(c);
  }
  return out;
}

interface CpuSets {
  server: string;
  generator: string;
  /** The generator shares the server's cores (no core left over). */
  shared: boolean;
}

/** The server on the first `cores` CPUs this process may use, the generator on the rest (or on all when none is left). */
function cpuSets(allowed: number[], cores: number): CpuSets {
  if (allowed.length < cores) throw new Error(`${cores} cores asked, this process may use only CPUs ${allowed.join(',')}`);
  const server = allowed.slice(0, cores);
  const rest = allowed.slice(cores);
  return { server: server.join(','), generator: (rest.length ? rest : allowed).join(','), shared: rest.length === 0 };
}

function allowedCpus(): number[] {
  const m = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!m) throw new Error('no Cpus_allowed_list in /proc/self/status (Linux only)');
  return parseCpuList(m[1]!);
}

function checkTaskset(): string {
  const r = spawnSync('taskset', ['-c', String(allowed[0]), 'true'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) throw new Error(`taskset (util-linux) is needed: ${r.error?.message ?? r.stderr}`);
  return spawnSync('taskset', ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/**
 * Whether a checkout's cmd/apiserver.ts accepts `--workers`: started with `--workers 1` and an
 * unknown flag after it, it exits at argument parsing (nothing is started) naming the first
 * option it refuses.
 */
function detectWorkersFlag(root: string): { supported: boolean; how: string } {
  const probe = '--coresbench-no-such-flag';
  const r = spawnSync(process.execPath, [...nodeArgsFor('cmd/apiserver.ts', [], root), '--workers', '1', probe], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  const out = `${r.stderr}${r.stdout}`;
  if (out.includes(`'--workers'`) || /unknown (option|flag).*--workers/i.test(out)) return { supported: false, how: 'refused at argument parsing (unknown option --workers)' };
  if (out.includes(probe)) return { supported: true, how: `accepted (the parser went on to refuse ${probe})` };
  return { supported: false, how: `undetermined (exit ${r.status ?? r.signal}: ${out.trim().split('\n').slice(-1)[0] ?? ''}); run without the flag` };
}

// ---------------------------------------------------------------------------------------------

const allowed = allowedCpus();
const sets = Object.fromEntries(CORES.map((c) => [c, cpuSets(allowed, c)])) as Record<number, CpuSets>;
const tasksetVersion = checkTaskset();
/** Filled once the checkouts are built (test/server-command.ts keeps the first dist-or-tsx answer per checkout). */
let workersOf: Record<string, { supported: boolean; how: string }> = {};
const detectWorkers = () => {
  workersOf = { this: detectWorkersFlag(ROOT), ...(compareDir ? { compare: detectWorkersFlag(compareDir) } : {}) };
};
if (args.plan) {
  detectWorkers();
  process.stdout.write(JSON.stringify({ cfg, allowedCpus: allowed, sets, tasksetVersion, workersList, workers: workersOf, compareDir }, null, 1) + '\n');
  process.exit(0);
}

const ref = reference(args['reference-dir']);
installWatchdog((quick ? 20 : 180) * 60_000);
const { log, tmpRoot, machine } = benchSession('cores', args.keep!, { ...cfg, workersList, compareDir });
let loadgenBin = '';
const sides = sideBySide({ tmpRoot, log, ref, loadgenBin: () => loadgenBin, port: cfg.port, refPort: cfg.refPort });
const thisTarget = sides.server();
const compareTarget = compareDir ? sides.server({ key: 'compare', label: `compare (${compareDir})`, root: compareDir }) : undefined;

// ---------------------------------------------------------------------------------------------
// the figures

/** The generator's pages mode: load's result with pages for requests, and the lists followed to their end. */
interface PagesOut extends LoadOut {
  lists: number;
}

const FIGURES = {
  pagesJson: { label: `pages of ${cfg.limit}/s, JSON (${cfg.clients} clients)`, throughput: true },
  pagesTable: { label: `pages of ${cfg.limit}/s, Table`, throughput: true },
  pagesProto: { label: `pages of ${cfg.limit}/s, Protobuf`, throughput: true },
  creates: { label: `creates/s (h1 × ${cfg.connections}, ${cfg.readers} readers)`, throughput: true },
  getP99: { label: `  GET p99 during creates (ms)`, throughput: false },
  put: { label: `PUT/s (h1 × ${cfg.connections}, ${cfg.readers} readers)`, throughput: true },
  merge: { label: `merge patch/s`, throughput: true },
  apply: { label: `server-side apply/s`, throughput: true },
  gets: { label: `single-object GETs/s (h1 × ${cfg.getConns})`, throughput: true },
  watchDelivered: { label: `watch: events delivered/s (${fmt(cfg.watchers, 0)} × ${cfg.watchRate}/s)`, throughput: true },
  watchP99: { label: `  watch delivery p99 (ms)`, throughput: false },
} as const;
type FigureKey = keyof typeof FIGURES;
/** The generator run each figure came from (the latency figures share their throughput's). */
const GEN_OF: Record<FigureKey, FigureKey> = { pagesJson: 'pagesJson', pagesTable: 'pagesTable', pagesProto: 'pagesProto', creates: 'creates', getP99: 'creates', put: 'put', merge: 'merge', apply: 'apply', gets: 'gets', watchDelivered: 'watchDelivered', watchP99: 'watchDelivered' };

const ACCEPT = { pagesJson: 'application/json', pagesTable: 'application/json;as=Table;v=v1;g=meta.k8s.io', pagesProto: 'application/vnd.kubernetes.protobuf' } as const;

interface Phase {
  target: string;
  cores: number;
  round: number;
  workers: number | null;
  figures: Partial<Record<FigureKey, number>>;
  /** The generator's CPU seconds and wall seconds per run, and the server's over the same run. */
  generator: Partial<Record<FigureKey, { cpuSeconds: number; wallSeconds: number }>>;
  server: Partial<Record<FigureKey, { cpuSeconds: number; wallSeconds: number }>>;
  problems: string[];
  affinity: { lists: string[]; threads: number };
  serverCpuSeconds: number;
  seconds: number;
  otherCpuPercent: number;
}

async function runPhase(t: Target, cores: number, roundNo: number): Promise<Phase> {
  const t0 = performance.now();
  const snap = cpuSnapshot();
  const set = sets[cores]!;
  const wf = workersOf[t.key];
  const asked = workersList[CORES.indexOf(cores as 1 | 2)]!;
  const workers = wf?.supported && asked > 0 ? asked : null;
  const flags = workers ? ['--workers', String(workers)] : [];
  const dataDir = join(tmpRoot, `${t.key}-${cores}c-r${roundNo}`);
  log(`round ${roundNo}, ${cores} core(s): ${t.label} on CPU ${set.server}${flags.length ? ` ${flags.join(' ')}` : ''}, generator on CPU ${set.generator}`);
  const run = await t.launch(dataDir, true, { cpus: set.server, flags });
  const phase: Phase = { target: t.key, cores, round: roundNo, workers, figures: {}, generator: {}, server: {}, problems: [], affinity: { lists: [], threads: 0 }, serverCpuSeconds: 0, seconds: 0, otherCpuPercent: 0 };
  try {
    const cpu0 = cpuOf(run.pids);
    phase.affinity = affinityOf(run.pids);
    const want = parseCpuList(set.server).join(',');
    const bad = phase.affinity.lists.filter((l) => parseCpuList(l).join(',') !== want);
    if (bad.length || !phase.affinity.threads) throw new Error(`${t.label}: threads not pinned to CPU ${set.server}: ${JSON.stringify(phase.affinity)}`);
    log(`  pinned: ${phase.affinity.threads} threads of pids ${run.pids.join(', ')} on CPU ${phase.affinity.lists.join(' ')}`);
    let lastRun = { cpuSeconds: NaN, wallSeconds: NaN };
    const gen = async <T extends ClientUse>(mode: string, params: Record<string, unknown>) => {
      const c0 = cpuOf(run.pids);
      const w0 = performance.now();
      const out = await sides.loadgen<T>(mode, run.tls, params, set.generator);
      lastRun = { cpuSeconds: round((cpuOf(run.pids) - c0) / 1000, 2), wallSeconds: round((performance.now() - w0) / 1000, 2) };
      return out;
    };
    const note = (k: FigureKey, o: ClientUse) => {
      if (o.client) phase.generator[k] = o.client;
      phase.server[k] = lastRun;
    };
    const window = { warmupMs: cfg.warmupS * 1000, durationMs: cfg.durationS * 1000 };

    await gen('prep', { namespaces: ['cores-list', 'cores-load', 'cores-watch'], namespace: 'cores-load', probeCount: cfg.probeObjects });
    const fill = await gen<{ ok: number; failed: number; perSec: number; samples: string[] | null } & ClientUse>('fill', { namespace: 'cores-list', conns: cfg.connections, from: 0, to: cfg.objects });
    if (fill.failed) throw new Error(`${t.label}: fill failed ${fill.failed}: ${fill.samples?.join('; ')}`);
    log(`  filled ${cfg.objects} ConfigMaps at ${fmt(fill.perSec, 0)}/s`);

    const check = (k: FigureKey, o: LoadOut, ok: string) => {
      if (o.errors || Object.keys(o.statuses).some((s) => s !== ok)) phase.problems.push(`${k}: statuses ${JSON.stringify(o.statuses)} errors ${o.errors} ${JSON.stringify(o.errorSamples ?? o.badSamples)}`);
    };
    for (const k of ['pagesJson', 'pagesTable', 'pagesProto'] as const) {
      const p = await gen<PagesOut>('pages', { path: '/api/v1/namespaces/cores-list/configmaps', conns: cfg.clients, limit: cfg.limit, accept: ACCEPT[k], ...window });
      check(k, p, '200');
      phase.figures[k] = p.donePerSec;
      note(k, p);
      log(`  ${k}: ${fmt(p.donePerSec)} pages/s (p50 ${fmt(p.latencyMs.p50)} ms, ${p.lists} whole lists)`);
    }

    const loadParams = { proto: 'h1', conns: cfg.connections, namespace: 'cores-load', probeNamespace: 'cores-load', probeCount: cfg.probeObjects, probeConns: cfg.readers, ...window };
    const creates = await gen<LoadOut>('load', { ...loadParams, prefix: `c${cores}-r${roundNo}` });
    check('creates', creates, '201');
    phase.figures.creates = creates.donePerSec;
    phase.figures.getP99 = creates.probe?.latencyMs.n ? creates.probe.latencyMs.p99 : NaN;
    note('creates', creates);
    log(`  creates: ${fmt(creates.donePerSec)}/s, p99 ${fmt(creates.latencyMs.p99)} ms; GET p99 ${fmt(phase.figures.getP99)} ms (n ${creates.probe?.latencyMs.n ?? 0})`);
    for (const verb of ['put', 'merge', 'apply'] as const) {
      const u = await gen<LoadOut>('load', { ...loadParams, verb, objects: cfg.connections });
      check(verb, u, '200');
      phase.figures[verb] = u.donePerSec;
      note(verb, u);
      log(`  ${verb}: ${fmt(u.donePerSec)}/s, p99 ${fmt(u.latencyMs.p99)} ms; GET p99 ${fmt(u.probe?.latencyMs.p99 ?? NaN)} ms`);
    }
    const gets = await gen<LoadOut>('load', { proto: 'h1', conns: cfg.getConns, namespace: 'cores-load', getCount: cfg.probeObjects, ...window });
    check('gets', gets, '200');
    phase.figures.gets = gets.donePerSec;
    note('gets', gets);
    log(`  GETs: ${fmt(gets.donePerSec)}/s, p99 ${fmt(gets.latencyMs.p99)} ms`);

    const w = await gen<WatchOut>('watch', { namespace: 'cores-watch', watchers: cfg.watchers, streamsPerConn: 100, rate: cfg.watchRate, warmupMs: 1000, durationMs: cfg.durationS * 1000, drainMs: 2000, writerConns: 16 });
    if (w.dropped || w.writeErrors || w.writeRate < 0.95 * cfg.watchRate) phase.problems.push(`watch: writer ${w.writeRate}/s of ${cfg.watchRate}, write errors ${w.writeErrors}, dropped ${w.dropped} ${JSON.stringify(w.droppedSamples)}`);
    phase.figures.watchDelivered = w.deliveredPerSec;
    phase.figures.watchP99 = w.deliveryMs.n ? w.deliveryMs.p99 : NaN;
    note('watchDelivered', w);
    log(`  watch: ${fmt(w.deliveredPerSec, 0)} events/s delivered, p99 ${fmt(w.deliveryMs.p99)} ms, missing ${w.missing}, writer ${fmt(w.writeRate)}/s`);

    for (const [k, v] of Object.entries(phase.figures)) if (!(v! > 0)) phase.problems.push(`${k}: ${v} (nothing answered inside the window: a longer --duration?)`);
    phase.serverCpuSeconds = round((cpuOf(run.pids) - cpu0) / 1000, 1);
    const detached = run.detached;
    await run.stop();
    const end = cpuSnapshot();
    const wallMs = end.at - snap.at;
    phase.otherCpuPercent = round(Math.max(0, otherCpuPercent(snap, end) - (detached ? ((phase.serverCpuSeconds * 1000) / wallMs) * 100 : 0)), 0);
    phase.seconds = round((performance.now() - t0) / 1000, 1);
    for (const p of phase.problems) log(`  WARN ${p}`);
    return phase;
  } finally {
    await run.stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// report

const med = (xs: number[]) => round(median(xs.filter((x) => Number.isFinite(x))), 2);
const ratio = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? a / b : NaN);
const rx = (v: number) => (Number.isFinite(v) ? `${fmt(v, 2)}×` : '–');
const val = (v: number) => (!Number.isFinite(v) ? '–' : v >= 100 ? fmt(v, 0) : fmt(v, 1));

function report(phases: Phase[]): { lines: string[]; summary: Record<string, unknown> } {
  const fig = (target: string, cores: number, k: FigureKey) => med(phases.filter((p) => p.target === target && p.cores === cores).map((p) => p.figures[k] ?? NaN));
  const usePct = (who: 'generator' | 'server', target: string, cores: number, k: FigureKey) =>
    med(phases.filter((p) => p.target === target && p.cores === cores).map((p) => {
      const g = p[who][GEN_OF[k]];
      return g ? (g.cpuSeconds / g.wallSeconds) * 100 : NaN;
    }));
  const genPct = (target: string, cores: number, k: FigureKey) => usePct('generator', target, cores, k);
  const compare = compareTarget ? 'compare' : undefined;
  const head = ['figure', 'this 1c', 'this 2c', 'this 2c÷1c', 'kube 1c', 'kube 2c', 'kube 2c÷1c', 'this÷kube 1c', 'this÷kube 2c', ...(compare ? ['compare 1c', 'this÷compare 1c'] : [])];
  const rows: string[][] = [];
  const summary: Record<string, unknown> = {};
  // A figure the generator may limit: on its own core at ≥ 90 % of it, or sharing the server's cores while taking ≥ half a core.
  const genMark = (target: string, cores: number, k: FigureKey) => {
    const g = genPct(target, cores, k);
    return (sets[cores]!.shared ? g >= 50 : g >= 90) ? '*' : '';
  };
  for (const k of Object.keys(FIGURES) as FigureKey[]) {
    const t1 = fig('this', 1, k), t2 = fig('this', 2, k), k1 = fig('kube', 1, k), k2 = fig('kube', 2, k);
    const c1 = compare ? fig(compare, 1, k) : NaN;
    rows.push([
      FIGURES[k].label,
      val(t1) + genMark('this', 1, k),
      val(t2) + genMark('this', 2, k),
      rx(ratio(t2, t1)),
      val(k1) + genMark('kube', 1, k),
      val(k2) + genMark('kube', 2, k),
      rx(ratio(k2, k1)),
      rx(ratio(t1, k1)),
      rx(ratio(t2, k2)),
      ...(compare ? [val(c1) + genMark(compare, 1, k), rx(ratio(t1, c1))] : []),
    ]);
    summary[k] = { this: [t1, t2], kube: [k1, k2], ...(compare ? { compare1c: c1 } : {}), generatorCpuPercent: { this: [genPct('this', 1, k), genPct('this', 2, k)], kube: [genPct('kube', 1, k), genPct('kube', 2, k)] }, serverCpuPercent: { this: [usePct('server', 'this', 1, k), usePct('server', 'this', 2, k)], kube: [usePct('server', 'kube', 1, k), usePct('server', 'kube', 2, k)] } };
  }
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => (i ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join(' | ')} |`;
  const lines = [line(head), `|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`, ...rows.map(line)];

  lines.push('', 'CPU per figure, % of one core, server / load generator (medians over each run; * above: the generator may be the limit — ≥ 90 % of its own core, or ≥ 50 % while sharing the server\'s cores; a server well under 100 % × its cores was waiting: on its own work (I/O, one thread) or, on a shared machine, for other processes):');
  const targets = ['this', 'kube', ...(compare ? [compare] : [])];
  for (const k of Object.keys(FIGURES) as FigureKey[]) {
    if (!FIGURES[k].throughput) continue;
    const cells = targets.flatMap((tk) => CORES.filter((c) => tk !== 'compare' || c === 1).map((c) => `${tk} ${c}c ${fmt(usePct('server', tk, c, k), 0)}/${fmt(genPct(tk, c, k), 0)}%`));
    lines.push(`  ${FIGURES[k].label.trim().padEnd(w[0]!)}  ${cells.join(', ')}`);
  }
  lines.push('', 'Per phase (medians over rounds): server CPU s / generator CPU s (all runs) / phase wall s; other processes\' CPU, % of one core');
  for (const tk of targets) for (const c of CORES) {
    const ps = phases.filter((p) => p.target === tk && p.cores === c);
    if (!ps.length) continue;
    const genS = med(ps.map((p) => Object.values(p.generator).reduce((a, g) => a + g!.cpuSeconds, 0)));
    lines.push(`  ${tk.padEnd(7)} ${c}c: server ${fmt(med(ps.map((p) => p.serverCpuSeconds)), 0)} s / generator ${fmt(genS, 0)} s / ${fmt(med(ps.map((p) => p.seconds)), 0)} s; other ${ps.map((p) => p.otherCpuPercent).join(', ')}%; workers ${ps[0]!.workers ?? 'no flag'}; threads pinned ${ps.map((p) => `${p.affinity.threads} on CPU ${p.affinity.lists.join(' ')}`).join(', ')}`);
  }

  // issue 28's goals, on what this run measured
  const goals: { name: string; value: number; goal: string; pass: boolean }[] = [];
  const goal = (name: string, value: number, goalText: string, pass: boolean) => goals.push({ name, value: round(value, 2), goal: goalText, pass: Number.isFinite(value) && pass });
  const sc = (tk: string, k: FigureKey) => ratio(fig(tk, 2, k), fig(tk, 1, k));
  goal('this 2c÷1c: pages of 500/s (JSON)', sc('this', 'pagesJson'), '≥ 1.5', sc('this', 'pagesJson') >= 1.5);
  goal('this 2c÷1c: creates/s', sc('this', 'creates'), '≥ 1.3', sc('this', 'creates') >= 1.3);
  // The watch writer is paced: a server delivering rate × watchers on 1 core already cannot show more on 2.
  const cap = cfg.watchRate * cfg.watchers;
  const capped = (tk: string) => CORES.every((c) => fig(tk, c, 'watchDelivered') >= 0.97 * cap);
  for (const k of Object.keys(FIGURES) as FigureKey[]) {
    if (!FIGURES[k].throughput) continue;
    const atCap = k === 'watchDelivered' && capped('this');
    goal(`this 2c÷1c ≥ kube's (${fmt(sc('kube', k), 2)}×): ${FIGURES[k].label.trim()}${atCap ? ' (at the paced cap on both)' : ''}`, sc('this', k), `≥ ${fmt(sc('kube', k), 2)}`, atCap || sc('this', k) >= sc('kube', k));
  }
  const on2 = (k: FigureKey) => ratio(fig('this', 2, k), fig('kube', 2, k));
  goal('2 cores, this÷kube: creates/s (64 writers + 4 readers)', on2('creates'), '≥ 3', on2('creates') >= 3);
  goal('2 cores, this: GET p99 during creates (ms)', fig('this', 2, 'getP99'), '≤ 10', fig('this', 2, 'getP99') <= 10);
  for (const k of ['put', 'merge', 'apply'] as const) goal(`2 cores, this÷kube: ${FIGURES[k].label.trim()}`, on2(k), '≥ 3', on2(k) >= 3);
  if (compare) {
    for (const k of Object.keys(FIGURES) as FigureKey[]) {
      if (!FIGURES[k].throughput) continue;
      const r = ratio(fig('this', 1, k), fig(compare, 1, k));
      goal(`1 core, this÷compare (no regression): ${FIGURES[k].label.trim()}`, r, '≥ 0.95', r >= 0.95);
    }
  }
  summary.goals = goals;
  lines.push('', "Issue 28's goals (on this run's sizes and rates)");
  for (const g of goals) lines.push(`  ${g.pass ? 'PASS' : 'FAIL'}  ${g.name.padEnd(78)} ${fmt(g.value, 2).padStart(8)}   goal ${g.goal}`);
  return { lines, summary };
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
try {
  ensureServerBuilt(log);
  if (compareDir) ensureServerBuilt(log, compareDir);
  ref.ensureBuilt(log);
  loadgenBin = buildLoadgen(tmpRoot, 'cores-loadgen', log);
  detectWorkers();
  for (const [k, v] of Object.entries(workersOf)) log(`--workers on ${k}: ${v.how}`);
  // The serving threads share the port with reusePort (Node ≥ 22.12); the servers run on this Node.
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  if (Object.values(workersOf).some((w) => w.supported) && workersList.some((n) => n > 1) && (major < 22 || (major === 22 && minor < 12)))
    log(`WARN: node ${process.versions.node} runs the servers: --workers above 1 needs reusePort (Node ≥ 22.12); run through npm (the project's Node 24)`);
  log('priming the servers (one untimed launch each)');
  await thisTarget.prime();
  if (compareTarget) await compareTarget.prime();
  await sides.kube.prime();
  const phases: Phase[] = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const [ci, cores] of CORES.entries()) {
      const targets = [thisTarget, sides.kube, ...(compareTarget && cores === 1 ? [compareTarget] : [])];
      if ((r + ci) % 2 === 0) targets.reverse();
      for (const t of targets) phases.push(await runPhase(t, cores, r));
    }
  }
  const { lines, summary } = report(phases);
  const result = {
    kind: 'cores',
    timestamp: new Date().toISOString(),
    config: { ...cfg, workersList, compareDir },
    sets,
    workers: workersOf,
    machine: { ...machine, loadAvg1AtEnd: loadAvg1() },
    reference: { bin: ref.bin, version: spawnSync(join(ref.bin, 'kube-apiserver'), ['--version'], { encoding: 'utf8' }).stdout.trim() },
    summary,
    phases,
    serverLog: { warn: serverLog.warn, error: serverLog.error, samples: serverLog.samples, unexpectedExits: serverLog.unexpectedExits },
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  const file = writeResult('cores', result);
  const problems = phases.flatMap((p) => p.problems.map((x) => `round ${p.round} ${p.target} ${p.cores}c: ${x}`));
  const out = [
    '',
    `Scaling 1 → 2 cores: this server vs ${result.reference.version} + etcd (fsync on), ${cfg.rounds} round(s), order alternated, medians; one Go load generator; 1 KiB ConfigMaps, ${fmt(cfg.objects, 0)} listed`,
    `machine: ${machine.cpuCount} × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}, at end ${result.machine.loadAvg1AtEnd}`,
    ...CORES.map((c) => `${c} core(s): servers on CPU ${sets[c]!.server} (taskset -c at spawn, every thread checked), load generator on CPU ${sets[c]!.generator}${sets[c]!.shared ? ' — SHARED with the server: no core is left for the generator on this machine, so its CPU comes out of the server\'s' : ' (its own)'}`),
    `this server --workers: ${workersOf.this!.how}${workersOf.this!.supported ? `; given --workers ${workersList.join(' / ')} on ${CORES.join(' / ')} core(s)` : ''}${compareDir ? `; compare: ${workersOf.compare!.how}` : ''}`,
    '',
    ...lines,
    '',
    problems.length ? 'Problems seen:' : 'Problems seen: none',
    ...problems.map((p) => `  - ${p}`),
    `total ${result.totalSeconds} s; JSON: ${file}`,
  ];
  process.stdout.write(out.join('\n') + '\n');
} catch (e) {
  reportBenchFailure(e);
} finally {
  endBench(tmpRoot, args.keep!);
}
