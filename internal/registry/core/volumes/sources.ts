/**
 * Validators of the individual volume sources, shared by Pod volumes and PersistentVolumes where
 * kube shares them (pkg/apis/core/validation/validation.go, Kubernetes 1.24). Each takes the
 * source's JSON object and its field path; messages and paths are kube's, quirks included.
 */
import { type FieldError, FieldPath, invalid, notSupported, required, tooLong } from '../../../api/field-errors.ts';
import { isDNS1123Label, isDNS1123Subdomain, nameIsDNSLabel, nameIsDNSSubdomain } from '../../../validation/names.ts';
import { inclusiveRangeError } from '../../../validation/network.ts';
import {
  type Obj,
  childPath,
  isAbsPath,
  isSet,
  listAt,
  mapAt,
  numAt,
  objAt,
  optStrAt,
  sortedList,
  splitHostPortOK,
  strAt,
  validateFileMode,
  validateLocalDescendingPath,
  validateLocalNonReservedPath,
  validatePathNoBacksteps,
} from './util.ts';

/** ValidateDNS1123Label as a field validator. */
export function validateDNS1123Label(value: string, p: FieldPath): FieldError[] {
  return isDNS1123Label(value).map((m) => invalid(p, value, m));
}

/** pdPartitionErrorMsg. */
const PD_PARTITION_ERROR_MSG = inclusiveRangeError(1, 255);

/** supportedHostPathTypes. */
export const HOST_PATH_TYPES = ['', 'DirectoryOrCreate', 'Directory', 'FileOrCreate', 'File', 'Socket', 'CharDevice', 'BlockDevice'];

/** validateHostPathVolumeSource. */
export function validateHostPath(s: Obj, p: FieldPath): FieldError[] {
  const path = strAt(s, 'path');
  if (path.length === 0) return [required(p.child('path'))];
  const errs = validatePathNoBacksteps(path, p.child('path'));
  const t = optStrAt(s, 'type');
  if (t !== undefined && !HOST_PATH_TYPES.includes(t)) errs.push(notSupported(p.child('type'), t, sortedList(HOST_PATH_TYPES)));
  return errs;
}

/** validateGitRepoVolumeSource. */
export function validateGitRepo(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'repository').length === 0) errs.push(required(p.child('repository')));
  errs.push(...validateLocalDescendingPath(strAt(s, 'directory'), p.child('directory')));
  return errs;
}

const IQN_RE = /iqn\.\d{4}-\d{2}\.([A-Za-z0-9\-.]+)(:[^,;*&$|\t\n\f\r ]+)$/;
const EUI_RE = /^eui.[A-Za-z0-9]{16}$/;
const NAA_RE = /^naa.[A-Za-z0-9]{32}$/;

/** The iqn checks of the iscsi validators (one error at most; the PV variant words the prefix error shorter). */
function iqnErrors(iqn: string, p: FieldPath, pv: boolean): FieldError[] {
  if (!iqn.startsWith('iqn') && !iqn.startsWith('eui') && !iqn.startsWith('naa')) {
    return [invalid(p, iqn, pv ? 'must be valid format' : 'must be valid format starting with iqn, eui, or naa')];
  }
  if (iqn.startsWith('iqn') && !IQN_RE.test(iqn)) return [invalid(p, iqn, 'must be valid format')];
  if (iqn.startsWith('eui') && !EUI_RE.test(iqn)) return [invalid(p, iqn, 'must be valid format')];
  if (iqn.startsWith('naa') && !NAA_RE.test(iqn)) return [invalid(p, iqn, 'must be valid format')];
  return [];
}

/**
 * The initiatorName checks: the pod variant reports the prefix error and then the format error
 * separately; the PV variant only checks the prefix.
 */
function initiatorErrors(initiator: string, p: FieldPath, pv: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (!initiator.startsWith('iqn') && !initiator.startsWith('eui') && !initiator.startsWith('naa')) {
    errs.push(invalid(p, initiator, pv ? 'must be valid format' : 'must be valid format starting with iqn, eui, or naa'));
  }
  if (pv) return errs;
  if (initiator.startsWith('iqn') && !IQN_RE.test(initiator)) errs.push(invalid(p, initiator, 'must be valid format'));
  else if (initiator.startsWith('eui') && !EUI_RE.test(initiator)) errs.push(invalid(p, initiator, 'must be valid format'));
  else if (initiator.startsWith('naa') && !NAA_RE.test(initiator)) errs.push(invalid(p, initiator, 'must be valid format'));
  return errs;
}

/**
 * validateISCSIVolumeSource (pod) and validateISCSIPersistentVolumeSource (`pvName` set: the
 * `<pv name>:<targetPortal>` length rule and the SecretReference are checked there).
 */
export function validateISCSI(s: Obj, p: FieldPath, pvName?: string): FieldError[] {
  const errs: FieldError[] = [];
  const targetPortal = strAt(s, 'targetPortal');
  if (targetPortal.length === 0) errs.push(required(p.child('targetPortal')));
  if (pvName !== undefined && isSet(s, 'initiatorName') && `${pvName}:${targetPortal}`.length > 64) {
    errs.push(
      invalid(
        p.child('targetportal'),
        targetPortal,
        'Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.',
      ),
    );
  }
  const iqn = strAt(s, 'iqn');
  if (iqn.length === 0) errs.push(required(p.child('iqn')));
  else errs.push(...iqnErrors(iqn, p.child('iqn'), pvName !== undefined));
  const lun = numAt(s, 'lun') ?? 0;
  if (lun < 0 || lun > 255) errs.push(invalid(p.child('lun'), lun, inclusiveRangeError(0, 255)));
  if ((s.chapAuthDiscovery === true || s.chapAuthSession === true) && !isSet(s, 'secretRef')) errs.push(required(p.child('secretRef')));
  const ref = objAt(s, 'secretRef');
  if (pvName !== undefined && ref && strAt(ref, 'name').length === 0) errs.push(required(childPath(p, 'secretRef', 'name')));
  const initiator = optStrAt(s, 'initiatorName');
  if (initiator !== undefined) errs.push(...initiatorErrors(initiator, p.child('initiatorname'), pvName !== undefined));
  return errs;
}

/** validateFCVolumeSource. */
export function validateFC(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const wwns = listAt(s, 'targetWWNs');
  const wwids = listAt(s, 'wwids');
  if (wwns.length < 1 && wwids.length < 1) errs.push(required(p.child('targetWWNs'), 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length !== 0 && wwids.length !== 0) errs.push(invalid(p.child('targetWWNs'), wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length !== 0) {
    const lun = numAt(s, 'lun');
    if (lun === undefined) errs.push(required(p.child('lun'), 'lun is required if targetWWNs is specified'));
    else if (lun < 0 || lun > 255) errs.push(invalid(p.child('lun'), lun, inclusiveRangeError(0, 255)));
  }
  return errs;
}

/** validateGCEPersistentDiskVolumeSource (kube passes it the path `…persistentDisk`). */
export function validateGCEPersistentDisk(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'pdName').length === 0) errs.push(required(p.child('pdName')));
  const part = numAt(s, 'partition') ?? 0;
  if (part < 0 || part > 255) errs.push(invalid(p.child('partition'), part, PD_PARTITION_ERROR_MSG));
  return errs;
}

/** validateAWSElasticBlockStoreVolumeSource. */
export function validateAWSElasticBlockStore(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'volumeID').length === 0) errs.push(required(p.child('volumeID')));
  const part = numAt(s, 'partition') ?? 0;
  if (part < 0 || part > 255) errs.push(invalid(p.child('partition'), part, PD_PARTITION_ERROR_MSG));
  return errs;
}

/** validateKeyToPath. */
export function validateKeyToPath(kp: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(kp, 'key').length === 0) errs.push(required(p.child('key')));
  const path = strAt(kp, 'path');
  if (path.length === 0) errs.push(required(p.child('path')));
  errs.push(...validateLocalNonReservedPath(path, p.child('path')));
  errs.push(...validateFileMode(numAt(kp, 'mode'), p.child('mode')));
  return errs;
}

/** validateSecretVolumeSource. */
export function validateSecretVolume(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'secretName').length === 0) errs.push(required(p.child('secretName')));
  errs.push(...validateFileMode(numAt(s, 'defaultMode'), p.child('defaultMode')));
  listAt(s, 'items').forEach((kp, i) => errs.push(...validateKeyToPath(kp, p.child('items').index(i))));
  return errs;
}

/** validateConfigMapVolumeSource. */
export function validateConfigMapVolume(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'name').length === 0) errs.push(required(p.child('name')));
  errs.push(...validateFileMode(numAt(s, 'defaultMode'), p.child('defaultMode')));
  listAt(s, 'items').forEach((kp, i) => errs.push(...validateKeyToPath(kp, p.child('items').index(i))));
  return errs;
}

/** validatePersistentClaimVolumeSource. */
export function validatePersistentClaim(s: Obj, p: FieldPath): FieldError[] {
  return strAt(s, 'claimName').length === 0 ? [required(p.child('claimName'))] : [];
}

/** validateNFSVolumeSource. */
export function validateNFS(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'server').length === 0) errs.push(required(p.child('server')));
  const path = strAt(s, 'path');
  if (path.length === 0) errs.push(required(p.child('path')));
  if (!isAbsPath(path)) errs.push(invalid(p.child('path'), path, 'must be an absolute path'));
  return errs;
}

/** validateQuobyteVolumeSource. */
export function validateQuobyte(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const registry = strAt(s, 'registry');
  if (registry.length === 0) errs.push(required(p.child('registry'), 'must be a host:port pair or multiple pairs separated by commas'));
  else if (strAt(s, 'tenant').length >= 65) errs.push(required(p.child('tenant'), 'must be a UUID and may not exceed a length of 64 characters'));
  else {
    for (const pair of registry.split(',')) {
      if (!splitHostPortOK(pair)) errs.push(invalid(p.child('registry'), registry, 'must be a host:port pair or multiple pairs separated by commas'));
    }
  }
  if (strAt(s, 'volume').length === 0) errs.push(required(p.child('volume')));
  return errs;
}

/** validateGlusterfsVolumeSource / validateGlusterfsPersistentVolumeSource (`pv`). */
export function validateGlusterfs(s: Obj, p: FieldPath, pv = false): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'endpoints').length === 0) errs.push(required(p.child('endpoints')));
  if (strAt(s, 'path').length === 0) errs.push(required(p.child('path')));
  const ns = pv ? optStrAt(s, 'endpointsNamespace') : undefined;
  if (ns !== undefined) {
    if (ns === '') errs.push(invalid(p.child('endpointsNamespace'), ns, 'if the endpointnamespace is set, it must be a valid namespace name'));
    else for (const m of nameIsDNSLabel(ns, false)) errs.push(invalid(p.child('endpointsNamespace'), ns, m));
  }
  return errs;
}

/** validateFlockerVolumeSource. */
export function validateFlocker(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = strAt(s, 'datasetName');
  const uuid = strAt(s, 'datasetUUID');
  if (name.length === 0 && uuid.length === 0) errs.push(required(p, 'one of datasetName and datasetUUID is required'));
  if (name.length !== 0 && uuid.length !== 0) errs.push(invalid(p, 'resource', 'datasetName and datasetUUID can not be specified simultaneously'));
  if (name.includes('/')) errs.push(invalid(p.child('datasetName'), name, "must not contain '/'"));
  return errs;
}

/** validateRBDVolumeSource / validateRBDPersistentVolumeSource. */
export function validateRBD(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (listAt(s, 'monitors').length === 0) errs.push(required(p.child('monitors')));
  if (strAt(s, 'image').length === 0) errs.push(required(p.child('image')));
  return errs;
}

/** validateCinderVolumeSource / validateCinderPersistentVolumeSource (`pv`: namespace required). */
export function validateCinder(s: Obj, p: FieldPath, pv = false): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'volumeID').length === 0) errs.push(required(p.child('volumeID')));
  const ref = objAt(s, 'secretRef');
  if (ref) {
    if (strAt(ref, 'name').length === 0) errs.push(required(childPath(p, 'secretRef', 'name')));
    if (pv && strAt(ref, 'namespace').length === 0) errs.push(required(childPath(p, 'secretRef', 'namespace')));
  }
  return errs;
}

/** validateCephFSVolumeSource / validateCephFSPersistentVolumeSource. */
export function validateCephFS(s: Obj, p: FieldPath): FieldError[] {
  return listAt(s, 'monitors').length === 0 ? [required(p.child('monitors'))] : [];
}

/** validateFlexVolumeSource / validateFlexPersistentVolumeSource. */
export function validateFlex(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'driver').length === 0) errs.push(required(p.child('driver')));
  for (const k of Object.keys(mapAt(s, 'options'))) {
    const slash = k.indexOf('/');
    const ns = slash >= 0 ? k.slice(0, slash) : k;
    const normalized = `.${ns.toLowerCase()}`;
    if (normalized.endsWith('.kubernetes.io') || normalized.endsWith('.k8s.io')) {
      errs.push(invalid(p.child('options').key(k), k, 'kubernetes.io and k8s.io namespaces are reserved'));
    }
  }
  return errs;
}

/** validateAzureFile / validateAzureFilePV (`pv`: secretNamespace non-empty when set). */
export function validateAzureFile(s: Obj, p: FieldPath, pv = false): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'secretName') === '') errs.push(required(p.child('secretName')));
  if (strAt(s, 'shareName') === '') errs.push(required(p.child('shareName')));
  if (pv && optStrAt(s, 'secretNamespace') === '') errs.push(required(p.child('secretNamespace')));
  return errs;
}

const AZURE_CACHING_MODES = ['None', 'ReadOnly', 'ReadWrite'];
const AZURE_DISK_KINDS = ['Dedicated', 'Managed', 'Shared'];

/** validateAzureDisk. */
export function validateAzureDisk(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'diskName') === '') errs.push(required(p.child('diskName')));
  const uri = strAt(s, 'diskURI');
  if (uri === '') errs.push(required(p.child('diskURI')));
  const caching = optStrAt(s, 'cachingMode');
  if (caching !== undefined && !AZURE_CACHING_MODES.includes(caching)) errs.push(notSupported(p.child('cachingMode'), caching, AZURE_CACHING_MODES));
  const kind = optStrAt(s, 'kind');
  if (kind !== undefined && !AZURE_DISK_KINDS.includes(kind)) errs.push(notSupported(p.child('kind'), kind, AZURE_DISK_KINDS));
  if (kind !== undefined && kind === 'Managed' && uri.indexOf('/subscriptions/') !== 0) {
    errs.push(notSupported(p.child('diskURI'), uri, ['/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}']));
  }
  if (kind !== undefined && kind !== 'Managed' && uri.indexOf('https://') !== 0) {
    errs.push(notSupported(p.child('diskURI'), uri, ['https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd']));
  }
  return errs;
}

/** validateVsphereVolumeSource. */
export const validateVsphere = (s: Obj, p: FieldPath): FieldError[] => (strAt(s, 'volumePath').length === 0 ? [required(p.child('volumePath'))] : []);
/** validatePhotonPersistentDiskVolumeSource. */
export const validatePhoton = (s: Obj, p: FieldPath): FieldError[] => (strAt(s, 'pdID').length === 0 ? [required(p.child('pdID'))] : []);
/** validatePortworxVolumeSource. */
export const validatePortworx = (s: Obj, p: FieldPath): FieldError[] => (strAt(s, 'volumeID').length === 0 ? [required(p.child('volumeID'))] : []);

/** validateScaleIOVolumeSource / validateScaleIOPersistentVolumeSource. */
export function validateScaleIO(s: Obj, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(s, 'gateway') === '') errs.push(required(p.child('gateway')));
  if (strAt(s, 'system') === '') errs.push(required(p.child('system')));
  if (strAt(s, 'volumeName') === '') errs.push(required(p.child('volumeName')));
  return errs;
}

/** validateLocalVolumeSource. */
export function validateLocal(s: Obj, p: FieldPath): FieldError[] {
  const path = strAt(s, 'path');
  if (path === '') return [required(p.child('path'))];
  return validatePathNoBacksteps(path, p.child('path'));
}

/** validateStorageOSVolumeSource / validateStorageOSPersistentVolumeSource (`pv`). */
export function validateStorageOS(s: Obj, p: FieldPath, pv = false): FieldError[] {
  const errs: FieldError[] = [];
  const name = strAt(s, 'volumeName');
  if (name.length === 0) errs.push(required(p.child('volumeName')));
  else errs.push(...validateDNS1123Label(name, p.child('volumeName')));
  const ns = strAt(s, 'volumeNamespace');
  if (ns.length > 0) errs.push(...validateDNS1123Label(ns, p.child('volumeNamespace')));
  const ref = objAt(s, 'secretRef');
  if (ref) {
    if (strAt(ref, 'name').length === 0) errs.push(required(childPath(p, 'secretRef', 'name')));
    if (pv && strAt(ref, 'namespace').length === 0) errs.push(required(childPath(p, 'secretRef', 'namespace')));
  }
  return errs;
}

/** ValidateCSIDriverName. */
export function validateCSIDriverName(driver: string, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (driver.length === 0) errs.push(required(p));
  if (driver.length > 63) errs.push(tooLong(p, driver, 63));
  for (const m of isDNS1123Subdomain(driver.toLowerCase())) errs.push(invalid(p, driver, m));
  return errs;
}

/** validateCSIVolumeSource (inline CSI volume of a Pod). */
export function validateCSIVolume(s: Obj, p: FieldPath): FieldError[] {
  const errs = validateCSIDriverName(strAt(s, 'driver'), p.child('driver'));
  const ref = objAt(s, 'nodePublishSecretRef');
  if (ref) {
    const name = strAt(ref, 'name');
    if (name.length === 0) errs.push(required(childPath(p, 'nodePublishSecretRef', 'name')));
    else for (const m of nameIsDNSSubdomain(name, false)) errs.push(invalid(p.child('name'), name, m));
  }
  return errs;
}

/** validateCSIPersistentVolumeSource: driver, volumeHandle and the SecretReferences. */
export function validateCSIPersistentVolume(s: Obj, p: FieldPath): FieldError[] {
  const errs = validateCSIDriverName(strAt(s, 'driver'), p.child('driver'));
  if (strAt(s, 'volumeHandle').length === 0) errs.push(required(p.child('volumeHandle')));
  // kube checks these three in this order; the name/namespace format errors use `csi.name` and
  // `csi.namespace` as their paths (sic).
  for (const refName of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef']) {
    const ref = objAt(s, refName);
    if (!ref) continue;
    const name = strAt(ref, 'name');
    if (name.length === 0) errs.push(required(childPath(p, refName, 'name')));
    else errs.push(...validateDNS1123Label(name, p.child('name')));
    const ns = strAt(ref, 'namespace');
    if (ns.length === 0) errs.push(required(childPath(p, refName, 'namespace')));
    else errs.push(...validateDNS1123Label(ns, p.child('namespace')));
  }
  return errs;
}

export { validateFileMode, validateLocalNonReservedPath };
