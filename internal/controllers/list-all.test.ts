import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listAll, SCAN_PAGE } from './list-all.ts';
import type { ListQuery, ListResult } from '../registry/generic/reader.ts';

/** A reader over `n` items that records the queries it was asked. */
function pagedReader(n: number) {
  const asked: { namespace: string; q: ListQuery }[] = [];
  const items = Array.from({ length: n }, (_, i) => Buffer.from(String(i)));
  return {
    asked,
    async list(namespace: string, q: ListQuery): Promise<ListResult> {
      asked.push({ namespace, q });
      const from = q.continue ? Number(q.continue) : 0;
      const to = Math.min(from + q.limit!, n);
      return { rv: 7, items: items.slice(from, to), continue: to < n ? String(to) : undefined };
    },
  };
}

test('every item across pages, each page asked with the last token and the caller\'s selector', async () => {
  const r = pagedReader(2 * SCAN_PAGE + 3);
  const got: string[] = [];
  for await (const b of listAll(r, 'ns1', { fieldSelector: 'type=x' })) got.push(b.toString());
  assert.equal(got, Array.from({ length: 2 * SCAN_PAGE + 3 }, (_, i) => String(i)));
  assert.equal(r.asked.map((a) => [a.namespace, a.q.limit, a.q.continue, a.q.fieldSelector]), [
    ['ns1', SCAN_PAGE, undefined, 'type=x'],
    ['ns1', SCAN_PAGE, String(SCAN_PAGE), 'type=x'],
    ['ns1', SCAN_PAGE, String(2 * SCAN_PAGE), 'type=x'],
  ]);
});

test('an empty collection is one page; stopped ends the scan before the next page is read', async () => {
  const empty = pagedReader(0);
  for await (const _ of listAll(empty, '')) assert.unreachable('no items');
  assert.is(empty.asked.length, 1);
  const r = pagedReader(3 * SCAN_PAGE);
  let stop = false;
  let seen = 0;
  for await (const _ of listAll(r, '', {}, () => stop)) {
    seen++;
    stop = true;
  }
  assert.is(seen, SCAN_PAGE, 'the page under way is finished');
  assert.is(r.asked.length, 1);
});

test('breaking out of the loop reads no further page', async () => {
  const r = pagedReader(3 * SCAN_PAGE);
  for await (const _ of listAll(r, '')) break;
  assert.is(r.asked.length, 1);
});

test.run();
