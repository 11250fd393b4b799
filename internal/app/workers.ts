/**
 * `--workers N`, N > 1 (issue 28): the leader (the thread that ran startServer: the log writer, the
 * fold, the controllers) serves no HTTP; it starts N serving threads (node:worker_threads) once its
 * storage and controllers are up. Each runs the same start-up wiring (app.ts) on a follower storage
 * (storage/follower.ts) and listens on the address and port of `--secure-port` with SO_REUSEPORT,
 * so the kernel spreads connections over the threads (`--secure-port 0`: the first thread's
 * listener picks the port, the others take it). They close before the leader. The thread's entry
 * is cmd/apiserver-worker.ts.
 */
import { MessageChannel, Worker, parentPort, type MessagePort } from 'node:worker_threads';
import { once } from 'node:events';
import type pino from 'pino';
import type { Storage, FollowerLink } from '../storage/storage.ts';
import type { ServerOptions } from './options.ts';
import type { Auditor, AuditSink } from '../audit/auditor.ts';
import type { ApiMetrics } from '../metrics/api-metrics.ts';
import { shareMetrics, type LeaderServices } from './leader-services.ts';

/** What a serving thread is started with (workerData of cmd/apiserver-worker.ts). */
export interface WorkerStart {
  /** The leader's options, cloneable: no test-supplied kinds; feature gates as their overrides. */
  opts: Omit<ServerOptions, 'kinds' | 'featureGates' | 'follower' | 'leaderServices'>;
  featureGates: Record<string, boolean>;
  link: FollowerLink;
  /** The thread's end of its port to the leader's services (app/leader-services.ts). */
  services: MessagePort;
  /** 1..N (the leader is 0). */
  index: number;
}

/** What a serving thread posts to the leader. */
export type WorkerReport =
  /** Listening, on this port. */
  | { t: 'ready'; port: number }
  | { t: 'failed'; message: string }
  /** Audit events (JSON lines) for the leader's log writer. */
  | { t: 'audit'; lines: string[] };

/** What the leader posts to a serving thread. */
type LeaderMessage = 'close';

/** A serving thread's audit lines to its leader (its /metrics: app/leader-services.ts). */
export class LeaderChannel {
  private lines: string[] = [];

  constructor(private readonly port = parentPort!) {}

  private post(m: WorkerReport): void {
    this.port.postMessage(m);
  }

  /** Audit lines go to the leader, a batch per event-loop turn. */
  auditSink(): AuditSink {
    return {
      write: (line) => {
        if (!this.lines.length) setImmediate(() => this.post({ t: 'audit', lines: this.lines.splice(0) }));
        this.lines.push(line);
      },
      close: () => {
        if (this.lines.length) this.post({ t: 'audit', lines: this.lines.splice(0) });
      },
    };
  }
}

export interface ServingThreads {
  readonly count: number;
  /** The port every thread listens on. */
  readonly port: number;
  /** Requests each thread has answered so far (apiserver_request_total), thread 1 first (tests: which thread a connection is on). */
  requestsServed(): Promise<number[]>;
  /** Close every serving thread (each closes its server gracefully) and wait for them to exit. */
  close(): Promise<void>;
}

/** Where the serving thread's entry is: beside this build's cmd/ (the .ts source under tsx, the .js build under dist/). */
const workerEntry = (): URL => {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`../../cmd/apiserver-worker.${ext}`, import.meta.url);
};

/**
 * A process-wide limit as one serving thread's share under `--workers N` (N serving threads, the
 * leader serving none): each thread enforces its own, so each takes an equal part (rounded up, at
 * least 1) and the process keeps the flag's total; 0 or less ("no limit") and a single thread keep
 * the value as it is.
 */
export function threadShare(limit: number, opts: Pick<ServerOptions, 'workers'>): number {
  const threads = opts.workers ?? 1;
  return limit <= 0 || threads <= 1 ? limit : Math.max(1, Math.ceil(limit / threads));
}

/**
 * Start `opts.workers` serving threads on `--secure-port`; resolves once every one listens (the
 * first alone first when the port is 0, so the others take the port it picked).
 */
export async function startServingThreads(opts: ServerOptions, storage: Storage, log: pino.Logger, leader: { metrics: ApiMetrics; auditor?: Auditor; services: LeaderServices }): Promise<ServingThreads> {
  const n = opts.workers ?? 1;
  const { kinds: _kinds, featureGates, follower: _follower, leaderServices: _services, ...rest } = opts;
  const threads: Worker[] = [];
  // /metrics of any thread: the leader's sum of its own and every thread's (app/leader-services.ts).
  const threadMetrics = shareMetrics(leader.metrics, { services: leader.services });
  const fromThread = (m: WorkerReport): void => {
    if (m.t === 'audit') for (const line of m.lines) leader.auditor?.forwarded(line);
  };
  /** Start thread `index` listening on `port`; resolves with the port it listens on. */
  const startThread = (index: number, port: number): Promise<number> => {
    const { port1, port2 } = new MessageChannel();
    const link = storage.lead(port1);
    const services = new MessageChannel();
    leader.services.attach(services.port1);
    const start: WorkerStart = { opts: { ...rest, securePort: port }, featureGates: featureGates?.overrides ?? {}, link: { ...link, port: port2 }, services: services.port2, index };
    const w = new Worker(workerEntry(), { workerData: start, transferList: [port2, services.port2], stdout: false, stderr: false });
    threads.push(w);
    // After start: a thread that fails leaves the others serving; its connections are refused.
    w.on('error', (err) => log.error({ err, thread: index }, 'serving thread failed'));
    return new Promise<number>((resolve, reject) => {
      w.on('message', (m: WorkerReport) => {
        if (m.t === 'ready') resolve(m.port);
        else if (m.t === 'failed') reject(new Error(`serving thread ${index}: ${m.message}`));
        else fromThread(m);
      });
      w.once('exit', (code) => reject(new Error(`serving thread ${index} exited with ${code} before it served`)));
      w.once('error', reject);
    });
  };
  let port = opts.securePort;
  try {
    const first = startThread(1, port);
    if (port === 0) port = await first;
    const others = Array.from({ length: n - 1 }, (_, i) => startThread(i + 2, port));
    await Promise.all([first, ...others]);
  } catch (err) {
    await Promise.all(threads.map((w) => w.terminate()));
    throw err;
  }
  log.info({ threads: n, port }, 'serving threads ready');
  return {
    count: n,
    port,
    async requestsServed() {
      return (await threadMetrics()).map((metrics) => {
        const total = metrics.find((m) => m.name === 'apiserver_request_total');
        return (total?.values ?? []).reduce((sum, v) => sum + v.value, 0);
      });
    },
    async close() {
      await Promise.all(
        threads.map(async (w) => {
          const exited = once(w, 'exit').catch(() => undefined);
          w.postMessage('close' satisfies LeaderMessage);
          await exited;
        }),
      );
    },
  };
}
