import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonDepthError, valueDepthError, yamlDepthError, parseJson, GoSyntaxError } from './json-parse.ts';

const arrays = (n: number): string => '['.repeat(n) + ']'.repeat(n);

test("encoding/json's depth limit: 10000 levels pass, the 10001st open bracket fails", () => {
  assert.is(jsonDepthError(arrays(10_000)), '');
  assert.is(jsonDepthError(arrays(10_001)), "invalid character '[' exceeded max depth");
  assert.is(jsonDepthError('{"a":' + arrays(10_000) + '}'), "invalid character '[' exceeded max depth");
  // brackets inside strings do not count
  assert.is(jsonDepthError(`["${'['.repeat(20_000)}"]`), '');
  assert.is(jsonDepthError(`["\\"${'{'.repeat(20_000)}"]`), '');
  assert.throws(() => parseJson(arrays(10_001)), (e: unknown) => e instanceof GoSyntaxError && /exceeded max depth/.test((e as Error).message));
  // a 10000-deep document with numbers parses without overflowing the stack in the fast path
  assert.ok(parseJson(arrays(9_999)).value);
});

test('the limit on parsed values, iteratively', () => {
  let v: unknown = 1;
  for (let i = 0; i < 10_000; i++) v = { a: v };
  assert.is(valueDepthError(v), '');
  assert.is(valueDepthError([v]), "invalid character '{' exceeded max depth");
  assert.is(yamlDepthError(`a: b\nx: ${arrays(10_001)}`, true), 'yaml: line 2: exceeded max depth of 10000');
  assert.is(yamlDepthError(`x: ${arrays(10_000)}`, false), '');
});

test('objects nested deeper than the recursive parser gets: read natively when that gives the same value (no duplicates, canonical numbers)', () => {
  const deep = (inner: string): string => '{"a":'.repeat(9_999) + inner + '}'.repeat(9_999);
  let v: any = parseJson(deep('1')).value;
  let levels = 0;
  while (typeof v === 'object') {
    v = v.a;
    levels++;
  }
  assert.is(levels, 9_999);
  assert.is(v, 1);
  // A literal JavaScript would write otherwise (1.0), or a duplicate key: only the parser above gives Go's value.
  assert.throws(() => parseJson(deep('1.0')), (e: unknown) => e instanceof RangeError);
  assert.throws(() => parseJson(`{"b":1,"b":2,"x":${deep('1')}}`), (e: unknown) => e instanceof RangeError);
});

test.run();
