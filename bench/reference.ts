/**
 * What the side-by-side benches (bench/vs-kube.ts, bench/crd.ts) need around their two servers:
 * the reference kube-apiserver 1.24.17 + etcd through ../shared/reference's scripts (build.sh when
 * its binaries are missing, start.sh and stop.sh; etcd with fsync, like this server; every data
 * dir started is stopped at exit), and this server built as `npm start` runs it.
 */
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildIsFresh, nodeArgsFor } from '../test/server-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

export interface Reference {
  /** The folder of build.sh, start.sh and stop.sh. */
  dir: string;
  /** Where its binaries are (REF_BIN, else ~/.cache/kube-ref/bin). */
  bin: string;
  /** Runs one of its scripts (under `taskset -c cpus` when given); resolves with the exit code and the output. */
  run(script: string, argv: string[], cpus?: string): Promise<{ code: number | null; out: string }>;
  /**
   * start.sh on a data dir; stop.sh runs on it at exit unless `stop` did. `cpus`: a `taskset -c`
   * CPU list for the script, so etcd and kube-apiserver (its children) run on those CPUs from their start.
   */
  start(dataDir: string, port: number, cpus?: string): Promise<{ code: number | null; out: string }>;
  stop(dataDir: string): Promise<void>;
  /** Builds the binaries with build.sh when they are missing. */
  ensureBuilt(log: (s: string) => void): void;
}

/** The reference of `--reference-dir` (default ../shared/reference beside the checkout). */
export function reference(dirArg: string | undefined): Reference {
  const dir = resolve(dirArg ?? join(ROOT, '..', 'shared', 'reference'));
  const bin = process.env.REF_BIN ?? join(homedir(), '.cache', 'kube-ref', 'bin');
  const env = (): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, REF_BIN: bin };
    delete e.ETCD_UNSAFE_NO_FSYNC; // fsync on, like this server
    delete e.EXTRA_APISERVER_FLAGS;
    return e;
  };
  const running = new Set<string>();
  process.on('exit', () => {
    for (const d of running) spawnSync('bash', [join(dir, 'stop.sh'), d], { stdio: 'ignore' });
  });
  const run = (script: string, argv: string[], cpus?: string): Promise<{ code: number | null; out: string }> =>
    new Promise((resolveP) => {
      const cmd = ['bash', join(dir, script), ...argv];
      if (cpus) cmd.unshift('taskset', '-c', cpus);
      const p = spawn(cmd[0]!, cmd.slice(1), { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      p.stderr.on('data', (c: Buffer) => (out += c.toString()));
      p.once('exit', (code) => resolveP({ code, out }));
    });
  return {
    dir,
    bin,
    run,
    start(dataDir, port, cpus) {
      running.add(dataDir);
      return run('start.sh', [dataDir, String(port)], cpus);
    },
    async stop(dataDir) {
      await run('stop.sh', [dataDir]);
      running.delete(dataDir);
    },
    ensureBuilt(log) {
      if (['etcd', 'kube-apiserver'].every((b) => existsSync(join(bin, b)))) return;
      log(`reference binaries missing in ${bin}: running ${dir}/build.sh (~4 min cold on 2 cores)`);
      const r = spawnSync('bash', [join(dir, 'build.sh')], { env: env(), stdio: ['ignore', 2, 2] });
      if (r.status !== 0) throw new Error(`reference build failed (${r.status})`);
    },
  };
}

/**
 * This server runs as `npm start` runs it: the built dist/ JavaScript. A source file edited after
 * the last build makes test/server-command.ts fall back to tsx, and its compile on every launch
 * and its loaded compiler would be measured as this server's launch and idle RSS (measured: 475–515
 * ms to /readyz and 133 MiB idle, against 199–246 ms and 96 MiB built). So a stale build is
 * rebuilt first, and the command every launch uses is logged.
 */
export function ensureServerBuilt(log: (s: string) => void, root = ROOT): void {
  if (!buildIsFresh(root)) {
    log(`${root}: dist/ is older than the source: building it first (npm run build)`);
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'cmd/build.ts'], { cwd: root, stdio: ['ignore', 2, 2] });
    if (r.status !== 0) throw new Error(`build failed (${r.status ?? r.error})`);
  }
  log(`${root === ROOT ? 'this server' : root} runs as: node ${nodeArgsFor('cmd/apiserver.ts', [], root).join(' ')}`);
}
