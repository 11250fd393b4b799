import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeEvent, decodeFoldEvent, encodeEvent, genesisEvent, FOLD_FIELDS, type LogEvent } from './event.ts';
import { stampResourceVersion } from '../mvcc/fold.ts';

const base: LogEvent = {
  op: 'CREATE', id: 'w1-7', group: '', resource: 'configmaps', namespace: 'default', name: 'cm-1', expectRv: null, expectUid: null,
  requireActiveNamespace: true, uid: '6f1c2a9e-0000-4000-8000-000000000001', deleting: false,
  object: Buffer.from('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-1","resourceVersion":""}}'),
  time: 1_764_000_000_123, verb: 'create', user: 'admin', groups: ['system:masters', 'system:authenticated'], fieldManager: 'kubectl',
  userAgent: 'kubectl/v1.32.0', requestId: 'r-1',
};

/** Events covering every branch of the fold's fields: unions both ways, multi-byte varints, UTF-8, big and negative longs. */
const cases: LogEvent[] = [
  base,
  genesisEvent(0),
  genesisEvent(1_764_000_000_000),
  { ...base, op: 'UPDATE', expectRv: 1, expectUid: base.uid, requireActiveNamespace: false },
  { ...base, op: 'DELETE', expectRv: 2 ** 40 + 3, deleting: true, time: 2 ** 52 },
  { ...base, op: 'UPDATE', expectRv: 0, expectUid: '', object: Buffer.alloc(0) },
  { ...base, op: 'DELETE', expectRv: 63, object: null, fieldManager: null, userAgent: null, requestId: null, groups: [] },
  { ...base, expectRv: 64, time: -1 },
  { ...base, expectRv: 8191, time: -(2 ** 45) },
  { ...base, group: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'system:ünïcødé-名前\u0000nul', id: 'x'.repeat(300) },
  { ...base, object: Buffer.alloc(70_000, 0x61) },
  { ...base, object: Buffer.from('k8s:enc:aescbc:v1:key1:\u0000\u00ff binary', 'latin1') },
];

test('decodeFoldEvent gives decodeEvent\'s fold fields for every kind of event', () => {
  for (const [i, e] of cases.entries()) {
    const bytes = encodeEvent(e);
    const full = decodeEvent(bytes);
    const fold = decodeFoldEvent(bytes);
    assert.equal(Object.keys(fold).sort(), [...FOLD_FIELDS].sort(), `case ${i}: exactly the fold fields`);
    for (const f of FOLD_FIELDS) {
      const want = full[f];
      const got = fold[f];
      if (Buffer.isBuffer(want)) assert.ok(Buffer.isBuffer(got) && want.equals(got), `case ${i}: ${f}`);
      else assert.equal(got, want, `case ${i}: ${f}`);
    }
  }
});

test('decodeFoldEvent: the object is a view of the input (copied only when stamped)', () => {
  const bytes = encodeEvent(base);
  const fold = decodeFoldEvent(bytes);
  assert.is(fold.object!.buffer, bytes.buffer);
  const stamped = stampResourceVersion(fold.object!, 42)!;
  assert.is(stamped.toString(), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-1","resourceVersion":"42"}}');
  stamped.fill(0);
  assert.ok(decodeEvent(bytes).object!.equals(base.object!), 'the stamped copy shares no bytes with the event');
});

test('decodeFoldEvent rejects truncated and malformed input instead of inventing fields', () => {
  const bytes = encodeEvent(base);
  // Every cut inside the fold's fields fails: they end where `verb` starts (length 6, zig-zag 12).
  const foldEnd = bytes.lastIndexOf(Buffer.from('\x0ccreate', 'latin1'));
  assert.ok(foldEnd > base.object!.length);
  for (let cut = 0; cut < foldEnd; cut++) {
    assert.throws(() => decodeFoldEvent(bytes.subarray(0, cut)), /truncated|malformed/, `cut at ${cut}`);
  }
  const badOp = Buffer.from(bytes);
  badOp[0] = 2 * 9; // op index 9
  assert.throws(() => decodeFoldEvent(badOp), /unknown op/);
});

test.run();
