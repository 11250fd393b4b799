import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Storage } from '../storage/storage.ts';
import type { Db } from '../storage/mvcc/materializer.ts';
import { rebuild, rebuildInto } from './rebuild.ts';
import { openWorkerOutput } from './output-worker.ts';
import { openDataDirDb, openReadableLog } from './open-log.ts';
import { intent, cmKey, nsKey, tempDirs } from './testing.ts';

const dirs = tempDirs('replay-output-worker-');
let source: string;
let end = -1;

test.before(async () => {
  source = dirs.make();
  const s = await Storage.openEmbedded({ dataDir: source, historyWindowMs: 3_600_000, sync: false });
  let t = Date.now();
  await s.write(intent('CREATE', nsKey('a'), { time: t++ }));
  for (let n = 0; n < 300; n++) {
    const k = cmKey('a', `cm${n % 40}`);
    const cur = s.materializer.entry(k)?.rv;
    await (cur === undefined
      ? s.write(intent('CREATE', k, { time: t++, data: { n: String(n), pad: 'x'.repeat(n * 7) } }))
      : n % 9 === 0 ? s.write(intent('DELETE', k, { time: t++, expectRv: cur }))
      : s.write(intent('UPDATE', k, { time: t++, expectRv: cur, data: { n: String(n), ünï: 'cødé' } })));
  }
  end = s.materializer.folded + 1;
  await s.close();
});
test.after(() => dirs.cleanup());

async function dump(dataDir: string): Promise<Map<string, string>> {
  const db: Db = await openDataDirDb(dataDir, { create: false });
  try {
    const out = new Map<string, string>();
    for await (const [k, v] of db.iterator()) out.set(k, v.toString('base64'));
    return out;
  } finally {
    await db.close();
  }
}

test('a rebuild written by the worker thread equals one written on this thread, key for key', async () => {
  const opts = { copyLog: true, batchEvents: 17, writeOutAfterEvents: 50, cacheBytes: 20_000 };
  const inline = dirs.make();
  const viaWorker = dirs.make();
  const log = await openReadableLog({ kind: 'embedded', dataDir: source });
  try {
    const db = await openDataDirDb(inline, { create: true });
    const a = await rebuild(log.readFold(0, end), db, opts).finally(() => db.close());
    const out = await openWorkerOutput(viaWorker);
    const progress: number[] = [];
    const b = await rebuildInto(log.readFold(0, end), out, { ...opts, onProgress: (p) => progress.push(p.events) }).finally(() => out.close());
    assert.equal({ ...b, elapsedMs: 0 }, { ...a, elapsedMs: 0 });
    assert.is(progress.at(-1), end);
    assert.ok(progress.length > end / 17 - 2, 'a report per batch');
  } finally {
    await log.close();
  }
  const [x, y] = [await dump(inline), await dump(viaWorker)];
  assert.ok(x.size > 600, `${x.size} keys`);
  assert.equal([...y.keys()], [...x.keys()]);
  for (const [k, v] of x) assert.is(y.get(k), v, k);
});

test('the worker refuses an existing store with openDataDirDb\'s error', async () => {
  const dir = dirs.make();
  const out = await openWorkerOutput(dir);
  await out.close();
  try {
    await openWorkerOutput(dir);
    assert.unreachable('opened an existing store');
  } catch (err) {
    assert.match((err as Error).message, /must not exist yet/);
  }
});

test('a write the thread cannot do fails the rebuild, which waits for its writes before rejecting', async () => {
  const dir = dirs.make();
  const out = await openWorkerOutput(dir);
  const log = await openReadableLog({ kind: 'embedded', dataDir: source });
  let closed: Promise<void> | null = null;
  try {
    // The thread ends after the first batch: every later write must reject, and so must the rebuild.
    await rebuildInto(log.readFold(0, end), out, { copyLog: true, batchEvents: 10, onProgress: () => { closed ??= out.close(); } });
    assert.unreachable('the rebuild succeeded without its writer');
  } catch (err) {
    assert.match((err as Error).message, /writer thread exited|closed/);
  } finally {
    await log.close();
    await out.close();
  }
  // The store holds no m/folded: a failed rebuild never looks complete.
  const d = await dump(dir);
  assert.not.ok(d.has('m/folded'));
});

test.run();
