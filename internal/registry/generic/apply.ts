/**
 * Server-side apply: the Apply side of kube-apiserver 1.24's field manager, the same chain of
 * managers (k8s.io/apiserver endpoints/handlers/fieldmanager) over structured-merge-diff v4.2.3's
 * merge.Updater, outermost first:
 *
 *   lastAppliedUpdater   manager "kubectl" on an object with a client-side last-applied
 *                        annotation: the annotation is rewritten to the applied configuration
 *   lastAppliedManager   manager "kubectl": conflicts on fields whose live value still equals the
 *                        last-applied annotation are forced (the client-side → server-side upgrade)
 *   skipNonApplied       an object without managedFields first gets them for what it holds, as
 *                        manager "before-first-apply" (operation Update)
 *   capManagers          at most 10 Update entries
 *   buildManagerInfo     the entry identity: manager, operation Apply, subresource
 *   managedFieldsUpdater the entry's time changes when the object or the managed fields change
 *   stripMeta            apiVersion, kind and server-owned metadata are never owned
 *   structuredMerge      version and managedFields checks, the typed patch, Updater.Apply:
 *                        merge → own the applied set → prune what the applier gave up (unless
 *                        someone else owns it) → conflicts with other managers (409 unless force)
 *                        → others lose what changed or disappeared
 *
 * Everything is computed on the kind's schema (internal/schema), never on kind-specific code.
 */
import type { KubeObject, StatusCause } from '../../api/types.ts';
import { ApiError, badRequest, failure, unknownError } from '../../api/errors.ts';
import { FieldSet, FieldsV1Error, goJson, pathString, type Path } from '../../schema/fieldpath.ts';
import { DEDUCED_TYPE } from '../../schema/registry.ts';
import { compare, excludeFields, isSame, toFieldSet, TypedError } from '../../schema/typed.ts';
import { merge, prune, validate } from '../../schema/merge.ts';
import type { TypeRef } from '../../schema/types.ts';
import { capUpdateManagers, decodeManaged, encodeManaged, managerId, STRIPPED, type FieldManager, type Managed, type ManagedEntry } from './managed-fields.ts';
import type { ManagedFieldsEntry } from '../../api/types.ts';
import { deepCopy, rfc3339 } from './serialize.ts';
import { isObj } from '../../gocompat/json.ts';

/** corev1.LastAppliedConfigAnnotation. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
/** The manager whose applies take part in the client-side → server-side upgrade (kubectl's default). */
const KUBECTL = 'kubectl';
const BEFORE_FIRST_APPLY = 'before-first-apply';
/** apimachinery validation.TotalAnnotationSizeLimitB. */
const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** One apply request, as the field manager sees it. */
export interface ApplyRequest {
  /** The live object, or null when the apply creates it. */
  live: KubeObject | null;
  /** The applied configuration (decoded YAML/JSON, not touched). */
  patch: Record<string, unknown>;
  manager: string;
  force: boolean;
  subresource?: string;
  now: Date;
}

/** The applied result: the merged object (before decoding/defaulting) and its managedFields. */
export interface ApplyResult {
  object: KubeObject;
  managedFields: ManagedFieldsEntry[] | undefined;
}

/** merge.Conflicts: fields other managers own with a different value. */
class Conflicts extends Error {
  constructor(readonly list: Array<{ id: string; path: Path }>) {
    super('conflicts');
  }
}

type Obj = Record<string, unknown>;

/** The live object as the typed value SMD works on: without its managedFields. */
function withoutManaged(o: KubeObject): KubeObject {
  if (!o.metadata || o.metadata.managedFields === undefined) return o;
  const { managedFields: _m, ...meta } = o.metadata;
  return { ...o, metadata: meta };
}

/**
 * FieldManager.Apply: the new object and managedFields for `req`, or an ApiError (400 for a bad
 * applied object, 409 for conflicts, 500 for what kube reports as plain errors).
 */
export function serverSideApply(fm: FieldManager, req: ApplyRequest): ApplyResult {
  const live: KubeObject = req.live ?? { apiVersion: fm.preferred, kind: fm.kind.kind, metadata: {} };
  let managed: Managed;
  try {
    managed = decodeManaged(live.metadata?.managedFields);
  } catch (e) {
    if (e instanceof FieldsV1Error) throw unknownError(`failed to decode managed fields: ${e.message}`);
    throw e;
  }
  let out: { object: KubeObject; managed: Managed };
  try {
    out = applyManaged(fm, req, live, managed, req.force);
  } catch (e) {
    if (!(e instanceof Conflicts)) throw e;
    if (req.manager !== KUBECTL) throw conflictError(e.list);
    // lastAppliedManager: conflicts on fields the client-side apply last set, and that still
    // hold that value, are not conflicts for kubectl taking the object over.
    const allowed = allowedFromLastApplied(fm, live);
    if (!allowed) throw conflictError(e.list);
    const left = e.list.filter((c) => !allowed.has(c.path));
    if (left.length) throw conflictError(left);
    out = applyManaged(fm, req, live, managed, true);
  }
  if (req.manager === KUBECTL && hasLastApplied(out.object)) setLastApplied(out.object, buildLastApplied(req.patch));
  return { object: out.object, managedFields: encodeManaged(out.managed) };
}

/** skipNonApplied → capManagers → buildManagerInfo → managedFieldsUpdater → stripMeta → structured apply. */
function applyManaged(fm: FieldManager, req: ApplyRequest, live: KubeObject, managedIn: Managed, force: boolean): { object: KubeObject; managed: Managed } {
  // A kind without a schema is applied as kube applies unstructured objects (DeducedTypeConverter).
  const type = fm.type ?? DEDUCED_TYPE;
  let managed: Managed = new Map(managedIn);
  const liveView = withoutManaged(live);
  if (managed.size === 0) {
    // skipNonApplied: what the object holds so far belongs to "before-first-apply".
    const empty: KubeObject = { apiVersion: fm.preferred, kind: fm.kind.kind, metadata: {} };
    managed = fm.updateManaged(type, managed, empty, liveView, BEFORE_FIRST_APPLY, req.now, req.subresource);
  }
  const name = req.manager || 'unknown';
  const id = managerId({ manager: name, operation: 'Apply', apiVersion: fm.preferred, subresource: req.subresource });
  const former = new Map(managed);
  const result = structuredApply(fm, type, req, liveView, managed, { id, name }, force);
  const after = result.managed;
  // stripMeta
  const mine = after.get(id);
  if (mine) {
    const set = mine.set.difference(STRIPPED);
    if (set.isEmpty()) after.delete(id);
    else after.set(id, { ...mine, set });
  }
  // managedFieldsUpdater: the applier's time moves when anything changed.
  if (result.object || !sameManaged(after, former)) {
    const e = after.get(id);
    if (e) after.set(id, { ...e, time: rfc3339(req.now) });
  }
  const object = result.object ?? deepCopy(liveView);
  return { object, managed: capUpdateManagers(after) };
}

function sameManaged(a: Managed, b: Managed): boolean {
  if (a.size !== b.size) return false;
  for (const [k, e] of a) {
    const f = b.get(k);
    if (!f || f.apiVersion !== e.apiVersion || f.operation !== e.operation || !f.set.equals(e.set)) return false;
  }
  return true;
}

/** `<group>/<version>, Kind=<kind>` of the applied object, as Go prints a GroupVersionKind. */
function gvkText(patch: Obj): string {
  const av = typeof patch.apiVersion === 'string' ? patch.apiVersion : '';
  const slash = av.lastIndexOf('/');
  const kind = typeof patch.kind === 'string' ? patch.kind : '';
  return `${slash >= 0 ? av.slice(0, slash) : ''}/${av.slice(slash + 1)}, Kind=${kind}`;
}

/** fieldmanager objectGVKNN: `<namespace>/<name>; <gvk>` of the applied object. */
function gvknn(patch: Obj): string {
  const meta = isObj(patch.metadata) ? patch.metadata : {};
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return `${str(meta.namespace)}/${str(meta.name)}; ${gvkText(patch)}`;
}

/** structuredMergeManager.Apply + merge.Updater.Apply. Returns object null when nothing changed. */
function structuredApply(
  fm: FieldManager,
  type: TypeRef,
  req: ApplyRequest,
  live: KubeObject,
  managers: Managed,
  applier: { id: string; name: string },
  force: boolean,
): { object: KubeObject | null; managed: Managed } {
  const patch = req.patch;
  const pv = typeof patch.apiVersion === 'string' ? patch.apiVersion : '';
  if (pv !== fm.preferred) throw badRequest(`Incorrect version specified in apply patch. Specified patch version: ${pv}, expected: ${fm.preferred}`);
  const meta = isObj(patch.metadata) ? patch.metadata : undefined;
  if (meta && Array.isArray(meta.managedFields)) throw badRequest('metadata.managedFields must be nil');
  const kind = typeof patch.kind === 'string' ? patch.kind : '';
  const slash = pv.lastIndexOf('/');
  const patchType = fm.type ? fm.typeOf({ group: slash >= 0 ? pv.slice(0, slash) : '', version: pv.slice(slash + 1), kind }) : DEDUCED_TYPE;
  if (!patchType) throw unknownError(`failed to create typed patch object (${gvknn(patch)}): no corresponding type for ${gvkText(patch)}`);
  const invalid = validate(patch, patchType);
  if (invalid) throw unknownError(`failed to create typed patch object (${gvknn(patch)}): ${invalid}`);
  if (kind !== fm.kind.kind) throw unknownError(`failed to merge config: expected objects of the same type, but got ${kind} and ${fm.kind.kind}`);

  try {
    let merged = merge(live, patch, type) as KubeObject;
    const lastSet = managers.get(applier.id);
    const ignored = fm.resetFields(req.subresource);
    let set = toFieldSet(patch, type);
    if (ignored) set = set.recursiveDifference(ignored);
    const entry: ManagedEntry = { id: applier.id, manager: applier.name, operation: 'Apply', apiVersion: fm.preferred, set };
    if (req.subresource) entry.subresource = req.subresource;
    if (lastSet?.time) entry.time = lastSet.time;
    managers.set(applier.id, entry);
    merged = pruneApplied(fm, type, merged, managers, lastSet?.set) as KubeObject;

    // Updater.update with the applier's force: conflicts, then others lose what changed.
    const cmp = excludeFields(compare(live, merged, type), ignored);
    // Each manager's conflicts and removals are compared in its own version.
    const changesIn = fm.changesByVersion(live, merged, ignored, { changed: cmp.modified.union(cmp.added), removed: cmp.removed });
    const conflicts: Array<{ id: string; set: FieldSet }> = [];
    for (const [k, e] of managers) {
      if (k === applier.id) continue;
      if (!fm.convertible(e.apiVersion)) {
        managers.delete(k);
        continue;
      }
      const c = e.set.intersection(changesIn(e.apiVersion).changed);
      if (!c.isEmpty()) conflicts.push({ id: k, set: c });
    }
    if (!force && conflicts.length) {
      throw new Conflicts(conflicts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).flatMap((c) => c.set.paths().map((path) => ({ id: c.id, path }))));
    }
    for (const c of conflicts) {
      const e = managers.get(c.id)!;
      managers.set(c.id, { ...e, set: e.set.difference(c.set) });
    }
    for (const [k, e] of managers) {
      const removed = k === applier.id ? undefined : changesIn(e.apiVersion).removed;
      if (removed && !removed.isEmpty()) managers.set(k, { ...e, set: e.set.difference(removed) });
    }
    for (const [k, e] of managers) if (e.set.isEmpty()) managers.delete(k);
    return { object: isSame(cmp) ? null : merged, managed: managers };
  } catch (e) {
    if (e instanceof TypedError) throw unknownError(`failed to merge config: ${e.message}`);
    throw e;
  }
}

/** Updater.prune (merge.ts prune) with every convertible manager's fields as the owned ones. */
function pruneApplied(fm: FieldManager, type: TypeRef, merged: unknown, managers: Managed, lastSet: FieldSet | undefined): unknown {
  if (!lastSet || lastSet.isEmpty()) return merged;
  let owned = FieldSet.empty();
  for (const e of managers.values()) if (fm.convertible(e.apiVersion)) owned = owned.union(e.set);
  return prune(merged, lastSet, owned, type);
}

/** The 409 kube writes for apply conflicts (fieldmanager internal.NewConflictError). */
function conflictError(list: Array<{ id: string; path: Path }>): ApiError {
  const causes: StatusCause[] = list.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.id)}`, field: pathString(c.path) }));
  let message: string;
  if (list.length === 1) message = `Apply failed with 1 conflict: conflict with ${printManager(list[0].id)}: ${pathString(list[0].path)}`;
  else {
    const byManager = new Map<string, Path[]>();
    for (const c of list) byManager.set(c.id, [...(byManager.get(c.id) ?? []), c.path]);
    const lines: string[] = [];
    for (const id of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(id)}:`);
      for (const p of byManager.get(id)!) lines.push(`- ${pathString(p)}`);
    }
    message = `Apply failed with ${list.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(failure(409, 'Conflict', message, { causes }));
}

/** fieldmanager printManager: `"name"`, `with subresource "s"`, `using <apiVersion>` for Update. */
function printManager(id: string): string {
  let e: { manager?: string; operation?: string; apiVersion?: string; subresource?: string };
  try {
    e = JSON.parse(id);
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(e.manager ?? '');
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion ?? ''}`;
  return s;
}

// ------------------------------------------------------------------ client-side apply upgrade

function lastAppliedOf(obj: KubeObject): string | undefined {
  const a = obj.metadata?.annotations as Record<string, unknown> | undefined;
  const v = a?.[LAST_APPLIED];
  return typeof v === 'string' && v ? v : undefined;
}

const hasLastApplied = (obj: KubeObject): boolean => lastAppliedOf(obj) !== undefined;

/**
 * lastAppliedManager.allowedConflictsFromLastApplied: the fields of the last-applied annotation
 * whose live value is still the one it records. Undefined when there is no usable annotation.
 */
function allowedFromLastApplied(fm: FieldManager, live: KubeObject): FieldSet | undefined {
  const text = lastAppliedOf(live);
  const type = fm.type;
  if (!text || !type) return undefined;
  let last: unknown;
  try {
    last = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(last) || last.apiVersion !== fm.preferred) return undefined;
  if (validate(last, type)) return undefined;
  try {
    const set = toFieldSet(last, type);
    const cmp = compare(last, withoutManaged(live), type);
    return set.difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
  } catch (e) {
    if (e instanceof TypedError) return undefined;
    throw e;
  }
}

/** lastAppliedUpdater.buildLastApplied: the applied object without the annotation, as Go encodes it. */
function buildLastApplied(patch: Obj): string {
  const copy = deepCopy(patch) as Obj;
  const meta = isObj(copy.metadata) ? copy.metadata : undefined;
  if (meta && isObj(meta.annotations)) delete meta.annotations[LAST_APPLIED];
  return `${goJson(copy)}\n`;
}

/** lastAppliedUpdater.setLastApplied: dropped again when the annotations would grow too large. */
function setLastApplied(obj: KubeObject, value: string): void {
  const annotations: Record<string, string> = { ...((obj.metadata.annotations as Record<string, string> | undefined) ?? {}) };
  annotations[LAST_APPLIED] = value;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) delete annotations[LAST_APPLIED];
  obj.metadata.annotations = annotations;
}
