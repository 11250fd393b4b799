import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { KubeObject } from '../../api/types.ts';
import { jsonEqual } from '../../gocompat/equal.ts';
import { sameButVolatile, stripVolatile } from './store-base.ts';

test('sameButVolatile is jsonEqual(stripVolatile(a), stripVolatile(b)) on random object pairs (no-op update detection)', () => {
  // Small domains, so that equal pairs (and pairs differing only in volatile fields) are common.
  const scalar = fc.constantFrom<unknown>('a', 'b', 1, true, null, undefined);
  const value = fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.constantFrom('k', 'l'), scalar, { maxKeys: 2 }));
  const entry = fc.record(
    { manager: fc.constantFrom('m', 'n'), operation: fc.constantFrom('Update', 'Apply'), time: fc.constantFrom('t1', 't2', undefined), fieldsV1: fc.constantFrom({}, { 'f:data': {} }) },
    { requiredKeys: ['manager'] },
  );
  const metadata = fc.record(
    {
      name: fc.constantFrom('x', 'y'),
      resourceVersion: fc.constantFrom('1', '2', undefined),
      labels: fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom('1', '2'), { maxKeys: 2 }),
      managedFields: fc.oneof(fc.constant(undefined), fc.constant(null), fc.array(entry, { maxLength: 2 })),
      uid: scalar,
    },
    { requiredKeys: [] },
  );
  const obj = fc.record({ apiVersion: fc.constantFrom('v1'), kind: fc.constantFrom('ConfigMap', undefined), metadata, data: value }, { requiredKeys: ['metadata'] }) as fc.Arbitrary<KubeObject>;
  // b: either independent, or a with only volatile parts changed.
  const pair = fc.oneof(
    fc.tuple(obj, obj),
    fc.tuple(obj, fc.constantFrom('3', undefined), fc.constantFrom('t9', undefined)).map(([a, rv, time]): [KubeObject, KubeObject] => {
      const b = structuredClone(a);
      if (rv === undefined) delete b.metadata.resourceVersion;
      else b.metadata.resourceVersion = rv;
      for (const e of b.metadata.managedFields ?? []) e.time = time;
      return [a, b];
    }),
  );
  let equal = 0;
  fc.assert(
    fc.property(pair, ([a, b]) => {
      const want = jsonEqual(stripVolatile(a), stripVolatile(b));
      if (want) equal++;
      assert.is(sameButVolatile(a, b), want);
      assert.is(sameButVolatile(b, a), want);
    }),
    { numRuns: 3000 },
  );
  assert.ok(equal > 300, `only ${equal} equal pairs`);
});

test('sameButVolatile: shapes stripVolatile throws on are its answer too', () => {
  const a = { apiVersion: 'v1', metadata: { managedFields: [null] } } as unknown as KubeObject;
  assert.throws(() => sameButVolatile(a, a));
});

test.run();
