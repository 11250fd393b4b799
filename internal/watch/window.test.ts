import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SlidingWindow } from './window.ts';

const contents = <T>(w: SlidingWindow<T>): T[] => Array.from({ length: w.length }, (_, i) => w.at(i));

test('keeps the newest items in order across drops and compactions', () => {
  const w = new SlidingWindow<number>();
  const model: number[] = [];
  let next = 0;
  // Pushes and drops of varying sizes: the start index moves, and the dead prefix is cut off
  // whenever it outgrows the live part.
  for (let round = 0; round < 500; round++) {
    const add = (round * 7) % 13;
    for (let i = 0; i < add; i++) {
      w.push(next);
      model.push(next++);
    }
    const drop = (round * 5) % 11;
    w.dropOldest(drop);
    model.splice(0, drop);
    assert.is(w.length, model.length);
    assert.equal(contents(w), model);
  }
});

test('dropping more than is held empties the window, which then fills again', () => {
  const w = new SlidingWindow<string>();
  w.push('a');
  w.push('b');
  w.dropOldest(5);
  assert.is(w.length, 0);
  w.push('c');
  assert.equal(contents(w), ['c']);
});

test.run();
