/**
 * WatchBudget: streams report their queues; past the total, every queue is sampled again and the
 * largest are ended until the rest fit. Stale samples (a queue that drained without a report)
 * never end anyone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WatchBudget, type BudgetEntry } from './budget.ts';

function stream(budget: WatchBudget, name: string, ended: string[]) {
  const s = { bytes: 0, entry: undefined as unknown as BudgetEntry };
  s.entry = budget.add({ queued: () => s.bytes, endSlow: () => ended.push(name) });
  return s;
}

test('past the total, the largest queues are ended until the rest fit', () => {
  const ended: string[] = [];
  const b = new WatchBudget({ perWatcher: 1000, total: 100 });
  const a = stream(b, 'a', ended);
  const c = stream(b, 'c', ended);
  const d = stream(b, 'd', ended);
  a.bytes = 30;
  a.entry.note();
  c.bytes = 50;
  c.entry.note();
  assert.equal(ended, []);
  assert.is(b.usage().bytes, 80);
  d.bytes = 40;
  d.entry.note(); // 120 > 100: c (50) goes, 70 remain
  assert.equal(ended, ['c']);
  assert.is(b.usage().bytes, 70);
  assert.is(b.usage().peak, 120);
  // An ended stream no longer counts, and its later reports are ignored.
  c.bytes = 500;
  c.entry.note();
  assert.equal(ended, ['c']);
  assert.is(b.usage().bytes, 70);
});

test('a stale sample is refreshed before anyone is ended', () => {
  const ended: string[] = [];
  const b = new WatchBudget({ total: 100 });
  const a = stream(b, 'a', ended);
  const c = stream(b, 'c', ended);
  a.bytes = 90;
  a.entry.note();
  a.bytes = 0; // drained without a report
  c.bytes = 60;
  c.entry.note(); // the sum says 150, the queues say 60
  assert.equal(ended, []);
  assert.is(b.usage().bytes, 60);
});

test('removed streams release their bytes', () => {
  const ended: string[] = [];
  const b = new WatchBudget({ total: 100 });
  const a = stream(b, 'a', ended);
  a.bytes = 80;
  a.entry.note();
  a.entry.remove();
  assert.is(b.usage().bytes, 0);
  const c = stream(b, 'c', ended);
  c.bytes = 90;
  c.entry.note();
  assert.equal(ended, []);
});

test.run();
