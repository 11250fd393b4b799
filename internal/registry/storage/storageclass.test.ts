import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want } from '../core/testing.ts';
import { storageClassKind, storageClassTable } from './storageclass.ts';

const S = storageClassKind.strategy;
const sc = (fields: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'sc', creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
  provisioner: 'example.com/p',
  ...fields,
});
const created = (o: KubeObject): KubeObject => {
  S.defaults?.(o);
  S.prepareForCreate?.(o);
  return o;
};

test('descriptor', () => {
  assert.equal([storageClassKind.group, storageClassKind.resource, storageClassKind.kind, storageClassKind.listKind], ['storage.k8s.io', 'storageclasses', 'StorageClass', 'StorageClassList']);
  assert.is(storageClassKind.namespaced, false);
  assert.equal(storageClassKind.shortNames, ['sc']);
  assert.is(storageClassKind.deleteReturns, 'Object');
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
});

test('defaults: reclaimPolicy Delete and volumeBindingMode Immediate only when unset', () => {
  const d = created(sc());
  assert.is(d.reclaimPolicy, 'Delete');
  assert.is(d.volumeBindingMode, 'Immediate');
  const kept = created(sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }));
  assert.is(kept.reclaimPolicy, 'Retain');
  assert.is(kept.volumeBindingMode, 'WaitForFirstConsumer');
  assert.is(created(sc({ reclaimPolicy: null })).reclaimPolicy, 'Delete');
});

const KEY_MSG = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const cases: { name: string; obj: KubeObject; want: Want[] }[] = [
  { name: 'minimal', obj: sc(), want: [] },
  { name: 'full', obj: sc({ parameters: { a: 'b' }, mountOptions: ['ro'], allowVolumeExpansion: true, allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }] }), want: [] },
  { name: 'provisioner required', obj: sc({ provisioner: '' }), want: [{ type: 'FieldValueRequired', field: 'provisioner', msg: 'provisioner: Required value' }] },
  { name: 'provisioner checked lower-cased', obj: sc({ provisioner: 'Example.COM/Foo' }), want: [] },
  { name: 'provisioner not a qualified name', obj: sc({ provisioner: 'a b' }), want: [{ type: 'FieldValueInvalid', field: 'provisioner', msg: `Invalid value: "a b": ${KEY_MSG}` }] },
  { name: 'empty parameter key', obj: sc({ parameters: { '': 'x' } }), want: [{ type: 'FieldValueInvalid', field: 'parameters', msg: 'parameters: Invalid value: "": field can not be empty.' }] },
  {
    name: 'too many parameters',
    obj: sc({ parameters: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v'])) }),
    want: [{ type: 'FieldValueTooLong', field: 'parameters', msg: 'parameters: Too long: must have at most 512 bytes' }],
  },
  { name: 'parameters too big', obj: sc({ parameters: { k: 'x'.repeat(256 * 1024) } }), want: [{ type: 'FieldValueTooLong', field: 'parameters', msg: 'Too long: must have at most 262144 bytes' }] },
  { name: 'reclaimPolicy Recycle', obj: sc({ reclaimPolicy: 'Recycle' }), want: [{ type: 'FieldValueNotSupported', field: 'reclaimPolicy', msg: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' }] },
  { name: 'empty reclaimPolicy passes', obj: sc({ reclaimPolicy: '' }), want: [] },
  { name: 'bad binding mode', obj: sc({ volumeBindingMode: 'Later' }), want: [{ type: 'FieldValueNotSupported', field: 'volumeBindingMode', msg: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' }] },
  {
    name: 'topology: values required and unique, keys valid and unique',
    obj: sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'a b', values: [] }, { key: 'a b', values: ['x', 'x'] }] }] }),
    want: [
      { type: 'FieldValueRequired', field: 'allowedTopologies[0].matchLabelExpressions[0].values' },
      { type: 'FieldValueInvalid', field: 'allowedTopologies[0].matchLabelExpressions[0].key', msg: KEY_MSG },
      { type: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[1].values[1]', msg: 'Duplicate value: "x"' },
      { type: 'FieldValueInvalid', field: 'allowedTopologies[0].matchLabelExpressions[1].key', msg: KEY_MSG },
      { type: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[1].key', msg: 'Duplicate value: "a b"' },
    ],
  },
  {
    name: 'topology: duplicate terms (values compared as sets)',
    obj: sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'k', values: ['a', 'b'] }] }, { matchLabelExpressions: [{ key: 'k', values: ['b', 'a'] }] }] }),
    want: [{ type: 'FieldValueDuplicate', field: 'allowedTopologies[1].matchLabelExpressions', msg: 'Duplicate value: ""' }],
  },
  {
    name: 'topology: an empty term equals every nil placeholder of kube\'s list',
    obj: sc({ allowedTopologies: [{}, { matchLabelExpressions: [{ key: 'k', values: ['v'] }] }] }),
    want: [
      { type: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions' },
      { type: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions' },
    ],
  },
];

test('validate', () => {
  for (const c of cases) check(c.name, S.validate(created(c.obj)), c.want);
});

test('validateUpdate: provisioner, parameters, reclaimPolicy, volumeBindingMode immutable', () => {
  const old = created(sc({ parameters: { a: '1' } }));
  check('no change', S.validateUpdate(created(sc({ parameters: { a: '1' }, mountOptions: ['x'], allowVolumeExpansion: true })), old), []);
  check(
    'all four',
    S.validateUpdate(created(sc({ provisioner: 'example.com/q', parameters: { a: '2' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' })), old),
    [
      { type: 'FieldValueForbidden', field: 'parameters', msg: 'parameters: Forbidden: updates to parameters are forbidden.' },
      { type: 'FieldValueForbidden', field: 'provisioner', msg: 'provisioner: Forbidden: updates to provisioner are forbidden.' },
      { type: 'FieldValueForbidden', field: 'reclaimPolicy', msg: 'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.' },
      { type: 'FieldValueInvalid', field: 'volumeBindingMode', msg: 'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable' },
    ],
  );
  // reflect.DeepEqual: an empty map is not a nil one.
  check('{} vs nil parameters', S.validateUpdate(created(sc({ parameters: {} })), created(sc())), [{ type: 'FieldValueForbidden', field: 'parameters' }]);
  check('new object validated too', S.validateUpdate(created(sc({ parameters: { a: '1' }, reclaimPolicy: 'Recycle' })), old), [
    { type: 'FieldValueNotSupported', field: 'reclaimPolicy' },
    { type: 'FieldValueForbidden', field: 'reclaimPolicy' },
  ]);
});

test('Table: printStorageClass cells, "(default)" for either annotation', () => {
  assert.equal(storageClassTable.columns.map((c) => [c.name, c.type, c.priority]), [
    ['Name', 'string', 0],
    ['Provisioner', 'string', 0],
    ['ReclaimPolicy', 'string', 0],
    ['VolumeBindingMode', 'string', 0],
    ['AllowVolumeExpansion', 'string', 0],
    ['Age', 'string', 0],
  ]);
  assert.equal(storageClassTable.cells(created(sc())), ['sc', 'example.com/p', 'Delete', 'Immediate', false, '2024-01-01T00:00:00Z']);
  assert.equal(storageClassTable.cells(sc({ allowVolumeExpansion: true }, { 'storageclass.kubernetes.io/is-default-class': 'true' }))[0], 'sc (default)');
  assert.equal(storageClassTable.cells(sc({}, { 'storageclass.beta.kubernetes.io/is-default-class': 'true' }))[0], 'sc (default)');
  assert.equal(storageClassTable.cells(sc({}, { 'storageclass.kubernetes.io/is-default-class': 'false' }))[0], 'sc');
  // Unset fields print kube's defaults.
  assert.equal(storageClassTable.cells(sc()).slice(2, 5), ['Delete', 'Immediate', false]);
  assert.equal(storageClassTable.cells(sc({ allowVolumeExpansion: true }))[4], true);
});

test.run();
