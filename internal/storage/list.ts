/**
 * Reading a collection (one resource, optionally one namespace) from one LevelDB snapshot, for
 * lists: the storage side of registry/generic/reader.ts, which keeps kube's request semantics
 * (which version a list is served at, pages, continue tokens, selectors).
 *
 *   latest  — the o/ keys, plus the m/folded stored with them (the list's exact resourceVersion);
 *   at rv X — the h/ keys, taking per object the newest version ≤ X (MVCC history).
 * Both iterate in the same key order (keys.ts), so a paginated list may start on o/ and continue
 * on h/. Both stream: one iterator, at most a batch of values held, values passed on as LevelDB
 * returns them (decrypted only for resources encrypted at rest).
 *
 * Positions: a read hands out objects as [path, value], `path` being the storage's own (opaque to
 * callers); `position(path)` is what a continue token carries — the path relative to the
 * collection, as kube's storage.EncodeContinue keeps the key relative to the list's prefix — and
 * a later read resumes after it (`objects(after)`).
 */
import type { Db } from './mvcc/materializer.ts';
import { currentPrefix, currentKeyOf, historyEndOf, pathOfCurrentKey, pathOfHistoryKey, parseObjectPath, rvOfHistoryKey, fromHex16, META_FOLDED } from './keys.ts';
import { StorageError } from './errors.ts';
import type { ValueDecoder } from './encryption/at-rest.ts';
import { batchesOf, closeEmptied, countKeys, type BatchSizes } from './batches.ts';

export type { BatchSizes } from './batches.ts';

/** A resource's objects, or one namespace of them (`namespace` unset or '': all namespaces). */
export interface Collection {
  group: string;
  resource: string;
  namespace?: string;
}

/** One stored object of a read: the storage's path of it and its readable value. */
export type ListEntry = [string, Buffer];

/**
 * A consistent read of one collection at version `rv`. Holds a LevelDB snapshot until `close`
 * (idempotent); the generators of `objects` close their own iterators.
 */
export interface CollectionRead {
  /** The version every object of this read is at (ListMeta.resourceVersion). */
  readonly rv: number;
  /**
   * The number of objects in the collection, from the key index, when it is known at `rv`
   * without a scan (latest reads only; undefined otherwise).
   */
  readonly liveCount: number | undefined;
  /** Objects in key order, strictly after continue position `after` when given, in batches. */
  objects(after: string | undefined, sizes: BatchSizes): AsyncGenerator<ListEntry[]>;
  /** How many objects come after the object at `path` (keys only on latest reads). */
  countAfter(path: string): Promise<number>;
  /** The continue position of the object at `path` (a ListEntry's path). */
  position(path: string): string;
  close(): Promise<void>;
}

type Snapshot = ReturnType<Db['snapshot']>;

/** Entries per read when counting: keys only on o/ (a small read each), whole versions on h/. */
const COUNT_KEYS_BATCH = 10_000;
const COUNT_BATCH = 1000;
/**
 * Bytes one LevelDB read may carry (classic-level's highWaterMarkBytes). Its default, 16 KiB,
 * holds about 12 one-KiB objects: a 100k list took ~8,000 round trips to LevelDB's thread, the
 * main thread idle in between. 4 MiB lets a batch reach its entry count.
 */
const BATCH_BYTES = 4 << 20;

/** Where the reads of a collection come from (the Storage facade supplies these). */
export interface ListSource {
  db: Db;
  decoder: ValueDecoder;
  /** The key index's count of live objects under an object path prefix, with the offset it is at. */
  liveUnder(base: string): { offset: number; count: number } | undefined;
}

/** The o/ prefix of a collection and its object-path base (what positions are relative to). */
function prefixOf(c: Collection): { prefix: string; base: string } {
  const prefix = currentPrefix(c.group, c.resource, c.namespace ? c.namespace : undefined);
  return { prefix, base: prefix.slice(2) };
}

/**
 * A read of the latest state (o/ keys). `withCount`: also take the key index's count of the
 * collection, in the same tick as the snapshot (a first page's remainingItemCount without a scan).
 */
export function readLatest(src: ListSource, c: Collection, withCount: boolean): CollectionRead {
  const { db, decoder } = src;
  const { prefix, base } = prefixOf(c);
  const end = prefixEnd(prefix);
  const snapshot = db.snapshot();
  const live = withCount ? src.liveUnder(base) : undefined;
  try {
    // Read in place (getSync): one small, hot key; a round trip to LevelDB's thread cost more.
    const f = db.getSync(META_FOLDED, { snapshot });
    const rv = f === undefined ? 0 : fromHex16(f.toString());
    return {
      rv,
      liveCount: live && live.offset === rv ? live.count : undefined,
      objects: (after, sizes) => currentObjects(db, snapshot, prefix, after !== undefined ? base + after : undefined, decoder, sizes),
      // The count reads keys only: no value leaves LevelDB for objects after the page.
      countAfter: (path) => countKeys(db.keys({ gt: currentKeyOf(path), lt: end, snapshot, highWaterMarkBytes: BATCH_BYTES }), end, COUNT_KEYS_BATCH),
      position: (path) => path.slice(base.length),
      close: closer(snapshot),
    };
  } catch (e) {
    void snapshot.close();
    throw e;
  }
}

/**
 * A read at exactly `rv` (h/ keys). `retained` throws when `rv` has been compacted away: checked
 * once the snapshot is taken — the compactor publishes its new floor before deleting anything,
 * so a floor checked after the snapshot was taken means every version ≤ rv is in it.
 */
export function readAt(src: ListSource, c: Collection, rv: number, retained: () => void): CollectionRead {
  const { db, decoder } = src;
  const { prefix, base } = prefixOf(c);
  const snapshot = db.snapshot();
  try {
    retained();
  } catch (e) {
    void snapshot.close();
    throw e;
  }
  return {
    rv,
    liveCount: undefined,
    objects: (after, sizes) => objectsAt(db, snapshot, prefix, rv, decoder, after !== undefined ? base + after : undefined, sizes),
    countAfter: async (path) => {
      let n = 0;
      for await (const batch of objectsAt(db, snapshot, prefix, rv, skipValue, path, { first: COUNT_BATCH, then: COUNT_BATCH, ahead: false })) n += batch.length;
      return n;
    },
    position: (path) => path.slice(base.length),
    close: closer(snapshot),
  };
}

/** An idempotent close of a snapshot. */
function closer(snapshot: Snapshot): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => (closing ??= snapshot.close());
}

/**
 * Stored value → object JSON (decrypted when the resource is encrypted at rest). A value that does
 * not decrypt fails the list as etcd3's store does: "unable to transform key …".
 */
function readable(decode: ValueDecoder, path: string, v: Buffer): Buffer {
  try {
    return decode(path, v);
  } catch (e) {
    const { resource, namespace, name } = parseObjectPath(path);
    throw new StorageError('corrupt', `unable to transform key "/registry/${resource}/${namespace ? `${namespace}/` : ''}${name}": ${(e as Error).message}`);
  }
}

/** For scans that only count objects. */
const skipValue: ValueDecoder = (_path, v) => v;

/** Live objects of a snapshot's o/ keys under `prefix`, in key order after object path `after`, readable, in batches. */
async function* currentObjects(db: Db, snapshot: Snapshot, prefix: string, after: string | undefined, decode: ValueDecoder, sizes: BatchSizes): AsyncGenerator<ListEntry[]> {
  const range = after !== undefined ? { gt: currentKeyOf(after) } : { gte: prefix };
  // Created when the generator starts: a generator closed before its first read holds nothing.
  const end = prefixEnd(prefix);
  const it = db.iterator({ ...range, lt: end, snapshot, highWaterMarkBytes: BATCH_BYTES });
  for await (const batch of batchesOf(it, end, sizes)) {
    for (const e of batch) {
      const path = pathOfCurrentKey(e[0]);
      e[0] = path;
      e[1] = readable(decode, path, e[1]);
    }
    yield batch;
  }
}

/**
 * Objects under the o/ `prefix` as they were at `rv`, from the h/ keys: per object the newest
 * version ≤ rv, skipping tombstones and objects created later. Read in batches; versions above rv
 * are skipped, and a batch that ends inside an object's newer versions is followed by a seek past
 * that object (so an object with many newer versions costs at most one batch of them).
 *
 *   h/…/a\0…05 (v1)  h/…/a\0…09 (v2)  h/…/a\0…20 (v3)   at rv 10 → a = v2 (v3 skipped)
 *   h/…/b\0…03 (v1)  h/…/b\0…08 ('')                     at rv 10 → b deleted, skipped
 *
 * The h/ keys of the objects come in the same order as their o/ keys (storage/keys.ts), so a
 * continue position from either read resumes the other.
 */
async function* objectsAt(db: Db, snapshot: Snapshot, prefix: string, rv: number, decode: ValueDecoder, after: string | undefined, sizes: BatchSizes): AsyncGenerator<ListEntry[]> {
  const history = 'h' + prefix.slice(1); // prefix is the list's o/ prefix; h/ keys share its path
  const end = prefixEnd(history);
  const it = db.iterator({ gte: after !== undefined ? historyEndOf(after) : history, lt: end, snapshot, highWaterMarkBytes: BATCH_BYTES });
  let path = '';
  let best: Buffer | null = null;
  try {
    let want = sizes.first;
    for (;;) {
      const batch = await it.nextv(want);
      want = sizes.then;
      if (!batch.length) break;
      const out: ListEntry[] = [];
      let newer = false; // the last entry read is a version of `path` above rv
      for (const [k, v] of batch) {
        const p = pathOfHistoryKey(k);
        if (p !== path) {
          if (best && best.length) out.push([path, readable(decode, path, best)]);
          path = p;
          best = null;
        }
        newer = rvOfHistoryKey(k) > rv;
        if (!newer) best = v;
      }
      if (newer) it.seek(historyEndOf(path)); // the next object's first version
      if (out.length) yield out;
    }
    if (best && best.length) yield [[path, readable(decode, path, best)]];
  } finally {
    await closeEmptied(it, end);
  }
}

/** The smallest key after every key that starts with `prefix` (prefix ends with '/'). */
const prefixEnd = (prefix: string): string => prefix.slice(0, -1) + '0';
