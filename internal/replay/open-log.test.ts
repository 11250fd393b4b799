import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Storage } from '../storage/storage.ts';
import { parseReplaySource, formatReplaySource, openReadableLog, openDataDirDb } from './open-log.ts';
import { encodeEvent } from '../storage/log/event.ts';
import { intent, nsKey, tempDirs } from './testing.ts';

const dirs = tempDirs('replay-openlog-');
test.after(() => dirs.cleanup());

test('parseReplaySource: embedded:DIR and kafka URIs; bare "embedded" and junk are errors', () => {
  const ok: [string, unknown][] = [
    ['embedded:/var/lib/x', { kind: 'embedded', dataDir: '/var/lib/x' }],
    ['embedded:rel/dir', { kind: 'embedded', dataDir: 'rel/dir' }],
    ['kafka://k1:9092,k2:9093/log', { kind: 'kafka', brokers: ['k1:9092', 'k2:9093'], topic: 'log' }],
  ];
  ok.forEach(([text, want], i) => {
    assert.equal(parseReplaySource(text), want, `case ${i}`);
    assert.is(formatReplaySource(parseReplaySource(text)), text, `case ${i} round trip`);
  });
  const bad: [string, RegExp][] = [
    ['embedded', /needs embedded:DATA_DIR|offline tool/],
    ['embedded:', /needs a data directory/],
    ['kafka://nohost/topic', /bad broker/],
    ['file:///x', /expected/],
  ];
  bad.forEach(([text, want], i) => assert.throws(() => parseReplaySource(text), want, `bad case ${i}`));
});

test('the embedded reader yields the stored events with their bytes, from any offset', async () => {
  const dataDir = dirs.make();
  const s = await Storage.openEmbedded({ dataDir, historyWindowMs: 60_000, sync: false });
  for (const n of ['a', 'b', 'c']) await s.write(intent('CREATE', nsKey(n)));
  await s.close();
  const log = await openReadableLog({ kind: 'embedded', dataDir });
  assert.is(await log.firstOffset(), 0);
  assert.is(await log.endOffset(), 4);
  const all = [];
  for await (const e of log.read(0, 4)) all.push(e);
  assert.equal(all.map((e) => e.offset), [0, 1, 2, 3]);
  assert.is(all[0].event.op, 'GENESIS');
  assert.equal(all.map((e) => e.event.name), ['', 'a', 'b', 'c']);
  assert.ok(all[2].bytes!.equals(encodeEvent(all[2].event)), 'bytes are the stored encoding');
  const tail = [];
  for await (const e of log.read(2, 3)) tail.push(e.offset);
  assert.equal(tail, [2]);
  await log.close();
  await log.close(); // idempotent
});

test('opening: missing dir, existing output, and a dir in use give clear errors', async () => {
  const empty = dirs.make();
  try {
    await openReadableLog({ kind: 'embedded', dataDir: `${empty}/nope` });
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /cannot open .*nope\/db: .*no store there/);
  }
  const used = dirs.make();
  const db = await openDataDirDb(used, { create: true });
  for (const create of [true, false]) {
    try {
      await openDataDirDb(used, { create });
      assert.unreachable();
    } catch (e) {
      assert.match((e as Error).message, create ? /must not exist yet|stop it first/ : /stop it first/, `create=${create}`);
    }
  }
  await db.close();
  try {
    await openDataDirDb(used, { create: true });
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /the output store must not exist yet/);
  }
});

test.run();
