import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readdirSync } from 'node:fs';
import { Storage } from '../storage/storage.ts';
import { verifyStore } from './verify.ts';
import { embeddedLog, openDataDirDb, openReadableLog, openLogDb } from './open-log.ts';
import { intent, cmKey, nsKey, tempDirs } from './testing.ts';

const dirs = tempDirs('replay-verify-');
test.after(() => dirs.cleanup());

async function store(): Promise<string> {
  const dataDir = dirs.make();
  const s = await Storage.openEmbedded({ dataDir, historyWindowMs: 60_000, sync: false });
  await s.write(intent('CREATE', nsKey('a')));
  for (let i = 0; i < 20; i++) await s.write(intent('CREATE', cmKey('a', `c${i}`), { data: { i: String(i) } }));
  const rv = s.materializer.entry(cmKey('a', 'c3'))!.rv;
  await s.write(intent('UPDATE', cmKey('a', 'c3'), { expectRv: rv, data: { i: 'changed' } }));
  await s.write(intent('DELETE', cmKey('a', 'c4'), { expectRv: s.materializer.entry(cmKey('a', 'c4'))!.rv }));
  await s.close();
  return dataDir;
}

/** Verify D against its own embedded log (D/log), as the CLI does. */
async function verifyOwn(dataDir: string, scratchParent: string) {
  const log = embeddedLog(await openLogDb(dataDir), dataDir, true);
  const db = await openDataDirDb(dataDir, { create: false });
  try {
    return await verifyStore(log, db, { scratchParent });
  } finally {
    await db.close();
    await log.close();
  }
}

test('an untouched store verifies against its log; the scratch dir is removed', async () => {
  const scratch = dirs.make();
  const r = await verifyOwn(await store(), scratch);
  assert.ok(r.comparison.equal);
  assert.is(r.folded, 23);
  assert.is(r.rebuild.events, 24);
  assert.is(r.comparison.actual.objects, 20, 'namespace + 20 configmaps - 1 deleted');
  assert.equal(readdirSync(scratch), []);
});

test('a changed, removed or added object is reported by key', async () => {
  const dataDir = await store();
  const db = await openDataDirDb(dataDir, { create: false });
  const k = 'o/core/configmaps/a/c1';
  const v = JSON.parse((await db.get(k))!.toString());
  v.data.i = 'tampered';
  await db.batch([
    { type: 'put', key: k, value: Buffer.from(JSON.stringify(v)) },
    { type: 'del', key: 'o/core/configmaps/a/c2' },
    { type: 'put', key: 'o/core/configmaps/a/zz', value: Buffer.from('{}') },
  ]);
  await db.close();
  const r = await verifyOwn(dataDir, dirs.make());
  assert.not.ok(r.comparison.equal);
  assert.equal(r.comparison.differences, [
    { key: k, kind: 'valueDiffers' },
    { key: 'o/core/configmaps/a/c2', kind: 'onlyInExpected' },
    { key: 'o/core/configmaps/a/zz', kind: 'onlyInActual' },
  ]);
});

test('verify checks a store against another copy of the log, and refuses a longer store', async () => {
  const dataDir = await store();
  const copy = dirs.make();
  cpSync(dataDir, copy, { recursive: true });
  const log = await openReadableLog({ kind: 'embedded', dataDir: copy });
  const db = await openDataDirDb(dataDir, { create: false });
  assert.ok((await verifyStore(log, db, { scratchParent: dirs.make() })).comparison.equal);
  await db.close();
  // A store that folded past the log's end was not built from it.
  const s = await Storage.openEmbedded({ dataDir, historyWindowMs: 60_000, sync: false });
  await s.write(intent('CREATE', cmKey('a', 'later')));
  await s.close();
  const db2 = await openDataDirDb(dataDir, { create: false });
  try {
    await verifyStore(log, db2);
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /folded up to offset 24 but the log ends at 23/);
  } finally {
    await db2.close();
    await log.close();
  }
});

test.run();
