import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rfc3339 } from './serialize.ts';

test('rfc3339: second precision in UTC, the remembered second never leaking into another', () => {
  const at = (iso: string) => rfc3339(new Date(iso));
  assert.is(at('2026-11-26T09:00:00.000Z'), '2026-11-26T09:00:00Z');
  assert.is(at('2026-11-26T09:00:00.999Z'), '2026-11-26T09:00:00Z');
  assert.is(at('2026-11-26T09:00:01.000Z'), '2026-11-26T09:00:01Z');
  // Back to an earlier second, and before the epoch (floor, not truncation toward zero).
  assert.is(at('2026-11-26T09:00:00.500Z'), '2026-11-26T09:00:00Z');
  assert.is(at('1969-12-31T23:59:59.500Z'), '1969-12-31T23:59:59Z');
  assert.is(at('1970-01-01T00:00:00.000Z'), '1970-01-01T00:00:00Z');
  // Years outside 0–9999 keep toISOString's extended form.
  assert.is(rfc3339(new Date(Date.UTC(10000, 0, 1))), '+010000-01-01T00:00:00Z');
  assert.throws(() => rfc3339(new Date(NaN)), RangeError);
});

test.run();
