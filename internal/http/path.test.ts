import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRequestTarget, parseGoQuery, goUnescape, BadRequestTarget } from './path.ts';
import { pathSegmentNameErrors } from './path-names.ts';

test('the path is decoded as a whole and never cleaned', () => {
  assert.is(parseRequestTarget('/api/v1/namespaces/a/configmaps/..').path, '/api/v1/namespaces/a/configmaps/..');
  assert.is(parseRequestTarget('/api/v1/namespaces/a/configmaps/%2e%2E').path, '/api/v1/namespaces/a/configmaps/..');
  assert.is(parseRequestTarget('/a/./b/../c').path, '/a/./b/../c');
  assert.is(parseRequestTarget('/a%2Fb').path, '/a/b');
  assert.is(parseRequestTarget('/a\\b').path, '/a\\b');
  assert.is(parseRequestTarget('/a+b%20c').path, '/a+b c');
  assert.is(parseRequestTarget('https://h:1/x/..?a=1').path, '/x/..');
  assert.is(parseRequestTarget('').path, '/');
  assert.throws(() => parseRequestTarget('/a%zz'), (e: unknown) => e instanceof BadRequestTarget);
  assert.throws(() => parseRequestTarget('/a%4'), (e: unknown) => e instanceof BadRequestTarget);
});

test("the query as Go's ParseQuery reads it", () => {
  const q = parseGoQuery('a=1&b=x+y&a=2&bad=%zz&semi=1;2&&c&d=%41');
  assert.equal([...q.entries()], [['a', '1'], ['b', 'x y'], ['a', '2'], ['c', ''], ['d', 'A']]);
  assert.equal([...parseRequestTarget('/p?timeout=1s&watch').query.entries()], [['timeout', '1s'], ['watch', '']]);
  assert.is(goUnescape('%e9', false), '\ufffd');
});

test('path segment names', () => {
  assert.equal(pathSegmentNameErrors('..'), ["may not be '..'"]);
  assert.equal(pathSegmentNameErrors('.'), ["may not be '.'"]);
  assert.equal(pathSegmentNameErrors('a/%b'), ["may not contain '/'", "may not contain '%'"]);
  assert.equal(pathSegmentNameErrors('...'), []);
});

test.run();
