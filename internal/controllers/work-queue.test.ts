/** WorkQueue: deduplication, one run per key at a time, re-run when re-added, retry, pause. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkQueue } from './work-queue.ts';

interface Item {
  key: string;
  n: number;
}

const fast = { concurrency: 2, baseDelayMs: 1, maxDelayMs: 5 };

test('items with one key queued together run once, with the newest payload', async () => {
  const seen: number[] = [];
  const q = new WorkQueue<Item>(async (i) => void seen.push(i.n), () => undefined, fast);
  q.pause();
  q.add({ key: 'a', n: 1 });
  q.add({ key: 'a', n: 2 });
  q.resume();
  await q.idle();
  assert.equal(seen, [2]);
});

test('an item re-added while it runs runs again afterwards, never concurrently', async () => {
  let running = 0;
  let maxRunning = 0;
  const seen: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const q = new WorkQueue<Item>(
    async (i) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      if (i.n === 1) await gate;
      seen.push(i.n);
      running--;
    },
    () => undefined,
    fast,
  );
  q.add({ key: 'a', n: 1 });
  q.add({ key: 'a', n: 2 });
  release();
  await q.idle();
  assert.equal(seen, [1, 2]);
  assert.is(maxRunning, 1);
});

test('a failing item is retried until it succeeds; errors are reported', async () => {
  let attempts = 0;
  const errors: unknown[] = [];
  const q = new WorkQueue<Item>(
    async () => {
      if (++attempts < 3) throw new Error('not yet');
    },
    (_i, e) => errors.push(e),
    fast,
  );
  q.add({ key: 'a', n: 1 });
  await q.idle();
  assert.is(attempts, 3);
  assert.is(errors.length, 2);
});

test('stop drops queued work and retries', async () => {
  let runs = 0;
  const q = new WorkQueue<Item>(async () => void runs++, () => undefined, fast);
  q.pause();
  q.add({ key: 'a', n: 1 });
  q.stop();
  q.resume();
  await q.idle();
  assert.is(runs, 0);
});

test.run();
