import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import type { FieldError } from '../../api/field-errors.ts';
import { check, type Want } from './testing.ts';
import { validateObjectMeta } from '../../validation/objectmeta.ts';
import { nameIsDNSLabel, nameIsDNSSubdomain } from '../../validation/names.ts';
import { namespaceKind } from './namespace.ts';
import { coreKinds } from './index.ts';


const S = namespaceKind.strategy;
const sub = (name: string) => namespaceKind.subresources!.find((s) => s.name === name)!;

const ns = (name: string | undefined, fields: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: name === undefined ? {} : { name },
  ...fields,
});

/** What the store does on create, minus storage: default → prepare → validate → canonicalize. */
const create = (o: KubeObject): { obj: KubeObject; errs: FieldError[] } => {
  S.defaults?.(o);
  S.prepareForCreate?.(o);
  const errs = [...validateObjectMeta(o.metadata, namespaceKind.namespaced, namespaceKind.nameFormat === 'label' ? nameIsDNSLabel : nameIsDNSSubdomain), ...S.validate(o)];
  S.canonicalize?.(o);
  return { obj: o, errs };
};

const stored = (name: string, fields: Partial<KubeObject> = {}): KubeObject => {
  const o = create(ns(name, fields)).obj;
  o.metadata.uid = 'uid-1';
  o.metadata.resourceVersion = '10';
  o.metadata.creationTimestamp = '2024-01-01T00:00:00Z';
  return o;
};

test('descriptor', () => {
  assert.is(namespaceKind.resource, 'namespaces');
  assert.is(namespaceKind.kind, 'Namespace');
  assert.is(namespaceKind.group, '');
  assert.equal(namespaceKind.versions, ['v1']);
  assert.is(namespaceKind.namespaced, false);
  assert.equal(namespaceKind.shortNames, ['ns']);
  assert.is(namespaceKind.deleteReturns, 'Object');
  assert.equal(
    namespaceKind.bootstrap!.map((o) => o.metadata.name),
    ['default', 'kube-system', 'kube-public', 'kube-node-lease'],
  );
  assert.equal(namespaceKind.bootstrap![0], { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  assert.equal(namespaceKind.undeletable, ['default', 'kube-system', 'kube-public']);
  assert.equal(
    namespaceKind.subresources!.map((s) => [s.name, s.verbs]),
    [
      ['status', ['get', 'update', 'patch']],
      ['finalize', ['update']],
    ],
  );
  assert.equal(coreKinds.map((k) => k.kind), ['Namespace', 'ConfigMap', 'Secret', 'Service', 'Endpoints', 'Event', 'PersistentVolume', 'PersistentVolumeClaim', 'Pod', 'ServiceAccount', 'PodTemplate', 'LimitRange', 'ResourceQuota', 'ReplicationController', 'Node', 'ComponentStatus']);
});

interface CreateCase {
  name: string;
  obj: KubeObject;
  want: Want[];
  finalizers?: string[];
}

const createCases: CreateCase[] = [
  { name: 'plain', obj: ns('team-a'), want: [], finalizers: ['kubernetes'] },
  { name: 'digits first is fine', obj: ns('2000-abc'), want: [] },
  { name: 'kubernetes finalizer kept once', obj: ns('a', { spec: { finalizers: ['kubernetes'] } }), want: [], finalizers: ['kubernetes'] },
  { name: 'kubernetes finalizer appended', obj: ns('a', { spec: { finalizers: ['example.com/x'] } }), want: [], finalizers: ['example.com/x', 'kubernetes'] },
  {
    name: 'unqualified spec finalizer',
    obj: ns('a', { spec: { finalizers: ['custom'] } }),
    want: [{ type: 'FieldValueInvalid', field: 'spec.finalizers', msg: 'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' }],
  },
  {
    name: 'malformed spec finalizer reported twice like Kubernetes',
    obj: ns('a', { spec: { finalizers: ['-x'] } }),
    want: [
      { type: 'FieldValueInvalid', field: 'spec.finalizers', msg: 'name part must consist' },
      { type: 'FieldValueInvalid', field: 'spec.finalizers', msg: 'neither a standard finalizer' },
    ],
  },
  {
    name: 'dotted name is a subdomain but not a label',
    obj: ns('a.b'),
    want: [{ type: 'FieldValueInvalid', field: 'metadata.name', msg: 'metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must consist of' }],
  },
  {
    // The defaulted kubernetes.io/metadata.name label is too long as well; Kubernetes reports both.
    name: '64-char name',
    obj: ns('a'.repeat(64)),
    want: [
      { type: 'FieldValueInvalid', field: 'metadata.name', msg: 'must be no more than 63 characters' },
      { type: 'FieldValueInvalid', field: 'metadata.labels', msg: 'must be no more than 63 characters' },
    ],
  },
  // Not even a subdomain: the generic metadata check reports it, once.
  { name: 'upper case name', obj: ns('Team'), want: [{ type: 'FieldValueInvalid', field: 'metadata.name', msg: 'RFC 1123 label' }] },
  { name: 'missing name', obj: ns(undefined), want: [{ type: 'FieldValueRequired', field: 'metadata.name' }] },
  {
    name: 'namespace on namespace',
    obj: { ...ns('a'), metadata: { name: 'a', namespace: 'default' } },
    want: [{ type: 'FieldValueForbidden', field: 'metadata.namespace', msg: 'not allowed on this type' }],
  },
  {
    name: 'generateName with dot',
    obj: { ...ns(undefined), metadata: { generateName: 'a.b-' } },
    want: [{ type: 'FieldValueInvalid', field: 'metadata.generateName', msg: 'RFC 1123 label' }],
  },
];

createCases.forEach((c, i) => {
  test(`create case ${i}: ${c.name}`, () => {
    const { obj, errs } = create(c.obj);
    check(`create case ${i} (${c.name})`, errs, c.want);
    assert.equal(obj.status, { phase: 'Active' }, `create case ${i}: status`);
    if (c.finalizers) assert.equal((obj.spec as { finalizers: string[] }).finalizers, c.finalizers, `create case ${i}: finalizers`);
  });
});

test('create drops client status and sets the name label', () => {
  const { obj } = create(ns('x', { status: { phase: 'Terminating', conditions: [{}] } }));
  assert.equal(obj.status, { phase: 'Active' });
  assert.is(obj.metadata.labels?.['kubernetes.io/metadata.name'], 'x');
});

test('canonicalize labels a generateName namespace once named', () => {
  const o = ns(undefined);
  o.metadata.generateName = 'gen-';
  S.defaults?.(o);
  assert.is(o.metadata.labels?.['kubernetes.io/metadata.name'], undefined);
  o.metadata.name = 'gen-abcde'; // the store generates the name
  S.canonicalize?.(o);
  assert.is(o.metadata.labels?.['kubernetes.io/metadata.name'], 'gen-abcde');
});

interface UpdateCase {
  name: string;
  mutate: (n: KubeObject) => void;
  finalizers: string[];
  phase: string;
  labels?: Record<string, string>;
  want: Want[];
}

const updateCases: UpdateCase[] = [
  { name: 'labels change', mutate: (n) => (n.metadata.labels = { a: 'b' }), finalizers: ['kubernetes'], phase: 'Active', labels: { a: 'b', 'kubernetes.io/metadata.name': 'x' }, want: [] },
  { name: 'spec.finalizers ignored', mutate: (n) => (n.spec = { finalizers: [] }), finalizers: ['kubernetes'], phase: 'Active', want: [] },
  { name: 'spec dropped', mutate: (n) => delete n.spec, finalizers: ['kubernetes'], phase: 'Active', want: [] },
  { name: 'status ignored', mutate: (n) => (n.status = { phase: 'Terminating' }), finalizers: ['kubernetes'], phase: 'Active', want: [] },
  {
    name: 'name label cannot be changed',
    mutate: (n) => (n.metadata.labels = { 'kubernetes.io/metadata.name': 'other' }),
    finalizers: ['kubernetes'],
    phase: 'Active',
    labels: { 'kubernetes.io/metadata.name': 'x' },
    want: [],
  },
];

updateCases.forEach((c, i) => {
  test(`update case ${i}: ${c.name}`, () => {
    const old = stored('x');
    const n = structuredClone(old);
    c.mutate(n);
    S.defaults?.(n);
    S.prepareForUpdate?.(n, old);
    check(`update case ${i} (${c.name})`, S.validateUpdate(n, old), c.want);
    S.canonicalize?.(n);
    assert.equal((n.spec as { finalizers: string[] }).finalizers, c.finalizers, `update case ${i}: finalizers`);
    assert.is((n.status as { phase: string }).phase, c.phase, `update case ${i}: phase`);
    if (c.labels) assert.equal(n.metadata.labels, c.labels, `update case ${i}: labels`);
  });
});

interface StatusCase {
  name: string;
  deleting: boolean;
  newStatus: unknown;
  mutate?: (n: KubeObject) => void;
  /** Labels expected after prepare (default: unchanged). */
  labels?: Record<string, string>;
  want: Want[];
}

const statusCases: StatusCase[] = [
  { name: 'active stays active', deleting: false, newStatus: { phase: 'Active' }, want: [] },
  {
    name: 'terminating without deletionTimestamp',
    deleting: false,
    newStatus: { phase: 'Terminating' },
    want: [{ type: 'FieldValueInvalid', field: 'status.Phase', msg: 'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty' }],
  },
  { name: 'terminating while deleting', deleting: true, newStatus: { phase: 'Terminating', conditions: [{ type: 'NamespaceContentRemaining', status: 'True' }] }, want: [] },
  {
    name: 'active while deleting',
    deleting: true,
    newStatus: { phase: 'Active' },
    want: [{ type: 'FieldValueInvalid', field: 'status.Phase', msg: "may only be 'Terminating' if `deletionTimestamp` is not empty" }],
  },
  {
    // kube 1.24 resets only spec on /status: request labels stay (name label re-added).
    name: 'spec changes are discarded, label changes kept',
    deleting: false,
    newStatus: { phase: 'Active' },
    mutate: (n) => {
      n.spec = { finalizers: [] };
      n.metadata.labels = { sneaky: 'yes' };
    },
    labels: { sneaky: 'yes', 'kubernetes.io/metadata.name': 'x' },
    want: [],
  },
];

statusCases.forEach((c, i) => {
  test(`status case ${i}: ${c.name}`, () => {
    const old = stored('x');
    if (c.deleting) {
      old.metadata.deletionTimestamp = '2024-02-01T00:00:00Z';
      S.beginDelete?.(old);
    }
    const n = structuredClone(old);
    n.status = structuredClone(c.newStatus);
    n.metadata.resourceVersion = '9';
    c.mutate?.(n);
    const st = sub('status').strategy!;
    st.prepareForUpdate(n, old);
    check(`status case ${i} (${c.name})`, st.validateUpdate(n, old), c.want);
    assert.equal(n.status, c.newStatus, `status case ${i}: status taken from request`);
    assert.equal(n.spec, old.spec, `status case ${i}: spec kept`);
    assert.equal(n.metadata.labels, c.labels ?? old.metadata.labels, `status case ${i}: labels as requested (name label kept)`);
    assert.is(n.metadata.resourceVersion, '9', `status case ${i}: request resourceVersion kept`);
  });
});

interface FinalizeCase {
  name: string;
  finalizers: unknown;
  want: Want[];
  result: string[] | undefined;
}

const finalizeCases: FinalizeCase[] = [
  // An emptied list is dropped (omitempty), as kube's answer shows it: spec {}.
  { name: 'remove kubernetes', finalizers: [], want: [], result: undefined },
  { name: 'drop spec.finalizers', finalizers: undefined, want: [], result: undefined },
  { name: 'add qualified', finalizers: ['kubernetes', 'example.com/x'], want: [], result: ['kubernetes', 'example.com/x'] },
  {
    name: 'unqualified is indexed',
    finalizers: ['kubernetes', 'bad'],
    want: [{ type: 'FieldValueInvalid', field: 'spec.finalizers[1]', msg: 'spec.finalizers[1]: Invalid value: "bad": name is neither a standard finalizer' }],
    result: ['kubernetes', 'bad'],
  },
];

finalizeCases.forEach((c, i) => {
  test(`finalize case ${i}: ${c.name}`, () => {
    const old = stored('x');
    old.metadata.deletionTimestamp = '2024-02-01T00:00:00Z';
    S.beginDelete?.(old);
    const n = structuredClone(old);
    n.spec = c.finalizers === undefined ? {} : { finalizers: structuredClone(c.finalizers) };
    n.status = { phase: 'Active' };
    n.metadata.labels = { changed: 'yes' };
    const st = sub('finalize').strategy!;
    st.prepareForUpdate(n, old);
    check(`finalize case ${i} (${c.name})`, st.validateUpdate(n, old), c.want);
    assert.equal((n.spec as { finalizers?: string[] }).finalizers, c.result, `finalize case ${i}: finalizers`);
    assert.equal(n.status, { phase: 'Terminating' }, `finalize case ${i}: status kept`);
    // kube 1.24 resets only status on /finalize: request labels stay (name label re-added).
    assert.equal(n.metadata.labels, { changed: 'yes', 'kubernetes.io/metadata.name': 'x' }, `finalize case ${i}: request metadata kept`);
    assert.is(S.hasPendingFinalizers!(n), (c.result ?? []).length > 0, `finalize case ${i}: pending`);
  });
});

test('delete: Terminating and pending finalizers', () => {
  const o = stored('x');
  assert.ok(S.hasPendingFinalizers!(o));
  o.metadata.deletionTimestamp = '2024-02-01T00:00:00Z';
  S.beginDelete!(o);
  assert.is((o.status as { phase: string }).phase, 'Terminating');
  (o.spec as { finalizers: string[] }).finalizers = [];
  assert.is(S.hasPendingFinalizers!(o), false);
  assert.is(S.hasPendingFinalizers!(ns('bare')), false);
});

test('field selectors', () => {
  const o = stored('x');
  assert.is(namespaceKind.fieldSelectors!['status.phase']!(o), 'Active');
  assert.is(namespaceKind.fieldSelectors!.name!(o), 'x');
});

test('table', () => {
  const t = namespaceKind.table!;
  assert.equal(
    t.columns.map((c) => [c.name, c.type, c.format]),
    [
      ['Name', 'string', 'name'],
      ['Status', 'string', undefined],
      ['Age', 'string', undefined],
    ],
  );
  assert.equal(t.cells(stored('x')), ['x', 'Active', '2024-01-01T00:00:00Z']);
});

test.run();
