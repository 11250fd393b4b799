import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { afterPoll, TURN_BUDGET_MS } from './turn-budget.ts';

const busy = (ms: number): void => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test('work past the turn budget waits for the next turn, in order, ahead of newer work', async () => {
  const order: string[] = [];
  const slice = TURN_BUDGET_MS / 2;
  await new Promise<void>((done) => {
    // Ten bodies read in one poll phase, each continuing with `slice` ms of synchronous work (in a
    // microtask, as a write continues after its body promise resolves).
    setImmediate(() => {
      for (let i = 0; i < 10; i++) afterPoll(() => void Promise.resolve().then(() => (order.push(`w${i}`), busy(slice))));
      // A timer due now fires in the next turn: it stands for the poll phase's connections.
      setTimeout(() => {
        order.push('turn');
        afterPoll(() => order.push('newer'));
      }, 0);
      afterPoll(() => setTimeout(done, 200));
    });
  });
  const turn = order.indexOf('turn');
  // The first turn ran about TURN_BUDGET_MS of work (2 or 3 slices), not all ten.
  assert.ok(turn >= 2 && turn <= 4, order.join(' '));
  assert.equal(order.filter((x) => x.startsWith('w')), Array.from({ length: 10 }, (_, i) => `w${i}`));
  assert.ok(order.indexOf('newer') > order.indexOf('w9'), order.join(' '));
});

test.run();
