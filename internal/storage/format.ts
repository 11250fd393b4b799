/**
 * The key format of a snapshot store (keys.ts) and its upgrade at open.
 *
 *   format 1 (no m/format):  o/<path>/            h/<path>/<rv hex16>
 *   format 2 (m/format = 2): o/<path>             h/<path>\0<rv hex16>   (NUL in a path escaped, keys.ts)
 *   format 3 (m/format = 3): format 2's keys; no l/ keys: the embedded log lives in a store of its
 *                            own (`<data-dir>/log`), so a damaged snapshot never takes it along
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
 * Continue tokens carry object paths, not keys (storage/list.ts positions), so a token minted before the
 * upgrade still resumes after it (in format-2 order).
 *
 * Format 2 → 3 moves the embedded log out of the snapshot store, also at open and crash-safe:
 *
 *   1. m/format = 3, synced (an older server now refuses the store instead of appending to a log
 *      that is being moved away);
 *   2. per batch of UPGRADE_BATCH entries from the start of l/: put them into the log store,
 *      synced, then delete them from the snapshot store.
 *
 * Every l/ entry is in one store or both with the same bytes at every instant, so a kill -9 at
 * any point loses nothing, and the next open repeats step 2 for what is left (copying an entry
 * again writes what is already there). "l/ keys in a format-3 snapshot store" is the resume
 * signal: every open looks for one (a single seek). A store without a log store to move to (a
 * Kafka replica's, a checkpoint) has no l/ keys; one that has them is refused there.
 */
import type { Db, BatchOp } from './mvcc/materializer.ts';
import { HISTORY_TAIL, META_FORMAT, historyKeyOf, rvOfHistoryKey } from './keys.ts';

/** The key format this code reads and writes. */
export const KEY_FORMAT = 3;

/** Keys rewritten per LevelDB batch (bounds memory and the size of one atomic write). */
const UPGRADE_BATCH = 1000;

export interface FormatUpgrade {
  /** Format found at open (1: a store without m/format, or a new empty one). */
  from: number;
  /** Keys rewritten. */
  rewritten: number;
  /** Log entries moved into the log store (format 3). */
  moved: number;
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
 * Bring `db` to KEY_FORMAT (a no-op when m/format says it is there and no l/ key is left; a new
 * empty store just gets the marker). `logDb`: the embedded log's store, where l/ entries found in
 * `db` are moved (without it they are refused). Throws when the store was written by a newer
 * format this code cannot read.
 */
export async function ensureKeyFormat(db: Db, logDb?: Db, batchKeys = UPGRADE_BATCH): Promise<FormatUpgrade> {
  const marker = await db.get(META_FORMAT);
  const from = marker === undefined ? 1 : Number(marker.toString());
  if (!(from <= KEY_FORMAT)) throw new Error(`the snapshot store has key format ${marker!.toString()}; this server reads format ${KEY_FORMAT} (a newer version wrote it)`);
  const rewritten = from < 2 ? await rewriteFormat1Keys(db, batchKeys) : 0;
  if (from < KEY_FORMAT) await db.put(META_FORMAT, Buffer.from(String(KEY_FORMAT)), { sync: true });
  const moved = await moveLog(db, logDb, batchKeys);
  return { from, rewritten, moved };
}

/** Format 1 → 2: rewrite o/ and h/ keys (the marker is written by the caller). */
async function rewriteFormat1Keys(db: Db, batchKeys: number): Promise<number> {
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
  if (ops.length) await db.batch(ops, { sync: true });
  return rewritten;
}

/** Format 2 → 3: move l/ entries from `db` into `logDb`, a synced copy before each delete. */
async function moveLog(db: Db, logDb: Db | undefined, batchKeys: number): Promise<number> {
  let moved = 0;
  for (;;) {
    const entries: Array<[string, Buffer]> = [];
    for await (const e of db.iterator({ gte: 'l/', lt: 'l0', limit: batchKeys })) entries.push(e);
    if (!entries.length) return moved;
    if (!logDb) throw new Error(`the snapshot store holds embedded log entries (l/ keys from ${entries[0][0]}) and no log store was given to move them to: open it with the embedded server first`);
    await logDb.batch(entries.map(([key, value]) => ({ type: 'put' as const, key, value })), { sync: true });
    await db.batch(entries.map(([key]) => ({ type: 'del' as const, key })));
    moved += entries.length;
  }
}
