/**
 * How many seats a request takes (kube 1.24 pkg/util/flowcontrol/request, on by default): a LIST
 * one seat per 100 objects it will read (1–10), a write one seat while it runs plus, when at least
 * 10 watches will get its event, ceil(watches / 10) seats (≤ 10) held 5 ms × that / seats after it;
 * everything else one seat. The watch counts come from the watches this limiter let in.
 */
import type { WorkEstimate } from './queue-set.ts';

const MIN_SEATS = 1;
const MAX_SEATS = 10;
/** kube's watchesPerSeat and eventAdditionalDuration. */
const WATCHES_PER_SEAT = 10;
const EVENT_ADDITIONAL_MS = 5;

export interface EstimatedRequest {
  verb: string;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  query: URLSearchParams;
}

const ONE_SEAT: WorkEstimate = Object.freeze({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });

export class WorkEstimator {
  /**
   * @param objectCount stored objects of a resource by kube's GroupResource string
   *   (`configmaps`, `deployments.apps`); undefined when unknown (then one seat, as kube).
   */
  constructor(private readonly objectCount: (groupResource: string) => number | undefined, private readonly watches: WatchTracker) {}

  estimate(r: EstimatedRequest): WorkEstimate {
    switch (r.verb) {
      case 'list':
        return this.list(r);
      case 'create':
      case 'update':
      case 'patch':
      case 'delete':
        return this.mutating(r);
      default:
        return ONE_SEAT;
    }
  }

  private list(r: EstimatedRequest): WorkEstimate {
    if (r.name) return ONE_SEAT;
    const q = r.query;
    const limitText = q.get('limit');
    const limitOpt = limitText === null || limitText === '' ? 0 : Number(limitText);
    // A list whose options do not parse fails later; kube reserves the most for it meanwhile.
    if (!Number.isInteger(limitOpt)) return { initialSeats: MAX_SEATS, finalSeats: 0, additionalLatencyMs: 0 };
    const rv = q.get('resourceVersion') ?? '';
    const fromStorage = rv === '' || !!q.get('continue') || (limitOpt > 0 && rv !== '0') || q.get('resourceVersionMatch') === 'Exact';
    const stored = this.objectCount(r.group ? `${r.resource}.${r.group}` : r.resource);
    if (stored === undefined) return ONE_SEAT;
    const limit = limitOpt > 0 && limitOpt < stored ? limitOpt : stored;
    const objects = !fromStorage ? stored : q.get('fieldSelector') || q.get('labelSelector') ? stored + limit : 2 * limit;
    const seats = Math.min(MAX_SEATS, Math.max(MIN_SEATS, Math.ceil(objects / 100)));
    return { initialSeats: seats, finalSeats: 0, additionalLatencyMs: 0 };
  }

  private mutating(r: EstimatedRequest): WorkEstimate {
    const watches = this.watches.interested(r);
    if (watches < WATCHES_PER_SEAT) return ONE_SEAT;
    const needed = Math.ceil(watches / WATCHES_PER_SEAT);
    const finalSeats = Math.min(needed, MAX_SEATS);
    return { initialSeats: 1, finalSeats, additionalLatencyMs: (needed * EVENT_ADDITIONAL_MS) / finalSeats };
  }
}

/**
 * Watches by group, resource, namespace and name (kube's watchTracker): a write's event goes to the
 * watches of its resource cluster-wide, in its namespace and on its name. A pod watch with an exact
 * spec.nodeName field selector (a kubelet's) is not counted: kube's watch cache indexes those.
 */
export class WatchTracker {
  private readonly counts = new Map<string, number>();

  /** A watch started; the returned function forgets it (call once, when it ends). */
  register(w: EstimatedRequest): () => void {
    if (w.resource === 'pods' && nodeNameSelected(w.query.get('fieldSelector'))) return () => undefined;
    const key = watchKey(w.group, w.resource, w.namespace, w.name);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    let forgotten = false;
    return () => {
      if (forgotten) return;
      forgotten = true;
      const n = (this.counts.get(key) ?? 1) - 1;
      if (n === 0) this.counts.delete(key);
      else this.counts.set(key, n);
    };
  }

  /** Watches a write to this object would notify. */
  interested(r: { group: string; resource: string; namespace: string; name: string }): number {
    let n = this.counts.get(watchKey(r.group, r.resource, '', '')) ?? 0;
    if (r.namespace) n += this.counts.get(watchKey(r.group, r.resource, r.namespace, '')) ?? 0;
    if (r.name) n += this.counts.get(watchKey(r.group, r.resource, r.namespace, r.name)) ?? 0;
    return n;
  }
}

const watchKey = (group: string, resource: string, namespace: string, name: string): string => `${group}/${resource}/${namespace}/${name}`;

/** Whether a field selector requires spec.nodeName to equal a non-empty value. */
function nodeNameSelected(selector: string | null): boolean {
  if (!selector) return false;
  return selector.split(',').some((term) => {
    const m = /^\s*spec\.nodeName\s*==?\s*(.*?)\s*$/.exec(term);
    return !!m && m[1] !== '';
  });
}
