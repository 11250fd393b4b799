import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdtempSync, rmSync, readdirSync, statSync, openSync, writeSync, closeSync, utimesSync, writeFileSync, existsSync, truncateSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type WriteIntent, type CollectionRead, type ObjectKey } from './storage.ts';
import { StorageError } from './errors.ts';
import { currentPrefix, pathOfHistoryKey, rvOfHistoryKey, META_FORMAT } from './keys.ts';
import { KEY_FORMAT } from './format.ts';

const key = { group: '', resource: 'configmaps', namespace: 'default', name: 'a' };
const nsKey = { group: '', resource: 'namespaces', namespace: '', name: 'default' };

function intent(op: WriteIntent['op'], k = key, obj: object | null = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: k.name }, data: { x: '1' } }, extra: Partial<WriteIntent> = {}): WriteIntent {
  return {
    op, group: k.group, resource: k.resource, namespace: k.namespace, name: k.name, expectRv: null, expectUid: null,
    requireActiveNamespace: false, uid: 'u1', deleting: false, object: obj ? Buffer.from(JSON.stringify(obj)) : null, time: Date.now(),
    verb: op.toLowerCase(), user: 'test', groups: [], fieldManager: null, userAgent: null, requestId: null, ...extra,
  };
}

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'storage-test-'));
  dirs.push(d);
  return d;
}
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('create stamps resourceVersion = offset; second create is rejected', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const v1 = await s.write(intent('CREATE'));
  assert.ok(v1.accepted);
  assert.is(v1.rv, 1, 'genesis is offset 0, the first object gets 1');
  const stored = JSON.parse((await s.get(key))!.toString());
  assert.is(stored.metadata.resourceVersion, '1');
  const v2 = await s.write(intent('CREATE'));
  assert.not.ok(v2.accepted);
  assert.is(!v2.accepted && v2.reason, 'AlreadyExists');
  await s.close();
});

test('update and delete check the expected resourceVersion', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const c = await s.write(intent('CREATE'));
  const stale = await s.write(intent('UPDATE', key, undefined, { expectRv: c.rv + 100 }));
  assert.is(!stale.accepted && stale.reason, 'Conflict');
  const u = await s.write(intent('UPDATE', key, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a' }, data: { x: '2' } }, { expectRv: c.rv }));
  assert.ok(u.accepted);
  assert.is(JSON.parse((await s.getAt(key, c.rv))!.toString()).data.x, '1', 'history keeps the old version');
  assert.is(JSON.parse((await s.getAt(key, u.rv))!.toString()).data.x, '2');
  const d = await s.write(intent('DELETE', key, undefined, { expectRv: u.rv }));
  assert.ok(d.accepted);
  assert.is(await s.get(key), undefined);
  assert.is(await s.getAt(key, d.rv), undefined, 'deleted at its own rv');
  assert.ok(await s.getAt(key, u.rv), 'still readable before the delete');
  const missing = await s.write(intent('UPDATE', key, undefined, { expectRv: u.rv }));
  assert.is(!missing.accepted && missing.reason, 'NotFound');
  await s.close();
});

test('namespaced create needs an active namespace at fold time', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000 });
  const r = await s.write(intent('CREATE', key, undefined, { requireActiveNamespace: true }));
  assert.is(!r.accepted && r.reason, 'NamespaceNotFound');
  const ns = await s.write(intent('CREATE', nsKey, { kind: 'Namespace', apiVersion: 'v1', metadata: {} }));
  assert.ok((await s.write(intent('CREATE', key, undefined, { requireActiveNamespace: true }))).accepted);
  await s.write(intent('UPDATE', nsKey, { kind: 'Namespace', apiVersion: 'v1', metadata: {} }, { expectRv: ns.rv, deleting: true }));
  const t = await s.write(intent('CREATE', { ...key, name: 'b' }, undefined, { requireActiveNamespace: true }));
  assert.is(!t.accepted && t.reason, 'NamespaceTerminating');
  await s.close();
});

test('concurrent writers share group commits and reopen restores index and log end', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => s.write(intent('CREATE', { ...key, name: `n${i}` }))));
  assert.ok(results.every((r) => r.accepted));
  const rvs = results.map((r) => r.rv).sort((a, b) => a - b);
  assert.equal(rvs, Array.from({ length: 200 }, (_, i) => i + 1));
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  assert.is(s.folded, 200);
  assert.is(await s.log.endOffset(), 201);
  assert.is(s.entry({ ...key, name: 'n7' })?.rv !== undefined, true);
  const again = await s.write(intent('CREATE', { ...key, name: 'n7' }));
  assert.is(!again.accepted && again.reason, 'AlreadyExists');
  const view = await s.view();
  let n = 0;
  const p = currentPrefix('', 'configmaps', 'default');
  for await (const _ of view.scan(p, p.slice(0, -1) + '0')) n++;
  await view.close();
  assert.is(n, 200);
  let events = 0;
  for await (const e of s.log.read(0)) {
    assert.is(e.offset, events);
    events++;
  }
  assert.is(events, 202, 'genesis + 200 creates + 1 rejected create');
  await s.close();
});

test('compaction keeps the newest version before the window and drops old tombstones', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 1000, compactIntervalMs: 3_600_000 });
  const t0 = Date.now() + 1000;
  const c = await s.write(intent('CREATE', key, undefined, { time: t0 }));
  const u = await s.write(intent('UPDATE', key, { kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: { x: '2' } }, { expectRv: c.rv, time: t0 + 2000 }));
  const k2 = { ...key, name: 'gone' };
  const c2 = await s.write(intent('CREATE', k2, undefined, { time: t0 + 2000 }));
  await s.write(intent('DELETE', k2, undefined, { expectRv: c2.rv, time: t0 + 3000 }));
  const late = await s.write(intent('CREATE', { ...key, name: 'late' }, undefined, { time: t0 + 19_500 }));
  await (s as unknown as { compactor: { runOnce(now: number): Promise<void> } }).compactor.runOnce(t0 + 20_000);
  assert.is(s.compactedBelow, late.rv);
  assert.is(JSON.parse((await s.getAt(key, late.rv))!.toString()).data.x, '2', 'newest pre-window version survives');
  assert.is(await s.getAt(k2, late.rv), undefined);
  try {
    await s.getAt(key, u.rv);
    assert.unreachable('expected expired');
  } catch (e) {
    assert.is((e as { code: string }).code, 'expired');
  }
  let hist = 0;
  for await (const _ of s.db.keys({ gte: 'h/', lt: 'h0' })) hist++;
  assert.is(hist, 2, 'one kept version of `a` and the in-window `late`');
  await s.close();
});

test('compaction: later passes visit what was written since, a restarted store finds what is left', async () => {
  const dir = tmp();
  const open = () => Storage.openEmbedded({ dataDir: dir, historyWindowMs: 1000, compactIntervalMs: 3_600_000 });
  const compact = (st: Storage, now: number) => (st as unknown as { compactor: { runOnce(now: number): Promise<void> } }).compactor.runOnce(now);
  const history = async (st: Storage): Promise<string[]> => {
    const out: string[] = [];
    for await (const k of st.db.keys({ gte: 'h/', lt: 'h0' })) out.push(`${pathOfHistoryKey(k).split('/').pop()}@${rvOfHistoryKey(k)}`);
    return out;
  };
  const obj = (x: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: { x } });
  const [a, b, d] = ['a', 'b', 'd'].map((name) => ({ ...key, name }));
  let s = await open();
  const t0 = Date.now() + 1000;
  const a1 = await s.write(intent('CREATE', a, undefined, { time: t0 }));
  const b1 = await s.write(intent('CREATE', b, undefined, { time: t0 }));
  const d1 = await s.write(intent('CREATE', d, undefined, { time: t0 }));
  const a2 = await s.write(intent('UPDATE', a, obj('2'), { expectRv: a1.rv, time: t0 + 2000 }));
  await compact(s, t0 + 3500); // the first pass (objects found by scanning the keys): window at a2
  assert.equal(await history(s), [`a@${a1.rv}`, `a@${a2.rv}`, `b@${b1.rv}`, `d@${d1.rv}`], 'a1 is what a read at the window start before a2 sees');
  // Written since the first pass: only these are visited, with the same outcome as a full pass.
  const b2 = await s.write(intent('UPDATE', b, obj('2'), { expectRv: b1.rv, time: t0 + 5000 }));
  await s.write(intent('DELETE', d, undefined, { expectRv: d1.rv, time: t0 + 5000 }));
  const a3 = await s.write(intent('UPDATE', a, obj('3'), { expectRv: a2.rv, time: t0 + 5000 }));
  await compact(s, t0 + 6500); // window at a3
  assert.equal(await history(s), [`a@${a2.rv}`, `a@${a3.rv}`, `b@${b2.rv}`], 'old versions and the old tombstone dropped');
  // Left by a process that stopped before its next pass: the restarted one finds it.
  const b3 = await s.write(intent('UPDATE', b, obj('3'), { expectRv: b2.rv, time: t0 + 8000 }));
  await s.close();
  s = await open();
  await compact(s, t0 + 9500); // window at b3
  assert.equal(await history(s), [`a@${a3.rv}`, `b@${b2.rv}`, `b@${b3.rv}`]);
  await s.close();
});

test('reads held in memory after a restart follow later writes, also a write racing the first read', async () => {
  const dir = tmp();
  const obj = (x: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: { x } });
  const data = (b: Buffer | undefined) => (b ? JSON.parse(b.toString()).data.x : undefined);
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const c = await s.write(intent('CREATE', key, obj('1')));
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  assert.is(data(await s.get(key)), '1', 'read from LevelDB, then held');
  const u = await s.write(intent('UPDATE', key, obj('2'), { expectRv: c.rv }));
  assert.is(data(await s.get(key)), '2');
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const racing = s.get(key); // not held yet: goes to LevelDB while the update below folds
  const u2 = await s.write(intent('UPDATE', key, obj('3'), { expectRv: u.rv }));
  assert.ok(['2', '3'].includes(data(await racing)));
  assert.is(data(await s.get(key)), '3', 'the first read did not leave the older version behind');
  await s.write(intent('DELETE', key, undefined, { expectRv: u2.rv }));
  assert.is(await s.get(key), undefined);
  await s.close();
});

test('a snapshot behind the log (its unsynced batches lost) is refolded at open; one ahead is refused', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  await s.write(intent('CREATE'));
  await s.close();
  const early = tmp();
  cpSync(dir, early, { recursive: true });
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const b = { ...key, name: 'b' };
  const vb = await s.write(intent('CREATE', b));
  const vu = await s.write(intent('UPDATE', key, undefined, { expectRv: 1 }));
  await s.close();
  // The snapshot of `early` with the log of `dir`: two acknowledged writes missing from it.
  const behind = tmp();
  cpSync(join(early, 'db'), join(behind, 'db'), { recursive: true });
  cpSync(join(dir, 'log'), join(behind, 'log'), { recursive: true });
  s = await Storage.openEmbedded({ dataDir: behind, historyWindowMs: 60_000 });
  assert.is(s.folded, vu.rv);
  assert.is(JSON.parse((await s.get(b))!.toString()).metadata.resourceVersion, String(vb.rv));
  assert.is(JSON.parse((await s.get(key))!.toString()).metadata.resourceVersion, String(vu.rv));
  assert.is((await s.write(intent('CREATE', { ...key, name: 'c' }))).rv, vu.rv + 1, 'the log goes on at its own end');
  await s.close();
  // The log of `early` with the snapshot of `dir`: the log lost acknowledged entries.
  const ahead = tmp();
  cpSync(join(dir, 'db'), join(ahead, 'db'), { recursive: true });
  cpSync(join(early, 'log'), join(ahead, 'log'), { recursive: true });
  try {
    await Storage.openEmbedded({ dataDir: ahead, historyWindowMs: 60_000 });
    assert.unreachable('expected a refusal');
  } catch (e) {
    assert.match((e as Error).message, /snapshot has folded up to offset 3 but the embedded log ends at 1/);
  }
});

test('an older data dir (log inside the snapshot store, key format 2) is upgraded at open', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  const v = await s.write(intent('CREATE'));
  await s.close();
  // Put the dir back into the format-2 layout: l/ entries inside db/, no log/ store.
  const db = new ClassicLevel<string, Buffer>(join(dir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  const logDb = new ClassicLevel<string, Buffer>(join(dir, 'log'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  await logDb.open();
  const entries: Array<[string, Buffer]> = [];
  for await (const e of logDb.iterator()) entries.push(e);
  await db.batch([...entries.map(([k, value]) => ({ type: 'put' as const, key: k, value })), { type: 'put', key: META_FORMAT, value: Buffer.from('2') }]);
  await db.close();
  await logDb.close();
  rmSync(join(dir, 'log'), { recursive: true });
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  assert.is(JSON.parse((await s.get(key))!.toString()).metadata.resourceVersion, String(v.rv));
  const next = await s.write(intent('CREATE', { ...key, name: 'b' }));
  assert.is(next.rv, v.rv + 1);
  const offsets: number[] = [];
  for await (const e of s.log.read(0)) offsets.push(e.offset);
  assert.equal(offsets, [0, 1, 2]);
  assert.is((await s.db.get(META_FORMAT))?.toString(), String(KEY_FORMAT));
  for await (const k of s.db.keys({ gte: 'l/', lt: 'l0' })) assert.unreachable(`log key ${k} left in the snapshot store`);
  await s.close();
});

test('a snapshot write failing after the log took the batch: 504, writes refused (503) until recovery reopens both stores and folds the log into the snapshot', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, scrubIntervalMs: 0 });
  const v = await s.write(intent('CREATE'));
  const published: number[] = [];
  s.onChange((changes) => published.push(...changes.map((c) => c.offset)));
  await s.db.close(); // the snapshot store fails every write from now on; the log store does not
  const b = { ...key, name: 'b' };
  try {
    await s.write(intent('CREATE', b));
    assert.unreachable('the write succeeded');
  } catch (e) {
    assert.is((e as StorageError).code, 'timeout', 'may have landed: it is in the log');
    assert.match((e as Error).message, /in the log but the snapshot store failed/);
  }
  assert.match(s.health.get('write')?.reason ?? '', /writing the store failed/);
  assert.not.ok(s.health.fatal, 'recovery can clear it');
  assert.is(s.entry(b), undefined, 'not applied before the snapshot has it');
  assert.equal(published, [], 'nor published');
  await s.write(intent('CREATE', { ...key, name: 'c' })).then(() => assert.unreachable('a later write was taken'), (e) => {
    assert.is((e as StorageError).code, 'unreachable');
    assert.is((e as StorageError).retryAfterSeconds, 1);
  });
  // Recovery (every second) reopens both stores and refolds the log from the snapshot's m/folded.
  const until = Date.now() + 10_000;
  while (!s.health.writable && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  assert.ok(s.health.writable, `recovered: ${s.health.problem?.reason}`);
  assert.is(s.entry(b)?.rv, v.accepted && v.rv + 1, 'folded from the log by the recovery');
  assert.equal(published, [v.accepted && v.rv + 1], 'watchers get the change once it is applied, once');
  assert.is(JSON.parse((await s.get(b))!.toString()).metadata.resourceVersion, String(v.accepted && v.rv + 1));
  assert.is(await s.get({ ...key, name: 'c' }), undefined, 'the refused write is nowhere');
  const d = await s.write(intent('CREATE', { ...key, name: 'd' }));
  assert.is(d.accepted && d.rv, v.accepted && v.rv + 2, 'offsets continue after the log end');
  await s.close();
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, scrubIntervalMs: 0 });
  assert.ok(await s.get(b));
  assert.ok(await s.get({ ...key, name: 'd' }));
  assert.is(await s.get({ ...key, name: 'c' }), undefined);
  await s.close();
});

test('a half-written table a crash left behind (not live: LevelDB deletes it at open) is not damage; a live damaged one is', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, scrubIntervalMs: 0 });
  await Promise.all(Array.from({ length: 300 }, (_, i) => s.write(intent('CREATE', { ...key, name: `cm-${i}` }))));
  await s.close();
  const stray = join(dir, 'db', '009999.ldb');
  writeFileSync(stray, Buffer.alloc(5000, 7)); // a compaction's output, cut off by kill -9
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, scrubIntervalMs: 0 });
  assert.not.ok(existsSync(stray), 'LevelDB deleted the leftover');
  assert.ok(await s.get({ ...key, name: 'cm-7' }));
  await s.close();
  const live = readdirSync(join(dir, 'log')).filter((n) => n.endsWith('.ldb')).map((n) => join(dir, 'log', n))[0];
  truncateSync(live, 100);
  try {
    await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, scrubIntervalMs: 0 });
    assert.unreachable('a damaged log store opened');
  } catch (e) {
    assert.ok((e as Error).message.includes(`the log store is damaged: ${live}`), (e as Error).message);
    assert.match((e as Error).message, /restore the data dir from a backup/);
  }
});

test('the scrub finds a zeroed block no read ran into; reads are refused from then on', async () => {
  const dir = tmp();
  let s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false, scrubIntervalMs: 0 });
  await Promise.all(Array.from({ length: 1500 }, (_, i) => s.write(intent('CREATE', { ...key, name: `cm-${i}` }, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: `cm-${i}` }, data: { v: `${i}`.repeat(200) } }))));
  await s.close();
  // The reopen writes LevelDB's write-ahead log into a table, which the scrub then reads.
  s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false, scrubIntervalMs: 100 });
  try {
    const tables = readdirSync(join(dir, 'db')).filter((n) => n.endsWith('.ldb')).map((n) => join(dir, 'db', n));
    const table = tables.sort((a, b) => statSync(b).size - statSync(a).size)[0];
    const fd = openSync(table, 'r+');
    writeSync(fd, Buffer.alloc(8192), 0, 8192, Math.floor(statSync(table).size / 2));
    closeSync(fd);
    const past = new Date(Date.now() - 60_000);
    utimesSync(table, past, past); // bit rot does not touch mtime; the scrub skips tables written just now
    const until = Date.now() + 10_000;
    while (!s.health.get('corrupt') && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(s.health.get('corrupt')?.reason.includes(table), `the scrub names ${table}: ${s.health.get('corrupt')?.reason}`);
    assert.match(s.health.get('corrupt')!.reason, /replay -- repair --data-dir/);
    await s.get({ ...key, name: 'cm-1' }).then(() => assert.unreachable('a read of a damaged store'), (e) => assert.match(e.message, /not reading a damaged store/));
    await s.probe().then(() => assert.unreachable('the health probe passes'), (e) => assert.match(e.message, /store is damaged/));
  } finally {
    await s.close();
  }
});

// ---------------------------------------------------------------- collection reads, system writes

const cm = (namespace: string, name: string): ObjectKey => ({ group: '', resource: 'configmaps', namespace, name });
const body = (k: ObjectKey, x: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: k.name, namespace: k.namespace }, data: { x } });
const sizes = { first: 2, then: 2, ahead: false };

/** Names and data.x of every object of `read` after `after`. */
async function contents(read: CollectionRead, after?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of read.objects(after, sizes)) {
    for (const [, v] of batch) {
      const o = JSON.parse(v.toString());
      out.push(`${o.metadata.namespace}/${o.metadata.name}=${o.data.x}`);
    }
  }
  return out;
}

test('a collection read: latest or at a version, continue positions relative to the collection, counts', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000, scrubIntervalMs: 0 });
  // System writes fill the rest of the intent: the created objects are readable as written.
  for (const [ns, name] of [['a', 'x'], ['a', 'x-1'], ['b', 'y']]) {
    const v = await s.writeSystem({ op: 'CREATE', key: cm(ns, name), object: body(cm(ns, name), '1'), verb: 'create' });
    assert.ok(v.accepted);
  }
  const before = s.folded;
  const u = await s.writeSystem({ op: 'UPDATE', key: cm('a', 'x'), object: body(cm('a', 'x'), '2'), expectRv: 1, verb: 'update' });
  assert.ok(u.accepted);
  const stale = await s.writeSystem({ op: 'DELETE', key: cm('b', 'y'), object: body(cm('b', 'y'), '1'), expectRv: 1, verb: 'delete' });
  assert.is(!stale.accepted && stale.reason, 'Conflict', 'the precondition is kept');

  const all = { group: '', resource: 'configmaps' };
  const latest = await s.collection(all, undefined, true);
  assert.is(latest.rv, s.folded);
  assert.is(latest.liveCount, 3);
  assert.equal(await contents(latest), ['a/x=2', 'a/x-1=1', 'b/y=1']);
  assert.is(latest.position('core/configmaps/a/x'), 'a/x', 'positions are relative to the collection');
  assert.equal(await contents(latest, 'a/x'), ['a/x-1=1', 'b/y=1']);
  assert.is(await latest.countAfter('core/configmaps/a/x'), 2);
  await latest.close();
  await latest.close(); // idempotent

  const at = await s.collection(all, before);
  assert.is(at.rv, before);
  assert.is(at.liveCount, undefined);
  assert.equal(await contents(at), ['a/x=1', 'a/x-1=1', 'b/y=1'], 'history at the version before the update');
  assert.equal(await contents(at, 'a/x'), ['a/x-1=1', 'b/y=1'], 'a position from a latest read resumes a read at a version');
  assert.is(await at.countAfter('core/configmaps/a/x-1'), 1);
  await at.close();

  const one = await s.collection({ ...all, namespace: 'a' });
  assert.equal(await contents(one), ['a/x=2', 'a/x-1=1']);
  assert.is(one.position('core/configmaps/a/x'), 'x');
  await one.close();
  await s.close();
});

test('a collection read below the compaction point is refused as expired', async () => {
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000, scrubIntervalMs: 0 });
  await s.writeSystem({ op: 'CREATE', key: cm('a', 'x'), object: body(cm('a', 'x'), '1'), verb: 'create' });
  // As if the compactor had removed history below offset 2 (its floor is published first).
  (s as unknown as { compactor: { compacted: number } }).compactor.compacted = 2;
  try {
    await s.collection({ group: '', resource: 'configmaps' }, 1);
    assert.unreachable('expected a StorageError');
  } catch (e) {
    assert.instance(e, StorageError);
    assert.is((e as StorageError).code, 'expired');
  }
  await s.close();
});

test.run();
