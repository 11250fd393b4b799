/**
 * managedFields for non-apply writes (operation Update), as kube-apiserver 1.24's field manager
 * writes them (k8s.io/apiserver endpoints/handlers/fieldmanager over structured-merge-diff):
 *
 *   decode      the request's managedFields if it sent valid, non-empty ones (`[{}]` or `[]`
 *               resets them), else the live object's; subresources always use the live ones.
 *   skip        an existing object without managedFields stays without (they start on create
 *               or with the first apply).
 *   compare     the live object (on create: the kind's empty object) with the written one, on
 *               the kind's schema; fields that the strategy resets (status on the main
 *               resource, spec on /status) are left out.
 *   other       every other manager loses the fields this write changed or removed.
 *   writer      gains what it added or changed and loses what it removed; apiVersion, kind,
 *               and the server-owned metadata fields are never owned. All Update writes of one
 *               manager (name, apiVersion, subresource) share one entry, whose time changes only
 *               when its field set does.
 *   cap         at most 10 Update entries: the oldest merge into `ancient-changes`.
 *   encode      entries sorted by operation, time (seconds), manager, apiVersion, subresource.
 *
 * The managedFields are computed on the object as kube's handlers see it: decoded from the
 * request (defaults applied, Secret stringData folded into data), before mutating admission and
 * before the strategy's prepareForCreate/prepareForUpdate.
 *
 * The field-set machinery lives in internal/schema (compare, toFieldSet, FieldsV1); server-side
 * apply (apply.ts) reuses it together with `decodeManaged`/`encodeManaged` and `updateManaged` below.
 */
import type { KubeObject, ManagedFieldsEntry } from '../../api/types.ts';
import type { KindDescriptor } from '../rest/strategy.ts';
import { FieldSet, FieldsV1Error } from '../../schema/fieldpath.ts';
import { schemas } from '../../schema/registry.ts';
import { changedFieldsV1, compare, excludeFields, TypedError } from '../../schema/typed.ts';
import type { GroupVersionKind, TypeRef } from '../../schema/types.ts';
import { deepCopy, rfc3339 } from './serialize.ts';

/** What a create is compared with: the kind's empty object, as `update` has it. */
const CREATED_FROM: KubeObject = Object.freeze({ metadata: Object.freeze({}) }) as KubeObject;

/** kube-apiserver's DefaultMaxUpdateManagers. */
const MAX_UPDATE_MANAGERS = 10;
const ANCIENT_CHANGES = 'ancient-changes';
/** validation.FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;

/** Paths never owned by anyone (fieldmanager stripmeta.go); removed exactly, not recursively. */
export const STRIPPED = FieldSet.of(
  [{ field: 'apiVersion' }],
  [{ field: 'kind' }],
  [{ field: 'metadata' }],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    { field: 'metadata' },
    { field: f },
  ]),
);

/**
 * What a Strategy or StatusStrategy may add to declare its reset fields (kube GetResetFields) when
 * the default rule (see FieldManager.resetFields) does not fit, e.g. Pod /status also resets
 * `metadata.deletionTimestamp` and `metadata.ownerReferences`.
 */
export interface ResetFieldsStrategy {
  /** Dotted field paths the strategy resets, e.g. ['spec', 'metadata.deletionTimestamp']. */
  readonly resetFields?: readonly string[];
}

/** What a write changed (modified or added fields) and removed, in one version's field paths. */
export interface Changes {
  changed: FieldSet;
  removed: FieldSet;
}

/** One manager's entry, decoded: identity, its field set, version, Apply or Update, time. */
export interface ManagedEntry {
  /** Identity (fieldmanager BuildManagerIdentifier): entries with equal ids are one entry. */
  id: string;
  manager?: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
  set: FieldSet;
  time?: string;
}

/** Decoded managedFields, by identity (insertion order irrelevant: encoding sorts). */
export type Managed = Map<string, ManagedEntry>;

/** The identity of an entry: its JSON without fieldsType, fieldsV1, time (and apiVersion for Apply). */
export function managerId(e: { manager?: string; operation: string; apiVersion?: string; subresource?: string }): string {
  const o: Record<string, string> = {};
  if (e.manager) o.manager = e.manager;
  if (e.operation) o.operation = e.operation;
  if (e.apiVersion && e.operation !== 'Apply') o.apiVersion = e.apiVersion;
  if (e.subresource) o.subresource = e.subresource;
  return JSON.stringify(o);
}

/** Decode wire entries; throws FieldsV1Error for an invalid one (kube then ignores them all). */
export function decodeManaged(entries: unknown): Managed {
  const out: Managed = new Map();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new FieldsV1Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    const e = (raw ?? {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new FieldsV1Error('operation must be `Apply` or `Update`');
    if (typeof e.apiVersion !== 'string' || !e.apiVersion) throw new FieldsV1Error('apiVersion must not be empty');
    if (!e.fieldsType) throw new FieldsV1Error(`missing fieldsType in managed fields entry ${i}`);
    if (e.fieldsType !== 'FieldsV1') throw new FieldsV1Error(`invalid fieldsType "${e.fieldsType}" in managed fields entry ${i}`);
    const entry: ManagedEntry = {
      id: managerId({ ...e, operation: e.operation }),
      operation: e.operation,
      apiVersion: e.apiVersion,
      set: FieldSet.fromFieldsV1(e.fieldsV1 ?? {}),
    };
    if (e.manager) entry.manager = e.manager;
    if (e.subresource) entry.subresource = e.subresource;
    if (typeof e.time === 'string' && e.time) entry.time = e.time;
    out.set(entry.id, entry);
  });
  return out;
}

const seconds = (t: string | undefined): number => (t ? Math.floor(Date.parse(t) / 1000) || 0 : 0);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Encode to wire entries in kube's order; undefined when there are none. */
export function encodeManaged(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined;
  const entries = [...managed.values()].sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries.map((e) => {
    const w: ManagedFieldsEntry = {};
    if (e.manager) w.manager = e.manager;
    w.operation = e.operation;
    w.apiVersion = e.apiVersion;
    if (e.time) w.time = e.time;
    w.fieldsType = 'FieldsV1';
    w.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) w.subresource = e.subresource;
    return w;
  });
}

/** `managedFields: [{}]` or `[]` in a request: "drop all managed fields". */
function isReset(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  if (v.length === 0) return true;
  return v.length === 1 && v[0] !== null && typeof v[0] === 'object' && Object.keys(v[0] as object).every((k) => (v[0] as Record<string, unknown>)[k] === undefined);
}

/** Which managed fields a write starts from (fieldmanager decodeLiveOrNew). */
function startingManaged(live: KubeObject | null, next: KubeObject, subresource: string | undefined): Managed {
  const fromLive = (): Managed => {
    try {
      return decodeManaged(live?.metadata.managedFields);
    } catch (e) {
      if (e instanceof FieldsV1Error) return new Map();
      throw e;
    }
  };
  if (subresource) return fromLive();
  const sent = next.metadata.managedFields;
  if (isReset(sent)) return new Map();
  try {
    const m = decodeManaged(sent);
    if (m.size) return m;
  } catch (e) {
    if (!(e instanceof FieldsV1Error)) throw e;
  }
  return fromLive();
}

/**
 * The field manager of one kind (and one of its subresources, or the main resource). Holds the
 * kind's schema and the fields its strategies reset.
 */
export class FieldManager {
  /** The apiVersions this kind is served in. */
  readonly apiVersions: Set<string>;
  /** convertible() answers, by apiVersion. */
  private readonly convertibleCache = new Map<string, boolean>();
  /** The apiVersion new entries are written in (the endpoint's group/version). */
  readonly preferred: string;

  constructor(readonly kind: KindDescriptor) {
    const gv = (v: string): string => (kind.group ? `${kind.group}/${v}` : v);
    this.apiVersions = new Set(kind.versions.map(gv));
    this.preferred = gv(kind.versions[0]);
  }

  /**
   * Can an entry of this apiVersion be compared with this kind's objects? kube converts objects
   * to each manager's version and drops the managers whose version it cannot convert to: another
   * version of the same group converts (events.k8s.io v1beta1 ↔ v1), another group does not
   * (core v1 Event entries are dropped by an events.k8s.io write, and the reverse). Field names
   * are the same across the versions of a group here, so sets are compared as they are.
   */
  convertible(apiVersion: string): boolean {
    let ok = this.convertibleCache.get(apiVersion);
    if (ok === undefined) {
      const slash = apiVersion.lastIndexOf('/');
      const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
      ok = this.apiVersions.has(apiVersion) || (group === this.kind.group && this.typeOf({ group, version: apiVersion.slice(slash + 1), kind: this.kind.kind }) !== undefined);
      this.convertibleCache.set(apiVersion, ok);
    }
    return ok;
  }

  /** The kind's schema, looked up per write so a CRD whose schema changes is followed. */
  get type(): TypeRef | undefined {
    return this.typeOf({ group: this.kind.group, version: this.kind.versions[0], kind: this.kind.kind });
  }

  /** The type of a group/version/kind: the kind's own schemas first (a CRD's), then the generated ones. */
  typeOf(gvk: GroupVersionKind): TypeRef | undefined {
    return this.kind.fieldTypes?.typeOf(gvk) ?? schemas().typeOf(gvk);
  }

  /**
   * Fields the strategy of the main resource or a subresource resets, which therefore nobody
   * owns through it: kube's GetResetFields. A strategy may list them (`resetFields`, dotted
   * paths); otherwise, for kinds with a status subresource, they are `status` on the main
   * resource and other subresources and `spec` on /status (Namespace, Service, PV, PVC in 1.24).
   */
  resetFields(subresource: string | undefined): FieldSet | undefined {
    // Worked out once per subresource (strategies do not change once served).
    const key = subresource ?? '';
    if (this.resetCache.has(key)) return this.resetCache.get(key);
    const set = this.computeResetFields(subresource);
    this.resetCache.set(key, set);
    return set;
  }

  private readonly resetCache = new Map<string, FieldSet | undefined>();

  private computeResetFields(subresource: string | undefined): FieldSet | undefined {
    const strategy = (subresource ? this.kind.subresources?.find((s) => s.name === subresource)?.strategy : this.kind.strategy) as ResetFieldsStrategy | undefined;
    if (strategy?.resetFields) return FieldSet.fromPaths(strategy.resetFields.map((p) => p.split('.').map((field) => ({ field }))));
    if (!this.kind.subresources?.some((s) => s.name === 'status')) return undefined;
    return subresource === 'status' ? FieldSet.of([{ field: 'spec' }]) : FieldSet.of([{ field: 'status' }]);
  }

  /**
   * The object as kube's handler decodes the request: defaults applied and the strategy's
   * canonical form (e.g. Secret stringData folded into data), before admission and prepare.
   */
  decoded(obj: KubeObject): KubeObject {
    const view = deepCopy(obj);
    this.kind.strategy.defaults?.(view);
    this.kind.strategy.canonicalize?.(view);
    return view;
  }

  /**
   * managedFields after `manager` wrote `next` over `live` (null on create), or undefined for
   * none. `next` is the request's object (with the managedFields it carried, if any), before
   * admission and the strategy's prepare step; it is not modified. `decoded`: `next` already has
   * the strategy's defaults (Strategy.defaultsOnDecode), so no defaulted copy is made.
   */
  update(next: KubeObject, live: KubeObject | null, manager: string, now: Date, subresource?: string, decoded = false): ManagedFieldsEntry[] | undefined {
    let managed = startingManaged(live, next, subresource);
    // Tracking starts on create (or with the first apply), never on an update of an untracked object.
    if (managed.size === 0 && live) return undefined;
    const type = this.type;
    if (!type) return encodeManaged(managed);
    // compare and the create walk only read: a shallow copy leaves the sent managedFields out.
    const newObj = decoded ? { ...next, metadata: { ...next.metadata } } : this.decoded(next);
    delete newObj.metadata.managedFields;
    // A create with no managers yet: the writer owns every field the object sets, written in one walk.
    if (!live && managed.size === 0) return this.createdManaged(type, newObj, manager, now, subresource);
    // compare only reads: a shallow copy suffices to leave the live managedFields out.
    const liveObj: KubeObject = live ? { ...live, metadata: { ...live.metadata } } : { metadata: {} };
    delete liveObj.metadata.managedFields;
    try {
      managed = this.updateManaged(type, managed, liveObj, newObj, manager, now, subresource);
    } catch (e) {
      // fieldmanager UpdateNoErrors: an object the schema rejects is written without managedFields.
      if (e instanceof TypedError) return undefined;
      throw e;
    }
    return encodeManaged(managed);
  }

  /**
   * `update` of a create that starts with no managers (the usual create): what `updateManaged`
   * computes from the empty object, without building the comparison's field sets (the writer's
   * set is every field of the object, less the reset and server-owned ones).
   */
  private createdManaged(type: TypeRef, obj: KubeObject, managerName: string, now: Date, subresource: string | undefined): ManagedFieldsEntry[] | undefined {
    let fieldsV1: Record<string, unknown>;
    try {
      fieldsV1 = changedFieldsV1(CREATED_FROM, obj, type, this.resetFields(subresource), STRIPPED);
    } catch (e) {
      if (e instanceof TypedError) return undefined;
      throw e;
    }
    if (!hasKeys(fieldsV1)) return undefined;
    const w: ManagedFieldsEntry = { manager: managerName || 'unknown', operation: 'Update', apiVersion: this.preferred, time: rfc3339(now), fieldsType: 'FieldsV1', fieldsV1 };
    if (subresource) w.subresource = subresource;
    return [w];
  }

  /**
   * What a write from `live` to `next` changed (modified or added) and removed, as a manager of
   * `apiVersion` sees it: `own` in the writer's version; in another one, compared after the kind's
   * `convertVersion` (SMD's Updater converts to each manager's version); as `own` without it.
   */
  changesByVersion(live: KubeObject, next: KubeObject, ignored: FieldSet | undefined, own: Changes): (apiVersion: string) => Changes {
    const inVersion = new Map<string, Changes>([[this.preferred, own]]);
    const convert = this.kind.convertVersion;
    return (apiVersion) => {
      let c = inVersion.get(apiVersion);
      const vType = convert && !c ? this.typeOf({ group: this.kind.group, version: apiVersion.slice(apiVersion.lastIndexOf('/') + 1), kind: this.kind.kind }) : undefined;
      if (!c && convert && vType) {
        const v = excludeFields(compare(convert(live, apiVersion), convert(next, apiVersion), vType), ignored);
        c = { changed: v.modified.union(v.added), removed: v.removed };
        inVersion.set(apiVersion, c);
      }
      return c ?? own;
    };
  }

  /** The Update step on decoded entries (see `update`); server-side apply reuses it. */
  updateManaged(type: TypeRef, managed: Managed, live: KubeObject, next: KubeObject, managerName: string, now: Date, subresource: string | undefined): Managed {
    const ignored = this.resetFields(subresource);
    const cmp = excludeFields(compare(live, next, type), ignored);
    const id = managerId({ manager: managerName || 'unknown', operation: 'Update', apiVersion: this.preferred, subresource });
    const former = managed.get(id)?.set;
    const out: Managed = new Map();
    // Every other manager loses what this write changed or removed (Update always "forces"),
    // compared in the manager's version when the kind's versions differ in shape.
    const changed = cmp.modified.union(cmp.added);
    const changesIn = this.changesByVersion(live, next, ignored, { changed, removed: cmp.removed });
    for (const [k, e] of managed) {
      // A manager of a version this server cannot convert to is dropped (SMD: missing version).
      if (!this.convertible(e.apiVersion)) continue;
      const c = changesIn(e.apiVersion);
      const set = e.set.difference(e.set.intersection(c.changed)).difference(c.removed);
      if (!set.isEmpty()) out.set(k, { ...e, set });
    }
    let mine = changed.difference(cmp.removed);
    if (ignored) mine = mine.recursiveDifference(ignored);
    mine = mine.difference(STRIPPED);
    if (!mine.isEmpty()) {
      const previous = out.get(id);
      const set = previous ? mine.union(previous.set) : mine;
      const entry: ManagedEntry = { id, manager: managerName || 'unknown', operation: 'Update', apiVersion: this.preferred, set };
      if (subresource) entry.subresource = subresource;
      // kube keeps an entry's time even while its fields are gone; it changes with the set only.
      const time = !former || !former.equals(set) ? rfc3339(now) : managed.get(id)?.time;
      if (time) entry.time = time;
      out.set(id, entry);
    }
    return capUpdateManagers(out);
  }
}

/** Merge the oldest Update entries into `ancient-changes` until at most 10 remain (capmanagers.go). */
export function capUpdateManagers(managed: Managed): Managed {
  const updaters = [...managed.values()].filter((e) => e.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managed;
  updaters.sort((a, b) => seconds(a.time) - seconds(b.time) || cmp(a.id, b.id));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
    const e = updaters[i];
    const bucketId = managerId({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: e.apiVersion });
    const first = firstOfVersion.get(e.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(e.apiVersion, e.id);
      continue;
    }
    if (!managed.has(bucketId)) {
      const f = managed.get(first)!;
      managed.delete(first);
      managed.set(bucketId, { ...f, id: bucketId, manager: ANCIENT_CHANGES, operation: 'Update', subresource: undefined });
    }
    const bucket = managed.get(bucketId)!;
    managed.set(bucketId, { ...bucket, set: e.set.union(bucket.set), time: e.time });
    managed.delete(e.id);
    length--;
  }
  return managed;
}

/**
 * The default field manager name from a User-Agent (handlers/create.go prefixFromUserAgent):
 * the text before the first '/', without non-printable characters, at most 128 bytes; "unknown"
 * when that leaves nothing (kube names such entries "unknown" when it writes them).
 */
export function defaultManager(userAgent: string | undefined): string {
  const prefix = (userAgent ?? '').split('/')[0]!;
  // Printable ASCII (every real client's name) is kept as it is: one test, not one per character.
  if (prefix.length <= FIELD_MANAGER_MAX_LENGTH && /^[\x20-\x7e]+$/.test(prefix)) return prefix;
  let out = '';
  for (const ch of prefix) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out || 'unknown';
}

function hasKeys(o: object): boolean {
  for (const k in o) if (Object.hasOwn(o, k)) return true;
  return false;
}

/** Set or clear an object's managedFields. */
export function setManagedFields(obj: KubeObject, entries: ManagedFieldsEntry[] | undefined): void {
  if (entries) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}
