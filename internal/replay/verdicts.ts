/**
 * Verdicts without a store: the pure fold (mvcc/fold.ts) over an in-memory key index. A verdict
 * depends only on the index entries (rv, uid, deleting) of the object and of its namespace, never
 * on object bodies, so tools that need verdicts but no snapshot (history, audit) fold the whole
 * log in memory instead of writing a LevelDB.
 *
 * The index and its update rule are the Materializer's own (mvcc/key-index.ts); verdicts.test.ts
 * still checks both give the same verdict for every event of a mixed log.
 */
import type { Verdict } from '../storage/mvcc/fold.ts';
import { KeyIndex } from '../storage/mvcc/key-index.ts';
import type { PositionedEvent } from '../storage/log/event.ts';

export class VerdictFold {
  /** Every live object, as of the last applied event. */
  private readonly index = new KeyIndex();
  private last = -1;

  /**
   * Apply the next event (offsets strictly increasing) and return its verdict; null for GENESIS,
   * which the materializer skips too. Mutates the index.
   */
  apply({ offset, event }: PositionedEvent): Verdict | null {
    if (offset <= this.last) throw new Error(`verdict fold went backwards: offset ${offset} after ${this.last}`);
    this.last = offset;
    return this.index.apply(offset, event)?.verdict ?? null;
  }

  /** Live objects after the last applied event. */
  get size(): number {
    return this.index.size;
  }
}
