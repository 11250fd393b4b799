/**
 * Custom resource creates against kube-apiserver 1.24.17 + etcd, side by side in one run
 * (`npm run bench:crd`, issue 26).
 *
 *   node --import tsx bench/crd.ts [--rounds 2] [--pairs 3] [--duration S] [--warmup S] [--prewarm S]
 *        [--connections 64] [--port 16468] [--ref-port 16467] [--reference-dir ../shared/reference]
 *        [--quick] [--keep]
 *
 * The figure: creates/s of a custom resource whose CRD (bench.example.com/v1 Widget, namespaced)
 * has a 20-field spec schema with 11 defaults (integers with bounds, enums, a pattern, formats,
 * a map, a list-type set, a nested object with defaulted fields), against this server and against
 * kube-apiserver (its custom resources take apiextensions-apiserver's generic path: unstructured
 * JSON, schema-driven pruning, defaulting and validation), and this server's own 1 KiB ConfigMap
 * creates in the same run. Goals: this ÷ kube ≥ 3 for the custom resource, and custom resource ÷
 * ConfigMap ≥ 0.7 on this server.
 *
 * Both servers are driven by bench/loadgen (the generator of bench/vs-kube.ts: Go net/http, the
 * admin client certificate of each server's kubeconfig), HTTP/1.1 × --connections, closed loop,
 * --warmup + --duration s per window. The custom resource's body is ~1 KiB like the ConfigMap's
 * (9 of its 20 spec fields set, the rest defaulted by the server). The reference is started with
 * ../shared/reference/start.sh (etcd fsync on), this server as `npm start` runs it (dist/, rebuilt
 * when stale, fsync on). The servers never run at the same time (their order alternates between
 * rounds); each round launches each on a fresh data dir, creates the namespace and the CRD, waits
 * for Established and the custom resource's collection to answer, checks that one create comes
 * back with the defaults applied, runs --prewarm s of untimed creates of each kind (JIT, caches,
 * heap), then its windows: kube one custom resource window then one ConfigMap window (for
 * context); this server --pairs pairs of a custom resource window and a ConfigMap window back to
 * back, which kind goes first alternating (ABBA: even after the prewarm the first window of a
 * launch ran slower, up to ~40 % more CPU per create on a loaded machine). Rates are medians over
 * the windows; this server's custom resource ÷ ConfigMap ratio is the median of the pairs' ratios,
 * since the rate of two windows far apart moved by up to 2× with the other work on a shared
 * machine. Beside the rates, each window's server CPU per create (this server's process;
 * kube-apiserver and etcd) and the goals' ratios on it, steadier than rates on a busy machine.
 * After its windows, this server answers pages of 1,000 of each kind (LIST with limit=1000,
 * alternated, 7 times each; medians): a custom resource list decodes and defaults every object.
 *
 * --quick: 2 rounds, 1 pair, windows of 2 s after 0.5 s, 1 s prewarm. Prints a table and writes
 * bench/results/crd-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'undici';
import { reference, ensureServerBuilt } from './reference.ts';
import { buildLoadgen, runLoadgen, tlsFromKubeconfig, type TlsFiles } from './loadgen-client.ts';
import { spawnApiServer, serverLog, reportBenchFailure } from './server.ts';
import { apiJson, benchSession, endBench, FILLER_1K, fmt, installWatchdog, median, procCpuMs, round, sleep, writeResult } from './util.ts';


const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    prewarm: { type: 'string' },
    pairs: { type: 'string' },
    connections: { type: 'string' },
    port: { type: 'string' },
    'ref-port': { type: 'string' },
    'reference-dir': { type: 'string' },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const quick = args.quick!;
const cfg = {
  quick,
  rounds: Number(args.rounds ?? 2),
  // this server's windows per round: pairs of a custom resource and a ConfigMap window, back to back
  pairs: Number(args.pairs ?? (quick ? 1 : 3)),
  durationS: Number(args.duration ?? (quick ? 2 : 8)),
  warmupS: Number(args.warmup ?? (quick ? 0.5 : 2)),
  prewarmS: Number(args.prewarm ?? (quick ? 1 : 5)),
  connections: Number(args.connections ?? 64),
  port: Number(args.port ?? 16468),
  refPort: Number(args['ref-port'] ?? 16467),
};
for (const [k, v] of Object.entries(cfg)) if (typeof v === 'number' && !(v > 0)) throw new Error(`bad --${k}: ${v}`);
const ref = reference(args['reference-dir']);

installWatchdog((quick ? 10 : 40) * 60_000);
const { log, tmpRoot, machine } = benchSession('crd', args.keep!, cfg);

// ---------------------------------------------------------------------------------------------
// the custom resource

const GROUP = 'bench.example.com';
const NAMESPACE = 'bench-crd';
const PLURAL = 'widgets';
const CR_PATH = `/apis/${GROUP}/v1/namespaces/${NAMESPACE}/${PLURAL}`;

/** 20 spec fields; 11 with a default (and 2 more inside `resources`). */
const SPEC_PROPERTIES = {
  replicas: { type: 'integer', minimum: 0, maximum: 1000, default: 1 },
  image: { type: 'string', pattern: '^[a-z0-9./:-]+$', maxLength: 255 },
  tier: { type: 'string', enum: ['frontend', 'backend', 'cache'], default: 'backend' },
  paused: { type: 'boolean', default: false },
  port: { type: 'integer', format: 'int32', minimum: 1, maximum: 65535, default: 8080 },
  protocol: { type: 'string', enum: ['TCP', 'UDP'], default: 'TCP' },
  owner: { type: 'string', minLength: 1, maxLength: 63 },
  email: { type: 'string', format: 'email' },
  timeoutSeconds: { type: 'integer', minimum: 1, default: 30 },
  ratio: { type: 'number', minimum: 0, maximum: 1, default: 0.5 },
  labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 } },
  tags: { type: 'array', maxItems: 16, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
  schedule: { type: 'string', default: '*/5 * * * *' },
  uid: { type: 'string', format: 'uuid' },
  retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
  mode: { type: 'string', enum: ['fast', 'safe'], default: 'safe' },
  started: { type: 'string', format: 'date-time' },
  resources: {
    type: 'object',
    default: {},
    properties: { cpu: { type: 'string', default: '100m' }, memory: { type: 'string', default: '128Mi' } },
  },
  note: { type: 'string', maxLength: 2048 },
  priority: { type: 'integer', default: 0 },
};

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: PLURAL, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', required: ['image'], properties: SPEC_PROPERTIES },
              status: { type: 'object', properties: { phase: { type: 'string' } } },
            },
          },
        },
      },
    ],
  },
};

/** The body template (loadgen replaces $NAME and $NAMESPACE): 9 spec fields set, ~1 KiB. */
const CR_BODY = JSON.stringify({
  apiVersion: `${GROUP}/v1`,
  kind: 'Widget',
  metadata: { name: '$NAME', namespace: '$NAMESPACE', labels: { app: 'bench' } },
  spec: {
    replicas: 3,
    image: 'registry.example.com/team/widget:1.2.3',
    owner: 'team-a',
    email: 'team-a@example.com',
    labels: { env: 'prod', zone: 'eu-1' },
    tags: ['a', 'b', 'c'],
    uid: '0f8fad5b-d9cb-469f-a165-70867728950e',
    started: '2026-11-28T20:00:00Z',
    note: FILLER_1K.slice(0, 600),
  },
});
/** The fields the server fills in (checked on one create before the windows). */
const DEFAULTED = ['tier', 'paused', 'port', 'protocol', 'timeoutSeconds', 'ratio', 'schedule', 'retries', 'mode', 'resources', 'priority'];

// ---------------------------------------------------------------------------------------------
// the two servers

interface Running {
  tls: TlsFiles;
  /** The server's processes (kube-apiserver and etcd for the reference), for their CPU time. */
  pids: number[];
  stop(): Promise<void>;
}

async function launchKube(dataDir: string): Promise<Running> {
  mkdirSync(dataDir, { recursive: true });
  const r = await ref.start(dataDir, cfg.refPort);
  if (r.code !== 0) throw new Error(`reference start.sh failed: ${r.out}`);
  log(`  ${r.out.split('\n')[0]}`);
  return {
    pids: readFileSync(join(dataDir, 'pids'), 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[0])),
    tls: tlsFromKubeconfig(join(dataDir, 'kubeconfig'), join(dataDir, 'client')),
    stop: () => ref.stop(dataDir),
  };
}

async function launchThis(dataDir: string): Promise<Running> {
  const s = await spawnApiServer(dataDir, cfg.port);
  await s.readyLog;
  return {
    pids: [s.pid],
    tls: tlsFromKubeconfig(join(dataDir, 'kubeconfig'), join(dataDir, 'client')),
    stop: () => s.stop('SIGTERM'),
  };
}

/** Namespace and CRD, Established and served; one create checked for the defaults. */
async function setUp(tls: TlsFiles, label: string): Promise<void> {
  const c = new Client(tls.server, { connect: { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } });
  try {
    const ns = await apiJson(c, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    if (ns.status !== 201) throw new Error(`${label}: namespace: ${ns.status} ${ns.text.slice(0, 300)}`);
    const crd = await apiJson(c, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', CRD);
    if (crd.status !== 201) throw new Error(`${label}: CRD: ${crd.status} ${crd.text.slice(0, 500)}`);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const got = await apiJson(c, 'GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD.metadata.name}`);
      const established = (got.json?.status?.conditions ?? []).some((x: { type: string; status: string }) => x.type === 'Established' && x.status === 'True');
      if (established && (await apiJson(c, 'GET', CR_PATH)).status === 200) break;
      if (Date.now() > deadline) throw new Error(`${label}: the CRD was not Established and served within 60 s`);
      await sleep(100);
    }
    const one = await apiJson(c, 'POST', CR_PATH, CR_BODY.replace('$NAME', 'check').replace('$NAMESPACE', NAMESPACE));
    if (one.status !== 201) throw new Error(`${label}: first custom resource: ${one.status} ${one.text.slice(0, 500)}`);
    const missing = DEFAULTED.filter((k) => one.json.spec?.[k] === undefined);
    if (missing.length || one.json.spec.resources.memory !== '128Mi') throw new Error(`${label}: defaults not applied: ${missing.join(', ')} ${one.text.slice(0, 500)}`);
  } finally {
    await c.close();
  }
}

// ---------------------------------------------------------------------------------------------
// one round of one server

interface LoadOut {
  ok: number;
  /** Requests sent, warm-up included. */
  sent: number;
  okPerSec: number;
  statuses: Record<string, number>;
  errors: number;
  errorSamples: string[] | null;
  badSamples: string[] | null;
  latencyMs: { n: number; p50: number; p99: number; max: number };
  client?: { cpuSeconds: number; wallSeconds: number };
}
interface Window {
  what: 'cr' | 'cm';
  round: number;
  /** This server: the pair of windows (one of each kind, back to back) it belongs to. */
  pair: number;
  target: 'this' | 'kube';
  out: LoadOut;
  /** The server's CPU (all its processes) per request sent over warm-up and window, µs. */
  cpuUsPerCreate: number;
}

let loadgenBin = '';

const cpuOf = (pids: number[]): number => pids.reduce((a, p) => a + procCpuMs(p), 0);

async function window(run: Running, what: 'cr' | 'cm', roundNo: number, target: 'this' | 'kube', pair = 0): Promise<Window> {
  const { tls } = run;
  const params: Record<string, unknown> = { proto: 'h1', conns: cfg.connections, warmupMs: cfg.warmupS * 1000, durationMs: cfg.durationS * 1000, namespace: NAMESPACE, prefix: `${what}-${roundNo}-${pair}` };
  if (what === 'cr') Object.assign(params, { createPath: CR_PATH, body: CR_BODY });
  const cpu0 = cpuOf(run.pids);
  const out = await runLoadgen<LoadOut>(loadgenBin, 'load', tls, params);
  const cpuUsPerCreate = round(((cpuOf(run.pids) - cpu0) * 1000) / out.sent, 0);
  const bad = out.errors || Object.keys(out.statuses).some((s) => s !== '201');
  log(`  ${what === 'cr' ? 'custom resource' : 'ConfigMap'} creates: ${fmt(out.okPerSec)}/s, p50 ${fmt(out.latencyMs.p50)} p99 ${fmt(out.latencyMs.p99)} ms, server CPU ${fmt(cpuUsPerCreate, 0)} µs/create${bad ? `; WARN statuses ${JSON.stringify(out.statuses)} errors ${out.errors} ${JSON.stringify(out.errorSamples ?? out.badSamples)}` : ''}`);
  if (out.ok === 0) throw new Error(`${target} ${what}: no create succeeded: ${JSON.stringify(out.badSamples ?? out.errorSamples)}`);
  return { what, round: roundNo, pair, target, out, cpuUsPerCreate };
}

/**
 * Untimed creates of both kinds before the windows (--prewarm s each): the first window after a
 * launch would otherwise also pay for the JIT, caches and heap growth the second one finds done.
 */
async function prewarm(run: Running, roundNo: number): Promise<void> {
  for (const what of ['cr', 'cm'] as const) {
    const params: Record<string, unknown> = { proto: 'h1', conns: cfg.connections, warmupMs: 0, durationMs: cfg.prewarmS * 1000, namespace: NAMESPACE, prefix: `warm-${what}-${roundNo}` };
    if (what === 'cr') Object.assign(params, { createPath: CR_PATH, body: CR_BODY });
    await runLoadgen<LoadOut>(loadgenBin, 'load', run.tls, params);
  }
}

/** Reads on this server: pages of LIST_PAGE of each kind (limit=LIST_PAGE), LIST_TIMES times alternated, ms each. */
const LIST_PAGE = 1000;
const LIST_TIMES = 7;
const listTimes: { cr: number[]; cm: number[] } = { cr: [], cm: [] };

async function timeLists(tls: TlsFiles): Promise<void> {
  const c = new Client(tls.server, { connect: { ca: readFileSync(tls.ca), cert: readFileSync(tls.cert), key: readFileSync(tls.key) } });
  try {
    const paths = { cr: `${CR_PATH}?limit=${LIST_PAGE}`, cm: `/api/v1/namespaces/${NAMESPACE}/configmaps?limit=${LIST_PAGE}` };
    for (let i = 0; i < LIST_TIMES; i++) {
      for (const what of i % 2 ? (['cm', 'cr'] as const) : (['cr', 'cm'] as const)) {
        const t = performance.now();
        const r = await apiJson(c, 'GET', paths[what]);
        const ms = performance.now() - t;
        if (r.status !== 200 || r.json?.items?.length !== LIST_PAGE) throw new Error(`LIST ${what}: ${r.status} ${r.json?.items?.length} items`);
        listTimes[what].push(round(ms, 1));
      }
    }
    log(`  LIST ${LIST_PAGE} custom resources: median ${fmt(median(listTimes.cr))} ms; ConfigMaps: median ${fmt(median(listTimes.cm))} ms`);
  } finally {
    await c.close();
  }
}

async function runThis(roundNo: number): Promise<Window[]> {
  log(`round ${roundNo}: this server`);
  const run = await launchThis(join(tmpRoot, `this-r${roundNo}`));
  try {
    await setUp(run.tls, 'this server');
    await prewarm(run, roundNo);
    const out: Window[] = [];
    for (let pair = 0; pair < cfg.pairs; pair++) {
      // which kind goes first alternates (ABBA): the first window of a launch runs slower
      const order: ('cr' | 'cm')[] = (roundNo + pair) % 2 === 1 ? ['cr', 'cm'] : ['cm', 'cr'];
      for (const w of order) out.push(await window(run, w, roundNo, 'this', pair));
    }
    await timeLists(run.tls);
    return out;
  } finally {
    await run.stop();
  }
}

async function runKube(roundNo: number): Promise<Window[]> {
  log(`round ${roundNo}: kube-apiserver + etcd`);
  const run = await launchKube(join(tmpRoot, `kube-r${roundNo}`));
  try {
    await setUp(run.tls, 'kube-apiserver');
    await prewarm(run, roundNo);
    return [await window(run, 'cr', roundNo, 'kube'), await window(run, 'cm', roundNo, 'kube')];
  } finally {
    await run.stop();
  }
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
try {
  ensureServerBuilt(log);
  ref.ensureBuilt(log);
  loadgenBin = buildLoadgen(tmpRoot, 'crd-loadgen', log);
  const windows: Window[] = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    const order = r % 2 === 1 ? [runThis, runKube] : [runKube, runThis];
    for (const f of order) windows.push(...(await f(r)));
  }
  const rate = (target: 'this' | 'kube', what: 'cr' | 'cm') => round(median(windows.filter((w) => w.target === target && w.what === what).map((w) => w.out.okPerSec)), 1);
  const p99 = (target: 'this' | 'kube', what: 'cr' | 'cm') => round(median(windows.filter((w) => w.target === target && w.what === what).map((w) => w.out.latencyMs.p99)), 1);
  const cpu = (target: 'this' | 'kube', what: 'cr' | 'cm') => round(median(windows.filter((w) => w.target === target && w.what === what).map((w) => w.cpuUsPerCreate)), 0);
  const cpuFig = { thisCr: cpu('this', 'cr'), thisCm: cpu('this', 'cm'), kubeCr: cpu('kube', 'cr'), kubeCm: cpu('kube', 'cm') };
  const fig = { thisCr: rate('this', 'cr'), thisCm: rate('this', 'cm'), kubeCr: rate('kube', 'cr'), kubeCm: rate('kube', 'cm') };
  // Custom resource ÷ ConfigMap within each pair (neighbours in time share the machine's state).
  const pairRatios = windows
    .filter((w) => w.target === 'this' && w.what === 'cr')
    .map((c) => c.out.okPerSec / windows.find((m) => m.target === 'this' && m.what === 'cm' && m.round === c.round && m.pair === c.pair)!.out.okPerSec);
  const goals = [
    { name: 'custom resource creates/s: this ÷ kube', value: round(fig.thisCr / fig.kubeCr, 2), goal: '≥ 3' },
    { name: `this server: custom resource ÷ ConfigMap creates/s (median of ${pairRatios.length} pairs)`, value: round(median(pairRatios), 2), goal: '≥ 0.7' },
  ].map((g) => ({ ...g, met: g.value >= Number(g.goal.slice(2)) }));
  // The same ratios on server CPU per create: steadier than rates when other work shares the cores.
  const cpuRatios = { crThisOverKube: round(cpuFig.kubeCr / cpuFig.thisCr, 2), crOverCmThis: round(cpuFig.thisCm / cpuFig.thisCr, 2) };
  const report = {
    kind: 'crd',
    timestamp: new Date().toISOString(),
    config: cfg,
    machine,
    reference: spawnSync(join(ref.bin, 'kube-apiserver'), ['--version'], { encoding: 'utf8' }).stdout.trim(),
    summary: { createsPerSec: fig, pairRatios: pairRatios.map((r) => round(r, 3)), cpuUsPerCreate: cpuFig, cpuRatios, p99Ms: { thisCr: p99('this', 'cr'), thisCm: p99('this', 'cm'), kubeCr: p99('kube', 'cr'), kubeCm: p99('kube', 'cm') }, listMs: { page: LIST_PAGE, cr: median(listTimes.cr), cm: median(listTimes.cm), all: listTimes }, goals },
    windows,
    serverLog: { warn: serverLog.warn, error: serverLog.error, samples: serverLog.samples, unexpectedExits: serverLog.unexpectedExits },
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  const file = writeResult('crd', report);
  const row = (name: string, t: string, k: string) => `| ${name.padEnd(40)} | ${t.padStart(15)} | ${k.padStart(22)} |`;
  const out = [
    '',
    `Custom resource (20-field schema, 11 defaults) vs ConfigMap creates, this server vs ${report.reference} + etcd (both fsync on);`,
    `HTTP/1.1 × ${cfg.connections}, ${cfg.rounds} round(s) alternated (this server: ${cfg.pairs} pair(s) of windows each), ${cfg.warmupS} + ${cfg.durationS} s windows, medians; load avg at start ${machine.loadAvg1AtStart}`,
    '',
    row('figure', 'this server', 'kube-apiserver + etcd'),
    row('-'.repeat(40), '-'.repeat(15), '-'.repeat(22)),
    row('custom resource creates/s (p99 ms)', `${fmt(fig.thisCr, 0)} (${fmt(report.summary.p99Ms.thisCr)})`, `${fmt(fig.kubeCr, 0)} (${fmt(report.summary.p99Ms.kubeCr)})`),
    row('ConfigMap creates/s (p99 ms)', `${fmt(fig.thisCm, 0)} (${fmt(report.summary.p99Ms.thisCm)})`, `${fmt(fig.kubeCm, 0)} (${fmt(report.summary.p99Ms.kubeCm)})`),
    row('server CPU per custom resource (µs)', fmt(cpuFig.thisCr, 0), fmt(cpuFig.kubeCr, 0)),
    row('server CPU per ConfigMap (µs)', fmt(cpuFig.thisCm, 0), fmt(cpuFig.kubeCm, 0)),
    row(`LIST ${LIST_PAGE} custom resources (ms)`, fmt(median(listTimes.cr)), ''),
    row(`LIST ${LIST_PAGE} ConfigMaps (ms)`, fmt(median(listTimes.cm)), ''),
    '',
    'Per window (run order):',
    ...windows.map((w) => `  round ${w.round}${w.target === 'this' ? ` pair ${w.pair + 1}` : '       '} ${w.target.padEnd(4)} ${w.what}: ${fmt(w.out.okPerSec, 0)}/s, p99 ${fmt(w.out.latencyMs.p99)} ms, server CPU ${fmt(w.cpuUsPerCreate, 0)} µs/create`),
    '',
    ...goals.map((g) => `${g.met ? 'MET ' : 'MISS'}  ${g.name}: ${g.value}   goal ${g.goal}`),
    `On server CPU per create (steadier on a shared machine): custom resource kube ÷ this ${cpuRatios.crThisOverKube}; this server's ConfigMap ÷ custom resource ${cpuRatios.crOverCmThis}`,
    `total ${report.totalSeconds} s; JSON: ${file}`,
  ];
  process.stdout.write(out.join('\n') + '\n');
} catch (e) {
  reportBenchFailure(e);
} finally {
  endBench(tmpRoot, args.keep!);
}
