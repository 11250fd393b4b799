/**
 * Defaulting of volume sources, PersistentVolume sources and claim specs, as
 * pkg/apis/core/v1/defaults.go and zz_generated.defaults.go apply them (Kubernetes 1.24).
 * Each function mutates the decoded JSON in place.
 */
import { defaultResourceList } from './quantity.ts';
import { VOLUME_SOURCE_KINDS } from './volumes.ts';
import { type Obj, listAt, objAt } from './util.ts';
import { isObj } from '../../../gocompat/json.ts';

/** v1.SecretVolumeSourceDefaultMode etc.: 0644. */
export const DEFAULT_FILE_MODE = 0o644;

const setIfAbsent = (o: Obj, k: string, v: unknown): void => {
  if (o[k] === undefined || o[k] === null || o[k] === '') o[k] = v;
};

/** Pointer fields: default only when nil (an explicit "" stays). */
const setIfNil = (o: Obj, k: string, v: unknown): void => {
  if (o[k] === undefined || o[k] === null) o[k] = v;
};

/** SetDefaults_ObjectFieldSelector on each item's fieldRef. */
function defaultDownwardAPIItems(items: unknown[]): void {
  for (const item of items) {
    const ref = objAt(item, 'fieldRef');
    if (ref) setIfAbsent(ref, 'apiVersion', 'v1');
  }
}

/** SetDefaults_AzureDiskVolumeSource. */
export function defaultAzureDisk(s: Obj): void {
  setIfNil(s, 'cachingMode', 'ReadWrite');
  setIfNil(s, 'kind', 'Shared');
  setIfNil(s, 'fsType', 'ext4');
  setIfNil(s, 'readOnly', false);
}

/** SetDefaults_RBDVolumeSource / SetDefaults_RBDPersistentVolumeSource. */
export function defaultRBD(s: Obj): void {
  setIfAbsent(s, 'pool', 'rbd');
  setIfAbsent(s, 'user', 'admin');
  setIfAbsent(s, 'keyring', '/etc/ceph/keyring');
}

/** SetDefaults_ScaleIOVolumeSource / SetDefaults_ScaleIOPersistentVolumeSource. */
export function defaultScaleIO(s: Obj): void {
  setIfAbsent(s, 'storageMode', 'ThinProvisioned');
  setIfAbsent(s, 'fsType', 'xfs');
}

/** SetDefaults_ISCSIVolumeSource / SetDefaults_ISCSIPersistentVolumeSource. */
export const defaultISCSI = (s: Obj): void => setIfAbsent(s, 'iscsiInterface', 'default');

/** SetDefaults_HostPathVolumeSource: type "" when nil. */
export const defaultHostPath = (s: Obj): void => setIfNil(s, 'type', '');

/**
 * SetDefaults_PersistentVolumeClaimSpec plus the ResourceList defaults of its resources:
 * volumeMode Filesystem, quantities rounded up to milli.
 */
export function defaultClaimSpec(spec: unknown): void {
  if (!isObj(spec)) return;
  setIfNil(spec, 'volumeMode', 'Filesystem');
  const res = objAt(spec, 'resources');
  defaultResourceList(objAt(res, 'limits'));
  defaultResourceList(objAt(res, 'requests'));
}

/** SetDefaults_Volume and the defaults of its source (one element of `spec.volumes`). */
export function defaultVolume(vol: unknown): void {
  if (!isObj(vol)) return;
  // A volume without any source becomes an emptyDir.
  if (!VOLUME_SOURCE_KINDS.some((k) => vol[k] !== undefined && vol[k] !== null)) vol.emptyDir = {};
  const s = (k: string): Obj | undefined => objAt(vol, k);
  const hostPath = s('hostPath');
  if (hostPath) defaultHostPath(hostPath);
  const secret = s('secret');
  if (secret) setIfNil(secret, 'defaultMode', DEFAULT_FILE_MODE);
  const iscsi = s('iscsi');
  if (iscsi) defaultISCSI(iscsi);
  const rbd = s('rbd');
  if (rbd) defaultRBD(rbd);
  const dapi = s('downwardAPI');
  if (dapi) {
    setIfNil(dapi, 'defaultMode', DEFAULT_FILE_MODE);
    defaultDownwardAPIItems(listAt(dapi, 'items'));
  }
  const cm = s('configMap');
  if (cm) setIfNil(cm, 'defaultMode', DEFAULT_FILE_MODE);
  const azureDisk = s('azureDisk');
  if (azureDisk) defaultAzureDisk(azureDisk);
  const projected = s('projected');
  if (projected) {
    setIfNil(projected, 'defaultMode', DEFAULT_FILE_MODE);
    for (const source of listAt(projected, 'sources')) {
      const d = objAt(source, 'downwardAPI');
      if (d) defaultDownwardAPIItems(listAt(d, 'items'));
      const sat = objAt(source, 'serviceAccountToken');
      if (sat) setIfNil(sat, 'expirationSeconds', 3600);
    }
  }
  const scaleIO = s('scaleIO');
  if (scaleIO) defaultScaleIO(scaleIO);
  const tmpl = objAt(s('ephemeral'), 'volumeClaimTemplate');
  if (tmpl) {
    // The template's spec is a non-pointer struct: defaulted even when absent.
    if (!isObj(tmpl.spec)) tmpl.spec = {};
    defaultClaimSpec(tmpl.spec);
  }
}

/** Defaults every element of `spec.volumes`. */
export function defaultVolumes(volumes: unknown): void {
  if (Array.isArray(volumes)) for (const v of volumes) defaultVolume(v);
}
