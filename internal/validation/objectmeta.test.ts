import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ObjectMeta } from '../api/types.ts';
import { type FieldError, FieldPath, fieldErrorMessage } from '../api/field-errors.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain } from './names.ts';
import {
  prepareObjectMetaForUpdate,
  validateAnnotations,
  validateLabels,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './objectmeta.ts';

/** Expected error: type and field, plus optionally a substring of the rendered message. */
interface Want {
  type: FieldError['type'];
  field: string;
  msg?: string;
}

const check = (i: number, label: string, got: FieldError[], want: Want[]): void => {
  const shown = JSON.stringify(got.map(fieldErrorMessage));
  assert.is(got.length, want.length, `case ${i} (${label}): want ${want.length} errors, got ${shown}`);
  want.forEach((w, j) => {
    const g = got[j]!;
    assert.is(g.type, w.type, `case ${i} (${label}) error ${j}: type; got ${shown}`);
    assert.is(g.field, w.field, `case ${i} (${label}) error ${j}: field; got ${shown}`);
    if (w.msg) assert.ok(fieldErrorMessage(g).includes(w.msg), `case ${i} (${label}) error ${j}: message ${shown} lacks ${JSON.stringify(w.msg)}`);
  });
};

interface CreateCase {
  name: string;
  meta: ObjectMeta;
  namespaced?: boolean;
  label?: boolean;
  want: Want[];
}

const bigAnnotations = (bytes: number): Record<string, string> => ({ k: 'x'.repeat(bytes - 1) });

const createCases: CreateCase[] = [
  { name: 'minimal namespaced', meta: { name: 'a', namespace: 'default' }, want: [] },
  { name: 'cluster-scoped', meta: { name: 'a' }, namespaced: false, want: [] },
  {
    name: 'missing name',
    meta: { namespace: 'default' },
    want: [{ type: 'FieldValueRequired', field: 'metadata.name', msg: 'metadata.name: Required value: name or generateName is required' }],
  },
  { name: 'generateName only (name not generated yet)', meta: { generateName: 'web-', namespace: 'ns' }, want: [] },
  { name: 'generateName and generated name', meta: { generateName: 'web-', name: 'web-x7k2p', namespace: 'ns' }, want: [] },
  {
    name: 'bad generateName',
    meta: { generateName: 'Web-', name: 'web-abcde', namespace: 'ns' },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.generateName', msg: 'metadata.generateName: Invalid value: "Web-": a lowercase RFC 1123 subdomain' }],
  },
  {
    name: 'bad name',
    meta: { name: 'Foo', namespace: 'ns' },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.name', msg: 'metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain' }],
  },
  {
    name: 'label name validator rejects dots',
    meta: { name: 'a.b' },
    namespaced: false,
    label: true,
    want: [{ type: 'FieldValueInvalid', field: 'metadata.name', msg: 'a lowercase RFC 1123 label' }],
  },
  { name: 'missing namespace', meta: { name: 'a' }, want: [{ type: 'FieldValueRequired', field: 'metadata.namespace', msg: 'metadata.namespace: Required value' }] },
  { name: 'bad namespace', meta: { name: 'a', namespace: 'a.b' }, want: [{ type: 'FieldValueInvalid', field: 'metadata.namespace', msg: 'RFC 1123 label' }] },
  {
    name: 'namespace on cluster-scoped',
    meta: { name: 'a', namespace: 'default' },
    namespaced: false,
    want: [{ type: 'FieldValueForbidden', field: 'metadata.namespace', msg: 'metadata.namespace: Forbidden: not allowed on this type' }],
  },
  {
    name: 'negative generation',
    meta: { name: 'a', namespace: 'n', generation: -1 },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.generation', msg: 'must be greater than or equal to 0' }],
  },
  { name: 'good labels', meta: { name: 'a', namespace: 'n', labels: { app: 'web', 'example.com/tier': '', 'k8s.io/x': 'A_b.c-1' } }, want: [] },
  {
    name: 'bad label key',
    meta: { name: 'a', namespace: 'n', labels: { '-bad': 'v' } },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.labels', msg: 'metadata.labels: Invalid value: "-bad": name part must consist' }],
  },
  {
    name: 'bad label value',
    meta: { name: 'a', namespace: 'n', labels: { k: 'a b' } },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.labels', msg: 'metadata.labels: Invalid value: "a b": a valid label must be' }],
  },
  {
    name: 'label value too long',
    meta: { name: 'a', namespace: 'n', labels: { k: 'a'.repeat(64) } },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.labels', msg: 'must be no more than 63 characters' }],
  },
  { name: 'annotation key is case-insensitive', meta: { name: 'a', namespace: 'n', annotations: { 'Example.COM/Key': 'any value at all' } }, want: [] },
  {
    name: 'bad annotation key',
    meta: { name: 'a', namespace: 'n', annotations: { 'a b': 'v' } },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.annotations', msg: 'Invalid value: "a b"' }],
  },
  { name: 'annotations exactly at limit', meta: { name: 'a', namespace: 'n', annotations: bigAnnotations(262144) }, want: [] },
  {
    name: 'annotations over limit',
    meta: { name: 'a', namespace: 'n', annotations: bigAnnotations(262145) },
    want: [{ type: 'FieldValueTooLong', field: 'metadata.annotations', msg: 'metadata.annotations: Too long: must have at most 262144 bytes' }],
  },
  { name: 'standard and qualified finalizers', meta: { name: 'a', namespace: 'n', finalizers: ['kubernetes', 'orphan', 'example.com/f'] }, want: [] },
  {
    name: 'unqualified non-standard finalizer',
    meta: { name: 'a', namespace: 'n', finalizers: ['example.com/ok', 'custom'] },
    want: [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.finalizers[1]',
        msg: 'metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
      },
    ],
  },
  {
    name: 'finalizer with invalid format',
    meta: { name: 'a', namespace: 'n', finalizers: ['example.com/-x'] },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.finalizers', msg: 'name part must consist' }],
  },
  {
    name: 'orphan and foregroundDeletion together',
    meta: { name: 'a', namespace: 'n', finalizers: ['orphan', 'foregroundDeletion'] },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.finalizers', msg: 'finalizer orphan and foregroundDeletion cannot be both set' }],
  },
  {
    name: 'ownerReference missing fields',
    meta: { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: '', kind: '', name: '', uid: '' }] },
    want: [
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', msg: 'version must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.kind', msg: 'Invalid value: "": kind must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.name', msg: 'Invalid value: "": name must not be empty' },
      { type: 'FieldValueInvalid', field: 'metadata.ownerReferences.uid', msg: 'Invalid value: "": uid must not be empty' },
    ],
  },
  {
    name: 'ownerReference group without version',
    meta: { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'apps/', kind: 'Deployment', name: 'd', uid: 'u' }] },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.ownerReferences.apiVersion', msg: 'version must not be empty' }],
  },
  {
    name: 'Event may not own',
    meta: { name: 'a', namespace: 'n', ownerReferences: [{ apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' }] },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.ownerReferences', msg: 'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being an owner' }],
  },
  {
    name: 'two controllers',
    meta: {
      name: 'a',
      namespace: 'n',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: '2', controller: true },
      ],
    },
    want: [
      {
        type: 'FieldValueInvalid',
        field: 'metadata.ownerReferences',
        msg: 'Only one reference can have Controller set to true. Found "true" in references for d and r',
      },
    ],
  },
];

createCases.forEach((c, i) => {
  test(`create case ${i}: ${c.name}`, () => {
    const got = validateObjectMeta(c.meta, c.namespaced ?? true, c.label ? nameIsDNSLabel : nameIsDNSSubdomain);
    check(i, c.name, got, c.want);
  });
});

test('custom resources can skip the standard-finalizer rule', () => {
  const got = validateObjectMeta({ name: 'a', namespace: 'n', finalizers: ['custom'] }, true, nameIsDNSSubdomain, undefined, {
    kubeFinalizers: false,
  });
  assert.equal(got, []);
});

test('path prefix is honoured', () => {
  const got = validateObjectMeta({ name: 'Bad', namespace: 'n' }, true, nameIsDNSSubdomain, new FieldPath('spec').child('template').child('metadata'));
  assert.is(got[0]?.field, 'spec.template.metadata.name');
});

interface UpdateCase {
  name: string;
  old: ObjectMeta;
  new: ObjectMeta;
  want: Want[];
}

const base: ObjectMeta = {
  name: 'a',
  namespace: 'n',
  uid: 'u-1',
  resourceVersion: '5',
  generation: 2,
  creationTimestamp: '2024-01-01T00:00:00Z',
};

const updateCases: UpdateCase[] = [
  { name: 'unchanged', old: base, new: { ...base }, want: [] },
  { name: 'labels change', old: base, new: { ...base, labels: { a: 'b' } }, want: [] },
  { name: 'name changes', old: base, new: { ...base, name: 'b' }, want: [{ type: 'FieldValueInvalid', field: 'metadata.name', msg: 'metadata.name: Invalid value: "b": field is immutable' }] },
  { name: 'namespace changes', old: base, new: { ...base, namespace: 'm' }, want: [{ type: 'FieldValueInvalid', field: 'metadata.namespace', msg: 'field is immutable' }] },
  { name: 'uid changes', old: base, new: { ...base, uid: 'u-2' }, want: [{ type: 'FieldValueInvalid', field: 'metadata.uid', msg: 'field is immutable' }] },
  {
    name: 'creationTimestamp changes',
    old: base,
    new: { ...base, creationTimestamp: '2025-01-01T00:00:00Z' },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.creationTimestamp', msg: 'field is immutable' }],
  },
  {
    name: 'deletionTimestamp set by update',
    old: base,
    new: { ...base, deletionTimestamp: '2025-01-01T00:00:00Z' },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.deletionTimestamp', msg: 'field is immutable' }],
  },
  {
    name: 'deletionGracePeriodSeconds set by update',
    old: base,
    new: { ...base, deletionGracePeriodSeconds: 30 },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.deletionGracePeriodSeconds', msg: 'field is immutable' }],
  },
  { name: 'generation decremented', old: base, new: { ...base, generation: 1 }, want: [{ type: 'FieldValueInvalid', field: 'metadata.generation', msg: 'must not be decremented' }] },
  {
    name: 'finalizer added while deleting',
    old: { ...base, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['example.com/a'] },
    new: { ...base, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['example.com/a', 'example.com/c', 'example.com/b'] },
    want: [
      {
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        msg: 'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
      },
    ],
  },
  {
    name: 'finalizer removed while deleting',
    old: { ...base, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: ['example.com/a'] },
    new: { ...base, deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [] },
    want: [],
  },
  {
    name: 'new metadata still validated',
    old: base,
    new: { ...base, labels: { k: '-' }, finalizers: ['nope'] },
    want: [
      { type: 'FieldValueInvalid', field: 'metadata.labels' },
      { type: 'FieldValueInvalid', field: 'metadata.finalizers[0]', msg: 'neither a standard finalizer' },
    ],
  },
];

updateCases.forEach((c, i) => {
  test(`update case ${i}: ${c.name}`, () => {
    check(i, c.name, validateObjectMetaUpdate(c.new, c.old), c.want);
  });
});

test('prepareObjectMetaForUpdate makes a bare replace valid', () => {
  const old: ObjectMeta = { ...base, deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 };
  const next: ObjectMeta = { name: 'a', namespace: 'n', resourceVersion: '5', creationTimestamp: '1999-01-01T00:00:00Z' };
  assert.ok(validateObjectMetaUpdate(next, old).length > 0);
  prepareObjectMetaForUpdate(next, old);
  assert.equal(validateObjectMetaUpdate(next, old), []);
  assert.is(next.uid, 'u-1');
  assert.is(next.creationTimestamp, base.creationTimestamp);
  assert.is(next.generation, 2);
});

test('validateLabels / validateAnnotations report at the given path', () => {
  assert.is(validateLabels({ '': 'x' }, new FieldPath('spec.selector'))[0]?.field, 'spec.selector');
  assert.equal(validateAnnotations(undefined, new FieldPath('metadata.annotations')), []);
});

test.run();
