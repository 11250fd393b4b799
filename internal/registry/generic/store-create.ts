/** The generic store's creates (store.ts): plain, generateName, virtual kinds, subresources. */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/types.ts';
import { type FieldError } from '../../api/field-errors.ts';
import { ApiError, alreadyExists, badRequest, invalid, methodNotAllowed } from '../../api/errors.ts';
import type { PeerResource, VirtualKind } from '../rest/strategy.ts';
import { validateObjectMeta } from '../../validation/objectmeta.ts';
import type { RequestContext } from './context.ts';
import { rejection, storageFailure } from './errors.ts';
import { parseObject, rfc3339, deepCopy } from './serialize.ts';
import { FieldManager, setManagedFields } from './managed-fields.ts';
import type { ManagedFieldsEntry } from '../../api/types.ts';
import { objectPath } from '../../storage/storage.ts';
import { decodeRequestBody, BodyDecodeError } from '../../decode/body.ts';
import { StoreBase, MAX_CONFLICT_RETRIES, MAX_GENERATE_NAME_RETRIES, NAME_VALIDATORS, backoff, finishNothing, randomSuffix, type WriteResult } from './store-base.ts';

/** Creates (see the file comment); UpdateStore and GenericStore build on it. */
export abstract class CreateStore extends StoreBase {
  // ---------------------------------------------------------------- create

  async create(ctx: RequestContext, namespace: string, body: KubeObject): Promise<WriteResult> {
    const decodeWarnings: string[] = [];
    const obj = this.checkBody(body, namespace, undefined, ctx, decodeWarnings);
    if (decodeWarnings.length) {
      const r = await this.createDecoded(ctx, namespace, obj);
      return { ...r, warnings: [...decodeWarnings, ...r.warnings] };
    }
    // `return await`, not `return`: an async function that returns a promise resolves through an
    // extra thenable job and turn; awaiting it takes one.
    return await this.createDecoded(ctx, namespace, obj);
  }

  protected async createDecoded(
    ctx: RequestContext,
    namespace: string,
    obj: KubeObject,
    applied?: { managedFields: ManagedFieldsEntry[] | undefined; viaSubresource?: boolean },
  ): Promise<WriteResult> {
    const meta = obj.metadata;
    // kube manages fields on the decoded request, before generateName, admission and prepare
    // (an apply that creates the object brings the ones the apply computed).
    // Decoder defaults (Strategy.defaultsOnDecode) go on the body itself: the field manager's view needs no copy.
    const decoded = !applied && !!this.kind.strategy.defaultsOnDecode && !this.kind.strategy.canonicalize;
    if (applied) setManagedFields(obj, applied.managedFields);
    else {
      if (decoded) this.kind.strategy.defaults?.(obj);
      setManagedFields(obj, this.fieldsFor(ctx).update(obj, null, ctx.fieldManager, new Date(), undefined, decoded));
    }
    if (this.virtual) return this.createVirtual(this.virtual, ctx, namespace, obj);
    if (!meta.name && meta.generateName && typeof meta.generateName === 'string') {
      for (let attempt = 0; ; attempt++) {
        const candidate = deepCopy(obj);
        // kube-apiserver keeps generated names within 63 characters: base ≤ 58 + 5 random.
        candidate.metadata.name = meta.generateName.slice(0, 58) + randomSuffix();
        try {
          return await this.createPrepared(ctx, namespace, candidate, false, decoded);
        } catch (e) {
          if (!(e instanceof ApiError) || e.reason !== 'AlreadyExists' || attempt >= MAX_GENERATE_NAME_RETRIES) throw e;
        }
      }
    }
    return await this.createPrepared(ctx, namespace, obj, applied?.viaSubresource, decoded);
  }

  /**
   * A virtual kind's create (kube's REST.Create of a storage-less rest.Creater): the object,
   * decoded, checked and with its managedFields, goes to the kind and its answer comes back as
   * the 201 body. No admission (kube's NamespaceLifecycle exempts the access reviews, the only
   * virtual kinds yet), no append: dry run answers the same.
   */
  protected async createVirtual(virtual: VirtualKind, ctx: RequestContext, namespace: string, obj: KubeObject): Promise<WriteResult> {
    // kube's EnsureObjectNamespaceMatchesRequestNamespace: the URL's namespace fills an empty one.
    if (this.kind.namespaced) obj.metadata.namespace = namespace;
    const out = await virtual.create({ user: ctx.user, namespace, dryRun: ctx.dryRun }, obj);
    return { body: Buffer.from(JSON.stringify(out)), code: 201, warnings: [] };
  }

  /**
   * `noHooks`: a create through a subresource (an apply on the /status of a missing object of a
   * kind whose updates may create) runs no write hooks: kube's subresource stores are copies of
   * the main store taken before its BeginCreate hook is set (a Service created so gets no IPs).
   * `decoded`: the body already has its decoder defaults (Strategy.defaultsOnDecode); they run
   * again only if a webhook patched it (kube decodes a patched object again).
   */
  protected async createPrepared(ctx: RequestContext, namespace: string, obj: KubeObject, noHooks = false, decoded = false): Promise<WriteResult> {
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
    const admitted = this.attrs('CREATE', ctx, namespace, meta.name ?? '', obj, null);
    // Only a promise is awaited (admission, hooks, finish): a kind without hooks and a chain that
    // did nothing asynchronous cost no microtask turn per create.
    const admitting = this.admission.admit(admitted);
    if (admitting) await admitting;
    if (!decoded || admitted.objectPatched) strategy.defaults?.(obj);
    // Hooks run before prepare and validation, as kube's BeginCreate does; undone unless accepted.
    const beginning = noHooks ? undefined : this.hooks.beginCreate?.(obj, ctx.dryRun);
    const finish = (beginning ? await beginning : undefined) ?? finishNothing;
    let accepted = false;
    try {
      strategy.prepareForCreate?.(obj, ctx.user);
      this.validateCreate(obj);
      strategy.canonicalize?.(obj);
      const validating = this.admission.validate(this.attrs('CREATE', ctx, namespace, meta.name ?? '', obj, null));
      if (validating) await validating;
      const warnings = strategy.warnings?.(obj) ?? [];
      if (ctx.dryRun) {
        // A dry run answers what the real request would: the fold's existence check included
        // (kube's dry-run storage reads the key and fails with AlreadyExists the same way).
        const existing = await this.storage.get(this.key(namespace, meta.name!)).catch((e) => {
          throw storageFailure(e);
        });
        if (existing) throw alreadyExists(this.gr, meta.name!);
        return { body: await this.dryRunBody(ctx, obj, undefined), code: 201, warnings };
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
      if (finish !== finishNothing) await finish(accepted);
    }
  }

  protected validateCreate(obj: KubeObject): void {
    const errs: FieldError[] = [
      ...validateObjectMeta(obj.metadata, this.kind.namespaced, NAME_VALIDATORS[this.kind.nameFormat ?? 'subdomain'], undefined, { kubeFinalizers: !this.kind.apimachineryFinalizers }),
      ...this.kind.strategy.validate(obj),
    ];
    // kube names the stored kind in 422s (a view's errors read `Event "x"`, not `Event.events.k8s.io`).
    if (errs.length) throw invalid(this.kind.kind, this.kind.invalidGroup ?? this.codec.group, obj.metadata.name ?? obj.metadata.generateName ?? '', errs);
  }

  /**
   * POST on a subresource (kube's rest.NamedCreater storages, e.g. pods/eviction): the body is
   * decoded as the subresource's kind, then the subresource's create runs with access to the
   * parent (get, delete through this store).
   */
  async createSubresource(ctx: RequestContext, namespace: string, name: string, subresourceName: string, body: KubeObject, dryRun: string[]): Promise<{ code: number; body: unknown; warnings?: string[] }> {
    const sub = this.subresource(subresourceName, ctx.apiVersion);
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
        get: async () => parseObject(await this.getLatest(namespace, name, ctx.apiVersion)),
        delete: async (opts) => {
          await this.delete({ ...ctx, dryRun: opts.dryRun ?? false }, namespace, name, opts);
        },
        update: (mutate, preconditions) => this.rawUpdate(ctx, namespace, name, mutate, preconditions),
        peer: (group, version, resource) => this.peer(ctx, group, version, resource),
      },
      decoded,
    );
  }

  /** Another served kind through its own store and reader, as kube-apiserver's loopback client (user system:apiserver). */
  protected peer(ctx: RequestContext, group: string, version: string, resource: string): PeerResource | undefined {
    const served = this.peers(group, version, resource);
    if (!served) return undefined;
    const loopback: RequestContext = { ...ctx, user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, fieldManager: 'kube-apiserver', userAgent: 'kube-apiserver', apiVersion: version, fieldManagerParam: undefined, warnings: [] };
    return {
      list: async (namespace) => (await served.reader.list(namespace, {}, version)).items.map(parseObject),
      get: async (namespace, name) => parseObject(await served.reader.get(namespace, name, undefined, version)),
      updateStatus: async (obj) => {
        await served.store.update(loopback, obj.metadata.namespace ?? '', obj.metadata.name ?? '', obj, 'status');
      },
    };
  }

  /**
   * Storage.GuaranteedUpdate without the strategy, admission or validation (what a subresource
   * REST such as pods/binding does): read, check the uid/resourceVersion preconditions, mutate,
   * append; a lost race re-reads unless a resourceVersion precondition was given.
   */
  protected async rawUpdate(ctx: RequestContext, namespace: string, name: string, mutate: (current: KubeObject) => KubeObject, pre: { uid?: string; resourceVersion?: string } = {}): Promise<void> {
    await this.locks.run(objectPath(this.key(namespace, name)), async () => {
      for (let attempt = 0; ; attempt++) {
        const current = parseObject(await this.getLatest(namespace, name, ctx.apiVersion));
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
}
