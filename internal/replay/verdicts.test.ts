import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Storage } from '../storage/storage.ts';
import type { Verdict } from '../storage/mvcc/fold.ts';
import { VerdictFold } from './verdicts.ts';
import { embeddedLog, openLogDb } from './open-log.ts';
import { intent, cmKey, nsKey, positioned, tempDirs } from './testing.ts';

const dirs = tempDirs('replay-verdicts-');
test.after(() => dirs.cleanup());

const summary = (v: Verdict | null): string => (v === null ? 'genesis' : v.accepted ? `ok ${v.op} @${v.rv}` : `no ${v.reason} @${v.rv} cur ${v.currentRv}`);

test('VerdictFold gives the Materializer verdict for every event of a mixed log', async () => {
  const dataDir = dirs.make();
  const s = await Storage.openEmbedded({ dataDir, historyWindowMs: 3_600_000, sync: false });
  const byOffset = new Map<number, Verdict>();
  const w = async (i: Parameters<typeof s.write>[0]): Promise<Verdict> => {
    const v = await s.write(i);
    byOffset.set(v.rv, v);
    return v;
  };
  // Deterministic pseudo-random mix: creates (some duplicate), updates (some stale, some wrong
  // uid), deletes, creates in missing and terminating namespaces.
  let seed = 7;
  const rnd = (n: number): number => {
    // mulberry32: small, seedable, good enough low bits for `% n`.
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
  await w(intent('CREATE', nsKey('a')));
  await w(intent('CREATE', nsKey('b')));
  const rv = new Map<string, number>();
  for (let i = 0; i < 400; i++) {
    const ns = ['a', 'b', 'missing'][rnd(3)];
    const name = `cm${rnd(20)}`;
    const k = cmKey(ns, name);
    const cur = rv.get(`${ns}/${name}`);
    const r = rnd(10);
    let v: Verdict;
    if (r < 4) v = await w(intent('CREATE', k, { data: { i: String(i) } }));
    else if (r < 7) v = await w(intent('UPDATE', k, { expectRv: r === 6 && cur ? cur - 1 : cur ?? 1, data: { i: String(i) } }));
    else if (r < 8) v = await w(intent('UPDATE', k, { expectRv: cur ?? 1, expectUid: 'someone-else' }));
    else v = await w(intent('DELETE', k, { expectRv: cur ?? 1 }));
    if (v.accepted) {
      if (v.op === 'DELETE') rv.delete(`${ns}/${name}`);
      else rv.set(`${ns}/${name}`, v.rv);
    }
    if (i === 300) {
      // Namespace b starts terminating: later creates in it are rejected NamespaceTerminating.
      const nsRv = s.materializer.entry(nsKey('b'))!.rv;
      await w(intent('UPDATE', nsKey('b'), { expectRv: nsRv, deleting: true }));
    }
  }
  await s.close();

  const log = embeddedLog(await openLogDb(dataDir), dataDir, true);
  const fold = new VerdictFold();
  const reasons = new Set<string>();
  let n = 0;
  for await (const pe of log.read(0, await log.endOffset())) {
    const mine = fold.apply(pe);
    const theirs = byOffset.get(pe.offset) ?? null;
    assert.is(summary(mine), summary(theirs), `offset ${pe.offset}`);
    if (mine && !mine.accepted) reasons.add(mine.reason);
    n++;
  }
  await log.close();
  assert.is(n, byOffset.size + 1, 'every write plus GENESIS');
  for (const r of ['AlreadyExists', 'Conflict', 'NotFound', 'UidMismatch', 'NamespaceNotFound', 'NamespaceTerminating']) {
    assert.ok(reasons.has(r), `the mix exercised ${r}`);
  }
});

test('VerdictFold rejects going backwards', () => {
  const fold = new VerdictFold();
  const events = positioned([intent('CREATE', nsKey('a'))]);
  fold.apply(events[0]);
  fold.apply(events[1]);
  assert.throws(() => fold.apply(events[1]), /backwards/);
});

test.run();
