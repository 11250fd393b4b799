/**
 * Ceilings measured in the same run as the server figures, so each figure reads as a ratio:
 *  - a bare Node HTTPS server (bench/ceiling-server.ts, a child process) driven by the same load
 *    generator;
 *  - LevelDB (classic-level) write batches of 64 × 1 KiB with sync: true.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ClassicLevel } from 'classic-level';
import { spawnTracked, stopChild, round, configMapBody } from './util.ts';
import type { ChildProcess } from 'node:child_process';

const ROOT = new URL('..', import.meta.url).pathname;

export interface LevelCeiling {
  batchSize: number;
  valueBytes: number;
  seconds: number;
  batches: number;
  batchesPerSec: number;
  recordsPerSec: number;
  batchLatencyMsP50: number;
}

/** Sequential `sync: true` batches of `batchSize` puts into a fresh LevelDB for ~`seconds`. */
export async function levelDbCeiling(dir: string, seconds: number, batchSize = 64): Promise<LevelCeiling> {
  const db = new ClassicLevel<string, string>(join(dir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const value = configMapBody('ceiling-value-000000', 'default');
  const lat: number[] = [];
  let batches = 0;
  let k = 0;
  try {
    // A short warm-up (file creation, first fsyncs) outside the window.
    for (let i = 0; i < 5; i++) await db.batch(Array.from({ length: batchSize }, () => ({ type: 'put' as const, key: `w${String(k++).padStart(12, '0')}`, value })), { sync: true });
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    while (performance.now() < end) {
      const ops = Array.from({ length: batchSize }, () => ({ type: 'put' as const, key: `k${String(k++).padStart(12, '0')}`, value }));
      const b0 = performance.now();
      await db.batch(ops, { sync: true });
      lat.push(performance.now() - b0);
      batches++;
    }
    const secs = (performance.now() - t0) / 1000;
    lat.sort((a, b) => a - b);
    return {
      batchSize,
      valueBytes: Buffer.byteLength(value),
      seconds: round(secs, 2),
      batches,
      batchesPerSec: round(batches / secs, 1),
      recordsPerSec: round((batches * batchSize) / secs, 1),
      batchLatencyMsP50: round(lat[lat.length >> 1] ?? NaN, 3),
    };
  } finally {
    await db.close();
    rmSync(join(dir, 'db'), { recursive: true, force: true });
  }
}

export interface CeilingServer {
  proc: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/** Start bench/ceiling-server.ts in a child process; resolves once it listens. */
export async function startCeilingServer(pkiDir: string, mode: 'https' | 'h2compat'): Promise<CeilingServer> {
  const proc = spawnTracked(process.execPath, ['--import', 'tsx', 'bench/ceiling-server.ts', pkiDir, mode], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('ceiling server did not start in 30 s')), 30_000);
    const rl = createInterface({ input: proc.stdout! });
    rl.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line).port);
      } catch (e) {
        reject(e);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ceiling server exited with ${code}`));
    });
  });
  return {
    proc,
    origin: `https://127.0.0.1:${port}`,
    async stop() {
      await stopChild(proc, 'SIGTERM', 5000);
    },
  };
}
