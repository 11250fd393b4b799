/**
 * Server-side apply benchmark (`npm run bench:apply`, issue 11): writes/s of a 1 KiB ConfigMap
 * (16 keys of 64 bytes) through
 *
 *   merge      PATCH application/merge-patch+json changing one key (the baseline)
 *   apply-1    PATCH application/apply-patch+yaml of the whole ConfigMap by one manager, one key
 *              changed per apply
 *   apply-2    the same by two managers taking turns: both apply the 15 shared keys with equal
 *              values (shared ownership) plus one key of their own that changes
 *
 *   node --import tsx bench/apply.ts [--objects 64] [--connections 16] [--seconds 5] [--rounds 3] [--keep]
 *
 * The API server runs as a child process over TLS (fsync on); each connection writes its own
 * objects so that writes never wait on one another's key lock. The scenarios run in turn, --rounds
 * times (the machine is shared: interleaving spreads the noise); reported per scenario: the median
 * writes/s of the rounds and the latency of all of them, and the apply/merge ratios of the medians (goal: apply within 2× of a merge patch, i.e. ratio ≥ 0.5).
 * JSON: bench/results/apply-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'undici';
import { adminTls, benchSession, endBench, fmt, median, procCpuMs, round, summarize, writeResult, type LatencySummary } from './util.ts';

const round2 = (v: number): number => round(v, 1);
import { spawnServerWithFlags } from './util.ts';

const { values: args } = parseArgs({
  options: {
    objects: { type: 'string', default: '64' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = { objects: Number(args.objects), connections: Number(args.connections), seconds: Number(args.seconds), rounds: Number(args.rounds) };
const { log, tmpRoot, machine } = benchSession('apply', args.keep!, cfg);

const NS = 'bench-apply';
const KEYS = 16;
const value = (_i: number, n: number): string => `${String(n).padStart(8, "0")}-${"v".repeat(55)}`;

/** The 1 KiB data: 16 keys of 64 bytes; key k0 carries the counter. */
function data(n: number, own?: string): Record<string, string> {
  const d: Record<string, string> = {};
  for (let k = 1; k < KEYS; k++) d[`k${k}`] = value(k, 0);
  if (own) d[own] = value(0, n);
  else d.k0 = value(0, n);
  return d;
}

interface Scenario {
  name: string;
  /** The request for iteration `n` on object `i`. */
  make(i: number, n: number): { path: string; contentType: string; body: string };
}

/** Each scenario writes objects of its own (`<scenario>-<i>`), so their managers never meet. */
const cmPath = (s: string, i: number, q = ''): string => `/api/v1/namespaces/${NS}/configmaps/${s}-${i}${q}`;
const applyBody = (s: string, i: number, d: Record<string, string>): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${s}-${i}` }, data: d });

const SCENARIOS: Scenario[] = [
  { name: 'merge', make: (i, n) => ({ path: cmPath('merge', i, '?fieldManager=merger'), contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { k0: value(0, n) } }) }) },
  { name: 'apply-1', make: (i, n) => ({ path: cmPath('apply-1', i, '?fieldManager=applier'), contentType: 'application/apply-patch+yaml', body: applyBody('apply-1', i, data(n)) }) },
  {
    name: 'apply-2',
    make: (i, n) => {
      const who = n % 2 ? 'b' : 'a';
      return { path: cmPath('apply-2', i, `?fieldManager=applier-${who}`), contentType: 'application/apply-patch+yaml', body: applyBody('apply-2', i, data(n, `own-${who}`)) };
    },
  },
];

interface Result {
  scenario: string;
  writes: number;
  /** Median over the rounds. */
  perSecond: number;
  rounds: number[];
  /** Server CPU (user + system) per write, µs: robust to other load on a shared machine. */
  serverCpuUsPerWrite: number;
  errors: number;
  latencyMs: LatencySummary;
}

async function main(): Promise<void> {
  const dataDir = join(tmpRoot, 'data');
  mkdirSync(dataDir, { recursive: true });
  const server = await spawnServerWithFlags({ dataDir, flags: [] });
  await server.ready;
  const tls = adminTls(join(dataDir, 'pki'));
  const agent = new Agent({ connect: { ...tls, rejectUnauthorized: true }, connections: cfg.connections, pipelining: 1 });
  const call = async (method: string, path: string, contentType: string, body: string): Promise<number> => {
    const r = await request(`${server.origin}${path}`, { method: method as 'PATCH', headers: { 'content-type': contentType }, body, dispatcher: agent });
    await r.body.text();
    return r.statusCode;
  };
  const results: Result[] = [];
  try {
    await call('POST', '/api/v1/namespaces', 'application/json', JSON.stringify({ metadata: { name: NS } }));
    for (const s of SCENARIOS) {
      for (let i = 0; i < cfg.objects; i++) {
        const code = await call('POST', `/api/v1/namespaces/${NS}/configmaps?fieldManager=creator`, 'application/json', JSON.stringify({ metadata: { name: `${s.name}-${i}` }, data: data(0) }));
        if (code !== 201) throw new Error(`create ${s.name}-${i}: HTTP ${code}`);
      }
    }
    let n = 1;
    // Warm-up (and for apply: take the fields over once, forced, so the runs measure steady state).
    for (const s of SCENARIOS) {
      for (let i = 0; i < cfg.objects; i++) {
        for (let k = 0; k < (s.name === 'apply-2' ? 2 : 1); k++) {
          const r = s.make(i, n++);
          await call('PATCH', r.path + (s.name === 'merge' ? '' : '&force=true'), r.contentType, r.body);
        }
      }
    }
    const acc = new Map<string, { lat: number[]; rates: number[]; errors: number; cpuMs: number }>(SCENARIOS.map((s) => [s.name, { lat: [], rates: [], errors: 0, cpuMs: 0 }]));
    for (let round = 0; round < cfg.rounds; round++) {
      for (const s of SCENARIOS) {
        const a = acc.get(s.name)!;
        let count = 0;
        const end = performance.now() + cfg.seconds * 1000;
        const start = performance.now();
        const cpu0 = procCpuMs(server.pid);
        await Promise.all(
          Array.from({ length: cfg.connections }, async (_, c) => {
            for (let k = 0; performance.now() < end; k++) {
              const i = (c + k * cfg.connections) % cfg.objects;
              const r = s.make(i, n++);
              const t0 = performance.now();
              const code = await call('PATCH', r.path, r.contentType, r.body);
              a.lat.push(performance.now() - t0);
              count++;
              if (code !== 200) a.errors++;
            }
          }),
        );
        a.cpuMs += procCpuMs(server.pid) - cpu0;
        const rate = round2(count / ((performance.now() - start) / 1000));
        a.rates.push(rate);
        log(`round ${round + 1}/${cfg.rounds} ${s.name.padEnd(8)} ${fmt(rate)} writes/s`);
      }
    }
    for (const s of SCENARIOS) {
      const a = acc.get(s.name)!;
      const res: Result = { scenario: s.name, writes: a.lat.length, perSecond: median(a.rates), rounds: a.rates, serverCpuUsPerWrite: round((a.cpuMs * 1000) / a.lat.length, 0), errors: a.errors, latencyMs: summarize(a.lat) };
      results.push(res);
      log(`${s.name.padEnd(8)} median ${fmt(res.perSecond)} writes/s  server CPU ${fmt(res.serverCpuUsPerWrite, 0)} µs/write  p50 ${fmt(res.latencyMs.p50)} ms  p99 ${fmt(res.latencyMs.p99)} ms  errors ${a.errors}`);
    }
  } finally {
    await agent.close();
    await server.stop();
  }
  const merge = results.find((r) => r.scenario === 'merge')!.perSecond;
  const mergeCpu = results.find((r) => r.scenario === 'merge')!.serverCpuUsPerWrite;
  const ratios = Object.fromEntries(results.filter((r) => r.scenario !== 'merge').map((r) => [r.scenario, round(r.perSecond / merge, 2)]));
  const cpuRatios = Object.fromEntries(results.filter((r) => r.scenario !== 'merge').map((r) => [r.scenario, round(r.serverCpuUsPerWrite / mergeCpu, 2)]));
  for (const [k, v] of Object.entries(ratios)) log(`${k} / merge: ${v} of the writes/s, ${cpuRatios[k]}× the server CPU per write (goal: within 2× of a merge patch) ${v >= 0.5 ? 'OK' : 'MISSED'}`);
  const file = writeResult('apply', { timestamp: new Date().toISOString(), machine, config: cfg, results, ratios, cpuRatios } as { timestamp: string });
  log(`results: ${file}`);
}

main()
  .catch((e) => {
    process.exitCode = 1;
    log(`failed: ${(e as Error).stack ?? e}`);
  })
  .finally(() => endBench(tmpRoot, args.keep!));
