import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { FeatureGates } from '../../features/gates.ts';
import { check } from '../core/testing.ts';
import { volumeAttachmentKind, volumeAttachmentTable } from './volumeattachment.ts';

const S = volumeAttachmentKind.strategy;
const ST = volumeAttachmentKind.subresources![0]!.strategy!;
const SPEC = { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node1' };
const va = (spec: Record<string, unknown> = SPEC, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name: 'va', creationTimestamp: '2024-01-01T00:00:00Z', ...meta },
  spec: structuredClone(spec),
  ...structuredClone(extra),
});
const created = (o: KubeObject): KubeObject => {
  S.defaults?.(o);
  S.prepareForCreate?.(o);
  return o;
};
const SUBDOMAIN = 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters';

test('descriptor: cluster-scoped, /status, updates need a resourceVersion', () => {
  assert.equal([volumeAttachmentKind.resource, volumeAttachmentKind.kind, volumeAttachmentKind.namespaced], ['volumeattachments', 'VolumeAttachment', false]);
  assert.equal(volumeAttachmentKind.subresources!.map((s) => [s.name, s.verbs]), [['status', ['get', 'update', 'patch']]]);
  assert.equal(volumeAttachmentKind.shortNames, []);
  assert.is(S.allowUnconditionalUpdate, false);
  assert.is(S.allowCreateOnUpdate, false);
  assert.equal((ST as { resetFields?: string[] }).resetFields, ['metadata', 'spec']);
});

test('prepareForCreate resets status to attached false', () => {
  const o = created(va(SPEC, { status: { attached: true, attachmentMetadata: { a: 'b' } } }));
  assert.equal(o.status, { attached: false });
});

test('validate (create): spec, source, node name, V1 rules', () => {
  check('valid', S.validate(created(va())), []);
  const INLINE = { accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h' } };
  check('inline only', S.validate(created(va({ ...SPEC, source: { inlineVolumeSpec: INLINE } }))), []);
  check('inline: validated as an inline PV spec', S.validate(created(va({ ...SPEC, source: { inlineVolumeSpec: { capacity: { storage: '1Gi' } } } }))), [
    { type: 'FieldValueForbidden', field: 'spec.source.inlineVolumeSpec.capacity', msg: 'Forbidden: may not be specified in the context of inline volumes' },
    { type: 'FieldValueRequired', field: 'spec.source.inlineVolumeSpec.csi', msg: 'has to be specified in the context of inline volumes' },
    { type: 'FieldValueRequired', field: 'spec.source.inlineVolumeSpec.accessModes' },
    { type: 'FieldValueRequired', field: 'spec.source.inlineVolumeSpec', msg: 'must specify a volume type' },
  ]);
  check('empty', S.validate(created(va({}))), [
    { type: 'FieldValueRequired', field: 'spec.attacher', msg: 'spec.attacher: Required value' },
    { type: 'FieldValueRequired', field: 'spec.source', msg: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
    { type: 'FieldValueInvalid', field: 'spec.nodeName', msg: `Invalid value: "": ${SUBDOMAIN}` },
    { type: 'FieldValueRequired', field: 'spec.attacher' },
    { type: 'FieldValueInvalid', field: 'spec.attacher', msg: `Invalid value: "": ${SUBDOMAIN}` },
  ]);
  check('both sources', S.validate(created(va({ ...SPEC, source: { persistentVolumeName: 'p', inlineVolumeSpec: {} } }))), [
    { type: 'FieldValueForbidden', field: 'spec.source', msg: 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName' },
  ]);
  check('empty PV name', S.validate(created(va({ ...SPEC, source: { persistentVolumeName: '' } }))), [
    { type: 'FieldValueRequired', field: 'spec.source.persistentVolumeName', msg: 'Required value: must specify non empty persistentVolumeName' },
    { type: 'FieldValueInvalid', field: 'spec.source.persistentVolumeName', msg: SUBDOMAIN },
  ]);
  check('attacher too long and upper case accepted', S.validate(created(va({ ...SPEC, attacher: `A${'a'.repeat(63)}` }))), [
    { type: 'FieldValueTooLong', field: 'spec.attacher', msg: 'Too long: must have at most 63 bytes' },
  ]);
  check('bad node name', S.validate(created(va({ ...SPEC, nodeName: 'Node_1' }))), [{ type: 'FieldValueInvalid', field: 'spec.nodeName', msg: `Invalid value: "Node_1": ${SUBDOMAIN}` }]);
});

test('CSIMigration off: another message, inline specs dropped on create', () => {
  const off = volumeAttachmentKind.forOptions!({ featureGates: new FeatureGates('CSIMigration=false') }).strategy;
  const o = va({});
  off.prepareForCreate!(o);
  check('neither', off.validate(o), [
    { type: 'FieldValueRequired', field: 'spec.attacher' },
    { type: 'FieldValueRequired', field: 'spec.source', msg: 'Required value: must specify persistentVolumeName when CSIMigration feature is disabled' },
    { type: 'FieldValueInvalid', field: 'spec.nodeName' },
    { type: 'FieldValueRequired', field: 'spec.attacher' },
    { type: 'FieldValueInvalid', field: 'spec.attacher' },
  ]);
  const inline = va({ ...SPEC, source: { inlineVolumeSpec: {} } });
  off.prepareForCreate!(inline);
  assert.equal((inline.spec as any).source, {});
});

test('validateUpdate: spec read-only, every error listed twice, status validated', () => {
  const old = created(va());
  check('same', S.validateUpdate(va(), old), []);
  check('node changed', S.validateUpdate(va({ ...SPEC, nodeName: 'node2' }), old), [
    {
      type: 'FieldValueInvalid',
      field: 'spec',
      msg: 'spec: Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xc000000000), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node2"}: field is immutable',
    },
  ]);
  check('status errors twice', S.validateUpdate(va(SPEC, { status: { attached: true, detachError: { message: 'x'.repeat(1025) }, attachmentMetadata: { k: 'v'.repeat(256 * 1024) } } }), old), [
    { type: 'FieldValueTooLong', field: 'status.attachmentMetadata', msg: 'Too long: must have at most 262144 bytes' },
    { type: 'FieldValueTooLong', field: 'status.detachError.message', msg: 'Too long: must have at most 262144 bytes' },
    { type: 'FieldValueTooLong', field: 'status.attachmentMetadata' },
    { type: 'FieldValueTooLong', field: 'status.detachError.message' },
  ]);
  const inl = { csi: { driver: 'd', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] };
  check('an absent list equals an empty one (Semantic)', S.validateUpdate(va({ ...SPEC, source: { inlineVolumeSpec: { ...inl, mountOptions: [] } } }), va({ ...SPEC, source: { inlineVolumeSpec: inl } })), []);
});

test('status isolation: main writes keep status, /status writes keep spec and metadata', () => {
  const old = va(SPEC, { status: { attached: true } }, { labels: { a: '1' }, annotations: { x: 'y' }, finalizers: ['f'] });
  const main = va({ ...SPEC }, { status: { attached: false, attachError: { message: 'm' } } }, { labels: { a: '2' } });
  S.prepareForUpdate!(main, old);
  assert.equal(main.status, { attached: true });
  assert.equal(main.metadata.labels, { a: '2' }, 'labels change through the main resource');

  const st = va({ ...SPEC, nodeName: 'other' }, { status: { attached: true, attachmentMetadata: { d: '/dev/x' } } }, { labels: { a: '3' }, ownerReferences: [] });
  ST.prepareForUpdate(st, old);
  assert.equal(st.spec, SPEC);
  assert.equal(st.status, { attached: true, attachmentMetadata: { d: '/dev/x' } });
  assert.equal(st.metadata.labels, { a: '1' });
  assert.equal(st.metadata.annotations, { x: 'y' });
  assert.equal(st.metadata.finalizers, ['f']);
  assert.is(st.metadata.ownerReferences, undefined);
  check('status strategy validates like the main one', ST.validateUpdate(st, old), []);
});

test('defaults: the inline spec\'s volume source (SetObjectDefaults_VolumeAttachment)', () => {
  const o = va({ ...SPEC, source: { inlineVolumeSpec: { rbd: { monitors: ['m'], image: 'i' } } } });
  S.defaults!(o);
  assert.equal((o.spec as any).source.inlineVolumeSpec.rbd, { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  const h = va({ ...SPEC, source: { inlineVolumeSpec: { hostPath: { path: '/x' } } } });
  S.defaults!(h);
  assert.equal((h.spec as any).source.inlineVolumeSpec.hostPath, { path: '/x', type: '' });
  const plain = va();
  S.defaults!(plain);
  assert.equal(plain.spec, SPEC);
});

test('Table: printVolumeAttachment cells', () => {
  assert.equal(volumeAttachmentTable.columns.map((c) => [c.name, c.type, c.format ?? '']), [
    ['Name', 'string', 'name'],
    ['Attacher', 'string', 'name'],
    ['PV', 'string', ''],
    ['Node', 'string', ''],
    ['Attached', 'boolean', ''],
    ['Age', 'string', ''],
  ]);
  assert.equal(volumeAttachmentTable.cells(created(va())), ['va', 'csi.example.com', 'pv1', 'node1', false, '2024-01-01T00:00:00Z']);
  assert.equal(volumeAttachmentTable.cells(va({ ...SPEC, source: { inlineVolumeSpec: {} } }, { status: { attached: true } })).slice(2, 5), ['', 'node1', true]);
});

test.run();
