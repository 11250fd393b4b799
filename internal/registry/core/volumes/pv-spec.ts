/**
 * PersistentVolumeSpec validation (ValidatePersistentVolumeSpec, validateVolumeNodeAffinity,
 * ValidateNodeSelector, checkMountOption of pkg/volume/validation; Kubernetes 1.24). `inline`
 * validates a VolumeAttachment's inlineVolumeSpec (validateInlinePersistentVolumeSpec).
 */
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required, GoValue } from '../../../api/field-errors.ts';
import { nameIsDNSSubdomain } from '../../../validation/names.ts';
import { validateAccessModes, validateLabelName, SUPPORTED_VOLUME_MODES } from './pvc-spec.ts';
import { validateBasicResource, validatePositiveQuantityValue } from './quantity.ts';
import * as src from './sources.ts';
import { type Obj, cleanPath, isSet, listAt, mapAt, objAt, optStrAt, strAt } from './util.ts';
import { goResourceList } from './go-print.ts';
import { isObj } from '../../../gocompat/json.ts';

/** The PersistentVolumeSource members, in the order ValidatePersistentVolumeSpec checks them. */
export const PV_SOURCE_KINDS = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

/** supportedReclaimPolicy. */
export const SUPPORTED_RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

/** PersistentVolumeSpecValidationOptions. */
export interface PVSpecValidationOptions {
  allowReadWriteOncePod?: boolean;
}

/** ValidateNodeSelectorRequirement. */
function validateNodeSelectorRequirement(rq: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = listAt(rq, 'values');
  const op = strAt(rq, 'operator');
  switch (op) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(required(p.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(invalid(p.child('operator'), op, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(strAt(rq, 'key'), p.child('key')));
  return errs;
}

/** ValidateNodeFieldSelectorRequirement (only metadata.name is a node field). */
function validateNodeFieldSelectorRequirement(rq: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const values = listAt(rq, 'values');
  const op = strAt(rq, 'operator');
  if (op === 'In' || op === 'NotIn') {
    if (values.length !== 1) errs.push(required(p.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else errs.push(invalid(p.child('operator'), op, 'not a valid selector operator'));
  const key = strAt(rq, 'key');
  if (key !== 'metadata.name') errs.push(invalid(p.child('key'), key, 'not a valid field selector key'));
  else {
    values.forEach((v, i) => {
      const s = typeof v === 'string' ? v : String(v);
      for (const m of nameIsDNSSubdomain(s, false)) errs.push(invalid(p.child('values').index(i), s, m));
    });
  }
  return errs;
}

/** ValidateNodeSelector (nodeSelectorTerms non-empty, each term's requirements valid). */
export function validateNodeSelector(sel: unknown, p: FieldPath): FieldError[] {
  const termsPath = p.child('nodeSelectorTerms');
  const terms = listAt(sel, 'nodeSelectorTerms');
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  const errs: FieldError[] = [];
  terms.forEach((term, i) => {
    const tp = termsPath.index(i);
    listAt(term, 'matchExpressions').forEach((r, j) => errs.push(...validateNodeSelectorRequirement(r, tp.child('matchExpressions').index(j))));
    listAt(term, 'matchFields').forEach((r, j) => errs.push(...validateNodeFieldSelectorRequirement(r, tp.child('matchFields').index(j))));
  });
  return errs;
}

type PVValidator = (s: Obj, p: FieldPath, pvName: string) => FieldError[];

/** Each member's validator and the path kube validates it under. */
const PV_VALIDATORS: Record<(typeof PV_SOURCE_KINDS)[number], [PVValidator, string]> = {
  hostPath: [src.validateHostPath, 'hostPath'],
  gcePersistentDisk: [src.validateGCEPersistentDisk, 'persistentDisk'],
  awsElasticBlockStore: [src.validateAWSElasticBlockStore, 'awsElasticBlockStore'],
  glusterfs: [(s, p) => src.validateGlusterfs(s, p, true), 'glusterfs'],
  flocker: [src.validateFlocker, 'flocker'],
  nfs: [src.validateNFS, 'nfs'],
  rbd: [src.validateRBD, 'rbd'],
  quobyte: [src.validateQuobyte, 'quobyte'],
  cephfs: [src.validateCephFS, 'cephfs'],
  iscsi: [(s, p, name) => src.validateISCSI(s, p, name), 'iscsi'],
  cinder: [(s, p) => src.validateCinder(s, p, true), 'cinder'],
  fc: [src.validateFC, 'fc'],
  flexVolume: [src.validateFlex, 'flexVolume'],
  azureFile: [(s, p) => src.validateAzureFile(s, p, true), 'azureFile'],
  vsphereVolume: [src.validateVsphere, 'vsphereVolume'],
  photonPersistentDisk: [src.validatePhoton, 'photonPersistentDisk'],
  portworxVolume: [src.validatePortworx, 'portworxVolume'],
  azureDisk: [src.validateAzureDisk, 'azureDisk'],
  scaleIO: [src.validateScaleIO, 'scaleIO'],
  local: [src.validateLocal, 'local'],
  storageos: [(s, p) => src.validateStorageOS(s, p, true), 'storageos'],
  csi: [src.validateCSIPersistentVolume, 'csi'],
};

/** ValidatePersistentVolumeSpec. */
export function validatePersistentVolumeSpec(spec: unknown, pvName: string, inline: boolean, p: FieldPath, opts: PVSpecValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (inline) {
    if (isSet(spec, 'claimRef')) errs.push(forbidden(p.child('claimRef'), 'may not be specified in the context of inline volumes'));
    if (Object.keys(mapAt(spec, 'capacity')).length !== 0) errs.push(forbidden(p.child('capacity'), 'may not be specified in the context of inline volumes'));
    if (!isSet(spec, 'csi')) errs.push(required(p.child('csi'), 'has to be specified in the context of inline volumes'));
  }
  const modes = listAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(required(p.child('accessModes')));
  else errs.push(...validateAccessModes(modes, p.child('accessModes'), opts.allowReadWriteOncePod === true, ''));

  if (!inline) {
    const capacity = mapAt(spec, 'capacity');
    const keys = Object.keys(capacity);
    if (keys.length === 0) errs.push(required(p.child('capacity')));
    if (!('storage' in capacity) || keys.length > 1) {
      errs.push(notSupported(p.child('capacity'), new GoValue(goResourceList(isSet(spec, 'capacity') ? capacity : undefined)), ['storage']));
    }
    for (const k of keys) {
      errs.push(...validateBasicResource(capacity[k], p.child('capacity').key(k)));
      errs.push(...validatePositiveQuantityValue(capacity[k], p.child('capacity').key(k)));
    }
  }

  const reclaim = strAt(spec, 'persistentVolumeReclaimPolicy');
  if (reclaim.length > 0) {
    if (inline) {
      if (reclaim !== 'Retain') errs.push(forbidden(p.child('persistentVolumeReclaimPolicy'), 'may only be Retain in the context of inline volumes'));
    } else if (!SUPPORTED_RECLAIM_POLICIES.includes(reclaim)) {
      errs.push(notSupported(p.child('persistentVolumeReclaimPolicy'), reclaim, SUPPORTED_RECLAIM_POLICIES));
    }
  }

  let nodeAffinitySpecified = false;
  if (isSet(spec, 'nodeAffinity')) {
    if (inline) errs.push(forbidden(p.child('nodeAffinity'), 'may not be specified in the context of inline volumes'));
    else {
      nodeAffinitySpecified = true;
      const na = objAt(spec, 'nodeAffinity');
      const np = p.child('nodeAffinity');
      if (isSet(na, 'required')) errs.push(...validateNodeSelector(objAt(na, 'required'), np.child('required')));
      else errs.push(required(np.child('required'), 'must specify required node constraints'));
    }
  }

  let num = 0;
  for (const kind of PV_SOURCE_KINDS) {
    if (!isSet(spec, kind)) continue;
    const s = objAt(spec, kind) ?? {};
    // flexVolume is counted without the "more than 1" check (as kube does).
    if (num > 0 && kind !== 'flexVolume') {
      errs.push(forbidden(p.child(kind === 'cephfs' ? 'cephFS' : kind), 'may not specify more than 1 volume type'));
      continue;
    }
    num++;
    const [validate, at] = PV_VALIDATORS[kind];
    errs.push(...validate(s, p.child(at), pvName));
    if (kind === 'local' && !nodeAffinitySpecified) errs.push(required(p.child('nodeAffinity'), 'Local volume requires node affinity'));
  }
  if (num === 0) errs.push(required(p, 'must specify a volume type'));

  const hostPath = objAt(spec, 'hostPath');
  if (hostPath && cleanPath(strAt(hostPath, 'path')) === '/' && reclaim === 'Recycle') {
    errs.push(forbidden(p.child('persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }

  const sc = strAt(spec, 'storageClassName');
  if (sc.length > 0) {
    if (inline) errs.push(forbidden(p.child('storageClassName'), 'may not be specified in the context of inline volumes'));
    else for (const m of nameIsDNSSubdomain(sc, false)) errs.push(invalid(p.child('storageClassName'), sc, m));
  }
  const vm = optStrAt(spec, 'volumeMode');
  if (vm !== undefined) {
    if (inline) {
      if (vm !== 'Filesystem') errs.push(forbidden(p.child('volumeMode'), 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    } else if (!SUPPORTED_VOLUME_MODES.includes(vm)) errs.push(notSupported(p.child('volumeMode'), vm, SUPPORTED_VOLUME_MODES));
  }
  return errs;
}

/** The mount-options annotation (api.MountOptionAnnotation). */
export const MOUNT_OPTION_ANNOTATION = 'volume.beta.kubernetes.io/mount-options';

/** The sources that support mount options (checkMountOption). */
const MOUNT_OPTION_SOURCES = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];

/** pkg/volume/validation ValidatePersistentVolume: the mount-options annotation only on sources that take it. */
export function checkMountOption(spec: unknown, annotations: unknown): FieldError[] {
  if (MOUNT_OPTION_SOURCES.some((k) => isSet(spec, k))) return [];
  if (isObj(annotations) && MOUNT_OPTION_ANNOTATION in annotations) {
    return [forbidden(new FieldPath('metadata').child('annotations').child(MOUNT_OPTION_ANNOTATION), 'may not specify mount options for this volume type')];
  }
  return [];
}
