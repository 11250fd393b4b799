/**
 * The one generic store: create, update, patch, delete and deletecollection for every kind.
 * Split by verb: store-base.ts (state, reads, the write of an intent, shared helpers) ←
 * store-create.ts ← store-update.ts ← this file (delete), one class each.
 * Kind behaviour comes only from the KindDescriptor/Strategy; this file never branches on kind.
 *
 * Writes follow kube-apiserver's GuaranteedUpdate shape on top of the log: read the current
 * object, prepare the new one (strategy, validation, admission), append an intent that expects
 * the version we read, and wait for the fold's verdict. A Conflict verdict on a request that did
 * not itself carry a resourceVersion means "someone wrote in between": read again and retry.
 */
import type { KubeObject } from '../../api/types.ts';
import { conflict, deletePreconditionFailed, deleteSuccess } from '../../api/errors.ts';
import type { RequestContext } from './context.ts';
import { rejection } from './errors.ts';
import { withResourceVersion, parseObject, rfc3339, deepCopy } from './serialize.ts';
import { jsonEqual } from '../../gocompat/equal.ts';
import { goJson } from '../../gocompat/json.ts';
import { deletionFinalizers, gracefulDeletion, lifecycleDeletionFinalizers, markAsDeleting, setFinalizers } from './deletion.ts';
import { objectPath, type Verdict } from '../../storage/storage.ts';
import { MAX_CONFLICT_RETRIES, RETRY_DEADLINE_MS, backoff, type DeleteOptions, type WriteResult } from './store-base.ts';
import { UpdateStore } from './store-update.ts';

export { MAX_OBJECT_BYTES, type DeleteOptions, type WriteResult } from './store-base.ts';

/** The store of one kind: every write verb (create, update, patch, apply, delete). */
export class GenericStore extends UpdateStore {
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

  protected async deleteLocked(ctx: RequestContext, namespace: string, name: string, opts: DeleteOptions): Promise<WriteResult> {
    const deadline = Date.now() + RETRY_DEADLINE_MS;
    // endpoints/handlers/delete.go: "not deleted yet" answers 202 only to orphanDependents=false.
    const markedCode = opts.orphanDependents === false ? 202 : 200;
    const strategy = this.kind.strategy;
    for (let attempt = 0; ; attempt++) {
      const currentBytes = await this.getLatest(namespace, name, ctx.apiVersion);
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
        // A kind served in several versions records the object as stored (see lastState).
        verdict = await this.write(ctx, 'DELETE', this.kind.conversion ? await this.lastState(namespace, name, current) : next, currentRv, name, namespace, 'delete');
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
  protected hasFinalizersAfterBegin(current: KubeObject): boolean {
    const probe = deepCopy(current);
    this.kind.strategy.beginDelete?.(probe);
    return this.hasFinalizers(probe);
  }

  protected deletedResponse(body: Buffer, obj: KubeObject): WriteResult {
    if (this.kind.deleteReturns === 'Object') return { body, code: 200, warnings: [] };
    const status = deleteSuccess(this.gr, obj.metadata.name ?? '', obj.metadata.uid);
    return { body: Buffer.from(JSON.stringify(status)), code: 200, warnings: [] };
  }
}
