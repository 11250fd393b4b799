/**
 * PersistentVolume (core/v1, cluster-scoped, `/status`), after Kubernetes 1.24.17:
 * SetDefaults_PersistentVolume and its sources' defaults (pkg/apis/core/v1), ValidatePersistentVolume
 * / ValidatePersistentVolumeUpdate / ValidatePersistentVolumeStatusUpdate
 * (pkg/apis/core/validation), pkg/volume/validation's mount-option check,
 * pkg/registry/core/persistentvolume/strategy.go and printPersistentVolume.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, GoValue } from '../../api/field-errors.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import type { KindDescriptor, Strategy, StatusStrategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import { defaultAzureDisk, defaultHostPath, defaultISCSI, defaultRBD, defaultResourceList, defaultScaleIO } from './volumes/index.ts';
import { PV_SOURCE_KINDS, checkMountOption, validatePersistentVolumeSpec } from './volumes/pv-spec.ts';
import { cmpDiff } from './cmpdiff.ts';
import { listAt, objAt, strAt } from './volumes/util.ts';
import { isObj } from '../../gocompat/json.ts';

/** The beta storage-class annotation (core.BetaStorageClassAnnotation), read before the spec field. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const spec = (o: KubeObject): Record<string, unknown> => {
  if (!isObj(o.spec)) o.spec = {};
  return o.spec as Record<string, unknown>;
};

/** SetObjectDefaults_PersistentVolume. */
export function defaultPersistentVolume(o: KubeObject): void {
  if (!isObj(o.status)) o.status = {};
  const status = o.status as Record<string, unknown>;
  if (!status.phase) status.phase = 'Pending';
  const s = spec(o);
  if (!s.persistentVolumeReclaimPolicy) s.persistentVolumeReclaimPolicy = 'Retain';
  if (s.volumeMode === undefined || s.volumeMode === null) s.volumeMode = 'Filesystem';
  defaultPersistentVolumeSpec(s);
}

/**
 * The defaults of a PersistentVolumeSpec itself (capacity rounded up to milli, the sources'
 * defaults), also applied to a VolumeAttachment's inlineVolumeSpec (SetObjectDefaults_VolumeAttachment).
 */
export function defaultPersistentVolumeSpec(s: Record<string, unknown>): void {
  defaultResourceList(s.capacity);
  const src = (k: string): Record<string, unknown> | undefined => objAt(s, k);
  const hostPath = src('hostPath');
  if (hostPath) defaultHostPath(hostPath);
  const rbd = src('rbd');
  if (rbd) defaultRBD(rbd);
  const iscsi = src('iscsi');
  if (iscsi) defaultISCSI(iscsi);
  const azureDisk = src('azureDisk');
  if (azureDisk) defaultAzureDisk(azureDisk);
  const scaleIO = src('scaleIO');
  if (scaleIO) defaultScaleIO(scaleIO);
}

/** ValidationOptionsForPersistentVolume: ReadWriteOncePod when the gate is on or the old PV used it. */
const allowRWOP = (gates: FeatureGates, old?: KubeObject): boolean =>
  gates.enabled('ReadWriteOncePod') || (old !== undefined && listAt(old.spec, 'accessModes').includes('ReadWriteOncePod'));

/** ValidatePersistentVolume minus ObjectMeta (the store validates it: cluster-scoped, DNS subdomain). */
export function validatePersistentVolume(o: KubeObject, gates: FeatureGates = DEFAULT_GATES, old?: KubeObject): FieldError[] {
  return [
    ...validatePersistentVolumeSpec(o.spec, o.metadata.name ?? '', false, new FieldPath('spec'), { allowReadWriteOncePod: allowRWOP(gates, old) }),
    ...checkMountOption(o.spec, o.metadata.annotations),
  ];
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * ValidatePersistentVolumeUpdate: the new spec validated again (kube's strategy validates the new
 * PV, then calls this, which validates it once more: a bad field is reported twice in the causes)
 * and the update rules.
 */
export function validatePersistentVolumeUpdate(n: KubeObject, o: KubeObject, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const errs = validatePersistentVolumeSpec(n.spec, n.metadata.name ?? '', false, new FieldPath('spec'), { allowReadWriteOncePod: allowRWOP(gates, o) });
  const ns = isObj(n.spec) ? n.spec : {};
  const os = isObj(o.spec) ? o.spec : {};
  // A CSI controllerExpandSecretRef may be added to a PV that had none.
  let newCSI = ns.csi;
  if (isObj(os.csi) && os.csi.controllerExpandSecretRef == null && isObj(ns.csi) && ns.csi.controllerExpandSecretRef != null) {
    const { controllerExpandSecretRef: _dropped, ...rest } = ns.csi;
    newCSI = rest;
  }
  const newSource = (k: string): unknown => (k === 'csi' ? newCSI : ns[k]);
  if (PV_SOURCE_KINDS.some((k) => !same(newSource(k), os[k]))) {
    const diff = cmpDiff('PersistentVolumeSpec', os, { ...ns, csi: newCSI }, 'PersistentVolumeSource');
    errs.push(forbidden(new FieldPath('spec').child('persistentvolumesource'), `spec.persistentvolumesource is immutable after creation\n${diff}`));
  }
  if (!same(ns.volumeMode, os.volumeMode)) errs.push(invalid(new FieldPath('volumeMode'), ns.volumeMode ?? null, FIELD_IMMUTABLE));
  if (os.nodeAffinity != null && !same(ns.nodeAffinity, os.nodeAffinity)) {
    // kube prints the dereferenced struct, whose `Required` is a pointer (an address).
    const value = ns.nodeAffinity == null ? null : new GoValue(`core.VolumeNodeAffinity{Required:(*core.NodeSelector)(${objAt(ns.nodeAffinity, 'required') ? '<ptr>' : 'nil'})}`);
    errs.push(invalid(new FieldPath('nodeAffinity'), value, FIELD_IMMUTABLE));
  }
  return errs;
}

/** persistentvolumeStrategy, for a server's feature gates. */
export function persistentVolumeStrategy(gates: FeatureGates = DEFAULT_GATES): Strategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    defaults: defaultPersistentVolume,
    prepareForUpdate(newObj, oldObj) {
      // A main-resource write keeps the stored status.
      newObj.status = structuredClone(oldObj.status);
    },
    validate: (obj) => validatePersistentVolume(obj, gates),
    // persistentvolumeStrategy.ValidateUpdate: ValidatePersistentVolume, the mount-option check, then
    // ValidatePersistentVolumeUpdate (which validates the spec again).
    validateUpdate: (n, o) => [...validatePersistentVolume(n, gates, o), ...validatePersistentVolumeUpdate(n, o, gates)],
  };
}

/** persistentvolumeStatusStrategy: only status (and metadata) change through `/status`. */
export const persistentVolumeStatusStrategy: StatusStrategy = {
  prepareForUpdate(newObj, oldObj) {
    newObj.spec = structuredClone(oldObj.spec);
  },
  // ValidatePersistentVolumeStatusUpdate is ObjectMeta update validation (the store's) and a
  // resourceVersion, which the store always fills in.
  validateUpdate: () => [],
};

// ---------------------------------------------------------------------------------------------
// table (printPersistentVolume)

const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

/** helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, duplicates once. */
export function accessModesString(modes: unknown[]): string {
  const out: string[] = [];
  for (const [mode, short] of [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ]) {
    if (modes.includes(mode)) out.push(short!);
  }
  return out.join(',');
}

/** Quantity.String() of a map entry ("0" when absent, as Go's zero Quantity). */
export const quantityCell = (list: unknown, key: string): string => {
  const v = isObj(list) ? list[key] : undefined;
  return typeof v === 'string' ? v : '0';
};

export const persistentVolumeTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    col('Capacity', "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
    col('Access Modes', 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes'),
    col(
      'Reclaim Policy',
      'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
    ),
    col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase'),
    col(
      'Claim',
      'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
    ),
    col('StorageClass', 'StorageClass of the pv'),
    col('Reason', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
    AGE_COLUMN,
    col('VolumeMode', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.', 1),
  ],
  cells(obj) {
    const s = isObj(obj.spec) ? obj.spec : {};
    const claimRef = objAt(s, 'claimRef');
    const claim = claimRef ? `${strAt(claimRef, 'namespace')}/${strAt(claimRef, 'name')}` : '';
    const phase = obj.metadata.deletionTimestamp ? 'Terminating' : strAt(obj.status, 'phase');
    const annotations = obj.metadata.annotations ?? {};
    const sc = BETA_STORAGE_CLASS_ANNOTATION in annotations ? annotations[BETA_STORAGE_CLASS_ANNOTATION]! : strAt(s, 'storageClassName');
    const volumeMode = typeof s.volumeMode === 'string' ? s.volumeMode : '<unset>';
    return [
      obj.metadata.name ?? '',
      quantityCell(s.capacity, 'storage'),
      accessModesString(listAt(s, 'accessModes')),
      strAt(s, 'persistentVolumeReclaimPolicy'),
      phase,
      claim,
      sc,
      strAt(obj.status, 'reason'),
      creationTimestampCell(obj),
      volumeMode,
    ];
  },
};

/** The descriptor for a server's feature gates. */
function persistentVolumeKindFor(gates: FeatureGates): KindDescriptor {
  return {
    group: '',
    versions: ['v1'],
    resource: 'persistentvolumes',
    singular: 'persistentvolume',
    kind: 'PersistentVolume',
    listKind: 'PersistentVolumeList',
    namespaced: false,
    shortNames: ['pv'],
    strategy: persistentVolumeStrategy(gates),
    subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: persistentVolumeStatusStrategy }],
    table: persistentVolumeTable,
    deleteReturns: 'Object',
    forOptions: (options) => persistentVolumeKindFor(options.featureGates ?? DEFAULT_GATES),
  };
}

export const persistentVolumeKind: KindDescriptor = persistentVolumeKindFor(DEFAULT_GATES);
