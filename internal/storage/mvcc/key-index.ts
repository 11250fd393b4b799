/**
 * The key index the fold reads (etcd's keyIndex, reduced to what the fold needs) and the one rule
 * that updates it: GENESIS folds to nothing; an accepted DELETE removes the entry; any other
 * accepted event sets {rv: offset, uid, deleting}. The Materializer and the replay tools share it,
 * so a rebuild and a live fold cannot disagree on a verdict.
 */
import { fold, type IndexEntry, type Verdict } from './fold.ts';
import { objectPath, namespacePath, type ObjectKey } from '../keys.ts';
import { eventKey, type FoldEvent } from '../log/event.ts';

/** The i/ value: "rv uid deleting". */
export const encodeIndexEntry = (e: IndexEntry): Buffer => Buffer.from(`${e.rv} ${e.uid} ${e.deleting ? 1 : 0}`);

/** The i/ value as text (ASCII: digits, a UID, 0/1). */
export function parseIndexEntry(s: string): IndexEntry {
  const a = s.indexOf(' ');
  const z = s.lastIndexOf(' ');
  return { rv: Number(s.slice(0, a)), uid: s.slice(a + 1, z), deleting: s.charCodeAt(z + 1) === 0x31 };
}

export interface Folded {
  key: ObjectKey;
  path: string;
  verdict: Verdict;
  /** The entry before this event (what `restore` puts back to undo it). */
  previous: IndexEntry | undefined;
}

export class KeyIndex {
  /**
   * path → entry. Entries loaded at start-up stay in their stored text form until first read
   * (`get` parses and keeps the object): a start-up with 100k objects then allocates 100k short
   * strings, not 100k entry objects, and parses only the entries that writes touch.
   */
  private readonly entries = new Map<string, IndexEntry | string>();
  /**
   * Live objects per resource prefix (`<group>/<resource>/`) and per namespace prefix
   * (`<group>/<resource>/<ns>/`), for list pages' remainingItemCount: built in one pass over the
   * index the first time a list asks, then kept by apply() (two map updates per accepted create
   * or delete). Null until then, so a server nobody pages through never pays for it.
   */
  private counted: Map<string, number> | null = null;

  get size(): number {
    return this.entries.size;
  }

  get(path: string): IndexEntry | undefined {
    const e = this.entries.get(path);
    if (typeof e !== 'string') return e;
    const parsed = parseIndexEntry(e);
    this.entries.set(path, parsed);
    return parsed;
  }

  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** Load an entry as stored (start-up): the object, or the i/ value's text (parsed when read). */
  set(path: string, e: IndexEntry | string): void {
    this.entries.set(path, e);
  }

  clear(): void {
    this.entries.clear();
    this.counted = null;
  }

  /**
   * Undo an apply: put back the entry `path` had before it (undefined: it had none). Also how a
   * follower takes the leader's entry (as the i/ value's text, parsed when read, as at load).
   */
  restore(path: string, previous: IndexEntry | string | undefined): void {
    const before = this.entries.size;
    if (previous === undefined) this.entries.delete(path);
    else this.entries.set(path, previous);
    if (this.entries.size !== before) this.recount(path, this.entries.size - before);
  }

  /**
   * Live objects under `prefix`: a resource's (`<group>/<resource>/`) or one namespace's
   * (`<group>/<resource>/<ns>/`) path prefix, exactly as lists build them.
   */
  countUnder(prefix: string): number {
    if (!this.counted) {
      this.counted = new Map();
      for (const path of this.entries.keys()) this.recount(path, 1);
    }
    return this.counted.get(prefix) ?? 0;
  }

  /** An object appeared (+1) or went away (−1): adjust the counts of its resource and namespace prefixes. */
  private recount(path: string, delta: number): void {
    const counted = this.counted;
    if (!counted) return;
    const resourceEnd = path.indexOf('/', path.indexOf('/') + 1) + 1;
    const resource = path.slice(0, resourceEnd);
    const namespace = path.slice(0, path.indexOf('/', resourceEnd) + 1);
    counted.set(resource, (counted.get(resource) ?? 0) + delta);
    counted.set(namespace, (counted.get(namespace) ?? 0) + delta);
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
  apply(offset: number, event: FoldEvent): Folded | null {
    if (event.op === 'GENESIS') return null;
    const key = eventKey(event);
    const path = objectPath(key);
    const previous = this.get(path);
    const verdict = fold(offset, previous, event, (ns) => this.get(namespacePath(ns)));
    if (verdict.accepted) {
      const before = this.entries.size;
      if (verdict.op === 'DELETE') this.entries.delete(path);
      else this.entries.set(path, { rv: offset, uid: event.uid, deleting: event.deleting });
      if (this.entries.size !== before) this.recount(path, this.entries.size - before);
    }
    return { key, path, verdict, previous };
  }
}
