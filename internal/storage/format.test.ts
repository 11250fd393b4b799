import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { ensureKeyFormat, upgradedKey, KEY_FORMAT } from './format.ts';
import { META_FORMAT, logKey, currentKeyOf, historyKeyOf, pathOfHistoryKey, pathOfCurrentKey, rvOfHistoryKey } from './keys.ts';

const dirs: string[] = [];
async function db(): Promise<ClassicLevel<string, Buffer>> {
  const d = mkdtempSync(join(tmpdir(), 'format-test-'));
  dirs.push(d);
  const out = new ClassicLevel<string, Buffer>(join(d, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await out.open();
  return out;
}
const dump = async (d: ClassicLevel<string, Buffer>): Promise<Array<[string, string]>> => {
  const out: Array<[string, string]> = [];
  for await (const [k, v] of d.iterator()) out.push([k, v.toString()]);
  return out;
};

test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('upgradedKey: format-1 o/ and h/ keys only', () => {
  assert.is(upgradedKey('o/core/configmaps/ns/a/'), currentKeyOf('core/configmaps/ns/a'));
  assert.is(upgradedKey('h/core/configmaps/ns/a/000000000000000a'), historyKeyOf('core/configmaps/ns/a', 10));
  assert.is(upgradedKey('o/core/namespaces//x/'), 'o/core/namespaces//x');
  assert.is(upgradedKey(currentKeyOf('core/configmaps/ns/a')), null);
  assert.is(upgradedKey(historyKeyOf('core/configmaps/ns/a', 10)), null);
  assert.is(upgradedKey('i/core/configmaps/ns/a'), null);
  assert.is(upgradedKey('h/rbac/clusterroles//a\u0000b/000000000000000a'), historyKeyOf('rbac/clusterroles//a\u0000b', 10));
  assert.is(upgradedKey('m/folded'), null);
});

test('h/ keys walk objects in the o/ order (byte order of paths), NUL in names included', async () => {
  const d = await db();
  const paths = ['app0', 'app-x', 'app', 'app\u0000', 'app\u0000x', 'app\u0001', 'app.y', 'app\u0000\u007f'].map((n) => `rbac/clusterroles//${n}`);
  const ops = paths.flatMap((p) => [
    { type: 'put' as const, key: currentKeyOf(p), value: Buffer.alloc(0) },
    ...[1, 15, 255].map((rv) => ({ type: 'put' as const, key: historyKeyOf(p, rv), value: Buffer.alloc(0) })),
  ]);
  await d.batch(ops);
  const current: string[] = [];
  for await (const k of d.keys({ gte: 'o/', lt: 'o0' })) current.push(pathOfCurrentKey(k));
  const history: Array<[string, number]> = [];
  for await (const k of d.keys({ gte: 'h/', lt: 'h0' })) history.push([pathOfHistoryKey(k), rvOfHistoryKey(k)]);
  const byteOrder = [...paths].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  assert.equal(current, byteOrder);
  assert.equal(history, byteOrder.flatMap((p) => [1, 15, 255].map((rv): [string, number] => [p, rv])));
  await d.close();
});

test('an interrupted upgrade (a mix of both formats) completes; a second run changes nothing', async () => {
  const d = await db();
  await d.batch([
    { type: 'put', key: 'o/core/configmaps/ns/app-x/', value: Buffer.from('x') },
    { type: 'put', key: currentKeyOf('core/configmaps/ns/app'), value: Buffer.from('a') }, // already upgraded
    { type: 'put', key: 'h/core/configmaps/ns/app-x/0000000000000003', value: Buffer.from('x3') },
    { type: 'put', key: historyKeyOf('core/configmaps/ns/app', 2), value: Buffer.from('a2') },
    { type: 'put', key: 'h/core/configmaps/ns/app/0000000000000005', value: Buffer.from('') },
    { type: 'put', key: 'i/core/configmaps/ns/app', value: Buffer.from('2 u 0') },
    { type: 'put', key: 'm/folded', value: Buffer.from('0000000000000005') },
  ]);
  const r = await ensureKeyFormat(d, undefined, 1);
  assert.equal(r, { from: 1, rewritten: 3, moved: 0 });
  const want: Array<[string, string]> = [
    ['h/core/configmaps/ns/app\u00000000000000000002', 'a2'],
    ['h/core/configmaps/ns/app\u00000000000000000005', ''],
    ['h/core/configmaps/ns/app-x\u00000000000000000003', 'x3'],
    ['i/core/configmaps/ns/app', '2 u 0'],
    ['m/folded', '0000000000000005'],
    [META_FORMAT, String(KEY_FORMAT)],
    ['o/core/configmaps/ns/app', 'a'],
    ['o/core/configmaps/ns/app-x', 'x'],
  ];
  assert.equal(await dump(d), want);
  assert.equal(await ensureKeyFormat(d), { from: KEY_FORMAT, rewritten: 0, moved: 0 });
  assert.equal(await dump(d), want);
  await d.close();
});

test('a new store gets the marker; a newer format is refused', async () => {
  const d = await db();
  assert.equal(await ensureKeyFormat(d), { from: 1, rewritten: 0, moved: 0 });
  assert.is((await d.get(META_FORMAT))?.toString(), String(KEY_FORMAT));
  await d.put(META_FORMAT, Buffer.from(String(KEY_FORMAT + 1)));
  try {
    await ensureKeyFormat(d);
    assert.unreachable('expected a refusal');
  } catch (e) {
    assert.match((e as Error).message, new RegExp(`key format ${KEY_FORMAT + 1}`));
  }
  await d.close();
});

/** A format-2 store: state keys plus the embedded log (l/) in the same LevelDB. */
const logEntries = [0, 1, 2, 3, 4].map((o): [string, string] => [logKey(o), `event ${o}`]);
const stateEntries: Array<[string, string]> = [
  [currentKeyOf('core/configmaps/ns/a'), 'a'],
  [historyKeyOf('core/configmaps/ns/a', 4), 'a'],
  ['i/core/configmaps/ns/a', '4 u 0'],
  ['m/folded', '0000000000000004'],
];

test('format 2 -> 3: the log moves into its own store; a kill -9 after any step loses nothing', async () => {
  const batch = 2;
  // The upgrade's steps in order (format.ts): the marker, then per batch a synced copy into the
  // log store and a delete from the snapshot store.
  type Step = { marker: true } | { copy: number } | { del: number };
  const steps: Step[] = [{ marker: true }];
  for (let i = 0; i < logEntries.length; i += batch) steps.push({ copy: i }, { del: i });
  const wantDb = [...stateEntries, [META_FORMAT, String(KEY_FORMAT)] as [string, string]].sort((x, y) => (x[0] < y[0] ? -1 : 1));
  for (let done = 0; done <= steps.length; done++) {
    const d = await db();
    const logDb = await db();
    await d.batch([...stateEntries, ...logEntries, [META_FORMAT, '2']].map(([key, v]) => ({ type: 'put' as const, key, value: Buffer.from(v) })));
    // The state a kill -9 after `done` steps leaves (each step is one atomic LevelDB write).
    for (const s of steps.slice(0, done)) {
      if ('marker' in s) await d.put(META_FORMAT, Buffer.from(String(KEY_FORMAT)));
      else if ('copy' in s) await logDb.batch(logEntries.slice(s.copy, s.copy + batch).map(([key, v]) => ({ type: 'put' as const, key, value: Buffer.from(v) })));
      else await d.batch(logEntries.slice(s.del, s.del + batch).map(([key]) => ({ type: 'del' as const, key })));
    }
    const r = await ensureKeyFormat(d, logDb, batch);
    assert.is(r.from, done === 0 ? 2 : KEY_FORMAT, `after ${done} steps: format found`);
    assert.equal(await dump(d), wantDb, `after ${done} steps: snapshot store`);
    assert.equal(await dump(logDb), logEntries, `after ${done} steps: log store`);
    assert.equal(await ensureKeyFormat(d, logDb, batch), { from: KEY_FORMAT, rewritten: 0, moved: 0 }, 'a second run changes nothing');
    await d.close();
    await logDb.close();
  }
});

test('a store with log entries and no log store to move them to is refused', async () => {
  const d = await db();
  await d.batch(logEntries.map(([key, v]) => ({ type: 'put' as const, key, value: Buffer.from(v) })));
  try {
    await ensureKeyFormat(d);
    assert.unreachable('expected a refusal');
  } catch (e) {
    assert.match((e as Error).message, /holds embedded log entries/);
  }
  await d.close();
});

test.run();
