import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goQuote, goStringSlice, isPrint } from './quote.ts';

test('goQuote prints what Go strconv.Quote (%q) prints (expectations from go1 strconv.Quote)', () => {
  const cases: [string, string][] = [
    ['abc', '"abc"'],
    ['a\u0001b\u00e9\u200b', '"a\\x01bé\\u200b"'],
    ['tab\there', '"tab\\there"'],
    ['a\nb', '"a\\nb"'],
    ['q"\\', '"q\\"\\\\"'],
    ['\x00\u007f\u0085\u00a0 ', '"\\x00\\x7f\\u0085\\u00a0 "'],
    ['emoji 😀', '"emoji 😀"'],
    ['\u2028', '"\\u2028"'],
    ['\ufeff', '"\\ufeff"'],
    ['é́', '"é́"'],
  ];
  for (const [i, [input, want]] of cases.entries()) assert.is(goQuote(input), want, `case ${i}`);
});

test('goStringSlice prints %#v of a []string; isPrint is unicode.IsPrint', () => {
  assert.is(goStringSlice(['a', 'b"']), '[]string{"a", "b\\""}');
  assert.is(goStringSlice([]), '[]string{}');
  assert.is(goStringSlice(null), '[]string(nil)');
  assert.ok(isPrint('é') && isPrint(' ') && isPrint('😀'));
  assert.not.ok(isPrint('\t') || isPrint('\u00a0') || isPrint('\u200b'));
});

test.run();
