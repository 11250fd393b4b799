/**
 * Opening the stores behind the Storage facade: the snapshot store (and the embedded log's own
 * store), verified and brought to the current key format; kafkajs' logs routed to the server's.
 */
import { mkdirSync } from 'node:fs';
import type { logLevel as KafkaLogLevel } from 'kafkajs';
import type { Db } from './mvcc/materializer.ts';
import { ensureKeyFormat } from './format.ts';
import { openVerified, type OpenCheck } from './open-verified.ts';
import type { StorageLogger } from './store-health.ts';

/**
 * LevelDB's memtable (default 4 MiB). A create writes its object three times (log entry, history,
 * current: ~3.5 KiB for a 1 KiB ConfigMap), so under a sustained create load a 4 MiB memtable
 * fills several times a second: measured over a 100k fill and a 10 s create load, 252 level-0
 * tables and 72 compactions with 4 MiB against 46 and 24 with 32 MiB — background work that
 * competes with the API on a 2-core machine and showed as create latency spikes (max 302–628 ms
 * vs 67–274 ms). The price: up to 32 MiB of RSS under load (the arena grows as it fills, so an
 * idle server pays nothing) and a longer replay of the write-ahead log at the next open (~70 ms
 * for 21 MiB).
 */
const WRITE_BUFFER_BYTES = 32 * 1024 * 1024;
/**
 * The log store's memtable: it takes one entry per event (~1.4 KiB for a 1 KiB ConfigMap), a
 * third of what the snapshot takes, and is only read back by watch catch-up and restarts.
 */
const LOG_WRITE_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Open the snapshot store `<dataDir>/db` (and, for the embedded log, `<dataDir>/log`): tables
 * verified first (storage/verify-tables.ts; a damaged one refuses the start, naming the file),
 * then the key format brought up to date — an older store is upgraded once, its embedded log
 * moved into the log store (format.ts).
 */
export async function openStores(dataDir: string, withLog: boolean): Promise<{ db: Db; logDb: Db | null; check: OpenCheck }> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const check: OpenCheck = { tables: 0, bytes: 0, ms: 0 };
  const db = await openVerified(`${dataDir}/db`, withLog ? 'snapshot' : 'replica snapshot', WRITE_BUFFER_BYTES, check);
  let logDb: Db | null = null;
  try {
    if (withLog) logDb = await openVerified(`${dataDir}/log`, 'log', LOG_WRITE_BUFFER_BYTES, check);
    await ensureKeyFormat(db, logDb ?? undefined);
  } catch (err) {
    await logDb?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
  return { db, logDb, check };
}

/** kafkajs log entries → the server's logger (kafkajs logs to the console by default). */
export function kafkaLogs(logger: StorageLogger, kafkaLogLevel: typeof KafkaLogLevel) {
  return () => ({ level, log }: { level: number; log: { message: string; [k: string]: unknown } }) => {
    const { message, ...rest } = log;
    if (level <= kafkaLogLevel.ERROR) logger.error({ kafka: rest }, message);
    else if (level === kafkaLogLevel.WARN) logger.warn({ kafka: rest }, message);
  };
}
