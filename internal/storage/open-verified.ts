/**
 * Open a LevelDB store after verifying its tables' checksums (verify-tables.ts), so a damaged
 * store is refused at start-up with the file named instead of answering `IO error` — or, for a
 * zeroed block, silently fewer objects — later. Tables are verified before LevelDB opens (no
 * compaction is writing then); a table that fails and is gone once LevelDB has opened was an
 * obsolete one (a compaction's leftover after a crash, deleted at open), not damage.
 */
import { basename, dirname, join } from 'node:path';
import { stat } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import type { Db } from './mvcc/materializer.ts';
import { StorageError } from './errors.ts';
import { isStoreDamage, describeStoreError } from './store-health.ts';
import { verifyTables, stillPresent, describeFaults, tableFiles, type TableFault } from './verify-tables.ts';

/** What a damaged store is: the embedded log, the snapshot of an embedded server, a Kafka replica's snapshot. */
export type StoreRole = 'log' | 'snapshot' | 'replica snapshot';

/** What the check at open read: tables, their bytes, the time it took. */
export interface OpenCheck {
  tables: number;
  bytes: number;
  ms: number;
}

/**
 * Verify the tables of the store at `location`, then `open` it: the faults returned are those of
 * tables still present once LevelDB has opened (one it deleted at open was a crash's leftover).
 * The caller decides what a fault means (and closes `db` when it refuses it).
 */
export async function openCheckingTables(location: string, open: () => Promise<Db>, check?: OpenCheck): Promise<{ db: Db; faults: TableFault[] }> {
  const started = performance.now();
  const verified = await verifyTables(location);
  if (check) {
    check.tables += verified.tables;
    check.bytes += verified.bytes;
    check.ms += performance.now() - started;
  }
  const db = await open();
  return { db, faults: await stillPresent(verified.faults) };
}

/** Open (create if missing) the store at `location`; `what` names it in errors; `check` adds up the verification. */
export async function openVerified(location: string, what: StoreRole, writeBufferSize: number, check?: OpenCheck): Promise<Db> {
  const { db, faults } = await openCheckingTables(location, async () => {
    const db: Db = new ClassicLevel<string, Buffer>(location, { keyEncoding: 'utf8', valueEncoding: 'buffer', writeBufferSize });
    try {
      // Serving threads (storage/follower.ts) open the same stores from their own threads.
      await db.open({ multithreading: true });
    } catch (err) {
      // classic-level says only "Database failed to open"; the cause (ENOSPC, EACCES, a lock,
      // damage) is in its `cause`, which is what the operator needs.
      if (!isStoreDamage(err)) throw new StorageError('unreachable', `cannot open the store ${location} (${what}): ${describeStoreError(err)}`);
      const cause = (err as { cause?: Error }).cause;
      throw new StorageError('corrupt', `the ${what} store ${location} does not open: ${cause?.message ?? (err as Error).message}${repairHint(what, dirname(location))}`);
    }
    return db;
  }, check);
  if (faults.length) {
    await db.close().catch(() => undefined);
    throw new StorageError('corrupt', `the ${what} store is damaged: ${describeFaults(faults)}${repairHint(what, dirname(location))}`);
  }
  return db;
}

/** What to do about a damaged store. */
export function repairHint(what: StoreRole, dataDir: string): string {
  switch (what) {
    case 'snapshot':
      return ` — with the server stopped, rebuild the snapshot from the log: npm run replay -- repair --data-dir ${dataDir}`;
    case 'replica snapshot':
      return ` — with this replica stopped, rebuild it from the topic: npm run replay -- repair --data-dir ${dataDir} --log <its --log>; or move ${join(dataDir, 'db')} away and start it again: it refolds the topic (or starts from the newest checkpoint with --checkpoint-dir)`;
    default:
      return ' — the log is the durable copy of every write: restore the data dir from a backup';
  }
}

/**
 * Damaged tables of a LevelDB that is open and running: a table that fails is verified again a
 * second later and reported only if it still fails (a compaction may have been writing it, or
 * removed it); tables modified in the last `skipRecentMs` are not read.
 */
export async function damagedTables(dir: string, skipRecentMs: number): Promise<TableFault[]> {
  let names: string[] | undefined;
  if (skipRecentMs > 0) {
    const cutoff = Date.now() - skipRecentMs;
    names = [];
    for (const n of await tableFiles(dir)) {
      const st = await stat(join(dir, n)).catch(() => null);
      if (st && st.mtimeMs < cutoff) names.push(n);
    }
  }
  const first = await verifyTables(dir, names);
  if (!first.faults.length) return [];
  await new Promise((r) => setTimeout(r, 1000));
  const again = await verifyTables(dir, first.faults.map((f) => basename(f.file)));
  return again.faults;
}
