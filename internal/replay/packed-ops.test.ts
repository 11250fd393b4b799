import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { packOps, unpackOps } from './packed-ops.ts';
import type { BatchOp } from '../storage/mvcc/materializer.ts';

const roundTrip = (ops: BatchOp[]): BatchOp[] => {
  const out: BatchOp[] = [];
  const packed = packOps(ops);
  const n = unpackOps(packed, (key, value) => out.push({ type: 'put', key, value: Buffer.from(value) }), (key) => out.push({ type: 'del', key }));
  assert.is(n, ops.length);
  return out;
};

test('operations come back in order, with their keys and values (UTF-8 keys, empty values, shared values)', () => {
  const shared = Buffer.from('{"kind":"ConfigMap"}');
  const ops: BatchOp[] = [
    { type: 'put', key: 'l/0000000000000000', value: Buffer.from('event') },
    { type: 'put', key: 'h/default/cm\u0000a', value: shared },
    { type: 'put', key: 'o/default/cm', value: shared },
    { type: 'del', key: 'i/ünïcødé/名前' },
    { type: 'put', key: 'o/ünïcødé/名前', value: Buffer.alloc(0) },
    { type: 'put', key: 'm/folded', value: Buffer.from('0000000000000003') },
  ];
  const back = roundTrip(ops);
  assert.equal(back.map((o) => o.key), ops.map((o) => o.key));
  assert.equal(back.map((o) => o.type), ops.map((o) => o.type));
  back.forEach((o, i) => {
    const want = ops[i];
    if (o.type === 'put' && want.type === 'put') assert.ok(o.value.equals(want.value), o.key);
  });
});

test('an empty batch packs and unpacks', () => {
  assert.equal(roundTrip([]), []);
});

test('a corrupt buffer is refused, not half-applied silently', () => {
  const packed = packOps([{ type: 'put', key: 'a', value: Buffer.from('x') }]);
  new Uint8Array(packed.buffer)[4] = 9;
  assert.throws(() => unpackOps(packed, () => undefined, () => undefined), /bad kind 9/);
  const trailing = packOps([{ type: 'del', key: 'a' }]);
  assert.throws(() => unpackOps({ buffer: trailing.buffer, length: trailing.length + 1 }, () => undefined, () => undefined), /trailing|bad kind/);
});

test.run();
