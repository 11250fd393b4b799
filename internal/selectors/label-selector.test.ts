import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../api/errors.ts';
import { labelSelectorFromObject, labelSelectorFromSet, nothing, parseLabelSelector } from './label-selector.ts';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function parseError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

// [input, canonical toString()]
const valid: [string, string][] = [
  ['', ''],
  ['   ', ''],
  ['x=a', 'x=a'],
  ['x==a', 'x==a'],
  ['x!=a', 'x!=a'],
  ['x=', 'x='],
  ['x= ', 'x='],
  ['x=,z= ', 'x=,z='],
  ['x', 'x'],
  ['!x', '!x'],
  [' ! x ', '!x'],
  ['x>1', 'x>1'],
  ['x<1', 'x<1'],
  ['x>1,z<5', 'x>1,z<5'],
  ['x = a , y != b', 'x=a,y!=b'],
  ['z=b,x=a', 'x=a,z=b'],
  ['x in (foo,,baz),y,z notin ()', 'x in (,baz,foo),y,z notin ()'],
  ['x in (a)', 'x in (a)'],
  ['x in (b,a,b)', 'x in (a,b)'],
  ['x in (,a)', 'x in (,a)'],
  ['x in (a,)', 'x in (,a)'],
  ['x notin (a,b)', 'x notin (a,b)'],
  ['x\tin\t(\na , b\r)', 'x in (a,b)'],
  ['in in (in,notin)', 'in in (in,notin)'],
  ['notin=in', 'notin=in'],
  ['example.com/app=web', 'example.com/app=web'],
  ['a.b-c_d=A.b-C_9', 'a.b-c_d=A.b-C_9'],
  ['x=a,x!=b', 'x=a,x!=b'],
];

test('parses valid selectors to their canonical form', () => {
  valid.forEach(([input, want], i) => {
    let got: string;
    try {
      got = parseLabelSelector(input).toString();
    } catch (e) {
      assert.unreachable(`case ${i} ${JSON.stringify(input)}: unexpected error ${(e as Error).message}`);
      return;
    }
    assert.is(got, want, `case ${i} ${JSON.stringify(input)}`);
    // canonical form parses back to itself
    assert.is(parseLabelSelector(got).toString(), want, `case ${i} round trip`);
  });
});

test('empty() only for selectors without requirements', () => {
  const cases: [string, boolean][] = [
    ['', true],
    [' ', true],
    ['a', false],
    ['a=', false],
  ];
  cases.forEach(([input, want], i) => assert.is(parseLabelSelector(input).empty(), want, `case ${i}`));
});

// [input, exact Kubernetes error message]
const invalid: [string, string][] = [
  ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${LABEL_VALUE}`],
  ['x==a==b', "found '==', expected: ',' or 'end of string'"],
  ['!x=a', "found '=', expected: ',' or 'end of string'"],
  ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
  ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
  ['x<-5', `unable to parse requirement: values[0][x]: Invalid value: "-5": ${LABEL_VALUE}`],
  ['x in x', "unable to parse requirement: found 'x' expected: '('"],
  ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
  ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
  ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
  ['x in', "unable to parse requirement: found '' expected: '('"],
  ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
  ['x!', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
  ['x=(', "unable to parse requirement: found '(', expected: identifier"],
  ['x===a', "unable to parse requirement: found '=', expected: identifier"],
  ['!', "unable to parse requirement: found '', expected: identifier"],
  ['!=a', "found '!=', expected: !, identifier, or 'end of string'"],
  ['! =a', "unable to parse requirement: found '=', expected: identifier"],
  ['x,', "found '', expected: identifier after ','"],
  ['x,,y', "found ',', expected: identifier after ','"],
  [',x', "found ',', expected: !, identifier, or 'end of string'"],
  ['(', "found '(', expected: !, identifier, or 'end of string'"],
  ['x=a y', "found 'y', expected: ',' or 'end of string'"],
  ['app:monolith', `unable to parse requirement: <nil>: Invalid value: "app:monolith": ${NAME_PART}`],
  ['-x=a', `unable to parse requirement: <nil>: Invalid value: "-x": ${NAME_PART}`],
  [
    'a/b/c=d',
    "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ],
  ['/a', 'unable to parse requirement: <nil>: Invalid value: "/a": prefix part must be non-empty'],
  ['a/', `unable to parse requirement: <nil>: Invalid value: "a/": name part must be non-empty; ${NAME_PART}`],
  [
    'Example.com/a',
    "unable to parse requirement: <nil>: Invalid value: \"Example.com/a\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ],
  [`${'k'.repeat(64)}=v`, `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 characters`],
  [
    `k=${'v'.repeat(64)}`,
    `unable to parse requirement: values[0][k]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 characters`,
  ],
  [
    'x in (a@,b@)',
    `unable to parse requirement: [values[0][x]: Invalid value: "a@": ${LABEL_VALUE}, values[1][x]: Invalid value: "b@": ${LABEL_VALUE}]`,
  ],
];

test('rejects invalid selectors with Kubernetes messages as 400 BadRequest', () => {
  invalid.forEach(([input, want], i) => {
    const err = parseError(() => parseLabelSelector(input));
    assert.is(err.code, 400, `case ${i} code`);
    assert.is(err.reason, 'BadRequest', `case ${i} reason`);
    assert.is(err.status.message, want, `case ${i} ${JSON.stringify(input)}`);
  });
});

// [selector, labels, matches]
const matching: [string, Record<string, string> | undefined, boolean][] = [
  ['', undefined, true],
  ['', { a: 'b' }, true],
  ['x=y', { x: 'y' }, true],
  ['x=y', { x: 'z' }, false],
  ['x=y', {}, false],
  ['x==y', { x: 'y', a: 'b' }, true],
  ['x!=y', { x: 'z' }, true],
  ['x!=y', { x: 'y' }, false],
  ['x!=y', {}, true],
  ['x=', { x: '' }, true],
  ['x=', {}, false],
  ['x', { x: '' }, true],
  ['x', { y: 'x' }, false],
  ['!x', { y: 'x' }, true],
  ['!x', { x: '' }, false],
  ['x in (a,b)', { x: 'b' }, true],
  ['x in (a,b)', { x: 'c' }, false],
  ['x in (a,b)', {}, false],
  ['x in (,a)', { x: '' }, true],
  ['x notin (a,b)', { x: 'c' }, true],
  ['x notin (a,b)', { x: 'a' }, false],
  ['x notin (a,b)', {}, true],
  ['x>5', { x: '6' }, true],
  ['x>5', { x: '5' }, false],
  ['x>5', { x: 'abc' }, false],
  ['x>5', {}, false],
  ['x<5', { x: '-10' }, true],
  ['x<5', { x: '5' }, false],
  ['x>9223372036854775806', { x: '9223372036854775807' }, true],
  ['x<1', { x: '9223372036854775808' }, false],
  ['x=a,y=b', { x: 'a', y: 'b' }, true],
  ['x=a,y=b', { x: 'a', y: 'c' }, false],
  ['toString', {}, false],
  ['!constructor', {}, true],
];

test('matches label sets', () => {
  matching.forEach(([sel, labels, want], i) => {
    assert.is(parseLabelSelector(sel).matches(labels), want, `case ${i} ${sel} vs ${JSON.stringify(labels)}`);
  });
});

test('requiresExactMatch', () => {
  const cases: [string, string, string | undefined][] = [
    ['a=b', 'a', 'b'],
    ['a==b', 'a', 'b'],
    ['a in (b)', 'a', 'b'],
    ['a in (b,c)', 'a', undefined],
    ['a!=b', 'a', undefined],
    ['a=b', 'c', undefined],
  ];
  cases.forEach(([sel, key, want], i) => assert.is(parseLabelSelector(sel).requiresExactMatch(key), want, `case ${i}`));
});

test('labelSelectorFromObject converts metav1.LabelSelector', () => {
  const cases: [Parameters<typeof labelSelectorFromObject>[0], string, Record<string, string>, boolean][] = [
    [{}, '', {}, true],
    [{ matchLabels: {}, matchExpressions: [] }, '', { a: 'b' }, true],
    [{ matchLabels: { b: '2', a: '1' } }, 'a=1,b=2', { a: '1', b: '2' }, true],
    [{ matchLabels: { a: '1' } }, 'a=1', { a: '2' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }] }, 'a in (x,y)', { a: 'y' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] }, 'a notin (x)', { a: 'x' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, 'a', { a: '' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: [] }] }, '!a', { a: '' }, false],
    [
      { matchLabels: { c: 'd' }, matchExpressions: [{ key: 'a', operator: 'Exists' }] },
      'a,c=d',
      { a: '', c: 'd' },
      true,
    ],
  ];
  cases.forEach(([obj, str, labels, want], i) => {
    const sel = labelSelectorFromObject(obj);
    assert.is(sel.toString(), str, `case ${i} toString`);
    assert.is(sel.matches(labels), want, `case ${i} matches`);
  });

  const none = labelSelectorFromObject(null);
  assert.is(none.matches({}), false, 'nil selector matches nothing');
  assert.is(none.empty(), false, 'nil selector is not empty');
  assert.is(labelSelectorFromObject(undefined).matches({ a: 'b' }), false);
  assert.is(nothing().matches(undefined), false);
});

test('labelSelectorFromObject errors', () => {
  const cases: [Parameters<typeof labelSelectorFromObject>[0], string][] = [
    [{ matchExpressions: [{ key: 'a', operator: 'In' }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, 'values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist'],
    [{ matchExpressions: [{ key: 'a', operator: 'Equals', values: ['x'] }] }, '"Equals" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] }, '"in" is not a valid label selector operator'],
    [{ matchLabels: { 'a b': 'c' } }, `key: Invalid value: "a b": ${NAME_PART}`],
    [{ matchLabels: { a: 'b c' } }, `values[0][a]: Invalid value: "b c": ${LABEL_VALUE}`],
    [
      { matchExpressions: [{ key: '-a', operator: 'In', values: ['x@'] }] },
      `[key: Invalid value: "-a": ${NAME_PART}, values[0][-a]: Invalid value: "x@": ${LABEL_VALUE}]`,
    ],
  ];
  cases.forEach(([obj, want], i) => {
    const err = parseError(() => labelSelectorFromObject(obj));
    assert.is(err.code, 400, `case ${i} code`);
    assert.is(err.status.message, want, `case ${i}`);
  });
});

test('labelSelectorFromSet', () => {
  assert.is(labelSelectorFromSet({ b: '1', a: '2' }).toString(), 'a=2,b=1');
  assert.ok(labelSelectorFromSet(undefined).empty());
  assert.ok(labelSelectorFromSet({ a: '1' }).matches({ a: '1', b: '2' }));
});

test.run();
