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
import type { KubeObject, ObjectMeta } from '../../api/types.ts';
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

/**
 * rest.BeforeDelete for a kind with graceful deletion (RESTGracefulDeleteStrategy, e.g. Pods).
 * `check` is the kind's CheckGracefulDelete: the period for an object not yet deleting, given the
 * request's gracePeriodSeconds (negative already raised to 1). Mutates `meta` (the object to
 * write) and answers:
 *   'pending' — already deleting with a period no longer than the request's: answer as is;
 *   true      — marked: deletionTimestamp = now + period (or moved earlier), deletionGracePeriodSeconds
 *               = period (a zero period is deleted right after the mark);
 *   false     — not graceful (already deleting with period 0): the ordinary delete rules apply.
 * Worked example: a scheduled Pod with terminationGracePeriodSeconds 30, no options → deletion at
 * now+30s, period 30; then gracePeriodSeconds=0 → timestamp moved back by 30s, period 0 → deleted.
 */
export function gracefulDeletion(
  check: (obj: KubeObject, gracePeriodSeconds: number | undefined) => number,
  current: KubeObject,
  meta: ObjectMeta,
  requested: number | undefined,
  now: Date,
): boolean | 'pending' {
  const grace = requested !== undefined && requested < 0 ? 1 : requested;
  let period = meta.deletionGracePeriodSeconds;
  if (typeof period === 'number' && period < 0) period = meta.deletionGracePeriodSeconds = 1;
  if (meta.deletionTimestamp) {
    if (!period) return false;
    if (grace === undefined || grace >= period) return 'pending';
    const moved = Date.parse(meta.deletionTimestamp) - period * 1000 + grace * 1000;
    meta.deletionTimestamp = rfc3339Seconds(moved);
    meta.deletionGracePeriodSeconds = grace;
    return true;
  }
  const p = check(current, grace);
  meta.deletionTimestamp = rfc3339Seconds(now.getTime() + p * 1000);
  meta.deletionGracePeriodSeconds = p;
  if (typeof meta.generation === 'number' && meta.generation > 0) meta.generation += 1;
  return true;
}

/** metav1.Time as JSON writes it: RFC3339 in UTC, whole seconds. */
const rfc3339Seconds = (ms: number): string => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
