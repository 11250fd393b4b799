import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync } from 'node:fs';
import { Storage } from '../storage/storage.ts';
import { Materializer, type Db } from '../storage/mvcc/materializer.ts';
import { Compactor } from '../storage/mvcc/compactor.ts';
import { fromHex16, META_COMPACTED } from '../storage/keys.ts';
import { rebuild, type RebuildProgress } from './rebuild.ts';
import { openDataDirDb, openReadableLog, createLogDb } from './open-log.ts';
import { stateHash } from './state-hash.ts';
import { intent, cmKey, nsKey, positioned, iterate, tempDirs } from './testing.ts';

const dirs = tempDirs('replay-rebuild-');
let original: string;
let atCut: string;
let cut = -1;
let cutTime = 0;
let end = -1;

/** Writes through the real Storage; `t0` spaces the two phases apart in writer time. */
async function writePhase(dataDir: string, phase: number, t0: number): Promise<number> {
  const s = await Storage.openEmbedded({ dataDir, historyWindowMs: 3_600_000, sync: false });
  let i = 0;
  const time = (): number => t0 + i++;
  if (phase === 1) {
    await s.write(intent('CREATE', nsKey('a'), { time: time() }));
    await s.write(intent('CREATE', nsKey('b'), { time: time() }));
  }
  for (let n = 0; n < 60; n++) {
    const k = cmKey(n % 2 ? 'a' : 'b', `cm${n % 15}`);
    const cur = s.materializer.entry(k)?.rv;
    // Two of three writes are not awaited, so group commits hold several events, as on a server.
    const v = cur === undefined
      ? s.write(intent('CREATE', k, { time: time(), data: { phase: String(phase), n: String(n) } }))
      : n % 7 === 0 ? s.write(intent('DELETE', k, { time: time(), expectRv: cur }))
      : s.write(intent('UPDATE', k, { time: time(), expectRv: cur, data: { phase: String(phase), n: String(n) } }));
    if (n % 3 === 0) await v;
  }
  await s.write(intent('CREATE', cmKey('missing', 'x'), { time: time() })); // NamespaceNotFound
  const last = s.materializer.folded;
  await s.close();
  return last;
}

async function dump(db: Db, withCompacted = false): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const [k, v] of db.iterator()) if (withCompacted || k !== 'm/compacted') out.set(k, v.toString('base64'));
  return out;
}

/** path → [rv, value ('' = tombstone)] of every h/ entry, in rv order. */
async function histories(db: Db): Promise<Map<string, [number, string][]>> {
  const out = new Map<string, [number, string][]>();
  for await (const [k, v] of db.iterator({ gte: 'h/', lt: 'h0' })) {
    const path = k.slice(2, -17);
    if (!out.has(path)) out.set(path, []);
    out.get(path)!.push([fromHex16(k.slice(-16)), v.toString('base64')]);
  }
  return out;
}

/** What an exact read of `path` at `rv` sees: the newest h/ entry ≤ rv (undefined: none or deleted). */
function readAt(h: Map<string, [number, string][]>, path: string, rv: number): string | undefined {
  let seen: string | undefined;
  for (const [at, v] of h.get(path) ?? []) if (at <= rv) seen = v;
  return seen || undefined;
}

async function withDb<T>(dataDir: string, f: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDataDirDb(dataDir, { create: false });
  try {
    return await f(db);
  } finally {
    await db.close();
  }
}

async function rebuildFrom(source: string, to: number | undefined, opts: Parameters<typeof rebuild>[2] = {}) {
  const out = dirs.make();
  const log = await openReadableLog({ kind: 'embedded', dataDir: source });
  const db = await openDataDirDb(out, { create: true });
  const logDb = await createLogDb(out);
  try {
    const result = await rebuild(log.readFold(0, to ?? (await log.endOffset())), db, { logDb, ...opts });
    return { out, result };
  } finally {
    await db.close();
    await logDb.close();
    await log.close();
  }
}

test.before(async () => {
  original = dirs.make();
  const now = Date.now();
  cut = await writePhase(original, 1, now + 10_000);
  cutTime = now + 50_000;
  atCut = dirs.make();
  cpSync(original, atCut, { recursive: true });
  end = await writePhase(original, 2, now + 100_000);
});
test.after(() => dirs.cleanup());

test('a full rebuild is key-for-key the store the server wrote (log copied)', async () => {
  for (const batchEvents of [2000, 7]) {
    const { out, result } = await rebuildFrom(original, undefined, { batchEvents });
    assert.is(result.lastOffset, end, `batch ${batchEvents}: folds to the end`);
    assert.is(result.events, end + 1);
    assert.ok((result.rejected.NamespaceNotFound ?? 0) >= 2, 'rejections are counted');
    const want = await withDb(original, dump);
    const got = await withDb(out, dump);
    assert.equal([...got.keys()], [...want.keys()], `batch ${batchEvents}: same keys`);
    for (const [k, v] of want) assert.is(got.get(k), v, `batch ${batchEvents}: ${k}`);
  }
});

test('a rebuilt dir opens as an embedded store and keeps appending after the cut', async () => {
  const { out } = await rebuildFrom(original, cut + 1);
  const s = await Storage.openEmbedded({ dataDir: out, historyWindowMs: 3_600_000, sync: false });
  assert.is(s.materializer.folded, cut);
  const v = await s.write(intent('CREATE', cmKey('a', 'after-cut')));
  assert.ok(v.accepted);
  assert.is(v.rv, cut + 1);
  await s.close();
});

test('--to-offset and --at cuts give the state the server had at the cut', async () => {
  const want = await withDb(atCut, dump);
  const byOffset = await rebuildFrom(original, cut + 1);
  assert.is(byOffset.result.stoppedBy, 'end');
  const byTime = await rebuildFrom(original, undefined, { atTime: cutTime });
  assert.is(byTime.result.stoppedBy, 'time');
  assert.is(byTime.result.lastOffset, cut);
  for (const [name, r] of [['offset', byOffset], ['time', byTime]] as const) {
    const got = await withDb(r.out, dump);
    assert.equal([...got.keys()], [...want.keys()], `${name}: same keys as the copy taken at the cut`);
    for (const [k, v] of want) assert.is(got.get(k), v, `${name}: ${k}`);
  }
  const h1 = await withDb(atCut, stateHash);
  const h2 = await withDb(byTime.out, stateHash);
  assert.equal(h2, h1);
});

test('progress is reported per batch, increasing, ending at the total', async () => {
  const seen: RebuildProgress[] = [];
  const { result } = await rebuildFrom(original, undefined, { batchEvents: 50, onProgress: (p) => seen.push(p) });
  assert.is(seen.length, Math.ceil(result.events / 50));
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].events > seen[i - 1].events && seen[i].offset > seen[i - 1].offset, `step ${i}`);
  assert.is(seen[seen.length - 1].events, result.events);
  assert.is(seen[seen.length - 1].offset, end);
});

test('missing events fail the rebuild instead of folding a wrong state', async () => {
  const events = positioned([intent('CREATE', nsKey('a')), intent('CREATE', nsKey('b')), intent('CREATE', nsKey('c'))]);
  const cases: [typeof events, RegExp][] = [
    [[events[0], events[1], events[3]], /skips from offset 1 to 3/],
    [events.slice(1), /starts at offset 1/],
  ];
  for (const [i, [input, want]] of cases.entries()) {
    const db = await openDataDirDb(dirs.make(), { create: true });
    try {
      await rebuild(iterate(input), db, { batchEvents: 1 });
      assert.unreachable(`case ${i} should throw`);
    } catch (e) {
      assert.match((e as Error).message, want, `case ${i}`);
    } finally {
      await db.close();
    }
  }
});

test('a cache too small for the objects, or objects written out when cold, give the same store', async () => {
  const cases = [
    { batchEvents: 2000, cacheBytes: 1 }, { batchEvents: 7, cacheBytes: 1 },
    { batchEvents: 7, writeOutAfterEvents: 0 }, { batchEvents: 5, writeOutAfterEvents: 3 }, { batchEvents: 1, writeOutAfterEvents: 10 },
  ];
  for (const opts of cases) {
    const name = JSON.stringify(opts);
    const { out } = await rebuildFrom(original, undefined, opts);
    const want = await withDb(original, dump);
    const got = await withDb(out, dump);
    assert.equal([...got.keys()], [...want.keys()], `${name}: same keys`);
    for (const [k, v] of want) assert.is(got.get(k), v, `${name}: ${k}`);
  }
});

test('a short history window keeps exactly what the compactor keeps at the cut', async () => {
  const windowMs = 50_000; // phase 2 only: phase 1 was written 90 s before it
  const { out, result } = await rebuildFrom(original, undefined, { historyWindowMs: windowMs });
  assert.ok(result.compactedBelow > cut, 'the window starts in phase 2');
  // The server's store, compacted by the server's compactor with "now" = the last event.
  const compacted = dirs.make();
  cpSync(original, compacted, { recursive: true });
  await withDb(compacted, async (db) => {
    const m = await Materializer.open(db);
    const c = new Compactor(db, m, windowMs, 3_600_000);
    await c.runOnce(result.lastTime!);
    m.close();
  });
  const want = await withDb(compacted, (db) => dump(db, true));
  const got = await withDb(out, (db) => dump(db, true));
  assert.is(got.get(META_COMPACTED), want.get(META_COMPACTED), 'm/compacted');
  assert.ok([...want.keys()].filter((k) => k.startsWith('h/')).length < (await withDb(original, dump)).size, 'compaction dropped history');
  assert.equal([...got.keys()], [...want.keys()], 'same keys');
  for (const [k, v] of want) assert.is(got.get(k), v, k);
});

test('with a short window and early write-outs, every read at or after m/compacted matches the full history', async () => {
  const cases = [{ cacheBytes: 1, batchEvents: 3 }, { cacheBytes: 1, batchEvents: 50 }, { writeOutAfterEvents: 4, batchEvents: 3 }];
  for (const [i, opts] of cases.entries()) {
    const { out, result } = await rebuildFrom(original, undefined, { historyWindowMs: 50_000, ...opts });
    const full = await withDb(original, histories);
    const got = await withDb(out, histories);
    const c = result.compactedBelow;
    assert.ok(c > cut, `case ${i}: the window starts in phase 2`);
    for (const path of full.keys()) {
      for (let rv = c; rv <= end; rv++) assert.is(readAt(got, path, rv), readAt(full, path, rv), `case ${i}: ${path} at ${rv}`);
    }
    const state = async (dir: string) => [...(await withDb(dir, dump))].filter(([k]) => k.startsWith('o/') || k.startsWith('i/'));
    assert.equal(await state(out), await state(original), `case ${i}: same o/ and i/`);
  }
});

test('an object deleted before the window start stays deleted when older history was written out', async () => {
  // x is written out (cache of 1 byte) before its delete at t0+1 s; the log goes on until t0+200 s,
  // so the window start passes the delete: the tombstone must still hide x's written version.
  const t0 = 1_700_000_000_000;
  const x = cmKey('a', 'x');
  const events = positioned([
    intent('CREATE', nsKey('a'), { time: t0 }),
    intent('CREATE', x, { time: t0, data: { v: '1' } }),
    intent('DELETE', x, { time: t0 + 1000, expectRv: 2 }),
    ...Array.from({ length: 5 }, (_, i) => intent('CREATE', cmKey('a', `later-${i}`), { time: t0 + 200_000 + i })),
  ], t0);
  for (const batchEvents of [1, 100]) {
    const db = await openDataDirDb(dirs.make(), { create: true });
    try {
      const r = await rebuild(iterate(events), db, { batchEvents, cacheBytes: 1, historyWindowMs: 60_000 });
      assert.ok(r.compactedBelow > 3, `batch ${batchEvents}: the window starts after the delete`);
      const h = await histories(db);
      const path = 'core/configmaps/a/x';
      for (let rv = r.compactedBelow; rv <= r.lastOffset; rv++) assert.is(readAt(h, path, rv), undefined, `batch ${batchEvents}: x at ${rv}`);
      assert.is(await db.get('o/core/configmaps/a/x/'), undefined, `batch ${batchEvents}: no o/ for x`);
      assert.is(await db.get('i/core/configmaps/a/x'), undefined, `batch ${batchEvents}: no i/ for x`);
    } finally {
      await db.close();
    }
  }
});

test('rebuild refuses a store that already holds a fold', async () => {
  const db = await openDataDirDb(dirs.make(), { create: true });
  await rebuild(iterate(positioned([])), db);
  try {
    await rebuild(iterate(positioned([])), db);
    assert.unreachable('second rebuild into the same store');
  } catch (e) {
    assert.match((e as Error).message, /not empty/);
  } finally {
    await db.close();
  }
});

test.run();
