/**
 * A quick look at `--workers` scaling (issue 28), not the bench (that is `npm run
 * bench:cores`): this server pinned to one core with `--workers 1`, then to two cores with
 * `--workers 2` (taskset), each freshly started on its own data directory, driven by the Go load
 * generator of bench/loadgen (unpinned, so on a 2-core machine it competes with the server):
 *
 *   - pages of 500 ConfigMaps per second: 16 generator processes, each paging through a namespace
 *     of 5,000 ConfigMaps (limit=500) on its own connection, for `--seconds`;
 *   - creates per second: 64 connections of 1 KiB ConfigMap creates (fsync on), for `--seconds`.
 *
 *   node --import tsx bench/workers-scaling.ts [--rounds 2] [--seconds 8] [--workers 2]
 *
 * Prints each round's figures and the median ratio (2 cores ÷ 1 core). The machine is shared:
 * read the medians.
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLoadgen, runLoadgen } from './loadgen-client.ts';
import { startBenchServer } from './workers-server.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' }, seconds: { type: 'string', default: '8' }, workers: { type: 'string', default: '2' } } });
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const tmp = mkdtempSync(join(tmpdir(), 'workers-scaling-'));
const bin = buildLoadgen(tmp, 'loadgen', (s) => console.error(s));

interface ListResult { runs: { pages: number; totalMs: number }[] }
interface LoadResult { okPerSec: number; statuses: Record<string, number> }

async function measure(cpus: string, workers: number): Promise<{ pagesPerSec: number; createsPerSec: number }> {
  const s = await startBenchServer(tmp, workers, cpus);
  try {
    const ns = 'scaling';
    await runLoadgen(bin, 'prep', s.tls, { server: s.url, namespaces: [ns], namespace: ns, probeCount: 0 });
    await runLoadgen(bin, 'fill', s.tls, { server: s.url, namespace: ns, from: 0, to: 5000, conns: 32 });
    // Pages: 16 clients, each as many 10-page runs as fit in SECONDS (estimated from one run).
    const one = await runLoadgen<ListResult>(bin, 'list', s.tls, { server: s.url, path: `/api/v1/namespaces/${ns}/configmaps`, limit: 500, runs: 2 });
    const runMs = Math.max(1, one.runs[1]!.totalMs);
    const runs = Math.max(2, Math.round((SECONDS * 1000) / (runMs * 16)) * 2);
    const t0 = performance.now();
    const lists = await Promise.all(Array.from({ length: 16 }, () => runLoadgen<ListResult>(bin, 'list', s.tls, { server: s.url, path: `/api/v1/namespaces/${ns}/configmaps`, limit: 500, runs })));
    const wall = (performance.now() - t0) / 1000;
    const pages = lists.reduce((n, l) => n + l.runs.reduce((m, r) => m + r.pages, 0), 0);
    const load = await runLoadgen<LoadResult>(bin, 'load', s.tls, { server: s.url, namespace: ns, proto: 'h1', conns: 64, warmupMs: 2000, durationMs: SECONDS * 1000, prefix: 'load' });
    return { pagesPerSec: pages / wall, createsPerSec: load.okPerSec };
  } finally {
    await s.stop();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const one: { pagesPerSec: number; createsPerSec: number }[] = [];
const two: { pagesPerSec: number; createsPerSec: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  one.push(await measure('0', 1));
  two.push(await measure('0-1', Number(args.workers)));
  console.log(`round ${r + 1}: 1 core --workers 1: ${one[r]!.pagesPerSec.toFixed(0)} pages/s, ${one[r]!.createsPerSec.toFixed(0)} creates/s | 2 cores --workers ${args.workers}: ${two[r]!.pagesPerSec.toFixed(0)} pages/s, ${two[r]!.createsPerSec.toFixed(0)} creates/s`);
}
const ratio = (k: 'pagesPerSec' | 'createsPerSec'): string => (median(two.map((x) => x[k])) / median(one.map((x) => x[k]))).toFixed(2);
console.log(`median ratio 2 cores ÷ 1 core: pages of 500 ${ratio('pagesPerSec')}×, creates ${ratio('createsPerSec')}×`);
rmSync(tmp, { recursive: true, force: true });
