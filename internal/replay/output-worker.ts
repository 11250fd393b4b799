/**
 * A rebuild's output store written from a worker thread. On the main thread a batch write costs
 * ~1 µs of classic-level bridging per operation (3–4 per event) on top of reading, decoding and
 * folding, all on one core; here the main thread only packs each batch into one ArrayBuffer
 * (packed-ops.ts, a memcpy per key and value) and transfers it, and the worker thread makes the
 * native calls. Writes are applied in the order they are given; at most `depth` are in flight, so
 * a slow disk holds the fold back instead of piling batches up in memory.
 */
import { Worker } from 'node:worker_threads';
import type { BatchOp } from '../storage/mvcc/materializer.ts';
import { packOps, type PackedOps } from './packed-ops.ts';
import type { RebuildOutput } from './rebuild.ts';

export type ToWorker =
  | { type: 'write'; seq: number; packed: PackedOps; sync: boolean }
  | { type: 'flush'; seq: number }
  | { type: 'close'; seq: number };

export type FromWorker =
  | { type: 'ready'; folded: string | null }
  | { type: 'open-failed'; message: string }
  | { type: 'done'; seq: number }
  | { type: 'failed'; seq: number; message: string };

/** Batches in flight: one being written, one unpacked and waiting, one on its way. */
const WORKER_DEPTH = 3;

export interface WorkerOutput extends RebuildOutput {
  /** Finish the writes given, close the store and end the thread. Idempotent; never rejects after a failed write (the write's own promise did). */
  close(): Promise<void>;
}

/**
 * Create `<dataDir>/db` (openDataDirDb's create mode: it must not exist) in a worker thread.
 * Rejects with openDataDirDb's error when it cannot be created.
 */
export async function openWorkerOutput(dataDir: string): Promise<WorkerOutput> {
  const worker = startThread(dataDir);
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  let seq = 0;
  let dead: Error | null = null;
  let folded: string | null = null;
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => { exited = true; resolve(); }));

  const failAll = (err: Error): void => {
    dead ??= err;
    for (const p of pending.values()) p.reject(dead);
    pending.clear();
  };
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'ready') {
        folded = m.folded;
        resolve();
      } else if (m.type === 'open-failed') {
        reject(new Error(m.message));
      } else {
        const p = pending.get(m.seq);
        pending.delete(m.seq);
        if (m.type === 'done') p?.resolve();
        else p?.reject(new Error(`writing the output store: ${m.message}`));
      }
    });
    worker.on('error', (err) => { reject(err); failAll(err); });
    void exit.then(() => {
      const err = new Error('the output store\'s writer thread exited');
      reject(err);
      failAll(err);
    });
  });
  await ready;

  const send = (m: ToWorker, transfer?: ArrayBuffer[]): Promise<void> => {
    if (dead) return Promise.reject(dead);
    return new Promise<void>((resolve, reject) => {
      pending.set(m.seq, { resolve, reject });
      worker.postMessage(m, transfer);
    });
  };
  let closing: Promise<void> | null = null;
  return {
    depth: WORKER_DEPTH,
    folded: async () => (folded === null ? undefined : Buffer.from(folded)),
    write(ops: readonly BatchOp[], sync: boolean): Promise<void> {
      const packed = packOps(ops);
      return send({ type: 'write', seq: ++seq, packed, sync }, [packed.buffer]);
    },
    flush: () => send({ type: 'flush', seq: ++seq }),
    close() {
      closing ??= (async () => {
        // Once the thread answered, the store is closed: ending the thread cannot cut a write short.
        if (!exited) await send({ type: 'close', seq: ++seq }).catch(() => undefined);
        await worker.terminate();
        await exit;
      })();
      return closing;
    },
  };
}

/**
 * The thread, from dist/ as built JavaScript, or from source: a worker does not get tsx's module
 * hooks from `--import tsx` (Node 20), so it registers them itself before importing the entry.
 */
function startThread(dataDir: string): Worker {
  const workerData = { dataDir };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./output-worker-thread.js', import.meta.url), { workerData });
  const entry = new URL('./output-worker-thread.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData, execArgv: [] });
}
