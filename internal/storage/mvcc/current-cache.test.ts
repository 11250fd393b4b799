import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CurrentCache } from './current-cache.ts';
import type { Change } from './materializer.ts';
import { objectPath } from '../keys.ts';

const key = (name: string) => ({ group: '', resource: 'configmaps', namespace: 'default', name });
/** A value with its own memory (not a slice of a pooled slab), so its size is what it counts. */
const value = (n: number, fill = 1): Buffer => Buffer.alloc(n, fill);
const change = (name: string, type: Change['type'], object: Buffer, offset = 1): Change => ({ offset, type, key: key(name), object, time: 0 });

test('holds the latest committed version, forgets a deleted object', () => {
  const c = new CurrentCache(1 << 20);
  c.apply([change('a', 'ADDED', value(100, 1), 1), change('b', 'ADDED', value(100, 2), 2)]);
  c.apply([change('a', 'MODIFIED', value(100, 3), 3)]);
  assert.is(c.get(key('a'))![0], 3);
  assert.is(c.get(key('b'))![0], 2);
  c.apply([change('b', 'DELETED', value(100, 2), 4)]);
  assert.is(c.get(key('b')), undefined);
  assert.is(c.size, 1);
});

test('stays within its byte budget, least recently used first out', () => {
  const c = new CurrentCache(64 * 1024);
  for (let i = 0; i < 10; i++) c.apply([change(`o${i}`, 'ADDED', value(8 * 1024), i)]);
  assert.is(c.size, 8);
  assert.is(c.get(key('o0')), undefined);
  assert.ok(c.get(key('o2'))); // o2 is now the most recently used
  c.apply([change('o10', 'ADDED', value(8 * 1024), 10)]);
  assert.ok(c.get(key('o2')));
  assert.is(c.get(key('o3')), undefined);
});

test('a value sliced from a shared slab is held in memory of its own; values too big are not held', () => {
  const c = new CurrentCache(64 * 1024);
  const pooled = Buffer.concat([Buffer.from('{"a":'), Buffer.from('1}')]); // a slice of Buffer's pool
  assert.ok(pooled.buffer.byteLength > pooled.length);
  c.apply([change('p', 'ADDED', pooled, 1)]);
  const held = c.get(key('p'))!;
  assert.is(held.toString(), '{"a":1}');
  assert.is(held.buffer.byteLength, held.length, 'no slab kept alive');
  const big = new CurrentCache(64 * 1024);
  big.apply([change('huge', 'ADDED', value(9 * 1024), 1)]);
  assert.is(big.get(key('huge')), undefined);
});


test('follow (a serving thread): replaces or drops only what is held, copies nothing else in', () => {
  const c = new CurrentCache(1 << 20);
  c.add(objectPath(key('held')), value(100, 1));
  c.add(objectPath(key('gone')), value(100, 2));
  const record = new SharedArrayBuffer(300); // the commit record the objects are views of
  const view = (at: number, fill: number): Buffer => Buffer.from(record, at, 100).fill(fill);
  c.follow([
    change('new', 'ADDED', view(0, 3), 5),
    change('held', 'MODIFIED', view(100, 4), 6),
    change('gone', 'DELETED', view(200, 5), 7),
  ]);
  assert.is(c.get(key('new')), undefined, 'a created object is not copied into the thread');
  const held = c.get(key('held'))!;
  assert.is(held[0], 4, 'a held object is its latest committed version');
  assert.ok(!(held.buffer instanceof SharedArrayBuffer), 'copied out of the commit record');
  assert.is(c.get(key('gone')), undefined);
  assert.is(c.size, 1);
});

test.run();
