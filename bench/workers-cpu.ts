/**
 * Server CPU per request with `--workers 1` and `--workers 2` (issue 28), under the same load from
 * the Go load generator (bench/loadgen): 64 connections of 1 KiB ConfigMap creates for 6 s, then one
 * client paging (limit=500) 20 times through 2,000 ConfigMaps. CPU is the server process's (all its
 * threads) from /proc/<pid>/stat, so it is the cost of a request whichever thread served it,
 * including the hand-offs; the figures depend far less on the machine's load than rates do.
 *
 *   node --import tsx bench/workers-cpu.ts [--rounds 2]
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildLoadgen, runLoadgen } from './loadgen-client.ts';
import { startBenchServer } from './workers-server.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2' } } });
const tmp = mkdtempSync(join(tmpdir(), 'workers-cpu-'));
const bin = buildLoadgen(tmp, 'loadgen', () => undefined);
/** utime + stime of the whole process, in ms (USER_HZ = 100). */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
};
interface LoadResult { ok: number; okPerSec: number }
interface ListResult { runs: { pages: number }[] }

for (let round = 0; round < Number(args.rounds); round++) {
  for (const workers of [1, 2]) {
    const server = await startBenchServer(tmp, workers);
    const { url, tls, pid } = server;
    await runLoadgen(bin, 'prep', tls, { server: url, namespaces: ['x'], namespace: 'x', probeCount: 0 });
    await runLoadgen(bin, 'fill', tls, { server: url, namespace: 'x', from: 0, to: 2000, conns: 32 });
    let c0 = cpuMs(pid);
    const load = await runLoadgen<LoadResult>(bin, 'load', tls, { server: url, namespace: 'x', proto: 'h1', conns: 64, warmupMs: 0, durationMs: 6000, prefix: 'l' });
    const perCreate = ((cpuMs(pid) - c0) * 1000) / load.ok;
    c0 = cpuMs(pid);
    const list = await runLoadgen<ListResult>(bin, 'list', tls, { server: url, path: '/api/v1/namespaces/x/configmaps', limit: 500, runs: 20 });
    const pages = list.runs.reduce((n, r) => n + r.pages, 0);
    const perPage = ((cpuMs(pid) - c0) * 1000) / pages;
    console.log(`round ${round + 1} --workers ${workers}: ${load.okPerSec.toFixed(0)} creates/s, ${perCreate.toFixed(0)} µs CPU per create; ${perPage.toFixed(0)} µs CPU per page of 500`);
    await server.stop();
  }
}
rmSync(tmp, { recursive: true, force: true });
