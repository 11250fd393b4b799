/**
 * The key format of a snapshot store (keys.ts) and its upgrade at open.
 *
 *   format 1 (no m/format):  o/<path>/            h/<path>/<rv hex16>
 *   format 2 (m/format = 2): o/<path>             h/<path>\0<rv hex16>   (NUL in a path escaped, keys.ts)
 *
 * Format 1 listed `app-x` and `app.y` before `app` ('-' and '.' sort below the '/' that ended the
 * name); format 2 lists in kube's etcd key order. i/, t/, l/ and m/ keys are the same in both.
 *
 * The upgrade rewrites every format-1 o/ and h/ key in bounded batches, each batch deleting old
 * keys and putting their new form atomically, and writes m/format last. It is idempotent: a key
 * is recognised as format 1 by its own shape (an o/ key ending in '/', an h/ key with '/' before
 * the version — object paths never end with '/' and a format-2 h/ key has NUL there), so an
 * upgrade interrupted by a crash simply continues at the next open. Readers never see a mixed
 * store: it runs before the materializer, log and reads start.
 *
 * Continue tokens carry object paths, not keys (generic/reader.ts), so a token minted before the
 * upgrade still resumes after it (in format-2 order).
 */
import type { Db, BatchOp } from './mvcc/materializer.ts';
import { HISTORY_TAIL, META_FORMAT, historyKeyOf, rvOfHistoryKey } from './keys.ts';

/** The key format this code reads and writes. */
export const KEY_FORMAT = 2;

/** Keys rewritten per LevelDB batch (bounds memory and the size of one atomic write). */
const UPGRADE_BATCH = 1000;

export interface FormatUpgrade {
  /** Format found at open (1: a store without m/format, or a new empty one). */
  from: number;
  /** Keys rewritten. */
  rewritten: number;
}

/** The format-2 form of a format-1 o/ or h/ key; null when `key` is not a format-1 key. Pure. */
export function upgradedKey(key: string): string | null {
  if (key.startsWith('o/')) return key.endsWith('/') ? key.slice(0, -1) : null;
  if (key.startsWith('h/')) {
    const sep = key.length - HISTORY_TAIL;
    return sep > 2 && key[sep] === '/' ? historyKeyOf(key.slice(2, sep), rvOfHistoryKey(key)) : null;
  }
  return null;
}

/**
 * Bring `db` to KEY_FORMAT (a no-op when m/format says it is there; a new empty store just gets
 * the marker). Throws when the store was written by a newer format this code cannot read.
 */
export async function ensureKeyFormat(db: Db, batchKeys = UPGRADE_BATCH): Promise<FormatUpgrade> {
  const marker = await db.get(META_FORMAT);
  const from = marker === undefined ? 1 : Number(marker.toString());
  if (from === KEY_FORMAT) return { from, rewritten: 0 };
  if (!(from < KEY_FORMAT)) throw new Error(`the snapshot store has key format ${marker!.toString()}; this server reads format ${KEY_FORMAT} (a newer version wrote it)`);
  let rewritten = 0;
  let ops: BatchOp[] = [];
  for (const [gte, lt] of [['o/', 'o0'], ['h/', 'h0']]) {
    // The iterator reads an implicit snapshot: the keys it puts are not seen again.
    for await (const [k, v] of db.iterator({ gte, lt })) {
      const to = upgradedKey(k);
      if (to === null) continue;
      ops.push({ type: 'put', key: to, value: v }, { type: 'del', key: k });
      rewritten++;
      if (ops.length >= 2 * batchKeys) {
        await db.batch(ops);
        ops = [];
      }
    }
  }
  ops.push({ type: 'put', key: META_FORMAT, value: Buffer.from(String(KEY_FORMAT)) });
  await db.batch(ops, { sync: true });
  return { from, rewritten };
}
