/**
 * What a watch stream looks like to the hub (hub.ts): its filter, the sink changes are delivered
 * to, the handle it gets back, and the memo that lets every sink of one delivery share what it
 * derives from a change.
 */
import type { Change } from '../storage/mvcc/materializer.ts';

export interface WatchFilter {
  group: string;
  resource: string;
  /** '' = all namespaces. */
  namespace: string;
  /** Only this object (fieldSelector metadata.name=…), or ''. */
  name: string;
}

/**
 * Why the hub ended a watcher: 'slow', its own queue passed its budget; 'budget', the queues of
 * all watchers together passed the total and this one held the most (watch/budget.ts); 'closed',
 * the hub closed; 'expired', its start version was compacted away while it caught up.
 */
export type EndReason = 'slow' | 'budget' | 'closed' | 'expired';

/**
 * Values derived from one change, shared by every sink a batch is delivered to. Owners are the
 * hub's Change objects (and buffers they hold); a memo lives for one publish or one replay batch
 * only, so nothing derived (frames, Table ages) outlives the moment it was made for.
 */
export class FanOutMemo {
  private readonly entries = new Map<object, Map<string, unknown>>();

  /** The value of (owner, key): made by `make` the first time, the same value afterwards. */
  get<T>(owner: object, key: string, make: () => T): T {
    let byKey = this.entries.get(owner);
    if (!byKey) this.entries.set(owner, (byKey = new Map()));
    const known = byKey.get(key);
    if (known !== undefined || byKey.has(key)) return known as T;
    const v = make();
    byKey.set(key, v);
    return v;
  }
}

/** Events serialized and sent by the watch streams, by format (metrics; see WatchHub.countEncoded). */
export interface WatchEventCounts {
  encoded: Record<string, number>;
  sent: Record<string, number>;
}

export interface WatchSink {
  /**
   * Deliver a change; return false when the watcher cannot keep up (it will be ended). `memo` is
   * shared with the other sinks the same change goes to (see FanOutMemo). A sink with `flush` may
   * hold what it delivers until the hub calls flush.
   */
  deliver(change: Change, memo: FanOutMemo): boolean;
  /**
   * Optional: send what `deliver` held. The hub calls it after each batch it delivered to this
   * sink (live, ring replay, log replay batch), before anything else can happen. `batch` is what
   * the hub offered (the changes of the watcher's resource and namespace, before its name
   * filter) — the same array for every watcher offered the same changes, so a sink may share
   * what it builds from a whole batch through the memo. False: too slow.
   */
  flush?(memo: FanOutMemo, batch: readonly Change[]): boolean;
  /**
   * The hub ends the watcher: too slow, hub closed, or (while catching up from the log) its start
   * version was compacted away before it was fully replayed. Called at most once.
   */
  end(reason: EndReason): void;
  /**
   * Optional: resolves when the watcher has room again. Only awaited while catching up from the
   * log, where the hub may wait; live fan-out never waits.
   */
  drained?(): Promise<void>;
}

export interface WatchHandle {
  /** false: `from` is older than the retained history (the caller answers 410 Expired). */
  ok: boolean;
  stop: () => void;
  /**
   * Every committed change up to the folded offset has been offered to the sink (false while
   * catching up from the log). Only then may a BOOKMARK claim the folded offset.
   */
  caughtUp: () => boolean;
  /** End the watcher as too slow, on its own or for the total budget (counted with the hub's ends); its sink's `end` is called. */
  endSlow: (reason?: 'slow' | 'budget') => void;
}
