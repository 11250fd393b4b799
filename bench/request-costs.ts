/**
 * Server CPU per request of today's server, by kind of request (`npm run bench:request-costs`,
 * issue 28's capacity model): the API server as a child process on a fresh data dir (fsync on),
 * closed-loop load over keep-alive HTTP/1.1 TLS connections (admin client certificate), and the
 * server's CPU (/proc/<pid>/stat, all threads, and its main thread alone) over each window divided
 * by the answers completed in it.
 *
 *   node --import tsx bench/request-costs.ts [--duration S] [--warmup S] [--objects N] [--watchers N]
 *        [--watch-rate W] [--pin 0|0-1] [--only a,b] [--out file.json] [--quick] [--workers N]
 *
 * Windows, in order: create (POST of a 1 KiB ConfigMap, 64 connections), PUT (unconditional
 * replace of one of --objects), merge patch, server-side apply (force), GET of one object (16
 * connections), LIST first page of 500 (JSON, Table, Protobuf; 16 connections), and watch: --watchers
 * watches of one namespace (HTTP/2, 100 streams per connection) while a paced writer creates --watch-rate ConfigMaps/s in it, minus the
 * same paced writes without watchers: CPU per event delivered per watcher. The idle CPU of the server
 * (its controllers, timers) is measured first and subtracted from every window.
 *
 * --pin 0: the server's threads are pinned to core 0 (`taskset -a -p`) and this process to core 1;
 * --pin 0-1: both on both cores (issue 28's 1 → 2 core comparison of today's single-thread server).
 * Prints a table; writes --out (default bench/results/request-costs-<timestamp>.json).
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client, Pool } from 'undici';
import { spawnApiServer, pollReadyz, reportBenchFailure } from './server.ts';
import { adminTls, configMapBody, FILLER_1K, procCpuMs, round, sleep, machineFacts, installWatchdog } from './util.ts';
import { makePool, runCount } from './load.ts';

const ROOT = new URL('..', import.meta.url).pathname;
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string' },
    warmup: { type: 'string' },
    objects: { type: 'string' },
    watchers: { type: 'string' },
    'watch-rate': { type: 'string' },
    pin: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    quick: { type: 'boolean', default: false },
    /** The server's --workers (issue 28: serving threads; the CPU columns count every thread). */
    workers: { type: 'string' },
  },
  strict: true,
});
const quick = args.quick!;
const cfg = {
  durationS: Number(args.duration ?? (quick ? 2 : 5)),
  warmupS: Number(args.warmup ?? 1),
  objects: Number(args.objects ?? (quick ? 2000 : 5000)),
  watchers: Number(args.watchers ?? (quick ? 100 : 200)),
  watchRate: Number(args['watch-rate'] ?? 100),
};
const only = args.only ? new Set(args.only.split(',')) : null;
const NS = 'bench';
const log = (s: string) => process.stderr.write(`[request-costs ${new Date().toISOString().slice(11, 19)}] ${s}\n`);

interface Spec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Window {
  name: string;
  connections: number;
  answers: number;
  perSec: number;
  /** server CPU µs per answer, all threads / main thread, idle subtracted */
  cpuUs: number;
  mainUs: number;
  serverCpuPercent: number;
  statuses: Record<string, number>;
}

/** Closed loop for warmup + duration; CPU of the server over the window only. */
async function closedLoop(pool: Pool, pid: number, idle: { all: number; main: number }, name: string, connections: number, expect: number, next: (w: number, seq: number) => Spec): Promise<Window> {
  const t0 = performance.now();
  const start = t0 + cfg.warmupS * 1000;
  const end = start + cfg.durationS * 1000;
  let answers = 0;
  const statuses: Record<string, number> = {};
  let c0 = { all: NaN, main: NaN, at: 0 };
  const opener = setTimeout(() => (c0 = { all: procCpuMs(pid), main: procCpuMs(pid, true), at: performance.now() }), cfg.warmupS * 1000);
  const bad: string[] = [];
  await Promise.all(
    Array.from({ length: connections }, async (_, w) => {
      for (let seq = 0; performance.now() < end; seq++) {
        const s = next(w, seq);
        const r = await pool.request({ method: s.method, path: s.path, headers: { accept: 'application/json', ...(s.body ? { 'content-type': 'application/json' } : {}), ...s.headers }, body: s.body });
        const text = await r.body.text();
        const t = performance.now();
        if (t >= start && t <= end) {
          statuses[r.statusCode] = (statuses[r.statusCode] ?? 0) + 1;
          if (r.statusCode === expect) answers++;
          else if (bad.length < 3) bad.push(`${r.statusCode} ${text.slice(0, 200)}`);
        }
      }
    }),
  );
  clearTimeout(opener);
  const ms = performance.now() - c0.at;
  const all = procCpuMs(pid) - c0.all - (idle.all * ms) / 1000;
  const main = procCpuMs(pid, true) - c0.main - (idle.main * ms) / 1000;
  if (bad.length) log(`${name}: unexpected answers: ${bad.join(' | ')}`);
  return { name, connections, answers, perSec: round(answers / (cfg.durationS), 0), cpuUs: round((all * 1000) / answers, 1), mainUs: round((main * 1000) / answers, 1), serverCpuPercent: round((all / ms) * 100, 0), statuses };
}

/** Paced creates (rate/s) into `ns` for the window, with `watchers` watches of that namespace open. */
async function watchWindow(origin: string, tls: ReturnType<typeof adminTls>, pool: Pool, pid: number, idle: { all: number; main: number }, ns: string, watchers: number, rate: number, tag: string) {
  const clients: Client[] = [];
  let events = 0;
  let counting = false;
  const rv = JSON.parse(await (await pool.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps?limit=1` })).body.text()).metadata.resourceVersion as string;
  const streams: Promise<void>[] = [];
  // HTTP/2, 100 streams per connection (as bench/vs-kube.ts's watchers)
  for (let i = 0; i < Math.ceil(watchers / 100); i++) clients.push(new Client(origin, { allowH2: true, pipelining: 100, connect: { ca: tls.ca, cert: tls.cert, key: tls.key }, bodyTimeout: 0, headersTimeout: 30_000 }));
  for (let i = 0; i < watchers; i++) {
    const c = clients[Math.floor(i / 100)]!;
    streams.push(
      (async () => {
        const r = await c.request({ method: 'GET', path: `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${rv}`, headers: { accept: 'application/json' } });
        try {
          for await (const chunk of r.body as AsyncIterable<Buffer>) {
            if (!counting) continue;
            for (let k = chunk.indexOf(10); k >= 0; k = chunk.indexOf(10, k + 1)) events++;
          }
        } catch {
          /* closed at the end */
        }
      })(),
    );
  }
  await sleep(1000); // all watches established
  const seqBase = Date.now();
  let sent = 0;
  const t0 = performance.now();
  const end = t0 + (cfg.warmupS + cfg.durationS) * 1000;
  let c0 = { all: NaN, main: NaN, at: 0 };
  let sentAtStart = 0;
  const opener = setTimeout(() => {
    counting = true;
    sentAtStart = sent;
    c0 = { all: procCpuMs(pid), main: procCpuMs(pid, true), at: performance.now() };
  }, cfg.warmupS * 1000);
  while (performance.now() < end) {
    const due = t0 + (sent * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const r = await pool.request({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, headers: { 'content-type': 'application/json' }, body: configMapBody(`w${tag}-${seqBase}-${sent}`, ns) });
    await r.body.text();
    if (r.statusCode !== 201) throw new Error(`watch writer: ${r.statusCode}`);
    sent++;
  }
  clearTimeout(opener);
  const ms = performance.now() - c0.at;
  const all = procCpuMs(pid) - c0.all - (idle.all * ms) / 1000;
  const main = procCpuMs(pid, true) - c0.main - (idle.main * ms) / 1000;
  await sleep(300);
  counting = false;
  await Promise.all(clients.map((c) => c.destroy()));
  await Promise.allSettled(streams);
  return { writes: sent - sentAtStart, events, cpuMs: all, mainMs: main, ms };
}

async function main() {
  installWatchdog(15 * 60_000);
  const tmp = mkdtempSync(join(tmpdir(), 'request-costs-'));
  const server = await spawnApiServer(join(tmp, 'data'), undefined, args.workers ? ['--workers', args.workers] : []);
  const results: { windows: Window[]; watch?: unknown; idle?: unknown; pin?: string } = { windows: [] };
  try {
    await server.readyLog;
    await pollReadyz(server.port, server.pkiDir, performance.now());
    if (args.pin) {
      const other = args.pin === '0' ? '1' : args.pin;
      for (const [pid, cpus] of [[server.pid, args.pin], [process.pid, other]] as const) {
        const r = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`taskset: ${r.stderr}`);
      }
      results.pin = `server on cores ${args.pin}, load generator on ${other}`;
      log(results.pin);
    }
    const tls = adminTls(server.pkiDir);
    const pool = makePool(server.origin, tls, 64);
    for (const ns of [NS, 'watched', 'paced']) {
      const r = await pool.request({ method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }) });
      await r.body.text();
    }
    log(`filling ${cfg.objects} ConfigMaps`);
    const fill = await runCount({ pool, concurrency: 64, count: cfg.objects, expectStatus: 201, timeoutMs: 600_000, spec: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: configMapBody(`cm-${i}`, NS) }) });
    if (fill.failed) throw new Error(`fill failed: ${fill.samples.join(' | ')}`);
    await sleep(1500);
    const i0 = { all: procCpuMs(server.pid), main: procCpuMs(server.pid, true), at: performance.now() };
    await sleep(3000);
    const idleS = (performance.now() - i0.at) / 1000;
    const idle = { all: (procCpuMs(server.pid) - i0.all) / idleS, main: (procCpuMs(server.pid, true) - i0.main) / idleS };
    results.idle = { cpuMsPerSecond: round(idle.all, 1), mainMsPerSecond: round(idle.main, 1) };
    log(`idle: ${round(idle.all, 1)} ms CPU per second`);

    const pick = (w: number, seq: number) => `cm-${(w * 7919 + seq * 104729) % cfg.objects}`;
    const obj = (name: string, seq: number) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: FILLER_1K, seq: String(seq) } });
    const base = `/api/v1/namespaces/${NS}/configmaps`;
    const runs: [string, number, number, (w: number, seq: number) => Spec][] = [
      ['create', 64, 201, (w, seq) => ({ method: 'POST', path: base, body: configMapBody(`c-${w}-${seq}`, NS) })],
      ['put', 64, 200, (w, seq) => ({ method: 'PUT', path: `${base}/${pick(w, seq)}`, body: obj(pick(w, seq), seq) })],
      ['merge-patch', 64, 200, (w, seq) => ({ method: 'PATCH', path: `${base}/${pick(w, seq)}`, headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { seq: `m${seq}` } }) })],
      ['apply', 64, 200, (w, seq) => ({ method: 'PATCH', path: `${base}/${pick(w, seq)}?fieldManager=bench-apply&force=true`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: obj(pick(w, seq), seq) })],
      ['get', 16, 200, (w, seq) => ({ method: 'GET', path: `${base}/${pick(w, seq)}` })],
      ['list-500-json', 16, 200, () => ({ method: 'GET', path: `${base}?limit=500` })],
      ['list-500-table', 16, 200, () => ({ method: 'GET', path: `${base}?limit=500`, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } })],
      ['list-500-protobuf', 16, 200, () => ({ method: 'GET', path: `${base}?limit=500`, headers: { accept: 'application/vnd.kubernetes.protobuf' } })],
    ];
    for (const [name, conns, expect, next] of runs) {
      if (only && !only.has(name)) continue;
      log(`window: ${name}`);
      const w = await closedLoop(pool, server.pid, idle, name, conns, expect, next);
      results.windows.push(w);
      log(`  ${w.perSec}/s, ${w.cpuUs} µs CPU per answer (main thread ${w.mainUs}), server ${w.serverCpuPercent}%`);
    }
    if (!only || only.has('watch')) {
      log(`window: ${cfg.watchRate} creates/s, no watchers`);
      const bare = await watchWindow(server.origin, tls, pool, server.pid, idle, 'paced', 0, cfg.watchRate, 'a');
      log(`window: ${cfg.watchRate} creates/s, ${cfg.watchers} watchers`);
      const watched = await watchWindow(server.origin, tls, pool, server.pid, idle, 'watched', cfg.watchers, cfg.watchRate, 'b');
      const perWrite = (bare.cpuMs * 1000) / bare.writes;
      const perWriteMain = (bare.mainMs * 1000) / bare.writes;
      const extra = watched.cpuMs * 1000 - perWrite * watched.writes;
      const extraMain = watched.mainMs * 1000 - perWriteMain * watched.writes;
      const delivered = watched.events;
      results.watch = {
        watchers: cfg.watchers,
        rate: cfg.watchRate,
        pacedCreateCpuUs: round(perWrite, 1),
        deliveredEvents: delivered,
        expectedEvents: watched.writes * cfg.watchers,
        cpuUsPerEventPerWatcher: round(extra / delivered, 2),
        mainUsPerEventPerWatcher: round(extraMain / delivered, 2),
      };
      log(`  watch: ${JSON.stringify(results.watch)}`);
    }
    await pool.close();
  } finally {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  const report = { timestamp: new Date().toISOString(), machine: machineFacts(), loadAvg: loadavg(), cfg, ...results };
  const out = args.out ?? join(ROOT, 'bench', 'results', `request-costs-${report.timestamp.replace(/[:.]/g, '-')}.json`);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 1));
  const lines = [`Server CPU per request (bench/request-costs.ts), ${report.machine.cpuCount} cores, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}${results.pin ? `, ${results.pin}` : ''}; idle subtracted (${JSON.stringify(results.idle)})`];
  lines.push(`  ${'request'.padEnd(20)} ${'conns'.padStart(5)} ${'answers/s'.padStart(10)} ${'CPU µs/answer'.padStart(14)} ${'main thread µs'.padStart(15)} ${'server CPU %'.padStart(13)}`);
  for (const w of results.windows) lines.push(`  ${w.name.padEnd(20)} ${String(w.connections).padStart(5)} ${String(w.perSec).padStart(10)} ${String(w.cpuUs).padStart(14)} ${String(w.mainUs).padStart(15)} ${String(w.serverCpuPercent).padStart(13)}`);
  if (results.watch) lines.push(`  watch: ${JSON.stringify(results.watch)}`);
  lines.push(`JSON: ${out}`);
  process.stdout.write(lines.join('\n') + '\n');
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (e) => {
    reportBenchFailure(e);
    process.exit(1);
  },
);
