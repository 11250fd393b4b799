/**
 * The generic store's common part (store.ts): its state, reads of the latest object, the write of
 * one intent and the helpers every verb shares. The verbs build on it: store-create.ts,
 * store-update.ts (update, patch, apply), store.ts (delete; GenericStore).
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { ApiError, badRequest, conflict, failure, notFound } from '../../api/errors.ts';
import { kindAt, type FinishFunc, type KindDescriptor, type SubresourceDescriptor, type VirtualKind, type WriteHooks } from '../rest/strategy.ts';
import type { Storage, WriteIntent, ObjectKey, Verdict } from '../../storage/storage.ts';
import type { Admission, AdmissionAttributes, AdmissionOperation } from '../rest/admission.ts';
import { nameIsDNS1035Label, nameIsPathSegment, nameIsDNSLabel, nameIsDNSSubdomain, type NameValidator } from '../../validation/names.ts';
import type { RequestContext } from './context.ts';
import { storageFailure } from './errors.ts';
import { parseObject, serializeForLog, withResourceVersion } from './serialize.ts';
import { etcdRefusal } from './etcd-limits.ts';
import { goJson, isObj } from '../../gocompat/json.ts';
import { jsonEqual, jsonEqualExcept } from '../../gocompat/equal.ts';
import { FieldManager } from './managed-fields.ts';
import type { ManagedFieldsEntry } from '../../api/types.ts';
import { KeyLock } from './key-lock.ts';
import { convertStored, storageCodec, type StorageCodec } from './view.ts';
import { decodeRequestBody, canonicalObject, type FieldValidation } from '../../decode/body.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';

/**
 * The largest stored object: etcd's default --max-request-bytes (1.5 MiB), which bounds every
 * write kube-apiserver sends it. Measured here on the stored JSON (kube stores Protobuf for
 * built-in kinds, a little smaller, so objects within a few percent of the limit may differ).
 */
export { MAX_OBJECT_BYTES } from './etcd-limits.ts';

/**
 * An unconditional write that lost a race re-reads and retries, as etcd3's GuaranteedUpdate does
 * (without a count limit there); in one process the key lock makes such races rare, so this bound
 * only matters across replicas, where it is a generous cap with a deadline behind it.
 */
export const MAX_CONFLICT_RETRIES = 1000;
/** Give up retrying after this long (the client's request timeout is about this). */
export const RETRY_DEADLINE_MS = 30_000;
/** generateName collisions retried before answering 409 (5 random chars: ~1 in 14M each). */
export const MAX_GENERATE_NAME_RETRIES = 8;
/** generateName's suffix characters (apimachinery's utilrand alphabet: no vowels, no look-alikes). */
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** The name check of each KindDescriptor.nameFormat. */
export const NAME_VALIDATORS: Record<NonNullable<KindDescriptor['nameFormat']>, NameValidator> = {
  subdomain: nameIsDNSSubdomain,
  label: nameIsDNSLabel,
  dns1035: nameIsDNS1035Label,
  pathSegment: nameIsPathSegment,
};
/** FinishFunc of a kind without hooks. */
export const finishNothing: FinishFunc = async () => undefined;

/** DeleteOptions of a DELETE request (body or query), as the store reads them. */
export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
}

/** What a write verb answers. */
export interface WriteResult {
  /** Response body bytes (stored JSON, or the computed object for dry-run). */
  body: Buffer;
  /** HTTP status: 201 for create, 200 otherwise. */
  code: number;
  warnings: string[];
}

/**
 * Another served kind's store and reader (the registry's lookup by group/version/resource): what
 * a subresource reaches as kube's loopback clients do (SubresourceCreateContext.peer).
 */
export type PeerLookup = (
  group: string,
  version: string,
  resource: string,
) =>
  | {
      store: { update(ctx: RequestContext, namespace: string, name: string, body: KubeObject, subresourceName?: string): Promise<WriteResult> };
      reader: { list(namespace: string, q: Record<string, never>, version?: string): Promise<{ items: Buffer[] }>; get(namespace: string, name: string, resourceVersion?: string, version?: string): Promise<Buffer> };
    }
  | undefined;

/** Builds the new object of an update from the current one. */
export type Mutation = (current: KubeObject) => KubeObject | Promise<KubeObject>;

/** How one update/patch request reads, changes and guards the object. */
export interface UpdatePlan {
  /** The subresource written, if any (its strategy replaces the main one). */
  sub: SubresourceDescriptor | undefined;
  /**
   * The client's resourceVersion precondition, as written in the body: parsed once the object is
   * known to exist (500 when unparsable, "0" = none); a mismatch is a 409, never retried.
   */
  wantRv: string | undefined;
  /** Builds the new object from (a fresh copy of) the current one, on every attempt. */
  mutate: Mutation;
  /**
   * `mutate` builds the new object without looking at the current one (PUT): it is handed the
   * current object itself, not a copy, and must neither keep nor change it.
   */
  ignoresCurrent?: boolean;
  /** The API verb recorded in the log event. */
  verb: string;
  /** What to do when the object does not exist (PUT may create), or null for 404. */
  createInstead: (() => Promise<WriteResult> | null) | null;
  /**
   * An update of an existing object must carry a (non-zero) resourceVersion: kinds that do not
   * allow unconditional updates. Checked once the object is known to exist, as kube does.
   */
  requireResourceVersion?: boolean;
  /**
   * The uid a PUT body carries: a storage precondition, checked before anything else, even when
   * the object does not exist (rest.defaultUpdatedObjectInfo.Preconditions). Patches have none
   * (a changed uid there fails validation as immutable).
   */
  uidPrecondition?: string;
  /** A precondition discovered by `mutate` (a resourceVersion inside a patch). */
  dynamicPrecondition?: () => string | undefined;
  /**
   * managedFields `mutate` computed itself (server-side apply); the Update field manager runs
   * when absent.
   */
  managedFields?: () => ManagedFieldsEntry[] | undefined;
}

/** One attempt of an update: the object read, the one built from it, and whether a lost race may retry. */
export interface UpdateAttempt {
  next: KubeObject;
  current: KubeObject;
  currentBytes: Buffer;
  now: Date;
  /** managedFields computed on the request's object, before admission and prepare. */
  managedFields: ReturnType<FieldManager['update']>;
  canRetry: () => boolean;
}

/**
 * The generic store's common part: the kind, its storage, admission and hooks; reads of the
 * latest object; the write of one intent (write) and the helpers of every verb. Not used alone:
 * GenericStore (store.ts) is the store.
 */
export abstract class StoreBase {
  /** DELETE (store.ts); the eviction subresource's create deletes too. */
  abstract delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<WriteResult>;

  readonly gr: { group: string; resource: string };
  readonly apiVersion: string;
  protected readonly locks = new KeyLock();
  protected readonly fields: FieldManager;
  private readonly fieldsByVersion = new Map<string, FieldManager>();
  /** Storage keys and the conversion of stored objects (identity unless the kind is a view). */
  readonly codec: StorageCodec;

  constructor(
    readonly kind: KindDescriptor,
    protected readonly storage: Storage,
    protected readonly admission: Admission,
    protected readonly hooks: WriteHooks = {},
    protected readonly virtual?: VirtualKind,
    protected readonly gates: FeatureGates = DEFAULT_GATES,
    protected readonly peers: PeerLookup = () => undefined,
  ) {
    if (!kind.resource || !kind.kind || !kind.versions.length) throw new Error(`kind descriptor for "${kind.resource}" is incomplete`);
    if (!kind.strategy?.validate || !kind.strategy.validateUpdate) throw new Error(`kind "${kind.resource}" has no validating strategy`);
    this.gr = { group: kind.group, resource: kind.resource };
    this.apiVersion = kind.group ? `${kind.group}/${kind.versions[0]}` : kind.versions[0];
    this.fields = new FieldManager(kind);
    this.codec = storageCodec(kind);
  }

  /**
   * The field manager of the request's version: a kind served in several versions records
   * managedFields (and takes apply patches) in the version the request addressed, as kube's
   * per-version handlers do; other kinds have one.
   */
  protected fieldsFor(ctx: RequestContext): FieldManager {
    const v = ctx.apiVersion;
    if (!this.kind.conversion || !v || v === this.kind.versions[0] || !this.kind.versions.includes(v)) return this.fields;
    let f = this.fieldsByVersion.get(v);
    if (!f) this.fieldsByVersion.set(v, (f = new FieldManager({ ...this.kind, versions: [v, ...this.kind.versions.filter((x) => x !== v)] })));
    return f;
  }

  key(namespace: string, name: string): ObjectKey {
    return { group: this.codec.group, resource: this.codec.resource, namespace: this.kind.namespaced ? namespace : '', name };
  }

  /**
   * Latest stored bytes of one object (in this kind's shape), or null. `version`: the request's,
   * for a kind with a VersionConversion (the object is given at that version).
   */
  protected async readLatest(namespace: string, name: string, version?: string): Promise<Buffer | null> {
    const read = () =>
      this.storage.get(this.key(namespace, name)).catch((e) => {
        throw storageFailure(e);
      });
    let b = await read();
    // Not here yet may mean not folded here yet: a Kafka replica catches up with the log's end
    // before it answers 404 (etcd reads are linearizable; a write on replica A followed by an
    // update on replica B must find the object). An embedded log is always caught up.
    if (!b) {
      await this.storage.latest().catch((e) => {
        throw storageFailure(e);
      });
      b = await read();
    }
    if (b && version && this.kind.conversion) return (await convertStored(this.kind.conversion, [b], version))[0];
    return b ? this.codec.decode(b) : null;
  }

  /**
   * The last state a delete records for `current` (read at the request's version): the object as
   * stored, without its resourceVersion. A kind served in several versions takes it from storage
   * again (under the key lock: the same version), so watchers get what was stored, not a round
   * trip through the request's version (kube's DELETED event carries the stored object).
   */
  protected async lastState(namespace: string, name: string, current: KubeObject): Promise<KubeObject> {
    let last = current;
    if (this.kind.conversion) {
      const raw = await this.readLatest(namespace, name);
      const stored = raw && parseObject(raw);
      if (stored && stored.metadata.resourceVersion === current.metadata.resourceVersion) last = stored;
    }
    const copy = structuredClone(last);
    delete copy.metadata.resourceVersion;
    return copy;
  }

  /** Latest stored bytes of one object (in this kind's shape, at `version`: see readLatest), or 404. */
  async getLatest(namespace: string, name: string, version?: string): Promise<Buffer> {
    const b = await this.readLatest(namespace, name, version);
    if (!b) throw notFound(this.gr, name);
    return b;
  }

  /** The subresource `name` of this kind at `version` (the request's: see kindAt), or 404. */
  protected subresource(name: string | undefined, version?: string): SubresourceDescriptor | undefined {
    if (!name) return undefined;
    const s = kindAt(this.kind, version).subresources?.find((x) => x.name === name);
    if (!s) throw notFound(this.gr, name);
    return s;
  }

  // ---------------------------------------------------------------- helpers

  protected async write(ctx: RequestContext, op: 'CREATE' | 'UPDATE' | 'DELETE', given: KubeObject, expectRv: number | null, name: string, namespace: string, verb: string): Promise<Verdict> {
    // A kind served in several versions stores its objects in its storage version (the caller's
    // object stays as it is), and answers in the request's. A delete's last state is not encoded
    // again (kube deletes the key; readers convert whatever version an object carries).
    const conversion = this.kind.conversion;
    const storedAt = conversion ? `${this.kind.group}/${conversion.storageVersion}` : '';
    let obj = conversion && op !== 'DELETE' && given.apiVersion !== storedAt ? await conversion.toStorage(structuredClone(given)) : given;
    const intent: WriteIntent = {
      op,
      group: this.codec.group,
      resource: this.codec.resource,
      namespace: this.kind.namespaced ? namespace : '',
      name,
      expectRv,
      expectUid: op === 'CREATE' ? null : obj.metadata.uid ?? null,
      requireActiveNamespace: op === 'CREATE' && this.kind.namespaced,
      uid: obj.metadata.uid ?? '',
      deleting: Boolean(obj.metadata.deletionTimestamp),
      object: serializeForLog(this.codec.encode(obj), (o) => this.canonical(o)),
      time: Date.now(),
      verb,
      user: ctx.user.username,
      groups: ctx.user.groups,
      fieldManager: ctx.fieldManager ?? null,
      userAgent: ctx.userAgent ?? null,
      requestId: ctx.requestId,
    };
    // etcd's limits as kube-apiserver meets them: a plain 500, nothing written (etcd-limits.ts);
    // a create or update is tried once more without its managedFields, as kube's handlers do.
    if (intent.object) {
      const check = (bytes: number) => etcdRefusal({ bytes, rev: expectRv, customResourceKey: this.kind.customResource ? `/registry/${intent.group}/${intent.resource}/${intent.namespace ? `${intent.namespace}/` : ''}${name}` : undefined });
      let refused = check(intent.object.length);
      if (refused && op !== 'DELETE' && obj.metadata.managedFields) {
        const { managedFields: _, ...metadata } = obj.metadata;
        obj = { ...obj, metadata };
        intent.object = serializeForLog(this.codec.encode(obj), (o) => this.canonical(o));
        refused = check(intent.object.length);
      }
      if (refused) throw refused;
    }
    let verdict: Verdict;
    try {
      verdict = await this.storage.write(intent);
    } catch (e) {
      throw storageFailure(e);
    }
    if (verdict.accepted && conversion && ctx.apiVersion && obj.apiVersion !== `${this.kind.group}/${ctx.apiVersion}`) {
      return { ...verdict, object: (await convertStored(conversion, [verdict.object], ctx.apiVersion))[0] };
    }
    return verdict.accepted && this.codec.isView ? { ...verdict, object: this.codec.decode(verdict.object) } : verdict;
  }

  /**
   * What a dry run answers: the object at resourceVersion `rv` — for a kind served in several
   * versions, as the write would store it, read back at the request's version (kube's dry-run
   * storage encodes and decodes the object as a real write does).
   */
  protected async dryRunBody(ctx: RequestContext, obj: KubeObject, rv: string | undefined): Promise<Buffer> {
    const conversion = this.kind.conversion;
    // A view answers its stored form read back, as a real write's answer is.
    const stored = (o: KubeObject): KubeObject => (this.codec.isView ? this.codec.view(this.canonical(this.codec.encode(o))) : this.canonical(o));
    if (!conversion || !ctx.apiVersion) return Buffer.from(goJson(withResourceVersion(stored(obj), rv)));
    const storedAt = `${this.kind.group}/${conversion.storageVersion}`;
    const inStorage = obj.apiVersion === storedAt ? obj : await conversion.toStorage(structuredClone(obj));
    const bytes = Buffer.from(goJson(withResourceVersion(this.canonical(inStorage), rv)));
    return inStorage.apiVersion === `${this.kind.group}/${ctx.apiVersion}` ? bytes : (await convertStored(conversion, [bytes], ctx.apiVersion))[0];
  }

  /**
   * A failed uid precondition, worded as etcd3's storage.NewInvalidObjError reaches the client:
   * the storage key is kube's default etcd key (without the /registry prefix on a dry run, whose
   * storage is not the etcd one) and ResourceVersion is always 0.
   */
  protected uidPreconditionFailed(ctx: RequestContext, namespace: string, name: string, want: string, actual: string): ApiError {
    const key = `${ctx.dryRun ? '' : '/registry'}/${this.kind.resource}/${this.kind.namespaced ? `${namespace}/` : ''}${name}`;
    const why = `Precondition failed: UID in precondition: ${want}, UID in object meta: ${actual}`;
    return conflict(this.gr, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${why}`);
  }

  protected conflictErr(name: string): ApiError {
    return conflict(this.gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }

  protected attrs(operation: AdmissionOperation, ctx: RequestContext, namespace: string, name: string, object: KubeObject | null, oldObject: KubeObject | null, subresource = '', deleteOpts?: DeleteOptions): AdmissionAttributes {
    return {
      operation,
      kind: this.kind,
      subresource,
      namespace,
      name,
      object,
      oldObject,
      user: ctx.user,
      dryRun: ctx.dryRun,
      version: ctx.apiVersion,
      options: admissionOptions(operation, ctx, deleteOpts),
      // kube's warning recorder keeps one copy of each text.
      warn: ctx.warnings ? (w) => void (ctx.warnings!.includes(w) || ctx.warnings!.push(w)) : undefined,
      annotate: ctx.annotate,
    };
  }

  /**
   * The object as Go encodes it (field order, omitempty), after the server changed it; by the
   * object's own apiVersion/kind (a view's storage form is encoded as the storage kind).
   */
  protected canonical(obj: KubeObject): KubeObject {
    const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : this.apiVersion;
    const slash = av.lastIndexOf('/');
    return canonicalObject(obj, { group: slash >= 0 ? av.slice(0, slash) : '', version: av.slice(slash + 1), kind: typeof obj.kind === 'string' ? obj.kind : this.kind.kind });
  }

  /**
   * The decode step and the checks every decoded body must pass (400 otherwise): TypeMeta
   * matching the endpoint (filled in when absent, as the decoder defaults it), the body decoded
   * into the kind's Go shape (internal/decode: unknown fields dropped, wrong types refused with
   * Go's message), name and namespace agreeing with the URL. fieldValidation applies only with
   * the ServerSideFieldValidation gate (1.24: alpha, off — the parameter is ignored); Warn adds
   * one warning per unknown or duplicate field to `warnings`.
   */
  checkBody(body: KubeObject, namespace: string, urlName: string | undefined, ctx?: RequestContext, warnings?: string[]): KubeObject {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
    const validation: FieldValidation = this.gates.enabled('ServerSideFieldValidation') ? ctx?.fieldValidation ?? 'Warn' : 'Ignore';
    const decoded = decodeRequestBody(body, this.kind, validation);
    if (validation === 'Warn') warnings?.push(...decoded.warnings);
    const obj = decoded.object as KubeObject;
    // A kind served in several versions takes a body of the request's version only (kube's
    // unstructured decoder for custom resources does not convert a request body).
    const conversion = this.kind.conversion;
    if (conversion && ctx?.apiVersion && body.apiVersion && obj.apiVersion !== `${this.kind.group}/${ctx.apiVersion}`) {
      throw badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${this.kind.group}/${ctx.apiVersion})`);
    }
    if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
    const m = obj.metadata;
    for (const f of ['name', 'namespace', 'generateName', 'resourceVersion', 'uid'] as const) {
      if (m[f] !== undefined && m[f] !== null && typeof m[f] !== 'string') throw badRequest(`metadata.${f} must be a string`);
      if (m[f] === null) delete m[f];
    }
    if (urlName !== undefined && m.name && m.name !== urlName) {
      throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${urlName})`);
    }
    if (urlName !== undefined && !m.name) m.name = urlName;
    if (this.kind.namespaced) {
      if (m.namespace && m.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    } else if (m.namespace) {
      // Cluster-scoped kinds ignore a namespace in the body, as kube-apiserver does.
      delete m.namespace;
    }
    return obj;
  }
}

/**
 * A resourceVersion written in an object, parsed as kube's APIObjectVersioner does
 * (strconv.ParseUint): 0 for "no version"; anything unparsable is a plain error there, so a 500
 * without a reason here.
 */
export function objectResourceVersion(rv: string): number {
  const why = !/^\d+$/.test(rv) ? 'invalid syntax' : BigInt(rv) > 2n ** 64n - 1n ? 'value out of range' : '';
  if (why) throw new ApiError(failure(500, undefined, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`));
  return Number(rv);
}

/**
 * The options object an admission webhook is sent (AdmissionRequest.options): the request's
 * CreateOptions, UpdateOptions or DeleteOptions with the fields it set (metav1 field order).
 */
export function admissionOptions(operation: AdmissionOperation, ctx: RequestContext, del?: DeleteOptions): Record<string, unknown> {
  const kind = operation === 'CREATE' ? 'CreateOptions' : operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const o: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (del) {
    if (del.gracePeriodSeconds !== undefined) o.gracePeriodSeconds = del.gracePeriodSeconds;
    if (del.preconditions) o.preconditions = del.preconditions;
    if (del.orphanDependents !== undefined) o.orphanDependents = del.orphanDependents;
    if (del.propagationPolicy) o.propagationPolicy = del.propagationPolicy;
  }
  if (ctx.dryRun) o.dryRun = ['All'];
  if (!del && ctx.fieldManagerParam) o.fieldManager = ctx.fieldManagerParam;
  return o;
}

/** Jittered backoff between conflict retries: none for the first two, then up to 2^n ms (≤ 100). */
export function backoff(attempt: number): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const ms = Math.random() * Math.min(100, 2 ** attempt);
  return new Promise((r) => setTimeout(r, ms));
}

/** A generateName suffix: 5 random characters. */
export function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += GENERATE_ALPHABET[randomInt(GENERATE_ALPHABET.length)];
  return s;
}

/** An object without metadata and status (what a status update must not change). */
export const specOf = (o: KubeObject): unknown => {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
};

/** Compare objects for no-op detection: ignore managedFields timestamps and resourceVersion. */
export function stripVolatile(o: KubeObject): unknown {
  const { managedFields, resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: { ...meta, managedFields: managedFields?.map(({ time: _t, ...e }) => e) } };
}

const METADATA = new Set(['metadata']);
const VOLATILE_META = new Set(['resourceVersion', 'managedFields']);
const ENTRY_TIME = new Set(['time']);

/**
 * `jsonEqual(stripVolatile(a), stripVolatile(b))` without building the two copies: the members
 * other than metadata first (where an update's change usually is), then metadata without
 * resourceVersion, then the managedFields entries without their time.
 */
export function sameButVolatile(a: KubeObject, b: KubeObject): boolean {
  const ma = a.metadata as Record<string, unknown> | undefined;
  const mb = b.metadata as Record<string, unknown> | undefined;
  const fa = ma?.managedFields;
  const fb = mb?.managedFields;
  const entries = (f: unknown): boolean => f === undefined || f === null || (Array.isArray(f) && f.every(isObj));
  // Shapes stripVolatile does not take (it would throw) are left to it.
  if (!isObj(ma) || !isObj(mb) || !entries(fa) || !entries(fb)) return jsonEqual(stripVolatile(a), stripVolatile(b));
  if (!jsonEqualExcept(a as unknown as Record<string, unknown>, b as unknown as Record<string, unknown>, METADATA) || !jsonEqualExcept(ma, mb, VOLATILE_META)) return false;
  const la = fa as Record<string, unknown>[] | null | undefined;
  const lb = fb as Record<string, unknown>[] | null | undefined;
  if (!la || !lb) return !la && !lb;
  return la.length === lb.length && la.every((e, i) => jsonEqualExcept(e, lb[i], ENTRY_TIME));
}

