/**
 * PersistentVolumeClaimSpec validation (ValidatePersistentVolumeClaimSpec, validateDataSource,
 * Kubernetes 1.24), shared by PersistentVolumeClaims and the claim templates of ephemeral
 * volumes (the metav1 LabelSelector rules are internal/validation/label-selector.ts, re-exported).
 */
import { type FieldError, FieldPath, forbidden, invalid, notSupported, required, GoValue } from '../../../api/field-errors.ts';
import { validateLabelName, validateLabelSelector } from '../../../validation/label-selector.ts';
import { nameIsDNSSubdomain } from '../../../validation/names.ts';
import { validatePositiveQuantityValue, validateNonnegativeQuantity } from './quantity.ts';
import { isSet, listAt, mapAt, objAt, optStrAt, strAt } from './util.ts';
import { isObj } from '../../../gocompat/json.ts';

export { validateLabelName, validateLabelSelector };

/** supportedAccessModes (without ReadWriteOncePod). */
export const SUPPORTED_ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce'];
/** supportedVolumeModes. */
export const SUPPORTED_VOLUME_MODES = ['Block', 'Filesystem'];

/** PersistentVolumeClaimSpecValidationOptions. */
export interface ClaimSpecValidationOptions {
  /** ReadWriteOncePod allowed (gate on, or the old object used it). */
  allowReadWriteOncePod?: boolean;
  /** RecoverVolumeExpansionFailure on. */
  enableRecoverFromExpansionFailure?: boolean;
}

/** The access-mode rules shared by PV and PVC specs (`requiredDetail`: PVC's "at least 1 access mode is required"). */
export function validateAccessModes(modes: unknown[], p: FieldPath, allowRWOP: boolean, requiredDetail: string): FieldError[] {
  const errs: FieldError[] = [];
  if (modes.length === 0) errs.push(required(p, requiredDetail));
  const supported = allowRWOP ? [...SUPPORTED_ACCESS_MODES, 'ReadWriteOncePod'].sort() : SUPPORTED_ACCESS_MODES;
  let rwop = false;
  let other = false;
  for (const m of modes) {
    const mode = typeof m === 'string' ? m : String(m);
    if (!supported.includes(mode)) errs.push(notSupported(p, mode, supported));
    if (mode === 'ReadWriteOncePod') rwop = true;
    else if (SUPPORTED_ACCESS_MODES.includes(mode)) other = true;
  }
  if (rwop && other) errs.push(forbidden(p, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/** validateDataSource (dataSource / dataSourceRef). */
export function validateDataSource(ds: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (strAt(ds, 'name').length === 0) errs.push(required(p.child('name')));
  const kind = strAt(ds, 'kind');
  if (kind.length === 0) errs.push(required(p.child('kind')));
  const apiGroup = optStrAt(ds, 'apiGroup') ?? '';
  if (apiGroup.length === 0 && kind !== 'PersistentVolumeClaim') errs.push(invalid(p, kind, ''));
  return errs;
}

/** TypedLocalObjectReference equality (apiequality.Semantic.DeepEqual; nil apiGroup ≠ ""). */
export function typedRefsEqual(a: unknown, b: unknown): boolean {
  const ga = isObj(a) && typeof a.apiGroup === 'string' ? a.apiGroup : undefined;
  const gb = isObj(b) && typeof b.apiGroup === 'string' ? b.apiGroup : undefined;
  return ga === gb && strAt(a, 'kind') === strAt(b, 'kind') && strAt(b, 'name') === strAt(a, 'name');
}

/** ValidatePersistentVolumeClaimSpec. */
export function validateClaimSpec(spec: unknown, p: FieldPath, opts: ClaimSpecValidationOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  const modes = listAt(spec, 'accessModes');
  if (modes.length === 0) errs.push(required(p.child('accessModes'), 'at least 1 access mode is required'));
  if (isSet(spec, 'selector')) errs.push(...validateLabelSelector(objAt(spec, 'selector'), p.child('selector')));
  if (modes.length > 0) errs.push(...validateAccessModes(modes, p.child('accessModes'), opts.allowReadWriteOncePod === true, ''));

  const requests = mapAt(objAt(spec, 'resources'), 'requests');
  const storagePath = p.child('resources').key('storage');
  if (!('storage' in requests)) errs.push(required(storagePath));
  else {
    const pos = validatePositiveQuantityValue(requests.storage, storagePath);
    // ValidateResourceQuantityValue: non-negative (storage is not an integer resource).
    errs.push(...(pos.length > 0 ? pos : validateNonnegativeQuantity(requests.storage, storagePath)));
  }

  const sc = optStrAt(spec, 'storageClassName');
  if (sc !== undefined && sc.length > 0) for (const m of nameIsDNSSubdomain(sc, false)) errs.push(invalid(p.child('storageClassName'), sc, m));
  const vm = optStrAt(spec, 'volumeMode');
  if (vm !== undefined && !SUPPORTED_VOLUME_MODES.includes(vm)) errs.push(notSupported(p.child('volumeMode'), vm, SUPPORTED_VOLUME_MODES));

  const ds = objAt(spec, 'dataSource');
  const dsr = objAt(spec, 'dataSourceRef');
  if (ds) errs.push(...validateDataSource(ds, p.child('dataSource')));
  if (dsr) errs.push(...validateDataSource(dsr, p.child('dataSourceRef')));
  if (ds && dsr && !typedRefsEqual(ds, dsr)) {
    // kube passes the *field.Path itself as the value; Go prints the struct behind the pointer.
    errs.push(invalid(p, new GoValue(`field.Path{name:"dataSource", index:"", parent:(*field.Path)(<ptr>)}`), 'must match dataSourceRef'));
  }
  return errs;
}
