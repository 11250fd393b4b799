/**
 * WatchHub against a real embedded Storage: previous versions on changes (materializer), resuming
 * from a start version older than the ring (after a restart) through the log + h/ history, the
 * hand-over from that replay to the ring while the ring moves on, and 410 / compaction during a
 * replay (many watchers resuming at once: resume.test.ts). The HubStorage wrapper (testing.ts)
 * lets a test act in the middle of a replay (its historyAt hook).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { Storage, type WriteIntent } from '../storage/storage.ts';
import { Materializer, type BatchOp, type Change, type Db } from '../storage/mvcc/materializer.ts';
import { genesisEvent, type PositionedEvent } from '../storage/log/event.ts';
import { FanOutMemo, WatchHub } from './hub.ts';
import { ALL_CMS, cleanup, cm, data, historyThenRestart, intent, recorder, rvOf, tmp, until, view, wrap } from './testing.ts';

test.after(cleanup);

test('materializer: prev comes from the same batch, else from o/; creates have none', async () => {
  const db: Db = new ClassicLevel<string, Buffer>(join(tmp(), 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  const m = await Materializer.open(db);
  const seen: Change[] = [];
  m.onChange((changes) => seen.push(...changes));
  const ev = (offset: number, i: WriteIntent): PositionedEvent => ({ offset, event: { ...i, id: `e${offset}` } });
  const fold = async (events: PositionedEvent[]) => {
    const ops: BatchOp[] = [];
    const pending = await m.foldInto(events, ops);
    await db.batch(ops);
    m.commit(pending);
    return pending;
  };
  const a = cm('a');
  const p1 = await fold([
    { offset: 0, event: genesisEvent(Date.now()) },
    ev(1, intent('CREATE', a, { v: '1' })),
    ev(2, intent('UPDATE', a, { v: '2' })),
    ev(3, intent('UPDATE', cm('missing'), { v: '1' })), // rejected: NotFound
    ev(4, intent('UPDATE', a, { v: '3' })),
  ]);
  assert.equal(p1.changes.map((c) => [c.offset, c.type, data(c.object), data(c.prev)]), [
    [1, 'ADDED', { v: '1' }, undefined],
    [2, 'MODIFIED', { v: '2' }, { v: '1' }],
    [4, 'MODIFIED', { v: '3' }, { v: '2' }],
  ]);
  assert.is(rvOf(p1.changes[2].prev), '2', 'prev carries its own resourceVersion');
  // Next batch: the previous version is read from o/ (committed), then chained within the batch.
  const p2 = await fold([ev(5, intent('UPDATE', a, { v: '4' })), ev(6, intent('DELETE', a, { v: '4' })), ev(7, intent('CREATE', a, { v: 'again' }))]);
  assert.equal(p2.changes.map((c) => [c.offset, c.type, data(c.object), data(c.prev)]), [
    [5, 'MODIFIED', { v: '4' }, { v: '3' }],
    [6, 'DELETED', { v: '4' }, { v: '4' }],
    [7, 'ADDED', { v: 'again' }, undefined],
  ]);
  assert.is(rvOf(p2.changes[0].prev), '4');
  assert.is(rvOf(p2.changes[1].prev), '5');
  assert.is(seen.length, 6, 'listeners got every change at commit');
  // Overlapping folds would prefetch stale o/ values: refused loudly.
  const first = m.foldInto([ev(8, intent('UPDATE', a, { v: 'x' }))], []);
  try {
    await m.foldInto([ev(9, intent('UPDATE', a, { v: 'y' }))], []);
    assert.unreachable('overlapping foldInto must throw');
  } catch (e) {
    assert.is((e as { code?: string }).code, 'corrupt');
  }
  await first;
  m.close();
  await db.close();
});

test('live watchers get changes with their previous versions; ring replay still works', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const hub = new WatchHub(s);
  const live = recorder();
  assert.ok(hub.watch(ALL_CMS, s.folded, live.sink).ok);
  const c = await s.write(intent('CREATE', cm('a'), { v: '1' }));
  // Two writes queued together share one group commit: the second's prev is the first's object.
  const [u1, u2] = await Promise.all([s.write(intent('UPDATE', cm('a'), { v: '2' })), s.write(intent('UPDATE', cm('a'), { v: '3' }))]);
  await s.write(intent('DELETE', cm('a'), { v: '3' }));
  assert.ok(c.accepted && u1.accepted && u2.accepted);
  assert.equal(live.changes.map((x) => [x.type, data(x.object), data(x.prev)]), [
    ['ADDED', { v: '1' }, undefined],
    ['MODIFIED', { v: '2' }, { v: '1' }],
    ['MODIFIED', { v: '3' }, { v: '2' }],
    ['DELETED', { v: '3' }, { v: '3' }],
  ]);
  const fromRing = recorder();
  const h = hub.watch(ALL_CMS, c.rv, fromRing.sink);
  assert.ok(h.ok && h.caughtUp(), 'a start inside the ring is served synchronously');
  assert.equal(fromRing.changes.map(view), live.changes.slice(1).map(view));
  hub.close();
  assert.is(live.ended, 'closed');
  await s.close();
});

test('the ring is bounded by bytes too; starts before it are served from the log, in full', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const start = s.folded;
  const big = 'x'.repeat(4096);
  // Room for about three 4 KiB changes.
  const hub = new WatchHub(s, 1000, 3 * 4400);
  const live = recorder();
  hub.watch(ALL_CMS, start, live.sink);
  for (let i = 0; i < 10; i++) await s.write(intent('CREATE', cm(`b${i}`), { big }));
  assert.is(live.changes.length, 10);
  const resumed = recorder();
  const h = hub.watch(ALL_CMS, start, resumed.sink);
  assert.ok(h.ok);
  assert.not.ok(h.caughtUp(), 'the oldest changes left the ring: they come from the log');
  await until(() => h.caughtUp(), 'catch-up');
  assert.equal(resumed.changes.map(view), live.changes.map(view));
  hub.close();
  await s.close();
});

test('after a restart, a start version older than the ring replays from the log, then goes live', async () => {
  const { s, from, before } = await historyThenRestart(tmp());
  const hub = new WatchHub(s);
  assert.ok(from < s.folded && hub.oldestResumable <= from, 'the ring starts at the restart; history reaches further');
  const all = recorder();
  const h = hub.watch(ALL_CMS, from, all.sink);
  assert.ok(h.ok);
  assert.not.ok(h.caughtUp(), 'catching up from the log');
  const ns2 = recorder();
  hub.watch({ ...ALL_CMS, namespace: 'ns2' }, from, ns2.sink);
  const one = recorder();
  hub.watch({ ...ALL_CMS, namespace: 'default', name: 'b' }, from, one.sink);
  await until(() => h.caughtUp(), 'catch-up');
  const expected = before.filter((c) => c.offset > from);
  assert.equal(all.changes.map(view), expected.map(view), 'same changes as the live watcher saw: types, objects, prevs, times');
  assert.equal(ns2.changes.map((c) => c.key.name), ['other']);
  assert.equal(one.changes.map((c) => c.type), ['ADDED', 'DELETED']);
  assert.equal(data(one.changes[1].prev), { v: '1' });
  const next = await s.write(intent('UPDATE', cm('a'), { v: '4' }));
  assert.is(all.changes.length, expected.length + 1, 'then live, without duplicates');
  assert.is(all.changes[all.changes.length - 1].offset, next.rv);
  assert.is(all.ended, null);
  hub.close();
  await s.close();
});

test('the ring moving on during the replay leaves no gap and no duplicate', async () => {
  const { s, from, before } = await historyThenRestart(tmp());
  const w = wrap(s);
  const hub = new WatchHub(w.storage, 2); // a tiny ring: ten writes push its start well past the replay target
  const reference = recorder();
  hub.watch(ALL_CMS, s.folded, reference.sink);
  const resumed = recorder();
  const ringStart = hub.oldestResumable;
  w.beforeHistory = async () => {
    for (let i = 0; i < 10; i++) await s.write(intent('CREATE', cm(`during-${i}`), { i: String(i) }));
  };
  const h = hub.watch(ALL_CMS, from, resumed.sink);
  await until(() => h.caughtUp(), 'catch-up');
  assert.is(reference.changes.length, 10);
  const expected = [...before.filter((c) => c.offset > from), ...reference.changes];
  assert.equal(resumed.changes.map((c) => c.offset), expected.map((c) => c.offset));
  assert.equal(resumed.changes.map(view), expected.map(view));
  assert.ok(ringStart < s.folded - 2, 'the ring did move on');
  await s.write(intent('CREATE', cm('after'), {}));
  assert.is(resumed.changes[resumed.changes.length - 1].key.name, 'after');
  assert.is(resumed.changes.length, expected.length + 1);
  hub.close();
  await s.close();
});

test('start below the compaction point is refused; compaction overtaking a replay ends it as expired', async () => {
  const { s, from } = await historyThenRestart(tmp());
  const w = wrap(s);
  const hub = new WatchHub(w.storage);
  w.compacted = from + 1;
  const refused = recorder();
  const r = hub.watch(ALL_CMS, from, refused.sink);
  assert.not.ok(r.ok, 'from < compactedBelow and older than the ring → 410');
  assert.is(refused.changes.length, 0);
  w.compacted = from;
  const overtaken = recorder();
  w.beforeHistory = () => {
    w.compacted = s.folded; // a compaction pass runs while the replay reads history
  };
  assert.ok(hub.watch(ALL_CMS, from, overtaken.sink).ok);
  await until(() => overtaken.ended !== null, 'end');
  assert.is(overtaken.ended, 'expired');
  assert.is(overtaken.changes.length, 0, 'nothing built from possibly compacted history is delivered');
  assert.is(hub.size, 0);
  hub.close();
  await s.close();
});

test('a start inside the ring but below the compaction point is refused (the history window); the ring drops what compaction passed', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const w = wrap(s);
  const hub = new WatchHub(w.storage);
  const first = await s.write(intent('CREATE', cm('a'), { v: '1' }));
  const second = await s.write(intent('CREATE', cm('b'), { v: '1' }));
  assert.is(hub.ringUsage().changes, 2);
  w.compacted = second.rv;
  assert.not.ok(hub.watch(ALL_CMS, first.rv, recorder().sink).ok, 'first.rv < compactedBelow, though the ring holds the change after it');
  assert.is(hub.oldestResumable, second.rv);
  const atCut = recorder();
  assert.ok(hub.watch(ALL_CMS, second.rv, atCut.sink).ok, 'the compaction point itself is served');
  const third = await s.write(intent('CREATE', cm('c'), { v: '1' }));
  assert.equal(atCut.changes.map((c) => c.offset), [third.rv]);
  assert.equal(hub.ringUsage().changes, 2, 'the change at first.rv left the ring; second and third stay');
  hub.close();
  await s.close();
});

test('stop or a slow sink during the replay ends delivery', async () => {
  const { s, from } = await historyThenRestart(tmp());
  const w = wrap(s);
  const hub = new WatchHub(w.storage);
  const stopped = recorder();
  const h = hub.watch(ALL_CMS, from, stopped.sink);
  w.beforeHistory = () => h.stop();
  await new Promise((r) => setTimeout(r, 50));
  await s.write(intent('CREATE', cm('late'), {}));
  assert.is(stopped.changes.length, 0);
  assert.is(stopped.ended, null, 'a stopped watcher is not ended by the hub');
  const slow = recorder(1);
  hub.watch(ALL_CMS, from, slow.sink);
  await until(() => slow.ended !== null, 'slow end');
  assert.is(slow.ended, 'slow');
  assert.is(slow.changes.length, 1);
  assert.is(hub.size, 0);
  hub.close();
  await s.close();
});

test('fan-out: watchers by namespace; one memo and one flush per batch, the same batch for the same namespace', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const hub = new WatchHub(s);
  let made = 0;
  /** A flushing sink: derives one value per change through the memo, records its batches. */
  const flushing = () => {
    const r = {
      got: [] as string[],
      derived: [] as string[],
      batches: [] as (readonly Change[])[],
      memos: [] as FanOutMemo[],
      sink: {
        deliver(c: Change, memo: FanOutMemo): boolean {
          r.got.push(`${c.key.namespace}/${c.key.name}`);
          r.derived.push(memo.get(c, 'upper', () => (made++, c.key.name.toUpperCase())));
          return true;
        },
        flush(memo: FanOutMemo, batch: readonly Change[]): boolean {
          r.memos.push(memo);
          r.batches.push(batch);
          return true;
        },
        end(): void {},
      },
    };
    return r;
  };
  const [a1, a2, b, all, named] = [flushing(), flushing(), flushing(), flushing(), flushing()];
  hub.watch({ ...ALL_CMS, namespace: 'a' }, s.folded, a1.sink);
  hub.watch({ ...ALL_CMS, namespace: 'a' }, s.folded, a2.sink);
  hub.watch({ ...ALL_CMS, namespace: 'b' }, s.folded, b.sink);
  hub.watch(ALL_CMS, s.folded, all.sink);
  hub.watch({ ...ALL_CMS, namespace: 'a', name: 'y' }, s.folded, named.sink);
  const secrets = flushing();
  hub.watch({ ...ALL_CMS, resource: 'secrets' }, s.folded, secrets.sink);
  const published: Change[][] = [];
  s.onChange((changes) => published.push(changes));
  // Queued together: usually one or two group commits.
  await Promise.all([s.write(intent('CREATE', cm('x', 'a'))), s.write(intent('CREATE', cm('y', 'a'))), s.write(intent('CREATE', cm('z', 'b')))]);
  assert.equal(a1.got, ['a/x', 'a/y']);
  assert.equal(a2.got, ['a/x', 'a/y']);
  assert.equal(b.got, ['b/z']);
  assert.equal(all.got, ['a/x', 'a/y', 'b/z']);
  assert.equal(named.got, ['a/y']);
  assert.equal(secrets.got, [], 'another resource is not offered');
  assert.equal(secrets.batches, [], 'nor flushed');
  assert.is(made, 3, 'each change derived once for every sink');
  assert.equal(a1.derived, ['X', 'Y']);
  assert.equal(all.derived, ['X', 'Y', 'Z']);
  const batchesWith = (ns: string, name?: string) => published.filter((cs) => cs.some((c) => c.key.namespace === ns && (!name || c.key.name === name))).length;
  for (const r of [a1, a2]) assert.is(r.batches.length, batchesWith('a'), 'one flush per published batch');
  assert.is(named.batches.length, batchesWith('a', 'y'), 'no flush when nothing was delivered');
  assert.is(b.batches.length, batchesWith('b'));
  assert.is(all.batches.length, published.length);
  assert.equal(a1.batches.flat().map((c) => c.key.name), ['x', 'y'], "a batch holds the namespace's changes, in order");
  a1.batches.forEach((batch, i) => {
    assert.ok(batch === a2.batches[i], 'watchers of one namespace share the batch array');
    assert.ok(a1.memos[i] === a2.memos[i], 'and the memo');
  });
  assert.ok(a1.batches.includes(named.batches[0]), 'a name filter is applied to the same batch');
  // A start inside the ring replays with a flush too.
  const late = flushing();
  hub.watch({ ...ALL_CMS, namespace: 'a' }, s.folded - 3, late.sink);
  assert.equal(late.got, ['a/x', 'a/y']);
  assert.is(late.batches.length, 1);
  // A stopped watcher leaves the index: nothing more for it.
  const h = hub.watch({ ...ALL_CMS, namespace: 'c' }, s.folded, flushing().sink);
  h.stop();
  await s.write(intent('CREATE', cm('w', 'c')));
  assert.equal(all.got.slice(-1), ['c/w']);
  hub.close();
  await s.close();
});


test.run();
