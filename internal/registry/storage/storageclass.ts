/**
 * StorageClass (storage.k8s.io/v1, cluster-scoped), after Kubernetes 1.24.17:
 * SetDefaults_StorageClass (pkg/apis/storage/v1/defaults.go), ValidateStorageClass /
 * ValidateStorageClassUpdate (pkg/apis/storage/validation), pkg/registry/storage/storageclass
 * and printStorageClass (pkg/printers/internalversion/printers.go).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, duplicate, forbidden, invalid, notSupported, required, tooLong } from '../../api/field-errors.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell } from '../rest/table-columns.ts';
import { GO_NIL, arr, byteLen, str, validateQualifiedName, validateTopologySelectorTerm } from './helpers.ts';
import { isObj } from '../../gocompat/json.ts';

/** The annotations that mark the cluster's default class (storageutil.IsDefaultAnnotation). */
export const IS_DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class';
export const BETA_IS_DEFAULT_CLASS_ANNOTATION = 'storageclass.beta.kubernetes.io/is-default-class';

const MAX_PROVISIONER_PARAMETER_SIZE = 256 * 1024;
const MAX_PROVISIONER_PARAMETER_LEN = 512;
const SUPPORTED_RECLAIM_POLICIES = ['Delete', 'Retain'];
const SUPPORTED_BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

/** SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate (when nil). */
export function defaultStorageClass(o: KubeObject): void {
  if (o.reclaimPolicy === undefined || o.reclaimPolicy === null) o.reclaimPolicy = 'Delete';
  if (o.volumeBindingMode === undefined || o.volumeBindingMode === null) o.volumeBindingMode = 'Immediate';
}

/** validateProvisioner: required, and (lower-cased) a qualified name. */
function validateProvisioner(provisioner: string, p: FieldPath): FieldError[] {
  if (provisioner.length === 0) return [required(p, '')];
  return validateQualifiedName(provisioner.toLowerCase(), p);
}

/** validateParameters: at most 512 entries, no empty key, keys + values ≤ 256 KiB. */
function validateParameters(params: unknown, p: FieldPath): FieldError[] {
  const entries = isObj(params) ? Object.entries(params) : [];
  if (entries.length > MAX_PROVISIONER_PARAMETER_LEN) return [tooLong(p, 'Provisioner Parameters exceeded max allowed', MAX_PROVISIONER_PARAMETER_LEN)];
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(invalid(p, k, 'field can not be empty.'));
    total += byteLen(k) + byteLen(str(v));
  }
  if (total > MAX_PROVISIONER_PARAMETER_SIZE) errs.push(tooLong(p, '', MAX_PROVISIONER_PARAMETER_SIZE));
  return errs;
}

/** Two topology terms as ValidateTopologySelectorTerm maps them (key → value set). */
const sameTerm = (a: Map<string, string[]>, b: Map<string, string[]>): boolean =>
  a.size === b.size && [...a].every(([k, v]) => b.has(k) && JSON.stringify(b.get(k)) === JSON.stringify(v));

/**
 * validateAllowedTopologies. Kube's duplicate check compares each term with a list that starts
 * with len(terms) nil maps (`make(..., len)` then append), and a nil map is semantically equal to
 * the empty map of a term without expressions: such a term is reported Duplicate once per term of
 * the list, plus once per earlier empty term. Ported as is.
 */
function validateAllowedTopologies(terms: unknown, p: FieldPath): FieldError[] {
  const list = arr(terms);
  const errs: FieldError[] = [];
  const raw: Map<string, string[]>[] = list.map(() => new Map());
  list.forEach((term, i) => {
    const idx = p.index(i);
    const r = validateTopologySelectorTerm(term, idx);
    errs.push(...r.errs);
    for (const t of raw) if (sameTerm(r.exprs, t)) errs.push(duplicate(idx.child('matchLabelExpressions'), ''));
    raw.push(r.exprs);
  });
  return errs;
}

/** ValidateStorageClass minus ObjectMeta (the store validates it; names are DNS subdomains). */
export function validateStorageClass(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  errs.push(...validateProvisioner(str(o.provisioner), new FieldPath('provisioner')));
  errs.push(...validateParameters(o.parameters, new FieldPath('parameters')));
  const reclaim = str(o.reclaimPolicy);
  if (reclaim.length > 0 && !SUPPORTED_RECLAIM_POLICIES.includes(reclaim)) errs.push(notSupported(new FieldPath('reclaimPolicy'), reclaim, SUPPORTED_RECLAIM_POLICIES));
  const mode = o.volumeBindingMode;
  if (mode === undefined || mode === null) errs.push(required(new FieldPath('volumeBindingMode'), ''));
  else if (!SUPPORTED_BINDING_MODES.includes(str(mode))) errs.push(notSupported(new FieldPath('volumeBindingMode'), str(mode), SUPPORTED_BINDING_MODES));
  errs.push(...validateAllowedTopologies(o.allowedTopologies, new FieldPath('allowedTopologies')));
  return errs;
}

/**
 * reflect.DeepEqual of two map[string]string: unlike Semantic, a nil map (absent/null) differs
 * from an empty one (`{}` in the request).
 */
function reflectMapEqual(a: unknown, b: unknown): boolean {
  if (!isObj(a) || !isObj(b)) return !isObj(a) && !isObj(b);
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => k in b && str(a[k]) === str(b[k]));
}

/** The strategy's ValidateUpdate: ValidateStorageClass, then ValidateStorageClassUpdate's rules. */
export function validateStorageClassUpdate(n: KubeObject, o: KubeObject): FieldError[] {
  const errs = validateStorageClass(n);
  if (!reflectMapEqual(o.parameters, n.parameters)) errs.push(forbidden(new FieldPath('parameters'), 'updates to parameters are forbidden.'));
  if (str(n.provisioner) !== str(o.provisioner)) errs.push(forbidden(new FieldPath('provisioner'), 'updates to provisioner are forbidden.'));
  if (str(n.reclaimPolicy) !== str(o.reclaimPolicy)) errs.push(forbidden(new FieldPath('reclaimPolicy'), 'updates to reclaimPolicy are forbidden.'));
  if ((n.volumeBindingMode ?? null) !== (o.volumeBindingMode ?? null)) {
    errs.push(invalid(new FieldPath('volumeBindingMode'), n.volumeBindingMode ?? GO_NIL, FIELD_IMMUTABLE));
  }
  return errs;
}

/** pkg/registry/storage/storageclass: no prepare steps; PUT may omit the resourceVersion. */
export const storageClassStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultStorageClass,
  validate: validateStorageClass,
  validateUpdate: validateStorageClassUpdate,
};

/** storageutil.IsDefaultAnnotation. */
export const isDefaultClass = (o: KubeObject): boolean =>
  o.metadata.annotations?.[IS_DEFAULT_CLASS_ANNOTATION] === 'true' || o.metadata.annotations?.[BETA_IS_DEFAULT_CLASS_ANNOTATION] === 'true';

/** printStorageClass: "(default)" after the default class's name. */
export const storageClassTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Provisioner', type: 'string', description: 'Provisioner indicates the type of the provisioner.', priority: 0 },
    { name: 'ReclaimPolicy', type: 'string', description: 'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy. Defaults to Delete.', priority: 0 },
    {
      name: 'VolumeBindingMode',
      type: 'string',
      description:
        'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
      priority: 0,
    },
    // Declared a string column; its cells are booleans.
    { name: 'AllowVolumeExpansion', type: 'string', description: 'AllowVolumeExpansion shows whether the storage class allow volume expand', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (o) => [
    `${o.metadata.name ?? ''}${isDefaultClass(o) ? ' (default)' : ''}`,
    str(o.provisioner),
    typeof o.reclaimPolicy === 'string' ? o.reclaimPolicy : 'Delete',
    typeof o.volumeBindingMode === 'string' ? o.volumeBindingMode : 'Immediate',
    o.allowVolumeExpansion === true,
    creationTimestampCell(o),
  ],
};

/** storage.k8s.io/v1 storageclasses (short name sc); delete answers the object. */
export const storageClassKind: KindDescriptor = {
  group: 'storage.k8s.io',
  versions: ['v1'],
  resource: 'storageclasses',
  singular: 'storageclass',
  kind: 'StorageClass',
  listKind: 'StorageClassList',
  namespaced: false,
  shortNames: ['sc'],
  strategy: storageClassStrategy,
  table: storageClassTable,
  deleteReturns: 'Object',
};
