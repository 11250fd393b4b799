import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseGoTime } from './time.ts';

test('parseGoTime: layouts and Go error texts', () => {
  const cases: [string, boolean, string][] = [
    // time's quote: bytes of control and non-ASCII runes as \xNN (checked on kube 1.24.17).
    ['2020-01-01T00:00:00\u0001é"Z', false, 'parsing time "2020-01-01T00:00:00\\x01\\xc3\\xa9\\"Z" as "2006-01-02T15:04:05Z07:00": cannot parse "\\x01\\xc3\\xa9\\"Z" as "Z07:00"'],
    ['2026-11-23T11:00:00.000000Z', true, '2026-11-23T11:00:00.000000Z'],
    ['2026-11-23T23:30:00.000007-01:00', true, '2026-11-24T00:30:00.000007Z'],
    ['2024-02-29T00:00:00Z', false, '2024-02-29T00:00:00Z'],
    ['2026-11-23T11:00:00.1234567Z', true, 'parsing time "2026-11-23T11:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"'],
    ['2026-11-23T11:00:00', false, 'parsing time "2026-11-23T11:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ['2026-11-23 11:00:00Z', false, 'parsing time "2026-11-23 11:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 11:00:00Z" as "T"'],
    ['2025-02-29T00:00:00Z', false, 'parsing time "2025-02-29T00:00:00Z": day out of range'],
    ['2026-11-23T25:00:00Z', false, 'parsing time "2026-11-23T25:00:00Z": hour out of range'],
    ['2026-11-23T11:00:00Zjunk', false, 'parsing time "2026-11-23T11:00:00Zjunk": extra text: "junk"'],
  ];
  cases.forEach(([value, micro, want], i) => {
    const r = parseGoTime(value, micro);
    assert.is(r.ok ? r.canonical : r.error, want, `case ${i}`);
  });
});

test.run();
