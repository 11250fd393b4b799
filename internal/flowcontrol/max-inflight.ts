/**
 * kube-apiserver's plain limiter, used instead of Priority and Fairness with
 * `--enable-priority-and-fairness=false` (k8s.io/apiserver filters/maxinflight.go): at most
 * --max-requests-inflight read-only (get, list, watch) and --max-mutating-requests-inflight other
 * requests run at once; one over the limit is answered 429 at once, unless its user is in
 * system:masters. A limit of 0 means unlimited.
 */
export class MaxInflightLimiter {
  private readOnly = 0;
  private mutating = 0;

  constructor(private readonly readOnlyLimit: number, private readonly mutatingLimit: number) {}

  /** Take a slot; a release function, or null when the request must be rejected. */
  tryAcquire(isMutating: boolean, groups: readonly string[]): (() => void) | null {
    const limit = isMutating ? this.mutatingLimit : this.readOnlyLimit;
    if (limit === 0) return () => undefined;
    const used = isMutating ? this.mutating : this.readOnly;
    if (used >= limit) return groups.includes('system:masters') ? () => undefined : null;
    if (isMutating) this.mutating++;
    else this.readOnly++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (isMutating) this.mutating--;
      else this.readOnly--;
    };
  }
}
