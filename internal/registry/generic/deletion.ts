/**
 * Pure rules of a DELETE that only marks an object (kube-apiserver's generic Store.Delete with
 * garbage collection enabled, k8s.io/apiserver pkg/registry/generic/registry/store.go, and the
 * Namespace REST's own variant): which garbage-collector finalizers DeleteOptions add or remove,
 * and how the object is marked as deleting. No I/O; the store applies the results.
 *
 * Worked example (ConfigMap, no default policy, finalizers ["example.com/x"]):
 *   propagationPolicy=Foreground → ["example.com/x", "foregroundDeletion"], deletionTimestamp now,
 *                                  deletionGracePeriodSeconds 0 → 200 with the object
 *   then propagationPolicy=Orphan → ["example.com/x", "orphan"] (deletionTimestamp kept)
 *   then Background              → ["example.com/x"]
 *   then Background on ["foregroundDeletion"] alone → [] → the object is removed at once
 */
import type { ObjectMeta } from '../../api/types.ts';
import type { GarbageCollectionPolicy } from '../rest/strategy.ts';

/** metav1.FinalizerOrphanDependents: the garbage collector orphans dependents, then removes it. */
export const FINALIZER_ORPHAN = 'orphan';
/** metav1.FinalizerDeleteDependents: the garbage collector deletes blocking dependents first. */
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** The DeleteOptions fields these rules read (see store.ts DeleteOptions). */
export interface PropagationOptions {
  propagationPolicy?: string;
  orphanDependents?: boolean;
}

const finalizersOf = (meta: ObjectMeta): string[] => (Array.isArray(meta.finalizers) ? meta.finalizers : []);

/**
 * shouldOrphanDependents: explicit orphanDependents, then propagationPolicy, then an existing GC
 * finalizer, then the kind's default policy decide whether the `orphan` finalizer belongs.
 */
export function shouldOrphanDependents(policy: GarbageCollectionPolicy | undefined, meta: ObjectMeta, opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy === 'Orphan') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Foreground') return false;
  for (const f of finalizersOf(meta)) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return policy === 'OrphanDependents';
}

/**
 * shouldDeleteDependents: whether the `foregroundDeletion` finalizer belongs. Note that
 * `orphanDependents: false` means "not orphan" here, not "foreground" (unlike Namespace).
 */
export function shouldDeleteDependents(policy: GarbageCollectionPolicy | undefined, meta: ObjectMeta, opts: PropagationOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy === 'Foreground') return true;
  if (opts.propagationPolicy === 'Background' || opts.propagationPolicy === 'Orphan') return false;
  for (const f of finalizersOf(meta)) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * deletionFinalizersForGarbageCollection: the finalizer list a delete leaves (other finalizers
 * in their order, then `orphan`, then `foregroundDeletion`), and whether it differs as a set.
 */
export function deletionFinalizers(policy: GarbageCollectionPolicy | undefined, meta: ObjectMeta, opts: PropagationOptions): { changed: boolean; finalizers: string[] } {
  const current = finalizersOf(meta);
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphanDependents(policy, meta, opts)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteDependents(policy, meta, opts)) next.push(FINALIZER_FOREGROUND);
  const a = new Set(current);
  const b = new Set(next);
  const same = a.size === b.size && [...a].every((f) => b.has(f));
  return same ? { changed: false, finalizers: current } : { changed: true, finalizers: next };
}

/**
 * Namespace REST Delete's rule on the first delete: DeleteOptions alone decide, else the current
 * finalizer stays; here `orphanDependents: false` does mean foreground. Returns the new list
 * (other finalizers first, in order) or undefined when nothing changes.
 */
export function lifecycleDeletionFinalizers(meta: ObjectMeta, opts: PropagationOptions): string[] | undefined {
  const current = finalizersOf(meta);
  const has = (f: string): boolean => current.includes(f);
  const orphan = opts.orphanDependents !== undefined ? opts.orphanDependents : opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Orphan' : has(FINALIZER_ORPHAN);
  const foreground =
    opts.orphanDependents !== undefined ? !opts.orphanDependents : opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Foreground' : has(FINALIZER_FOREGROUND);
  if (orphan === has(FINALIZER_ORPHAN) && foreground === has(FINALIZER_FOREGROUND)) return undefined;
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (orphan) next.push(FINALIZER_ORPHAN);
  if (foreground) next.push(FINALIZER_FOREGROUND);
  return next;
}

/**
 * markAsDeleting: generation bumped on the first mark (kinds that keep one), deletionTimestamp
 * set to now unless already set (or set later than now), deletionGracePeriodSeconds 0. Mutates.
 */
export function markAsDeleting(meta: ObjectMeta, now: string): void {
  if (!meta.deletionTimestamp && typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  if (!meta.deletionTimestamp || meta.deletionTimestamp > now) meta.deletionTimestamp = now;
  meta.deletionGracePeriodSeconds = 0;
}

/** Replace the finalizer list (an empty list drops the field, as Go's omitempty does). Mutates. */
export function setFinalizers(meta: ObjectMeta, finalizers: string[]): void {
  if (finalizers.length) meta.finalizers = finalizers;
  else delete meta.finalizers;
}
