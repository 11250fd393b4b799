/**
 * Unit tests of what the golden answers do not show: Go's printing of numbers, pruned paths,
 * reads from storage, the update ratchet of list types, Go regexp errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { FieldPath, fieldErrorMessage } from '../api/field-errors.ts';
import { CoerceError, decodeCustomResource, validateCustomResource, validateCustomResourceUpdate } from './custom-resource.ts';
import { validateCRDSchema } from './structural.ts';
import { goRegexpError, goRegExp } from './go-regexp.ts';
import { schemaAccepts, schemaAcceptsUncompiled } from './validate.ts';
import { goFloat, goSharpV, type JSONSchemaProps } from './types.ts';

test('goFloat prints as Go %v: shortest digits, exponent below 1e-4 and from 1e+06', () => {
  const cases: [number, string][] = [
    [10, '10'],
    [0.5, '0.5'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [1e21, '1e+21'],
    [-2.5e-7, '-2.5e-07'],
  ];
  cases.forEach(([f, want], i) => assert.is(goFloat(f), want, `case ${i}: ${f}`));
});

test('goSharpV prints decoded JSON as Go %#v of interface{}', () => {
  assert.is(goSharpV({ b: [1, 'x'], a: null }), 'map[string]interface {}{"a":interface {}(nil), "b":[]interface {}{1, "x"}}');
});

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  },
};

test('decodeCustomResource returns the pruned paths, sorted, as kube names them', () => {
  const obj = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, zeta: 1, spec: { list: [{ name: 'a', junk: 1 }, { junk: 2 }], extra: true } };
  assert.equal(decodeCustomResource(obj, schema), ['spec.extra', 'spec.list[0].junk', 'spec.list[1].junk', 'zeta']);
  assert.equal(obj, { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: { list: [{ name: 'a' }, {}] } });
});

test('wrongly typed embedded metadata: refused in a request, dropped when read from storage', () => {
  const body = () => ({ apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 5, labels: { a: 'b' } } } } });
  try {
    decodeCustomResource(body(), schema);
    assert.unreachable('should refuse');
  } catch (e) {
    assert.instance(e, CoerceError);
    assert.is(
      (e as CoerceError).detail,
      'spec.template.metadata: Invalid value: map[string]interface {}{"labels":map[string]interface {}{"a":"b"}, "name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string',
    );
  }
  const stored = body();
  decodeCustomResource(stored, schema, { fromStorage: true });
  assert.equal((stored.spec.template as any).metadata, { labels: { a: 'b' } });
});

test('an update checks list sets only when the old object passed that check (kube ratchet)', () => {
  const obj = (set: string[]) => ({ apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: { set } });
  assert.equal(validateCustomResourceUpdate(obj(['a', 'a']), obj(['a', 'a', 'b', 'b']), schema), []);
  assert.equal(validateCustomResourceUpdate(obj(['a', 'a']), obj(['a']), schema).map(fieldErrorMessage), ['spec.set[1]: Duplicate value: "a"']);
});

test('Go regexp: flags, refused Perl syntax, error texts', () => {
  assert.ok(goRegExp('(?i)^abc$').test('ABC'));
  assert.is(goRegexpError('^a(?=b)'), 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
  assert.is(goRegexpError('(a)\\1'), 'error parsing regexp: invalid escape sequence: `\\1`');
  assert.is(goRegexpError('a)'), 'error parsing regexp: unexpected ): `a)`');
  assert.is(goRegexpError('^[a-z]+$'), undefined);
});

test('arbitrary schemas and values: answers, never a crash (only CoerceError is thrown, by decode)', () => {
  const leaf = fc.oneof(fc.constant({ type: 'string' }), fc.constant({ type: 'integer', minimum: 1 }), fc.constant({ 'x-kubernetes-int-or-string': true }), fc.constant({ type: 'string', format: 'uuid' }));
  const { schema } = fc.letrec<{ schema: any }>((tie) => ({
    schema: fc.oneof(
      { depthSize: 'small' },
      leaf,
      fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom('a', 'b', 'metadata', 'kind'), tie('schema'), { maxKeys: 3 }) }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constant('array'), items: tie('schema'), 'x-kubernetes-list-type': fc.constantFrom('set', 'map', 'atomic') }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constant('object'), 'x-kubernetes-embedded-resource': fc.boolean(), 'x-kubernetes-preserve-unknown-fields': fc.boolean(), default: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({ anyOf: fc.array(tie('schema'), { maxLength: 2 }), not: tie('schema') }),
    ),
  }));
  fc.assert(
    fc.property(schema, fc.jsonValue({ maxDepth: 4 }), (s, v) => {
      validateCRDSchema(s, new FieldPath('spec.validation.openAPIV3Schema'));
      const obj = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: v, a: v };
      try {
        decodeCustomResource(obj, s);
      } catch (e) {
        if (!(e instanceof CoerceError)) throw e;
        return;
      }
      validateCustomResource(obj, s);
      validateCustomResourceUpdate(obj, obj, s);
    }),
    { numRuns: 300 },
  );
});

test('a schema of 50 levels and one of 1,000 properties: checked, and a deep error names its full path', () => {
  let deep: JSONSchemaProps = { type: 'integer', maximum: 1 };
  let value: unknown = 2;
  for (let i = 0; i < 50; i++) {
    deep = { type: 'object', properties: { n: deep } };
    value = { n: value };
  }
  const root: JSONSchemaProps = { type: 'object', properties: { spec: deep } };
  assert.equal(validateCRDSchema(root, new FieldPath('s')), []);
  const errs = validateCustomResource({ apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: value as object }, root);
  assert.equal(errs.map((e) => e.field), [`spec${'.n'.repeat(50)}`]);

  const wide: JSONSchemaProps = { type: 'object', properties: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: 'string', default: 'd' }])) };
  const big = { type: 'object', properties: { spec: wide } } as JSONSchemaProps;
  assert.equal(validateCRDSchema(big, new FieldPath('s')), []);
  const obj = { apiVersion: 'g/v1', kind: 'K', metadata: { name: 'x' }, spec: { p1: 5 } };
  decodeCustomResource(obj, big);
  assert.is(Object.keys(obj.spec).length, 1000);
  assert.equal(validateCustomResource(obj, big).map(fieldErrorMessage), ['spec.p1: Invalid value: "integer": spec.p1 in body must be of type string: "integer"']);
});


test('the compiled schema check accepts exactly what the full validator accepts (random schemas and values)', () => {
  const names = ['a', 'b', 'c'];
  const { schema: schemaArb } = fc.letrec<{ schema: JSONSchemaProps; leaf: JSONSchemaProps }>((tie) => ({
    leaf: fc.oneof(
      fc.record(
        {
          type: fc.constant('string'),
          maxLength: fc.integer({ min: 0, max: 4 }),
          minLength: fc.integer({ min: 0, max: 3 }),
          pattern: fc.constantFrom('^a', 'b$', '^[a-c]*$'),
          format: fc.constantFrom('email', 'uuid', 'date-time', 'date', 'byte', 'int32', 'unknown-format'),
          enum: fc.array(fc.oneof(fc.constantFrom('a', 'ab', '😀'), fc.integer({ min: 0, max: 2 }), fc.constant(null)), { maxLength: 3 }),
          nullable: fc.boolean(),
        },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        {
          type: fc.constantFrom('integer', 'number'),
          minimum: fc.oneof(fc.integer({ min: -2, max: 2 }), fc.double({ min: -2, max: 2, noNaN: true })),
          maximum: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.double({ min: -2, max: 3, noNaN: true })),
          exclusiveMinimum: fc.boolean(),
          exclusiveMaximum: fc.boolean(),
          multipleOf: fc.constantFrom(1, 2, 0.5),
          format: fc.constantFrom('int32', 'double', 'email'),
          enum: fc.array(fc.integer({ min: -1, max: 2 }), { maxLength: 2 }),
        },
        { requiredKeys: ['type'] },
      ),
      fc.constantFrom<JSONSchemaProps>({ type: 'boolean' }, { 'x-kubernetes-int-or-string': true }, {}, { format: 'email' }, { type: 'string', uniqueItems: true }),
    ),
    schema: fc.oneof(
      { depthSize: 'small' },
      tie('leaf') as fc.Arbitrary<JSONSchemaProps>,
      fc.record(
        {
          type: fc.constant('object'),
          properties: fc.dictionary(fc.constantFrom(...names), tie('schema') as fc.Arbitrary<JSONSchemaProps>, { maxKeys: 3 }),
          required: fc.subarray(names),
          additionalProperties: fc.oneof(fc.constant(false), tie('leaf') as fc.Arbitrary<JSONSchemaProps>),
          minProperties: fc.integer({ min: 0, max: 2 }),
          maxProperties: fc.integer({ min: 0, max: 3 }),
          anyOf: fc.array(tie('leaf') as fc.Arbitrary<JSONSchemaProps>, { minLength: 1, maxLength: 2 }),
          nullable: fc.boolean(),
        },
        { requiredKeys: ['type'] },
      ),
      fc.record(
        {
          type: fc.constant('array'),
          items: tie('schema') as fc.Arbitrary<JSONSchemaProps>,
          minItems: fc.integer({ min: 0, max: 2 }),
          maxItems: fc.integer({ min: 0, max: 3 }),
          uniqueItems: fc.boolean(),
        },
        { requiredKeys: ['type'] },
      ),
    ),
  }));
  const { value: valueArb } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('a', 'ab', 'b', 'abc', '', '😀😀', 'x@example.com', '0f8fad5b-d9cb-469f-a165-70867728950e', '2026-11-28T20:00:00Z', '2026-11-28'),
      fc.integer({ min: -3, max: 4 }),
      fc.double({ min: -3, max: 4, noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom(...names, 'd'), tie('value'), { maxKeys: 4 }),
    ),
  }));
  fc.assert(
    fc.property(schemaArb, valueArb, (s, v) => schemaAccepts(s, v) === schemaAcceptsUncompiled(s, v)),
    { numRuns: 4000 },
  );
});
test.run();
