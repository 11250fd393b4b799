/**
 * The key index the fold reads (etcd's keyIndex, reduced to what the fold needs) and the one rule
 * that updates it: GENESIS folds to nothing; an accepted DELETE removes the entry; any other
 * accepted event sets {rv: offset, uid, deleting}. The Materializer and the replay tools share it,
 * so a rebuild and a live fold cannot disagree on a verdict.
 */
import { fold, type IndexEntry, type Verdict } from './fold.ts';
import { objectPath, namespacePath, type ObjectKey } from '../keys.ts';
import { eventKey, type LogEvent } from '../log/event.ts';

/** The i/ value: "rv uid deleting". */
export const encodeIndexEntry = (e: IndexEntry): Buffer => Buffer.from(`${e.rv} ${e.uid} ${e.deleting ? 1 : 0}`);

export function decodeIndexEntry(b: Buffer): IndexEntry {
  const [rv, uid, del] = b.toString().split(' ');
  return { rv: Number(rv), uid, deleting: del === '1' };
}

export interface Folded {
  key: ObjectKey;
  path: string;
  verdict: Verdict;
}

export class KeyIndex {
  private readonly entries = new Map<string, IndexEntry>();

  get size(): number {
    return this.entries.size;
  }

  get(path: string): IndexEntry | undefined {
    return this.entries.get(path);
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** Load an entry as stored (start-up). */
  set(path: string, e: IndexEntry): void {
    this.entries.set(path, e);
  }

  clear(): void {
    this.entries.clear();
  }

  /**
   * Live objects per `<group>/<resource>` (group `core` for the legacy group), for metrics: one
   * pass over the index, so callers scrape it rarely (a Prometheus scrape, not a request path).
   */
  countByResource(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const path of this.entries.keys()) {
      const end = path.indexOf('/', path.indexOf('/') + 1);
      const gr = path.slice(0, end);
      counts.set(gr, (counts.get(gr) ?? 0) + 1);
    }
    return counts;
  }

  /** Fold one event at `offset` and apply its verdict to the index; null for GENESIS. */
  apply(offset: number, event: LogEvent): Folded | null {
    if (event.op === 'GENESIS') return null;
    const key = eventKey(event);
    const path = objectPath(key);
    const verdict = fold(offset, this.entries.get(path), event, (ns) => this.entries.get(namespacePath(ns)));
    if (verdict.accepted) {
      if (verdict.op === 'DELETE') this.entries.delete(path);
      else this.entries.set(path, { rv: offset, uid: event.uid, deleting: event.deleting });
    }
    return { key, path, verdict };
  }
}
