/**
 * This server against real kube-apiserver 1.24.17 + etcd 3.5, side by side in one run
 * (`npm run bench:vs-kube`, issue 14).
 *
 *   node --import tsx bench/vs-kube.ts [--objects 20000,100000] [--rounds 3] [--watchers 1000]
 *        [--watch-rates 50,200] [--duration S] [--warmup S] [--connections 64] [--limit 500]
 *        [--list-runs N] [--streams-per-conn 100] [--port 16458] [--ref-port 16457]
 *        [--reference-dir ../shared/reference] [--quick] [--keep]
 *
 * Both servers are driven by ONE load generator, bench/loadgen (Go: net/http for HTTP/1.1,
 * golang.org/x/net/http2 for HTTP/2 on one connection), built here into the temp dir with the
 * modules of the Go proxy cached in .cache/go (test/go-env.ts). Same binary, same 1 KiB ConfigMap
 * bodies (bench/util.ts configMapBody, byte for byte), same client TLS settings (admin client
 * certificate from each server's kubeconfig), same pre-population (the generator's `fill`: HTTP/1.1
 * POSTs over --connections connections). The servers never run at the same time: each round runs
 * one after the other, and the order alternates between rounds (odd rounds this server first).
 * Figures are medians over the rounds; p99s are the median of the rounds' p99s, shown with the
 * number of samples each p99 came from.
 *
 * The reference is built by ../shared/reference/build.sh when its binaries are missing, and started
 * with its start.sh (etcd with fsync, the default) on --ref-port; this server is cmd/apiserver.ts as
 * a child process (bench/server.ts) with the embedded log and fsync on (the default), on --port.
 * Before round 1, each is launched once untimed (page cache, tsx cache, and the reference's PKI,
 * which start.sh makes with openssl: copied into every later data dir, as this server's is, so no
 * launch figure includes key generation).
 *
 * One round, per server, on a fresh data dir:
 *   1. launch → first 200 from /readyz (the generator polls every 10 ms on a fresh TLS connection,
 *      from before the spawn; both clocks are CLOCK_MONOTONIC), timed from the spawn of the
 *      server's first process (node; etcd, which start.sh spawns after its preamble), RSS idle
 *      after --settle s;
 *   2. fill namespace vs-list up to each --objects size; after each, --list-runs unpaged LISTs and
 *      --list-runs paged LISTs (limit=--limit, following continue), RSS sampled every 100 ms;
 *   3. restart on the same data dir: launch → /readyz with the objects (both stores then hold the
 *      same objects, since the create load comes after);
 *   4. creates: --connections HTTP/1.1 connections, then --connections streams on one HTTP/2
 *      connection, closed loop, --warmup + --duration s each; a sequential GET probe on its own
 *      connection alongside (GET p99 during the create load);
 *   5. watch fan-out: --watchers watches of one namespace (HTTP/2, --streams-per-conn streams per
 *      connection) while a paced writer creates --watch-rates ConfigMaps/s there; delivery =
 *      receive time − the writer's ack time (one Go process, one clock).
 * Each round also measures the machine's ceiling: the bare Node HTTPS JSON echo of bench/run.ts
 * (bench/ceiling-server.ts) under the same generator, HTTP/1.1 × --connections, and HTTP/2 on one
 * connection against its http2 (allowHTTP1) variant.
 * RSS: this server's pid; the reference: kube-apiserver + etcd.
 *
 * --quick: 2 rounds, 2,000 objects, 100 watchers at 20 creates/s, 0.5 + 2 s windows (~2 minutes).
 * Prints a table and writes bench/results/vs-kube-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensurePki } from '../internal/auth/pki.ts';
import { reference, ensureServerBuilt } from './reference.ts';
import { startCeilingServer } from './ceilings.ts';
import { buildLoadgen as buildLoadgenBinary } from './loadgen-client.ts';
import { serverLog, reportBenchFailure } from './server.ts';
import { sideBySide, cpuOf, pkiTls, rssOf, sampleRss, type ClientUse, type ListRun, type LoadOut, type Target, type WatchOut } from './side-by-side.ts';
import { benchSession, endBench, cpuSnapshot, otherCpuPercent, loadAvg1, fmt, installWatchdog, median, round, sleep, writeResult } from './util.ts';


const { values: args } = parseArgs({
  options: {
    objects: { type: 'string' },
    rounds: { type: 'string' },
    watchers: { type: 'string' },
    'watch-rates': { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    limit: { type: 'string' },
    'list-runs': { type: 'string' },
    'streams-per-conn': { type: 'string' },
    settle: { type: 'string' },
    port: { type: 'string' },
    'ref-port': { type: 'string' },
    'reference-dir': { type: 'string' },
    quick: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const quick = args.quick!;
const numList = (v: string) => v.split(',').map((s) => Number(s.trim()));
const cfg = {
  quick,
  objects: numList(args.objects ?? (quick ? '2000' : '20000,100000')).sort((a, b) => a - b),
  rounds: Number(args.rounds ?? (quick ? 2 : 3)),
  watchers: Number(args.watchers ?? (quick ? 100 : 1000)),
  watchRates: numList(args['watch-rates'] ?? (quick ? '20' : '50,200')),
  durationS: Number(args.duration ?? (quick ? 2 : 10)),
  warmupS: Number(args.warmup ?? (quick ? 0.5 : 2)),
  connections: Number(args.connections ?? 64),
  limit: Number(args.limit ?? 500),
  listRuns: Number(args['list-runs'] ?? (quick ? 2 : 3)),
  streamsPerConn: Number(args['streams-per-conn'] ?? 100),
  settleS: Number(args.settle ?? (quick ? 1 : 3)),
  port: Number(args.port ?? 16458),
  refPort: Number(args['ref-port'] ?? 16457),
  probeObjects: 100,
  watchDrainS: 2,
};
for (const [k, v] of Object.entries(cfg)) {
  const bad = typeof v === 'number' ? !(v > 0) : Array.isArray(v) ? !v.length || v.some((x) => !(x > 0)) : false;
  if (bad) throw new Error(`bad --${k}: ${v}`);
}
const ref = reference(args['reference-dir']);

installWatchdog((quick ? 15 : 240) * 60_000);
const { log, tmpRoot, machine } = benchSession('vs-kube', args.keep!, cfg);

// ---------------------------------------------------------------------------------------------
// the load generator and the two servers (bench/side-by-side.ts)

let loadgenBin = '';

function buildLoadgen(): void {
  loadgenBin = buildLoadgenBinary(tmpRoot, 'vskube-loadgen', log);
}

const sides = sideBySide({ tmpRoot, log, ref, loadgenBin: () => loadgenBin, port: cfg.port, refPort: cfg.refPort });
const loadgen = sides.loadgen;
const kubeTarget = sides.kube;
const thisTarget = sides.server();

// ---------------------------------------------------------------------------------------------
// one round of one server

interface SizeResult {
  objects: number;
  fill: { ok: number; failed: number; ms: number; perSec: number; samples: string[] | null };
  unpaged: ListRun[];
  paged: ListRun[];
  unpagedMedianMs: number;
  pagedMedianMs: number;
  pagedFirstPageMedianMs: number;
  pagedContinueP50MedianMs: number;
  rssDuringListsMaxMiB: number;
  rssAfterListsMiB: number;
}

interface TargetRound {
  target: string;
  round: number;
  order: number;
  launchEmptyMs: number;
  launchWithObjectsMs: number;
  objectsAtRelaunch: number;
  launchNotes: string[];
  rssIdleMiB: number;
  sizes: SizeResult[];
  createsH1: LoadOut;
  createsH2: LoadOut;
  watch: (WatchOut & { rate: number })[];
  otherCpuPercent: number;
  /** CPU the server's processes used over the round (both launches). */
  serverCpuSeconds: number;
  seconds: number;
}

async function runTarget(t: Target, roundNo: number, order: number): Promise<TargetRound> {
  const t0 = performance.now();
  const snap = cpuSnapshot();
  const dataDir = join(tmpRoot, `${t.key}-r${roundNo}`);
  log(`round ${roundNo}: ${t.label}: launch on an empty data dir`);
  let run = await t.launch(dataDir, true);
  let serverCpuMs = 0;
  const notes: string[] = [];
  if (run.note) notes.push(run.note);
  try {
    const launchEmptyMs = run.launchMs;
    await sleep(cfg.settleS * 1000);
    const rssIdleMiB = rssOf(run.pids);
    log(`  readyz after ${fmt(launchEmptyMs, 0)} ms; idle RSS ${fmt(rssIdleMiB)} MiB`);
    const namespaces = ['vs-load', 'vs-list', ...cfg.watchRates.map((r, i) => `vs-watch-${i}-${r}`)];
    await loadgen('prep', run.tls, { namespaces, namespace: 'vs-load', probeCount: cfg.probeObjects });

    // --- fill and lists
    const sizes: SizeResult[] = [];
    let filled = 0;
    for (const n of cfg.objects) {
      log(`  fill vs-list ${filled} → ${n} (HTTP/1.1 × ${cfg.connections})`);
      const fill = await loadgen<SizeResult['fill']>('fill', run.tls, { namespace: 'vs-list', conns: cfg.connections, from: filled, to: n });
      if (fill.failed) throw new Error(`${t.label}: fill failed ${fill.failed}: ${fill.samples?.join('; ')}`);
      filled = n;
      const sampler = sampleRss(run.pids);
      const path = '/api/v1/namespaces/vs-list/configmaps';
      const unpaged = (await loadgen<{ runs: ListRun[] }>('list', run.tls, { path, limit: 0, runs: cfg.listRuns })).runs;
      const paged = (await loadgen<{ runs: ListRun[] }>('list', run.tls, { path, limit: cfg.limit, runs: cfg.listRuns })).runs;
      const rss = sampler.stop();
      for (const r of [...unpaged, ...paged]) if (r.items < n) throw new Error(`${t.label}: a LIST returned ${r.items} items, ${n} were created`);
      const s: SizeResult = {
        objects: n,
        fill,
        unpaged,
        paged,
        unpagedMedianMs: median(unpaged.map((r) => r.totalMs)),
        pagedMedianMs: median(paged.map((r) => r.totalMs)),
        pagedFirstPageMedianMs: median(paged.map((r) => r.firstPageMs)),
        pagedContinueP50MedianMs: median(paged.map((r) => r.continueMs.p50)),
        rssDuringListsMaxMiB: rss.maxMiB,
        rssAfterListsMiB: rss.endMiB,
      };
      sizes.push(s);
      log(`  LIST ${n}: unpaged ${fmt(s.unpagedMedianMs, 0)} ms, paged ${fmt(s.pagedMedianMs, 0)} ms (first page ${fmt(s.pagedFirstPageMedianMs)} / continue p50 ${fmt(s.pagedContinueP50MedianMs)} ms); RSS max ${fmt(rss.maxMiB)} MiB`);
    }

    // --- restart with the objects
    serverCpuMs += cpuOf(run.pids);
    await run.stop();
    log(`  restart with ${filled} objects`);
    run = await t.launch(dataDir, false);
    if (run.note) notes.push(run.note);
    const launchWithObjectsMs = run.launchMs;
    log(`  readyz after ${fmt(launchWithObjectsMs, 0)} ms`);

    // --- creates
    const loadParams = (proto: string) => ({ proto, conns: cfg.connections, warmupMs: cfg.warmupS * 1000, durationMs: cfg.durationS * 1000, namespace: 'vs-load', prefix: `${proto}-${roundNo}`, probeNamespace: 'vs-load', probeCount: cfg.probeObjects });
    const createsH1 = await loadgen<LoadOut>('load', run.tls, loadParams('h1'));
    log(`  creates h1×${cfg.connections}: ${fmt(createsH1.okPerSec)}/s, p99 ${fmt(createsH1.latencyMs.p99)} max ${fmt(createsH1.latencyMs.max)} ms; GET p99 ${fmt(createsH1.probe?.latencyMs.p99 ?? NaN)} ms`);
    const createsH2 = await loadgen<LoadOut>('load', run.tls, loadParams('h2'));
    log(`  creates h2×1 (${cfg.connections} streams): ${fmt(createsH2.okPerSec)}/s, p99 ${fmt(createsH2.latencyMs.p99)} max ${fmt(createsH2.latencyMs.max)} ms; GET p99 ${fmt(createsH2.probe?.latencyMs.p99 ?? NaN)} ms`);
    for (const c of [createsH1, createsH2]) if (c.errors || Object.keys(c.statuses).some((s) => s !== '201')) log(`  WARN: ${c.proto}: statuses ${JSON.stringify(c.statuses)} errors ${c.errors} ${JSON.stringify(c.errorSamples ?? c.badSamples)}`);

    // --- watch fan-out
    const watch: TargetRound['watch'] = [];
    for (const [i, rate] of cfg.watchRates.entries()) {
      const w = await loadgen<WatchOut>('watch', run.tls, {
        namespace: `vs-watch-${i}-${rate}`,
        watchers: cfg.watchers,
        streamsPerConn: cfg.streamsPerConn,
        rate,
        warmupMs: 1000,
        durationMs: cfg.durationS * 1000,
        drainMs: cfg.watchDrainS * 1000,
        writerConns: 16,
      });
      watch.push({ ...w, rate });
      log(`  watch ${cfg.watchers} × ${rate}/s: delivery p50 ${fmt(w.deliveryMs.p50)} p99 ${fmt(w.deliveryMs.p99)} ms (n ${w.deliveryMs.n}), writer ${fmt(w.writeRate)}/s, missing ${w.missing}, dropped ${w.dropped}`);
    }
    serverCpuMs += cpuOf(run.pids);
    const detached = run.detached;
    await run.stop();
    const end = cpuSnapshot();
    const wallMs = end.at - snap.at;
    // The reference runs outside this process tree: its CPU would count as "other processes".
    const other = Math.max(0, otherCpuPercent(snap, end) - (detached ? (serverCpuMs / wallMs) * 100 : 0));
    return {
      target: t.key,
      round: roundNo,
      order,
      launchEmptyMs,
      launchWithObjectsMs,
      objectsAtRelaunch: filled + cfg.probeObjects,
      launchNotes: notes,
      rssIdleMiB,
      sizes,
      createsH1,
      createsH2,
      watch,
      otherCpuPercent: round(other, 0),
      serverCpuSeconds: round(serverCpuMs / 1000, 1),
      seconds: round((performance.now() - t0) / 1000, 1),
    };
  } finally {
    await run.stop().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------
// the machine's ceiling, same generator

interface CeilingRound {
  round: number;
  h1: LoadOut;
  h2: LoadOut;
}

async function runCeiling(roundNo: number): Promise<CeilingRound> {
  const pki = join(tmpRoot, 'ceiling-pki');
  await ensurePki(pki, { hosts: ['127.0.0.1'] });
  const one = async (mode: 'https' | 'h2compat', proto: 'h1' | 'h2') => {
    const cs = await startCeilingServer(pki, mode);
    try {
      return await loadgen<LoadOut>('load', pkiTls(cs.origin, pki), { proto, conns: cfg.connections, warmupMs: cfg.warmupS * 1000, durationMs: cfg.durationS * 1000, namespace: 'default', prefix: `ceil-${proto}` });
    } finally {
      await cs.stop();
    }
  };
  const h1 = await one('https', 'h1');
  const h2 = await one('h2compat', 'h2');
  log(`round ${roundNo}: ceiling (bare Node HTTPS JSON echo): h1×${cfg.connections} ${fmt(h1.okPerSec)} req/s; h2×1 (node:http2) ${fmt(h2.okPerSec)} req/s`);
  return { round: roundNo, h1, h2 };
}

// ---------------------------------------------------------------------------------------------
// report

const med = (xs: number[]) => round(median(xs), 2);
const ch1Of = (ceilings: CeilingRound[]) => med(ceilings.map((c) => c.h1.okPerSec));

function table(rounds: TargetRound[], ceilings: CeilingRound[]): { lines: string[]; summary: Record<string, unknown> } {
  const of = (k: 'this' | 'kube') => rounds.filter((r) => r.target === k);
  const T = of('this');
  const K = of('kube');
  const m = (rs: TargetRound[], f: (r: TargetRound) => number) => med(rs.map(f));
  const nOf = (rs: TargetRound[], f: (r: TargetRound) => number) => Math.round(median(rs.map(f)));
  const ms = (v: number) => (v >= 100 ? fmt(v, 0) : fmt(v, 1));
  const ratio = (a: number, b: number, digits = 2) => (b > 0 && Number.isFinite(a) ? `${fmt(a / b, digits)}×` : '–');
  const rows: [string, string, string, string][] = [];
  const summary: Record<string, unknown> = {};
  const add = (name: string, t: string, k: string, r: string) => rows.push([name, t, k, r]);

  const c1 = (rs: TargetRound[]) => m(rs, (r) => r.createsH1.okPerSec);
  const c2 = (rs: TargetRound[]) => m(rs, (r) => r.createsH2.okPerSec);
  add(`creates/s: HTTP/1.1 × ${cfg.connections} / HTTP/2 × 1`, `${fmt(c1(T), 0)} / ${fmt(c2(T), 0)}`, `${fmt(c1(K), 0)} / ${fmt(c2(K), 0)}`, `${ratio(c1(T), c1(K))} / ${ratio(c2(T), c2(K))}`);
  summary.createsPerSec = { this: { h1: c1(T), h2: c2(T) }, kube: { h1: c1(K), h2: c2(K) } };
  const lat = (rs: TargetRound[], h: 'createsH1' | 'createsH2') => ({ p99: m(rs, (r) => r[h].latencyMs.p99), max: m(rs, (r) => r[h].latencyMs.max), n: nOf(rs, (r) => r[h].latencyMs.n) });
  for (const h of ['createsH1', 'createsH2'] as const) {
    const a = lat(T, h);
    const b = lat(K, h);
    add(`create p99 / max, ${h === 'createsH1' ? 'h1' : 'h2'} (ms, n/round)`, `${ms(a.p99)} / ${ms(a.max)} (n ${a.n})`, `${ms(b.p99)} / ${ms(b.max)} (n ${b.n})`, `${ratio(a.p99, b.p99)} / ${ratio(a.max, b.max)}`);
    summary[`createLatency_${h}`] = { this: a, kube: b };
  }
  const gp = (rs: TargetRound[], h: 'createsH1' | 'createsH2') => ({ p99: m(rs, (r) => r[h].probe?.latencyMs.p99 ?? NaN), p50: m(rs, (r) => r[h].probe?.latencyMs.p50 ?? NaN), n: nOf(rs, (r) => r[h].probe?.latencyMs.n ?? 0) });
  {
    const a = gp(T, 'createsH1');
    const b = gp(K, 'createsH1');
    const a2 = gp(T, 'createsH2');
    const b2 = gp(K, 'createsH2');
    add('GET p99 during the create load h1 / h2 (ms)', `${ms(a.p99)} (n ${a.n}) / ${ms(a2.p99)} (n ${a2.n})`, `${ms(b.p99)} (n ${b.n}) / ${ms(b2.p99)} (n ${b2.n})`, `${ratio(a.p99, b.p99)} / ${ratio(a2.p99, b2.p99)}`);
    summary.getDuringCreates = { this: { h1: a, h2: a2 }, kube: { h1: b, h2: b2 } };
  }
  const sizeSummary: Record<string, unknown> = {};
  for (const [i, n] of cfg.objects.entries()) {
    const s = (rs: TargetRound[], f: (x: SizeResult) => number) => med(rs.map((r) => f(r.sizes[i]!)));
    const N = fmt(n, 0);
    const up = [s(T, (x) => x.unpagedMedianMs), s(K, (x) => x.unpagedMedianMs)] as const;
    add(`LIST ${N}, no limit (ms)`, ms(up[0]), ms(up[1]), ratio(up[0], up[1]));
    const pg = [s(T, (x) => x.pagedMedianMs), s(K, (x) => x.pagedMedianMs)] as const;
    const pages = Math.ceil(n / cfg.limit);
    add(`LIST ${N}, limit=${cfg.limit} (${pages} pages), total (ms)`, ms(pg[0]), ms(pg[1]), ratio(pg[0], pg[1]));
    const fp = [s(T, (x) => x.pagedFirstPageMedianMs), s(K, (x) => x.pagedFirstPageMedianMs)] as const;
    const cp = [s(T, (x) => x.pagedContinueP50MedianMs), s(K, (x) => x.pagedContinueP50MedianMs)] as const;
    add(`  first page / continue page p50 (ms)`, `${ms(fp[0])} / ${ms(cp[0])}`, `${ms(fp[1])} / ${ms(cp[1])}`, `${ratio(fp[0], fp[1])} / ${ratio(cp[0], cp[1])}`);
    const rm = [s(T, (x) => x.rssDuringListsMaxMiB), s(K, (x) => x.rssDuringListsMaxMiB)] as const;
    add(`  RSS peak during the LISTs of ${N} (MiB)`, fmt(rm[0], 0), fmt(rm[1], 0), ratio(rm[0], rm[1]));
    const fl = [s(T, (x) => x.fill.perSec), s(K, (x) => x.fill.perSec)] as const;
    add(`  pre-population creates/s (h1 × ${cfg.connections})`, fmt(fl[0], 0), fmt(fl[1], 0), ratio(fl[0], fl[1]));
    sizeSummary[String(n)] = { unpagedMs: up, pagedMs: pg, firstPageMs: fp, continueP50Ms: cp, rssPeakMiB: rm, fillPerSec: fl, order: ['this', 'kube'] };
  }
  summary.lists = sizeSummary;
  const watchSummary: Record<string, unknown> = {};
  for (const [i, rate] of cfg.watchRates.entries()) {
    const w = (rs: TargetRound[], f: (x: WatchOut) => number) => med(rs.map((r) => f(r.watch[i]!)));
    const a = { p50: w(T, (x) => x.deliveryMs.p50), p99: w(T, (x) => x.deliveryMs.p99), n: Math.round(median(T.map((r) => r.watch[i]!.deliveryMs.n))), rate: w(T, (x) => x.writeRate), missing: w(T, (x) => x.missing), dropped: w(T, (x) => x.dropped) };
    const b = { p50: w(K, (x) => x.deliveryMs.p50), p99: w(K, (x) => x.deliveryMs.p99), n: Math.round(median(K.map((r) => r.watch[i]!.deliveryMs.n))), rate: w(K, (x) => x.writeRate), missing: w(K, (x) => x.missing), dropped: w(K, (x) => x.dropped) };
    add(`${fmt(cfg.watchers, 0)} watchers, ${rate} creates/s: delivery p50 / p99 (ms)`, `${ms(a.p50)} / ${ms(a.p99)} (n ${a.n})`, `${ms(b.p50)} / ${ms(b.p99)} (n ${b.n})`, `${ratio(a.p50, b.p50)} / ${ratio(a.p99, b.p99)}`);
    add(`  writer rate achieved; missing / dropped`, `${fmt(a.rate, 1)}/s; ${a.missing} / ${a.dropped}`, `${fmt(b.rate, 1)}/s; ${b.missing} / ${b.dropped}`, '');
    watchSummary[String(rate)] = { this: a, kube: b };
  }
  summary.watch = watchSummary;
  const le = [m(T, (r) => r.launchEmptyMs), m(K, (r) => r.launchEmptyMs)];
  const lo = [m(T, (r) => r.launchWithObjectsMs), m(K, (r) => r.launchWithObjectsMs)];
  const objs = fmt(T[0]?.objectsAtRelaunch ?? NaN, 0);
  add(`launch → /readyz: empty / ${objs} objects (s)`, `${fmt(le[0]! / 1000, 2)} / ${fmt(lo[0]! / 1000, 2)}`, `${fmt(le[1]! / 1000, 2)} / ${fmt(lo[1]! / 1000, 2)}`, `${ratio(le[0]!, le[1]!)} / ${ratio(lo[0]!, lo[1]!)}`);
  summary.launchMs = { empty: le, withObjects: lo, order: ['this', 'kube'] };
  const big = cfg.objects.length - 1;
  const ri = [m(T, (r) => r.rssIdleMiB), m(K, (r) => r.rssIdleMiB)];
  const ra = [m(T, (r) => r.sizes[big]!.rssAfterListsMiB), m(K, (r) => r.sizes[big]!.rssAfterListsMiB)];
  add(`RSS idle / after the LISTs of ${fmt(cfg.objects[big]!, 0)} (MiB)`, `${fmt(ri[0]!, 0)} / ${fmt(ra[0]!, 0)}`, `${fmt(ri[1]!, 0)} / ${fmt(ra[1]!, 0)}`, `${ratio(ri[0]!, ri[1]!)} / ${ratio(ra[0]!, ra[1]!)}`);
  summary.rssMiB = { idle: ri, afterBigList: ra, order: ['this', 'kube'] };

  const ch1 = ch1Of(ceilings);
  const ch2 = med(ceilings.map((c) => c.h2.okPerSec));
  add(`ceiling: bare Node HTTPS JSON echo, h1 × ${cfg.connections} / h2 × 1 (req/s)`, `${fmt(ch1, 0)} / ${fmt(ch2, 0)}`, '', '');
  add('creates/s ÷ ceiling (h1 / h2)', `${fmt((c1(T) / ch1) * 100, 0)}% / ${fmt((c2(T) / ch2) * 100, 0)}%`, `${fmt((c1(K) / ch1) * 100, 0)}% / ${fmt((c2(K) / ch2) * 100, 0)}%`, '');
  summary.ceiling = { h1: ch1, h2: ch2 };
  summary.otherCpuPercent = { this: T.map((r) => r.otherCpuPercent), kube: K.map((r) => r.otherCpuPercent) };

  // start.sh's own figure (launch of etcd → its curl sees 200, polled every 100 ms): the
  // reference's launch without start.sh's preamble (port picking, kubeconfig), for comparison.
  const scriptSecs = (key: 'empty' | 'objects') => med(K.map((r) => Number(/readyz after ([\d.]+)s/.exec(r.launchNotes[key === 'empty' ? 0 : 1] ?? '')?.[1] ?? NaN)));
  summary.kubeStartShSeconds = { empty: scriptSecs('empty'), withObjects: scriptSecs('objects') };

  // The goals of issue 14, evaluated on what this run measured (sizes and rates as configured).
  const goals: { name: string; value: string; goal: string; met: boolean }[] = [];
  const goal = (name: string, v: number, goalText: string, met: boolean, digits = 2) => goals.push({ name, value: fmt(v, digits), goal: goalText, met: Number.isFinite(v) && met });
  const cr = c1(T) / c1(K);
  goal('creates/s h1 ÷ kube', cr, '≥ 3', cr >= 3);
  goal('creates/s h2 ÷ kube', c2(T) / c2(K), '≥ 3', c2(T) / c2(K) >= 3);
  goal('creates/s h1 ÷ bare HTTPS ceiling', c1(T) / ch1Of(ceilings), '≥ 0.40', c1(T) / ch1Of(ceilings) >= 0.4);
  const p99r = lat(T, 'createsH1').p99 / lat(K, 'createsH1').p99;
  goal('create p99 ÷ kube (h1)', p99r, '≤ 0.5', p99r <= 0.5);
  goal('GET p99 during creates, ms (h1)', gp(T, 'createsH1').p99, '≤ 10', gp(T, 'createsH1').p99 <= 10, 1);
  const mx = lat(T, 'createsH1').max / lat(T, 'createsH1').p99;
  goal('create max ÷ create p99 (h1)', mx, '≤ 3', mx <= 3);
  for (const [i, n] of cfg.objects.entries()) {
    const s = (rs: TargetRound[], f: (x: SizeResult) => number) => med(rs.map((r) => f(r.sizes[i]!)));
    const N = fmt(n, 0);
    const pg = s(K, (x) => x.pagedMedianMs) / s(T, (x) => x.pagedMedianMs);
    goal(`paged LIST ${N}: kube ÷ this`, pg, '≥ 2', pg >= 2);
    const cf = s(T, (x) => x.pagedContinueP50MedianMs) / s(T, (x) => x.pagedFirstPageMedianMs);
    goal(`paged LIST ${N}: continue p50 ÷ first page`, cf, '≤ 1', cf <= 1);
    const up = s(K, (x) => x.unpagedMedianMs) / s(T, (x) => x.unpagedMedianMs);
    goal(`LIST ${N} no limit: kube ÷ this`, up, '≥ 2', up >= 2);
    const rr = s(T, (x) => x.rssDuringListsMaxMiB) / s(K, (x) => x.rssDuringListsMaxMiB);
    goal(`RSS during the LISTs of ${N} ÷ kube`, rr, '≤ 0.33', rr <= 1 / 3);
  }
  for (const [i, rate] of cfg.watchRates.entries()) {
    const p99 = med(T.map((r) => r.watch[i]!.deliveryMs.p99));
    const kept = med(T.map((r) => r.watch[i]!.writeRate)) >= 0.95 * rate;
    goal(`watch ${cfg.watchers} × ${rate}/s: delivery p99 ms (writer kept rate: ${kept ? 'yes' : 'NO'})`, p99, '≤ 100', p99 <= 100 && kept, 1);
  }
  goal('launch → /readyz, empty, ms', le[0]!, '≤ 300', le[0]! <= 300, 0);
  goal(`launch → /readyz, ${objs} objects, ms`, lo[0]!, '≤ 1,000', lo[0]! <= 1000, 0);
  goal('RSS idle, MiB', ri[0]!, '≤ 100', ri[0]! <= 100, 0);
  summary.goals = goals;

  const head: [string, string, string, string] = ['figure', 'this server', 'kube-apiserver + etcd', 'this ÷ kube'];
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(w[i]!)).join(' | ')} |`;
  const lines = [line(head), `|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`, ...rows.map(line)];
  lines.push('', 'Goals of issue 14 (on the sizes and rates of this run)');
  for (const g of goals) lines.push(`  ${g.met ? 'MET ' : 'MISS'}  ${g.name.padEnd(64)} ${g.value.padStart(9)}   goal ${g.goal}`);
  return { lines, summary };
}

const clientPct = (o: ClientUse) => (o.client ? `${fmt((o.client.cpuSeconds / o.client.wallSeconds) * 100, 0)}%` : '?');

/** A few figures of every round, to show the spread behind the medians. */
function perRound(rounds: TargetRound[], ceilings: CeilingRound[]): string[] {
  const big = cfg.objects.length - 1;
  const L = ceilings.map((c) => `  round ${c.round} ceiling: h1 ${fmt(c.h1.okPerSec, 0)} / h2 ${fmt(c.h2.okPerSec, 0)} req/s`);
  for (const r of rounds) {
    const s = r.sizes[big]!;
    L.push(
      `  round ${r.round} ${r.target.padEnd(4)}: creates ${fmt(r.createsH1.okPerSec, 0)} / ${fmt(r.createsH2.okPerSec, 0)}/s, p99 ${fmt(r.createsH1.latencyMs.p99, 0)} / ${fmt(r.createsH2.latencyMs.p99, 0)} ms; GET p99 ${fmt(r.createsH1.probe?.latencyMs.p99 ?? NaN, 1)} ms; ` +
        `LIST ${s.objects}: ${fmt(s.unpagedMedianMs, 0)} / paged ${fmt(s.pagedMedianMs, 0)} ms; watch p99 ${r.watch.map((w) => fmt(w.deliveryMs.p99, 1)).join(' / ')} ms; launch ${fmt(r.launchEmptyMs, 0)} / ${fmt(r.launchWithObjectsMs, 0)} ms; ` +
        `generator CPU (creates h1, watch) ${[r.createsH1, ...r.watch].map(clientPct).join(', ')}; server CPU ${fmt(r.serverCpuSeconds, 0)} s in ${fmt(r.seconds, 0)} s; other CPU ${r.otherCpuPercent}%`,
    );
  }
  return L;
}

// ---------------------------------------------------------------------------------------------

const started = performance.now();
try {
  ensureServerBuilt(log);
  ref.ensureBuilt(log);
  buildLoadgen();
  log(`priming both servers (one untimed launch each)`);
  await thisTarget.prime();
  await kubeTarget.prime();
  const rounds: TargetRound[] = [];
  const ceilings: CeilingRound[] = [];
  for (let r = 1; r <= cfg.rounds; r++) {
    ceilings.push(await runCeiling(r));
    const order = r % 2 === 1 ? [thisTarget, kubeTarget] : [kubeTarget, thisTarget];
    for (const [i, t] of order.entries()) rounds.push(await runTarget(t, r, i));
  }
  const { lines, summary } = table(rounds, ceilings);
  const report = {
    kind: 'vs-kube',
    timestamp: new Date().toISOString(),
    config: cfg,
    machine: { ...machine, loadAvg1AtEnd: loadAvg1() },
    reference: { bin: ref.bin, version: spawnSync(join(ref.bin, 'kube-apiserver'), ['--version'], { encoding: 'utf8' }).stdout.trim() },
    summary,
    ceilings,
    rounds,
    serverLog: { warn: serverLog.warn, error: serverLog.error, samples: serverLog.samples, unexpectedExits: serverLog.unexpectedExits },
    totalSeconds: round((performance.now() - started) / 1000, 1),
  };
  const file = writeResult('vs-kube', report);
  const out = [
    '',
    `This server vs ${report.reference.version} + etcd (both fsync on), ${cfg.rounds} round(s) alternated, medians; one Go load generator; 1 KiB ConfigMaps`,
    `machine: ${machine.cpuCount} × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}; CPU of other processes per server-round (% of one core): this ${(summary.otherCpuPercent as { this: number[] }).this.join(', ')}, kube ${(summary.otherCpuPercent as { kube: number[] }).kube.join(', ')}`,
    '',
    ...lines,
    '',
    'Per round (in run order):',
    ...perRound(rounds, ceilings),
    '',
    `p99s: median over rounds of each round's p99, n = samples per round. Launch: from the spawn of the server's first process (node; etcd) to the generator's first 200 of /readyz; the reference as start.sh itself reports it (etcd spawn → its curl, 100 ms polls): ${fmt((summary.kubeStartShSeconds as { empty: number }).empty, 2)} / ${fmt((summary.kubeStartShSeconds as { withObjects: number }).withObjects, 2)} s.`,
    `Watch: ${cfg.watchers} watchers over HTTP/2 (${cfg.streamsPerConn} streams per connection), delivery = receive − writer's ack.`,
    `total ${report.totalSeconds} s; JSON: ${file}`,
  ];
  process.stdout.write(out.join('\n') + '\n');
} catch (e) {
  reportBenchFailure(e);
} finally {
  endBench(tmpRoot, args.keep!);
}
