/**
 * Storage facade: the log (durable, ordered), the materializer (fold + key index) and the
 * snapshot (values by key and version), wired for one process. Generic registry code talks only
 * to this; it never touches LevelDB keys.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, statfsSync } from 'node:fs';
// kafkajs is loaded by openKafka only: an embedded server never pays for loading it (~150 ms).
import type { logLevel as KafkaLogLevel } from 'kafkajs';
import type { EventLog } from './log/log.ts';
import { LevelLog, lastLogOffset } from './log/level-log.ts';
import { KafkaLog } from './log/kafka-log.ts';
import { loadKafkajs } from './log/kafkajs.ts';
import { KafkaTail } from './log/kafka-tail.ts';
import type { LogEvent } from './log/event.ts';
import { Materializer, type Db, type ChangeListener, type Change } from './mvcc/materializer.ts';
import { stampResourceVersion, type Verdict, type IndexEntry } from './mvcc/fold.ts';
import { currentKey, historyKey, historyPrefix, fromHex16, parseObjectPath, META_FOLDED, type ObjectKey } from './keys.ts';
import { AtRest, type ValueDecoder } from './encryption/at-rest.ts';
import { isTransformed } from './encryption/stamp.ts';
import { StorageError } from './errors.ts';
import { Compactor } from './mvcc/compactor.ts';
import { ensureKeyFormat } from './format.ts';
import { openVerified, repairHint, damagedTables, type OpenCheck, type StoreRole } from './open-verified.ts';
import { describeFaults } from './verify-tables.ts';
import { dirname } from 'node:path';
import type { LogInstruments } from './log/instruments.ts';
import { StoreHealth, DAMAGE, describeStoreError, isStoreDamage, type StorageLogger } from './store-health.ts';

export type { StorageLogger } from './store-health.ts';

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
/** Tables this recent are left to the next scrub pass (a compaction may be writing them). */
const SCRUB_SKIP_RECENT_MS = 10_000;
/**
 * How often the running server verifies its tables (Storage.startScrub): ~0.3–0.5 s of CPU per
 * 100k 1 KiB objects (41 MiB of tables), in steps of one table (≤ 2 MiB, a few ms each).
 */
export const DEFAULT_SCRUB_INTERVAL_MS = 10 * 60_000;

/**
 * How often a store that refuses writes tries to recover (Storage.recover): once a second, so
 * writes resume about a second after space is freed, at the cost of one statfs a second.
 */
const RECOVER_INTERVAL_MS = 1000;
/**
 * Free space wanted on top of LevelDB's write-ahead logs before the store is reopened: reopening
 * writes the logs' contents into a new table and a new MANIFEST; a reopen that fails for lack of
 * space leaves the store closed (no reads either) until the next try, so it is not tried blind.
 */
const REOPEN_MARGIN_BYTES = 1024 * 1024;


export interface StorageOptions {
  dataDir: string;
  /** How long object history stays readable at exact versions (ms). Kubernetes: 5 minutes. */
  historyWindowMs: number;
  /** fsync every group commit (default true). */
  sync?: boolean;
  /** How often the compactor runs (ms). Default: a tenth of the window, at least 1 s. */
  compactIntervalMs?: number;
  /** Metrics of the log's durable writes. */
  instruments?: LogInstruments;
  /**
   * `--encryption-provider-config`: objects of the resources it names are encrypted by the writer
   * before the append and decrypted on every read (default: none). Every replica of a topic needs
   * the same file; a process that only folds and copies the snapshot (cmd/materializer.ts) needs none.
   */
  atRest?: AtRest;
  /** A committed change this process cannot decrypt (listeners never see it). */
  onUndecryptable?: (change: Change, err: Error) => void;
  /** Where the store's state changes are logged (refusing writes, recovered, damage); none if absent. */
  logger?: StorageLogger;
  /** Verify the stores' tables this often while running (default DEFAULT_SCRUB_INTERVAL_MS; 0: never). */
  scrubIntervalMs?: number;
}

export interface KafkaStorageOptions extends StorageOptions {
  brokers: string[];
  topic: string;
  /** Used when this replica creates the topic. */
  replicationFactor: number;
  minInsyncReplicas: number;
  /** Finite topic retention is acceptable because a materializer publishes checkpoints. */
  checkpointsCover?: boolean;
  /** Longest a write may wait for the broker before it fails (503/504). Default 10 s. */
  writeTimeoutMs?: number;
  clientId?: string;
  logger: StorageLogger;
}

/** What a writer supplies; the storage fills the intent id. */
export type WriteIntent = Omit<LogEvent, 'id'>;

/** A consistent read view: every read through it sees the state as of `rv`. */
export interface ReadView {
  rv: number;
  get(key: ObjectKey): Promise<Buffer | undefined>;
  /** o/ entries with keys in [gte, lt), in key order, starting strictly after `after` if given. */
  scan(gte: string, lt: string, after?: string): AsyncIterable<[string, Buffer]>;
  close(): Promise<void>;
}

export class Storage {
  private closed = false;
  private scrubTimer: NodeJS.Timeout | null = null;
  private scrubbing: Promise<void> | null = null;
  /** The tables' checksums verified at open (storage/open-verified.ts), for the start-up log. */
  openCheck: OpenCheck = { tables: 0, bytes: 0, ms: 0 };
  /** Listeners of readable (decrypted) changes; one materializer subscription serves them all. */
  private readonly decodedListeners = new Set<ChangeListener>();
  private unsubscribeDecoded: (() => void) | null = null;
  private recoverTimer: NodeJS.Timeout | null = null;
  private recovering: Promise<void> | null = null;
  /** Set while recover() closes and reopens LevelDB: readers wait for it instead of failing. */
  private reopening: Promise<void> | null = null;
  private constructor(
    readonly db: Db,
    readonly materializer: Materializer,
    readonly log: EventLog,
    private readonly compactor: Compactor,
    /** Kafka mode: the fold loop; embedded: the log folds as it appends. */
    private readonly tail: KafkaTail | null = null,
    private readonly writeTimeoutMs = 0,
    /** Encryption at rest (encryption/at-rest.ts); a pass-through when nothing is configured. */
    readonly atRest: AtRest = new AtRest(),
    private readonly onUndecryptable: StorageOptions['onUndecryptable'] = undefined,
    /** The embedded log's own store (null on Kafka). */
    readonly logDb: Db | null = null,
    /** Whether writes (and, once damage is found, reads) are served, and why not (store-health.ts); shared with every writer. */
    readonly health: StoreHealth = new StoreHealth(),
    private readonly dataDir = '',
    private readonly logger?: StorageLogger,
  ) {
    health.onChange(() => {
      // Kafka mode: writes already in the log wait for this replica's fold, which cannot write
      // now. They are answered at once with a Timeout (kube's answer for an outcome it does not
      // know: the event is in the log and is applied when a replica folds it), not after writeTimeoutMs.
      const p = health.problem;
      if (p && tail) materializer.cancelVerdicts(new StorageError('timeout', `the write is in the log, but this replica cannot apply it now (${p.reason}); it is applied once the store recovers`));
      this.scheduleRecovery();
    });
    this.scheduleRecovery(); // a Kafka replica's fold may have failed before this was built
  }

  /**
   * Open the snapshot store `<dataDir>/db` (and, for the embedded log, `<dataDir>/log`): tables
   * verified first (storage/verify-tables.ts; a damaged one refuses the start, naming the file),
   * then the key format brought up to date — an older store is upgraded once, its embedded log
   * moved into the log store (format.ts).
   */
  private static async openDb(dataDir: string, withLog: boolean): Promise<{ db: Db; logDb: Db | null; check: OpenCheck }> {
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

  private static compactorFor(db: Db, m: Materializer, opts: StorageOptions, health: StoreHealth): Compactor {
    return new Compactor(db, m, opts.historyWindowMs, opts.compactIntervalMs ?? Math.max(1000, opts.historyWindowMs / 10), health);
  }

  /** Open the embedded default: the log in `dataDir/log`, the snapshot in `dataDir/db`. */
  static async openEmbedded(opts: StorageOptions): Promise<Storage> {
    const { db, logDb, check } = await Storage.openDb(opts.dataDir, true);
    try {
      const health = new StoreHealth(opts.logger);
      const materializer = await Materializer.open(db);
      let storage: Storage | null = null;
      // e.g. the GENESIS append of a new store on a full disk fails here (the reason is in the message)
      const log = await LevelLog.open(logDb!, db, materializer, {
        sync: opts.sync,
        instruments: opts.instruments,
        health,
        // The fold reads previous versions from the snapshot: damage found there fails the health too.
        onFoldReadFailure: (e) => storage?.damaged(e) ?? e,
      });
      const compactor = Storage.compactorFor(db, materializer, opts, health);
      await compactor.start();
      storage = new Storage(db, materializer, log, compactor, null, 0, opts.atRest, opts.onUndecryptable, logDb, health, opts.dataDir, opts.logger);
      storage.openCheck = check;
      storage.startScrub(opts.scrubIntervalMs ?? DEFAULT_SCRUB_INTERVAL_MS);
      return storage;
    } catch (err) {
      await logDb!.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Open a replica on a Kafka topic: the snapshot under `dataDir/db` is this replica's own fold of
   * the topic; it catches up from its folded offset before this resolves, so a restarted replica
   * serves consistent reads at once.
   */
  static async openKafka(opts: KafkaStorageOptions): Promise<Storage> {
    const clientId = opts.clientId ?? 'kube-apiserver';
    const writeTimeoutMs = opts.writeTimeoutMs ?? 10_000;
    const { Kafka, logLevel: kafkaLogLevel } = await loadKafkajs();
    const kafka = new Kafka({ clientId, brokers: opts.brokers, logLevel: kafkaLogLevel.ERROR, logCreator: kafkaLogs(opts.logger, kafkaLogLevel), connectionTimeout: 3_000, requestTimeout: 10_000 });
    const { db, check } = await Storage.openDb(opts.dataDir, false);
    const health = new StoreHealth(opts.logger);
    let log: KafkaLog | null = null;
    let tail: KafkaTail | null = null;
    try {
      const materializer = await Materializer.open(db);
      log = await KafkaLog.open(kafka, { ...opts, clientId, appendTimeoutMs: writeTimeoutMs, checkpointsCover: opts.checkpointsCover ?? false, instruments: opts.instruments });
      const { low, high } = log.topicState;
      if (materializer.folded + 1 > high) {
        throw new Error(`this replica's snapshot has folded up to ${materializer.folded} but topic ${opts.topic} ends at ${high - 1}: the topic was recreated or belongs to another cluster`);
      }
      if (low > materializer.folded + 1) {
        throw new Error(`topic ${opts.topic} starts at offset ${low} but this replica has folded only up to ${materializer.folded}: bootstrap it from a checkpoint (--checkpoint-dir)`);
      }
      tail = new KafkaTail(kafka, opts.topic, db, materializer, opts.logger, `${clientId}-fold`, health);
      await tail.start();
      const compactor = Storage.compactorFor(db, materializer, opts, health);
      await compactor.start();
      const storage = new Storage(db, materializer, log, compactor, tail, writeTimeoutMs, opts.atRest, opts.onUndecryptable, null, health, opts.dataDir, opts.logger);
      storage.openCheck = check;
      storage.startScrub(opts.scrubIntervalMs ?? DEFAULT_SCRUB_INTERVAL_MS);
      const caughtUp = Date.now();
      await storage.catchUp();
      opts.logger.info({ folded: materializer.folded, catchUpMs: Date.now() - caughtUp, topic: opts.topic }, 'replica caught up with the log');
      return storage;
    } catch (err) {
      await tail?.stop().catch(() => undefined);
      await log?.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Start-up: fold up to the log's end however long a big topic takes, as long as the fold keeps
   * moving (a stalled fold for 30 s fails the start).
   */
  private async catchUp(stallMs = 30_000): Promise<void> {
    const end = await this.log.endOffset();
    let last = this.materializer.folded;
    while (!(await this.materializer.waitFolded(end - 1, stallMs))) {
      if (this.materializer.folded === last) {
        const why = this.health.problem ? ` (${this.health.problem.reason})` : '';
        throw new StorageError('timeout', `replica folded ${last}, log ends at ${end - 1}: no progress for ${stallMs} ms${why}`);
      }
      last = this.materializer.folded;
    }
  }

  /**
   * Consistent-read barrier: resolves once everything acknowledged anywhere is folded here. The
   * embedded log folds in the append itself, so its end is always folded; a Kafka replica asks the
   * broker for the partition's end and waits for its own fold to reach it.
   */
  async latest(timeoutMs = 10_000): Promise<number> {
    if (!this.tail) return this.materializer.folded;
    const end = await this.log.endOffset();
    if (this.materializer.folded < end - 1 && !this.health.writable) {
      // This replica cannot fold (its store refuses writes): waiting would only time out.
      throw new StorageError('unreachable', `this replica cannot apply the log now, so it cannot serve a consistent read (resourceVersion=0 reads what it has): ${this.health.problem?.reason}`, this.health.fatal ? undefined : 1);
    }
    if (!(await this.materializer.waitFolded(end - 1, timeoutMs))) {
      throw new StorageError('timeout', `replica folded ${this.materializer.folded}, log ends at ${end - 1}: not caught up within ${timeoutMs} ms`);
    }
    return end - 1;
  }

  /**
   * Health probe (kube-apiserver's etcd check): the snapshot store answers a read, and the log
   * answers its end offset (Kafka: a broker round trip), each within `timeoutMs`. Throws a
   * StorageError saying which part failed.
   */
  async probe(timeoutMs = 2_000): Promise<void> {
    if (this.closed) throw new StorageError('unreachable', 'storage is closed');
    const damage = this.health.get(DAMAGE);
    if (damage) throw new StorageError('corrupt', damage.reason);
    const within = <T>(p: Promise<T>, what: string): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const t = setTimeout(() => reject(new StorageError('timeout', `${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
        p.then(
          (v) => (clearTimeout(t), resolve(v)),
          (e: Error) => (clearTimeout(t), reject(new StorageError('unreachable', `${what}: ${e.message}`))),
        );
      });
    await within(this.db.get(META_FOLDED), 'snapshot store');
    await within(this.log.endOffset(), 'log');
  }

  /**
   * Append an intent and wait for the fold's verdict on it. Throws StorageError('unreachable') if
   * the append itself failed (nothing was written).
   */
  async write(intent: WriteIntent): Promise<Verdict> {
    if (this.closed) throw new StorageError('unreachable', 'storage is closed');
    // Fail fast while the store refuses writes (Kafka mode too: this replica could not fold it).
    this.health.assertWritable();
    if (intent.object && this.atRest.transforms(intent.group, intent.resource)) {
      // Encrypted once, here, before the append: the log, every replica's snapshot and every
      // checkpoint hold only the ciphertext. The writer answers from its own plain bytes.
      const plain = intent.object;
      const verdict = await this.append({ ...intent, object: this.atRest.encode(intent, plain) });
      if (!verdict.accepted) return verdict;
      return { ...verdict, object: stampResourceVersion(plain, verdict.rv) ?? verdict.object };
    }
    return this.append(intent);
  }

  private async append(intent: WriteIntent): Promise<Verdict> {
    const id = randomUUID();
    const verdict = this.materializer.expectVerdict(id);
    try {
      await this.log.append({ ...intent, id });
    } catch (err) {
      this.materializer.cancelVerdict(id, err as Error);
      throw err;
    }
    if (!this.writeTimeoutMs) return verdict;
    // Kafka mode: the event is in the log; our own fold of it may lag if the broker went away.
    const timer = setTimeout(() => {
      this.materializer.cancelVerdict(id, new StorageError('timeout', `write is in the log but this replica did not fold it within ${this.writeTimeoutMs} ms`));
    }, this.writeTimeoutMs);
    try {
      return await verdict;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * What to throw for a failed read of the snapshot store. LevelDB's `Corruption:` / `IO error:`
   * (health.ts isStoreDamage) mean damaged files: the storage is marked failed (the etcd health
   * check fails from now on, the app logs it), the tables are verified once in the background to
   * name the damaged file (verify-tables.ts), and the error becomes a StorageError('corrupt'): a
   * 500 Status, never data. Any other error is returned as it is.
   */
  damaged(err: unknown): unknown {
    if (err instanceof StorageError || !isStoreDamage(err)) return err;
    const cause = (err as { cause?: Error }).cause;
    const text = cause?.message ?? (err as Error).message;
    if (!this.health.get(DAMAGE)) {
      this.health.damaged(`the snapshot store is damaged: ${text}${repairHint(this.snapshotRole, dirname(this.db.location))}`);
      void this.nameDamagedTables();
    }
    return new StorageError('corrupt', `the snapshot store is damaged: ${text}`);
  }

  /** What the snapshot store is, in errors and repair hints. */
  private get snapshotRole(): StoreRole {
    return this.tail ? 'replica snapshot' : 'snapshot';
  }

  /** Verify the snapshot's tables while it runs, to name the damage a read ran into. */
  private async nameDamagedTables(): Promise<void> {
    const dir = this.db.location;
    try {
      const faults = await damagedTables(dir, 0);
      this.health.explain(faults.length ? `damaged tables: ${describeFaults(faults)}` : `no table of ${dir} fails its checksums (the damage may be in LevelDB's log or manifest)`);
    } catch (e) {
      this.health.explain(`verifying the tables of ${dir} failed: ${(e as Error).message}`);
    }
  }

  /**
   * Every `intervalMs`, verify the tables of both stores (verify-tables.ts): damage that no read
   * has run into yet — a zeroed block, which LevelDB reads as an empty one — fails the health
   * before a short list is served. Tables written in the last SCRUB_SKIP_RECENT_MS are left to
   * the next pass (a compaction may still be writing them).
   */
  startScrub(intervalMs: number): void {
    if (intervalMs <= 0 || this.scrubTimer) return;
    const pass = async (): Promise<void> => {
      for (const [dir, role] of [[this.db.location, this.snapshotRole], ...(this.logDb ? [[this.logDb.location, 'log']] : [])] as Array<[string, StoreRole]>) {
        if (this.closed || this.health.get(DAMAGE)) return;
        const faults = await damagedTables(dir, SCRUB_SKIP_RECENT_MS).catch(() => []);
        if (faults.length && !this.closed) this.health.damaged(`the ${role} store is damaged: ${describeFaults(faults)}${repairHint(role, dirname(this.db.location))}`);
      }
    };
    this.scrubTimer = setInterval(() => {
      if (this.scrubbing) return;
      this.scrubbing = pass().finally(() => (this.scrubbing = null));
    }, intervalMs);
    this.scrubTimer.unref();
  }

  /**
   * Reads of the snapshot are refused once the storage has failed: a damaged store may have lost
   * keys silently, so no list or get from it can be vouched for until `replay repair`. Also
   * called by readers that scan the snapshot themselves (generic/reader.ts).
   */
  checkReadable(): void {
    const damage = this.health.get(DAMAGE);
    if (damage) throw new StorageError('corrupt', `not reading a damaged store: ${damage.reason}`);
  }

  /** Key index lookup as of the latest fold (cheap, synchronous). */
  entry(key: ObjectKey): IndexEntry | undefined {
    return this.materializer.entry(key);
  }

  get folded(): number {
    return this.materializer.folded;
  }

  /** Offset below which history has been compacted away. */
  get compactedBelow(): number {
    return this.compactor.compacted;
  }

  /**
   * Resolves when LevelDB is open for reads: at once (undefined), except while recover() reopens
   * it. Every reader of `db` awaits it before starting a read.
   */
  whenOpen(): Promise<void> | undefined {
    return this.reopening ?? undefined;
  }

  /** Latest committed value of one object. */
  async get(key: ObjectKey): Promise<Buffer | undefined> {
    this.checkReadable();
    // Recently committed or read objects are answered from memory (mvcc/current-cache.ts).
    let v = this.materializer.cached(key);
    if (v === undefined) {
      if (this.reopening) await this.reopening;
      const version = this.materializer.committedVersion(key);
      v = await this.db.get(currentKey(key)).catch((e: unknown) => {
        throw this.damaged(e);
      });
      if (v !== undefined && version !== undefined) this.materializer.remember(key, version, v);
    }
    return v === undefined ? v : this.atRest.decode(key, v);
  }

  /** Decoder of one resource's stored values, for readers that scan the snapshot themselves. */
  decoderFor(group: string, resource: string): ValueDecoder {
    return this.atRest.decoderFor(group, resource);
  }

  /**
   * The stored value of `key` was read with a provider or key that writes no longer use (after a
   * key rotation): a no-op update must still write it. False at once for unencrypted resources.
   */
  async stale(key: ObjectKey): Promise<boolean> {
    if (!this.atRest.transforms(key.group, key.resource)) return false;
    if (this.reopening) await this.reopening;
    const v = await this.db.get(currentKey(key));
    try {
      return v !== undefined && this.atRest.stale(key, v);
    } catch {
      return false; // unreadable: the write path has already failed on the read
    }
  }

  /** An event's object (from the log) as the fold stored it at `offset`, readable. */
  eventObject(key: ObjectKey, offset: number, object: Buffer): Buffer | null {
    const stamped = stampResourceVersion(object, offset);
    return stamped && this.atRest.decode(key, stamped);
  }

  /**
   * The object as it was at version `rv` (exact read through history). Throws
   * StorageError('expired') when `rv` is below the compaction point.
   */
  async getAt(key: ObjectKey, rv: number): Promise<Buffer | undefined> {
    this.checkReadable();
    if (rv < this.compactor.compacted) throw new StorageError('expired', `too old resource version: ${rv} (${this.compactor.compacted})`);
    if (this.reopening) await this.reopening;
    try {
      for await (const v of this.db.values({ gte: historyPrefix(key), lte: historyKey(key, rv), reverse: true, limit: 1 })) {
        return v.length ? this.atRest.decode(key, v) : undefined;
      }
    } catch (e) {
      throw this.damaged(e);
    }
    return undefined;
  }

  /**
   * What history says about offset `rv` of one object, for replaying the log: `written` is the
   * version written at exactly `rv` (undefined: the event at `rv` was rejected or is not this
   * object's; an empty Buffer: deleted at `rv`), `previous` the newest live version before it.
   * Callers must check `compactedBelow` afterwards: a compaction past `rv` may have removed both.
   */
  async historyAt(key: ObjectKey, rv: number): Promise<{ written: Buffer | undefined; previous: Buffer | undefined }> {
    this.checkReadable();
    const at = historyKey(key, rv);
    let written: Buffer | undefined;
    let previous: Buffer | undefined;
    if (this.reopening) await this.reopening;
    // Newest first: the entry at rv itself (if any), then the one before it.
    try {
      for await (const [k, v] of this.db.iterator({ gte: historyPrefix(key), lte: at, reverse: true, limit: 2 })) {
        if (k === at) {
          written = v.length ? this.atRest.decode(key, v) : v;
          continue;
        }
        previous = v.length ? this.atRest.decode(key, v) : undefined;
        break;
      }
    } catch (e) {
      throw this.damaged(e);
    }
    return { written, previous };
  }

  /** A consistent view at the latest folded version (LevelDB snapshot + the m/folded it holds). */
  async view(): Promise<ReadView> {
    this.checkReadable();
    if (this.reopening) await this.reopening;
    const snapshot = this.db.snapshot();
    const f = await this.db.get(META_FOLDED, { snapshot });
    const rv = f === undefined ? 0 : fromHex16(f.toString());
    const db = this.db;
    const atRest = this.atRest;
    const damaged = (e: unknown): unknown => this.damaged(e);
    return {
      rv,
      get: async (key) => {
        const v = await db.get(currentKey(key), { snapshot }).catch((e: unknown) => {
          throw damaged(e);
        });
        return v === undefined ? v : atRest.decode(key, v);
      },
      async *scan(gte, lt, after) {
        const range = after !== undefined ? { gt: after, lt } : { gte, lt };
        try {
          for await (const [k, v] of db.iterator({ ...range, snapshot })) {
            yield atRest.enabled || isTransformed(v) ? [k, atRest.decode(parseObjectPath(k), v)] : [k, v];
          }
        } catch (e) {
          throw damaged(e);
        }
      },
      close: () => snapshot.close(),
    };
  }

  /**
   * Subscribe to committed changes (in offset order), objects readable: values encrypted at rest
   * are decrypted once per change for all listeners (one subscription to the materializer), and
   * a change this process cannot read (no or another --encryption-provider-config) is reported to
   * onUndecryptable instead of reaching a listener as bytes it would fail to parse. A batch with
   * nothing encrypted is forwarded as it is (one byte compared per object).
   */
  onChange(listener: ChangeListener): () => void {
    this.decodedListeners.add(listener);
    this.unsubscribeDecoded ??= this.materializer.onChange((changes, folded) => this.publishDecoded(changes, folded));
    return () => {
      this.decodedListeners.delete(listener);
      if (!this.decodedListeners.size && this.unsubscribeDecoded) {
        this.unsubscribeDecoded();
        this.unsubscribeDecoded = null;
      }
    };
  }

  private publishDecoded(changes: Change[], folded: number): void {
    let out = changes;
    if (changes.some((c) => isTransformed(c.object) || (c.prev !== undefined && isTransformed(c.prev)))) {
      out = [];
      for (const c of changes) {
        try {
          const object = isTransformed(c.object) ? this.atRest.decode(c.key, c.object) : c.object;
          const prev = c.prev && isTransformed(c.prev) ? this.atRest.decode(c.key, c.prev) : c.prev;
          out.push(object === c.object && prev === c.prev ? c : { ...c, object, ...(prev ? { prev } : {}) });
        } catch (e) {
          this.onUndecryptable?.(c, e as Error);
        }
      }
      if (!out.length) return;
    }
    for (const l of this.decodedListeners) {
      try {
        l(out, folded);
      } catch {
        // A listener's failure is its own, as in Materializer.commit.
      }
    }
  }

  /** Start the recovery timer when the store refuses writes (and a restart is not required). */
  private scheduleRecovery(): void {
    // Only a failed write is recovered by reopening; other sources clear their own problems.
    if (this.closed || this.recoverTimer || this.recovering || !this.health.get('write') || this.health.fatal) return;
    this.recoverTimer = setTimeout(() => {
      this.recoverTimer = null;
      this.recovering = this.recover()
        .catch((err: unknown) => this.health.fail('write', `recovering the store failed: ${describeStoreError(err)}`, true))
        .finally(() => {
          this.recovering = null;
          this.scheduleRecovery();
        });
    }, RECOVER_INTERVAL_MS);
    this.recoverTimer.unref();
  }

  /**
   * Bring a store that refused writes back, as a restart would, but without stopping reads for
   * longer than a reopen: once there is room for it (statfs), wait for the writes in flight to
   * fail, close LevelDB (which forgets its sticky write error) and open it again (which writes
   * what its own write-ahead log holds into a table, fsynced) — both stores in embedded mode, the
   * log's and the snapshot's — then re-read the durable state (key index, folded offset, the
   * log's end) from disk and, embedded, fold the log entries the snapshot lacks into it (the
   * catch-up of LevelLog.open: a batch the log took but the snapshot failed to write).
   *
   * The rule after a failed write of unknown durability (PostgreSQL's fsync lesson): nothing is
   * acknowledged from memory; writes resume only if the store re-read from disk holds exactly what
   * was acknowledged (embedded: the log holds exactly the batches whose log write succeeded; a
   * Kafka replica: the snapshot holds exactly what it had folded). If it holds more (the failed
   * batch reached the disk after all: its writers were answered with an error, and watchers never
   * saw it) or less (an acknowledged write is gone), the problem becomes fatal: writes stay
   * refused and /livez fails, so the process is restarted, and a restart serves exactly what is on disk.
   */
  private async recover(): Promise<void> {
    if (this.closed || !this.health.get('write') || this.health.fatal) return;
    if (this.dataDir && this.freeBytes() < this.reopenNeeds()) return; // still full: try again later
    const log = this.log instanceof LevelLog ? this.log : null;
    // Embedded: every batch the log store took is acknowledged (201, or 504 "in the log" when the
    // snapshot write failed after it); the snapshot may be behind it. Kafka: what was folded.
    const acknowledged = log ? log.durableEnd : this.materializer.folded;
    await this.health.drained();
    await this.compactor.idle();
    if (this.closed) return;
    const committed = this.materializer.folded;
    // Reads that begin meanwhile wait (whenOpen); scans already running end with LevelDB's
    // not-open error, which clients get as a 503 with Retry-After (storageFailure).
    let reopened = (): void => undefined;
    this.reopening = new Promise<void>((r) => (reopened = r));
    try {
      for (const db of [this.db, this.logDb]) await db?.close();
      for (const db of [this.logDb, this.db]) await db?.open();
    } catch (err) {
      this.health.fail('write', `reopening the store failed: ${describeStoreError(err)}`);
      return;
    } finally {
      this.reopening = null;
      reopened();
    }
    const folded = await this.materializer.reload();
    this.materializer.forgetCached();
    const durable = log ? await lastLogOffset(this.logDb!) : folded;
    const fatal = (what: string): void => this.health.fail('write', `after a failed write the store holds ${what}`, true);
    if (durable !== acknowledged) {
      return fatal(durable > acknowledged ? `writes ${acknowledged + 1}..${durable} that were answered with an error` : `only up to ${durable}, but ${acknowledged} was acknowledged`);
    }
    if (log) {
      // The snapshot is never ahead of what was published (a failed snapshot write that reached
      // the disk anyway: its changes never went to watchers), and catches up with the log.
      if (folded > committed) return fatal(`snapshot changes ${committed + 1}..${folded} that watchers were never sent`);
      try {
        await log.resume();
      } catch (err) {
        if (err instanceof StorageError && err.code === 'corrupt') return fatal(err.message);
        this.health.fail('write', `folding the log into the snapshot failed: ${describeStoreError(err)}`);
        return;
      }
    }
    this.logger?.info({ folded: this.materializer.folded }, 'store reopened; its durable state matches every acknowledged write');
    this.health.clear('write');
  }

  /** Bytes available to this process on the data dir's filesystem. */
  private freeBytes(): number {
    const s = statfsSync(this.dataDir);
    return s.bavail * s.bsize;
  }

  /** What a reopen writes: LevelDB's write-ahead logs (replayed into a table) and a margin. */
  private reopenNeeds(): number {
    let bytes = REOPEN_MARGIN_BYTES;
    for (const db of [this.db, this.logDb]) {
      if (!db) continue;
      for (const f of readdirSync(db.location)) if (f.endsWith('.log')) bytes += statSync(`${db.location}/${f}`).size;
    }
    return bytes;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.recoverTimer) clearTimeout(this.recoverTimer);
    await this.recovering;
    if (this.scrubTimer) clearInterval(this.scrubTimer);
    await this.scrubbing;
    this.compactor.stop();
    await this.tail?.stop();
    await this.log.close();
    this.materializer.close();
    await this.db.close();
    await this.logDb?.close();
  }
}


/** kafkajs log entries → the server's logger (kafkajs logs to the console by default). */
function kafkaLogs(logger: StorageLogger, kafkaLogLevel: typeof KafkaLogLevel) {
  return () => ({ level, log }: { level: number; log: { message: string; [k: string]: unknown } }) => {
    const { message, ...rest } = log;
    if (level <= kafkaLogLevel.ERROR) logger.error({ kafka: rest }, message);
    else if (level === kafkaLogLevel.WARN) logger.warn({ kafka: rest }, message);
  };
}
