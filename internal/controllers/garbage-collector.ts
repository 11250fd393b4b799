/**
 * Garbage collector for ownerReferences (kube-controller-manager's garbagecollector, in process),
 * for every served kind: nothing here names a kind.
 *
 * Graph: an index of the objects that have ownerReferences (by objectPath) and, per owner uid,
 * the paths of its dependents. It is built from a paginated list of every kind at start (which is
 * also how a restarted server resumes half-done collections) and kept current from committed
 * changes. Owners need no entry: their state is read when needed.
 *
 * Work (three kinds of item, as kube's attemptToDelete / attemptToOrphan queues):
 *   dependent  — an object with owners: owners absent (not found, or another uid) → delete it
 *                (Background, or the GC finalizer it already carries); owners waiting for their
 *                dependents (foregroundDeletion) and it has dependents of its own → delete it with
 *                Foreground; some owners solid → drop only the dangling/waiting references.
 *   foreground — an owner with deletionTimestamp and `foregroundDeletion`: delete its dependents;
 *                once none with blockOwnerDeletion=true is left, remove the finalizer.
 *   orphan     — an owner with deletionTimestamp and `orphan`: remove the reference to it from each
 *                dependent, then remove the finalizer.
 * An owner is looked up in its dependent's namespace (namespaced kinds) or cluster-wide; a
 * namespaced owner of a cluster-scoped dependent is invalid and leaves the dependent alone, and a
 * kind that is not served is never judged absent, as kube's GC.
 *
 * Several replicas (Kafka mode) each run this controller. Every decision is made after
 * `storage.latest()` (the local fold has reached the log's end, so the index is as new as the
 * log) and every write is guarded: deletes carry uid and resourceVersion preconditions, patches
 * that drop finalizers or ownerReferences carry the resourceVersion they were computed from. When
 * two replicas act on the same object one write wins and the other gets 404/409, which only
 * re-queues the item for a fresh look; every step is idempotent.
 */
import type { Logger } from 'pino';
import type { KubeObject, OwnerReference } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { objectPath, type ObjectKey } from '../storage/keys.ts';
import type { KindChange, Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../registry/generic/deletion.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';


/** Which object: a served kind, its namespace ('' when cluster-scoped), name and uid. */
interface Ident {
  served: ServedKind;
  namespace: string;
  name: string;
  uid: string;
}

/** An object that has ownerReferences, as last observed. */
interface Tracked {
  id: Ident;
  rv: number;
  owners: OwnerReference[];
  /** deletionTimestamp set and the `foregroundDeletion` finalizer present. */
  deletingDependents: boolean;
}

type Job = 'dependent' | 'foreground' | 'orphan';

interface Task {
  key: string;
  job: Job;
  id: Ident;
}

const hasFinalizer = (o: KubeObject, f: string): boolean => Array.isArray(o.metadata.finalizers) && o.metadata.finalizers.includes(f);
const beingDeleted = (o: KubeObject): boolean => Boolean(o.metadata.deletionTimestamp);
const deletingDependents = (o: KubeObject): boolean => beingDeleted(o) && hasFinalizer(o, FINALIZER_FOREGROUND);
const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);

/**
 * Cheap pre-check on stored JSON: an object with neither ownerReferences nor finalizers can need
 * nothing from the collector (most objects; parsing each would cost the write path).
 */
const mayConcernCollector = (b: Buffer): boolean => b.indexOf('"ownerReferences"') >= 0 || b.indexOf('"finalizers"') >= 0;

/** Owner references that name an owner at all (validation guarantees this for stored objects). */
function ownerRefsOf(o: KubeObject): OwnerReference[] {
  const refs = o.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter((r): r is OwnerReference => Boolean(r && typeof r === 'object' && r.uid && r.name && r.kind && r.apiVersion));
}

export class GarbageCollector extends QueueController<Task> {
  private readonly byPath = new Map<string, Tracked>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly byResource = new Map<string, ServedKind>();
  private readonly byApiVersionKind = new Map<string, ServedKind>();
  private readonly ctx = systemContext('kube-controller-manager');
  private unsubscribeKinds: (() => void) | undefined;
  /** Scans of kinds added while running. */
  private readonly kindScans = new Set<Promise<void>>();

  constructor(storage: Storage, private readonly registry: Registry, log: Logger, queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS) {
    super(
      'garbagecollector',
      storage,
      log,
      (t) => this.process(t),
      (t, err) => {
        if (errCode(err) !== 409) log.warn({ err, job: t.job, object: objectPath(this.keyOf(t.id)) }, 'garbage collection step failed; retrying');
      },
      queueOptions,
    );
    this.indexKinds();
  }

  /** Which kind a change's key or an owner reference names: rebuilt whenever the served kinds change. */
  private indexKinds(): void {
    this.byResource.clear();
    this.byApiVersionKind.clear();
    for (const served of this.registry.kinds) {
      const k = served.kind;
      this.byResource.set(`${k.group}/${k.resource}`, served);
      for (const v of k.versions) this.byApiVersionKind.set(`${k.group ? `${k.group}/${v}` : v}|${k.kind}`, served);
    }
  }

  /**
   * Subscribe to changes, then index every served kind in the background (the start-up scan:
   * the server need not wait for it, and it is retried if a page fails). Kinds added later are
   * scanned when they come (their objects may be stored already: a custom resource's, after a
   * restart); a kind removed leaves the index, and owners of a kind no longer served are never
   * judged absent.
   */
  override start(): void {
    // No step runs before the index holds every object (kube's GC waits for its informers to
    // sync): an owner must not lose its orphan/foreground finalizer while dependents that the
    // scan has not reached yet still reference it.
    this.queue.pause();
    this.indexKinds();
    this.unsubscribeKinds = this.registry.subscribe((change) => this.kindChanged(change));
    super.start();
  }

  override stop(): void {
    this.unsubscribeKinds?.();
    this.unsubscribeKinds = undefined;
    super.stop();
  }

  override async idle(): Promise<void> {
    while (this.kindScans.size) await Promise.all(this.kindScans);
    return super.idle();
  }

  private kindChanged(change: KindChange): void {
    this.indexKinds();
    if (change.type === 'added') {
      if (change.served.kind.storedAs || change.served.virtual) return;
      const scan = this.indexAll([change.served]).finally(() => this.kindScans.delete(scan));
      this.kindScans.add(scan);
      return;
    }
    for (const [path, t] of [...this.byPath]) if (t.id.served === change.served) this.untrack(path, t);
  }

  /** Index every served kind, then let the queue run. */
  protected async scan(): Promise<void> {
    await this.indexAll(this.registry.storageKinds());
    this.queue.resume();
  }

  private indexAll(kinds: readonly ServedKind[]): Promise<void> {
    return this.scanUntilDone('garbage collector scan', async () => {
      for (const served of kinds) {
        for await (const b of listAll(served.reader, '', {}, () => this.stopped)) {
          if (mayConcernCollector(b)) this.observeObject(served, parseObject(b), true);
        }
        if (this.stopped) return; // stopped
      }
    });
  }

  // ------------------------------------------------------------------ graph

  protected observe(c: Change): void {
    const served = this.byResource.get(`${c.key.group}/${c.key.resource}`);
    if (!served) return;
    const path = objectPath(c.key);
    if (c.type === 'DELETED') {
      // Parsing every deleted object would cost the hot path; only owners or dependents matter.
      if (!this.byPath.has(path) && this.byOwner.size === 0) return;
      this.observeDeleted(served, path, parseObject(c.object));
      return;
    }
    if (!this.byPath.has(path) && !mayConcernCollector(c.object)) return;
    this.observeObject(served, parseObject(c.object), false);
  }

  /** An object as it is now (a change, or an item of the start-up scan). */
  private observeObject(served: ServedKind, o: KubeObject, initial: boolean): void {
    const id = this.identOf(served, o);
    const path = objectPath(this.keyOf(id));
    const rv = Number(o.metadata.resourceVersion ?? 0);
    const old = this.byPath.get(path);
    // The scan may deliver an object older than a change already seen: keep the newer.
    if (old && old.id.uid === id.uid && old.rv > rv) return;
    if (old && old.id.uid !== id.uid) this.untrack(path, old);
    const owners = ownerRefsOf(o);
    const previous = old && old.id.uid === id.uid ? old : undefined;
    if (owners.length) {
      const tracked: Tracked = { id, rv, owners, deletingDependents: deletingDependents(o) };
      if (previous) this.untrack(path, previous);
      this.track(path, tracked);
      if (initial || !previous || JSON.stringify(previous.owners) !== JSON.stringify(owners)) {
        this.enqueue('dependent', id);
        // A reference dropped (or made non-blocking) may unblock an owner in foreground deletion.
        for (const r of previous?.owners ?? []) this.enqueueOwnerIfWaiting(r, id);
      }
    } else if (previous) {
      this.untrack(path, previous);
      for (const r of previous.owners) this.enqueueOwnerIfWaiting(r, id);
    }
    if (beingDeleted(o) && hasFinalizer(o, FINALIZER_ORPHAN)) this.enqueue('orphan', id);
    if (deletingDependents(o)) this.enqueue('foreground', id);
  }

  private observeDeleted(served: ServedKind, path: string, o: KubeObject): void {
    const id = this.identOf(served, o);
    const old = this.byPath.get(path);
    if (old && old.id.uid === id.uid) this.untrack(path, old);
    // Its dependents lost an owner; owners waiting for it may finish.
    for (const dep of this.dependentsOf(id)) this.enqueue('dependent', dep.id);
    for (const r of ownerRefsOf(o)) this.enqueueOwnerIfWaiting(r, id);
  }

  private track(path: string, t: Tracked): void {
    this.byPath.set(path, t);
    for (const r of t.owners) {
      let set = this.byOwner.get(r.uid);
      if (!set) this.byOwner.set(r.uid, (set = new Set()));
      set.add(path);
    }
  }

  private untrack(path: string, t: Tracked): void {
    if (this.byPath.get(path) === t) this.byPath.delete(path);
    for (const r of t.owners) {
      const set = this.byOwner.get(r.uid);
      if (!set) continue;
      set.delete(path);
      if (!set.size) this.byOwner.delete(r.uid);
    }
  }

  /**
   * Tracked dependents of an owner: those referencing its uid, in its namespace when the owner is
   * namespaced (a reference cannot reach across namespaces), anywhere when it is cluster-scoped.
   */
  private dependentsOf(owner: Ident): Tracked[] {
    const out: Tracked[] = [];
    for (const path of this.byOwner.get(owner.uid) ?? []) {
      const t = this.byPath.get(path);
      if (!t) continue;
      if (owner.served.kind.namespaced && t.id.namespace !== owner.namespace) continue;
      out.push(t);
    }
    return out;
  }

  /** Queue the owner named by `ref` for a foreground check if the index says it is deleting. */
  private enqueueOwnerIfWaiting(ref: OwnerReference, dependent: Ident): void {
    const owner = this.ownerIdent(ref, dependent);
    if (!owner) return;
    const e = this.storage.entry(this.keyOf(owner));
    if (e && e.deleting && e.uid === ref.uid) this.enqueue('foreground', owner);
  }

  /** Where the owner named by `ref` lives, or undefined (kind not served, or an invalid reference). */
  private ownerIdent(ref: OwnerReference, dependent: Ident): Ident | undefined {
    const served = this.byApiVersionKind.get(`${ref.apiVersion}|${ref.kind}`);
    if (!served) return undefined;
    if (served.kind.namespaced && !dependent.served.kind.namespaced) return undefined;
    return { served, namespace: served.kind.namespaced ? dependent.namespace : '', name: ref.name, uid: ref.uid };
  }

  private enqueue(job: Job, id: Ident): void {
    this.queue.add({ key: `${job}:${objectPath(this.keyOf(id))}`, job, id });
  }

  private identOf(served: ServedKind, o: KubeObject): Ident {
    return { served, namespace: served.kind.namespaced ? o.metadata.namespace ?? '' : '', name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' };
  }

  private keyOf(id: Ident): ObjectKey {
    return { group: id.served.kind.group, resource: id.served.kind.resource, namespace: id.namespace, name: id.name };
  }

  // ------------------------------------------------------------------ work

  private async process(t: Task): Promise<void> {
    // Decide on the log's end, not on a lagging local fold (Kafka replicas).
    await this.storage.latest();
    // Work queued for an object of a kind removed since is dropped (its objects are left alone).
    const k = t.id.served.kind;
    if (this.registry.lookup(k.group, k.versions[0]!, k.resource) !== t.id.served) return;
    if (t.job === 'dependent') return this.attemptToDelete(t.id);
    if (t.job === 'foreground') return this.processDeletingDependents(t.id);
    return this.attemptToOrphan(t.id);
  }

  /** The live object if it is still the one identified (same uid), else undefined. */
  private async read(id: Ident): Promise<KubeObject | undefined> {
    try {
      const o = parseObject(await id.served.store.getLatest(id.namespace, id.name));
      return o.metadata.uid === id.uid ? o : undefined;
    } catch (e) {
      if (errCode(e) === 404) return undefined;
      throw e;
    }
  }

  /** kube's attemptToDeleteItem for an object that has (or had) owners. */
  private async attemptToDelete(id: Ident): Promise<void> {
    const o = await this.read(id);
    if (!o) return this.forget(id);
    if (beingDeleted(o)) {
      if (deletingDependents(o)) this.enqueue('foreground', id);
      return; // one-way trip: its own deletion will be observed
    }
    const refs = ownerRefsOf(o);
    if (!refs.length) return;
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const ownerId = this.ownerIdent(ref, id);
      // Unknown kind or namespaced owner of a cluster-scoped object: kube's GC errors on it and
      // never deletes the dependent; we leave it until it changes.
      if (!ownerId) return;
      const owner = await this.read(ownerId);
      if (!owner) dangling.push(ref);
      else if (deletingDependents(owner)) waiting.push(ref);
      else solid.push(ref);
    }
    if (solid.length) {
      if (!dangling.length && !waiting.length) return;
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      return this.patchOwnerRefs(id, o, refs.filter((r) => !drop.has(r.uid)));
    }
    if (waiting.length && this.dependentsOf(id).length) {
      // Cycle guard: a dependent of ours also waits for its dependents; stop blocking owners.
      if (this.dependentsOf(id).some((d) => d.deletingDependents) && refs.some((r) => r.blockOwnerDeletion)) {
        await this.patchOwnerRefs(id, o, refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r)));
        return; // the patch is observed and this item comes back with the new version
      }
      return this.deleteObject(id, o, 'Foreground');
    }
    const policy = hasFinalizer(o, FINALIZER_ORPHAN) ? 'Orphan' : hasFinalizer(o, FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    return this.deleteObject(id, o, policy);
  }

  /** kube's processDeletingDependentsItem. */
  private async processDeletingDependents(id: Ident): Promise<void> {
    const o = await this.read(id);
    if (!o || !deletingDependents(o)) return;
    const dependents = this.dependentsOf(id);
    const blocking = dependents.filter((d) => d.owners.some((r) => r.uid === id.uid && r.blockOwnerDeletion === true));
    if (!blocking.length) return this.removeFinalizer(id, o, FINALIZER_FOREGROUND);
    // All of them (kube enqueues every dependent when foreground deletion starts); a stale entry
    // is dropped by its own step, which re-queues this owner.
    for (const d of dependents) this.enqueue('dependent', d.id);
  }

  /** kube's attemptToOrphanWorker: drop references to the owner, then its `orphan` finalizer. */
  private async attemptToOrphan(id: Ident): Promise<void> {
    const o = await this.read(id);
    if (!o || !beingDeleted(o) || !hasFinalizer(o, FINALIZER_ORPHAN)) return;
    for (const d of this.dependentsOf(id)) {
      const dep = await this.read(d.id);
      if (!dep) {
        this.forget(d.id);
        continue;
      }
      const refs = ownerRefsOf(dep);
      if (!refs.some((r) => r.uid === id.uid)) continue;
      await this.patchOwnerRefs(d.id, dep, refs.filter((r) => r.uid !== id.uid));
    }
    return this.removeFinalizer(id, o, FINALIZER_ORPHAN);
  }

  /** An index entry whose object is gone: drop it and let owners waiting on it re-check. */
  private forget(id: Ident): void {
    const path = objectPath(this.keyOf(id));
    const t = this.byPath.get(path);
    if (!t || t.id.uid !== id.uid) return;
    this.untrack(path, t);
    for (const r of t.owners) this.enqueueOwnerIfWaiting(r, id);
  }

  // ------------------------------------------------------------------ guarded writes

  private async deleteObject(id: Ident, o: KubeObject, propagationPolicy: string): Promise<void> {
    try {
      await id.served.store.delete(this.ctx, id.namespace, id.name, {
        preconditions: { uid: id.uid, resourceVersion: o.metadata.resourceVersion },
        propagationPolicy,
      });
    } catch (e) {
      if (errCode(e) !== 404) throw e;
    }
  }

  private async removeFinalizer(id: Ident, o: KubeObject, finalizer: string): Promise<void> {
    const rest = (o.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    await this.patchMeta(id, { finalizers: rest.length ? rest : null, uid: id.uid, resourceVersion: o.metadata.resourceVersion });
  }

  private async patchOwnerRefs(id: Ident, o: KubeObject, refs: OwnerReference[]): Promise<void> {
    await this.patchMeta(id, { ownerReferences: refs.length ? refs : null, uid: id.uid, resourceVersion: o.metadata.resourceVersion });
  }

  /** JSON merge patch of metadata; uid and resourceVersion in it are preconditions (409 → retry). */
  private async patchMeta(id: Ident, metadata: Record<string, unknown>): Promise<void> {
    try {
      await id.served.store.patch(this.ctx, id.namespace, id.name, 'merge', Buffer.from(JSON.stringify({ metadata })));
    } catch (e) {
      if (errCode(e) !== 404) throw e;
    }
  }
}
