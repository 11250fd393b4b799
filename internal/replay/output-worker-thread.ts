/**
 * The thread of output-worker.ts: it owns the output store (opened here, so LevelDB's lock and
 * every native call are on this thread) and writes the packed batches it is sent, in the order
 * they arrive. A batch is unpacked into a chained batch as soon as it arrives, while the previous
 * one is still being written by LevelDB; the writes themselves are strictly one after another.
 * After a failed write every later one fails too: what is on disk past it is unknown.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDataDirDb } from './open-log.ts';
import { unpackOps } from './packed-ops.ts';
import { META_FOLDED } from '../storage/keys.ts';
import type { Db } from '../storage/mvcc/materializer.ts';
import type { ToWorker, FromWorker } from './output-worker.ts';

const port = parentPort!;
const post = (m: FromWorker): void => port.postMessage(m);

async function main(): Promise<void> {
  let db: Db;
  try {
    db = await openDataDirDb((workerData as { dataDir: string }).dataDir, { create: true });
  } catch (err) {
    post({ type: 'open-failed', message: (err as Error).message });
    port.close();
    return;
  }
  const folded = await db.get(META_FOLDED);
  post({ type: 'ready', folded: folded === undefined ? null : folded.toString() });

  let chain: Promise<void> = Promise.resolve();
  let failure: Error | null = null;
  const settle = (seq: number, p: Promise<unknown>): void => {
    chain = p.then(
      () => post({ type: 'done', seq }),
      (err: Error) => {
        failure ??= err;
        post({ type: 'failed', seq, message: err.message });
      },
    );
  };

  port.on('message', (m: ToWorker) => {
    const prev = chain;
    switch (m.type) {
      case 'write': {
        const batch = db.batch();
        try {
          unpackOps(m.packed, (k, v) => batch.put(k, v), (k) => batch.del(k));
        } catch (err) {
          failure ??= err as Error;
          void batch.close();
        }
        settle(m.seq, prev.then(async () => {
          if (failure) {
            await batch.close();
            throw failure;
          }
          await batch.write({ sync: m.sync });
        }));
        break;
      }
      case 'flush':
        // Every key starts with a lowercase ASCII prefix (storage/keys.ts): none is ≥ '~', so this
        // compacts nothing and only writes the memtable out as a table (see rebuild.ts).
        settle(m.seq, prev.then(() => { if (failure) throw failure; return db.compactRange('~', '~~'); }));
        break;
      case 'close':
        settle(m.seq, prev.then(() => db.close()).then(() => { if (failure) throw failure; }));
        void chain.then(() => port.close());
        break;
    }
  });
}

void main();
