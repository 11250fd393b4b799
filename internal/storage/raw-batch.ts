/**
 * Writing a batch of snapshot operations without abstract-level's per-operation overhead, for the
 * writers that produce many operations per batch: a rebuild (replay/rebuild.ts) and a Kafka
 * replica's fold (storage/log/kafka-tail.ts).
 */
import type { Db, BatchOp } from './mvcc/materializer.ts';

/**
 * db.batch(ops) without abstract-level's per-operation work. abstract-level copies every
 * operation into a new object with its encodings (`{ ...options, ...op }`) and validates it before
 * calling the store's own `_batch`; on a 100k-event rebuild that was ~20 % of the run (measured:
 * 3 puts per event, 72k → 91k events/s for the write alone), in a Kafka replica that only folds
 * ~15 % of its main thread's busy time. The operations here are what
 * classic-level's native batch takes as is — utf8 string keys and Buffer values, the store's own
 * encodings — so `_batch` is called directly when nothing else could observe the write (no
 * prewrite hook, database open); otherwise, and for any other store, the public batch().
 */
export function writeBatch(db: Db, ops: BatchOp[], sync: boolean): Promise<void> {
  const raw = db as unknown as { _batch?: (ops: BatchOp[], o: { sync: boolean }) => Promise<void>; hooks?: { prewrite?: { noop?: boolean } } };
  if (typeof raw._batch === 'function' && db.status === 'open' && raw.hooks?.prewrite?.noop === true) return raw._batch(ops, { sync });
  return sync ? db.batch(ops, { sync: true }) : db.batch(ops);
}
