/**
 * WatchHub after a restart, with many watchers resuming at once (a real embedded Storage): they
 * share one read of the log that extends the ring (within its bounds and the total watch budget),
 * a watcher arriving below a read in progress gets a second read of the rest, and long replays
 * from the ring are paced; every watcher gets exactly its changes, in order, then live ones.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { DEFAULT_RING_BYTES, DEFAULT_RING_SIZE, WatchHub, type WatchFilter } from './hub.ts';
import { WatchBudget } from './budget.ts';
import { ALL_CMS, cleanup, cm, historyThenRestart, intent, recorder, tmp, until, view, wrap } from './testing.ts';

test.after(cleanup);

test('after a restart, hundreds of watchers resuming from various versions share one log read; each gets exactly its changes', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  let hub = new WatchHub(s);
  const live = recorder();
  const start = s.folded;
  hub.watch(ALL_CMS, start, live.sink);
  // 240 writes over 4 namespaces: creates, updates, deletes and a few rejected ones.
  const rv = new Map<string, number>();
  for (let i = 0; i < 240; i++) {
    const k = cm(`o${i % 30}`, `ns${i % 4}`);
    const at = rv.get(`${k.namespace}/${k.name}`);
    const op = at === undefined ? 'CREATE' : i % 7 === 0 ? 'DELETE' : 'UPDATE';
    const r = await s.write(intent(op, k, { i: String(i) }, { expectRv: i % 11 === 0 && at !== undefined ? at - 1 : null }));
    if (!r.accepted) continue;
    if (op === 'DELETE') rv.delete(`${k.namespace}/${k.name}`);
    else rv.set(`${k.namespace}/${k.name}`, r.rv);
  }
  hub.close();
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const w = wrap(s);
  let historyReads = 0;
  w.beforeHistory = function count() {
    historyReads++;
    w.beforeHistory = count;
  };
  hub = new WatchHub(w.storage);
  const end = s.folded;
  // 300 watchers: every namespace or one, some for one name, from versions spread over the history.
  const filters: WatchFilter[] = [ALL_CMS, ...[0, 1, 2, 3].map((n) => ({ ...ALL_CMS, namespace: `ns${n}` })), { ...ALL_CMS, namespace: 'ns1', name: 'o5' }, { ...ALL_CMS, name: 'o9' }];
  const watchers = Array.from({ length: 300 }, (_, i) => {
    const filter = filters[i % filters.length];
    const from = start + Math.floor(((end - start) * ((i * 37) % 300)) / 300);
    const r = recorder();
    const h = hub.watch(filter, from, r.sink);
    assert.ok(h.ok);
    return { filter, from, r, h };
  });
  await until(() => watchers.every((x) => x.h.caughtUp()), 'catch-up', 15_000);
  const inFilter = (f: WatchFilter, c: Change) => (!f.namespace || c.key.namespace === f.namespace) && (!f.name || c.key.name === f.name);
  for (const { filter, from, r } of watchers) {
    const expected = live.changes.filter((c) => c.offset > from && inFilter(filter, c));
    assert.equal(r.changes.map(view), expected.map(view), `watcher from ${from} of ${JSON.stringify(filter)}`);
    assert.is(r.ended, null);
  }
  const reads = hub.resumeReads();
  assert.is(reads.shared, 1, 'one shared read for all of them');
  assert.is(reads.own, 0, 'none of its own');
  assert.ok(reads.sharedEvents <= end - start, 'each log event read once');
  assert.ok(historyReads <= end - start, `history read once per event (${historyReads})`);
  // Then live, once each.
  const next = await s.write(intent('UPDATE', cm('o5', 'ns1'), { v: 'live' }));
  for (const { filter, r } of watchers) {
    const got = r.changes.filter((c) => c.offset === next.rv).length;
    assert.is(got, filter.namespace === '' || filter.namespace === 'ns1' ? (filter.name && filter.name !== 'o5' ? 0 : 1) : 0);
  }
  hub.close();
  await s.close();
});

test('watchers resuming from below a shared read in progress get a second read of the rest; exact delivery', async () => {
  const { s, from, before } = await historyThenRestart(tmp());
  const w = wrap(s);
  const hub = new WatchHub(w.storage);
  const late: { r: ReturnType<typeof recorder>; h: ReturnType<WatchHub['watch']>; at: number }[] = [];
  const first = recorder();
  const h1 = hub.watch(ALL_CMS, s.folded - 2, first.sink);
  // While the first read (of the last two versions) reads history, watchers from older versions arrive.
  w.beforeHistory = () => {
    for (const at of [from, from + 1, s.folded - 3]) {
      const r = recorder();
      late.push({ r, h: hub.watch(ALL_CMS, at, r.sink), at });
    }
  };
  await until(() => h1.caughtUp() && late.length === 3 && late.every((x) => x.h.caughtUp()), 'catch-up');
  assert.equal(first.changes.map(view), before.filter((c) => c.offset > s.folded - 2).map(view));
  for (const { r, at } of late) assert.equal(r.changes.map(view), before.filter((c) => c.offset > at).map(view), `from ${at}`);
  assert.equal(hub.resumeReads(), { shared: 2, sharedEvents: s.folded - from, own: 0 }, 'the second read covers only the versions below the first');
  hub.close();
  await s.close();
});

test('the shared read keeps within the total watch budget: the newest changes go to the ring, older ones are read per watcher', async () => {
  const { s, from, before } = await historyThenRestart(tmp());
  const expected = before.filter((c) => c.offset > from);
  const lastTwo = expected.slice(-2).reduce((n, c) => n + c.object.length + (c.prev?.length ?? 0), 0);
  const hub = new WatchHub(s, DEFAULT_RING_SIZE, DEFAULT_RING_BYTES, new WatchBudget({ total: lastTwo }));
  const r = recorder();
  const h = hub.watch(ALL_CMS, from, r.sink);
  await until(() => h.caughtUp(), 'catch-up');
  assert.equal(r.changes.map(view), expected.map(view));
  assert.is(hub.ringUsage().changes, 2, 'the ring took the newest changes that fit the budget');
  assert.equal(hub.resumeReads().own, 1, 'the rest was read for the watcher alone');
  hub.close();
  await s.close();
});

test('a start inside the ring but more than 8,192 changes back is replayed paced (not at once), then live; exact delivery', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const hub = new WatchHub(s);
  const from = s.folded;
  for (let i = 0; i < 8300; i += 500) await Promise.all(Array.from({ length: 500 }, (_, j) => s.write(intent('CREATE', cm(`p${i + j}`)))));
  let drains = 0;
  const r = recorder();
  const h = hub.watch(ALL_CMS, from, { ...r.sink, drained: async () => void drains++ });
  assert.not.ok(h.caughtUp(), 'not replayed in the watch call');
  await until(() => h.caughtUp(), 'paced replay');
  const last = await s.write(intent('CREATE', cm('last')));
  assert.is(r.changes.length, 8501);
  assert.equal(r.changes.map((c) => c.offset), [...r.changes.map((c) => c.offset)].sort((a, b) => a - b), 'in order');
  assert.is(new Set(r.changes.map((c) => c.offset)).size, 8501, 'no duplicate');
  assert.is(r.changes[8500].offset, last.rv);
  assert.ok(drains >= 8500 / 256 - 1, `waited for the sink between batches (${drains})`);
  hub.close();
  await s.close();
});

test.run();
