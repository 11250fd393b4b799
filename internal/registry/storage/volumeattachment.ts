/**
 * VolumeAttachment (storage.k8s.io/v1, cluster-scoped, with /status), after Kubernetes 1.24.17:
 * ValidateVolumeAttachment / ValidateVolumeAttachmentV1 / ValidateVolumeAttachmentUpdate
 * (pkg/apis/storage/validation), pkg/registry/storage/volumeattachment/strategy.go (status only
 * through /status; the CSIMigration gate) and printVolumeAttachment.
 *
 * An inline `spec.source.inlineVolumeSpec` is defaulted (SetObjectDefaults_VolumeAttachment) and
 * validated (ValidatePersistentVolumeSpec, inline) by the PersistentVolume code of core/volumes.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, required, tooLong } from '../../api/field-errors.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import { nameIsDNSSubdomain } from '../../validation/names.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import type { KindDescriptor, StatusStrategy, Strategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { defaultAzureDisk, defaultHostPath, defaultISCSI, defaultRBD, defaultScaleIO } from '../core/volumes/defaults.ts';
import { validatePersistentVolumeSpec } from '../core/volumes/pv-spec.ts';
import { byteLen, goPtr, obj, resetObjectMetaForStatus, str, validateCSIDriverName } from './helpers.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { goQuote } from '../../gocompat/quote.ts';

const MAX_ATTACHED_VOLUME_METADATA_SIZE = 256 * 1024;
const MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024;

const source = (o: KubeObject): Record<string, unknown> => obj(obj(o.spec).source);
const present = (v: unknown): boolean => v !== undefined && v !== null;

/** validateVolumeAttachmentSource (the CSIMigration gate words the "neither" error). */
function validateSource(src: Record<string, unknown>, p: FieldPath, gates: FeatureGates): FieldError[] {
  const pv = src.persistentVolumeName;
  const inline = src.inlineVolumeSpec;
  if (!present(inline) && !present(pv)) {
    return [required(p, gates.enabled('CSIMigration') ? 'must specify exactly one of inlineVolumeSpec and persistentVolumeName' : 'must specify persistentVolumeName when CSIMigration feature is disabled')];
  }
  if (present(inline) && present(pv)) return [forbidden(p, 'must specify exactly one of inlineVolumeSpec and persistentVolumeName')];
  if (present(pv) && str(pv).length === 0) return [required(p.child('persistentVolumeName'), 'must specify non empty persistentVolumeName')];
  // An inline spec: validated as an inline PV's (no PV name; options all off, as kube passes).
  if (present(inline)) return validatePersistentVolumeSpec(inline, '', true, p.child('inlineVolumeSpec'), {});
  return [];
}

/** SetObjectDefaults_VolumeAttachment: the defaults of the inline spec's volume source. */
export function defaultVolumeAttachment(o: KubeObject): void {
  const inline = source(o).inlineVolumeSpec;
  if (!isObj(inline)) return;
  const by: [string, (s: Record<string, unknown>) => void][] = [
    ['hostPath', defaultHostPath],
    ['rbd', defaultRBD],
    ['iscsi', defaultISCSI],
    ['azureDisk', defaultAzureDisk],
    ['scaleIO', defaultScaleIO],
  ];
  for (const [k, f] of by) if (isObj(inline[k])) f(inline[k] as Record<string, unknown>);
}

/** validateVolumeError: the message's length (reported against the metadata size, as kube does). */
function validateVolumeError(e: unknown, p: FieldPath): FieldError[] {
  if (!isObj(e)) return [];
  const msg = str(e.message);
  return byteLen(msg) > MAX_VOLUME_ERROR_MESSAGE_SIZE ? [tooLong(p.child('message'), msg, MAX_ATTACHED_VOLUME_METADATA_SIZE)] : [];
}

/** ValidateVolumeAttachment minus ObjectMeta: spec and status. */
export function validateVolumeAttachmentSpecStatus(o: KubeObject, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const errs: FieldError[] = [];
  const spec = obj(o.spec);
  const sp = new FieldPath('spec');
  const attacher = str(spec.attacher);
  if (attacher.length === 0) errs.push(required(sp.child('attacher'), ''));
  errs.push(...validateSource(obj(spec.source), sp.child('source'), gates));
  const nodeName = str(spec.nodeName);
  for (const msg of nameIsDNSSubdomain(nodeName, false)) errs.push(invalid(sp.child('nodeName'), nodeName, msg));

  const status = obj(o.status);
  const st = new FieldPath('status');
  let size = 0;
  for (const [k, v] of Object.entries(obj(status.attachmentMetadata))) size += byteLen(k) + byteLen(str(v));
  if (size > MAX_ATTACHED_VOLUME_METADATA_SIZE) errs.push(tooLong(st.child('attachmentMetadata'), status.attachmentMetadata, MAX_ATTACHED_VOLUME_METADATA_SIZE));
  errs.push(...validateVolumeError(status.attachError, st.child('attachError')));
  errs.push(...validateVolumeError(status.detachError, st.child('detachError')));
  return errs;
}

/** ValidateVolumeAttachmentV1: the attacher is a CSI driver name, the PV name a DNS subdomain. */
export function validateVolumeAttachmentV1(o: KubeObject): FieldError[] {
  const errs = validateCSIDriverName(str(obj(o.spec).attacher), new FieldPath('spec.attacher'));
  const pv = source(o).persistentVolumeName;
  if (present(pv)) for (const msg of nameIsDNSSubdomain(str(pv), false)) errs.push(invalid(new FieldPath('spec.source.persistentVolumeName'), str(pv), msg));
  return errs;
}

/** Go's %#v of the internal storage.VolumeAttachmentSpec (the "spec: field is immutable" value). */
export function goVolumeAttachmentSpec(spec: Record<string, unknown>): GoValue {
  const src = obj(spec.source);
  return new GoValue(
    `storage.VolumeAttachmentSpec{Attacher:${goQuote(str(spec.attacher))}, Source:storage.VolumeAttachmentSource{PersistentVolumeName:${goPtr(present(src.persistentVolumeName), 'string')}, InlineVolumeSpec:${goPtr(present(src.inlineVolumeSpec), 'core.PersistentVolumeSpec')}}, NodeName:${goQuote(str(spec.nodeName))}}`,
  );
}

/**
 * The strategy's ValidateUpdate (also /status's): ValidateVolumeAttachment(new), then
 * ValidateVolumeAttachmentUpdate, which validates the new object again (so each error is listed
 * twice, as kube lists it) and keeps the spec read-only.
 */
export function validateVolumeAttachmentUpdate(n: KubeObject, o: KubeObject, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const errs = [...validateVolumeAttachmentSpecStatus(n, gates), ...validateVolumeAttachmentSpecStatus(n, gates)];
  if (!semanticEqual(o.spec, n.spec)) errs.push(invalid(new FieldPath('spec'), goVolumeAttachmentSpec(obj(n.spec)), FIELD_IMMUTABLE));
  return errs;
}

/** The main resource's strategy under the given gates. */
export function volumeAttachmentStrategy(gates: FeatureGates = DEFAULT_GATES): Strategy & ResetFieldsStrategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaults: defaultVolumeAttachment,
    prepareForCreate(o) {
      o.status = { attached: false };
      if (!gates.enabled('CSIMigration') && isObj(obj(o.spec).source)) delete source(o).inlineVolumeSpec;
    },
    prepareForUpdate(n, o) {
      // Status changes only through /status.
      if (o.status === undefined) delete n.status;
      else n.status = structuredClone(o.status);
      if (!gates.enabled('CSIMigration') && !present(source(o).inlineVolumeSpec) && isObj(obj(n.spec).source)) delete source(n).inlineVolumeSpec;
    },
    validate: (o) => [...validateVolumeAttachmentSpecStatus(o, gates), ...validateVolumeAttachmentV1(o)],
    validateUpdate: (n, o) => validateVolumeAttachmentUpdate(n, o, gates),
  };
}

/** /status: the stored spec and metadata (ResetObjectMetaForStatus) win; only status changes. */
export function volumeAttachmentStatusStrategy(gates: FeatureGates = DEFAULT_GATES): StatusStrategy & ResetFieldsStrategy {
  return {
    resetFields: ['metadata', 'spec'],
    prepareForUpdate(n, o) {
      if (o.spec === undefined) delete n.spec;
      else n.spec = structuredClone(o.spec);
      resetObjectMetaForStatus(n.metadata, o.metadata);
      if (!isObj(n.status)) n.status = { attached: false };
    },
    validateUpdate: (n, o) => validateVolumeAttachmentUpdate(n, o, gates),
  };
}

const col = (name: string, type: TableColumn['type'], description: string): TableColumn => ({ name, type, description, priority: 0 });

/** printVolumeAttachment. */
export const volumeAttachmentTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { ...col('Attacher', 'string', 'Attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().'), format: 'name' },
    col('PV', 'string', 'Name of the persistent volume to attach.'),
    col('Node', 'string', 'The node that the volume should be attached to.'),
    col('Attached', 'boolean', 'Indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.'),
    AGE_COLUMN,
  ],
  cells: (o) => {
    const spec = obj(o.spec);
    return [o.metadata.name ?? '', str(spec.attacher), str(source(o).persistentVolumeName), str(spec.nodeName), obj(o.status).attached === true, creationTimestampCell(o)];
  },
};

/** The descriptor under the given gates. */
function volumeAttachmentKindFor(gates: FeatureGates): KindDescriptor {
  return {
    group: 'storage.k8s.io',
    versions: ['v1'],
    resource: 'volumeattachments',
    singular: 'volumeattachment',
    kind: 'VolumeAttachment',
    listKind: 'VolumeAttachmentList',
    namespaced: false,
    shortNames: [],
    strategy: volumeAttachmentStrategy(gates),
    subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: volumeAttachmentStatusStrategy(gates) }],
    table: volumeAttachmentTable,
    deleteReturns: 'Object',
    forOptions: (options) => volumeAttachmentKindFor(options.featureGates ?? DEFAULT_GATES),
  };
}

/** storage.k8s.io/v1 volumeattachments (+ status) under 1.24's default gates; `forOptions` rebuilds it for others. */
export const volumeAttachmentKind: KindDescriptor = volumeAttachmentKindFor(DEFAULT_GATES);
