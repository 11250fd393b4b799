/**
 * Big paginated list benchmark (`npm run bench:list`, issue 3): the API server as a child process
 * over TLS (fsync on), filled with 1 KiB ConfigMaps, then paged through with limit=500.
 *
 *   node --import tsx bench/list.ts [--sizes 10000,100000] [--namespaces 4] [--limit 500]
 *        [--connections 64] [--value-bytes 1024] [--no-restart]
 *        [--ceiling-seconds S] [--ceiling-runs N] [--no-ceiling] [--keep]
 *
 * For each collection size (ascending, one data dir: the fill tops the collection up): create the
 * ConfigMaps with --connections concurrent POSTs, round-robin over --namespaces namespaces; restart
 * the server (unless --no-restart) so that its RSS holds no garbage of the fill; then page through
 * all namespaces (/api/v1/configmaps) and through one namespace, each with limit=--limit following
 * metadata.continue, one page at a time. Reported: pages/s, items/s, MiB/s, page latency (and its
 * first vs last tenth: a page whose cost depends on what is left of the collection shows there),
 * server RSS before / peak (sampled every 50 ms, and VmHWM) / after and CPU. Goal: RSS growth of a
 * paged list independent of the collection size. Also prints the bare HTTPS ceiling of
 * bench/run.ts measured in the same run. JSON: bench/results/list-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'undici';
import { makePool, runCount } from './load.ts';
import { spawnApiServer, serverLog, reportBenchFailure, type ApiServer } from './server.ts';
import {
  benchSession,
  endBench,
  adminTls, createNamespaces, fmt, installWatchdog, measureHttpsCeiling, readRss, round, sampleProc, sleep, summarize,
  writeResult, printReport, type HttpsCeiling, type LatencySummary, type ProcUsage,
} from './util.ts';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    namespaces: { type: 'string', default: '4' },
    limit: { type: 'string', default: '500' },
    connections: { type: 'string', default: '64' },
    'value-bytes': { type: 'string', default: '1024' },
    'no-restart': { type: 'boolean', default: false },
    'ceiling-seconds': { type: 'string', default: '10' },
    'ceiling-runs': { type: 'string', default: '2' },
    'no-ceiling': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const num = (k: keyof typeof args) => {
  const v = Number(args[k]);
  if (!(v > 0)) throw new Error(`bad --${k}: ${args[k]}`);
  return v;
};
const cfg = {
  sizes: args.sizes!.split(',').map(Number).sort((a, b) => a - b),
  namespaces: num('namespaces'),
  limit: num('limit'),
  connections: num('connections'),
  valueBytes: num('value-bytes'),
  restart: !args['no-restart'],
  ceilingSeconds: num('ceiling-seconds'),
  ceilingRuns: num('ceiling-runs'),
  ceiling: !args['no-ceiling'],
};
if (!cfg.sizes.length || cfg.sizes.some((n) => !(n > 0))) throw new Error(`bad --sizes ${args.sizes}`);

interface PagedList {
  scope: string;
  path: string;
  expectedItems: number;
  items: number;
  pages: number;
  seconds: number;
  pagesPerSec: number;
  itemsPerSec: number;
  MiB: number;
  MiBPerSec: number;
  pageMs: LatencySummary;
  /** Mean page latency over the first and the last tenth of the pages. */
  firstTenthPageMs: number;
  lastTenthPageMs: number;
  remainingItemCountOnFirstPage: number | null;
  server: ProcUsage;
  /** Highest sampled RSS − RSS at the start. */
  rssGrowthMiB: number;
  /** Growth of RssAnon (heap and buffers, without LevelDB's mapped table files). */
  anonGrowthMiB: number;
  error?: string;
}

/** One page at a time, following metadata.continue. */
async function pageThrough(client: Client, scope: string, path: string, limit: number, expectedItems: number, pid: number): Promise<PagedList> {
  const sampler = sampleProc(pid, 50);
  const pageMs: number[] = [];
  let items = 0;
  let bytes = 0;
  let remaining: number | null = null;
  let token = '';
  let error: string | undefined;
  // A server that hands out a continue token again (or pages past the collection) must not hang the bench.
  const maxPages = Math.ceil(expectedItems / limit) + 10;
  const seen = new Set<string>();
  const t0 = performance.now();
  const progress = setInterval(() => log(`    … ${pageMs.length} pages, ${items} items`), 10_000);
  do {
    const p0 = performance.now();
    const r = await client.request({ path: `${path}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, method: 'GET', headers: { accept: 'application/json' } });
    const text = await r.body.text();
    pageMs.push(performance.now() - p0);
    bytes += Buffer.byteLength(text);
    if (r.statusCode !== 200) {
      error = `page ${pageMs.length}: ${r.statusCode} ${text.slice(0, 300)}`;
      break;
    }
    const page = JSON.parse(text) as { items: unknown[]; metadata: { continue?: string; remainingItemCount?: number } };
    items += page.items.length;
    if (pageMs.length === 1) remaining = page.metadata.remainingItemCount ?? null;
    token = page.metadata.continue ?? '';
    if (token && seen.has(token)) error = `page ${pageMs.length}: the server repeated a continue token`;
    else if (pageMs.length >= maxPages && token) error = `still a continue token after ${pageMs.length} pages (${items} items, ${expectedItems} expected)`;
    if (error) break;
    seen.add(token);
  } while (token);
  clearInterval(progress);
  const secs = (performance.now() - t0) / 1000;
  const server = sampler.stop();
  const tenth = Math.max(1, Math.floor(pageMs.length / 10));
  const mean = (a: number[]) => round(a.reduce((x, y) => x + y, 0) / a.length, 2);
  return {
    scope,
    path,
    expectedItems,
    items,
    pages: pageMs.length,
    seconds: round(secs, 2),
    pagesPerSec: round(pageMs.length / secs, 1),
    itemsPerSec: round(items / secs, 0),
    MiB: round(bytes / 2 ** 20, 1),
    MiBPerSec: round(bytes / 2 ** 20 / secs, 1),
    pageMs: summarize(pageMs),
    firstTenthPageMs: mean(pageMs.slice(0, tenth)),
    lastTenthPageMs: mean(pageMs.slice(-tenth)),
    remainingItemCountOnFirstPage: remaining,
    server,
    rssGrowthMiB: round(server.rssMaxMiB - server.rssStartMiB, 1),
    anonGrowthMiB: round(server.anonMaxMiB - server.anonStartMiB, 1),
    ...(error ? { error } : {}),
  };
}

installWatchdog(60 * 60_000);
const { log, tmpRoot, machine } = benchSession('list', args.keep!, cfg);
const started = performance.now();
const problems: string[] = [];
let server: ApiServer | null = null;
try {
  const ceiling: HttpsCeiling | null = cfg.ceiling ? await measureHttpsCeiling({ tmpDir: tmpRoot, connections: 64, warmupS: 2, durationS: cfg.ceilingSeconds, runs: cfg.ceilingRuns, log }) : null;

  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir);
  log(`starting API server on ${dataDir} (fsync on)`);
  server = await spawnApiServer(dataDir);
  await server.readyLog;
  const tls = adminTls(server.pkiDir);
  const nsNames = Array.from({ length: cfg.namespaces }, (_, i) => `list-${i}`);
  {
    const c = new Client(server.origin, { connect: tls });
    await createNamespaces(c, nsNames);
    await c.close();
  }
  const filler = 'x'.repeat(cfg.valueBytes);
  const body = (i: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(7, '0')}`, namespace: nsNames[i % cfg.namespaces] }, data: { v: filler } });

  const sizes: unknown[] = [];
  let have = 0;
  for (const size of cfg.sizes) {
    log(`filling to ${size} ConfigMaps (${size - have} creates, ${cfg.connections} connections)`);
    const pool = makePool(server.origin, tls, cfg.connections);
    const base = have;
    let issued = 0;
    const progress = setInterval(() => log(`  … ${issued} creates sent`), 10_000);
    const fill = await runCount({
      pool,
      concurrency: cfg.connections,
      count: size - have,
      expectStatus: 201,
      timeoutMs: 30 * 60_000,
      spec: (i) => {
        issued = i + 1;
        return { method: 'POST', path: `/api/v1/namespaces/${nsNames[(base + i) % cfg.namespaces]}/configmaps`, body: body(base + i) };
      },
    });
    clearInterval(progress);
    await pool.close().catch(() => undefined);
    have += fill.ok;
    if (fill.failed) problems.push(`fill to ${size}: ${fill.failed} creates failed; e.g. ${fill.samples.join(' | ')}`);
    log(`  ${fill.ok} created in ${fmt(fill.ms / 1000)} s (${fmt(fill.perSec, 0)}/s)`);
    let restartReadyMs: number | null = null;
    if (cfg.restart) {
      const port = server.port;
      await server.stop('SIGTERM');
      server = await spawnApiServer(dataDir, port);
      restartReadyMs = (await server.readyLog).ms;
      await sleep(1000);
    }
    const rssBefore = readRss(server.pid);
    const client = new Client(server.origin, { connect: tls, headersTimeout: 300_000, bodyTimeout: 300_000 });
    const lists: PagedList[] = [];
    const perNs = Math.floor(have / cfg.namespaces) + (have % cfg.namespaces > 0 ? 1 : 0);
    for (const [scope, path, expected] of [
      ['all namespaces', '/api/v1/configmaps', have],
      [`one namespace (${nsNames[0]})`, `/api/v1/namespaces/${nsNames[0]}/configmaps`, perNs],
    ] as const) {
      log(`  paging ${scope}, limit=${cfg.limit}`);
      const l = await pageThrough(client, scope, path, cfg.limit, expected, server.pid);
      lists.push(l);
      log(`    ${l.items} items in ${l.pages} pages, ${fmt(l.seconds, 2)} s: ${fmt(l.pagesPerSec)} pages/s, ${fmt(l.itemsPerSec, 0)} items/s; RSS +${fmt(l.rssGrowthMiB)} MiB`);
      if (l.error) problems.push(`${size}, ${scope}: ${l.error}`);
      else if (l.items !== expected) problems.push(`${size}, ${scope}: ${l.items} items listed, ${expected} expected`);
    }
    await client.close();
    sizes.push({ size, objects: have, fill, restartReadyMs, rssBefore, lists, rssAfter: readRss(server.pid) });
  }

  type SizeResult = { size: number; objects: number; fill: { ms: number; perSec: number }; restartReadyMs: number | null; rssBefore: { rssMiB: number; hwmMiB: number }; lists: PagedList[]; rssAfter: { rssMiB: number; hwmMiB: number } };
  const rs = sizes as SizeResult[];
  const small = rs[0]!;
  const big = rs[rs.length - 1]!;
  const growth = (r: SizeResult) => Math.max(...r.lists.map((l) => l.rssGrowthMiB));
  const allowed = round(growth(small) + Math.max(16, growth(small) * 0.5), 1);
  const anon = (r: SizeResult) => Math.max(...r.lists.map((l) => l.anonGrowthMiB));
  const anonAllowed = round(anon(small) + Math.max(16, anon(small) * 0.5), 1);
  // VmRSS includes LevelDB's memory-mapped table files, which grow with the bytes read; RssAnon
  // is the server's own memory, the figure that must not depend on the collection's size.
  const goals = rs.length > 1 ? [
    { name: `paged-list RssAnon growth at ${big.objects} vs ${small.objects} objects (MiB)`, value: anon(big), goal: `≤ ${anonAllowed} (growth at ${small.objects} + max(16 MiB, 50%))`, met: anon(big) <= anonAllowed },
    { name: `paged-list VmRSS growth at ${big.objects} vs ${small.objects} objects (MiB, incl. mapped LevelDB files)`, value: growth(big), goal: `≤ ${allowed} (same rule)`, met: growth(big) <= allowed },
  ] : [];
  if (serverLog.error || serverLog.warn) problems.push(`server log: ${serverLog.error} error and ${serverLog.warn} warn lines; e.g.\n      ${serverLog.samples.join('\n      ')}`);
  for (const e of serverLog.unexpectedExits) problems.push(`server exited unexpectedly: ${e}`);

  const totalS = round((performance.now() - started) / 1000, 1);
  const report = { kind: 'list-bench', timestamp: new Date().toISOString(), machine, config: cfg, httpsCeiling: ceiling, sizes: rs, goals, problems, totalSeconds: totalS };
  const file = writeResult('list', report);

  const ms = (v: number) => `${fmt(v, 1)} ms`;
  const L: string[] = ['', '=== Paginated list benchmark (issue 3) ==='];
  L.push(`machine   ${machine.cpuCount} CPU × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}`);
  L.push(`config    ${cfg.valueBytes} B ConfigMap values over ${cfg.namespaces} namespaces, limit=${cfg.limit}, ${cfg.restart ? 'server restarted after each fill' : 'no restart after the fills'}`);
  if (ceiling) L.push(`ceiling   bare node:https JSON echo ${fmt(ceiling.best.okPerSec, 0)} req/s (best of ${ceiling.attemptsReqPerSec.map((v) => fmt(v, 0)).join(' / ')}; p50 ${ms(ceiling.best.latencyMs.p50)}, 64 connections; other CPU ${ceiling.otherCpuPercent}%)`);
  for (const r of rs) {
    L.push('');
    L.push(`${r.objects} ConfigMaps   (fill ${fmt(r.fill.ms / 1000)} s at ${fmt(r.fill.perSec, 0)} creates/s${r.restartReadyMs !== null ? `; restart → ready ${ms(r.restartReadyMs)}` : ''}; RSS before the lists ${fmt(r.rssBefore.rssMiB)} MiB, after ${fmt(r.rssAfter.rssMiB)} MiB)`);
    for (const l of r.lists) {
      L.push(`  ${l.scope.padEnd(26)} ${fmt(l.pagesPerSec).padStart(7)} pages/s ${fmt(l.itemsPerSec, 0).padStart(8)} items/s ${fmt(l.MiBPerSec).padStart(6)} MiB/s   ${l.items} items, ${l.pages} pages in ${fmt(l.seconds, 2)} s`);
      L.push(`  ${''.padEnd(26)} page p50 ${ms(l.pageMs.p50)} p99 ${ms(l.pageMs.p99)} max ${ms(l.pageMs.max)}; first tenth ${ms(l.firstTenthPageMs)} vs last tenth ${ms(l.lastTenthPageMs)}`);
      L.push(`  ${''.padEnd(26)} server RSS ${fmt(l.server.rssStartMiB)} → peak ${fmt(l.server.rssMaxMiB)} (+${fmt(l.rssGrowthMiB)}) → ${fmt(l.server.rssEndMiB)} MiB, VmHWM ${fmt(l.server.hwmMiB)}, RssAnon +${fmt(l.anonGrowthMiB)} MiB; CPU ${l.server.cpuPercent}% (main thread ${l.server.mainThreadCpuPercent}%)`);
    }
  }
  L.push('');
  printReport(L, goals, problems, totalS, file);
} catch (e) {
  reportBenchFailure(e);
} finally {
  if (server) await server.stop('SIGTERM').catch(() => undefined);
  endBench(tmpRoot, args.keep);
}
