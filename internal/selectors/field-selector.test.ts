import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../api/errors.ts';
import {
  type FieldRequirement,
  escapeFieldValue,
  fieldSelectorFromSet,
  parseFieldSelector,
  unsupportedFieldMessage,
  validateFieldSelector,
} from './field-selector.ts';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

// [input, requirements, canonical toString()]
const valid: [string, FieldRequirement[], string][] = [
  ['', [], ''],
  [',', [], ''],
  ['=', [], ''],
  ['a=b', [{ field: 'a', op: '=', value: 'b' }], 'a=b'],
  ['a==b', [{ field: 'a', op: '=', value: 'b' }], 'a=b'],
  ['a!=b', [{ field: 'a', op: '!=', value: 'b' }], 'a!=b'],
  ['a=', [{ field: 'a', op: '=', value: '' }], 'a='],
  ['=b', [{ field: '', op: '=', value: 'b' }], '=b'],
  ['metadata.name=x,status.phase!=Running', [
    { field: 'metadata.name', op: '=', value: 'x' },
    { field: 'status.phase', op: '!=', value: 'Running' },
  ], 'metadata.name=x,status.phase!=Running'],
  ['b=1,a=2', [
    { field: 'a', op: '=', value: '2' },
    { field: 'b', op: '=', value: '1' },
  ], 'a=2,b=1'],
  ['a=1,,b=2,', [
    { field: 'a', op: '=', value: '1' },
    { field: 'b', op: '=', value: '2' },
  ], 'a=1,b=2'],
  [' a = b ', [{ field: ' a ', op: '=', value: ' b ' }], ' a = b '],
  ['a=b\\,c', [{ field: 'a', op: '=', value: 'b,c' }], 'a=b\\,c'],
  ['a=\\=b', [{ field: 'a', op: '=', value: '=b' }], 'a=\\=b'],
  ['a=b\\\\', [{ field: 'a', op: '=', value: 'b\\' }], 'a=b\\\\'],
  ['a=\\\\,b=c', [
    { field: 'a', op: '=', value: '\\' },
    { field: 'b', op: '=', value: 'c' },
  ], 'a=\\\\,b=c'],
  ['x!y=z', [{ field: 'x!y', op: '=', value: 'z' }], 'x!y=z'],
  ['spec.nodeName=', [{ field: 'spec.nodeName', op: '=', value: '' }], 'spec.nodeName='],
];

test('parses valid field selectors', () => {
  valid.forEach(([input, reqs, str], i) => {
    let sel;
    try {
      sel = parseFieldSelector(input);
    } catch (e) {
      assert.unreachable(`case ${i} ${JSON.stringify(input)}: unexpected error ${(e as Error).message}`);
      return;
    }
    assert.equal(sel.requirements, reqs, `case ${i} requirements`);
    assert.is(sel.toString(), str, `case ${i} toString`);
    assert.is(sel.empty(), reqs.length === 0, `case ${i} empty`);
    assert.equal(parseFieldSelector(sel.toString()).requirements, reqs, `case ${i} round trip`);
  });
});

// [input, exact Kubernetes error message]
const invalid: [string, string][] = [
  ['a', "invalid selector: 'a'; can't understand 'a'"],
  ['a=b,c', "invalid selector: 'a=b,c'; can't understand 'c'"],
  ['a=b,c>d', "invalid selector: 'a=b,c>d'; can't understand 'c>d'"],
  ['a=b=c', 'invalid field selector: unescaped character in value: 61'],
  ['a=b\\', 'invalid field selector: invalid escape sequence: \\'],
  ['a=b\\x', 'invalid field selector: invalid escape sequence: \\x'],
  ['a=\\n', 'invalid field selector: invalid escape sequence: \\n'],
  ['a==b=c', 'invalid field selector: unescaped character in value: 61'],
  // `!=` is found first at position 1, leaving an unescaped `=` in the value
  ['a!==b', 'invalid field selector: unescaped character in value: 61'],
];

test('rejects invalid field selectors as 400 BadRequest', () => {
  invalid.forEach(([input, want], i) => {
    const err = apiError(() => parseFieldSelector(input));
    assert.is(err.code, 400, `case ${i} code`);
    assert.is(err.reason, 'BadRequest', `case ${i} reason`);
    assert.is(err.status.message, want, `case ${i} ${JSON.stringify(input)}`);
  });
});

// [selector, fields, matches]
const matching: [string, Record<string, string>, boolean][] = [
  ['', {}, true],
  ['metadata.name=a', { 'metadata.name': 'a' }, true],
  ['metadata.name=a', { 'metadata.name': 'b' }, false],
  ['metadata.name=a', {}, false],
  ['metadata.name!=a', { 'metadata.name': 'b' }, true],
  ['metadata.name!=a', { 'metadata.name': 'a' }, false],
  ['metadata.name!=a', {}, true],
  ['spec.nodeName=', {}, true],
  ['spec.nodeName=', { 'spec.nodeName': '' }, true],
  ['spec.nodeName!=', {}, false],
  ['spec.nodeName!=', { 'spec.nodeName': 'n1' }, true],
  ['a=1,b=2', { a: '1', b: '2' }, true],
  ['a=1,b=2', { a: '1', b: '3' }, false],
  ['a=x\\,y', { a: 'x,y' }, true],
  ['toString=', {}, true],
];

test('matches field sets', () => {
  matching.forEach(([sel, fields, want], i) => {
    assert.is(parseFieldSelector(sel).matches(fields), want, `case ${i} ${sel} vs ${JSON.stringify(fields)}`);
  });
});

test('requiresExactMatch and helpers', () => {
  const cases: [string, string, string | undefined][] = [
    ['metadata.name=a', 'metadata.name', 'a'],
    ['metadata.name==a', 'metadata.name', 'a'],
    ['metadata.name!=a', 'metadata.name', undefined],
    ['metadata.namespace=a', 'metadata.name', undefined],
  ];
  cases.forEach(([sel, field, want], i) => assert.is(parseFieldSelector(sel).requiresExactMatch(field), want, `case ${i}`));
  assert.is(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
  const fromSet = fieldSelectorFromSet({ 'metadata.namespace': 'ns', 'metadata.name': 'a,b' });
  assert.is(fromSet.toString(), 'metadata.name=a\\,b,metadata.namespace=ns');
  assert.ok(fromSet.matches({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' }));
});

const META = ['metadata.name', 'metadata.namespace'];

// [selector, allowed, kind, custom resource?, expected message or undefined when accepted]
const validation: [string, string[], string, boolean, string | undefined][] = [
  ['', META, 'ConfigMap', false, undefined],
  ['metadata.name=a,metadata.namespace!=b', META, 'ConfigMap', false, undefined],
  ['foo=bar', META, 'ConfigMap', false, '"foo" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ['foo.bar=baz', META, 'Ingress', false, '"foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ['metadata.name=a,zzz=1,aaa=2', META, 'ConfigMap', false, '"aaa" is not a known field selector: only "metadata.name", "metadata.namespace"'],
  ['spec.nodeName=n1', [...META, 'spec.nodeName', 'status.phase'], 'Pod', false, undefined],
  ['spec.foo=n1', [...META, 'spec.nodeName'], 'Pod', false, 'field label not supported: spec.foo'],
  ['metadata.namespace=x', ['metadata.name', 'spec.unschedulable'], 'Node', false, 'field label not supported: metadata.namespace'],
  ['type!=Opaque,foo=1', [...META, 'type'], 'Secret', false, 'field label not supported: foo'],
  ['spec.x=1', [...META, 'status.successful'], 'Job', false, 'field label "spec.x" not supported for Job'],
  ['spec.x=1', META, 'Widget', true, 'field label not supported: spec.x'],
  ['metadata.namespace=x', ['metadata.name'], 'Pod', true, 'field label not supported: metadata.namespace'],
  ['metadata.name=x', ['metadata.name'], 'Widget', true, undefined],
];

test('validateFieldSelector mirrors kube-apiserver 1.24 messages', () => {
  validation.forEach(([text, allowed, kind, customResource, want], i) => {
    const sel = parseFieldSelector(text);
    if (want === undefined) {
      validateFieldSelector(sel, allowed, kind, { customResource });
      return;
    }
    const err = apiError(() => validateFieldSelector(sel, allowed, kind, { customResource }));
    assert.is(err.code, 400, `case ${i} code`);
    assert.is(err.reason, 'BadRequest', `case ${i} reason`);
    assert.is(err.status.message, want, `case ${i}`);
  });
  assert.is(unsupportedFieldMessage('x', 'Service'), 'field label not supported: x');
});

test.run();
