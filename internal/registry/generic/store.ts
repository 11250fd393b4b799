/**
 * The one generic store: create, update, patch, delete and deletecollection for every kind.
 * Kind behaviour comes only from the KindDescriptor/Strategy; this file never branches on kind.
 *
 * Writes follow kube-apiserver's GuaranteedUpdate shape on top of the log: read the current
 * object, prepare the new one (strategy, validation, admission), append an intent that expects
 * the version we read, and wait for the fold's verdict. A Conflict verdict on a request that did
 * not itself carry a resourceVersion means "someone wrote in between": read again and retry.
 */
import { randomUUID, randomInt } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, GoValue } from '../../api/field-errors.ts';
import { ApiError, alreadyExists, badRequest, conflict, failure, invalid, notFound, methodNotAllowed, deletePreconditionFailed, deleteSuccess } from '../../api/errors.ts';
import type { FinishFunc, KindDescriptor, StatusStrategy, SubresourceDescriptor, VirtualKind, WriteHooks } from '../rest/strategy.ts';
import type { Storage, WriteIntent, ObjectKey, Verdict } from '../../storage/storage.ts';
import type { Admission, AdmissionAttributes, AdmissionOperation } from '../rest/admission.ts';
import { validateObjectMeta, validateObjectMetaUpdate, prepareObjectMetaForUpdate } from '../../validation/objectmeta.ts';
import { nameIsDNS1035Label, nameIsPathSegment, nameIsDNSLabel, nameIsDNSSubdomain, type NameValidator } from '../../validation/names.ts';
import type { RequestContext } from './context.ts';
import { rejection, storageFailure } from './errors.ts';
import { serializeForLog, goJson, withResourceVersion, parseObject, rfc3339, jsonEqual, deepCopy } from './serialize.ts';
import { FieldManager, setManagedFields } from './managed-fields.ts';
import { serverSideApply } from './apply.ts';
import type { ManagedFieldsEntry } from '../../api/types.ts';
import { applyPatch, patchedUndecodable, type PatchType } from './patch.ts';
import { KeyLock } from './key-lock.ts';
import { deletionFinalizers, gracefulDeletion, lifecycleDeletionFinalizers, markAsDeleting, setFinalizers } from './deletion.ts';
import { objectPath } from '../../storage/storage.ts';
import { storageCodec, type StorageCodec } from './view.ts';
import { decodeRequestBody, canonicalObject, BodyDecodeError, type FieldValidation } from '../../decode/body.ts';
import { DEFAULT_GATES, type FeatureGates } from '../../features/gates.ts';

/**
 * The largest stored object: etcd's default --max-request-bytes (1.5 MiB), which bounds every
 * write kube-apiserver sends it. Measured here on the stored JSON (kube stores Protobuf for
 * built-in kinds, a little smaller, so objects within a few percent of the limit may differ).
 */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

/**
 * An unconditional write that lost a race re-reads and retries, as etcd3's GuaranteedUpdate does
 * (without a count limit there); in one process the key lock makes such races rare, so this bound
 * only matters across replicas, where it is a generous cap with a deadline behind it.
 */
const MAX_CONFLICT_RETRIES = 1000;
/** Give up retrying after this long (the client's request timeout is about this). */
const RETRY_DEADLINE_MS = 30_000;
/** generateName collisions retried before answering 409 (5 random chars: ~1 in 14M each). */
const MAX_GENERATE_NAME_RETRIES = 8;
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const NAME_VALIDATORS: Record<NonNullable<KindDescriptor['nameFormat']>, NameValidator> = {
  subdomain: nameIsDNSSubdomain,
  label: nameIsDNSLabel,
  dns1035: nameIsDNS1035Label,
  pathSegment: nameIsPathSegment,
};
/** FinishFunc of a kind without hooks. */
const finishNothing: FinishFunc = async () => undefined;

export interface DeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
}

export interface WriteResult {
  /** Response body bytes (stored JSON, or the computed object for dry-run). */
  body: Buffer;
  /** HTTP status: 201 for create, 200 otherwise. */
  code: number;
  warnings: string[];
}

type Mutation = (current: KubeObject) => KubeObject;

/** How one update/patch request reads, changes and guards the object. */
interface UpdatePlan {
  /** The subresource written, if any (its strategy replaces the main one). */
  sub: SubresourceDescriptor | undefined;
  /**
   * The client's resourceVersion precondition, as written in the body: parsed once the object is
   * known to exist (500 when unparsable, "0" = none); a mismatch is a 409, never retried.
   */
  wantRv: string | undefined;
  /** Builds the new object from (a fresh copy of) the current one, on every attempt. */
  mutate: Mutation;
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
interface UpdateAttempt {
  next: KubeObject;
  current: KubeObject;
  currentBytes: Buffer;
  now: Date;
  /** managedFields computed on the request's object, before admission and prepare. */
  managedFields: ReturnType<FieldManager['update']>;
  canRetry: () => boolean;
}

export class GenericStore {
  readonly gr: { group: string; resource: string };
  readonly apiVersion: string;
  private readonly locks = new KeyLock();
  private readonly fields: FieldManager;
  /** Storage keys and the conversion of stored objects (identity unless the kind is a view). */
  readonly codec: StorageCodec;

  constructor(
    readonly kind: KindDescriptor,
    private readonly storage: Storage,
    private readonly admission: Admission,
    private readonly hooks: WriteHooks = {},
    private readonly virtual?: VirtualKind,
    private readonly gates: FeatureGates = DEFAULT_GATES,
  ) {
    if (!kind.resource || !kind.kind || !kind.versions.length) throw new Error(`kind descriptor for "${kind.resource}" is incomplete`);
    if (!kind.strategy?.validate || !kind.strategy.validateUpdate) throw new Error(`kind "${kind.resource}" has no validating strategy`);
    this.gr = { group: kind.group, resource: kind.resource };
    this.apiVersion = kind.group ? `${kind.group}/${kind.versions[0]}` : kind.versions[0];
    this.fields = new FieldManager(kind);
    this.codec = storageCodec(kind);
  }

  key(namespace: string, name: string): ObjectKey {
    return { group: this.codec.group, resource: this.codec.resource, namespace: this.kind.namespaced ? namespace : '', name };
  }

  /** Latest stored bytes of one object (in this kind's shape), or null. */
  private async readLatest(namespace: string, name: string): Promise<Buffer | null> {
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
    return b ? this.codec.decode(b) : null;
  }

  /** Latest stored bytes of one object (in this kind's shape), or 404. */
  async getLatest(namespace: string, name: string): Promise<Buffer> {
    const b = await this.readLatest(namespace, name);
    if (!b) throw notFound(this.gr, name);
    return b;
  }

  private subresource(name: string | undefined): SubresourceDescriptor | undefined {
    if (!name) return undefined;
    const s = this.kind.subresources?.find((x) => x.name === name);
    if (!s) throw notFound(this.gr, name);
    return s;
  }

  // ---------------------------------------------------------------- create

  async create(ctx: RequestContext, namespace: string, body: KubeObject): Promise<WriteResult> {
    const decodeWarnings: string[] = [];
    const obj = this.checkBody(body, namespace, undefined, ctx, decodeWarnings);
    if (decodeWarnings.length) {
      const r = await this.createDecoded(ctx, namespace, obj);
      return { ...r, warnings: [...decodeWarnings, ...r.warnings] };
    }
    return this.createDecoded(ctx, namespace, obj);
  }

  private async createDecoded(
    ctx: RequestContext,
    namespace: string,
    obj: KubeObject,
    applied?: { managedFields: ManagedFieldsEntry[] | undefined; viaSubresource?: boolean },
  ): Promise<WriteResult> {
    const meta = obj.metadata;
    // kube manages fields on the decoded request, before generateName, admission and prepare
    // (an apply that creates the object brings the ones the apply computed).
    setManagedFields(obj, applied ? applied.managedFields : this.fields.update(obj, null, ctx.fieldManager, new Date()));
    if (this.virtual) return this.createVirtual(this.virtual, ctx, namespace, obj);
    if (!meta.name && meta.generateName && typeof meta.generateName === 'string') {
      for (let attempt = 0; ; attempt++) {
        const candidate = deepCopy(obj);
        // kube-apiserver keeps generated names within 63 characters: base ≤ 58 + 5 random.
        candidate.metadata.name = meta.generateName.slice(0, 58) + randomSuffix();
        try {
          return await this.createPrepared(ctx, namespace, candidate);
        } catch (e) {
          if (!(e instanceof ApiError) || e.reason !== 'AlreadyExists' || attempt >= MAX_GENERATE_NAME_RETRIES) throw e;
        }
      }
    }
    return this.createPrepared(ctx, namespace, obj, applied?.viaSubresource);
  }

  /**
   * A virtual kind's create (kube's REST.Create of a storage-less rest.Creater): the object,
   * decoded, checked and with its managedFields, goes to the kind and its answer comes back as
   * the 201 body. No admission (kube's NamespaceLifecycle exempts the access reviews, the only
   * virtual kinds yet), no append: dry run answers the same.
   */
  private async createVirtual(virtual: VirtualKind, ctx: RequestContext, namespace: string, obj: KubeObject): Promise<WriteResult> {
    // kube's EnsureObjectNamespaceMatchesRequestNamespace: the URL's namespace fills an empty one.
    if (this.kind.namespaced) obj.metadata.namespace = namespace;
    const out = await virtual.create({ user: ctx.user, namespace, dryRun: ctx.dryRun }, obj);
    return { body: Buffer.from(JSON.stringify(out)), code: 201, warnings: [] };
  }

  /**
   * `noHooks`: a create through a subresource (an apply on the /status of a missing object of a
   * kind whose updates may create) runs no write hooks: kube's subresource stores are copies of
   * the main store taken before its BeginCreate hook is set (a Service created so gets no IPs).
   */
  private async createPrepared(ctx: RequestContext, namespace: string, obj: KubeObject, noHooks = false): Promise<WriteResult> {
    const now = new Date();
    const meta = obj.metadata;
    const strategy = this.kind.strategy;
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(now);
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.kind.hasGeneration) meta.generation = 1;
    else delete meta.generation;
    if (this.kind.namespaced) meta.namespace = namespace;
    await this.admission.admit(this.attrs('CREATE', ctx, namespace, meta.name ?? '', obj, null));
    strategy.defaults?.(obj);
    // Hooks run before prepare and validation, as kube's BeginCreate does; undone unless accepted.
    const finish = (noHooks ? undefined : await this.hooks.beginCreate?.(obj, ctx.dryRun)) ?? finishNothing;
    let accepted = false;
    try {
      strategy.prepareForCreate?.(obj);
      this.validateCreate(obj);
      strategy.canonicalize?.(obj);
      await this.admission.validate(this.attrs('CREATE', ctx, namespace, meta.name ?? '', obj, null));
      const warnings = strategy.warnings?.(obj) ?? [];
      if (ctx.dryRun) {
        // A dry run answers what the real request would: the fold's existence check included
        // (kube's dry-run storage reads the key and fails with AlreadyExists the same way).
        const existing = await this.storage.get(this.key(namespace, meta.name!)).catch((e) => {
          throw storageFailure(e);
        });
        if (existing) throw alreadyExists(this.gr, meta.name!);
        return { body: Buffer.from(goJson(withResourceVersion(this.canonical(obj), undefined))), code: 201, warnings };
      }
      const verdict = await this.write(ctx, 'CREATE', obj, null, meta.name!, namespace, 'create');
      if (!verdict.accepted) {
        const err = rejection(verdict, this.gr, meta.name!, namespace);
        // Store.Create: an AlreadyExists for an object that is being deleted (a Terminating
        // namespace, say) says so.
        if (verdict.reason === 'AlreadyExists' && this.storage.entry(this.key(namespace, meta.name!))?.deleting) {
          err.status.message = `object is being deleted: ${err.status.message}`;
        }
        throw err;
      }
      accepted = true;
      return { body: verdict.object, code: 201, warnings };
    } finally {
      await finish(accepted);
    }
  }

  private validateCreate(obj: KubeObject): void {
    const errs: FieldError[] = [
      ...validateObjectMeta(obj.metadata, this.kind.namespaced, NAME_VALIDATORS[this.kind.nameFormat ?? 'subdomain']),
      ...this.kind.strategy.validate(obj),
    ];
    // kube names the stored kind in 422s (a view's errors read `Event "x"`, not `Event.events.k8s.io`).
    if (errs.length) throw invalid(this.kind.kind, this.codec.group, obj.metadata.name ?? obj.metadata.generateName ?? '', errs);
  }

  /**
   * POST on a subresource (kube's rest.NamedCreater storages, e.g. pods/eviction): the body is
   * decoded as the subresource's kind, then the subresource's create runs with access to the
   * parent (get, delete through this store).
   */
  async createSubresource(ctx: RequestContext, namespace: string, name: string, subresourceName: string, body: KubeObject, dryRun: string[]): Promise<{ code: number; body: unknown; warnings?: string[] }> {
    const sub = this.subresource(subresourceName);
    if (!sub?.create || !sub.verbs.includes('create')) throw methodNotAllowed();
    const target = sub.kind ? { group: sub.kind.group, versions: [sub.kind.version, 'v1beta1'], kind: sub.kind.kind } : this.kind;
    let decoded: KubeObject;
    try {
      decoded = decodeRequestBody(body, target, 'Ignore').object as KubeObject;
    } catch (e) {
      if (e instanceof BodyDecodeError) throw badRequest(e.message);
      throw e;
    }
    if (!decoded.metadata || typeof decoded.metadata !== 'object') decoded.metadata = {};
    // kube's create handler: EnsureObjectNamespaceMatchesRequestNamespace, the decoder's
    // defaulting, then managedFields of the decoded object (TokenRequest echoes them).
    if (this.kind.namespaced) {
      if (decoded.metadata.namespace && decoded.metadata.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      decoded.metadata.namespace = namespace;
    }
    sub.defaults?.(decoded);
    if (sub.kind) {
      const subKind = { ...this.kind, group: sub.kind.group, versions: [sub.kind.version], kind: sub.kind.kind, subresources: [], strategy: { ...this.kind.strategy, defaults: sub.defaults, canonicalize: undefined } };
      setManagedFields(decoded, new FieldManager(subKind).update(decoded, null, ctx.fieldManager, new Date(), sub.name));
    }
    // kube's create handler runs admission on a named create too (subresource set): e.g.
    // NamespaceLifecycle refuses a TokenRequest or an Eviction in a terminating namespace.
    const attrs = this.attrs('CREATE', { ...ctx, dryRun: dryRun.length > 0 }, namespace, name, decoded, null, sub.name);
    await this.admission.admit(attrs);
    await this.admission.validate(attrs);
    return sub.create(
      {
        user: ctx.user,
        dryRun,
        namespace,
        name,
        get: async () => parseObject(await this.getLatest(namespace, name)),
        delete: async (opts) => {
          await this.delete({ ...ctx, dryRun: opts.dryRun ?? false }, namespace, name, opts);
        },
        update: (mutate, preconditions) => this.rawUpdate(ctx, namespace, name, mutate, preconditions),
      },
      decoded,
    );
  }

  /**
   * Storage.GuaranteedUpdate without the strategy, admission or validation (what a subresource
   * REST such as pods/binding does): read, check the uid/resourceVersion preconditions, mutate,
   * append; a lost race re-reads unless a resourceVersion precondition was given.
   */
  private async rawUpdate(ctx: RequestContext, namespace: string, name: string, mutate: (current: KubeObject) => KubeObject, pre: { uid?: string; resourceVersion?: string } = {}): Promise<void> {
    await this.locks.run(objectPath(this.key(namespace, name)), async () => {
      for (let attempt = 0; ; attempt++) {
        const current = parseObject(await this.getLatest(namespace, name));
        const currentRv = current.metadata.resourceVersion!;
        if (pre.uid && pre.uid !== current.metadata.uid) throw this.uidPreconditionFailed(ctx, namespace, name, pre.uid, current.metadata.uid ?? '');
        if (pre.resourceVersion && pre.resourceVersion !== currentRv) throw this.conflictErr(name);
        const next = mutate(deepCopy(current));
        delete next.metadata.resourceVersion;
        if (ctx.dryRun) return;
        const verdict = await this.write(ctx, 'UPDATE', next, Number(currentRv), name, namespace, 'update');
        if (verdict.accepted) return;
        if (verdict.reason === 'Conflict' && !pre.resourceVersion && attempt < MAX_CONFLICT_RETRIES) {
          await backoff(attempt);
          continue;
        }
        throw rejection(verdict, this.gr, name, namespace);
      }
    });
  }

  // ---------------------------------------------------------------- update / patch

  /** PUT: replace the object (or its subresource). Creates when the strategy allows it. */
  async update(ctx: RequestContext, namespace: string, name: string, body: KubeObject, subresourceName?: string): Promise<WriteResult> {
    const sub = this.subresource(subresourceName);
    if (sub && !sub.verbs.includes('update')) throw methodNotAllowed();
    const decodeWarnings: string[] = [];
    const obj = this.checkBody(body, namespace, name, ctx, decodeWarnings);
    const r = await this.guaranteedUpdate(ctx, namespace, name, {
      sub,
      wantRv: obj.metadata.resourceVersion || undefined,
      uidPrecondition: obj.metadata.uid || undefined,
      requireResourceVersion: !this.kind.strategy.allowUnconditionalUpdate && !sub,
      mutate: () => deepCopy(obj),
      verb: 'update',
      createInstead: () => (this.kind.strategy.allowCreateOnUpdate && !sub ? this.createDecoded(ctx, namespace, obj) : null),
    });
    return decodeWarnings.length ? { ...r, warnings: [...decodeWarnings, ...r.warnings] } : r;
  }

  /** PATCH with a merge, JSON or strategic-merge patch. */
  async patch(ctx: RequestContext, namespace: string, name: string, type: Exclude<PatchType, 'apply'>, patchBody: Buffer, subresourceName?: string): Promise<WriteResult> {
    const sub = this.subresource(subresourceName);
    if (sub && !sub.verbs.includes('patch')) throw methodNotAllowed();
    let preconditionRv: string | undefined;
    let decodeWarnings: string[] = [];
    const mutate: Mutation = (current) => {
      preconditionRv = undefined;
      decodeWarnings = [];
      const patched = applyPatch(type, current, patchBody) as KubeObject;
      if (!patched || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patch produced something that is not an object');
      if (!patched.metadata || typeof patched.metadata !== 'object') patched.metadata = {};
      // A resourceVersion the patch sets (or keeps different from what we read) is a precondition.
      const rv = patched.metadata.resourceVersion;
      if (rv !== undefined && rv !== current.metadata.resourceVersion) {
        const n = objectResourceVersion(String(rv));
        if (n) preconditionRv = String(n);
      }
      // The patched object is decoded again, as kube decodes the patch result into the Go type;
      // for merge and JSON patches kube reports a failure as a 422 on the patched document.
      const named = typeof patched.metadata.name === 'string' && patched.metadata.name !== '';
      let decoded: KubeObject;
      try {
        decoded = this.checkBody(patched, namespace, name, ctx, decodeWarnings);
      } catch (e) {
        if (e instanceof BodyDecodeError && type !== 'strategic') throw patchedUndecodable(current, patched, e.why);
        throw e;
      }
      // handlers/patch.go checkName: a patch that removes the name (`metadata.name: null`, a
      // strategic `$patch: replace|delete` at the root) is refused after decoding.
      if (!named) throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
      return decoded;
    };
    const r = await this.guaranteedUpdate(ctx, namespace, name, { sub, wantRv: undefined, mutate, verb: 'patch', createInstead: null, dynamicPrecondition: () => preconditionRv });
    return decodeWarnings.length ? { ...r, warnings: [...decodeWarnings, ...r.warnings] } : r;
  }

  /**
   * PATCH application/apply-patch+yaml (server-side apply, see apply.ts) with the decoded applied
   * object (`duplicatesOf`: the body's duplicate keys, read only for fieldValidation). A missing
   * object is created (201) unless the path is a subresource of a kind whose
   * updates may not create (kube's forceAllowCreate is dropped by subresource storages).
   */
  async apply(ctx: RequestContext, namespace: string, name: string, patch: Record<string, unknown>, subresourceName?: string, duplicatesOf: () => string[] = () => []): Promise<WriteResult> {
    const sub = this.subresource(subresourceName);
    if (sub && !sub.verbs.includes('patch')) throw methodNotAllowed();
    let managed: ManagedFieldsEntry[] | undefined;
    let preconditionRv: string | undefined;
    // fieldValidation (with its gate): only duplicate keys, checked after a successful apply.
    const validation = this.gates.enabled('ServerSideFieldValidation') ? ctx.fieldValidation ?? 'Warn' : 'Ignore';
    const duplicates = validation === 'Ignore' ? [] : duplicatesOf();
    const warnings = validation === 'Warn' ? duplicates : [];
    const run = (live: KubeObject | null): KubeObject => {
      const r = serverSideApply(this.fields, { live, patch, manager: ctx.fieldManager, force: Boolean(ctx.force), subresource: sub?.name, now: new Date() });
      if (validation === 'Strict' && duplicates.length) {
        throw badRequest(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n${duplicates.map((d) => `  ${d}`).join('\n')}`);
      }
      managed = r.managedFields;
      const merged = r.object;
      const m = merged.metadata && typeof merged.metadata === 'object' ? merged.metadata : (merged.metadata = {});
      // handlers.checkName on the applied result (kube fills neither the name nor checks it twice).
      if (typeof m.name !== 'string' || !m.name) throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
      if (m.name !== name) throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
      // The merged object is decoded into the kind's Go type and defaulted (structuredMerge Apply).
      const obj = this.checkBody(merged, namespace, name, ctx);
      delete obj.metadata.managedFields;
      this.kind.strategy.defaults?.(obj);
      return obj;
    };
    const mutate: Mutation = (current) => {
      preconditionRv = undefined;
      const next = run(current);
      // A resourceVersion in the applied object is a precondition, as for other patches.
      const rv = next.metadata.resourceVersion;
      if (rv !== undefined && rv !== current.metadata.resourceVersion) {
        const n = objectResourceVersion(String(rv));
        if (n) preconditionRv = String(n);
      }
      return next;
    };
    const createInstead = (): Promise<WriteResult> | null => {
      if (sub && !this.kind.strategy.allowCreateOnUpdate) return null;
      return (async () => {
        const obj = run(null);
        if (obj.metadata.uid) throw conflict(this.gr, name, `uid mismatch: the provided object specified uid ${obj.metadata.uid}, and no existing object was found`);
        return this.createDecoded(ctx, namespace, obj, { managedFields: managed, viaSubresource: Boolean(sub) });
      })();
    };
    const r = await this.guaranteedUpdate(ctx, namespace, name, {
      sub,
      wantRv: undefined,
      mutate,
      verb: 'patch',
      createInstead,
      dynamicPrecondition: () => preconditionRv,
      managedFields: () => managed,
    });
    return warnings.length ? { ...r, warnings: [...warnings, ...r.warnings] } : r;
  }

  /**
   * Read-modify-append loop under the object's key lock (see UpdatePlan for the knobs).
   */
  private async guaranteedUpdate(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan): Promise<WriteResult> {
    return this.locks.run(objectPath(this.key(namespace, name)), () => this.guaranteedUpdateLocked(ctx, namespace, name, plan));
  }

  private async guaranteedUpdateLocked(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan): Promise<WriteResult> {
    const { sub, mutate, createInstead, dynamicPrecondition } = plan;
    const strategy = this.kind.strategy;
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      const currentBytes = await this.readLatest(namespace, name);
      if (plan.uidPrecondition !== undefined) {
        const actual = currentBytes ? parseObject(currentBytes).metadata.uid ?? '' : '';
        if (plan.uidPrecondition !== actual) throw this.uidPreconditionFailed(ctx, namespace, name, plan.uidPrecondition, actual);
      }
      if (!currentBytes) {
        const created = createInstead?.();
        if (created) return created;
        throw notFound(this.gr, name);
      }
      const current = parseObject(currentBytes);
      const currentRv = current.metadata.resourceVersion!;
      // "" and "0" both mean "no precondition" (kube's versioner parses both to 0).
      const wantNum = plan.wantRv !== undefined ? objectResourceVersion(plan.wantRv) : 0;
      const wantRv = wantNum ? String(wantNum) : undefined;
      if (!wantNum && plan.requireResourceVersion) {
        // kube reports this on the resource (GroupKind{group, resource}), value uint64 0 (%#v: 0x0).
        throw invalid(this.kind.resource, this.kind.group, name, [
          { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', value: new GoValue('0x0'), detail: 'must be specified for an update' },
        ]);
      }
      if (wantRv !== undefined && wantRv !== currentRv) {
        // A version newer than this replica has folded (written through another replica): catch up
        // with the log once before calling it a conflict.
        if (attempt === 0 && Number(wantRv) > Number(currentRv)) {
          await this.storage.latest().catch((e) => {
            throw storageFailure(e);
          });
          continue;
        }
        throw this.conflictErr(name);
      }
      const next = mutate(deepCopy(current));
      const precondition = wantRv ?? dynamicPrecondition?.();
      if (precondition !== undefined && precondition !== currentRv) throw this.conflictErr(name);
      const now = new Date();
      this.carryServerFields(next, current);
      // Fields are managed on the request's object, before admission and the strategy's prepare.
      const managedFields = plan.managedFields ? plan.managedFields() : this.fields.update(next, current, ctx.fieldManager, now, sub?.name);
      let finish = finishNothing;
      if (sub) {
        // Mutating admission sees subresource writes too (webhooks may match `pods/status`).
        await this.admission.admit(this.attrs('UPDATE', ctx, namespace, name, next, current, sub.name));
        sub.strategy!.prepareForUpdate(next, current);
      } else {
        await this.admission.admit(this.attrs('UPDATE', ctx, namespace, name, next, current));
        strategy.defaults?.(next);
        // As kube's BeginUpdate: before prepare and validation, undone unless the write is accepted.
        finish = (await this.hooks.beginUpdate?.(next, current, ctx.dryRun)) ?? finishNothing;
        strategy.prepareForUpdate?.(next, current);
      }
      let outcome: WriteResult | 'retry';
      let accepted = false;
      try {
        const canRetry = (): boolean => precondition === undefined && attempt < MAX_CONFLICT_RETRIES && Date.now() < deadline;
        outcome = await this.finishUpdateAttempt(ctx, namespace, name, plan, { next, current, currentBytes, now, managedFields, canRetry });
        accepted = outcome !== 'retry';
      } finally {
        await finish(accepted);
      }
      if (outcome !== 'retry') return outcome;
      await backoff(attempt);
    }
  }

  /**
   * The rest of one update attempt after prepare: validate, record, write. Answers 'retry' when
   * the write lost a race that `canRetry` allows retrying.
   */
  private async finishUpdateAttempt(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan, attempt: UpdateAttempt): Promise<WriteResult | 'retry'> {
    const { sub, verb } = plan;
    const { next, current, currentBytes } = attempt;
    const strategy = this.kind.strategy;
    const currentRv = current.metadata.resourceVersion!;
    this.validateUpdate(next, current, sub?.strategy);
    if (!sub) strategy.canonicalize?.(next);
    if (this.kind.hasGeneration && !sub && !jsonEqual(specOf(next), specOf(current))) {
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    setManagedFields(next, attempt.managedFields);
    await this.admission.validate(this.attrs('UPDATE', ctx, namespace, name, next, current, sub?.name));
    const warnings = sub ? [] : strategy.warnings?.(next, current) ?? [];
    // No-op writes do not create a new version (kube-apiserver skips the storage write too).
    // A value stored with an older encryption provider or key is re-written all the same
    // (GuaranteedUpdate's stale data): how a replace of every Secret completes a key rotation.
    if (jsonEqual(stripVolatile(next), stripVolatile(current)) && !(await this.storage.stale(this.key(namespace, name)))) return { body: currentBytes, code: 200, warnings };
    const finalize = next.metadata.deletionTimestamp && !this.hasFinalizers(next);
    if (ctx.dryRun) return { body: Buffer.from(goJson(withResourceVersion(this.canonical(next), currentRv))), code: 200, warnings };
    // An update that empties the last finalizer of a deleting object deletes it (Store.Update →
    // deleteWithoutFinalizers): the delete carries the object as stored, so watchers see it
    // DELETED as it last was, and the caller gets the updated object at its old version.
    const written = finalize ? deepCopy(current) : next;
    delete written.metadata.resourceVersion;
    const verdict = await this.write(ctx, finalize ? 'DELETE' : 'UPDATE', written, Number(currentRv), name, namespace, verb);
    if (verdict.accepted) {
      if (!finalize) return { body: verdict.object, code: 200, warnings };
      await this.hooks.afterDelete?.(next);
      return { body: Buffer.from(goJson(withResourceVersion(this.canonical(next), currentRv))), code: 200, warnings };
    }
    if (verdict.reason === 'Conflict' && attempt.canRetry()) return 'retry';
    throw rejection(verdict, this.gr, name, namespace);
  }

  private validateUpdate(next: KubeObject, current: KubeObject, sub: StatusStrategy | undefined): void {
    const errs: FieldError[] = [...validateObjectMetaUpdate(next.metadata, current.metadata)];
    errs.push(...(sub ? sub.validateUpdate(next, current) : this.kind.strategy.validateUpdate(next, current)));
    if (errs.length) throw invalid(this.kind.kind, this.codec.group, next.metadata.name ?? '', errs);
  }

  /** Fields clients cannot change through update: identity, timestamps, deletion state. */
  private carryServerFields(next: KubeObject, current: KubeObject): void {
    const m = next.metadata;
    prepareObjectMetaForUpdate(m, current.metadata);
    if (!this.kind.hasGeneration) delete m.generation;
    if (this.kind.namespaced) m.namespace = m.namespace ?? current.metadata.namespace;
    delete m.resourceVersion;
    delete m.selfLink;
  }

  private hasFinalizers(obj: KubeObject): boolean {
    return (obj.metadata.finalizers?.length ?? 0) > 0 || (this.kind.strategy.hasPendingFinalizers?.(obj) ?? false);
  }

  // ---------------------------------------------------------------- delete

  /**
   * DELETE one object, as kube-apiserver's generic Store.Delete:
   * - kinds with `checkGracefulDelete` (Pods) follow rest.BeforeDelete (deletion.ts
   *   gracefulDeletion): a period > 0 marks the object (deletionTimestamp = now + period,
   *   deletionGracePeriodSeconds) and keeps it; a zero period writes the mark, then removes it;
   *   a delete of an object already waiting with a shorter or equal period answers it unchanged.
   *   Other kinds accept gracePeriodSeconds and ignore it;
   * - DeleteOptions/the kind's default policy decide the garbage-collector finalizers (`orphan`,
   *   `foregroundDeletion`, see deletion.ts), also on an object that is already terminating;
   * - with finalizers left, the object is only marked (deletionTimestamp, deletionGracePeriodSeconds
   *   0) and returned: 200, or 202 when the client sent `orphanDependents: false`;
   * - otherwise it is removed (200 + Status or the object, per kind).
   * Kinds with `beginDelete` (Namespace) follow kube's Namespace REST on the first delete.
   */
  async delete(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<WriteResult> {
    return this.locks.run(objectPath(this.key(namespace, name)), () => this.deleteLocked(ctx, namespace, name, opts));
  }

  private async deleteLocked(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<WriteResult> {
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    // endpoints/handlers/delete.go: "not deleted yet" answers 202 only to orphanDependents=false.
    const markedCode = opts.orphanDependents === false ? 202 : 200;
    const strategy = this.kind.strategy;
    for (let attempt = 0; ; attempt++) {
      const currentBytes = await this.getLatest(namespace, name);
      const current = parseObject(currentBytes);
      const pre = opts.preconditions ?? {};
      // Namespace REST Delete (kinds with beginDelete) checks the preconditions itself, with its
      // own wording and the resource's name; everything else gets rest.BeforeDelete's.
      const lifecycle = strategy.beginDelete !== undefined;
      if (pre.uid && pre.uid !== current.metadata.uid) {
        throw lifecycle
          ? conflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`)
          : deletePreconditionFailed(this.kind.group, this.kind.kind, name, 'uid', pre.uid, current.metadata.uid ?? '');
      }
      if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
        throw lifecycle
          ? conflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`)
          : deletePreconditionFailed(this.kind.group, this.kind.kind, name, 'resourceVersion', pre.resourceVersion, current.metadata.resourceVersion ?? '');
      }
      // rest.AdmissionToValidateObjectDeleteFunc: mutating, then validating admission, both on
      // the object about to be deleted (as oldObject; there is no new object).
      await this.admission.admit(this.attrs('DELETE', ctx, namespace, name, null, current, '', opts));
      await this.admission.validate(this.attrs('DELETE', ctx, namespace, name, null, current, '', opts));
      const currentRv = Number(current.metadata.resourceVersion);
      const next = deepCopy(current);
      delete next.metadata.resourceVersion;
      let remove = false;
      if (strategy.beginDelete && this.hasFinalizersAfterBegin(current)) {
        // Still finalizing: answered as is, whatever the options (Namespace REST Delete).
        if (current.metadata.deletionTimestamp) return { body: currentBytes, code: markedCode, warnings: [] };
        next.metadata.deletionTimestamp = rfc3339(new Date());
        strategy.beginDelete(next);
        const finalizers = lifecycleDeletionFinalizers(current.metadata, opts);
        if (finalizers) setFinalizers(next.metadata, finalizers);
      } else {
        // rest.BeforeDelete for kinds with graceful deletion (Pods): 'pending' answers the object as is.
        const graceful = strategy.checkGracefulDelete ? gracefulDeletion(strategy.checkGracefulDelete, current, next.metadata, opts.gracePeriodSeconds, new Date()) : false;
        if (graceful === 'pending') return { body: currentBytes, code: markedCode, warnings: [] };
        const gc = deletionFinalizers(strategy.defaultGarbageCollectionPolicy, current.metadata, opts);
        if (gc.changed) setFinalizers(next.metadata, gc.finalizers);
        const pendingFinalizers = (next.metadata.finalizers?.length ?? 0) > 0;
        if (graceful && !pendingFinalizers && !next.metadata.deletionGracePeriodSeconds) {
          // Store.updateForGracefulDeletionAndFinalizers with a zero period: the marked object is
          // written, then deleted (watchers see MODIFIED, then DELETED; the answer is the last state).
          if (ctx.dryRun) return { body: Buffer.from(goJson(withResourceVersion(this.canonical(next), current.metadata.resourceVersion))), code: 200, warnings: [] };
          const marked = await this.write(ctx, 'UPDATE', next, currentRv, name, namespace, 'delete');
          if (!marked.accepted) {
            if (marked.reason === 'Conflict' && !pre.resourceVersion && attempt < MAX_CONFLICT_RETRIES && Date.now() < deadline) {
              await backoff(attempt);
              continue;
            }
            throw rejection(marked, this.gr, name, namespace);
          }
          const markedObj = parseObject(marked.object);
          const gone = deepCopy(markedObj);
          delete gone.metadata.resourceVersion;
          const verdict = await this.write(ctx, 'DELETE', gone, Number(markedObj.metadata.resourceVersion), name, namespace, 'delete');
          if (!verdict.accepted) throw rejection(verdict, this.gr, name, namespace);
          await this.hooks.afterDelete?.(markedObj);
          // etcd3's Delete answers the object as last stored (the mark, at its resourceVersion).
          return this.deletedResponse(marked.object, markedObj);
        }
        if (graceful) {
          // Marked with its grace period (or kept by finalizers): answered, not removed.
        } else if (pendingFinalizers) markAsDeleting(next.metadata, rfc3339(new Date()));
        else remove = true;
      }
      let verdict: Verdict;
      if (remove) {
        if (ctx.dryRun) return this.deletedResponse(currentBytes, current);
        verdict = await this.write(ctx, 'DELETE', next, currentRv, name, namespace, 'delete');
      } else {
        // A repeated delete that changes nothing writes nothing (GuaranteedUpdate's no-op).
        if (jsonEqual(next, { ...current, metadata: { ...current.metadata, resourceVersion: undefined } })) return { body: currentBytes, code: markedCode, warnings: [] };
        if (ctx.dryRun) return { body: Buffer.from(goJson(withResourceVersion(this.canonical(next), current.metadata.resourceVersion))), code: markedCode, warnings: [] };
        verdict = await this.write(ctx, 'UPDATE', next, currentRv, name, namespace, 'delete');
      }
      if (verdict.accepted) {
        if (!remove) return { body: verdict.object, code: markedCode, warnings: [] };
        await this.hooks.afterDelete?.(current);
        // etcd3's Delete answers the object as it was last stored (its resourceVersion is the last
        // write's, not the deletion's; watchers see the deletion's in the DELETED event).
        return this.deletedResponse(currentBytes, current);
      }
      if (verdict.reason === 'Conflict' && !pre.resourceVersion && attempt < MAX_CONFLICT_RETRIES && Date.now() < deadline) {
        await backoff(attempt);
        continue;
      }
      throw rejection(verdict, this.gr, name, namespace);
    }
  }

  /** Would beginDelete leave finalizers pending (e.g. Namespace's spec.finalizers)? */
  private hasFinalizersAfterBegin(current: KubeObject): boolean {
    const probe = deepCopy(current);
    this.kind.strategy.beginDelete?.(probe);
    return this.hasFinalizers(probe);
  }

  private deletedResponse(body: Buffer, obj: KubeObject): WriteResult {
    if (this.kind.deleteReturns === 'Object') return { body, code: 200, warnings: [] };
    const status = deleteSuccess(this.gr, obj.metadata.name ?? '', obj.metadata.uid);
    return { body: Buffer.from(JSON.stringify(status)), code: 200, warnings: [] };
  }

  // ---------------------------------------------------------------- helpers

  private async write(ctx: RequestContext, op: 'CREATE' | 'UPDATE' | 'DELETE', obj: KubeObject, expectRv: number | null, name: string, namespace: string, verb: string): Promise<Verdict> {
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
    // etcd's --max-request-bytes (1.5 MiB) as kube-apiserver meets it: a plain 500, nothing written.
    if (intent.object && intent.object.length > MAX_OBJECT_BYTES) throw new ApiError(failure(500, undefined, 'etcdserver: request is too large'));
    let verdict: Verdict;
    try {
      verdict = await this.storage.write(intent);
    } catch (e) {
      throw storageFailure(e);
    }
    return verdict.accepted && this.codec.isView ? { ...verdict, object: this.codec.decode(verdict.object) } : verdict;
  }

  /**
   * A failed uid precondition, worded as etcd3's storage.NewInvalidObjError reaches the client:
   * the storage key is kube's default etcd key (without the /registry prefix on a dry run, whose
   * storage is not the etcd one) and ResourceVersion is always 0.
   */
  private uidPreconditionFailed(ctx: RequestContext, namespace: string, name: string, want: string, actual: string): ApiError {
    const key = `${ctx.dryRun ? '' : '/registry'}/${this.kind.resource}/${this.kind.namespaced ? `${namespace}/` : ''}${name}`;
    const why = `Precondition failed: UID in precondition: ${want}, UID in object meta: ${actual}`;
    return conflict(this.gr, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${why}`);
  }

  private conflictErr(name: string): ApiError {
    return conflict(this.gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  }

  private attrs(operation: AdmissionOperation, ctx: RequestContext, namespace: string, name: string, object: KubeObject | null, oldObject: KubeObject | null, subresource = '', deleteOpts?: DeleteOptions): AdmissionAttributes {
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
  private canonical(obj: KubeObject): KubeObject {
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
function objectResourceVersion(rv: string): number {
  const why = !/^\d+$/.test(rv) ? 'invalid syntax' : BigInt(rv) > 2n ** 64n - 1n ? 'value out of range' : '';
  if (why) throw new ApiError(failure(500, undefined, `strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`));
  return Number(rv);
}

/**
 * The options object an admission webhook is sent (AdmissionRequest.options): the request's
 * CreateOptions, UpdateOptions or DeleteOptions with the fields it set (metav1 field order).
 */
function admissionOptions(operation: AdmissionOperation, ctx: RequestContext, del?: DeleteOptions): Record<string, unknown> {
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
function backoff(attempt: number): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const ms = Math.random() * Math.min(100, 2 ** attempt);
  return new Promise((r) => setTimeout(r, ms));
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += GENERATE_ALPHABET[randomInt(GENERATE_ALPHABET.length)];
  return s;
}

const specOf = (o: KubeObject): unknown => {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
};

/** Compare objects for no-op detection: ignore managedFields timestamps and resourceVersion. */
function stripVolatile(o: KubeObject): unknown {
  const { managedFields, resourceVersion: _rv, ...meta } = o.metadata;
  return { ...o, metadata: { ...meta, managedFields: managedFields?.map(({ time: _t, ...e }) => e) } };
}

