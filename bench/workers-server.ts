/**
 * The server as a child process for bench/workers-*.ts: `--workers N`, optionally pinned to CPUs
 * (taskset), on a fresh data directory under `dir`; the admin TLS files for bench/loadgen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { nodeArgsFor } from '../test/server-command.ts';

const ROOT = new URL('..', import.meta.url).pathname;

export interface BenchServer {
  url: string;
  pid: number;
  tls: { server: string; ca: string; cert: string; key: string };
  stop(): Promise<void>;
}

export async function startBenchServer(dir: string, workers: number, cpus?: string): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(dir, 'data-'));
  const node = [process.execPath, ...nodeArgsFor('cmd/apiserver.ts'), '--data-dir', dataDir, '--secure-port', '0', '--workers', String(workers), '--log-level', 'info'];
  const [cmd, ...args] = cpus ? ['taskset', '-c', cpus, ...node] : node;
  const proc = spawn(cmd!, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let buf = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stderr!.on('data', (c: Buffer) => {
      buf += c.toString();
      const m = /"url":"([^"]+)"[^\n]*API server ready/.exec(buf);
      if (m) resolve(m[1]!);
    });
    proc.once('exit', (code) => reject(new Error(`server exited ${code}: ${buf.slice(-2000)}`)));
  });
  const pki = join(dataDir, 'pki');
  return {
    url,
    pid: proc.pid!,
    tls: { server: url, ca: join(pki, 'ca.crt'), cert: join(pki, 'admin.crt'), key: join(pki, 'admin.key') },
    async stop() {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
