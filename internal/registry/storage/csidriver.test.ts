import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { FeatureGates } from '../../features/gates.ts';
import { check } from '../core/testing.ts';
import { csiDriverKind, csiDriverTable } from './csidriver.ts';

const S = csiDriverKind.strategy;
const drv = (spec?: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIDriver',
  metadata: { name: 'd.example.com', creationTimestamp: '2024-01-01T00:00:00Z', ...meta },
  ...(spec ? { spec: structuredClone(spec) } : {}),
});
const created = (o: KubeObject, s = S): KubeObject => {
  s.defaults?.(o);
  s.prepareForCreate?.(o);
  return o;
};
const DEFAULTS = { attachRequired: true, podInfoOnMount: false, storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', volumeLifecycleModes: ['Persistent'], requiresRepublish: false };

test('descriptor', () => {
  assert.equal([csiDriverKind.resource, csiDriverKind.kind, csiDriverKind.namespaced, csiDriverKind.deleteReturns], ['csidrivers', 'CSIDriver', false, 'Object']);
  assert.is(S.allowUnconditionalUpdate, false);
  assert.is(S.allowCreateOnUpdate, false);
});

test('defaults: every field, with or without a spec; set values kept', () => {
  assert.equal(created(drv()).spec, DEFAULTS);
  assert.equal(created(drv({})).spec, DEFAULTS);
  assert.equal(created(drv({ volumeLifecycleModes: [] })).spec, DEFAULTS, 'an empty list is defaulted too');
  const set = { attachRequired: false, podInfoOnMount: true, storageCapacity: true, fsGroupPolicy: 'File', volumeLifecycleModes: ['Ephemeral'], requiresRepublish: true };
  assert.equal(created(drv(set)).spec, set);
});

test('CSIInlineVolume off: volumeLifecycleModes neither defaulted nor kept on create; kept on update only if stored', () => {
  const off = csiDriverKind.forOptions!({ featureGates: new FeatureGates('CSIInlineVolume=false') }).strategy;
  const { volumeLifecycleModes: _m, ...rest } = DEFAULTS;
  assert.equal(created(drv(), off).spec, rest);
  assert.equal(created(drv({ volumeLifecycleModes: ['Ephemeral'] }), off).spec, rest);
  const upd = drv({ ...rest, volumeLifecycleModes: ['Ephemeral'] });
  off.prepareForUpdate!(upd, drv(rest));
  assert.is((upd.spec as any).volumeLifecycleModes, undefined, 'dropped: the stored object has none');
  const keep = drv({ ...rest, volumeLifecycleModes: ['Ephemeral'] });
  off.prepareForUpdate!(keep, drv(DEFAULTS));
  assert.equal((keep.spec as any).volumeLifecycleModes, ['Ephemeral']);
});

test('validate', () => {
  check('defaults', S.validate(created(drv())), []);
  check('required fields (unreachable after defaulting)', S.validate(drv({})), [
    { type: 'FieldValueRequired', field: 'spec.attachedRequired' },
    { type: 'FieldValueRequired', field: 'spec.podInfoOnMount' },
    { type: 'FieldValueRequired', field: 'spec.storageCapacity' },
  ]);
  check('fsGroupPolicy', S.validate(created(drv({ fsGroupPolicy: 'X' }))), [
    { type: 'FieldValueNotSupported', field: 'spec.fsGroupPolicy', msg: 'Unsupported value: "X": supported values: "File", "None", "ReadWriteOnceWithFSType"' },
  ]);
  check('modes', S.validate(created(drv({ volumeLifecycleModes: ['Persistent', 'Y'] }))), [
    { type: 'FieldValueNotSupported', field: 'spec.volumeLifecycleModes', msg: 'Unsupported value: "Y": supported values: "Persistent", "Ephemeral"' },
  ]);
  check('tokenRequests', S.validate(created(drv({ tokenRequests: [{ audience: '' }, { audience: '' , expirationSeconds: 1 }, { audience: 'a', expirationSeconds: 599 }, { audience: 'b', expirationSeconds: 600 }, { audience: 'c', expirationSeconds: 2 ** 32 + 1 }] }))), [
    { type: 'FieldValueDuplicate', field: 'spec.tokenRequests[1].audience', msg: 'Duplicate value: ""' },
    { type: 'FieldValueInvalid', field: 'spec.tokenRequests[2].expirationSeconds', msg: 'Invalid value: 599: may not specify a duration less than 10 minutes' },
    { type: 'FieldValueInvalid', field: 'spec.tokenRequests[4].expirationSeconds', msg: 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds' },
  ]);
});

test('validateUpdate: immutable fields (kube paths and Go values), tokenRequests checked twice', () => {
  const old = created(drv());
  check('no change', S.validateUpdate(created(drv({ storageCapacity: true, requiresRepublish: true })), old), []);
  check('all immutables', S.validateUpdate(created(drv({ attachRequired: false, podInfoOnMount: true, fsGroupPolicy: 'None', volumeLifecycleModes: ['Ephemeral'] })), old), [
    { type: 'FieldValueInvalid', field: 'spec.attachedRequired', msg: 'spec.attachedRequired: Invalid value: false: field is immutable' },
    { type: 'FieldValueInvalid', field: 'spec.fsGroupPolicy', msg: 'Invalid value: "None": field is immutable' },
    { type: 'FieldValueInvalid', field: 'spec.podInfoOnMount', msg: 'Invalid value: true: field is immutable' },
    { type: 'FieldValueInvalid', field: 'spec.volumeLifecycleModes', msg: 'Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: field is immutable' },
  ]);
  const noFs = drv({ ...DEFAULTS });
  delete (noFs.spec as any).fsGroupPolicy;
  check('nil pointer printed "null"', S.validateUpdate(noFs, old), [{ type: 'FieldValueInvalid', field: 'spec.fsGroupPolicy', msg: 'Invalid value: "null": field is immutable' }]);
  check('token errors twice', S.validateUpdate(created(drv({ tokenRequests: [{ audience: 'a', expirationSeconds: 1 }] })), old), [
    { type: 'FieldValueInvalid', field: 'spec.tokenRequests[0].expirationSeconds' },
    { type: 'FieldValueInvalid', field: 'spec.tokenRequests[0].expirationSeconds' },
  ]);
});

test('prepareForUpdate: generation +1 when tokenRequests or requiresRepublish change, else kept', () => {
  const old = created(drv({}, {}));
  const a = created(drv({ tokenRequests: [{ audience: 'x' }] }));
  S.prepareForUpdate!(a, old);
  assert.is(a.metadata.generation, 1);
  const old2 = created(drv({ tokenRequests: [{ audience: 'x' }] }, { generation: 1 }));
  const b = created(drv({ tokenRequests: [{ audience: 'x' }], storageCapacity: true }));
  S.prepareForUpdate!(b, old2);
  assert.is(b.metadata.generation, 1);
  const c = created(drv({ tokenRequests: [{ audience: 'x' }], requiresRepublish: true }));
  S.prepareForUpdate!(c, old2);
  assert.is(c.metadata.generation, 2);
  const d = created(drv({}));
  S.prepareForUpdate!(d, old);
  assert.is(d.metadata.generation, undefined, 'no generation until a counted change');
});

test('Table: printCSIDriver cells', () => {
  assert.equal(csiDriverTable.columns.map((c) => [c.name, c.type]), [
    ['Name', 'string'],
    ['AttachRequired', 'boolean'],
    ['PodInfoOnMount', 'boolean'],
    ['StorageCapacity', 'boolean'],
    ['TokenRequests', 'string'],
    ['RequiresRepublish', 'boolean'],
    ['Modes', 'string'],
    ['Age', 'string'],
  ]);
  assert.equal(csiDriverTable.cells(created(drv())), ['d.example.com', true, false, false, '<unset>', false, 'Persistent', '2024-01-01T00:00:00Z']);
  assert.equal(csiDriverTable.cells(drv({ tokenRequests: [{ audience: 'a' }, { audience: 'b' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'], attachRequired: false, requiresRepublish: true })).slice(1, 7), [
    false,
    false,
    false,
    'a,b',
    true,
    'Persistent,Ephemeral',
  ]);
  assert.equal(csiDriverTable.cells(drv({})).slice(1, 7), [true, false, false, '<unset>', false, '<none>']);
});

test.run();
