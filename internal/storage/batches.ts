/**
 * Reading a LevelDB range in batches: one nextv per round trip to LevelDB's thread, optional
 * read-ahead, and an iterator emptied before it closes. Used by lists (storage/list.ts)
 * and the replay tools' log reader (replay/open-log.ts); countKeys counts a range for list pages.
 */

/** Entries per LevelDB read: the first batch (a page needs limit + 1), the later ones, and read-ahead. */
export interface BatchSizes {
  first: number;
  then: number;
  /**
   * Ask LevelDB's thread for the next batch before the caller handles this one (an unpaged list
   * being sent, a replay's log: reading and handling overlap). Never for pages: the read-ahead
   * would be wasted.
   */
  ahead: boolean;
}

/** The part of a LevelDB iterator (utf8 keys, Buffer values) the batch readers use. */
export interface RangeIterator {
  nextv(size: number): Promise<[string, Buffer][]>;
  seek(target: string): void;
  close(): Promise<void>;
}

/**
 * An iterator's entries in batches (nextv, one round trip to LevelDB's thread each). Closes the
 * iterator when the batches end or the consumer stops.
 */
export async function* batchesOf(it: RangeIterator, end: string, sizes: BatchSizes): AsyncGenerator<[string, Buffer][]> {
  let next: Promise<[string, Buffer][]> | null = it.nextv(sizes.first);
  try {
    while (next) {
      const batch = await next;
      next = null;
      if (!batch.length) return;
      if (sizes.ahead) next = it.nextv(sizes.then);
      yield batch;
      next ??= it.nextv(sizes.then);
    }
  } finally {
    // A read-ahead nobody takes: its failure is of no interest.
    if (next) await next.catch(() => undefined);
    await closeEmptied(it, end);
  }
}

/** What closeEmptied and countKeys need of an iterator (entries or keys only). */
export interface EmptiableIterator {
  seek(target: string): void;
  nextv(size: number): Promise<unknown[]>;
  close(): Promise<void>;
}

/** The entries of an iterator (range end `end`), counted `batch` at a time; then closed, emptied. */
export async function countKeys(it: EmptiableIterator, end: string, batch: number): Promise<number> {
  let n = 0;
  try {
    for (;;) {
      const got = await it.nextv(batch);
      if (!got.length) return n;
      n += got.length;
    }
  } finally {
    await closeEmptied(it, end);
  }
}

/**
 * Close an iterator after emptying its native batch. classic-level keeps the copies of the last
 * batch's keys and values until the iterator is garbage-collected, not when it is closed; with
 * batches of hundreds of objects a list's worth of them piled up between major GCs (RSS grew by
 * ~60 MB per paged list of 20k). A last read that finds nothing (at the range's end `end`, its
 * exclusive upper bound) empties that cache first.
 */
export async function closeEmptied(it: EmptiableIterator, end: string): Promise<void> {
  try {
    it.seek(end);
    await it.nextv(1);
  } catch {
    // Closed or failed already: nothing is cached then.
  }
  await it.close();
}
