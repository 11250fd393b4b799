import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { own, concatOwn } from './own-buffer.ts';
import { stampResourceVersion } from './mvcc/fold.ts';
import { stampEncrypted } from './encryption/stamp.ts';

/** The buffer is the whole of its ArrayBuffer: holding it holds nothing else. */
const owns = (b: Buffer): boolean => b.byteOffset === 0 && b.buffer.byteLength === b.length;

test('own: a slice of a pooled slab is copied, a buffer with memory of its own is kept', () => {
  const pooled = Buffer.from('{"kind":"ConfigMap"}'); // small Buffer.from: a slice of the pool
  assert.not.ok(owns(pooled), 'precondition: Buffer.from of a short string is pooled');
  const copy = own(pooled);
  assert.ok(owns(copy));
  assert.is(copy.toString(), pooled.toString());
  const mine = Buffer.alloc(16, 7);
  assert.ok(own(mine) === mine);
});

test('concatOwn: the bytes of Buffer.concat, in memory of their own', () => {
  const parts = [Buffer.from('{"a":'), Buffer.alloc(0), Buffer.from('1}')];
  const out = concatOwn(parts);
  assert.ok(owns(out));
  assert.ok(out.equals(Buffer.concat(parts)));
  assert.is(concatOwn([]).length, 0);
});

test('the fold stamps stored objects into memory of their own (the watch ring and cache keep them)', () => {
  const withPlaceholder = Buffer.from('{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":""},"data":{"v":"x"}}');
  const stamped = stampResourceVersion(withPlaceholder, 42)!;
  assert.is(stamped.toString(), '{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"42"},"data":{"v":"x"}}');
  assert.ok(owns(stamped));
  const older = Buffer.from('{"kind":"ConfigMap","metadata":{"name":"a"}}'); // an event from before the placeholder
  const inserted = stampResourceVersion(older, 7)!;
  assert.is(inserted.toString(), '{"kind":"ConfigMap","metadata":{"resourceVersion":"7","name":"a"}}');
  assert.ok(owns(inserted));
  const encrypted = stampEncrypted(Buffer.from('k8s:enc:aescbc:v1:key:xyz'), 9);
  assert.is(encrypted.toString(), 'k8s:rv:9:k8s:enc:aescbc:v1:key:xyz');
  assert.ok(owns(encrypted));
});

test.run();
