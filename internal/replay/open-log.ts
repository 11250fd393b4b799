/**
 * Opening a log for offline tools (replay, verify, history), read-only:
 *
 *   embedded:DATA_DIR                      the `l/` entries of a stopped server's log store (DATA_DIR/log)
 *   kafka://host:port[,host:port]/topic    the topic, through KafkaLog.open({ readOnly: true })
 *
 * The embedded reader iterates `l/` directly instead of using LevelLog.open: that one needs a
 * loaded materializer, checks the log/snapshot invariant and appends a GENESIS event to an empty
 * log — none of which a reader wants. A running server holds the LevelDB lock, so an embedded data
 * dir can be read only while its server is stopped (the error says so).
 */
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { decodeEvent, decodeFoldEvent, type FoldPositionedEvent, type PositionedEvent } from '../storage/log/event.ts';
import { parseLogLocation } from '../storage/log/uri.ts';
import { loadKafkajs } from '../storage/log/kafkajs.ts';
import { logKey, fromHex16 } from '../storage/keys.ts';
import { lastLogOffset } from '../storage/log/level-log.ts';
import { batchesOf } from '../storage/batches.ts';
import type { Db } from '../storage/mvcc/materializer.ts';
import { ensureKeyFormat } from '../storage/format.ts';
import { describeFaults } from '../storage/verify-tables.ts';
import { openCheckingTables } from '../storage/open-verified.ts';

/** Where a tool reads the log from. */
export type ReplaySource = { kind: 'embedded'; dataDir: string } | { kind: 'kafka'; brokers: string[]; topic: string };

/**
 * An event as a reader hands it out. `bytes` is the Avro encoding as stored, when the reader has
 * it (embedded), so copying the log does not re-encode every event.
 */
export interface RawPositionedEvent extends PositionedEvent {
  bytes?: Buffer;
}

/** The read side of an EventLog plus where it starts (Kafka retention may have removed a prefix). */
export interface ReadableLog {
  readonly source: ReplaySource;
  /** First offset still stored (0 unless Kafka retention deleted older events). */
  firstOffset(): Promise<number>;
  /** The offset the next event would get (= last offset + 1; 0 for an empty log). */
  endOffset(): Promise<number>;
  /** Events in [from, to), in offset order. `to` must not exceed endOffset(). */
  read(from: number, to: number): AsyncIterable<RawPositionedEvent>;
  /**
   * read() for a fold (rebuild, verify): only the fields the fold reads are decoded
   * (decodeFoldEvent), and every event carries its stored bytes.
   */
  readFold(from: number, to: number): AsyncIterable<FoldPositionedEvent & { bytes: Buffer }>;
  /** Release the reader (and the database, if this reader opened it). Idempotent. */
  close(): Promise<void>;
}

/** LevelDB entries per iterator round trip: large enough to amortize the native call (~1.6 MiB of 1 KiB objects). */
const READ_CHUNK = 1024;
/**
 * Bytes per round trip. classic-level stops a nextv() once it has read highWaterMarkBytes (default
 * 16 KiB), which for 1.4 KiB log entries meant ~11 entries per call, not READ_CHUNK: ~9,000 round
 * trips through libuv's pool for 100k events. 4 MiB lets READ_CHUNK entries of up to 4 KiB through
 * in one call and still bounds a chunk of large objects (up to 4 MiB plus one entry).
 */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;
/**
 * Memtable size of a store a tool creates. LevelDB's 4 MiB default fills every ~2 rebuild batches
 * and keeps compaction busy. A rebuild of an embedded log writes ~4.7 KB per 1 KiB ConfigMap
 * create (the l/ copy, h/, o/, i/); LevelDB compacts level 0 into level 1 once 4 tables are there,
 * and the final flush waits for that compaction. 256 MiB leaves at most 3 level-0 tables up to
 * ~165k such events: on a 129k-event log (3 runs each) 128 MiB gave 5 tables, a 0.7 s compaction
 * at the end and 35–39k events/s; 256 MiB gives 3 tables and 46–49k events/s, with the tool's peak
 * RSS 0.85 → 1.03 GB. A server opening either store starts as fast (storage phase 180–230 ms).
 * The memtable grows with what is written, so a small log costs no more. It only affects this
 * process: a server reopening the store uses its own.
 */
export const CREATE_WRITE_BUFFER_BYTES = 256 * 1024 * 1024;

/** Parse `--log`: `embedded:DATA_DIR` or a kafka:// URI (the grammar of internal/storage/log/uri.ts). */
export function parseReplaySource(text: string): ReplaySource {
  if (text.startsWith('embedded:')) {
    const dataDir = text.slice('embedded:'.length);
    if (!dataDir) throw new Error('--log embedded:DATA_DIR needs a data directory');
    return { kind: 'embedded', dataDir };
  }
  const where = parseLogLocation(text);
  if (where.kind !== 'kafka') throw new Error('--log: an offline tool needs embedded:DATA_DIR (the log lives in that data dir) or kafka://host:port/topic');
  return where;
}

export function formatReplaySource(s: ReplaySource): string {
  return s.kind === 'embedded' ? `embedded:${s.dataDir}` : `kafka://${s.brokers.join(',')}/${s.topic}`;
}

/**
 * Open `<dataDir>/db`. `create: false` (tools reading a server's dir) fails when it does not exist;
 * `create: true` makes a fresh one and fails when one is already there (a rebuild never merges
 * into an old store). Neither mode writes anything itself, except the key format (storage/format.ts):
 * a new store gets the m/format marker, and a store an older version wrote is upgraded in place as
 * the server would at its next start (keys rewritten, the embedded log moved to `<dataDir>/log`),
 * so hashes and comparisons read one key order.
 */
export async function openDataDirDb(dataDir: string, mode: { create: boolean }): Promise<Db> {
  const db = await openLevel(join(dataDir, 'db'), {
    keyEncoding: 'utf8',
    valueEncoding: 'buffer',
    createIfMissing: mode.create,
    errorIfExists: mode.create,
    ...(mode.create ? { writeBufferSize: CREATE_WRITE_BUFFER_BYTES } : {}),
  });
  let logDb: Db | undefined;
  try {
    // A data dir of an older version: its log moves into <dataDir>/log (format.ts, format 3).
    for await (const _ of db.keys({ gte: 'l/', lt: 'l0', limit: 1 })) logDb = await openLevel(join(dataDir, 'log'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await ensureKeyFormat(db, logDb);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  } finally {
    await logDb?.close();
  }
  return db;
}

/**
 * Open `<dataDir>/log`, the embedded log's store, read-only in practice: a data dir an older
 * version wrote (its log inside `<dataDir>/db`) is upgraded first, as the server would at its next
 * start — unless `formatChecked` (the caller has opened `<dataDir>/db` with openDataDirDb, which
 * did that). When the snapshot store does not open (damaged: what `replay repair` is for), the log
 * store is opened on its own, provided it exists. Its tables are verified (storage/open-verified.ts):
 * a repair must not fold a damaged log.
 */
export async function openLogDb(dataDir: string, formatChecked = false): Promise<Db> {
  const location = join(dataDir, 'log');
  if (!formatChecked) {
    try {
      await (await openDataDirDb(dataDir, { create: false })).close();
    } catch (err) {
      if (!existsSync(join(location, 'CURRENT'))) throw err;
    }
  }
  const { db, faults } = await openCheckingTables(location, () => openLevel(location, { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: false }));
  if (faults.length) {
    await db.close();
    throw new Error(`the log store is damaged: ${describeFaults(faults)}`);
  }
  return db;
}

/** Open a LevelDB, its errors explained for a person running a tool. */
async function openLevel(location: string, options: ConstructorParameters<typeof ClassicLevel<string, Buffer>>[1]): Promise<Db> {
  const db: Db = new ClassicLevel<string, Buffer>(location, options);
  try {
    await db.open();
  } catch (err) {
    const cause = (err as { cause?: Error & { code?: string } }).cause;
    const text = cause?.message ?? (err as Error).message;
    // LevelDB's messages: "lock …/LOCK: already held by process" (this process), "…: Resource
    // temporarily unavailable" (another process), "…: exists (error_if_exists is true)".
    const hint = cause?.code === 'LEVEL_LOCKED' || /already held by process|temporarily unavailable/i.test(text)
      ? ' — a server (or another tool) is using this data dir; stop it first'
      : /error_if_exists/.test(text) ? ' — the output store must not exist yet'
      : /No such file|does not exist/i.test(text) ? ' — no store there; is it a data dir?' : '';
    throw new Error(`cannot open ${location}: ${text}${hint}`);
  }
  return db;
}

/** Create `<dataDir>/log` for a rebuild that copies the log (fails when one is already there). */
export function createLogDb(dataDir: string): Promise<Db> {
  return openLevel(join(dataDir, 'log'), { keyEncoding: 'utf8', valueEncoding: 'buffer', createIfMissing: true, errorIfExists: true, writeBufferSize: CREATE_WRITE_BUFFER_BYTES });
}

/**
 * A reader over the `l/` entries of an open log store. `owned`: close() closes the database too.
 */
export function embeddedLog(db: Db, dataDir: string, owned: boolean): ReadableLog {
  let closed = false;
  return {
    source: { kind: 'embedded', dataDir },
    async firstOffset() {
      for await (const k of db.keys({ gte: 'l/', lt: 'l0', limit: 1 })) return fromHex16(k.slice(2));
      return 0;
    },
    async endOffset() {
      return (await lastLogOffset(db)) + 1;
    },
    read: (from, to) => readEntries(from, to, (offset, v) => ({ offset, event: decodeEvent(v), bytes: v })),
    readFold: (from, to) => readEntries(from, to, (offset, v) => ({ offset, event: decodeFoldEvent(v), bytes: v })),
    async close() {
      if (closed) return;
      closed = true;
      if (owned) await db.close();
    },
  };

  async function* readEntries<E>(from: number, to: number, decode: (offset: number, v: Buffer) => E): AsyncIterable<E> {
    if (from >= to) return;
    // fillCache off: a replay reads each entry once, keeping it would only evict other blocks.
    const it = db.iterator({ gte: logKey(from), lt: logKey(to), fillCache: false, highWaterMarkBytes: READ_CHUNK_BYTES });
    // Read-ahead of one chunk: LevelDB reads the next chunk (on libuv's thread pool) while the
    // consumer folds this one.
    for await (const entries of batchesOf(it, logKey(to), { first: READ_CHUNK, then: READ_CHUNK, ahead: true })) {
      for (const [k, v] of entries) yield decode(fromHex16(k.slice(2)), v);
    }
  }
}

/** Kafka client settings for a tool: fail fast when the broker is not there. */
const KAFKA_CONNECT_TIMEOUT_MS = 3_000;
const KAFKA_REQUEST_TIMEOUT_MS = 10_000;

/**
 * Open `source` for reading. kafkajs is imported only for Kafka sources, so the embedded path does
 * not pay for loading it. `formatChecked`: as openLogDb's (embedded sources).
 */
export async function openReadableLog(source: ReplaySource, formatChecked = false): Promise<ReadableLog> {
  if (source.kind === 'embedded') return embeddedLog(await openLogDb(source.dataDir, formatChecked), source.dataDir, true);
  const { Kafka, logLevel } = await loadKafkajs();
  const { KafkaLog } = await import('../storage/log/kafka-log.ts');
  const kafka = new Kafka({
    clientId: 'kube-replay',
    brokers: source.brokers,
    // kafkajs would print every retry as a JSON line; the tool reports the final error itself.
    logLevel: logLevel.NOTHING,
    connectionTimeout: KAFKA_CONNECT_TIMEOUT_MS,
    requestTimeout: KAFKA_REQUEST_TIMEOUT_MS,
  });
  const log = await KafkaLog.open(kafka, {
    topic: source.topic,
    readOnly: true,
    clientId: 'kube-replay',
    // Read-only: these only matter when creating a topic, which a reader never does.
    replicationFactor: 1,
    minInsyncReplicas: 1,
    // A topic with finite retention is readable; the caller checks firstOffset() against its start.
    checkpointsCover: true,
    appendTimeoutMs: 0,
  });
  return {
    source,
    firstOffset: async () => log.topicState.low,
    endOffset: () => log.endOffset(),
    read: (from, to) => log.read(from, to),
    readFold: (from, to) => log.readFold(from, to) as AsyncIterable<FoldPositionedEvent & { bytes: Buffer }>,
    close: () => log.close(),
  };
}
