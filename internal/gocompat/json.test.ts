import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goJson, isObj } from './json.ts';

test('isObj: a JSON object, neither null nor an array', () => {
  assert.ok(isObj({}) && isObj({ a: 1 }));
  assert.not.ok(isObj(null) || isObj([]) || isObj('x') || isObj(1) || isObj(undefined));
});

test('goJson writes what encoding/json writes: HTML-safe escapes, members in order', () => {
  assert.is(goJson({ b: 'x<y>&z', a: '\u2028\u2029' }), '{"b":"x\\u003cy\\u003e\\u0026z","a":"\\u2028\\u2029"}');
  assert.is(goJson(['plain', 1, null]), '["plain",1,null]');
});

test.run();
