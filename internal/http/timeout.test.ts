import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseGoDuration, requestTimeoutMs } from './timeout.ts';
import { watchTimeoutS } from './watch-handler.ts';

test("Go's time.ParseDuration, in ms", () => {
  const ok: [string, number][] = [['0', 0], ['1s', 1000], ['1m0s', 60_000], ['1h30m', 5_400_000], ['1.5s', 1500], ['.5s', 500], ['1ns', 1e-6], ['2us', 0.002], ['2µs', 0.002], ['2μs', 0.002], ['-1s', -1000], ['+3ms', 3], ['1h1m1s1ms', 3_661_001], ['5.s', 5000]];
  for (const [s, ms] of ok) assert.is(parseGoDuration(s), ms, s);
  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['bogus', 'time: invalid duration "bogus"'],
    ['10', 'time: missing unit in duration "10"'],
    ['1x', 'time: unknown unit "x" in duration "1x"'],
    ['1.5.s', 'time: missing unit in duration "1.5.s"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
    ['99999999999h', 'time: invalid duration "99999999999h"'],
    ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
  ];
  for (const [s, msg] of bad) assert.throws(() => parseGoDuration(s), (e: Error) => e.message === msg, s);
});

test('?timeout= only shortens the deadline', () => {
  const q = (v: string) => new URLSearchParams({ timeout: v });
  assert.is(requestTimeoutMs(new URLSearchParams(), 60_000), 60_000);
  assert.is(requestTimeoutMs(q('2s'), 60_000), 2000);
  assert.is(requestTimeoutMs(q('2h'), 60_000), 60_000);
  assert.is(requestTimeoutMs(q('-2s'), 60_000), 60_000);
  assert.is(requestTimeoutMs(q('0'), 60_000), 60_000);
  assert.throws(() => requestTimeoutMs(q('x'), 60_000), (e: { code: number; message: string }) => e.code === 400 && e.message === 'invalid timeout specified in the request URL - time: invalid duration "x"');
});

test('watch timeouts: timeoutSeconds, else [min, 2·min), at once with min 0', () => {
  assert.is(watchTimeoutS(5, 1800), 5);
  assert.is(watchTimeoutS(-5, 1800), 0);
  for (let i = 0; i < 100; i++) {
    const s = watchTimeoutS(undefined, 10);
    assert.ok(s >= 10 && s < 20, String(s));
    const z = watchTimeoutS(0, 10);
    assert.ok(z >= 10 && z < 20, String(z));
  }
  assert.is(watchTimeoutS(undefined, 0), 0);
  assert.is(watchTimeoutS(10 ** 12, 1800), 2_000_000);
});

test.run();
