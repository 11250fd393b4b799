/**
 * Pod volumes: ValidateVolumes and validateVolumeSource with the downward API, projected and
 * ephemeral sources (pkg/apis/core/validation/validation.go, Kubernetes 1.24). Paths and messages
 * are kube's, including its quirks (`downwarAPI`, `cephFS`/`cephfs`, `persistentDisk`, downward
 * API items reported on the source's path, the token path on `projected.path`).
 */
import { type FieldError, FieldPath, duplicate, forbidden, invalid, required } from '../../../api/field-errors.ts';
import { validateAnnotations, validateLabels } from '../../../validation/objectmeta.ts';
import { nameIsDNSSubdomain } from '../../../validation/names.ts';
import {
  CONTAINER_RESOURCE_FIELD_PATHS,
  CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES,
  VOLUME_DOWNWARD_API_FIELD_PATHS,
  validateContainerResourceFieldSelector,
  validateObjectFieldSelector,
} from './field-selectors.ts';
import { type ClaimSpecValidationOptions, validateClaimSpec } from './pvc-spec.ts';
import { quantitySign } from './quantity.ts';
import * as src from './sources.ts';
import { type Obj, isSet, listAt, numAt, objAt, optStrAt, strAt, validateFileMode, validateLocalNonReservedPath } from './util.ts';
import { isObj } from '../../../gocompat/json.ts';

/** What validateVolumes needs beyond the volumes (PodValidationOptions and the pod's name). */
export interface VolumeValidationOptions {
  /** metadata.name of the Pod (ephemeral claim names `<pod>-<volume>`); empty/absent skips those checks. */
  podName?: string;
  /** DownwardAPIHugePages (beta in 1.24, on by default): `requests.hugepages-*` resources allowed. */
  allowDownwardAPIHugePages?: boolean;
  /** ReadWriteOncePod gate, for the ephemeral claim templates. */
  allowReadWriteOncePod?: boolean;
}

/** The JSON member names of VolumeSource, in the order validateVolumeSource checks them. */
export const VOLUME_SOURCE_KINDS = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
  'ephemeral',
] as const;

/** One member of VolumeSource (its JSON name). */
export type VolumeSourceKind = (typeof VOLUME_SOURCE_KINDS)[number];

/** The result of ValidateVolumes: valid volumes (name → source kind) and the errors. */
export interface VolumesResult {
  /** Volumes that validated, by name → the member set (kube's `vols` map; volumeMounts check against it). */
  volumes: Map<string, VolumeSourceKind>;
  errors: FieldError[];
}

/** The first source member set on a volume (what kube's map would hold), if any. */
export function volumeSourceKind(vol: unknown): VolumeSourceKind | undefined {
  return VOLUME_SOURCE_KINDS.find((k) => isSet(vol, k));
}

/** The name kube uses in "may not specify more than 1 volume type" for a member (two typos kept). */
const FORBIDDEN_NAME: Partial<Record<VolumeSourceKind, string>> = { cephfs: 'cephFS', downwardAPI: 'downwarAPI' };

/** validateDownwardAPIVolumeFile (errors on `p`, the source's path, as kube reports them). */
export function validateDownwardAPIVolumeFile(file: unknown, p: FieldPath, opts: VolumeValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const path = strAt(file, 'path');
  if (path.length === 0) errs.push(required(p.child('path')));
  errs.push(...validateLocalNonReservedPath(path, p.child('path')));
  const fieldRef = objAt(file, 'fieldRef');
  const resRef = objAt(file, 'resourceFieldRef');
  if (fieldRef) {
    errs.push(...validateObjectFieldSelector(fieldRef, VOLUME_DOWNWARD_API_FIELD_PATHS, p.child('fieldRef')));
    if (resRef) errs.push(invalid(p, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (resRef) {
    const prefixes = opts.allowDownwardAPIHugePages !== false ? CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES : new Set<string>();
    errs.push(...validateContainerResourceFieldSelector(resRef, CONTAINER_RESOURCE_FIELD_PATHS, prefixes, p.child('resourceFieldRef'), true));
  } else {
    errs.push(required(p, 'one of fieldRef and resourceFieldRef is required'));
  }
  errs.push(...validateFileMode(numAt(file, 'mode'), p.child('mode')));
  return errs;
}

/** validateDownwardAPIVolumeSource. */
function validateDownwardAPIVolume(s: Obj, p: FieldPath, opts: VolumeValidationOptions): FieldError[] {
  const errs = validateFileMode(numAt(s, 'defaultMode'), p.child('defaultMode'));
  for (const file of listAt(s, 'items')) errs.push(...validateDownwardAPIVolumeFile(file, p, opts));
  return errs;
}

/** validateProjectionSources + validateProjectedVolumeSource. */
function validateProjected(s: Obj, p: FieldPath, opts: VolumeValidationOptions): FieldError[] {
  const errs = validateFileMode(numAt(s, 'defaultMode'), p.child('defaultMode'));
  const allPaths = new Set<string>();
  listAt(s, 'sources').forEach((source, i) => {
    let numSources = 0;
    const srcPath = p.child('sources').index(i);
    for (const member of ['secret', 'configMap'] as const) {
      const ref = objAt(source, member);
      if (!isSet(source, member)) continue;
      numSources++;
      const projPath = srcPath.child(member);
      const name = strAt(ref, 'name');
      if (name.length === 0) errs.push(required(projPath.child('name')));
      listAt(ref, 'items').forEach((kp, j) => {
        errs.push(...src.validateKeyToPath(kp, projPath.child('items').index(j)));
        const kpPath = strAt(kp, 'path');
        if (kpPath.length > 0) {
          if (!allPaths.has(kpPath)) allPaths.add(kpPath);
          else errs.push(invalid(p, name, 'conflicting duplicate paths'));
        }
      });
    }
    if (isSet(source, 'downwardAPI')) {
      numSources++;
      const projPath = srcPath.child('downwardAPI');
      for (const file of listAt(objAt(source, 'downwardAPI'), 'items')) {
        errs.push(...validateDownwardAPIVolumeFile(file, projPath, opts));
        const fp = strAt(file, 'path');
        if (fp.length > 0) {
          if (!allPaths.has(fp)) allPaths.add(fp);
          else errs.push(invalid(p, fp, 'conflicting duplicate paths'));
        }
      }
    }
    if (isSet(source, 'serviceAccountToken')) {
      numSources++;
      const sat = objAt(source, 'serviceAccountToken');
      const projPath = srcPath.child('serviceAccountToken');
      // Defaulting set 3600 when absent; a nil pointer would read as 0 in the internal type.
      const exp = numAt(sat, 'expirationSeconds') ?? 0;
      if (exp < 10 * 60) errs.push(invalid(projPath.child('expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
      if (exp > 2 ** 32) errs.push(invalid(projPath.child('expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'));
      // kube reports the missing path on the projected volume's own path.
      if (strAt(sat, 'path') === '') errs.push(required(p.child('path')));
    }
    if (numSources > 1) errs.push(forbidden(srcPath, 'may not specify more than 1 volume type'));
  });
  return errs;
}

/** ObjectMeta fields in Go declaration order, with the name validateFieldAllowList reports. */
const TEMPLATE_META_FIELDS: [json: string, reported: string][] = [
  ['name', 'name'],
  ['generateName', 'generateName'],
  ['namespace', 'namespace'],
  ['selfLink', 'selfLink'],
  ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'],
  ['generation', 'generation'],
  ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'],
  ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'],
  ['finalizers', 'finalizers'],
  ['clusterName', 'zZZ_DeprecatedClusterName'],
  ['managedFields', 'managedFields'],
];

/** Is this JSON value the Go zero value of its field (reflect.DeepEqual with zero)? */
function isGoZero(v: unknown): boolean {
  // An empty list decodes to a non-nil empty slice, which is not the zero value.
  return v === undefined || v === null || v === '' || v === 0 || v === false;
}

/** validatePersistentVolumeClaimTemplateObjectMeta: only labels and annotations. */
function validateClaimTemplateMeta(meta: unknown, p: FieldPath): FieldError[] {
  const m = isObj(meta) ? meta : {};
  const errs = validateAnnotations(m.annotations, p.child('annotations'));
  errs.push(...validateLabels(m.labels, p.child('labels')));
  for (const [json, reported] of TEMPLATE_META_FIELDS) {
    if (!isGoZero(m[json])) errs.push(forbidden(p.child(reported), 'cannot be set for an ephemeral volume'));
  }
  return errs;
}

/** validateEphemeralVolumeSource (ValidatePersistentVolumeClaimTemplate). */
function validateEphemeral(s: Obj, p: FieldPath, opts: VolumeValidationOptions): FieldError[] {
  if (!isSet(s, 'volumeClaimTemplate')) return [required(p.child('volumeClaimTemplate'))];
  const t = objAt(s, 'volumeClaimTemplate');
  const tp = p.child('volumeClaimTemplate');
  const claimOpts: ClaimSpecValidationOptions = { allowReadWriteOncePod: opts.allowReadWriteOncePod === true };
  return [...validateClaimTemplateMeta(t?.metadata, tp.child('metadata')), ...validateClaimSpec(objAt(t, 'spec'), tp.child('spec'), claimOpts)];
}

type SourceValidator = (s: Obj, p: FieldPath, opts: VolumeValidationOptions) => FieldError[];

/** Each member's validator and the path kube validates it under (two differ from the member name). */
const VALIDATORS: Record<VolumeSourceKind, [SourceValidator, string]> = {
  emptyDir: [
    (s, p) => (s.sizeLimit !== undefined && s.sizeLimit !== null && quantitySign(s.sizeLimit) < 0 ? [forbidden(p.child('sizeLimit'), 'SizeLimit field must be a valid resource quantity')] : []),
    'emptyDir',
  ],
  hostPath: [src.validateHostPath, 'hostPath'],
  gitRepo: [src.validateGitRepo, 'gitRepo'],
  gcePersistentDisk: [src.validateGCEPersistentDisk, 'persistentDisk'],
  awsElasticBlockStore: [src.validateAWSElasticBlockStore, 'awsElasticBlockStore'],
  secret: [src.validateSecretVolume, 'secret'],
  nfs: [src.validateNFS, 'nfs'],
  iscsi: [(s, p) => src.validateISCSI(s, p), 'iscsi'],
  glusterfs: [(s, p) => src.validateGlusterfs(s, p), 'glusterfs'],
  flocker: [src.validateFlocker, 'flocker'],
  persistentVolumeClaim: [src.validatePersistentClaim, 'persistentVolumeClaim'],
  rbd: [src.validateRBD, 'rbd'],
  cinder: [(s, p) => src.validateCinder(s, p), 'cinder'],
  cephfs: [src.validateCephFS, 'cephfs'],
  quobyte: [src.validateQuobyte, 'quobyte'],
  downwardAPI: [validateDownwardAPIVolume, 'downwardAPI'],
  fc: [src.validateFC, 'fc'],
  flexVolume: [src.validateFlex, 'flexVolume'],
  configMap: [src.validateConfigMapVolume, 'configMap'],
  azureFile: [(s, p) => src.validateAzureFile(s, p), 'azureFile'],
  vsphereVolume: [src.validateVsphere, 'vsphereVolume'],
  photonPersistentDisk: [src.validatePhoton, 'photonPersistentDisk'],
  portworxVolume: [src.validatePortworx, 'portworxVolume'],
  azureDisk: [src.validateAzureDisk, 'azureDisk'],
  storageos: [(s, p) => src.validateStorageOS(s, p), 'storageos'],
  projected: [validateProjected, 'projected'],
  scaleIO: [src.validateScaleIO, 'scaleIO'],
  csi: [src.validateCSIVolume, 'csi'],
  ephemeral: [validateEphemeral, 'ephemeral'],
};

/** validateVolumeSource: exactly one member, each validated; `p` is the volume's path. */
export function validateVolumeSource(vol: unknown, p: FieldPath, volName: string, opts: VolumeValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  let num = 0;
  for (const kind of VOLUME_SOURCE_KINDS) {
    if (!isSet(vol, kind)) continue;
    const s = objAt(vol, kind) ?? {};
    if (num > 0 && kind !== 'emptyDir') {
      errs.push(forbidden(p.child(FORBIDDEN_NAME[kind] ?? kind), 'may not specify more than 1 volume type'));
    } else {
      num++;
      const [validate, at] = VALIDATORS[kind];
      errs.push(...validate(s, p.child(at), opts));
      if (kind === 'ephemeral' && opts.podName && volName !== '') {
        const pvcName = `${opts.podName}-${volName}`;
        for (const m of nameIsDNSSubdomain(pvcName, false)) errs.push(invalid(p.child('name'), volName, `PVC name ${JSON.stringify(pvcName)}: ${m}`));
      }
    }
    // Checked whether or not iscsi was the volume's first member.
    if (kind === 'iscsi' && optStrAt(s, 'initiatorName') !== undefined && `${volName}:${strAt(s, 'targetPortal')}`.length > 64) {
      errs.push(
        invalid(p.child('name'), volName, 'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.'),
      );
    }
  }
  if (num === 0) errs.push(required(p, 'must specify a volume type'));
  return errs;
}

/**
 * ValidateVolumes: `volumes` is `spec.volumes` (already defaulted), `p` its path. Returns the
 * valid volumes (name → source kind) and every error, as kube's ValidateVolumes.
 */
export function validateVolumes(volumes: unknown, p: FieldPath, opts: VolumeValidationOptions = {}): VolumesResult {
  const errors: FieldError[] = [];
  const result = new Map<string, VolumeSourceKind>();
  const list = Array.isArray(volumes) ? volumes : [];
  const allNames = new Set<string>();
  const createdPVCs = new Set<string>();
  if (opts.podName) for (const v of list) if (isSet(v, 'ephemeral')) createdPVCs.add(`${opts.podName}-${strAt(v, 'name')}`);
  list.forEach((vol, i) => {
    const idx = p.index(i);
    const name = strAt(vol, 'name');
    const namePath = idx.child('name');
    const el = validateVolumeSource(vol, idx, name, opts);
    if (name.length === 0) el.push(required(namePath));
    else el.push(...src.validateDNS1123Label(name, namePath));
    if (allNames.has(name)) el.push(duplicate(namePath, name));
    if (el.length === 0) {
      allNames.add(name);
      const kind = volumeSourceKind(vol);
      if (kind) result.set(name, kind);
    } else errors.push(...el);
    const claimName = strAt(objAt(vol, 'persistentVolumeClaim'), 'claimName');
    if (isSet(vol, 'persistentVolumeClaim') && createdPVCs.has(claimName)) {
      errors.push(invalid(idx.child('persistentVolumeClaim').child('claimName'), claimName, 'must not reference a PVC that gets created for an ephemeral volume'));
    }
  });
  return { volumes: result, errors };
}
