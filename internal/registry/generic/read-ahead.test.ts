import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReadAhead, readAheadKey, PAGE_BYTES } from './read-ahead.ts';
import type { ListResult } from './reader.ts';

const page = (rv: number, ...names: string[]): ListResult => ({ rv, items: names.map((n) => Buffer.from(`{"metadata":{"name":"${n}"}}`)) });
const names = (r: ListResult | null): string[] | null => r && r.items.map((b) => JSON.parse(b.toString()).metadata.name);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const retained = (from: number) => () => from;

test('the key tells apart collections, tokens, limits and selectors', () => {
  const base = readAheadKey('o/core/configmaps/ns/', 'T', { limit: 500 });
  const others = [
    readAheadKey('o/core/configmaps/other/', 'T', { limit: 500 }),
    readAheadKey('o/core/configmaps/ns/', 'U', { limit: 500 }),
    readAheadKey('o/core/configmaps/ns/', 'T', { limit: 501 }),
    readAheadKey('o/core/configmaps/ns/', 'T', { limit: 500, labelSelector: 'a=b' }),
    readAheadKey('o/core/configmaps/ns/', 'T', { limit: 500, fieldSelector: 'metadata.name=x' }),
  ];
  for (const k of others) assert.is.not(k, base);
  assert.is(readAheadKey('o/core/configmaps/ns/', 'T', { limit: 500 }), base, 'the same request, the same key');
});

test('a page is handed out once, awaited while its read is in flight', async () => {
  const ra = new ReadAhead();
  let resolve!: (r: ListResult) => void;
  ra.put('k', 10, new Promise((r) => (resolve = r)));
  assert.is(ra.size, 1);
  const taken = ra.take('k', retained(0));
  assert.is(ra.size, 0, 'taken at once: a second request reads for itself');
  resolve(page(10, 'a', 'b'));
  assert.equal(names(await taken), ['a', 'b']);
  assert.is(await ra.take('k', retained(0)), null, 'nothing left for the same key');
  assert.is(await ra.take('other', retained(0)), null, 'nothing for a key never read');
});

test('a page whose version was compacted away meanwhile is not served', async () => {
  const ra = new ReadAhead();
  ra.put('k', 10, Promise.resolve(page(10, 'a')));
  assert.is(await ra.take('k', retained(11)), null, 'rv 10 below the retained floor 11');
  ra.put('k', 10, Promise.resolve(page(10, 'a')));
  assert.equal(names(await ra.take('k', retained(10))), ['a'], 'rv 10 at the floor: still retained');
});

test('a failed read is dropped, not thrown (the request reads again and gets its own error)', async () => {
  const ra = new ReadAhead();
  ra.put('k', 10, Promise.reject(new Error('closed')));
  assert.is(await ra.take('k', retained(0)), null);
});

test('pages not asked for expire, and the oldest goes when more than maxPages are held', async () => {
  const ra = new ReadAhead(30, 2);
  ra.put('a', 1, Promise.resolve(page(1, 'a')));
  ra.put('b', 1, Promise.resolve(page(1, 'b')));
  ra.put('c', 1, Promise.resolve(page(1, 'c')));
  assert.is(ra.size, 2);
  assert.is(await ra.take('a', retained(0)), null, 'the oldest was evicted');
  assert.equal(names(await ra.take('c', retained(0))), ['c']);
  await sleep(60);
  assert.is(ra.size, 0, 'b expired');
  assert.is(await ra.take('b', retained(0)), null);
});

test('a page larger than PAGE_BYTES is not kept', async () => {
  const ra = new ReadAhead();
  ra.put('big', 1, Promise.resolve({ rv: 1, items: [Buffer.alloc(PAGE_BYTES + 1)] }));
  await sleep(0);
  assert.is(ra.size, 0, 'dropped once its size is known');
  assert.is(await ra.take('big', retained(0)), null);
});

test.run();
