/**
 * The rule after a failed write (issue 24, PostgreSQL's fsync lesson), on a real LevelDB whose
 * batch write is made to fail: the store refuses every later write at once, says why, logs once;
 * it recovers by reopening the store and re-reading it, and resumes only if the disk holds exactly
 * what was acknowledged. A write that failed but reached the disk anyway (a failed fsync after the
 * data was handed to the kernel) makes the problem fatal: writes stay refused until a restart,
 * which then serves what is on disk.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage, type WriteIntent } from './storage.ts';
import { StorageError } from './errors.ts';
import { StoreHealth, isStoreDamage } from './store-health.ts';
import type { Db } from './mvcc/materializer.ts';

const key = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'default', name });

function intent(name: string): WriteIntent {
  return {
    op: 'CREATE', group: '', resource: 'configmaps', namespace: 'default', name, expectRv: null, expectUid: null,
    requireActiveNamespace: false, uid: `u-${name}`, deleting: false, object: Buffer.from(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name } })), time: Date.now(),
    verb: 'create', user: 'test', groups: [], fieldManager: null, userAgent: null, requestId: null,
  };
}

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'store-health-test-'));
  dirs.push(d);
  return d;
}
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function logger() {
  const lines: string[] = [];
  const at = (level: string) => (obj: object, msg: string) => void lines.push(`${level} ${msg} ${JSON.stringify(obj)}`);
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** Make the next chained batch writes fail: before writing (`before`) or after writing (`after`, a failed fsync). */
function failWrites(db: Db, when: 'before' | 'after', message: string): () => void {
  const real = db.batch.bind(db);
  (db as unknown as { batch: unknown }).batch = (...args: unknown[]) => {
    const b = (real as (...a: unknown[]) => ReturnType<Db['batch']>)(...args);
    const write = b.write.bind(b) as (opts?: object) => Promise<void>;
    (b as unknown as { write: (opts?: object) => Promise<void> }).write = async (opts) => {
      if (when === 'after') await write(opts);
      else await b.close();
      throw new Error(message);
    };
    return b;
  };
  return () => void delete (db as unknown as { batch?: unknown }).batch;
}

async function refused(p: Promise<unknown>, re: RegExp): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    assert.instance(e, StorageError);
    assert.match((e as Error).message, re);
    return e as StorageError;
  }
  throw new Error('the write was accepted');
}

const waitFor = async (what: string, fn: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('a write that failed before reaching the disk: refused until reopened, then writes resume', async () => {
  const log = logger();
  const s = await Storage.openEmbedded({ dataDir: tmp(), historyWindowMs: 60_000, logger: log });
  const a = await s.write(intent('a'));
  assert.ok(a.accepted);
  const restore = failWrites(s.logDb!, 'before', 'IO error: 000005.log: No space left on device');
  const first = await refused(s.write(intent('b')), /no space left on device \(ENOSPC\)/);
  assert.is(first.code, 'unreachable');
  assert.is(first.retryAfterSeconds, 1);
  for (const n of ['c', 'd', 'e']) await refused(s.write(intent(n)), /No space left on device/);
  assert.not.ok(s.health.writable);
  assert.is(s.entry(key('a'))?.rv, a.accepted && a.rv, 'the committed index is intact');
  assert.is(log.lines.filter((l) => l.includes('storage refuses writes')).length, 1, log.lines.join('\n'));
  restore();
  await waitFor('the store to recover', () => s.health.writable);
  const f = await s.write(intent('f'));
  assert.ok(f.accepted);
  assert.is(f.accepted && f.rv, a.accepted && a.rv + 1, 'offsets continue after the last acknowledged one');
  assert.is(await s.get(key('b')), undefined, 'nothing of the refused writes');
  assert.is(log.lines.filter((l) => l.includes('storage problem cleared')).length, 1, log.lines.join('\n'));
  await s.close();
});

test('a failed fsync whose data reached the disk anyway: fatal, writes refused until a restart', async () => {
  const dir = tmp();
  const log = logger();
  const s = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, logger: log });
  assert.ok((await s.write(intent('a'))).accepted);
  const restore = failWrites(s.logDb!, 'after', 'IO error: 000005.log: Input/output error');
  await refused(s.write(intent('b')), /Input\/output error/);
  restore();
  await waitFor('the problem to become fatal', () => s.health.fatal);
  assert.match(s.health.problem!.reason, /answered with an error/);
  const e = await refused(s.write(intent('c')), /restarted/);
  assert.is(e.retryAfterSeconds, undefined, 'no Retry-After: retrying here does not help');
  assert.ok(log.lines.some((l) => l.startsWith('error storage refuses writes until the server is restarted')), log.lines.join('\n'));
  await s.close();
  // The restart serves what is on disk, and writes again.
  const again = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000 });
  assert.ok(again.health.writable);
  assert.ok(await again.get(key('b')), 'the write of unknown outcome is there after the restart');
  assert.ok((await again.write(intent('c'))).accepted);
  await again.close();
});

const levelError = (message: string, code?: string): Error => Object.assign(new Error('Could not get'), { cause: Object.assign(new Error(message), code ? { code } : {}) });

test('isStoreDamage: LevelDB corruption and IO errors, not a full disk or a closed store', () => {
  assert.ok(isStoreDamage(levelError('Corruption: corrupted compressed block contents', 'LEVEL_CORRUPTION')));
  assert.ok(isStoreDamage(new Error('IO error: /d/db/000005.ldb: Input/output error')));
  assert.not.ok(isStoreDamage(levelError('IO error: /d/db/000007.log: No space left on device')));
  assert.not.ok(isStoreDamage(levelError('Database is not open', 'LEVEL_DATABASE_NOT_OPEN')));
  assert.not.ok(isStoreDamage('Corruption: not an Error'));
});

test('damage: fatal, reported before a write problem, the first reason stays and explanations add to it, logged per change; a 500', () => {
  const log = logger();
  const h = new StoreHealth(log);
  h.fail('write', 'writing the store failed: no space left on device (ENOSPC)');
  h.damaged('damaged');
  h.damaged('a consequence');
  h.explain('table 000005.ldb');
  assert.is(h.problem?.source, 'corrupt');
  assert.is(h.problem?.reason, 'damaged (table 000005.ldb)');
  assert.ok(h.fatal);
  h.clear('corrupt');
  assert.ok(h.get('corrupt'), 'only a repair clears damage');
  assert.is(log.lines.filter((l) => l.includes('storage is damaged')).length, 2, log.lines.join('\n'));
  const e = h.refusal();
  assert.is(e.code, 'corrupt');
  assert.is(e.retryAfterSeconds, undefined);
  assert.match(e.message, /damaged \(table 000005\.ldb\)/);
});

test.run();
