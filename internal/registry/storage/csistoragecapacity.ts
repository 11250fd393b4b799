/**
 * CSIStorageCapacity (storage.k8s.io/v1, namespaced), after Kubernetes 1.24.17:
 * ValidateCSIStorageCapacity / ValidateCSIStorageCapacityUpdate (pkg/apis/storage/validation)
 * and pkg/registry/storage/csistoragecapacity/strategy.go. 1.24 stores it as v1beta1 (discovery's
 * storageVersionHash says so) and declares no printer for it: Tables have the default columns.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid } from '../../api/field-errors.ts';
import { nameIsDNSSubdomain } from '../../validation/names.ts';
import { FIELD_IMMUTABLE, IS_NEGATIVE_ERROR_MSG, validateObjectMeta } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy } from '../rest/strategy.ts';
import { GO_NIL, goLabelSelector, str, validateLabelSelector } from './helpers.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';

/** ValidateCSIStorageCapacity minus ObjectMeta: nodeTopology, storageClassName, capacity ≥ 0. */
export function validateCSIStorageCapacityFields(o: KubeObject): FieldError[] {
  const errs = validateLabelSelector(o.nodeTopology, new FieldPath('nodeTopology'));
  const sc = str(o.storageClassName);
  for (const msg of nameIsDNSSubdomain(sc, false)) errs.push(invalid(new FieldPath('storageClassName'), sc, msg));
  // Quantities arrive canonical (decoding parsed them): negative ones start with '-'.
  if (typeof o.capacity === 'string' && o.capacity.startsWith('-')) errs.push(invalid(new FieldPath('capacity'), o.capacity, IS_NEGATIVE_ERROR_MSG));
  return errs;
}

/**
 * The strategy's Validate calls ValidateCSIStorageCapacity twice (ObjectMeta included), so kube
 * lists every error twice: [metadata, fields, metadata, fields]. The store puts the first
 * metadata errors in front.
 */
export function validateCSIStorageCapacity(o: KubeObject): FieldError[] {
  const fields = validateCSIStorageCapacityFields(o);
  return [...fields, ...validateObjectMeta(o.metadata, true, nameIsDNSSubdomain), ...validateCSIStorageCapacityFields(o)];
}

/** ValidateUpdate: ValidateCSIStorageCapacity(new) once, then nodeTopology and storageClassName immutable. */
export function validateCSIStorageCapacityUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = validateCSIStorageCapacityFields(n);
  if (!semanticEqual(n.nodeTopology, o.nodeTopology)) {
    errs.push(invalid(new FieldPath('nodeTopology'), isObj(n.nodeTopology) ? goLabelSelector(n.nodeTopology) : GO_NIL, FIELD_IMMUTABLE));
  }
  if (str(n.storageClassName) !== str(o.storageClassName)) errs.push(invalid(new FieldPath('storageClassName'), str(n.storageClassName), FIELD_IMMUTABLE));
  return errs;
}

/** pkg/registry/storage/csistoragecapacity: validation only; updates need a resourceVersion. */
export const csiStorageCapacityStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  validate: validateCSIStorageCapacity,
  validateUpdate: validateCSIStorageCapacityUpdate,
};

/** storage.k8s.io/v1 namespaces/<ns>/csistoragecapacities; delete answers a Status (no ReturnDeletedObject). */
export const csiStorageCapacityKind: KindDescriptor = {
  group: 'storage.k8s.io',
  versions: ['v1'],
  storageVersion: 'v1beta1',
  resource: 'csistoragecapacities',
  singular: 'csistoragecapacity',
  kind: 'CSIStorageCapacity',
  listKind: 'CSIStorageCapacityList',
  namespaced: true,
  shortNames: [],
  strategy: csiStorageCapacityStrategy,
  deleteReturns: 'Status',
};

/** The v1 object in v1beta1 form: the two versions have the same fields, only apiVersion differs. */
const withApiVersion = (apiVersion: string) => (o: KubeObject): KubeObject => ({ ...o, apiVersion });

/**
 * storage.k8s.io/v1beta1 CSIStorageCapacity as 1.24 serves it: deprecated (removed in 1.27), the
 * same stored objects as v1 (v1 stays the preferred version), converted without loss both ways.
 * Every response carries kube's deprecation warning; requests to it are counted in
 * apiserver_requested_deprecated_apis and annotated in the audit log.
 */
export const csiStorageCapacityV1beta1Kind: KindDescriptor = {
  ...csiStorageCapacityKind,
  versions: ['v1beta1'],
  deprecationWarning: 'storage.k8s.io/v1beta1 CSIStorageCapacity is deprecated in v1.24+, unavailable in v1.27+; use storage.k8s.io/v1 CSIStorageCapacity',
  removedRelease: '1.27',
  storedAs: { group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity', resource: 'csistoragecapacities', fromStorage: withApiVersion('storage.k8s.io/v1beta1'), toStorage: withApiVersion('storage.k8s.io/v1') },
};
