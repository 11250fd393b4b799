import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonEqual, semanticEqual } from './equal.ts';

test('jsonEqual is reflect.DeepEqual on decoded JSON: key order and undefined members ignored', () => {
  assert.ok(jsonEqual({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 }));
  assert.ok(jsonEqual({ a: 1, u: undefined }, { a: 1 }));
  assert.not.ok(jsonEqual({ a: [] }, { a: null }));
  assert.not.ok(jsonEqual([1, 2], [2, 1]));
  assert.not.ok(jsonEqual({ a: 1 }, [1]));
  assert.not.ok(jsonEqual({ a: 1 }, { a: 1, b: null }));
});

test('semanticEqual is equality.Semantic.DeepEqual: nil and empty slices alike, pointers apart', () => {
  assert.ok(semanticEqual({ a: [] }, { a: null }));
  assert.ok(semanticEqual({ a: [] }, {}));
  assert.ok(semanticEqual({ x: { l: [] } }, { x: {} }));
  assert.not.ok(semanticEqual({ a: '' }, {}));
  assert.not.ok(semanticEqual({ a: [1] }, { a: [] }));
  assert.not.ok(semanticEqual({ p: {} }, {}));
});

test.run();
