/**
 * Watch fan-out: one subscription to the materializer's committed changes per process, an
 * in-memory ring of recent changes, and per-watcher bounded queues.
 *
 * A watcher registers and replays the ring after its start version in the same synchronous step,
 * so it sees every change after that version exactly once (style guide rule 7). Delivery never
 * awaits a watcher: a watcher whose queue exceeds its bound is ended and its client relists.
 */
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';

/** Changes kept in memory for resuming watches; older start versions get 410 Gone. */
export const DEFAULT_RING_SIZE = 100_000;

export interface WatchFilter {
  group: string;
  resource: string;
  /** '' = all namespaces. */
  namespace: string;
  /** Only this object (fieldSelector metadata.name=…), or ''. */
  name: string;
}

export interface WatchSink {
  /** Deliver a change; return false when the watcher cannot keep up (it will be ended). */
  deliver(change: Change): boolean;
  /** The hub ends the watcher (slow consumer or shutdown). */
  end(reason: 'slow' | 'closed'): void;
}

interface Watcher {
  filter: WatchFilter;
  sink: WatchSink;
}

export class WatchHub {
  private readonly ring: Change[] = [];
  /** Changes after this offset are all in the ring (or none happened). */
  private ringFrom: number;
  private readonly watchers = new Set<Watcher>();
  private readonly unsubscribe: () => void;

  constructor(private readonly storage: Storage, private readonly ringSize = DEFAULT_RING_SIZE) {
    this.ringFrom = storage.folded;
    this.unsubscribe = storage.onChange((changes) => this.publish(changes));
  }

  /** Oldest start version a watch can resume from. */
  get oldestResumable(): number {
    return this.ringFrom;
  }

  get size(): number {
    return this.watchers.size;
  }

  private publish(changes: Change[]): void {
    for (const c of changes) this.ring.push(c);
    if (this.ring.length > this.ringSize) {
      const drop = this.ring.length - this.ringSize;
      this.ringFrom = this.ring[drop - 1].offset;
      this.ring.splice(0, drop);
    }
    for (const w of this.watchers) {
      for (const c of changes) {
        if (!matches(w.filter, c)) continue;
        if (!w.sink.deliver(c)) {
          this.watchers.delete(w);
          w.sink.end('slow');
          break;
        }
      }
    }
  }

  /**
   * Start watching after version `from`. Returns false when `from` is older than the ring (the
   * caller answers 410 Expired). Replay and registration happen in one synchronous step.
   */
  watch(filter: WatchFilter, from: number, sink: WatchSink): { ok: boolean; stop: () => void } {
    if (from < this.ringFrom) return { ok: false, stop: () => undefined };
    const w: Watcher = { filter, sink };
    // Binary search would do; the ring is scanned from the end because starts are usually recent.
    let i = this.ring.length;
    while (i > 0 && this.ring[i - 1].offset > from) i--;
    for (; i < this.ring.length; i++) {
      const c = this.ring[i];
      if (matches(filter, c) && !sink.deliver(c)) {
        sink.end('slow');
        return { ok: true, stop: () => undefined };
      }
    }
    this.watchers.add(w);
    return { ok: true, stop: () => this.watchers.delete(w) };
  }

  close(): void {
    this.unsubscribe();
    for (const w of this.watchers) w.sink.end('closed');
    this.watchers.clear();
  }
}

function matches(f: WatchFilter, c: Change): boolean {
  return c.key.resource === f.resource && c.key.group === f.group && (!f.namespace || c.key.namespace === f.namespace) && (!f.name || c.key.name === f.name);
}
