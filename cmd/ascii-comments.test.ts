import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asciiComments, NonAsciiCodeError } from './ascii-comments.ts';

test('non-ASCII characters of comment lines become \\u escapes, line by line', () => {
  const src = [
    '/** a map of gate \u2192 bool */',
    'const x = "\\u2192";',
    '  // went away (\u22121)',
    ' * continued \u2014 here',
    'f(x);',
  ].join('\n');
  const out = asciiComments(src, 'b.js');
  assert.not.match(out, /[^\x00-\x7f]/);
  assert.is(out.split('\n').length, 5, 'line numbers stay (the source map holds)');
  assert.is(out.split('\n')[0], '/** a map of gate \\u2192 bool */');
  assert.is(out.split('\n')[2], '  // went away (\\u22121)');
  assert.is(out.split('\n')[1], src.split('\n')[1], 'code lines are left as they are');
});

test('ASCII text is returned as it is', () => {
  const src = '// plain\nconst a = 1;\n';
  assert.ok(asciiComments(src, 'b.js') === src);
});

test('a non-ASCII character in code fails, naming the file and line', () => {
  assert.throws(() => asciiComments('// ok \u2192\nconst s = "\u2192";', 'bundle/apiserver.js'), (e: unknown) => e instanceof NonAsciiCodeError && /bundle\/apiserver\.js:2:/.test((e as Error).message));
});

test.run();
