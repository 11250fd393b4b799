import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeCommit, encodeCommit } from './commit-record.ts';
import type { Change, FollowedCommit } from './mvcc/materializer.ts';
import { KeyIndex } from './mvcc/key-index.ts';

const obj = (s: string): Buffer => Buffer.from(s);
const key = (name: string, group = '', namespace = 'default') => ({ group, resource: 'configmaps', namespace, name });

/** Changes and entries as a Materializer.commit gives them. */
function sample(): { changes: Change[]; entries: FollowedCommit['entries'] } {
  const changes: Change[] = [
    { offset: 7, type: 'ADDED', key: key('a'), object: obj('{"a":1}'), time: 1_700_000_000_123 },
    { offset: 8, type: 'MODIFIED', key: key('b', 'apps', 'ns-1'), object: obj('{"b":2}'), prev: obj('{"b":1}'), time: 1_700_000_000_124 },
    { offset: 9, type: 'DELETED', key: key('c', '', ''), object: obj('{"c":3}'), prev: obj('{"c":3,"x":0}'), time: 1_700_000_000_125 },
  ];
  const entries: FollowedCommit['entries'] = [
    ['core/configmaps/default/a', { rv: 7, uid: '0b8e5c2a-1111-2222-3333-444455556666', deleting: false }],
    ['apps/configmaps/ns-1/b', { rv: 8, uid: 'u-b', deleting: true }],
    ['core/configmaps//c', null],
  ];
  return { changes, entries };
}

test('round trip: every change field, prev only where there was one, entries as i/ text', () => {
  const { changes, entries } = sample();
  const sab = encodeCommit(changes, entries)!;
  assert.ok(sab instanceof SharedArrayBuffer);
  const out = decodeCommit(sab);
  assert.equal(
    out.changes.map((c) => ({ ...c, object: c.object.toString(), ...(c.prev ? { prev: c.prev.toString() } : {}) })),
    changes.map((c) => ({ ...c, object: c.object.toString(), ...(c.prev ? { prev: c.prev.toString() } : {}) })),
  );
  assert.not.ok('prev' in out.changes[0]!, 'an ADDED change has no prev key at all');
  assert.equal(out.entries, [
    ['core/configmaps/default/a', '7 0b8e5c2a-1111-2222-3333-444455556666 0'],
    ['apps/configmaps/ns-1/b', '8 u-b 1'],
    ['core/configmaps//c', null],
  ]);
  // The key index takes the text as it takes i/ values at load: the same entries when read.
  const index = new KeyIndex();
  for (const [path, e] of out.entries) index.restore(path, e ?? undefined);
  assert.equal(index.get('core/configmaps/default/a'), entries[0]![1]);
  assert.equal(index.get('apps/configmaps/ns-1/b'), entries[1]![1]);
  assert.not.ok(index.has('core/configmaps//c'));
});

test('objects are views of the shared record, not copies', () => {
  const { changes, entries } = sample();
  const sab = encodeCommit(changes, entries)!;
  const out = decodeCommit(sab);
  for (const c of out.changes) {
    assert.ok(c.object.buffer === sab);
    if (c.prev) assert.ok(c.prev.buffer === sab);
  }
});

test('boundaries: nothing to send, empty strings and objects, multi-byte text, large offsets and objects', () => {
  assert.is(encodeCommit([], []), null);
  assert.equal(decodeCommit(null), { changes: [], entries: [] });
  const big = Buffer.alloc(1 << 20, 0x61);
  const changes: Change[] = [
    { offset: Number.MAX_SAFE_INTEGER, type: 'ADDED', key: { group: '', resource: '', namespace: '', name: '' }, object: Buffer.alloc(0), time: 0 },
    // 3-byte UTF-8 and a surrogate pair (4 bytes for 2 code units): the size bound holds.
    { offset: 2 ** 40, type: 'MODIFIED', key: key('名前-😀', 'ex.example.com', 'ns-ü'), object: obj('{"v":"ü😀"}'), prev: big, time: 1.5 },
  ];
  const entries: FollowedCommit['entries'] = [['ex.example.com/configmaps/ns-ü/名前-😀', { rv: 2 ** 40, uid: 'ü', deleting: false }]];
  const out = decodeCommit(encodeCommit(changes, entries));
  assert.is(out.changes[0]!.offset, Number.MAX_SAFE_INTEGER);
  assert.equal(out.changes[0]!.key, { group: '', resource: '', namespace: '', name: '' });
  assert.is(out.changes[0]!.object.length, 0);
  assert.equal(out.changes[1]!.key, changes[1]!.key);
  assert.is(out.changes[1]!.object.toString(), '{"v":"ü😀"}');
  assert.ok(out.changes[1]!.prev!.equals(big));
  assert.is(out.changes[1]!.time, 1.5);
  assert.equal(out.entries, [['ex.example.com/configmaps/ns-ü/名前-😀', `${2 ** 40} ü 0`]]);
});

test('entries without changes (and changes of a commit of many) decode in order', () => {
  const only = decodeCommit(encodeCommit([], [['core/namespaces//x', null]]));
  assert.equal(only, { changes: [], entries: [['core/namespaces//x', null]] });
  const many: Change[] = Array.from({ length: 512 }, (_, i) => ({ offset: i, type: 'ADDED', key: key(`o${i}`), object: obj(`{"i":${i}}`), time: i }));
  const out = decodeCommit(encodeCommit(many, []));
  assert.equal(out.changes.map((c) => [c.offset, c.key.name, c.object.toString()]), many.map((c) => [c.offset, c.key.name, c.object.toString()]));
});

test('a damaged record is refused, not misread', () => {
  const sab = encodeCommit([{ offset: 1, type: 'ADDED', key: key('a'), object: obj('{}'), time: 0 }], [])!;
  Buffer.from(sab)[8 + 16] = 9; // the change type byte
  assert.throws(() => decodeCommit(sab), /change type 9/);
});

test.run();
