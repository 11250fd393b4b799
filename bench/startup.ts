/**
 * Start-up benchmark (`npm run bench:startup`, issue 14): launch → first 200 from /readyz, on an
 * empty data dir and on one holding --objects 1 KiB ConfigMaps.
 *
 *   node --import tsx bench/startup.ts [--runs 5] [--objects 100000] [--roots DIR[,DIR…]] [--nodes BIN[,BIN…]] [--keep]
 *
 * The server is the node process of cmd/apiserver.ts as test/server-command.ts picks it for each
 * root (the built dist/ JavaScript when fresh, else tsx on the source; APISERVER_RUN=tsx|dist
 * forces one), with fsync on. --roots compares source trees (e.g. a checkout of the previous
 * version and this one): launches alternate between them within each run, so a noisy, shared
 * machine weighs on all of them alike; figures are medians over --runs. --nodes compares Node
 * runtimes the same way (each root × each node binary is one target; default: this process's node).
 *
 * "Empty": a new data dir holding only a PKI made before (no launch figure includes key
 * generation, as in bench/vs-kube.ts), so the launch creates the store and its bootstrap objects.
 * "Objects": one data dir filled once over HTTP (--connections concurrent POSTs to a server of the
 * first root started with --no-fsync), then launched again and again (a warm start, as after a
 * restart). /readyz is polled every 10 ms on a fresh TLS connection from before the spawn; the
 * time is from the spawn to the first 200. Also reported: the "API server ready" log line's time
 * and the server's own startupMs (from startServer's entry, so module loading is outside it).
 * JSON: bench/results/startup-<timestamp>.json. APISERVER_CPU_PROF=<dir> writes each launch's V8
 * CPU profile there.
 */
import { parseArgs } from 'node:util';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnTracked, stopChild, freePort, median, round, benchSession, endBench, adminTls, installWatchdog, writeResult } from './util.ts';
import { pollReadyz } from './server.ts';
import { fillConfigMaps } from './load.ts';
import { nodeArgsFor, buildIsFresh } from '../test/server-command.ts';
import { ensurePki } from '../internal/auth/pki.ts';
import { execFileSync, type ChildProcess } from 'node:child_process';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    objects: { type: 'string', default: '100000' },
    roots: { type: 'string', default: '' },
    nodes: { type: 'string', default: '' },
    connections: { type: 'string', default: '32' },
    keep: { type: 'boolean', default: false },
  },
  strict: true,
});
const here = new URL('..', import.meta.url).pathname;
const cfg = {
  runs: Number(args.runs),
  objects: Number(args.objects),
  connections: Number(args.connections),
  roots: (args.roots ? args.roots.split(',') : [here]).map((r) => resolve(r)),
  nodes: args.nodes ? args.nodes.split(',').map((n) => resolve(n)) : [process.execPath],
};
/** One thing launched: a source tree run by one node binary. */
interface Target {
  root: string;
  node: string;
  label: string;
}
const nodeVersion = (bin: string): string => execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
const targets: Target[] = cfg.roots.flatMap((root) => cfg.nodes.map((node) => ({ root, node, label: cfg.nodes.length > 1 ? `${root} @ node ${nodeVersion(node)}` : root })));
installWatchdog(60 * 60_000);
const { log, tmpRoot, machine } = benchSession('startup', args.keep!, cfg);

interface Launched {
  proc: ChildProcess;
  port: number;
  /** ms from spawn to the first 200 of /readyz. */
  readyzMs: number;
  /** ms from spawn to the "API server ready" log line, and the server's own startupMs. */
  readyLog: Promise<{ ms: number; startupMs: number | null }>;
}

async function launch({ root, node }: Target, dataDir: string, extra: string[] = []): Promise<Launched> {
  const port = await freePort();
  const prof = process.env.APISERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.APISERVER_CPU_PROF}`] : [];
  const argv = [...nodeArgsFor('cmd/apiserver.ts', prof, root), '--data-dir', dataDir, '--secure-port', String(port), '--bind-address', '127.0.0.1', '--log-level', 'info', ...extra];
  const t0 = performance.now();
  const poll = pollReadyz(port, join(dataDir, 'pki'), t0, 120_000, 10);
  poll.catch(() => undefined);
  const proc = spawnTracked(node, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let buf = '';
  const readyLog = new Promise<{ ms: number; startupMs: number | null }>((resolveP, reject) => {
    proc.stderr!.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"startupMs":(\d+)[^\n]*"msg":"API server ready"/.exec(buf) ?? /"msg":"API server ready"/.exec(buf);
      if (m) resolveP({ ms: round(performance.now() - t0, 1), startupMs: m[1] ? Number(m[1]) : null });
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${buf.slice(-2000)}`)));
  });
  readyLog.catch(() => undefined);
  const r = await Promise.race([poll, readyLog.then(() => poll)]);
  return { proc, port, readyzMs: r.ms, readyLog };
}

async function stop(l: Launched): Promise<void> {
  await stopChild(l.proc, 'SIGTERM', 15_000);
}

try {
  const pkiSeed = join(tmpRoot, 'pki-seed');
  await ensurePki(pkiSeed, { hosts: ['127.0.0.1'] });
  const freshDir = (name: string): string => {
    const d = join(tmpRoot, name);
    rmSync(d, { recursive: true, force: true });
    mkdirSync(d, { recursive: true });
    cpSync(pkiSeed, join(d, 'pki'), { recursive: true });
    return d;
  };
  for (const root of cfg.roots) log(`root ${root}: ${nodeArgsFor('cmd/apiserver.ts', [], root).join(' ')} (build fresh: ${buildIsFresh(root)})`);
  for (const node of cfg.nodes) log(`node ${node}: ${nodeVersion(node)}`);

  // One data dir with the objects, filled through the first root's server (fsync off: a fill).
  const objectsDir = freshDir('objects');
  if (cfg.objects > 0) {
    const fillServer = await launch(targets[0]!, objectsDir, ['--no-fsync']);
    const fill = await fillConfigMaps(`https://127.0.0.1:${fillServer.port}`, adminTls(join(objectsDir, 'pki')), cfg.objects, cfg.connections);
    log(`filled ${fill.ok} ConfigMaps in ${round(fill.ms / 1000, 1)} s`);
    await stop(fillServer);
  }

  type Sample = { target: string; case: 'empty' | 'objects'; readyzMs: number; readyLogMs: number; startupMs: number | null };
  const samples: Sample[] = [];
  // One untimed launch per target (page cache, tsx's compile cache).
  for (const t of targets) await stop(await launch(t, freshDir('prime')));
  for (let run = 1; run <= cfg.runs; run++) {
    const order = run % 2 ? targets : [...targets].reverse();
    for (const t of order) {
      for (const c of ['empty', 'objects'] as const) {
        if (c === 'objects' && cfg.objects <= 0) continue;
        const dir = c === 'empty' ? freshDir('empty') : objectsDir;
        const l = await launch(t, dir);
        const rl = await l.readyLog;
        await stop(l);
        samples.push({ target: t.label, case: c, readyzMs: l.readyzMs, readyLogMs: rl.ms, startupMs: rl.startupMs });
        log(`run ${run} ${t.label} ${c}: /readyz ${l.readyzMs} ms (ready log ${rl.ms} ms, startupMs ${rl.startupMs})`);
      }
    }
  }
  const summary = targets.map(({ root, node, label }) => {
    const of = (c: 'empty' | 'objects', f: (s: Sample) => number | null) => round(median(samples.filter((s) => s.target === label && s.case === c).map(f).filter((v): v is number => v !== null)), 1);
    return {
      target: label,
      root,
      node: nodeVersion(node),
      run: nodeArgsFor('cmd/apiserver.ts', [], root).join(' '),
      emptyReadyzMs: of('empty', (s) => s.readyzMs),
      emptyStartupMs: of('empty', (s) => s.startupMs),
      objectsReadyzMs: of('objects', (s) => s.readyzMs),
      objectsStartupMs: of('objects', (s) => s.startupMs),
    };
  });
  for (const s of summary) log(`median ${s.target}: empty ${s.emptyReadyzMs} ms (startupMs ${s.emptyStartupMs}), ${cfg.objects} objects ${s.objectsReadyzMs} ms (startupMs ${s.objectsStartupMs})`);
  const file = writeResult('startup', { timestamp: new Date().toISOString(), machine, cfg, summary, samples } as { timestamp: string });
  log(`wrote ${file}`);
} catch (err) {
  process.stderr.write(`bench failed: ${(err as Error)?.stack ?? err}\n`);
  process.exitCode = 1;
}
endBench(tmpRoot, args.keep!);

