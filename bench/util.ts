/**
 * Small shared helpers for the benchmark: percentiles, child-process bookkeeping (every child is
 * killed when the bench exits, however it exits), free ports, RSS, machine facts, ConfigMap bodies.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { LoadResult } from './load.ts';
import { createServer } from 'node:net';
import type { Dispatcher } from 'undici';
import { cpus, totalmem, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeArgsFor } from '../test/server-command.ts';

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

/**
 * VmRSS / VmHWM of a process in MiB (NaN when unreadable), and RssAnon: the process's own memory
 * (heap, buffers) without file-backed pages such as LevelDB's memory-mapped tables, which grow with
 * the data read and are page cache the kernel reclaims.
 */
export function readRss(pid: number): { rssMiB: number; hwmMiB: number; anonMiB: number } {
  try {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(st)?.[1] ?? NaN);
    return { rssMiB: round(kb('VmRSS') / 1024, 1), hwmMiB: round(kb('VmHWM') / 1024, 1), anonMiB: round(kb('RssAnon') / 1024, 1) };
  } catch {
    return { rssMiB: NaN, hwmMiB: NaN, anonMiB: NaN };
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

// ---------------------------------------------------------------------------------------------
// helpers of the watch and list benchmarks (bench/watch.ts, bench/list.ts)

/**
 * Milliseconds on CLOCK_MONOTONIC (libuv's uv_hrtime): one clock for every process on the
 * machine, so times taken in different bench processes can be subtracted.
 */
export function monoMs(): number {
  const [s, ns] = process.hrtime();
  return s * 1e3 + ns / 1e6;
}

/** CA, admin client certificate and key of a data dir's pki (what the generated kubeconfig uses). */
export function adminTls(pkiDir: string): { ca: string; cert: string; key: string } {
  return {
    ca: readFileSync(`${pkiDir}/ca.crt`, 'utf8'),
    cert: readFileSync(`${pkiDir}/admin.crt`, 'utf8'),
    key: readFileSync(`${pkiDir}/admin.key`, 'utf8'),
  };
}

export interface ProcUsage {
  wallSeconds: number;
  /** user + system CPU seconds of the whole process (all threads) in the window. */
  cpuSeconds: number;
  /** cpuSeconds ÷ wallSeconds, in % of one core. */
  cpuPercent: number;
  /** The main (event-loop) thread alone, % of one core: near 100 means the event loop is saturated. */
  mainThreadCpuPercent: number;
  rssStartMiB: number;
  rssEndMiB: number;
  /** Highest VmRSS seen by the sampler. */
  rssMaxMiB: number;
  /** VmHWM at the end (peak since the process started, between samples too). */
  hwmMiB: number;
  /** RssAnon at the start and its highest sample (see readRss). */
  anonStartMiB: number;
  anonMaxMiB: number;
  samples: number;
}

/** Samples a process's RSS every `intervalMs` from now on; stop() gives RSS and CPU over the window. */
export function sampleProc(pid: number, intervalMs = 200): { stop(): ProcUsage; rssMaxMiB(): number } {
  const t0 = performance.now();
  const cpu0 = procCpuMs(pid);
  const main0 = procCpuMs(pid, true);
  const first = readRss(pid);
  const start = first.rssMiB;
  let max = start;
  let anonMax = first.anonMiB;
  let samples = 1;
  const tick = () => {
    const r = readRss(pid);
    samples++;
    if (r.rssMiB > max) max = r.rssMiB;
    if (r.anonMiB > anonMax) anonMax = r.anonMiB;
  };
  const timer = setInterval(tick, intervalMs);
  return {
    rssMaxMiB: () => max,
    stop(): ProcUsage {
      clearInterval(timer);
      tick();
      const wall = (performance.now() - t0) / 1000;
      const cpu = (procCpuMs(pid) - cpu0) / 1000;
      const main = (procCpuMs(pid, true) - main0) / 1000;
      const end = readRss(pid);
      return {
        wallSeconds: round(wall, 2),
        cpuSeconds: round(cpu, 2),
        cpuPercent: round((cpu / wall) * 100, 0),
        mainThreadCpuPercent: round((main / wall) * 100, 0),
        rssStartMiB: start,
        rssEndMiB: end.rssMiB,
        rssMaxMiB: max,
        hwmMiB: end.hwmMiB,
        anonStartMiB: first.anonMiB,
        anonMaxMiB: anonMax,
        samples,
      };
    },
  };
}

/** Write a report under bench/results/<kind>-<timestamp>.json; returns the file's path. */
export function writeResult(kind: string, report: { timestamp: string }): string {
  const dir = new URL('./results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${kind}-${report.timestamp.replace(/[:.]/g, '-')}.json`;
  writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  return file;
}

export interface HttpsCeiling {
  /** The best of `runs` attempts (other work on a shared machine only pushes a ceiling down). */
  best: LoadResult;
  attemptsReqPerSec: number[];
  /** CPU used by processes outside the bench during the best attempt, % of one core. */
  otherCpuPercent: number;
}

/**
 * The bare node:https ceiling of bench/run.ts (bench/ceiling-server.ts, a JSON echo with the same
 * TLS setup as the API server, driven by the same closed-loop load generator with 1 KiB
 * ConfigMap POSTs), measured `runs` times, the best kept. Imported lazily: ceilings.ts and
 * load.ts import this module.
 */
export async function measureHttpsCeiling(opts: { tmpDir: string; connections: number; warmupS: number; durationS: number; runs: number; log?: (s: string) => void }): Promise<HttpsCeiling> {
  const { startCeilingServer } = await import('./ceilings.ts');
  const { makePool, runLoad } = await import('./load.ts');
  const { ensurePki } = await import('../internal/auth/pki.ts');
  const pkiDir = `${opts.tmpDir}/ceiling-pki`;
  await ensurePki(pkiDir, { hosts: ['127.0.0.1'] });
  const tls = adminTls(pkiDir);
  let best: LoadResult | null = null;
  let other = NaN;
  const attempts: number[] = [];
  for (let a = 0; a < opts.runs; a++) {
    opts.log?.(`ceiling: bare https server, ${opts.connections} connections, ${opts.warmupS}+${opts.durationS} s (run ${a + 1}/${opts.runs})`);
    const cs = await startCeilingServer(pkiDir, 'https');
    const pool = makePool(cs.origin, tls, opts.connections);
    try {
      let snap = cpuSnapshot();
      const r = await runLoad({
        pool,
        connections: opts.connections,
        warmupMs: opts.warmupS * 1000,
        durationMs: opts.durationS * 1000,
        expectStatus: 201,
        next: (w, seq) => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: configMapBody(`ceil-${w}-${seq}`, 'default') }),
        onWindowStart: () => {
          snap = cpuSnapshot();
        },
      });
      attempts.push(r.okPerSec);
      if (!best || r.okPerSec > best.okPerSec) {
        best = r;
        other = otherCpuPercent(snap, cpuSnapshot());
      }
    } finally {
      await pool.close().catch(() => undefined);
      await cs.stop();
    }
  }
  if (!best) throw new Error('no ceiling measured');
  return { best, attemptsReqPerSec: attempts, otherCpuPercent: other };
}

/** One JSON request; the answer's status, text and (when it parses) JSON. */
export async function apiJson(d: Dispatcher, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; text: string; json: any }> {
  const r = await d.request({
    path,
    method,
    headers: body !== undefined ? { 'content-type': 'application/json', accept: 'application/json' } : { accept: 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.body.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: r.statusCode, text, json };
}

/** Create namespaces (201, or 409 when it exists) with `concurrency` requests in flight. */
export async function createNamespaces(d: Dispatcher, names: string[], concurrency = 16): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++]!;
      const r = await apiJson(d, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      if (r.status !== 201 && r.status !== 409) throw new Error(`creating namespace ${name}: ${r.status} ${r.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, names.length) }, worker));
}

// ---------------------------------------------------------------------------------------------
// an API server with any flags (bench/kafka.ts: replicas on a Kafka topic, checkpoints)

/** What a server's start-up log said, with ms since spawn for the "API server ready" line. */
export interface ServerStartLog {
  readyLogMs: number;
  /** startServer()'s own startupMs. */
  startupMs: number | null;
  folded: number | null;
  /** Kafka replicas: "replica caught up with the log" (ms of the catch-up fold, offset reached). */
  catchUpMs: number | null;
  caughtUpAt: number | null;
  /** "bootstrapped the snapshot from a checkpoint": its offset and copy time. */
  checkpoint: { offset: number; ms: number } | null;
}

export interface FlaggedServer {
  proc: ChildProcess;
  pid: number;
  port: number;
  origin: string;
  /** performance.now() at spawn. */
  spawnedAt: number;
  /** Resolves at the "API server ready" line; rejects if the process exits or the timeout passes. */
  ready: Promise<ServerStartLog>;
  /** The last lines of its log (for failure messages). */
  logTail(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Spawn cmd/apiserver.ts with `--data-dir dataDir --secure-port <port> --bind-address 127.0.0.1`
 * plus `flags`, on a port known before it is ready (to poll /readyz from the moment of spawn).
 * `onLine(line, level)` sees every log line (pino level; non-JSON lines as 40). With
 * APISERVER_CPU_PROF=<dir> the server writes a V8 CPU profile there (as test/harness.ts does).
 */
export async function spawnServerWithFlags(opts: { dataDir: string; flags: string[]; port?: number; readyTimeoutMs?: number; onLine?: (line: string, level: number) => void }): Promise<FlaggedServer> {
  const port = opts.port ?? (await freePort());
  const prof = process.env.APISERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.APISERVER_CPU_PROF}`] : [];
  const spawnedAt = performance.now();
  const proc = spawnTracked(process.execPath, [...nodeArgsFor('cmd/apiserver.ts', prof), '--data-dir', opts.dataDir, '--secure-port', String(port), '--bind-address', '127.0.0.1', ...opts.flags], {
    cwd: new URL('..', import.meta.url).pathname,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const tail: string[] = [];
  let stopping = false;
  const start: ServerStartLog = { readyLogMs: NaN, startupMs: null, folded: null, catchUpMs: null, caughtUpAt: null, checkpoint: null };
  const ready = new Promise<ServerStartLog>((resolve, reject) => {
    const timeoutMs = opts.readyTimeoutMs ?? 120_000;
    const timer = setTimeout(() => reject(new Error(`no "API server ready" log line in ${timeoutMs} ms: ${tail.join('\n')}`)), timeoutMs);
    let buf = '';
    proc.stderr!.on('data', (c: Buffer) => {
      buf += c.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        tail.push(line.length > 600 ? `${line.slice(0, 600)}…` : line);
        if (tail.length > 30) tail.shift();
        let rec: { level?: number; msg?: string; [k: string]: unknown } | null = null;
        try {
          rec = JSON.parse(line);
        } catch {
          rec = null;
        }
        opts.onLine?.(line, rec?.level ?? 40);
        if (!rec) continue;
        if (rec.msg === 'bootstrapped the snapshot from a checkpoint') start.checkpoint = { offset: Number(rec.offset), ms: Number(rec.ms) };
        else if (rec.msg === 'replica caught up with the log') {
          start.catchUpMs = Number(rec.catchUpMs);
          start.caughtUpAt = Number(rec.folded);
        } else if (rec.msg === 'API server ready') {
          clearTimeout(timer);
          start.readyLogMs = round(performance.now() - spawnedAt, 1);
          start.startupMs = typeof rec.startupMs === 'number' ? rec.startupMs : null;
          start.folded = typeof rec.folded === 'number' ? rec.folded : null;
          resolve(start);
        }
      }
    });
    proc.once('exit', (code, sig) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code ?? sig}${stopping ? ' (stopped)' : ''}: ${tail.join('\n')}`));
    });
  });
  ready.catch(() => undefined);
  return {
    proc,
    pid: proc.pid!,
    port,
    origin: `https://127.0.0.1:${port}`,
    spawnedAt,
    ready,
    logTail: () => tail.join('\n'),
    async stop(signal = 'SIGTERM') {
      stopping = true;
      await stopChild(proc, signal, 15_000);
    },
  };
}

/** A benchmark's goals and problems, the total time and the JSON file: the end of its printed report, written to stdout. */
export function printReport(lines: string[], goals: { name: string; value: unknown; goal: string; met: boolean }[], problems: string[], totalS: number, file: string): void {
  for (const g of goals) lines.push(`${g.met ? 'MET ' : 'MISS'}  ${g.name}: ${g.value}   goal ${g.goal}`);
  lines.push(problems.length ? 'Problems seen' : 'Problems seen: none');
  for (const p of problems) lines.push(`  - ${p}`);
  lines.push('', `total ${totalS} s; JSON: ${file}`);
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * A benchmark's last step, after it stopped what it started: remove its temp dir (unless --keep)
 * and exit, so no keep-alive socket or timer keeps the process alive.
 */
export function endBench(tmpRoot: string, keep: boolean): never {
  if (!keep) rmSync(tmpRoot, { recursive: true, force: true });
  else process.stderr.write(`kept ${tmpRoot}\n`);
  process.exit(process.exitCode ?? 0);
}

/**
 * A benchmark's start: a `[bench:<name> hh:mm:ss]` stderr logger, a temp dir removed at exit
 * (unless `keep`), and the machine facts, logged with the config.
 */
export function benchSession(name: string, keep: boolean, cfg: unknown) {
  const log = (s: string) => process.stderr.write(`[bench:${name} ${new Date().toISOString().slice(11, 19)}] ${s}\n`);
  const tmpRoot = mkdtempSync(join(tmpdir(), `apiserver-bench-${name}-`));
  process.on('exit', () => {
    if (!keep) rmSync(tmpRoot, { recursive: true, force: true });
  });
  const machine = { ...machineFacts(), loadAvg1AtStart: loadAvg1() };
  log(`machine: ${machine.cpuCount} × ${machine.cpuModel}, node ${machine.node}; tmp ${tmpRoot}`);
  log(`config: ${JSON.stringify(cfg)}`);
  return { log, tmpRoot, machine };
}
