/**
 * The generic store's updates (store.ts): update, patch and apply, all through one
 * GuaranteedUpdate loop (read, build the new object, write expecting the version read, retry a
 * lost race when the request carried no resourceVersion).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, GoValue } from '../../api/field-errors.ts';
import { ApiError, badRequest, conflict, invalid, notFound, methodNotAllowed } from '../../api/errors.ts';
import type { StatusStrategy, SubresourceDescriptor, SubresourceView } from '../rest/strategy.ts';
import { validateObjectMetaUpdate, prepareObjectMetaForUpdate } from '../../validation/objectmeta.ts';
import type { RequestContext } from './context.ts';
import { rejection, storageFailure } from './errors.ts';
import { withResourceVersion, parseObject, deepCopy } from './serialize.ts';
import { jsonEqual } from '../../gocompat/equal.ts';
import { goJson } from '../../gocompat/json.ts';
import { setManagedFields } from './managed-fields.ts';
import { serverSideApply } from './apply.ts';
import type { ManagedFieldsEntry } from '../../api/types.ts';
import { applyPatch, patchedUndecodable, type PatchType } from '../../patch/patch.ts';
import { objectPath } from '../../storage/storage.ts';
import { BodyDecodeError } from '../../decode/body.ts';
import { CreateStore } from './store-create.ts';
import { MAX_CONFLICT_RETRIES, RETRY_DEADLINE_MS, backoff, finishNothing, objectResourceVersion, sameButVolatile, specOf, type Mutation, type UpdateAttempt, type UpdatePlan, type WriteResult } from './store-base.ts';

/** Update, patch and apply (see the file comment); GenericStore builds on it. */
export abstract class UpdateStore extends CreateStore {
  // ---------------------------------------------------------------- update / patch

  /** PUT: replace the object (or its subresource). Creates when the strategy allows it. */
  async update(ctx: RequestContext, namespace: string, name: string, body: KubeObject, subresourceName?: string): Promise<WriteResult> {
    const sub = this.subresource(subresourceName, ctx.apiVersion);
    if (sub && !sub.verbs.includes('update')) throw methodNotAllowed();
    if (sub?.view) return this.writeView(ctx, namespace, name, sub, 'update', (view) => view.decode(body));
    const decodeWarnings: string[] = [];
    const obj = this.checkBody(body, namespace, name, ctx, decodeWarnings);
    const r = await this.guaranteedUpdate(ctx, namespace, name, {
      sub,
      wantRv: obj.metadata.resourceVersion || undefined,
      uidPrecondition: obj.metadata.uid || undefined,
      requireResourceVersion: !this.kind.strategy.allowUnconditionalUpdate && !sub,
      mutate: () => deepCopy(obj),
      ignoresCurrent: true,
      verb: 'update',
      createInstead: () => (this.kind.strategy.allowCreateOnUpdate && !sub ? this.createDecoded(ctx, namespace, obj) : null),
    });
    return decodeWarnings.length ? { ...r, warnings: [...decodeWarnings, ...r.warnings] } : r;
  }

  /** PATCH with a merge, JSON or strategic-merge patch. */
  async patch(ctx: RequestContext, namespace: string, name: string, type: Exclude<PatchType, 'apply'>, patchBody: Buffer, subresourceName?: string): Promise<WriteResult> {
    const sub = this.subresource(subresourceName, ctx.apiVersion);
    if (sub && !sub.verbs.includes('patch')) throw methodNotAllowed();
    if (sub?.view) {
      return this.writeView(ctx, namespace, name, sub, 'patch', (view, current) => {
        const shown = view.current(current);
        const patched = applyPatch(type, shown, patchBody) as KubeObject;
        try {
          return view.decode(patched);
        } catch (e) {
          if (e instanceof BodyDecodeError && e.why) throw patchedUndecodable(shown, patched, e.why);
          throw e;
        }
      });
    }
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
    const sub = this.subresource(subresourceName, ctx.apiVersion);
    if (sub && !sub.verbs.includes('patch')) throw methodNotAllowed();
    const view = sub?.view;
    if (view) {
      if (!(await this.readLatest(namespace, name))) throw notFound(this.gr, name);
      if (!view.applyToParent) return view.apply();
      const parentVersion = `${this.kind.group ? `${this.kind.group}/` : ''}${this.kind.versions[0]}`;
      const viewVersion = `${view.kind.group ? `${view.kind.group}/` : ''}${view.kind.version}`;
      const parentPatch = view.applyToParent(patch, { apiVersion: parentVersion, kind: this.kind.kind });
      return this.applyTo(ctx, namespace, name, parentPatch, sub, duplicatesOf).catch((e) => {
        throw e instanceof ApiError && e.status.code === 409 ? renameConflictVersion(e, parentVersion, viewVersion) : e;
      });
    }
    return this.applyTo(ctx, namespace, name, patch, sub, duplicatesOf);
  }

  private async applyTo(ctx: RequestContext, namespace: string, name: string, patch: Record<string, unknown>, sub: SubresourceDescriptor | undefined, duplicatesOf: () => string[]): Promise<WriteResult> {
    let managed: ManagedFieldsEntry[] | undefined;
    let preconditionRv: string | undefined;
    // fieldValidation (with its gate): only duplicate keys, checked after a successful apply.
    const validation = this.gates.enabled('ServerSideFieldValidation') ? ctx.fieldValidation ?? 'Warn' : 'Ignore';
    const duplicates = validation === 'Ignore' ? [] : duplicatesOf();
    const warnings = validation === 'Warn' ? duplicates : [];
    const run = (live: KubeObject | null): KubeObject => {
      const r = serverSideApply(this.fieldsFor(ctx), { live, patch, manager: ctx.fieldManager, force: Boolean(ctx.force), subresource: sub?.name, now: new Date() });
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
   * An update or patch of a view subresource (SubresourceView: a custom resource's scale):
   * `build` gives the view the client wants from the stored parent; its name must be the URL's and
   * its resourceVersion is a precondition; it is written into the parent, which goes through the
   * parent's strategy with the managedFields the view left.
   */
  private async writeView(ctx: RequestContext, namespace: string, name: string, sub: SubresourceDescriptor, verb: 'update' | 'patch', build: (view: SubresourceView, current: KubeObject) => KubeObject): Promise<WriteResult> {
    const view = sub.view!;
    let preconditionRv: string | undefined;
    let managed: ManagedFieldsEntry[] | undefined;
    const mutate: Mutation = async (current) => {
      preconditionRv = undefined;
      const wanted = build(view, deepCopy(current));
      const m = wanted.metadata;
      if (m.name && m.name !== name) throw badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
      // rest.EnsureObjectNamespaceMatchesRequestNamespace (in Go's field order: after the name).
      const ns = this.kind.namespaced ? namespace : '';
      if (m.namespace && ns && m.namespace !== ns) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      if (!m.namespace && ns) wanted.metadata = m.name === undefined ? { namespace: ns, ...m } : { name: m.name, namespace: ns, ...m };
      else if (!ns) delete m.namespace;
      // Mutating admission sees the view (kube's scaleUpdatedObjectInfo runs the request's
      // transformers on the Scale): the view asked for, and the view of the stored parent.
      await this.admission.admit({ ...this.attrs('UPDATE', ctx, namespace, name, wanted, view.current(current), sub.name), view });
      const rv = wanted.metadata.resourceVersion ? objectResourceVersion(wanted.metadata.resourceVersion) : 0;
      if (rv) preconditionRv = String(rv);
      const next = view.write(wanted, current);
      managed = next.metadata.managedFields;
      return next;
    };
    const managedFields = view.fieldsByParent ? undefined : () => managed;
    const own = view.notFoundResource;
    return this.guaranteedUpdate(ctx, namespace, name, { sub, wantRv: undefined, mutate, verb, createInstead: null, dynamicPrecondition: () => preconditionRv, managedFields }).catch((e) => {
      throw own && e instanceof ApiError && e.status.code === 404 ? notFound(own(this.gr), name) : e;
    });
  }

  /**
   * Read-modify-append loop under the object's key lock (see UpdatePlan for the knobs).
   */
  protected async guaranteedUpdate(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan): Promise<WriteResult> {
    return this.locks.run(objectPath(this.key(namespace, name)), () => this.guaranteedUpdateLocked(ctx, namespace, name, plan));
  }

  protected async guaranteedUpdateLocked(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan): Promise<WriteResult> {
    const { sub, mutate, createInstead, dynamicPrecondition } = plan;
    const strategy = this.kind.strategy;
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      const currentBytes = await this.readLatest(namespace, name, ctx.apiVersion);
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
      const mutated = mutate(plan.ignoresCurrent ? current : deepCopy(current));
      // Only a view subresource's mutation is asynchronous (it runs admission itself).
      const next = mutated instanceof Promise ? await mutated : mutated;
      const precondition = wantRv ?? dynamicPrecondition?.();
      if (precondition !== undefined && precondition !== currentRv) throw this.conflictErr(name);
      const now = new Date();
      this.carryServerFields(next, current);
      // Fields are managed on the request's object, before admission and the strategy's prepare.
      const managedFields = plan.managedFields ? plan.managedFields() : this.fieldsFor(ctx).update(next, current, ctx.fieldManager, now, sub?.name);
      let finish = finishNothing;
      if (sub?.strategy) {
        // Mutating admission sees subresource writes too (webhooks may match `pods/status`).
        await this.admission.admit(this.attrs('UPDATE', ctx, namespace, name, next, current, sub.name));
        sub.strategy.prepareForUpdate(next, current);
      } else {
        // The main resource, or a view subresource (scale), which the parent's strategy writes
        // (its mutating admission ran on the view, in the mutation).
        if (!sub?.view) await this.admission.admit(this.attrs('UPDATE', ctx, namespace, name, next, current, sub?.name));
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
  protected async finishUpdateAttempt(ctx: RequestContext, namespace: string, name: string, plan: UpdatePlan, attempt: UpdateAttempt): Promise<WriteResult | 'retry'> {
    const { sub, verb } = plan;
    const { next, current, currentBytes } = attempt;
    const strategy = this.kind.strategy;
    const currentRv = current.metadata.resourceVersion!;
    this.validateUpdate(next, current, sub?.strategy);
    const own = sub?.strategy;
    if (!own) strategy.canonicalize?.(next);
    if (this.kind.hasGeneration === true && !own && !jsonEqual(specOf(next), specOf(current))) {
      next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    }
    setManagedFields(next, attempt.managedFields);
    const view = sub?.view;
    // A view subresource is validated as views of the new and the old parent (kube's toScaleUpdateValidation).
    const viewed = view ? view.of({ ...next, metadata: { ...next.metadata, resourceVersion: currentRv } }) : null;
    await this.admission.validate(view ? { ...this.attrs('UPDATE', ctx, namespace, name, viewed, view.of(current), sub.name), view } : this.attrs('UPDATE', ctx, namespace, name, next, current, sub?.name));
    const warnings = own ? [] : strategy.warnings?.(next, current) ?? [];
    // No-op writes do not create a new version (kube-apiserver skips the storage write too).
    // A value stored with an older encryption provider or key is re-written all the same
    // (GuaranteedUpdate's stale data): how a replace of every Secret completes a key rotation.
    if (sameButVolatile(next, current) && !(await this.storage.stale(this.key(namespace, name)))) return { body: currentBytes, code: 200, warnings };
    const finalize = next.metadata.deletionTimestamp && !this.hasFinalizers(next);
    if (ctx.dryRun) return { body: await this.dryRunBody(ctx, next, currentRv), code: 200, warnings };
    // An update that empties the last finalizer of a deleting object deletes it (Store.Update →
    // deleteWithoutFinalizers): the delete carries the object as stored, so watchers see it
    // DELETED as it last was, and the caller gets the updated object at its old version.
    const written = finalize ? await this.lastState(namespace, name, current) : next;
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

  protected validateUpdate(next: KubeObject, current: KubeObject, sub: StatusStrategy | undefined): void {
    const errs: FieldError[] = [...validateObjectMetaUpdate(next.metadata, current.metadata, undefined, { kubeFinalizers: !this.kind.apimachineryFinalizers })];
    errs.push(...(sub ? sub.validateUpdate(next, current) : this.kind.strategy.validateUpdate(next, current)));
    if (errs.length) throw invalid(this.kind.kind, this.kind.invalidGroup ?? this.codec.group, next.metadata.name ?? '', errs);
  }

  /** Fields clients cannot change through update: identity, timestamps, deletion state. */
  protected carryServerFields(next: KubeObject, current: KubeObject): void {
    const m = next.metadata;
    prepareObjectMetaForUpdate(m, current.metadata);
    if (!this.kind.hasGeneration) delete m.generation;
    if (this.kind.namespaced) m.namespace = m.namespace ?? current.metadata.namespace;
    delete m.resourceVersion;
    delete m.selfLink;
  }

  protected hasFinalizers(obj: KubeObject): boolean {
    return (obj.metadata.finalizers?.length ?? 0) > 0 || (this.kind.strategy.hasPendingFinalizers?.(obj) ?? false);
  }
}

/** A field-manager conflict as the view sees it: Update owners named with the view's apiVersion. */
function renameConflictVersion(e: ApiError, from: string, to: string): ApiError {
  const rename = (text: string | undefined): string | undefined => text?.split(` using ${from}`).join(` using ${to}`);
  const status = structuredClone(e.status);
  status.message = rename(status.message);
  for (const c of status.details?.causes ?? []) c.message = rename(c.message);
  return new ApiError(status, e.headers);
}
