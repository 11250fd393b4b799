/**
 * The two servers of the side-by-side benches (bench/vs-kube.ts, bench/cores.ts) behind one
 * interface, launched the same way and driven by the same Go load generator (bench/loadgen):
 * kube-apiserver 1.24.17 + etcd through ../shared/reference's start.sh, and this server as a child
 * process (bench/server.ts; or another checkout of it, bench/cores.ts --compare-dir). A launch can
 * be pinned to CPUs (`taskset -c`, at spawn: every thread and child inherits it, and the Go
 * runtimes and Node see that many cores from their first instruction), and takes extra flags.
 * Also: the generator's result types, and the servers' CPU and RSS.
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePki } from '../internal/auth/pki.ts';
import type { Reference } from './reference.ts';
import { runLoadgen, tlsFromKubeconfig, type TlsFiles } from './loadgen-client.ts';
import { spawnApiServer, type ApiServer } from './server.ts';
import { monoMs, procCpuMs, readRss, round, sleep, type LatencySummary } from './util.ts';

// ---------------------------------------------------------------------------------------------
// the generator's results

/** The generator's latency summaries: nearest rank, as bench/util.ts summarize. */
export type Summary = LatencySummary;
/** The generator's own CPU and wall time in that mode (it shares the machine with the server). */
export interface ClientUse {
  client?: { cpuSeconds: number; wallSeconds: number };
}
export interface LoadOut extends ClientUse {
  proto: string;
  conns: number;
  ok: number;
  okPerSec: number;
  /** Answers with the wanted status completed inside the window, whenever sent, per second. */
  donePerSec: number;
  statuses: Record<string, number>;
  errors: number;
  errorSamples: string[] | null;
  badSamples: string[] | null;
  latencyMs: Summary;
  maxGapMs: number;
  probe?: { latencyMs: Summary; statuses: Record<string, number>; errors: number };
}
export interface ListRun {
  totalMs: number;
  pages: number;
  items: number;
  bytes: number;
  firstPageMs: number;
  continueMs: Summary;
  firstTenthMeanMs: number;
  lastTenthMeanMs: number;
}
export interface WatchOut extends ClientUse {
  watchers: number;
  conns: number;
  dropped: number;
  droppedSamples: string[] | null;
  writes: number;
  targetRate: number;
  writeRate: number;
  writeErrors: number;
  writeLatencyMs: Summary;
  expected: number;
  matched: number;
  missing: number;
  deliveryMs: Summary;
  deliveryFromSendMs: Summary;
  /** ADDED events received by all watchers inside the write window, per second. */
  deliveredPerSec: number;
}

export const pkiTls = (server: string, pki: string): TlsFiles => ({ server, ca: join(pki, 'ca.crt'), cert: join(pki, 'admin.crt'), key: join(pki, 'admin.key') });

// ---------------------------------------------------------------------------------------------
// the servers

export interface Running {
  pids: number[];
  /** Started outside this process tree (start.sh daemonizes): its CPU is not in cpuSnapshot's own ticks. */
  detached: boolean;
  /** performance/monotonic ms from spawn to the first 200 of /readyz. */
  launchMs: number;
  tls: TlsFiles;
  stop(): Promise<void>;
  note?: string;
}

export interface LaunchOptions {
  /** `taskset -c` CPU list for every process of the server (none: unpinned). */
  cpus?: string;
  /** Extra command-line flags (this server only). */
  flags?: string[];
}

export interface Target {
  key: string;
  label: string;
  /** An untimed first launch (page cache, tsx cache, and the PKI that later launches copy from the prime dir). */
  prime(): Promise<void>;
  /** Launch on `dataDir` (fresh: the primed PKI is copied in first) and wait for /readyz. */
  launch(dataDir: string, fresh: boolean, opts?: LaunchOptions): Promise<Running>;
}

export interface SideBySide {
  /** Run the generator in one mode (pinned to `cpus` when given); resolves with its JSON result. */
  loadgen<T>(mode: string, tls: TlsFiles, params: Record<string, unknown>, cpus?: string): Promise<T>;
  kube: Target;
  /** This server (`root`: another checkout of it, e.g. a worktree at an older commit). */
  server(opts?: { key?: string; label?: string; root?: string }): Target;
}

export function sideBySide(o: { tmpRoot: string; log: (s: string) => void; ref: Reference; loadgenBin: () => string; port: number; refPort: number }): SideBySide {
  const loadgen = <T>(mode: string, tls: TlsFiles, params: Record<string, unknown>, cpus?: string): Promise<T> => runLoadgen<T>(o.loadgenBin(), mode, tls, params, cpus);
  const primeDir = (key: string) => join(o.tmpRoot, `prime-${key}`);

  /**
   * Spawn the /readyz poller first, then the server. `spawnIt` may return the moment (monoMs) its
   * first server process was spawned when that is later than the call (start.sh's preamble).
   * Returns ms from that moment, and from the call, to the poller's first 200.
   */
  async function timedLaunch(port: number, pki: string, spawnIt: () => Promise<number | void>, timeoutMs: number): Promise<{ fromProcessMs: number; fromCallMs: number }> {
    const poll = loadgen<{ monoMs: number; attempts: number }>('readyz', pkiTls(`https://127.0.0.1:${port}`, pki), { intervalMs: 10, timeoutMs });
    poll.catch(() => undefined); // awaited below; a failed spawn must not leave it unhandled
    await sleep(50); // the poller is running (first attempts get "connection refused")
    const t0 = monoMs();
    const first = (await spawnIt()) ?? t0;
    const r = await poll;
    return { fromProcessMs: round(r.monoMs - (Number.isFinite(first) ? first : t0), 1), fromCallMs: round(r.monoMs - t0, 1) };
  }

  const freshDir = (dataDir: string, key: string) => {
    mkdirSync(dataDir, { recursive: true });
    cpSync(join(primeDir(key), 'pki'), join(dataDir, 'pki'), { recursive: true });
  };

  const kube: Target = {
    key: 'kube',
    label: 'kube-apiserver + etcd',
    async prime() {
      const dir = primeDir('kube');
      const r = await o.ref.start(dir, o.refPort);
      if (r.code !== 0) throw new Error(`reference start.sh failed: ${r.out}`);
      o.log(`reference primed: ${r.out.split('\n')[0]}`);
      await o.ref.stop(dir);
    },
    async launch(dataDir, fresh, opts = {}) {
      const pki = join(dataDir, 'pki');
      if (fresh) freshDir(dataDir, 'kube');
      let script = '';
      // The launch is timed from etcd's spawn, as this server's from its node process's: start.sh's
      // preamble (port picking with python3, the kubeconfig) is not the reference's start-up. start.sh
      // appends "<pid> etcd" to DATA_DIR/pids right after spawning etcd; polled every 2 ms.
      const pidsFile = join(dataDir, 'pids');
      rmSync(pidsFile, { force: true });
      const t = await timedLaunch(o.refPort, pki, async () => {
        let etcdAt = NaN;
        const timer = setInterval(() => {
          try {
            if (Number.isNaN(etcdAt) && readFileSync(pidsFile, 'utf8').includes(' etcd')) etcdAt = monoMs();
          } catch {
            /* not yet written */
          }
        }, 2);
        const r = await o.ref.start(dataDir, o.refPort, opts.cpus);
        clearInterval(timer);
        if (r.code !== 0) throw new Error(`reference start.sh failed: ${r.out}`);
        script = r.out.split('\n')[0] ?? '';
        return etcdAt;
      }, 180_000);
      const pids = readFileSync(pidsFile, 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[0]));
      return {
        pids,
        detached: true,
        launchMs: t.fromProcessMs,
        note: `start.sh: ${script}; from start.sh's spawn ${t.fromCallMs} ms`,
        tls: tlsFromKubeconfig(join(dataDir, 'kubeconfig'), join(dataDir, 'client')),
        async stop() {
          await o.ref.stop(dataDir);
        },
      };
    },
  };

  const server = (so: { key?: string; label?: string; root?: string } = {}): Target => {
    const key = so.key ?? 'this';
    return {
      key,
      label: so.label ?? 'this server',
      async prime() {
        const dir = primeDir(key);
        await ensurePki(join(dir, 'pki'), { hosts: ['127.0.0.1'] });
        const s = await spawnApiServer(dir, o.port, [], { root: so.root });
        await s.readyLog;
        await s.stop('SIGTERM');
        o.log(`${so.label ?? 'this server'} primed`);
      },
      async launch(dataDir, fresh, opts = {}) {
        const pki = join(dataDir, 'pki');
        if (fresh) freshDir(dataDir, key);
        let srv: ApiServer | null = null;
        const launchMs = (await timedLaunch(o.port, pki, async () => {
          srv = await spawnApiServer(dataDir, o.port, opts.flags ?? [], { root: so.root, cpus: opts.cpus });
        }, 120_000)).fromProcessMs;
        const s = srv as unknown as ApiServer;
        await s.readyLog; // the kubeconfig is written with the "ready" log line
        return {
          pids: [s.pid],
          detached: false,
          launchMs,
          tls: tlsFromKubeconfig(join(dataDir, 'kubeconfig'), join(dataDir, 'client')),
          async stop() {
            await s.stop('SIGTERM');
          },
        };
      },
    };
  };

  return { loadgen, kube, server };
}

// ---------------------------------------------------------------------------------------------
// CPU, RSS and CPU affinity of a server (over its processes)

/** CPU time (ms) the processes used in their life so far. */
export function cpuOf(pids: number[]): number {
  return pids.reduce((a, p) => a + (procCpuMs(p) || 0), 0);
}

export function rssOf(pids: number[]): number {
  return round(pids.reduce((a, p) => a + readRss(p).rssMiB, 0), 1);
}

export function sampleRss(pids: number[], intervalMs = 100): { stop(): { maxMiB: number; endMiB: number } } {
  let max = rssOf(pids);
  const timer = setInterval(() => {
    max = Math.max(max, rssOf(pids));
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const end = rssOf(pids);
      return { maxMiB: Math.max(max, end), endMiB: end };
    },
  };
}

/** The distinct Cpus_allowed_list values of every thread of the processes (e.g. ['0']), and the thread count. */
export function affinityOf(pids: number[]): { lists: string[]; threads: number } {
  const lists = new Set<string>();
  let threads = 0;
  for (const pid of pids) {
    let tids: string[] = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const m = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
        if (m) {
          lists.add(m[1]!);
          threads++;
        }
      } catch {
        /* the thread ended */
      }
    }
  }
  return { lists: [...lists].sort(), threads };
}
