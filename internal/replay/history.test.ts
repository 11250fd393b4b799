import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { objectHistory, diffVersions, formatHistory, describeRejection } from './history.ts';
import { intent, cmKey, nsKey, positioned, iterate } from './testing.ts';

const k = cmKey('a', 'web');
const other = cmKey('a', 'other');

/** Offsets: 1 ns, 2 create, 3 update ok, 4 stale update, 5 other object, 6 delete, 7 update of deleted, 8 recreate, 9 duplicate create. */
const log = positioned([
  intent('CREATE', nsKey('a')),
  intent('CREATE', k, { data: { v: '1' }, user: 'alice', fieldManager: 'kubectl', userAgent: 'kubectl/1.30', time: 1_700_000_001_000 }),
  intent('UPDATE', k, { expectRv: 2, data: { v: '2' }, user: 'bob', fieldManager: 'ctl' }),
  intent('UPDATE', k, { expectRv: 2, data: { v: 'stale' }, user: 'carol' }),
  intent('CREATE', other, { data: { v: 'x' } }),
  intent('DELETE', k, { expectRv: 3, data: { v: '2' }, verb: 'delete' }),
  intent('UPDATE', k, { expectRv: 3, data: { v: '3' } }),
  intent('CREATE', k, { uid: 'uid-2', data: { w: '1' } }),
  intent('CREATE', k, { uid: 'uid-3', data: { w: 'dup' } }),
]);

test('history lists every event on the key with its verdict, in order', async () => {
  const h = await objectHistory(iterate(log), k);
  assert.is(h.eventsScanned, log.length);
  assert.is(h.lastOffset, 9);
  const rows = h.entries.map((e) => [e.offset, e.op, e.accepted ? 'ok' : e.reason]);
  assert.equal(rows, [
    [2, 'CREATE', 'ok'], [3, 'UPDATE', 'ok'], [4, 'UPDATE', 'Conflict'], [6, 'DELETE', 'ok'], [7, 'UPDATE', 'NotFound'],
    [8, 'CREATE', 'ok'], [9, 'CREATE', 'AlreadyExists'],
  ]);
  const first = h.entries[0];
  assert.is(first.user, 'alice');
  assert.is(first.fieldManager, 'kubectl');
  assert.is(first.userAgent, 'kubectl/1.30');
  assert.is(first.time, 1_700_000_001_000);
  assert.is(h.entries[1].user, 'bob');
  assert.is(h.entries[2].currentRv, 3, 'the Conflict saw the object at rv 3');
  assert.is(h.entries[2].expectRv, 2);
});

test('diffs: create from nothing, update from the previous accepted version, rejection = what it would change', async () => {
  const h = await objectHistory(iterate(log), k);
  const byOffset = new Map(h.entries.map((e) => [e.offset, e.diff]));
  const create = byOffset.get(2)!;
  assert.ok(create.some((op) => op.op === 'add' && op.path === '/data'), 'create adds its content');
  assert.not.ok(JSON.stringify(create).includes('resourceVersion'), 'resourceVersion is not diffed');
  assert.equal(byOffset.get(3), [{ op: 'replace', path: '/data/v', value: '2' }]);
  assert.equal(byOffset.get(4), [{ op: 'replace', path: '/data/v', value: 'stale' }], 'against v2, the last accepted');
  assert.equal(byOffset.get(6), [], 'the delete carried the last state');
  assert.ok(byOffset.get(8)!.some((op) => op.op === 'add' && op.path === '/data'), 'a recreate diffs from nothing');
  const dup = [...byOffset.get(9)!].sort((a, b) => (a.path < b.path ? -1 : 1));
  assert.equal(dup, [
    { op: 'replace', path: '/data/w', value: 'dup' },
    { op: 'replace', path: '/metadata/uid', value: 'uid-3' },
  ], 'a duplicate create diffs against the live object');
});

test('diffVersions ignores resourceVersion only', () => {
  const a = { metadata: { name: 'x', resourceVersion: '5' }, data: { a: '1' } };
  const b = { metadata: { name: 'x', resourceVersion: '9' }, data: { a: '1' } };
  assert.equal(diffVersions(a, b), []);
  assert.equal(diffVersions(a, { ...b, data: {} }), [{ op: 'remove', path: '/data/a' }]);
  assert.equal(diffVersions(a, null), []);
});

test('text form names the verdicts and the people', async () => {
  const text = formatHistory(await objectHistory(iterate(log), k));
  assert.match(text, /history of configmaps a\/web: 7 event\(s\) in offsets 0\.\.9/);
  assert.match(text, /@4 .* UPDATE \(verb update\)  REJECTED Conflict: written against resourceVersion 2, the object was at 3/);
  assert.match(text, /user=alice .*fieldManager=kubectl  userAgent=kubectl\/1\.30/);
  assert.match(text, /\{"op":"replace","path":"\/data\/v","value":"2"\}/);
  const entry = (await objectHistory(iterate(log), k)).entries[6];
  assert.match(describeRejection(entry), /^AlreadyExists: .*resourceVersion 8/);
});

test.run();
