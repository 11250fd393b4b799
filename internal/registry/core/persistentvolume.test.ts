import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { FeatureGates } from '../../features/gates.ts';
import { check, type Want } from './testing.ts';
import { persistentVolumeKind, persistentVolumeStatusStrategy, persistentVolumeStrategy, persistentVolumeTable, defaultPersistentVolume } from './persistentvolume.ts';

const pv = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv1', resourceVersion: '1' },
  spec,
  ...extra,
});
const base = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] };
const S = persistentVolumeKind.strategy;
const defaulted = (o: KubeObject): KubeObject => {
  S.defaults!(o);
  return o;
};

test('descriptor', () => {
  assert.is(persistentVolumeKind.resource, 'persistentvolumes');
  assert.is(persistentVolumeKind.namespaced, false);
  assert.equal(persistentVolumeKind.shortNames, ['pv']);
  assert.equal(persistentVolumeKind.subresources!.map((s) => [s.name, s.verbs]), [['status', ['get', 'update', 'patch']]]);
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
});

test('defaults: Pending, Retain, Filesystem, milli round-up and the source defaults', () => {
  const o = pv({ capacity: { storage: '1n' }, accessModes: ['ReadWriteOnce'], iscsi: { targetPortal: 't', iqn: 'iqn.2001-04.com.example:s' }, azureDisk: {}, rbd: {}, scaleIO: {}, hostPath: { path: '/x' } });
  defaultPersistentVolume(o);
  assert.equal(o.status, { phase: 'Pending' });
  const s = o.spec as any;
  assert.is(s.persistentVolumeReclaimPolicy, 'Retain');
  assert.is(s.volumeMode, 'Filesystem');
  assert.equal(s.capacity, { storage: '1m' });
  assert.is(s.iscsi.iscsiInterface, 'default');
  assert.equal(s.azureDisk, { cachingMode: 'ReadWrite', kind: 'Shared', fsType: 'ext4', readOnly: false });
  assert.equal(s.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  assert.equal(s.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
  assert.equal(s.hostPath, { path: '/x', type: '' });
  // Set values stay.
  const o2 = pv({ ...base, persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block', hostPath: { path: '/y', type: 'Directory' } }, { status: { phase: 'Available' } });
  defaultPersistentVolume(o2);
  assert.equal([(o2.spec as any).persistentVolumeReclaimPolicy, (o2.spec as any).volumeMode, (o2.spec as any).hostPath.type, (o2.status as any).phase], ['Delete', 'Block', 'Directory', 'Available']);
});

const createCases: [string, KubeObject, Want[]][] = [
  ['nfs ok', pv({ ...base, nfs: { server: 's', path: '/p' } }), []],
  ['csi ok', pv({ ...base, csi: { driver: 'csi.example.com', volumeHandle: 'h', nodeStageSecretRef: { name: 'a', namespace: 'b' } } }), []],
  [
    'empty',
    pv({}),
    [
      { type: 'FieldValueRequired', field: 'spec.accessModes' },
      { type: 'FieldValueRequired', field: 'spec.capacity' },
      { type: 'FieldValueNotSupported', field: 'spec.capacity', msg: 'Unsupported value: core.ResourceList(nil): supported values: "storage"' },
      { type: 'FieldValueRequired', field: 'spec', msg: 'spec: Required value: must specify a volume type' },
    ],
  ],
  ['empty capacity map', pv({ ...base, capacity: {}, nfs: { server: 's', path: '/p' } }), [
    { type: 'FieldValueRequired', field: 'spec.capacity' },
    { type: 'FieldValueNotSupported', field: 'spec.capacity', msg: 'core.ResourceList{}' },
  ]],
  ['capacity with another resource', pv({ ...base, capacity: { storage: '1536Mi', memory: '1' }, nfs: { server: 's', path: '/p' } }), [
    { type: 'FieldValueNotSupported', field: 'spec.capacity', msg: '"storage":resource.Quantity{i:resource.int64Amount{value:1610612736, scale:0}' },
  ]],
  ['csi bad', pv({ ...base, csi: { driver: '', controllerExpandSecretRef: { name: '', namespace: 'Bad' } } }), [
    { type: 'FieldValueRequired', field: 'spec.csi.driver' },
    { type: 'FieldValueInvalid', field: 'spec.csi.driver', msg: 'Invalid value: ""' },
    { type: 'FieldValueRequired', field: 'spec.csi.volumeHandle' },
    { type: 'FieldValueRequired', field: 'spec.csi.controllerExpandSecretRef.name' },
    { type: 'FieldValueInvalid', field: 'spec.csi.namespace', msg: 'Invalid value: "Bad"' },
  ]],
  ['csi driver too long', pv({ ...base, csi: { driver: `${'a'.repeat(64)}`, volumeHandle: 'h' } }), [{ type: 'FieldValueTooLong', field: 'spec.csi.driver', msg: 'must have at most 63 bytes' }]],
  ['local needs affinity', pv({ ...base, local: { path: '' } }), [
    { type: 'FieldValueRequired', field: 'spec.local.path' },
    { type: 'FieldValueRequired', field: 'spec.nodeAffinity', msg: 'Local volume requires node affinity' },
  ]],
  ['node field selector', pv({ ...base, nfs: { server: 's', path: '/p' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['Bad_Node', 'x'] }] }] } } }), [
    { type: 'FieldValueRequired', field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].values', msg: "must be only one value when `operator` is 'In' or 'NotIn' for node field selector" },
    { type: 'FieldValueInvalid', field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].values[0]', msg: 'Invalid value: "Bad_Node"' },
  ]],
  ['glusterfs / cinder / storageos PV secret namespaces', pv({ ...base, glusterfs: { endpoints: 'e', path: 'p', endpointsNamespace: '' } }), [
    { type: 'FieldValueInvalid', field: 'spec.glusterfs.endpointsNamespace', msg: 'if the endpointnamespace is set, it must be a valid namespace name' },
  ]],
  ['cinder PV', pv({ ...base, cinder: { volumeID: 'v', secretRef: { name: 'n' } } }), [{ type: 'FieldValueRequired', field: 'spec.cinder.secretRef.namespace' }]],
  ['azureFile PV', pv({ ...base, azureFile: { secretName: 's', shareName: 'x', secretNamespace: '' } }), [{ type: 'FieldValueRequired', field: 'spec.azureFile.secretNamespace' }]],
  ['gce uses persistentDisk path', pv({ ...base, gcePersistentDisk: { pdName: '', partition: 256 } }), [
    { type: 'FieldValueRequired', field: 'spec.persistentDisk.pdName' },
    { type: 'FieldValueInvalid', field: 'spec.persistentDisk.partition', msg: 'must be between 1 and 255, inclusive' },
  ]],
  ['iscsi name length with initiator', pv({ ...base, iscsi: { targetPortal: 'x'.repeat(64), iqn: 'iqn.2001-04.com.example:s', initiatorName: 'iqn.2001-04.com.example:n' } }), [
    { type: 'FieldValueInvalid', field: 'spec.iscsi.targetportal', msg: 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters' },
  ]],
  ['mount options on a source without them', pv({ ...base, csi: { driver: 'd', volumeHandle: 'h' } }, { metadata: { name: 'pv1', annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } }), [
    { type: 'FieldValueForbidden', field: 'metadata.annotations.volume.beta.kubernetes.io/mount-options' },
  ]],
  ['mount options on nfs', pv({ ...base, nfs: { server: 's', path: '/p' } }, { metadata: { name: 'pv1', annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } }), []],
  ['ReadWriteOncePod off', pv({ ...base, accessModes: ['ReadWriteOncePod'], nfs: { server: 's', path: '/p' } }), [
    { type: 'FieldValueNotSupported', field: 'spec.accessModes', msg: 'supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"' },
  ]],
];

for (const [name, obj, want] of createCases) {
  test(`validate: ${name}`, () => check(name, S.validate(defaulted(structuredClone(obj))), want));
}

test('validate: ReadWriteOncePod with the gate on, alone only', () => {
  const on = persistentVolumeStrategy(new FeatureGates('ReadWriteOncePod=true'));
  check('alone', on.validate(defaulted(pv({ ...base, accessModes: ['ReadWriteOncePod'], nfs: { server: 's', path: '/p' } }))), []);
  check('mixed', on.validate(defaulted(pv({ ...base, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], nfs: { server: 's', path: '/p' } }))), [
    { type: 'FieldValueForbidden', field: 'spec.accessModes', msg: 'may not use ReadWriteOncePod with other access modes' },
  ]);
});

test('update: immutable source, volumeMode, set nodeAffinity; csi controllerExpandSecretRef may be added', () => {
  const old = defaulted(pv({ ...base, csi: { driver: 'd', volumeHandle: 'h' } }));
  const withExpand = structuredClone(old);
  (withExpand.spec as any).csi.controllerExpandSecretRef = { name: 'e', namespace: 'n' };
  check('add expand secret', S.validateUpdate(withExpand, old), []);
  const changed = structuredClone(old);
  (changed.spec as any).csi.volumeHandle = 'h2';
  (changed.spec as any).volumeMode = 'Block';
  const errs = S.validateUpdate(changed, old);
  check('source', errs, [
    { type: 'FieldValueForbidden', field: 'spec.persistentvolumesource', msg: 'spec.persistentvolumesource is immutable after creation\n  core.PersistentVolumeSource{' },
    { type: 'FieldValueInvalid', field: 'volumeMode', msg: 'volumeMode: Invalid value: "Block": field is immutable' },
  ]);
  // cmp.Diff of core.PersistentVolumeSource, as kube-apiserver 1.24.17 prints it for this change.
  assert.is(
    errs[0]!.detail,
    [
      'spec.persistentvolumesource is immutable after creation',
      '  core.PersistentVolumeSource{',
      '  \t... // 19 identical fields',
      '  \tLocal:     nil,',
      '  \tStorageOS: nil,',
      '  \tCSI: &core.CSIPersistentVolumeSource{',
      '  \t\tDriver:       "d",',
      '- \t\tVolumeHandle: "h",',
      '+ \t\tVolumeHandle: "h2",',
      '  \t\tReadOnly:     false,',
      '  \t\tFSType:       "",',
      '  \t\t... // 5 identical fields',
      '  \t},',
      '  }',
      '',
    ].join('\n'),
  );
  const aff = (v: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'z', operator: 'In', values: [v] }] }] } });
  const first = structuredClone(old);
  (first.spec as any).nodeAffinity = aff('a');
  (first.spec as any).capacity = { storage: '5Gi' };
  check('first nodeAffinity and capacity', S.validateUpdate(first, old), []);
  const second = structuredClone(first);
  (second.spec as any).nodeAffinity = aff('b');
  check('second nodeAffinity', S.validateUpdate(second, first), [{ type: 'FieldValueInvalid', field: 'nodeAffinity', msg: 'core.VolumeNodeAffinity{Required:(*core.NodeSelector)(' }]);
  // An old PV that uses ReadWriteOncePod keeps it allowed with the gate off.
  const rwop = defaulted(pv({ ...base, accessModes: ['ReadWriteOncePod'], nfs: { server: 's', path: '/p' } }));
  check('rwop kept', S.validateUpdate(structuredClone(rwop), rwop), []);
});

test('status isolation: main writes keep status, /status writes keep spec', () => {
  const old = defaulted(pv({ ...base, nfs: { server: 's', path: '/p' } }, { status: { phase: 'Bound' } }));
  const n = structuredClone(old);
  n.status = { phase: 'Failed' };
  S.prepareForUpdate!(n, old);
  assert.equal(n.status, { phase: 'Bound' });
  const st = structuredClone(old);
  (st.spec as any).capacity = { storage: '9Gi' };
  st.status = { phase: 'Released', reason: 'r' };
  persistentVolumeStatusStrategy.prepareForUpdate(st, old);
  assert.equal((st.spec as any).capacity, { storage: '1Gi' });
  assert.equal(st.status, { phase: 'Released', reason: 'r' });
});

test('table cells', () => {
  const o = defaulted(pv({ ...base, accessModes: ['ReadWriteMany', 'ReadOnlyMany', 'ReadWriteOnce', 'ReadWriteOnce'], nfs: { server: 's', path: '/p' }, claimRef: { namespace: 'n', name: 'c' }, storageClassName: 'gold' }, { status: { phase: 'Bound', reason: 'R' } }));
  o.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  assert.equal(persistentVolumeTable.cells(o), ['pv1', '1Gi', 'RWO,ROX,RWX', 'Retain', 'Bound', 'n/c', 'gold', 'R', '2026-01-01T00:00:00Z', 'Filesystem']);
  o.metadata.deletionTimestamp = '2026-01-02T00:00:00Z';
  o.metadata.annotations = { 'volume.beta.kubernetes.io/storage-class': 'beta' };
  delete (o.spec as any).volumeMode;
  delete (o.spec as any).capacity;
  assert.equal(persistentVolumeTable.cells(o), ['pv1', '0', 'RWO,ROX,RWX', 'Retain', 'Terminating', 'n/c', 'beta', 'R', '2026-01-01T00:00:00Z', '<unset>']);
  assert.equal(persistentVolumeTable.columns.map((c) => c.name), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'Reason', 'Age', 'VolumeMode']);
});

test.run();
