import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalJson, canonicalValue, stateHash, compareStates } from './state-hash.ts';
import { openDataDirDb } from './open-log.ts';
import type { Db } from '../storage/mvcc/materializer.ts';
import { tempDirs } from './testing.ts';

const dirs = tempDirs('replay-hash-');
test.after(() => dirs.cleanup());

test('canonicalJson sorts keys at every level and keeps array order', () => {
  const cases: [unknown, string][] = [
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ z: { y: [3, { d: 1, c: 2 }], x: null } }, '{"z":{"x":null,"y":[3,{"c":2,"d":1}]}}'],
    [[2, 1], '[2,1]'],
    ['s\t"q"', '"s\\t\\"q\\""'],
    [{ u: undefined, a: 1 }, '{"a":1}'],
    [42, '42'],
  ];
  cases.forEach(([v, want], i) => assert.is(canonicalJson(v), want, `case ${i}`));
});

test('canonicalValue: equal for reordered JSON, distinct for non-JSON', () => {
  assert.is(canonicalValue(Buffer.from('{"b":1, "a":{"d":2,"c":3}}')), canonicalValue(Buffer.from('{"a":{"c":3,"d":2},"b":1}')));
  assert.match(canonicalValue(Buffer.from('{oops')), /^!not-json:/);
  assert.is.not(canonicalValue(Buffer.from('{oops')), canonicalValue(Buffer.from('{oopt')));
});

async function storeWith(entries: Record<string, string>): Promise<Db> {
  const db = await openDataDirDb(dirs.make(), { create: true });
  await db.batch(Object.entries(entries).map(([key, v]) => ({ type: 'put' as const, key, value: Buffer.from(v) })));
  return db;
}

test('stateHash covers o/ only, in canonical form, and reports m/folded', async () => {
  const a = await storeWith({ 'o/core/configmaps/ns/a': '{"x":1,"y":2}', 'h/core/configmaps/ns/a\u00000000000000000001': 'old', 'm/folded': '0000000000000007' });
  const b = await storeWith({ 'o/core/configmaps/ns/a': '{"y":2,"x":1}', 'i/core/configmaps/ns/a': '1 u 0' });
  const ha = await stateHash(a);
  const hb = await stateHash(b);
  assert.is(ha.hash, hb.hash, 'history, index and field order do not matter');
  assert.match(ha.hash, /^sha256:[0-9a-f]{64}$/);
  assert.is(ha.objects, 1);
  assert.is(ha.folded, 7);
  assert.is(hb.folded, -1);
  await a.close();
  await b.close();
});

test('compareStates lists missing, extra and changed keys', async () => {
  const expected = await storeWith({ 'o/g/r/ns/a': '{"v":1}', 'o/g/r/ns/b': '{"v":2}', 'o/g/r/ns/c': '{"v":3}' });
  const actual = await storeWith({ 'o/g/r/ns/b': '{"v":2}', 'o/g/r/ns/c': '{"v":4}', 'o/g/r/ns/d': '{"v":5}' });
  const c = await compareStates(expected, actual);
  assert.not.ok(c.equal);
  assert.is(c.differing, 3);
  assert.equal(c.differences, [
    { key: 'o/g/r/ns/a', kind: 'onlyInExpected' },
    { key: 'o/g/r/ns/c', kind: 'valueDiffers' },
    { key: 'o/g/r/ns/d', kind: 'onlyInActual' },
  ]);
  assert.is(c.expected.hash, (await stateHash(expected)).hash, 'the one-pass hash equals stateHash');
  assert.is(c.actual.hash, (await stateHash(actual)).hash);
  const capped = await compareStates(expected, actual, 1);
  assert.is(capped.differing, 3);
  assert.is(capped.differences.length, 1);
  const same = await compareStates(expected, expected);
  assert.ok(same.equal);
  assert.equal(same.differences, []);
  await expected.close();
  await actual.close();
});

test.run();
