/**
 * The API server under test as a child process (cmd/apiserver.ts, fsync on), with what the bench
 * needs beyond test/harness.ts's spawnServer: a known port before it is ready (to poll /readyz
 * from the moment of spawn), the time to its "API server ready" log line, and a watch on its log
 * for warnings and errors.
 */
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { spawnTracked, stopChild, freePort, sleep, round } from './util.ts';
import { nodeArgsFor } from '../test/server-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** Warnings and errors the server logged over the whole run, and unexpected exits. */
export const serverLog = {
  warn: 0,
  error: 0,
  samples: [] as string[],
  unexpectedExits: [] as string[],
  note(line: string, level: number, msg: string) {
    if (level >= 50) this.error++;
    else if (level >= 40) this.warn++;
    else return;
    if (this.samples.length < 10) this.samples.push(line.length > 600 ? line.slice(0, 600) + '…' : line);
    void msg;
  },
};

export interface ApiServer {
  proc: ChildProcess;
  pid: number;
  port: number;
  origin: string;
  dataDir: string;
  pkiDir: string;
  /** performance.now() at spawn. */
  spawnedAt: number;
  /** Resolves with ms from spawn to the "API server ready" log line, and the server's own startupMs. */
  readyLog: Promise<{ ms: number; startupMs: number | null; folded: number | null }>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * `opts.root`: the checkout to run (another worktree of this repository; default this one);
 * `opts.cpus`: a `taskset -c` CPU list the process runs on from its start (taskset execs node, so
 * the pid is node's and every thread it makes inherits the affinity).
 */
export async function spawnApiServer(dataDir: string, port?: number, extraArgs: string[] = [], opts: { root?: string; cpus?: string } = {}): Promise<ApiServer> {
  port ??= await freePort();
  const spawnedAt = performance.now();
  const root = opts.root ?? ROOT;
  // APISERVER_CPU_PROF=<dir>: the server writes a V8 CPU profile there (as test/harness.ts does).
  const prof = process.env.APISERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.APISERVER_CPU_PROF}`] : [];
  const argv = [...nodeArgsFor('cmd/apiserver.ts', prof, root), '--data-dir', dataDir, '--secure-port', String(port), '--bind-address', '127.0.0.1', ...extraArgs];
  const [cmd, cmdArgs] = opts.cpus ? ['taskset', ['-c', opts.cpus, process.execPath, ...argv]] : [process.execPath, argv];
  const proc = spawnTracked(cmd, cmdArgs, {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stopping = false;
  const readyLog = new Promise<{ ms: number; startupMs: number | null; folded: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no "API server ready" log line in 60 s')), 60_000);
    const tail: string[] = [];
    const rl = createInterface({ input: proc.stderr! });
    rl.on('line', (line) => {
      let rec: { level?: number; msg?: string; startupMs?: number; folded?: number } | null = null;
      try {
        rec = JSON.parse(line);
      } catch {
        rec = null;
      }
      if (!rec) {
        // Not pino: a crash trace or a warning from node itself.
        if (line.trim()) {
          tail.push(line);
          if (tail.length > 20) tail.shift();
          serverLog.note(line, 40, line);
        }
        return;
      }
      serverLog.note(line, rec.level ?? 30, rec.msg ?? '');
      if (rec.msg === 'API server ready') {
        clearTimeout(timer);
        resolve({ ms: round(performance.now() - spawnedAt, 1), startupMs: rec.startupMs ?? null, folded: rec.folded ?? null });
      }
    });
    proc.once('exit', (code, sig) => {
      clearTimeout(timer);
      if (!stopping) serverLog.unexpectedExits.push(`pid ${proc.pid} exited with code ${code} signal ${sig}: ${tail.join('\n')}`);
      reject(new Error(`server exited with ${code ?? sig}: ${tail.join('\n')}`));
    });
  });
  readyLog.catch(() => undefined);
  return {
    proc,
    pid: proc.pid!,
    port,
    origin: `https://127.0.0.1:${port}`,
    dataDir,
    pkiDir: join(dataDir, 'pki'),
    spawnedAt,
    readyLog,
    async stop(signal = 'SIGTERM') {
      stopping = true;
      await stopChild(proc, signal, 15_000);
    },
  };
}

/** One GET /readyz on a fresh TLS connection (no client certificate); resolves with the status. */
function readyzOnce(port: number, ca: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const req = https.request(
      { host: '127.0.0.1', port, path: '/readyz', method: 'GET', agent: false, ca, rejectUnauthorized: ca !== undefined, timeout: 2000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * Poll /readyz every `intervalMs` (a fresh TLS connection each time) until a 200; resolves with
 * ms since `since` (performance.now()), and the number of attempts.
 */
export async function pollReadyz(port: number, pkiDir: string, since: number, timeoutMs = 60_000, intervalMs = 10): Promise<{ ms: number; attempts: number }> {
  let ca: string | undefined;
  try {
    ca = readFileSync(join(pkiDir, 'ca.crt'), 'utf8');
  } catch {
    ca = undefined; // first start: no CA yet, do not verify
  }
  let attempts = 0;
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    attempts++;
    const status = await readyzOnce(port, ca);
    if (status === 200) return { ms: round(performance.now() - since, 1), attempts };
    await sleep(intervalMs);
  }
  throw new Error(`/readyz not 200 within ${timeoutMs} ms`);
}

/** A benchmark's catch block: the error, the server's recent warnings, a failing exit code. */
export function reportBenchFailure(err: unknown): void {
  process.stderr.write(`bench failed: ${(err as Error)?.stack ?? err}\n`);
  if (serverLog.samples.length) process.stderr.write(`server log warnings/errors:\n  ${serverLog.samples.join('\n  ')}\n`);
  process.exitCode = 1;
}
