/**
 * Watch memory benchmark (`npm run bench:watch-memory`, issue 24 item 3): watches that start with
 * the current list and never read, against a server with its default budgets.
 *
 *   node --import tsx bench/watch-memory.ts [--objects 20000] [--watches 50] [--value-bytes 1024]
 *        [--get-seconds 10] [--get-connections 4] [--hold-seconds 10] [--updates 2000]
 *        [--rss-bound-mib 256] [--keep] [-- server flags…]
 *
 * The API server runs as a child process over TLS (fsync on). Steps:
 *  1. fill one namespace with --objects ConfigMaps of --value-bytes;
 *  2. idle: other clients' GETs (one object by name, and a list page of 50) on --get-connections
 *     connections for --get-seconds: latency p50/p99; plus one GET every 100 ms on a fresh TLS
 *     connection (connection attempts that time out after 5 s are counted);
 *  3. open --watches watches of that namespace without a resourceVersion (synthetic ADDED for the
 *     whole namespace, then changes), each on its own connection, whose bodies are never read;
 *     wait --hold-seconds;
 *  4. the same GET measurement while they stall;
 *  5. --updates writes to the namespace (PUTs): the stalled watchers hold the changes until their
 *     budget or the total budget is passed and are ended (watch_watchers_ended_total), their
 *     connections cut.
 * The server's RSS is sampled every 100 ms throughout. Goals: peak RSS − RSS before the watches
 * ≤ --rss-bound-mib; GET p99 while the watches stall ≤ 2 × idle p99 (+1 ms for timer resolution);
 * no fresh connection attempt timed out; every stalled watcher ended once the updates came.
 * JSON: bench/results/watch-memory-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import https from 'node:https';
import { Agent, Client, request, type Dispatcher } from 'undici';
import { makePool, runCount } from './load.ts';
import { spawnApiServer, serverLog, reportBenchFailure, type ApiServer } from './server.ts';
import { benchSession, endBench, adminTls, createNamespaces, fmt, installWatchdog, readRss, round, sampleProc, sleep, summarize, writeResult, printReport, type LatencySummary } from './util.ts';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    objects: { type: 'string', default: '20000' },
    watches: { type: 'string', default: '50' },
    'value-bytes': { type: 'string', default: '1024' },
    'get-seconds': { type: 'string', default: '10' },
    'get-connections': { type: 'string', default: '4' },
    'hold-seconds': { type: 'string', default: '10' },
    updates: { type: 'string', default: '2000' },
    'rss-bound-mib': { type: 'string', default: '256' },
    keep: { type: 'boolean', default: false },
  },
});
const num = (k: keyof typeof args): number => Number(args[k]);
const cfg = {
  objects: num('objects'),
  watches: num('watches'),
  valueBytes: num('value-bytes'),
  getSeconds: num('get-seconds'),
  getConnections: num('get-connections'),
  holdSeconds: num('hold-seconds'),
  updates: num('updates'),
  rssBoundMiB: num('rss-bound-mib'),
  serverFlags: positionals,
};
const NS = 'watch-memory';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const name = (i: number): string => `cm-${String(i).padStart(6, '0')}`;

interface GetWindow {
  latencyMs: LatencySummary;
  failed: number;
  freshConnections: { attempts: number; timedOut: number; failed: number; latencyMs: LatencySummary };
}

/** Other clients' GETs for `seconds`: pooled (by name, and a list page), plus fresh connections. */
async function measureGets(origin: string, tls: { ca: string; cert: string; key: string }, seconds: number, connections: number): Promise<GetWindow> {
  const pool = makePool(origin, tls, connections);
  const until = performance.now() + seconds * 1000;
  const samples: number[] = [];
  let failed = 0;
  let seq = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < until) {
      const i = seq++;
      const path = i % 2 ? `${CM}/${name((i * 7919) % cfg.objects)}` : `${CM}?limit=50`;
      const t = performance.now();
      try {
        const r = await pool.request({ path, method: 'GET', headers: { accept: 'application/json' } });
        await r.body.text();
        if (r.statusCode === 200) samples.push(performance.now() - t);
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const fresh = { attempts: 0, timedOut: 0, failed: 0, samples: [] as number[] };
  const freshLoop = async (): Promise<void> => {
    const { hostname, port } = new URL(origin);
    while (performance.now() < until) {
      fresh.attempts++;
      const t = performance.now();
      const outcome = await new Promise<'ok' | 'timeout' | 'failed'>((resolve) => {
        const req = https.request({ host: hostname, port, path: `${CM}/${name(fresh.attempts % cfg.objects)}`, agent: false, ...tls, timeout: 5000 }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200 ? 'ok' : 'failed'));
          res.on('error', () => resolve('failed'));
        });
        req.on('timeout', () => {
          req.destroy();
          resolve('timeout');
        });
        req.on('error', () => resolve('failed'));
        req.end();
      });
      if (outcome === 'ok') fresh.samples.push(performance.now() - t);
      else if (outcome === 'timeout') fresh.timedOut++;
      else fresh.failed++;
      await sleep(100);
    }
  };
  await Promise.all([...Array.from({ length: connections }, worker), freshLoop()]);
  await pool.close().catch(() => undefined);
  return { latencyMs: summarize(samples), failed, freshConnections: { attempts: fresh.attempts, timedOut: fresh.timedOut, failed: fresh.failed, latencyMs: summarize(fresh.samples) } };
}

async function metrics(d: Dispatcher): Promise<Record<string, number>> {
  const r = await d.request({ path: '/metrics', method: 'GET', headers: { accept: 'text/plain' } });
  const text = await r.body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^(watch_queued_bytes(?:_peak|_limit)?|watch_watchers_ended_total\{reason="(?:slow|budget)"\}) (\S+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

installWatchdog(30 * 60_000);
const { log, tmpRoot, machine } = benchSession('watch-memory', args.keep!, cfg);
const started = performance.now();
const problems: string[] = [];
let server: ApiServer | null = null;
try {
  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir);
  log(`starting API server on ${dataDir} (fsync on) ${cfg.serverFlags.join(' ')}`);
  server = await spawnApiServer(dataDir, undefined, cfg.serverFlags);
  await server.readyLog;
  const tls = adminTls(server.pkiDir);
  const admin = new Client(server.origin, { connect: tls });
  await createNamespaces(admin, [NS]);
  const filler = 'x'.repeat(cfg.valueBytes);
  log(`filling ${cfg.objects} ConfigMaps of ${cfg.valueBytes} B`);
  const pool = makePool(server.origin, tls, 32);
  const fill = await runCount({
    pool, concurrency: 32, count: cfg.objects, expectStatus: 201, timeoutMs: 20 * 60_000,
    spec: (i) => ({ method: 'POST', path: CM, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(i) }, data: { v: filler } }) }),
  });
  await pool.close().catch(() => undefined);
  if (fill.failed) problems.push(`${fill.failed} creates failed; e.g. ${fill.samples.join(' | ')}`);
  log(`  ${fill.ok} created in ${fmt(fill.ms / 1000)} s`);
  await sleep(2000);

  const sampler = sampleProc(server.pid, 100);
  log(`idle: other clients' GETs for ${cfg.getSeconds} s`);
  const idle = await measureGets(server.origin, tls, cfg.getSeconds, cfg.getConnections);
  log(`  p50 ${fmt(idle.latencyMs.p50, 2)} ms p99 ${fmt(idle.latencyMs.p99, 2)} ms (${idle.latencyMs.n} GETs); fresh connections p99 ${fmt(idle.freshConnections.latencyMs.p99, 1)} ms`);
  const rssBeforeWatches = readRss(server.pid);

  log(`opening ${cfg.watches} watches from the current list that never read`);
  const watchAgent = new Agent({ connect: tls, connections: cfg.watches + 1, pipelining: 1, headersTimeout: 120_000, bodyTimeout: 0 });
  const stalled: Dispatcher.ResponseData[] = [];
  const opened = performance.now();
  for (let i = 0; i < cfg.watches; i++) {
    const r = await request(`${server.origin}${CM}?watch=1&timeoutSeconds=1800`, { dispatcher: watchAgent });
    if (r.statusCode !== 200) problems.push(`watch ${i}: ${r.statusCode}`);
    r.body.on('error', () => undefined);
    stalled.push(r);
  }
  const openMs = round(performance.now() - opened, 0);
  log(`  opened in ${openMs} ms; holding ${cfg.holdSeconds} s`);
  await sleep(cfg.holdSeconds * 1000);
  const rssStalled = readRss(server.pid);
  const queuedStalled = await metrics(admin);
  log(`  RSS ${fmt(rssBeforeWatches.rssMiB)} → ${fmt(rssStalled.rssMiB)} MiB; queued ${fmt((queuedStalled.watch_queued_bytes ?? 0) / 2 ** 20, 2)} MiB`);
  log(`stalled: other clients' GETs for ${cfg.getSeconds} s`);
  const loaded = await measureGets(server.origin, tls, cfg.getSeconds, cfg.getConnections);
  log(`  p50 ${fmt(loaded.latencyMs.p50, 2)} ms p99 ${fmt(loaded.latencyMs.p99, 2)} ms (${loaded.latencyMs.n} GETs); fresh connections p99 ${fmt(loaded.freshConnections.latencyMs.p99, 1)} ms, ${loaded.freshConnections.timedOut} timed out`);

  log(`${cfg.updates} updates to the watched namespace`);
  const upd = makePool(server.origin, tls, 8);
  const updates = await runCount({
    pool: upd, concurrency: 8, count: cfg.updates, expectStatus: 200, timeoutMs: 10 * 60_000,
    spec: (i) => ({ method: 'PUT', path: `${CM}/${name(i % cfg.objects)}`, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name(i % cfg.objects) }, data: { v: filler, seq: String(i) } }) }),
  });
  await upd.close().catch(() => undefined);
  if (updates.failed) problems.push(`${updates.failed} updates failed; e.g. ${updates.samples.join(' | ')}`);
  let after = await metrics(admin);
  const ended = (m: Record<string, number>): number => (m['watch_watchers_ended_total{reason="slow"}'] ?? 0) + (m['watch_watchers_ended_total{reason="budget"}'] ?? 0);
  for (let i = 0; i < 50 && ended(after) < cfg.watches; i++) {
    await sleep(200);
    after = await metrics(admin);
  }
  const usage = sampler.stop();
  const rssEnd = readRss(server.pid);
  log(`  ${ended(after)} of ${cfg.watches} stalled watchers ended (slow ${after['watch_watchers_ended_total{reason="slow"}'] ?? 0}, budget ${after['watch_watchers_ended_total{reason="budget"}'] ?? 0}); RSS peak ${fmt(usage.rssMaxMiB)} MiB, end ${fmt(rssEnd.rssMiB)} MiB`);
  for (const r of stalled) r.body.destroy();
  await watchAgent.close().catch(() => undefined);
  await admin.close();

  const growth = round(usage.rssMaxMiB - rssBeforeWatches.rssMiB, 1);
  const p99Bound = round(2 * idle.latencyMs.p99 + 1, 2);
  const goals = [
    { name: 'peak RSS − RSS before the watches (MiB)', value: growth, goal: `≤ ${cfg.rssBoundMiB}`, met: growth <= cfg.rssBoundMiB },
    { name: "other clients' GET p99 while the watches stall (ms)", value: loaded.latencyMs.p99, goal: `≤ 2 × idle p99 + 1 ms = ${p99Bound}`, met: loaded.latencyMs.p99 <= p99Bound },
    { name: 'fresh connection attempts that timed out (5 s)', value: loaded.freshConnections.timedOut, goal: '0', met: loaded.freshConnections.timedOut === 0 && loaded.freshConnections.failed === 0 },
    { name: 'stalled watchers ended once the changes came', value: ended(after), goal: `${cfg.watches}`, met: ended(after) === cfg.watches },
  ];
  if (serverLog.error) problems.push(`server log: ${serverLog.error} error lines; e.g.\n      ${serverLog.samples.join('\n      ')}`);
  for (const e of serverLog.unexpectedExits) problems.push(`server exited unexpectedly: ${e}`);
  const totalS = round((performance.now() - started) / 1000, 1);
  const report = {
    kind: 'watch-memory-bench', timestamp: new Date().toISOString(), machine, config: cfg, fill,
    idle, stalled: { openMs, rssBeforeWatches, rssStalled, queued: queuedStalled, gets: loaded },
    updates, ended: after, server: usage, rssEnd, goals, problems, totalSeconds: totalS,
  };
  const file = writeResult('watch-memory', report);
  const L: string[] = ['', '=== Watch memory benchmark (issue 24 item 3) ==='];
  L.push(`machine   ${machine.cpuCount} CPU × ${machine.cpuModel}, ${machine.memGiB} GiB, node ${machine.node}; load avg at start ${machine.loadAvg1AtStart}`);
  L.push(`config    ${cfg.objects} ConfigMaps of ${cfg.valueBytes} B in one namespace; ${cfg.watches} watches without resourceVersion that never read; ${cfg.updates} updates after`);
  L.push(`RSS       before the watches ${fmt(rssBeforeWatches.rssMiB)} MiB (RssAnon ${fmt(rssBeforeWatches.anonMiB)}); ${cfg.holdSeconds} s after opening ${fmt(rssStalled.rssMiB)} MiB (RssAnon ${fmt(rssStalled.anonMiB)}); peak over the run ${fmt(usage.rssMaxMiB)} MiB (VmHWM ${fmt(usage.hwmMiB)}); end ${fmt(rssEnd.rssMiB)} MiB`);
  L.push(`queued    while stalled ${fmt((queuedStalled.watch_queued_bytes ?? 0) / 2 ** 20, 2)} MiB; peak ${fmt((after.watch_queued_bytes_peak ?? 0) / 2 ** 20, 2)} MiB of ${fmt((after.watch_queued_bytes_limit ?? 0) / 2 ** 20, 0)} MiB`);
  L.push(`GET       idle p50 ${fmt(idle.latencyMs.p50, 2)} p99 ${fmt(idle.latencyMs.p99, 2)} max ${fmt(idle.latencyMs.max, 1)} ms (${idle.latencyMs.n}); stalled p50 ${fmt(loaded.latencyMs.p50, 2)} p99 ${fmt(loaded.latencyMs.p99, 2)} max ${fmt(loaded.latencyMs.max, 1)} ms (${loaded.latencyMs.n})`);
  L.push(`fresh     idle ${idle.freshConnections.attempts} attempts p99 ${fmt(idle.freshConnections.latencyMs.p99, 1)} ms; stalled ${loaded.freshConnections.attempts} attempts p99 ${fmt(loaded.freshConnections.latencyMs.p99, 1)} ms, ${loaded.freshConnections.timedOut} timed out, ${loaded.freshConnections.failed} failed`);
  L.push(`ended     ${ended(after)} of ${cfg.watches} (slow ${after['watch_watchers_ended_total{reason="slow"}'] ?? 0}, budget ${after['watch_watchers_ended_total{reason="budget"}'] ?? 0})`);
  L.push('');
  printReport(L, goals, problems, totalS, file);
} catch (e) {
  reportBenchFailure(e);
} finally {
  if (server) await server.stop('SIGTERM').catch(() => undefined);
  endBench(tmpRoot, args.keep!);
}
