/**
 * Table conversion without a server: kube's HumanDuration, TableOptions validation, the default
 * columns, headers on the first watch event only, and the PartialObjectMetadata shape checks.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tableOptions, toTable, convertObjects, orderedMetadata } from './table.ts';
import { humanDuration } from '../registry/rest/human-duration.ts';
import { configMapKind } from '../registry/core/configmap.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { ApiError } from '../api/errors.ts';

test('humanDuration as duration.HumanDuration', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-2500, '<invalid>'],
    [-1500, '0s'],
    [0, '0s'],
    [119 * s, '119s'],
    [120 * s, '2m'],
    [5 * m + 3 * s, '5m3s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h + 20 * m, '3h20m'],
    [7 * h, '7h'],
    [47 * h + 59 * m, '47h'],
    [2 * d, '2d'],
    [3 * d + 5 * h, '3d5h'],
    [8 * d, '8d'],
    [729 * d, '729d'],
    [2 * 365 * d + 10 * d, '2y10d'],
    [9 * 365 * d, '9y'],
  ];
  cases.forEach(([ms, want], i) => assert.is(humanDuration(ms), want, `case ${i}: ${ms} ms`));
});

test('includeObject: Metadata (default), Object, None; anything else is 400', () => {
  const ok: [string | null, string][] = [[null, 'Metadata'], ['', 'Metadata'], ['Metadata', 'Metadata'], ['Object', 'Object'], ['None', 'None']];
  ok.forEach(([v, want], i) => {
    const q = new URLSearchParams(v === null ? '' : `includeObject=${v}`);
    assert.is(tableOptions(q).includeObject, want, `case ${i}`);
  });
  for (const [i, v] of ['object', 'All', 'none '].entries()) {
    try {
      tableOptions(new URLSearchParams({ includeObject: v }));
      assert.unreachable(`case ${i}: ${v} accepted`);
    } catch (e) {
      assert.is((e as ApiError).code, 400, `case ${i}`);
      assert.is((e as ApiError).status.message, `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(v)}: must be 'Metadata', 'Object', 'None', or empty`);
    }
  }
});

const cm = (name: string, created?: string) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '5', name, namespace: 'n', ...(created ? { creationTimestamp: created } : {}) }, data: { a: 'b' } });
const NOW = Date.parse('2026-01-01T01:00:00Z');

test('toTable: cells, Age from creationTimestamp (<unknown> when unset), headers omitted on request', () => {
  const t = toTable(configMapKind, [cm('x', '2026-01-01T00:00:00Z'), cm('y')], { resourceVersion: '9' }, { includeObject: 'None' }, 'v1beta1', NOW) as any;
  assert.is(t.apiVersion, 'meta.k8s.io/v1beta1');
  assert.equal(t.columnDefinitions.map((c: any) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Data', 'string', ''], ['Age', 'string', '']]);
  assert.equal(t.rows, [{ cells: ['x', 1, '60m'], object: null }, { cells: ['y', 1, '<unknown>'], object: null }]);
  const again = toTable(configMapKind, [cm('x')], {}, { includeObject: 'Metadata', noHeaders: true }) as any;
  assert.is(again.columnDefinitions, null);
  assert.equal(Object.keys(again.rows[0].object.metadata), ['name', 'namespace', 'resourceVersion'], 'metadata in ObjectMeta order');
});

test('kinds without printer columns get Name and Created At (date)', () => {
  const bare = { ...configMapKind, table: undefined } as KindDescriptor;
  const t = toTable(bare, [cm('x', '2026-01-01T00:00:00Z')], {}, { includeObject: 'None' }) as any;
  assert.equal(t.columnDefinitions.map((c: any) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
  assert.equal(t.rows[0].cells, ['x', '2026-01-01T00:00:00Z']);
});

test('PartialObjectMetadata vs PartialObjectMetadataList: 406 on the wrong shape', () => {
  const cases = [
    { as: 'PartialObjectMetadata' as const, list: true, message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)' },
    { as: 'PartialObjectMetadataList' as const, list: false, message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)' },
  ];
  cases.forEach((tc, i) => {
    try {
      convertObjects(configMapKind, { as: tc.as, version: 'v1' }, [cm('x')], tc.list ? { resourceVersion: '1' } : null, { includeObject: 'Metadata' });
      assert.unreachable(`case ${i}`);
    } catch (e) {
      assert.is((e as ApiError).code, 406, `case ${i}`);
      assert.is((e as ApiError).status.message, tc.message, `case ${i}`);
    }
  });
  const list = convertObjects(configMapKind, { as: 'PartialObjectMetadataList', version: 'v1' }, [cm('x')], { resourceVersion: '7' }, { includeObject: 'Metadata' }) as any;
  assert.equal(list, { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '7' }, items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: orderedMetadata(cm('x').metadata) }] });
});

test.run();
