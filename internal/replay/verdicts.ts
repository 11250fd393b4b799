/**
 * Verdicts without a store: the pure fold (mvcc/fold.ts) over an in-memory key index. A verdict
 * depends only on the index entries (rv, uid, deleting) of the object and of its namespace, never
 * on object bodies, so tools that need verdicts but no snapshot (history, audit) fold the whole
 * log in memory instead of writing a LevelDB.
 *
 * The index bookkeeping mirrors Materializer.foldLocked (GENESIS skipped; accepted DELETE removes
 * the entry; any other accepted event sets {rv: offset, uid, deleting}). verdicts.test.ts checks
 * that both give the same verdict for every event of a mixed log, so the two cannot drift apart
 * silently.
 */
import { fold, type IndexEntry, type Verdict } from '../storage/mvcc/fold.ts';
import { objectPath, type ObjectKey } from '../storage/keys.ts';
import type { PositionedEvent } from '../storage/log/event.ts';

const nsPath = (ns: string): string => objectPath({ group: '', resource: 'namespaces', namespace: '', name: ns });

export class VerdictFold {
  /** objectPath → entry of every live object, as of the last applied event. */
  private readonly index = new Map<string, IndexEntry>();
  private last = -1;

  /**
   * Apply the next event (offsets strictly increasing) and return its verdict; null for GENESIS,
   * which the materializer skips too. Mutates the index.
   */
  apply({ offset, event }: PositionedEvent): Verdict | null {
    if (offset <= this.last) throw new Error(`verdict fold went backwards: offset ${offset} after ${this.last}`);
    this.last = offset;
    if (event.op === 'GENESIS') return null;
    const key: ObjectKey = { group: event.group, resource: event.resource, namespace: event.namespace, name: event.name };
    const path = objectPath(key);
    const verdict = fold(offset, this.index.get(path), event, (ns) => this.index.get(nsPath(ns)));
    if (!verdict.accepted) return verdict;
    if (verdict.op === 'DELETE') this.index.delete(path);
    else this.index.set(path, { rv: offset, uid: event.uid, deleting: event.deleting });
    return verdict;
  }

  /** Live objects after the last applied event. */
  get size(): number {
    return this.index.size;
  }
}
