/**
 * ObjectMeta validation, after k8s.io/apimachinery/pkg/api/validation/objectmeta.go plus the
 * core-API additions of pkg/apis/core/validation (Kubernetes 1.24): finalizer names without a
 * '/' must be one of the standard finalizers.
 *
 * Field paths are those kube-apiserver reports: label, annotation, finalizer (name format) and
 * ownerReference errors name the collection (`metadata.labels`, `metadata.finalizers`), not the
 * element; the core "standard finalizer" check names the element (`metadata.finalizers[0]`).
 */
import type { ObjectMeta, OwnerReference } from '../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, required, tooLong } from '../api/field-errors.ts';
import { type NameValidator, isQualifiedName, isValidLabelValue, validateNamespaceName } from './names.ts';
import { isObj } from '../gocompat/json.ts';

export const FIELD_IMMUTABLE = 'field is immutable';
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Total size of annotation keys + values: 256 KiB. */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

export const FINALIZER_KUBERNETES = 'kubernetes';
export const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';
/** Finalizers allowed without a domain prefix on core-API objects. */
export const STANDARD_FINALIZERS: ReadonlySet<string> = new Set([
  FINALIZER_KUBERNETES,
  FINALIZER_ORPHAN_DEPENDENTS,
  FINALIZER_DELETE_DEPENDENTS,
]);

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

export interface ObjectMetaOptions {
  /**
   * Apply the core-API finalizer rule ("name is neither a standard finalizer name nor is it fully
   * qualified") to metadata.finalizers. True for built-in kinds (default); custom resources skip it.
   */
  kubeFinalizers?: boolean;
}

/** Labels: keys are qualified names, values valid label values. Errors name `path` itself. */
export function validateLabels(labels: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === undefined || labels === null) return errs;
  if (!isObj(labels)) return [invalid(path, labels, 'must be a map of string keys to string values')];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalid(path, k, msg));
    if (typeof v !== 'string') {
      errs.push(invalid(path, v, 'label values must be strings'));
      continue;
    }
    for (const msg of isValidLabelValue(v)) errs.push(invalid(path, v, msg));
  }
  return errs;
}

/** Annotations: keys are qualified names (case-insensitively); keys + values total ≤ 256 KiB. */
export function validateAnnotations(annotations: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations === undefined || annotations === null) return errs;
  if (!isObj(annotations)) return [invalid(path, annotations, 'must be a map of string keys to string values')];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalid(path, k, msg));
    if (typeof v !== 'string') {
      errs.push(invalid(path, v, 'annotation values must be strings'));
      continue;
    }
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(tooLong(path, '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** Split an apiVersion into group and version as schema.ParseGroupVersion does (invalid → both empty). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/** Kinds that may never own other objects. */
const BANNED_OWNERS = new Set(['/v1, Kind=Event']);

/**
 * Go's `%#v` of a v1.OwnerReference, as kube-apiserver echoes it in validation messages. Pointer
 * fields print as an address there; `addr` supplies a stand-in (clients cannot rely on it).
 */
function goOwnerReference(ref: Partial<OwnerReference>, addr: () => string): string {
  const str = (v: unknown): string => JSON.stringify(typeof v === 'string' ? v : '');
  const ptr = (v: unknown): string => `(*bool)(${typeof v === 'boolean' ? addr() : 'nil'})`;
  return `v1.OwnerReference{APIVersion:${str(ref.apiVersion)}, Kind:${str(ref.kind)}, Name:${str(ref.name)}, UID:${str(ref.uid)}, Controller:${ptr(ref.controller)}, BlockOwnerDeletion:${ptr(ref.blockOwnerDeletion)}}`;
}

/** Stand-in heap addresses for goOwnerReference, distinct within one message. */
function fakeAddresses(): () => string {
  let next = 0xc000010000;
  return () => `0x${(next += 8).toString(16)}`;
}

/**
 * Owner references (apimachinery ValidateOwnerReferences): apiVersion with a version, kind, name
 * and uid present, no banned owner kind (v1 Event), at most one `controller: true`. Nothing
 * about scope: a cluster-scoped object may name a namespaced owner (the garbage collector, not
 * validation, refuses that pairing).
 */
export function validateOwnerReferences(refs: unknown, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (refs === undefined || refs === null) return errs;
  if (!Array.isArray(refs)) return [invalid(path, refs, 'must be a list of owner references')];
  let controllerName = '';
  for (const raw of refs as unknown[]) {
    const ref = (isObj(raw) ? raw : {}) as Partial<OwnerReference>;
    const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const name = typeof ref.name === 'string' ? ref.name : '';
    const uid = typeof ref.uid === 'string' ? ref.uid : '';
    const gv = parseGroupVersion(apiVersion);
    if (gv.version.length === 0) errs.push(invalid(path.child('apiVersion'), apiVersion, 'version must not be empty'));
    if (kind.length === 0) errs.push(invalid(path.child('kind'), kind, 'kind must not be empty'));
    if (name.length === 0) errs.push(invalid(path.child('name'), name, 'name must not be empty'));
    if (uid.length === 0) errs.push(invalid(path.child('uid'), uid, 'uid must not be empty'));
    const gvk = `${gv.group}/${gv.version}, Kind=${kind}`;
    if (BANNED_OWNERS.has(gvk)) errs.push(invalid(path, new GoValue(goOwnerReference(ref, fakeAddresses())), `${gvk} is disallowed from being an owner`));
    if (ref.controller === true) {
      if (controllerName !== '') {
        const addr = fakeAddresses();
        const all = (refs as unknown[]).map((r) => goOwnerReference((isObj(r) ? r : {}) as Partial<OwnerReference>, addr));
        errs.push(
          invalid(
            path,
            new GoValue(`[]v1.OwnerReference{${all.join(', ')}}`),
            `Only one reference can have Controller set to true. Found "true" in references for ${controllerName} and ${name}`,
          ),
        );
      } else {
        controllerName = name;
      }
    }
  }
  return errs;
}

/** apimachinery's finalizer-name rule: a qualified name. */
function finalizerNameFormat(name: string, path: FieldPath): FieldError[] {
  return isQualifiedName(name).map((msg) => invalid(path, name, msg));
}

/** Core-API rule: a finalizer without a domain prefix must be a standard one. */
export function validateKubeFinalizerName(name: string, path: FieldPath): FieldError[] {
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    return [invalid(path, name, 'name is neither a standard finalizer name nor is it fully qualified')];
  }
  return [];
}

/**
 * Full finalizer-name check used for Namespace spec.finalizers: qualified name, then the
 * standard-finalizer rule, both reported at `path`.
 */
export function validateFinalizerName(name: string, path: FieldPath): FieldError[] {
  return [...finalizerNameFormat(name, path), ...validateKubeFinalizerName(name, path)];
}

/**
 * metadata.finalizers: every entry a qualified name (errors at `path`), not both `orphan` and
 * `foregroundDeletion`, and (core kinds) the standard-finalizer rule (errors at `path[i]`).
 */
export function validateFinalizers(finalizers: unknown, path: FieldPath, kubeFinalizers = true): FieldError[] {
  const errs: FieldError[] = [];
  if (finalizers === undefined || finalizers === null) return errs;
  if (!Array.isArray(finalizers)) return [invalid(path, finalizers, 'must be a list of strings')];
  let orphan = false;
  let foreground = false;
  for (const f of finalizers as unknown[]) {
    if (typeof f !== 'string') {
      errs.push(invalid(path, f, 'finalizers must be strings'));
      continue;
    }
    errs.push(...finalizerNameFormat(f, path));
    if (f === FINALIZER_ORPHAN_DEPENDENTS) orphan = true;
    if (f === FINALIZER_DELETE_DEPENDENTS) foreground = true;
  }
  if (orphan && foreground) {
    errs.push(
      invalid(path, finalizers, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`),
    );
  }
  if (kubeFinalizers) {
    (finalizers as unknown[]).forEach((f, i) => {
      if (typeof f === 'string') errs.push(...validateKubeFinalizerName(f, path.index(i)));
    });
  }
  return errs;
}

function validateGeneration(generation: unknown, path: FieldPath): FieldError[] {
  if (generation === undefined || generation === null) return [];
  if (typeof generation !== 'number' || !Number.isInteger(generation)) return [invalid(path, generation, 'must be an integer')];
  return generation < 0 ? [invalid(path, generation, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** The parts of create and update validation that look only at the new metadata. */
function validateMetaCommon(meta: ObjectMeta, path: FieldPath, opts: ObjectMetaOptions): FieldError[] {
  return [
    ...validateLabels(meta.labels, path.child('labels')),
    ...validateAnnotations(meta.annotations, path.child('annotations')),
    ...validateOwnerReferences(meta.ownerReferences, path.child('ownerReferences')),
    ...validateFinalizers(meta.finalizers, path.child('finalizers'), opts.kubeFinalizers ?? true),
  ];
}

/**
 * Create-time ObjectMeta validation. Expects the store to have generated `name` from
 * `generateName` already (as Kubernetes does); if it has not, an empty name with a non-empty
 * generateName is not reported as missing.
 */
export function validateObjectMeta(
  meta: ObjectMeta,
  namespaced: boolean,
  nameFn: NameValidator,
  path: FieldPath = new FieldPath('metadata'),
  opts: ObjectMetaOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];
  const name = typeof meta.name === 'string' ? meta.name : '';
  const generateName = typeof meta.generateName === 'string' ? meta.generateName : '';
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';

  if (generateName.length > 0) {
    for (const msg of nameFn(generateName, true)) errs.push(invalid(path.child('generateName'), generateName, msg));
  }
  if (name.length === 0) {
    if (generateName.length === 0) errs.push(required(path.child('name'), 'name or generateName is required'));
  } else {
    for (const msg of nameFn(name, false)) errs.push(invalid(path.child('name'), name, msg));
  }

  if (namespaced) {
    if (namespace.length === 0) errs.push(required(path.child('namespace')));
    else for (const msg of validateNamespaceName(namespace, false)) errs.push(invalid(path.child('namespace'), namespace, msg));
  } else if (namespace.length > 0) {
    errs.push(forbidden(path.child('namespace'), 'not allowed on this type'));
  }

  errs.push(...validateGeneration(meta.generation, path.child('generation')));
  errs.push(...validateMetaCommon(meta, path, opts));
  return errs;
}

/** Go's %#v of a sorted []string, as used in the "no new finalizers" message. */
const goStringSlice = (xs: string[]): string => `[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`;

const sameValue = (a: unknown, b: unknown): boolean => (a ?? undefined) === (b ?? undefined);

/**
 * Update-time ObjectMeta validation: identity fields immutable, no new finalizers while
 * deleting, generation not decremented, and the create-time checks on labels, annotations,
 * ownerReferences and finalizers of the new metadata.
 *
 * Like Kubernetes, this is strict: it expects the caller to have applied
 * `prepareObjectMetaForUpdate` first (rest.BeforeUpdate's silent resets), so that an update that
 * simply omits creationTimestamp/uid is not rejected. metadata.resourceVersion presence is left to
 * the store (it fills it for unconditional updates).
 */
export function validateObjectMetaUpdate(
  newMeta: ObjectMeta,
  oldMeta: ObjectMeta,
  path: FieldPath = new FieldPath('metadata'),
  opts: ObjectMetaOptions = {},
): FieldError[] {
  const errs: FieldError[] = [];

  if (oldMeta.deletionTimestamp) {
    const oldF = new Set(Array.isArray(oldMeta.finalizers) ? oldMeta.finalizers : []);
    const extra = [...new Set(Array.isArray(newMeta.finalizers) ? newMeta.finalizers : [])].filter((f) => !oldF.has(f)).sort();
    if (extra.length > 0) {
      errs.push(
        forbidden(
          path.child('finalizers'),
          `no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(extra)}`,
        ),
      );
    }
  }

  const newGen = typeof newMeta.generation === 'number' ? newMeta.generation : 0;
  const oldGen = typeof oldMeta.generation === 'number' ? oldMeta.generation : 0;
  if (newGen < oldGen) errs.push(invalid(path.child('generation'), newGen, 'must not be decremented'));

  const immutable: (keyof ObjectMeta)[] = [
    'name',
    'namespace',
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
  ];
  for (const f of immutable) {
    // Empty string and absent are the same value in Go (string zero value / omitempty).
    const nv = newMeta[f] === '' ? undefined : newMeta[f];
    const ov = oldMeta[f] === '' ? undefined : oldMeta[f];
    if (!sameValue(nv, ov)) errs.push(invalid(path.child(f as string), nv ?? '', FIELD_IMMUTABLE));
  }

  errs.push(...validateMetaCommon(newMeta, path, opts));
  return errs;
}

/**
 * rest.BeforeUpdate's silent metadata resets, to run before `validateObjectMetaUpdate`: an
 * update cannot change generation (the store bumps it), creationTimestamp, or an existing
 * deletionTimestamp; a missing uid or a dropped deletionGracePeriodSeconds is taken from the old
 * object. Mutates `newMeta`.
 */
export function prepareObjectMetaForUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta): void {
  if (oldMeta.generation !== undefined) newMeta.generation = oldMeta.generation;
  else delete newMeta.generation;
  if (!newMeta.uid && oldMeta.uid) newMeta.uid = oldMeta.uid;
  if (oldMeta.creationTimestamp) newMeta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) newMeta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined && newMeta.deletionGracePeriodSeconds === undefined) {
    newMeta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  }
}
