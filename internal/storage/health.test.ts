import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StorageHealth, isStoreDamage } from './health.ts';

const levelError = (message: string, code?: string): Error => Object.assign(new Error('Could not get'), { cause: Object.assign(new Error(message), code ? { code } : {}) });

test('isStoreDamage: LevelDB corruption and IO errors, not a full disk or a closed store', () => {
  assert.ok(isStoreDamage(levelError('Corruption: corrupted compressed block contents', 'LEVEL_CORRUPTION')));
  assert.ok(isStoreDamage(new Error('IO error: /d/db/000005.ldb: Input/output error')));
  assert.not.ok(isStoreDamage(levelError('IO error: /d/db/000007.log: No space left on device')));
  assert.not.ok(isStoreDamage(levelError('Database is not open', 'LEVEL_DATABASE_NOT_OPEN')));
  assert.not.ok(isStoreDamage('Corruption: not an Error'));
});

test('StorageHealth: the first failure stays, explanations add to it, listeners hear each change', () => {
  const h = new StorageHealth();
  const heard: string[] = [];
  h.onFailure((r) => heard.push(r));
  h.check();
  h.fail('damaged');
  h.fail('a consequence');
  h.explain('table 000005.ldb');
  assert.is(h.failure, 'damaged (table 000005.ldb)');
  assert.equal(heard, ['damaged', 'damaged (table 000005.ldb)']);
  assert.throws(() => h.check(), /damaged \(table 000005\.ldb\)/);
});

test.run();
