/**
 * `--workers N` (issue 28): the leader (the thread that ran startServer: the log writer, the fold,
 * the controllers) starts N − 1 serving threads (node:worker_threads) once it is ready. Each runs
 * the same start-up wiring (app.ts) on a follower storage (storage/follower.ts) and listens on the
 * leader's address and port with SO_REUSEPORT, so the kernel spreads connections over the threads.
 * They close before the leader. The thread's entry is cmd/apiserver-worker.ts.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import { once } from 'node:events';
import type pino from 'pino';
import type { Storage, FollowerLink } from '../storage/storage.ts';
import type { ServerOptions } from './options.ts';

/** What a serving thread is started with (workerData of cmd/apiserver-worker.ts). */
export interface WorkerStart {
  /** The leader's options, cloneable: no test-supplied kinds; feature gates as their overrides. */
  opts: Omit<ServerOptions, 'kinds' | 'featureGates' | 'follower'>;
  featureGates: Record<string, boolean>;
  link: FollowerLink;
  /** 1..N−1 (the leader is 0). */
  index: number;
}

/** What a serving thread posts to the leader. */
export type WorkerReport = { t: 'ready' } | { t: 'failed'; message: string };

export interface ServingThreads {
  readonly count: number;
  /** Close every serving thread (each closes its server gracefully) and wait for them to exit. */
  close(): Promise<void>;
}

/** Where the serving thread's entry is: beside this build's cmd/ (the .ts source under tsx, the .js build under dist/). */
const workerEntry = (): URL => {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  return new URL(`../../cmd/apiserver-worker.${ext}`, import.meta.url);
};

/** Start `opts.workers − 1` serving threads on `port` (the leader's); resolves once every one serves. */
export async function startServingThreads(opts: ServerOptions, storage: Storage, port: number, log: pino.Logger): Promise<ServingThreads> {
  const n = (opts.workers ?? 1) - 1;
  const { kinds: _kinds, featureGates, follower: _follower, ...rest } = opts;
  const threads: Worker[] = [];
  const started: Promise<void>[] = [];
  for (let index = 1; index <= n; index++) {
    const { port1, port2 } = new MessageChannel();
    const link = storage.lead(port1);
    const start: WorkerStart = { opts: { ...rest, securePort: port }, featureGates: featureGates?.overrides ?? {}, link: { ...link, port: port2 }, index };
    const w = new Worker(workerEntry(), { workerData: start, transferList: [port2], stdout: false, stderr: false });
    threads.push(w);
    started.push(
      new Promise<void>((resolve, reject) => {
        w.on('message', (m: WorkerReport) => (m.t === 'ready' ? resolve() : reject(new Error(`serving thread ${index}: ${m.message}`))));
        w.once('exit', (code) => reject(new Error(`serving thread ${index} exited with ${code} before it served`)));
        w.once('error', reject);
      }),
    );
    // After start: a thread that fails leaves the others serving; its connections are refused.
    w.on('error', (err) => log.error({ err, thread: index }, 'serving thread failed'));
  }
  try {
    await Promise.all(started);
  } catch (err) {
    await Promise.all(threads.map((w) => w.terminate()));
    throw err;
  }
  log.info({ threads: n + 1 }, 'serving threads ready');
  return {
    count: n + 1,
    async close() {
      await Promise.all(
        threads.map(async (w) => {
          const exited = once(w, 'exit').catch(() => undefined);
          w.postMessage('close');
          await exited;
        }),
      );
    },
  };
}
