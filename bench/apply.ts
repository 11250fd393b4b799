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
 *   node --import tsx bench/apply.ts [--objects 64] [--connections 16] [--seconds 10] [--keep]
 *
 * The API server runs as a child process over TLS (fsync on); each connection writes its own
 * objects so that writes never wait on one another's key lock. Reported: writes/s and latency per
 * scenario and the apply/merge ratios (goal: apply within 2× of a merge patch, i.e. ratio ≥ 0.5).
 * JSON: bench/results/apply-<timestamp>.json.
 */
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { Agent, request } from 'undici';
import { adminTls, benchSession, endBench, fmt, round, summarize, writeResult, type LatencySummary } from './util.ts';
import { spawnServerWithFlags } from './util.ts';

const { values: args } = parseArgs({
  options: {
    objects: { type: 'string', default: '64' },
    connections: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '10' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const cfg = { objects: Number(args.objects), connections: Number(args.connections), seconds: Number(args.seconds) };
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

const cmPath = (i: number, q = ''): string => `/api/v1/namespaces/${NS}/configmaps/cm-${i}${q}`;
const applyBody = (i: number, d: Record<string, string>): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: d });

const SCENARIOS: Scenario[] = [
  { name: 'merge', make: (i, n) => ({ path: cmPath(i, '?fieldManager=merger'), contentType: 'application/merge-patch+json', body: JSON.stringify({ data: { k0: value(0, n) } }) }) },
  { name: 'apply-1', make: (i, n) => ({ path: cmPath(i, '?fieldManager=applier'), contentType: 'application/apply-patch+yaml', body: applyBody(i, data(n)) }) },
  {
    name: 'apply-2',
    make: (i, n) => {
      const who = n % 2 ? 'b' : 'a';
      return { path: cmPath(i, `?fieldManager=applier-${who}`), contentType: 'application/apply-patch+yaml', body: applyBody(i, data(n, `own-${who}`)) };
    },
  },
];

interface Result {
  scenario: string;
  writes: number;
  perSecond: number;
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
    for (let i = 0; i < cfg.objects; i++) {
      const code = await call('POST', `/api/v1/namespaces/${NS}/configmaps?fieldManager=creator`, 'application/json', JSON.stringify({ metadata: { name: `cm-${i}` }, data: data(0) }));
      if (code !== 201) throw new Error(`create cm-${i}: HTTP ${code}`);
    }
    let n = 1;
    for (const s of SCENARIOS) {
      // Warm-up (and for apply: take the fields over once, forced, so the run measures steady state).
      for (let i = 0; i < cfg.objects; i++) {
        const r = s.make(i, n++);
        await call('PATCH', r.path + (s.name === 'merge' ? '' : '&force=true'), r.contentType, r.body);
        if (s.name === 'apply-2') {
          const r2 = s.make(i, n++);
          await call('PATCH', r2.path + '&force=true', r2.contentType, r2.body);
        }
      }
      const lat: number[] = [];
      let errors = 0;
      const end = performance.now() + cfg.seconds * 1000;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: cfg.connections }, async (_, c) => {
          for (let k = 0; performance.now() < end; k++) {
            const i = (c + k * cfg.connections) % cfg.objects;
            const r = s.make(i, n++);
            const t0 = performance.now();
            const code = await call('PATCH', r.path, r.contentType, r.body);
            lat.push(performance.now() - t0);
            if (code !== 200) errors++;
          }
        }),
      );
      const secs = (performance.now() - start) / 1000;
      const res: Result = { scenario: s.name, writes: lat.length, perSecond: round(lat.length / secs, 1), errors, latencyMs: summarize(lat) };
      results.push(res);
      log(`${s.name.padEnd(8)} ${fmt(res.perSecond)} writes/s  p50 ${fmt(res.latencyMs.p50)} ms  p99 ${fmt(res.latencyMs.p99)} ms  errors ${errors}`);
    }
  } finally {
    await agent.close();
    await server.stop();
  }
  const merge = results.find((r) => r.scenario === 'merge')!.perSecond;
  const ratios = Object.fromEntries(results.filter((r) => r.scenario !== 'merge').map((r) => [r.scenario, round(r.perSecond / merge, 2)]));
  for (const [k, v] of Object.entries(ratios)) log(`${k} / merge = ${v} (goal ≥ 0.5: within 2× of a merge patch) ${v >= 0.5 ? 'OK' : 'MISSED'}`);
  const file = writeResult('apply', { timestamp: new Date().toISOString(), machine, config: cfg, results, ratios } as { timestamp: string });
  log(`results: ${file}`);
}

main()
  .catch((e) => {
    process.exitCode = 1;
    log(`failed: ${(e as Error).stack ?? e}`);
  })
  .finally(() => endBench(tmpRoot, args.keep!));
