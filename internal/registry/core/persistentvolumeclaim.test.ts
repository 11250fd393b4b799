import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { FeatureGates } from '../../features/gates.ts';
import { check, type Want } from './testing.ts';
import {
  persistentVolumeClaimKind,
  persistentVolumeClaimStatusStrategy,
  persistentVolumeClaimStrategy,
  persistentVolumeClaimTable,
  defaultPersistentVolumeClaim,
} from './persistentvolumeclaim.ts';

const pvc = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', resourceVersion: '1' },
  spec,
  ...extra,
});
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const S = persistentVolumeClaimKind.strategy;

/** A claim as the store has it after create: defaulted and prepared. */
function created(o: KubeObject, strategy = S): KubeObject {
  strategy.defaults!(o);
  strategy.prepareForCreate!(o);
  return o;
}

/** An update as the store runs it: defaults, prepare, validate. */
function update(n: KubeObject, old: KubeObject, strategy = S) {
  strategy.defaults!(n);
  strategy.prepareForUpdate!(n, old);
  return strategy.validateUpdate(n, old);
}

test('descriptor', () => {
  assert.is(persistentVolumeClaimKind.resource, 'persistentvolumeclaims');
  assert.ok(persistentVolumeClaimKind.namespaced);
  assert.equal(persistentVolumeClaimKind.shortNames, ['pvc']);
  assert.equal(persistentVolumeClaimKind.subresources!.map((s) => s.name), ['status']);
});

test('defaults and create: volumeMode, milli round-up, status cleared to Pending', () => {
  const o = created(pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1n' }, limits: { storage: '1Gi' } } }, { status: { phase: 'Bound', capacity: { storage: '5Gi' } } }));
  assert.equal(o.spec, { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1m' }, limits: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
  assert.equal(o.status, { phase: 'Pending' });
  const o2 = pvc({ ...base, volumeMode: 'Block' });
  defaultPersistentVolumeClaim(o2);
  assert.is((o2.spec as any).volumeMode, 'Block');
});

test('data sources: normalized under AnyVolumeDataSource, dropped kinds, gate off drops dataSourceRef', () => {
  const pop = { apiGroup: 'p.example.com', kind: 'T', name: 't' };
  const snap = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' };
  const a = created(pvc({ ...base, dataSource: pop }));
  assert.equal([(a.spec as any).dataSource, (a.spec as any).dataSourceRef], [undefined, undefined]);
  const b = created(pvc({ ...base, dataSourceRef: pop }));
  assert.equal([(b.spec as any).dataSource, (b.spec as any).dataSourceRef], [pop, pop]);
  const c = created(pvc({ ...base, dataSource: snap }));
  assert.equal([(c.spec as any).dataSource, (c.spec as any).dataSourceRef], [snap, snap]);
  const off = persistentVolumeClaimStrategy(new FeatureGates('AnyVolumeDataSource=false'));
  const d = created(pvc({ ...base, dataSourceRef: pop, dataSource: snap }), off);
  assert.equal([(d.spec as any).dataSource, (d.spec as any).dataSourceRef], [snap, undefined]);
  // An update of a claim that had a data source keeps a dataSource of any kind.
  const old = created(pvc({ ...base, dataSource: snap }));
  const n = structuredClone(old);
  (n.spec as any).dataSource = pop;
  (n.spec as any).dataSourceRef = pop;
  update(n, old);
  assert.equal((n.spec as any).dataSource, pop);
});

const createCases: [string, KubeObject, Want[]][] = [
  ['ok', pvc(base), []],
  ['missing', pvc({}), [
    { type: 'FieldValueRequired', field: 'spec.accessModes', msg: 'at least 1 access mode is required' },
    { type: 'FieldValueRequired', field: 'spec.resources[storage]' },
  ]],
  ['negative storage', pvc({ ...base, resources: { requests: { storage: '-1' } } }), [{ type: 'FieldValueInvalid', field: 'spec.resources[storage]', msg: 'Invalid value: "-1": must be greater than zero' }]],
  ['core kind data source', pvc({ ...base, dataSourceRef: { kind: 'Secret', name: 's' } }), [
    { type: 'FieldValueInvalid', field: 'spec.dataSource', msg: 'spec.dataSource: Invalid value: "Secret"' },
    { type: 'FieldValueInvalid', field: 'spec.dataSourceRef' },
  ]],
  ['different sources', pvc({ ...base, dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } }), [
    { type: 'FieldValueInvalid', field: 'spec', msg: 'must match dataSourceRef' },
  ]],
  ['selector', pvc({ ...base, selector: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['x'] }] } }), [
    { type: 'FieldValueForbidden', field: 'spec.selector.matchExpressions[0].values', msg: "may not be specified when `operator` is 'Exists' or 'DoesNotExist'" },
  ]],
];
for (const [name, obj, want] of createCases) {
  test(`validate: ${name}`, () => {
    const o = created(structuredClone(obj));
    check(name, S.validate(o), want);
  });
}

test('update: immutability as 1.24', () => {
  const old = created(pvc({ ...base, storageClassName: 'gold' }));
  const n = (f: (s: any) => void): KubeObject => {
    const x = structuredClone(old);
    f(x.spec);
    return x;
  };
  check('volumeName once', update(n((s) => (s.volumeName = 'pv')), old), []);
  check('class changed', update(n((s) => (s.storageClassName = 'silver')), old), [{ type: 'FieldValueForbidden', field: 'spec', msg: 'spec is immutable after creation except resources.requests for bound claims\n  core.PersistentVolumeClaimSpec{' }]);
  check('unbound growth', update(n((s) => (s.resources.requests.storage = '2Gi')), old), [{ type: 'FieldValueForbidden', field: 'spec' }]);
  check('same value, other spelling', update(n((s) => (s.resources.requests.storage = '1024Mi')), old), []);
  const bound = structuredClone(old);
  bound.status = { phase: 'Bound' };
  const grow = structuredClone(bound);
  (grow.spec as any).resources.requests.storage = '2Gi';
  check('bound growth', update(grow, bound), []);
  const shrink = structuredClone(bound);
  (shrink.spec as any).resources.requests.storage = '1Mi';
  check('bound shrink', update(shrink, bound), [{ type: 'FieldValueForbidden', field: 'spec.resources.requests.storage', msg: 'field can not be less than previous value' }]);
  // RecoverVolumeExpansionFailure: shrinking down to above status.capacity is allowed.
  const rec = persistentVolumeClaimStrategy(new FeatureGates('RecoverVolumeExpansionFailure=true'));
  const big = structuredClone(bound);
  (big.spec as any).resources.requests.storage = '10Gi';
  big.status = { phase: 'Bound', capacity: { storage: '1Gi' } };
  const down = structuredClone(big);
  (down.spec as any).resources.requests.storage = '5Gi';
  check('recover shrink', update(down, big, rec), []);
  const tooFar = structuredClone(big);
  (tooFar.spec as any).resources.requests.storage = '1Gi';
  check('recover shrink too far', update(tooFar, big, rec), [{ type: 'FieldValueForbidden', field: 'spec.resources.requests.storage', msg: 'field can not be less than status.capacity' }]);
  check('volumeMode', update(n((s) => (s.volumeMode = 'Block')), old), [
    { type: 'FieldValueForbidden', field: 'spec' },
    { type: 'FieldValueInvalid', field: 'volumeMode', msg: 'volumeMode: Invalid value: "Block": field is immutable' },
  ]);
});

test('update: storage class upgrade from the beta annotation', () => {
  const old = created(pvc(base, { metadata: { name: 'c', namespace: 'ns', annotations: { 'volume.beta.kubernetes.io/storage-class': 'gold' } } }));
  const ok = structuredClone(old);
  (ok.spec as any).storageClassName = 'gold';
  check('upgrade', update(ok, old), []);
  const other = structuredClone(old);
  (other.spec as any).storageClassName = 'silver';
  check('other class', update(other, old), [{ type: 'FieldValueForbidden', field: 'spec' }]);
  const ann = structuredClone(old);
  ann.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'silver' };
  check('annotation changed', update(ann, old), [{ type: 'FieldValueInvalid', field: 'metadata.annotations.volume.beta.kubernetes.io/storage-class', msg: 'Invalid value: "silver": field is immutable' }]);
});

test('status: spec kept, alpha fields dropped unless the gate is on or already in use', () => {
  const old = created(pvc(base));
  const st = persistentVolumeClaimStatusStrategy();
  const n = structuredClone(old);
  (n.spec as any).accessModes = ['ReadWriteMany'];
  n.status = { phase: 'Bound', allocatedResources: { storage: '2Gi' }, resizeStatus: 'NodeExpansionPending', capacity: { storage: '1Gi' } };
  st.prepareForUpdate(n, old);
  assert.equal((n.spec as any).accessModes, ['ReadWriteOnce']);
  assert.equal(n.status, { phase: 'Bound', capacity: { storage: '1Gi' } });
  const inUse = structuredClone(old);
  inUse.status = { phase: 'Bound', resizeStatus: '' };
  const n2 = structuredClone(inUse);
  n2.status = { phase: 'Bound', resizeStatus: 'NodeExpansionFailed', allocatedResources: { storage: '1Gi' } };
  st.prepareForUpdate(n2, inUse);
  assert.equal(n2.status, { phase: 'Bound', resizeStatus: 'NodeExpansionFailed' });
  const on = persistentVolumeClaimStatusStrategy(new FeatureGates('RecoverVolumeExpansionFailure=true'));
  const n3 = structuredClone(old);
  n3.status = { phase: 'Bound', resizeStatus: 'Bogus', allocatedResources: { storage: '1Gi', cpu: '1' } };
  on.prepareForUpdate(n3, old);
  check('recover status', on.validateUpdate(n3, old), [
    { type: 'FieldValueNotSupported', field: 'status.resizeStatus', msg: 'Unsupported value: "Bogus"' },
    { type: 'FieldValueNotSupported', field: 'status.allocatedResources', msg: 'Unsupported value: "cpu": supported values: "storage"' },
  ]);
  const n4 = structuredClone(old);
  n4.status = { phase: 'Bound', capacity: { storage: '-1' } };
  check('negative capacity', st.validateUpdate(n4, old), [{ type: 'FieldValueInvalid', field: 'status.capacity[storage]', msg: 'Invalid value: -1: must be a valid resource quantity' }]);
  // Main-resource writes keep the stored status.
  const m = structuredClone(old);
  m.status = { phase: 'Lost' };
  S.prepareForUpdate!(m, old);
  assert.equal(m.status, { phase: 'Pending' });
});

test('table cells', () => {
  const o = created(pvc({ ...base, storageClassName: 'gold' }));
  o.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  assert.equal(persistentVolumeClaimTable.cells(o), ['c', 'Pending', '', '', '', 'gold', '2026-01-01T00:00:00Z', 'Filesystem']);
  (o.spec as any).volumeName = 'pv';
  o.status = { phase: 'Bound', accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], capacity: { storage: '5Gi' } };
  o.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
  assert.equal(persistentVolumeClaimTable.cells(o), ['c', 'Terminating', 'pv', '5Gi', 'RWO,RWOP', 'gold', '2026-01-01T00:00:00Z', 'Filesystem']);
});

test.run();
