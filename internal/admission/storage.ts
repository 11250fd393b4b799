/**
 * The storage admission plugins of kube-apiserver 1.24's default chain
 * (plugin/pkg/admission/storage):
 *   StorageObjectInUseProtection (mutating, CREATE) — adds `kubernetes.io/pv-protection` /
 *     `kubernetes.io/pvc-protection` to new PersistentVolumes / PersistentVolumeClaims;
 *   DefaultStorageClass (mutating, CREATE) — a claim naming no class gets the default class;
 *   PersistentVolumeClaimResize (validating, UPDATE) — a claim's request may grow only when it is
 *     bound and its StorageClass has allowVolumeExpansion.
 * StorageClasses are read from storage (the state of the latest fold, as kube reads its informer).
 */
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from './chain.ts';
import type { KubeObject } from '../api/types.ts';
import { forbidden } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { currentPrefix } from '../storage/keys.ts';
import { compareQuantities } from '../registry/core/volumes/quantity.ts';
import { parseObject } from '../registry/generic/serialize.ts';

/** volumeutil.PVProtectionFinalizer. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';
/** volumeutil.PVCProtectionFinalizer. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const IS_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';
const BETA_IS_DEFAULT_CLASS = 'storageclass.beta.kubernetes.io/is-default-class';

const isCore = (a: AdmissionAttributes, resource: string): boolean => a.kind.group === '' && a.kind.resource === resource && !a.subresource;

/** StorageObjectInUseProtection. */
export function storageObjectInUseProtection(): MutatingPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    admit(a) {
      if (a.operation !== 'CREATE' || !a.object) return;
      const finalizer = isCore(a, 'persistentvolumes') ? PV_PROTECTION_FINALIZER : isCore(a, 'persistentvolumeclaims') ? PVC_PROTECTION_FINALIZER : undefined;
      if (!finalizer) return;
      const meta = a.object.metadata;
      const list = Array.isArray(meta.finalizers) ? meta.finalizers : [];
      if (!list.includes(finalizer)) meta.finalizers = [...list, finalizer];
    },
  };
}

/** helper.GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName. */
export function claimClass(pvc: KubeObject): string {
  const ann = pvc.metadata.annotations ?? {};
  if (BETA_STORAGE_CLASS_ANNOTATION in ann) return ann[BETA_STORAGE_CLASS_ANNOTATION]!;
  const sc = (pvc.spec as Record<string, unknown> | undefined)?.storageClassName;
  return typeof sc === 'string' ? sc : '';
}

/** helper.PersistentVolumeClaimHasClass. */
const claimHasClass = (pvc: KubeObject): boolean => {
  const ann = pvc.metadata.annotations ?? {};
  const spec = pvc.spec as Record<string, unknown> | undefined;
  return BETA_STORAGE_CLASS_ANNOTATION in ann || (spec?.storageClassName !== undefined && spec?.storageClassName !== null);
};

async function getStorageClass(storage: Storage, name: string): Promise<KubeObject | undefined> {
  if (!name) return undefined;
  const b = await storage.get({ group: 'storage.k8s.io', resource: 'storageclasses', namespace: '', name });
  return b && b.length ? parseObject(b) : undefined;
}

/** DefaultStorageClass. */
export function defaultStorageClass(storage: Storage): MutatingPlugin {
  return {
    name: 'DefaultStorageClass',
    admit(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (a.operation !== 'CREATE' || !a.object || !isCore(a, 'persistentvolumeclaims')) return;
      if (claimHasClass(a.object)) return;
      return setDefault(a, a.object);
    },
  };

  async function setDefault(a: AdmissionAttributes, claim: KubeObject): Promise<void> {
    const defaults: string[] = [];
    const view = await storage.view();
    try {
      const prefix = currentPrefix('storage.k8s.io', 'storageclasses', '');
      for await (const [, b] of view.scan(prefix, `${prefix}\uffff`)) {
        const sc = parseObject(b);
        const ann = sc.metadata.annotations ?? {};
        if (ann[IS_DEFAULT_CLASS] === 'true' || ann[BETA_IS_DEFAULT_CLASS] === 'true') defaults.push(sc.metadata.name ?? '');
      }
    } finally {
      await view.close();
    }
    if (defaults.length === 0) return;
    if (defaults.length > 1) {
      throw forbidden({ group: '', resource: 'persistentvolumeclaims' }, a.name, `Internal error occurred: ${defaults.length} default StorageClasses were found`);
    }
    if (typeof claim.spec !== 'object' || claim.spec === null) claim.spec = {};
    (claim.spec as Record<string, unknown>).storageClassName = defaults[0];
  }
}

/** PersistentVolumeClaimResize. */
export function persistentVolumeClaimResize(storage: Storage): ValidatingPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    validate(a) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (a.operation !== 'UPDATE' || !a.object || !a.oldObject || !isCore(a, 'persistentvolumeclaims')) return;
      return validateResize(a, a.object, a.oldObject);
    },
  };

  async function validateResize(a: AdmissionAttributes, claim: KubeObject, old: KubeObject): Promise<void> {
    const size = (o: KubeObject): unknown => ((o.spec as any)?.resources?.requests ?? {}).storage ?? '0';
    if (compareQuantities(size(claim), size(old)) <= 0) return;
    const gr = { group: '', resource: 'persistentvolumeclaims' };
    if ((old.status as any)?.phase !== 'Bound') throw forbidden(gr, a.name, 'Only bound persistent volume claims can be expanded');
    const cls = claimClass(claim);
    const oldCls = claimClass(old);
    let allowed = false;
    if (cls !== '' && oldCls !== '' && cls === oldCls) {
      const sc = await getStorageClass(storage, cls);
      allowed = sc?.allowVolumeExpansion === true;
    }
    if (!allowed) {
      throw forbidden(gr, a.name, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }
}
