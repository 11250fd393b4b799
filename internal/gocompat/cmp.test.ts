import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cmpDiff, goString, isZero, type GoType } from './cmp.ts';

/**
 * The go-cmp port on a hand-built type (the internal core types are derived from the schemas in
 * registry/core/cmpdiff.ts; the fidelity suites check those against kube-apiserver). Expected
 * texts are what go-cmp v0.5.5 prints for the same Go values.
 */
const str: GoType = { k: 'string' };
const inner: GoType = { k: 'struct', name: 'x.Inner', fields: [{ name: 'A', json: 'a', type: () => str }, { name: 'B', json: 'b', type: () => ({ k: 'int' }) }] };
const outer: GoType = {
  k: 'struct',
  name: 'x.Outer',
  fields: [
    ...['p', 'q', 'r', 's'].map((j) => ({ name: j.toUpperCase(), json: j, type: () => str })),
    { name: 'In', json: 'in', type: () => ({ k: 'ptr', elem: inner }) as GoType },
    { name: 'L', json: 'l', type: () => ({ k: 'slice', name: '', elem: str }) as GoType },
  ],
};

test('equal values: no diff; zero values: absent, "", 0, false', () => {
  assert.is(cmpDiff(outer, { p: 'a' }, { p: 'a' }), '');
  assert.ok(isZero(outer, { p: '', in: null }));
  assert.not.ok(isZero(outer, { l: [] }));
});

test('a changed field: two context records, the rest elided, a nested pointer struct', () => {
  assert.is(
    cmpDiff(outer, { p: '1', q: '2', r: '3', s: '4', in: { a: 'x', b: 1 } }, { p: '1', q: '2', r: '3', s: '4', in: { a: 'y', b: 1 } }),
    ['  x.Outer{', '  \t... // 2 identical fields', '  \tR: "3",', '  \tS: "4",', '  \tIn: &x.Inner{', '- \t\tA: "x",', '+ \t\tA: "y",', '  \t\tB: 1,', '  \t},', '  \tL: nil,', '  }', ''].join('\n'),
  );
});

test('nil to a value: whole-value -/+ records with the type name', () => {
  assert.is(
    cmpDiff(outer, { p: '1' }, { p: '1', in: { a: 'z' } }),
    ['  x.Outer{', '  \t... // 2 identical fields', '  \tR:  "",', '  \tS:  "",', '- \tIn: nil,', '+ \tIn: &x.Inner{A: "z"},', '  \tL:  nil,', '  }', ''].join('\n'),
  );
});

test('strings print as go-cmp formatString prints them: quoted, or raw when quoting would escape', () => {
  assert.is(goString('abc'), '"abc"');
  assert.is(goString('a"b'), '`a"b`');
  assert.is(goString('x`y"'), '"x`y\\""');
  assert.is(goString('/p\u0001\u2028é'), '"/p\\x01\\u2028é"');
  assert.is(goString('tab\there'), '`tab\there`');
  assert.is(goString('é', [0xc3]), '"é\\xc3"');
});

test.run();
