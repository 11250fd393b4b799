/**
 * Namespace (core/v1), after pkg/registry/core/namespace/strategy.go, ValidateNamespace* in
 * pkg/apis/core/validation and the NamespaceLifecycle admission plugin (Kubernetes 1.24).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, invalid } from '../../api/field-errors.ts';
import type { KindDescriptor, StatusStrategy, Strategy, SubresourceDescriptor, TableConvertor } from '../rest/strategy.ts';
import { FINALIZER_KUBERNETES, validateFinalizerName } from '../../validation/objectmeta.ts';
import { AGE_COLUMN, NAME_COLUMN, creationTimestampCell, isPlainObject } from './configmap.ts';

export const NAMESPACE_ACTIVE = 'Active';
export const NAMESPACE_TERMINATING = 'Terminating';
/** Label every namespace carries, always equal to its name. */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';

export const NAMESPACE_DEFAULT = 'default';
export const NAMESPACE_SYSTEM = 'kube-system';
export const NAMESPACE_PUBLIC = 'kube-public';
export const NAMESPACE_NODE_LEASE = 'kube-node-lease';

interface NamespaceSpec {
  finalizers?: unknown;
  [k: string]: unknown;
}
interface NamespaceStatus {
  phase?: unknown;
  [k: string]: unknown;
}

const specOf = (obj: KubeObject): NamespaceSpec => (isPlainObject(obj.spec) ? (obj.spec as NamespaceSpec) : {});
const statusOf = (obj: KubeObject): NamespaceStatus => (isPlainObject(obj.status) ? (obj.status as NamespaceStatus) : {});
const phaseOf = (obj: KubeObject): string => {
  const p = statusOf(obj).phase;
  return typeof p === 'string' ? p : '';
};
const finalizersOf = (obj: KubeObject): unknown[] => {
  const f = specOf(obj).finalizers;
  return Array.isArray(f) ? f : [];
};

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/** Keep the kubernetes.io/metadata.name label equal to the name (set when the name is known). */
function setNameLabel(obj: KubeObject): void {
  const name = obj.metadata?.name;
  if (!name) return;
  if (!isPlainObject(obj.metadata.labels)) obj.metadata.labels = {};
  obj.metadata.labels[LABEL_METADATA_NAME] = name;
}

/**
 * Put the top-level fields in v1.Namespace's JSON order (kind, apiVersion, metadata, spec,
 * status): prepareForCreate adds status to bodies that had no spec yet.
 */
function fieldOrder(obj: KubeObject): void {
  const entries = Object.entries(obj);
  const rank = (k: string): number => {
    const i = ['kind', 'apiVersion', 'metadata', 'spec', 'status'].indexOf(k);
    return i < 0 ? 5 : i;
  };
  entries.sort(([a], [b]) => rank(a) - rank(b));
  for (const [k] of entries) delete obj[k];
  for (const [k, v] of entries) obj[k] = v;
}

/** ValidateNamespace minus the generic ObjectMeta checks. spec.finalizers errors carry no index. */
export function validateNamespace(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const specPath = new FieldPath('spec');
  if (obj.spec !== undefined && obj.spec !== null && !isPlainObject(obj.spec)) {
    errs.push(invalid(specPath, obj.spec, 'must be an object'));
    return errs;
  }
  const f = specOf(obj).finalizers;
  const fPath = specPath.child('finalizers');
  if (f !== undefined && f !== null && !Array.isArray(f)) {
    errs.push(invalid(fPath, f, 'must be a list of strings'));
    return errs;
  }
  for (const name of finalizersOf(obj)) {
    if (typeof name !== 'string') errs.push(invalid(fPath, name, 'finalizers must be strings'));
    else errs.push(...validateFinalizerName(name, fPath));
  }
  return errs;
}

export const namespaceStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: setNameLabel,
  prepareForCreate(obj) {
    obj.status = { phase: NAMESPACE_ACTIVE };
    // The kubernetes finalizer is required on create (appended if missing); it is removed over
    // the namespace's life by the namespace controller through the finalize subresource.
    const spec = isPlainObject(obj.spec) ? (obj.spec as NamespaceSpec) : (obj.spec = {} as NamespaceSpec);
    const f = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!f.includes(FINALIZER_KUBERNETES)) spec.finalizers = [...f, FINALIZER_KUBERNETES];
  },
  prepareForUpdate(newObj, oldObj) {
    // spec.finalizers change only through /finalize, status only through /status.
    const spec = isPlainObject(newObj.spec) ? (newObj.spec as NamespaceSpec) : (newObj.spec = {} as NamespaceSpec);
    const oldF = specOf(oldObj).finalizers;
    if (oldF === undefined) delete spec.finalizers;
    else spec.finalizers = clone(oldF);
    if (oldObj.status === undefined) delete newObj.status;
    else newObj.status = clone(oldObj.status);
  },
  validate: validateNamespace,
  validateUpdate: (newObj) => validateNamespace(newObj),
  // generateName'd namespaces only learn their name after defaulting, so label again here.
  canonicalize(obj) {
    setNameLabel(obj);
    fieldOrder(obj);
  },
  beginDelete(obj) {
    obj.status = { ...statusOf(obj), phase: NAMESPACE_TERMINATING };
    // Namespace storage's Delete sets only deletionTimestamp (no grace period field).
    delete obj.metadata.deletionGracePeriodSeconds;
  },
  // A repeated DELETE of a terminating namespace answers 200 with the namespace (1.24 REST.Delete).
  hasPendingFinalizers: (obj) => finalizersOf(obj).length > 0,
};

/** /status: only status changes; the phase must agree with deletionTimestamp. */
export const namespaceStatusStrategy: StatusStrategy = {
  // namespaceStatusStrategy.PrepareForUpdate resets spec only: the request's metadata (labels,
  // annotations, …) is kept, as kube 1.24 keeps it; Canonicalize's name label still applies.
  prepareForUpdate(newObj, oldObj) {
    if (oldObj.spec === undefined) delete newObj.spec;
    else newObj.spec = clone(oldObj.spec);
    const status = statusOf(newObj);
    // An empty conditions list is dropped (omitempty), as kube answers it.
    if (Array.isArray(status.conditions) && status.conditions.length === 0) delete status.conditions;
    setNameLabel(newObj);
    fieldOrder(newObj);
  },
  validateUpdate(newObj) {
    const phase = phaseOf(newObj);
    const p = new FieldPath('status').child('Phase');
    if (!newObj.metadata.deletionTimestamp) {
      if (phase !== NAMESPACE_ACTIVE) return [invalid(p, phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    } else if (phase !== NAMESPACE_TERMINATING) {
      return [invalid(p, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
    }
    return [];
  },
};

/** /finalize: only spec.finalizers changes; entries are finalizer names (errors indexed). */
export const namespaceFinalizeStrategy: StatusStrategy = {
  // namespaceFinalizeStrategy.PrepareForUpdate resets status only: metadata and spec come from
  // the request (as kube 1.24 keeps them); Canonicalize's name label still applies.
  prepareForUpdate(newObj, oldObj) {
    if (oldObj.status === undefined) delete newObj.status;
    else newObj.status = clone(oldObj.status);
    const spec = isPlainObject(newObj.spec) ? (newObj.spec as NamespaceSpec) : (newObj.spec = {} as NamespaceSpec);
    const f = spec.finalizers;
    // An emptied list is dropped, as Go's omitempty drops it from v1.NamespaceSpec.
    if (f === undefined || f === null || (Array.isArray(f) && f.length === 0)) delete spec.finalizers;
    setNameLabel(newObj);
    fieldOrder(newObj);
  },
  validateUpdate(newObj) {
    const errs: FieldError[] = [];
    const fPath = new FieldPath('spec').child('finalizers');
    const f = specOf(newObj).finalizers;
    if (f !== undefined && f !== null && !Array.isArray(f)) return [invalid(fPath, f, 'must be a list of strings')];
    finalizersOf(newObj).forEach((name, i) => {
      if (typeof name !== 'string') errs.push(invalid(fPath.index(i), name, 'finalizers must be strings'));
      else errs.push(...validateFinalizerName(name, fPath.index(i)));
    });
    return errs;
  },
};

export const namespaceSubresources: SubresourceDescriptor[] = [
  { name: 'status', verbs: ['get', 'update', 'patch'], strategy: namespaceStatusStrategy },
  { name: 'finalize', verbs: ['update'], strategy: namespaceFinalizeStrategy },
];

export const namespaceTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    { name: 'Status', type: 'string', description: 'The status of the namespace', priority: 0 },
    AGE_COLUMN,
  ],
  cells: (obj) => [obj.metadata.name ?? '', phaseOf(obj), creationTimestampCell(obj)],
};

const bare = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

export const namespaceKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
  nameFormat: 'label',
  shortNames: ['ns'],
  strategy: namespaceStrategy,
  subresources: namespaceSubresources,
  table: namespaceTable,
  fieldSelectors: {
    'status.phase': phaseOf,
    // Legacy selector Kubernetes keeps for backward compatibility.
    name: (obj) => obj.metadata.name ?? '',
  },
  deleteReturns: 'Object',
  // kube-apiserver's namespace storage has no DeleteCollection.
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  bootstrap: [NAMESPACE_DEFAULT, NAMESPACE_SYSTEM, NAMESPACE_PUBLIC, NAMESPACE_NODE_LEASE].map(bare),
  // The NamespaceLifecycle admission plugin refuses to delete these ("this namespace may not be deleted").
  undeletable: [NAMESPACE_DEFAULT, NAMESPACE_SYSTEM, NAMESPACE_PUBLIC],
};
