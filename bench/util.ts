/**
 * Small shared helpers for the benchmark: percentiles, child-process bookkeeping (every child is
 * killed when the bench exits, however it exits), free ports, RSS, machine facts, ConfigMap bodies.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, totalmem, release } from 'node:os';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function summarize(samples: number[]): LatencySummary {
  const s = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of s) sum += v;
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p90: round(percentile(s, 90)),
    p99: round(percentile(s, 99)),
    max: round(s.length ? s[s.length - 1]! : NaN),
    mean: round(s.length ? sum / s.length : NaN),
  };
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function round(v: number, digits = 2): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

// ---------------------------------------------------------------------------------------------
// children: tracked so that nothing outlives the bench

const children = new Set<ChildProcess>();
let cleanupInstalled = false;

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const c of children) {
      try {
        c.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      process.stderr.write(`\nbench: ${sig}, stopping children\n`);
      process.exit(130);
    });
  }
}

/** spawn() whose child is SIGKILLed when this process exits. */
export function spawnTracked(cmd: string, args: string[], opts: SpawnOptions): ChildProcess {
  installCleanup();
  const c = spawn(cmd, args, opts);
  children.add(c);
  c.on('exit', () => children.delete(c));
  return c;
}

/** Send `signal`, wait up to `graceMs` for exit, then SIGKILL. Resolves with the exit code. */
export async function stopChild(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<{ code: number | null; signal: string | null; forced: boolean }> {
  if (c.exitCode !== null || c.signalCode !== null) return { code: c.exitCode, signal: c.signalCode, forced: false };
  const exited = new Promise<{ code: number | null; signal: string | null }>((r) => c.once('exit', (code, sig) => r({ code, signal: sig })));
  c.kill(signal);
  let forced = false;
  const timer = setTimeout(() => {
    forced = true;
    c.kill('SIGKILL');
  }, graceMs);
  const r = await exited;
  clearTimeout(timer);
  return { ...r, forced };
}

export function installWatchdog(maxMs: number): void {
  installCleanup();
  setTimeout(() => {
    process.stderr.write(`\nbench: watchdog: still running after ${Math.round(maxMs / 1000)} s, giving up\n`);
    process.exit(2);
  }, maxMs).unref();
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** VmRSS / VmHWM of a process in MiB (NaN when unreadable). */
export function readRss(pid: number): { rssMiB: number; hwmMiB: number } {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(st)?.[1] ?? NaN);
    return { rssMiB: round(kb('VmRSS') / 1024, 1), hwmMiB: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return { rssMiB: NaN, hwmMiB: NaN };
  }
}

export interface MachineFacts {
  cpuCount: number;
  cpuModel: string;
  memGiB: number;
  node: string;
  kernel: string;
}

export function machineFacts(): MachineFacts {
  let model = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) model = m[1]!.trim();
  } catch {
    /* not linux */
  }
  return { cpuCount: cpus().length, cpuModel: model, memGiB: round(totalmem() / 2 ** 30, 1), node: process.version, kernel: release() };
}

// ---------------------------------------------------------------------------------------------
// payloads

/** 1 KiB of printable filler (not random: JSON objects compress like this in LevelDB too). */
export const FILLER_1K = 'x'.repeat(1024);

/** The JSON body of a ConfigMap with `data.v` of 1 KiB. */
export function configMapBody(name: string, namespace: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { v: FILLER_1K } });
}

export function fmt(v: number, digits = 1): string {
  if (!Number.isFinite(v)) return String(v);
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

// ---------------------------------------------------------------------------------------------
// CPU used by processes outside the bench (other work on a shared machine makes figures noisy)

function readProcStatTicks(pid: number | string): { ppid: number; ticks: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the ")" of the command name: state ppid ... utime(14) stime(15) cutime(16) cstime(17).
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

interface CpuSnapshot {
  at: number;
  busyTicks: number;
  ownTicks: number;
}

/** Busy ticks of the whole machine and of this process's tree (reaped children included). */
export function cpuSnapshot(): CpuSnapshot {
  let busyTicks = NaN;
  let ownTicks = NaN;
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal
    busyTicks = line[0]! + line[1]! + line[2]! + line[5]! + line[6]! + (line[7] ?? 0);
    const procs = new Map<number, { ppid: number; ticks: number }>();
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      const r = readProcStatTicks(d);
      if (r) procs.set(Number(d), r);
    }
    const mine = new Set<number>([process.pid]);
    for (let grown = true; grown; ) {
      grown = false;
      for (const [pid, r] of procs) if (!mine.has(pid) && mine.has(r.ppid)) {
        mine.add(pid);
        grown = true;
      }
    }
    ownTicks = 0;
    for (const pid of mine) ownTicks += procs.get(pid)?.ticks ?? 0;
  } catch {
    /* not linux */
  }
  return { at: performance.now(), busyTicks, ownTicks };
}

/** CPU used by other processes between two snapshots, in % of one core (100 = one core busy). */
export function otherCpuPercent(a: CpuSnapshot, b: CpuSnapshot): number {
  const secs = (b.at - a.at) / 1000;
  const other = b.busyTicks - a.busyTicks - (b.ownTicks - a.ownTicks);
  return round(Math.max(0, other) / 100 / secs * 100, 0); // USER_HZ is 100 on Linux
}

export function loadAvg1(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/** CPU time (user + system) of one process so far, in ms; NaN when unreadable. */
export function procCpuMs(pid: number, mainThreadOnly = false): number {
  try {
    const s = readFileSync(mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ = 100
  } catch {
    return NaN;
  }
}

/** Measures, over a window, the CPU of a server process (and its main thread) and of this (load-generating) process. */
export function cpuWindow(serverPid: number) {
  const t0 = performance.now();
  const s0 = procCpuMs(serverPid);
  const m0 = procCpuMs(serverPid, true);
  const l0 = process.cpuUsage();
  return (completed: number) => {
    const ms = performance.now() - t0;
    const server = procCpuMs(serverPid) - s0;
    const main = procCpuMs(serverPid, true) - m0;
    const l = process.cpuUsage(l0);
    return {
      serverCpuPercent: round((server / ms) * 100, 0),
      /** The main (event-loop) thread alone: near 100 means the event loop is saturated. */
      serverMainThreadCpuPercent: round((main / ms) * 100, 0),
      loadGenCpuPercent: round(((l.user + l.system) / 1000 / ms) * 100, 0),
      serverCpuMsPerRequest: completed > 0 ? round(server / completed, 3) : NaN,
    };
  };
}
