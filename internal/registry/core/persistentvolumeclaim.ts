/**
 * PersistentVolumeClaim (core/v1, namespaced, `/status`), after Kubernetes 1.24.17:
 * SetObjectDefaults_PersistentVolumeClaim (pkg/apis/core/v1), ValidatePersistentVolumeClaim /
 * …Update / …StatusUpdate (pkg/apis/core/validation), pkg/api/persistentvolumeclaim (gated
 * fields, data sources), pkg/registry/core/persistentvolumeclaim/strategy.go and
 * printPersistentVolumeClaim.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, forbidden, invalid, notSupported } from '../../api/field-errors.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';
import type { KindDescriptor, Strategy, StatusStrategy, TableColumn, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import {
  compareQuantities,
  defaultClaimSpec,
  defaultResourceList,
  validateBasicResource,
  validateClaimSpec,
  validateNonnegativeQuantity,
} from './volumes/index.ts';
import { cmpDiff } from './cmpdiff.ts';
import { listAt, objAt, optStrAt, strAt } from './volumes/util.ts';
import { BETA_STORAGE_CLASS_ANNOTATION, accessModesString, quantityCell } from './persistentvolume.ts';
import { isObj } from '../../gocompat/json.ts';

type Obj = Record<string, unknown>;

const specOf = (o: KubeObject): Obj => {
  if (!isObj(o.spec)) o.spec = {};
  return o.spec as Obj;
};
const statusOf = (o: KubeObject): Obj => {
  if (!isObj(o.status)) o.status = {};
  return o.status as Obj;
};

/** SetObjectDefaults_PersistentVolumeClaim. */
export function defaultPersistentVolumeClaim(o: KubeObject): void {
  const status = statusOf(o);
  if (!status.phase) status.phase = 'Pending';
  defaultClaimSpec(specOf(o));
  defaultResourceList(status.capacity);
  defaultResourceList(status.allocatedResources);
}

// ---------------------------------------------------------------------------------------------
// pkg/api/persistentvolumeclaim

/** dataSourceIsPvcOrSnapshot. */
function isPvcOrSnapshot(ds: unknown): boolean {
  if (!isObj(ds)) return false;
  const group = optStrAt(ds, 'apiGroup') ?? '';
  const kind = strAt(ds, 'kind');
  return (kind === 'PersistentVolumeClaim' && group === '') || (kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/** DropDisabledFields + EnforceDataSourceBackwardsCompatibility + NormalizeDataSources. */
export function prepareDataSources(spec: Obj, oldSpec: Obj | undefined, gates: FeatureGates): void {
  if (!gates.enabled('AnyVolumeDataSource')) delete spec.dataSourceRef;
  const inUse = oldSpec !== undefined && (oldSpec.dataSource != null || oldSpec.dataSourceRef != null);
  if (!inUse && spec.dataSourceRef == null && !isPvcOrSnapshot(spec.dataSource)) delete spec.dataSource;
  normalizeDataSources(spec, gates);
}

/** NormalizeDataSources: with AnyVolumeDataSource, one of the two set → both set, equal. */
function normalizeDataSources(spec: Obj, gates: FeatureGates): void {
  if (!gates.enabled('AnyVolumeDataSource')) return;
  if (spec.dataSource != null && spec.dataSourceRef == null) spec.dataSourceRef = structuredClone(spec.dataSource);
  else if (spec.dataSourceRef != null && spec.dataSource == null) spec.dataSource = structuredClone(spec.dataSourceRef);
}

/** DropDisabledFieldsFromStatus: alpha status fields kept only when the gate is on or already in use. */
function dropDisabledStatusFields(n: KubeObject, o: KubeObject, gates: FeatureGates): void {
  if (gates.enabled('RecoverVolumeExpansionFailure')) return;
  const ns = statusOf(n);
  if (objAt(o.status, 'allocatedResources') === undefined) delete ns.allocatedResources;
  if (!isObj(o.status) || o.status.resizeStatus == null) delete ns.resizeStatus;
}

// ---------------------------------------------------------------------------------------------
// validation

interface Opts {
  allowReadWriteOncePod: boolean;
  enableRecoverFromExpansionFailure: boolean;
}

/** ValidationOptionsForPersistentVolumeClaim. */
function optionsFor(gates: FeatureGates, old?: KubeObject): Opts {
  return {
    allowReadWriteOncePod: gates.enabled('ReadWriteOncePod') || (old !== undefined && listAt(old.spec, 'accessModes').includes('ReadWriteOncePod')),
    enableRecoverFromExpansionFailure: gates.enabled('RecoverVolumeExpansionFailure'),
  };
}

/** ValidatePersistentVolumeClaim minus ObjectMeta. */
export function validatePersistentVolumeClaim(o: KubeObject, gates: FeatureGates = DEFAULT_GATES, old?: KubeObject): FieldError[] {
  return validateClaimSpec(o.spec, new FieldPath('spec'), optionsFor(gates, old));
}

/** Semantic equality of two ResourceLists (nil = empty; quantities compared by value). */
function resourceListsEqual(a: unknown, b: unknown): boolean {
  const ea = isObj(a) ? Object.keys(a) : [];
  const eb = isObj(b) ? b : {};
  if (ea.length !== Object.keys(eb).length) return false;
  return ea.every((k) => k in eb && compareQuantities((a as Obj)[k], eb[k]) === 0);
}

const jsonEq = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const listEq = (a: unknown, b: unknown): boolean => jsonEq(Array.isArray(a) && a.length ? a : null, Array.isArray(b) && b.length ? b : null);

/** core.PersistentVolumeClaimSpec fields in Go order: JSON name, Go name, equality. */
const CLAIM_SPEC_FIELDS: [string, string, (a: unknown, b: unknown) => boolean, string][] = [
  ['accessModes', 'AccessModes', listEq, '[]core.PersistentVolumeAccessMode'],
  ['selector', 'Selector', jsonEq, '*v1.LabelSelector'],
  [
    'resources',
    'Resources',
    (a, b) => resourceListsEqual(objAt(a, 'limits'), objAt(b, 'limits')) && resourceListsEqual(objAt(a, 'requests'), objAt(b, 'requests')),
    'core.ResourceRequirements',
  ],
  ['volumeName', 'VolumeName', (a, b) => (a ?? '') === (b ?? ''), ''],
  ['storageClassName', 'StorageClassName', jsonEq, '*string'],
  ['volumeMode', 'VolumeMode', jsonEq, '*core.PersistentVolumeMode'],
  ['dataSource', 'DataSource', jsonEq, '*core.TypedLocalObjectReference'],
  ['dataSourceRef', 'DataSourceRef', jsonEq, '*core.TypedLocalObjectReference'],
];

/** ValidatePersistentVolumeClaimUpdate's own rules (the new claim is validated as on create too). */
export function validatePersistentVolumeClaimUpdate(n: KubeObject, o: KubeObject, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const opts = optionsFor(gates, o);
  const errs = validateClaimSpec(n.spec, new FieldPath('spec'), opts);
  const newSpec: Obj = structuredClone(isObj(n.spec) ? n.spec : {});
  const oldSpec: Obj = structuredClone(isObj(o.spec) ? o.spec : {});
  // The strategy normalizes the stored claim's data sources before comparing (PrepareForUpdate).
  normalizeDataSources(oldSpec, gates);
  // The volume binder may set volumeName once.
  if (strAt(oldSpec, 'volumeName') === '') {
    if (newSpec.volumeName === undefined) delete oldSpec.volumeName;
    else oldSpec.volumeName = newSpec.volumeName;
  }
  const oldAnn = o.metadata.annotations ?? {};
  const newAnn = n.metadata.annotations ?? {};
  const oldSc = oldAnn[BETA_STORAGE_CLASS_ANNOTATION];
  const upgrade =
    BETA_STORAGE_CLASS_ANNOTATION in oldAnn &&
    oldSpec.storageClassName == null &&
    typeof newSpec.storageClassName === 'string' &&
    newSpec.storageClassName === oldSc &&
    (!(BETA_STORAGE_CLASS_ANNOTATION in newAnn) || newAnn[BETA_STORAGE_CLASS_ANNOTATION] === oldSc);
  if (upgrade) delete newSpec.storageClassName;
  else if ((newAnn[BETA_STORAGE_CLASS_ANNOTATION] ?? '') !== (oldAnn[BETA_STORAGE_CLASS_ANNOTATION] ?? '')) {
    errs.push(invalid(new FieldPath('metadata').child('annotations').child(BETA_STORAGE_CLASS_ANNOTATION), newAnn[BETA_STORAGE_CLASS_ANNOTATION] ?? '', FIELD_IMMUTABLE));
  }
  // A bound claim's requested storage may change (growth is checked below and by admission).
  const newRequests = objAt(objAt(newSpec, 'resources'), 'requests');
  const oldStorage = objAt(objAt(o.spec, 'resources'), 'requests')?.storage;
  if (strAt(n.status, 'phase') === 'Bound' && newRequests) {
    if (oldStorage === undefined) delete newRequests.storage;
    else newRequests.storage = oldStorage;
  }
  if (CLAIM_SPEC_FIELDS.some(([k, , eq]) => !eq(newSpec[k], oldSpec[k]))) {
    // go-cmp's diff of the internal specs, as kube appends it (the same engine as Pod updates).
    const diff = cmpDiff('PersistentVolumeClaimSpec', oldSpec, newSpec);
    errs.push(forbidden(new FieldPath('spec'), `spec is immutable after creation except resources.requests for bound claims\n${diff}`));
  }
  const newSize = objAt(objAt(n.spec, 'resources'), 'requests')?.storage;
  const storagePath = new FieldPath('spec').child('resources').child('requests').child('storage');
  if (compareQuantities(newSize ?? '0', oldStorage ?? '0') < 0) {
    if (!opts.enableRecoverFromExpansionFailure) errs.push(forbidden(storagePath, 'field can not be less than previous value'));
    else if (compareQuantities(newSize ?? '0', objAt(o.status, 'capacity')?.storage ?? '0') <= 0) {
      errs.push(forbidden(storagePath, 'field can not be less than status.capacity'));
    }
  }
  const nvm = isObj(n.spec) ? n.spec.volumeMode : undefined;
  const ovm = isObj(o.spec) ? o.spec.volumeMode : undefined;
  if ((nvm ?? null) !== (ovm ?? null)) errs.push(invalid(new FieldPath('volumeMode'), nvm ?? null, FIELD_IMMUTABLE));
  return errs;
}

const RESIZE_STATUSES = ['', 'ControllerExpansionFailed', 'ControllerExpansionInProgress', 'NodeExpansionFailed', 'NodeExpansionInProgress', 'NodeExpansionPending'];

/** ValidatePersistentVolumeClaimStatusUpdate (metadata and resourceVersion are the store's). */
export function validatePersistentVolumeClaimStatus(n: KubeObject, o: KubeObject, gates: FeatureGates = DEFAULT_GATES): FieldError[] {
  const errs: FieldError[] = [];
  const capPath = new FieldPath('status').child('capacity');
  const capacity = objAt(n.status, 'capacity') ?? {};
  for (const k of Object.keys(capacity)) errs.push(...validateBasicResource(capacity[k], capPath.key(k)));
  if (optionsFor(gates, o).enableRecoverFromExpansionFailure) {
    const rs = optStrAt(n.status, 'resizeStatus');
    if (rs !== undefined && !RESIZE_STATUSES.includes(rs)) errs.push(notSupported(new FieldPath('status').child('resizeStatus'), rs, RESIZE_STATUSES));
    const allocPath = new FieldPath('status').child('allocatedResources');
    const alloc = objAt(n.status, 'allocatedResources') ?? {};
    for (const k of Object.keys(alloc)) {
      if (k !== 'storage') {
        errs.push(notSupported(allocPath, k, ['storage']));
        continue;
      }
      const basic = validateBasicResource(alloc[k], allocPath.key(k));
      errs.push(...(basic.length ? basic : validateNonnegativeQuantity(alloc[k], allocPath.key(k))));
    }
  }
  return errs;
}

/** persistentvolumeclaimStrategy, for a server's feature gates. */
export function persistentVolumeClaimStrategy(gates: FeatureGates = DEFAULT_GATES): Strategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    defaults: defaultPersistentVolumeClaim,
    prepareForCreate(obj) {
      // Status is cleared; reading the stored claim back defaults its phase to Pending.
      obj.status = { phase: 'Pending' };
      prepareDataSources(specOf(obj), undefined, gates);
    },
    prepareForUpdate(newObj, oldObj) {
      newObj.status = structuredClone(oldObj.status);
      prepareDataSources(specOf(newObj), isObj(oldObj.spec) ? oldObj.spec : {}, gates);
    },
    validate: (obj) => validatePersistentVolumeClaim(obj, gates),
    // persistentvolumeclaimStrategy.ValidateUpdate: ValidatePersistentVolumeClaim, then
    // ValidatePersistentVolumeClaimUpdate, which validates the claim again (spec errors twice).
    validateUpdate: (n, o) => [...validatePersistentVolumeClaim(n, gates, o), ...validatePersistentVolumeClaimUpdate(n, o, gates)],
  };
}

/** persistentvolumeclaimStatusStrategy: the stored spec, gated status fields dropped. */
export function persistentVolumeClaimStatusStrategy(gates: FeatureGates = DEFAULT_GATES): StatusStrategy {
  return {
    prepareForUpdate(newObj, oldObj) {
      newObj.spec = structuredClone(oldObj.spec);
      dropDisabledStatusFields(newObj, oldObj, gates);
    },
    validateUpdate: (n, o) => validatePersistentVolumeClaimStatus(n, o, gates),
  };
}

// ---------------------------------------------------------------------------------------------
// table (printPersistentVolumeClaim)

const col = (name: string, description: string, priority = 0): TableColumn => ({ name, type: 'string', description, priority });

export const persistentVolumeClaimTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    col('Status', 'phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1'),
    col('StorageClass', 'StorageClass of the pvc'),
    AGE_COLUMN,
    col('VolumeMode', 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.', 1),
  ],
  cells(obj) {
    const s = isObj(obj.spec) ? obj.spec : {};
    const phase = obj.metadata.deletionTimestamp ? 'Terminating' : strAt(obj.status, 'phase');
    const volumeName = strAt(s, 'volumeName');
    const bound = volumeName !== '';
    const annotations = obj.metadata.annotations ?? {};
    const sc = BETA_STORAGE_CLASS_ANNOTATION in annotations ? annotations[BETA_STORAGE_CLASS_ANNOTATION]! : (optStrAt(s, 'storageClassName') ?? '');
    return [
      obj.metadata.name ?? '',
      phase,
      volumeName,
      bound ? quantityCell(objAt(obj.status, 'capacity'), 'storage') : '',
      bound ? accessModesString(listAt(obj.status, 'accessModes')) : '',
      sc,
      creationTimestampCell(obj),
      typeof s.volumeMode === 'string' ? s.volumeMode : '<unset>',
    ];
  },
};

/** The descriptor for a server's feature gates. */
function persistentVolumeClaimKindFor(gates: FeatureGates): KindDescriptor {
  return {
    group: '',
    versions: ['v1'],
    resource: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    listKind: 'PersistentVolumeClaimList',
    namespaced: true,
    shortNames: ['pvc'],
    strategy: persistentVolumeClaimStrategy(gates),
    subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: persistentVolumeClaimStatusStrategy(gates) }],
    table: persistentVolumeClaimTable,
    deleteReturns: 'Object',
    forOptions: (options) => persistentVolumeClaimKindFor(options.featureGates ?? DEFAULT_GATES),
  };
}

export const persistentVolumeClaimKind: KindDescriptor = persistentVolumeClaimKindFor(DEFAULT_GATES);
