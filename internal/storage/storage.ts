/**
 * Storage facade: the log (durable, ordered), the materializer (fold + key index) and the
 * snapshot (values by key and version), wired for one process. Registry code talks only to this
 * (and the types it exports); it never touches LevelDB keys, the db or the materializer.
 *
 * Beside it: open.ts opens the stores, reads.ts reads the snapshot (list.ts: a collection for
 * lists), recovery.ts reopens a store that refused writes and scrubs the tables, system-write.ts
 * builds the server's own writes.
 */
import { randomUUID } from 'node:crypto';
import type { EventLog } from './log/log.ts';
import { LevelLog } from './log/level-log.ts';
import { KafkaLog } from './log/kafka-log.ts';
import { loadKafkajs } from './log/kafkajs.ts';
import { KafkaTail } from './log/kafka-tail.ts';
import type { LogEvent } from './log/event.ts';
import { Materializer, type Db, type ChangeListener, type Change } from './mvcc/materializer.ts';
import { stampResourceVersion, type Verdict, type IndexEntry } from './mvcc/fold.ts';
import { META_FOLDED, type ObjectKey } from './keys.ts';
import { AtRest } from './encryption/at-rest.ts';
import { isTransformed } from './encryption/stamp.ts';
import { StorageError } from './errors.ts';
import { Compactor } from './mvcc/compactor.ts';
import type { OpenCheck } from './open-verified.ts';
import type { LogInstruments } from './log/instruments.ts';
import { StoreHealth, DAMAGE, type StorageLogger } from './store-health.ts';
import { openStores, kafkaLogs } from './open.ts';
import { SnapshotReads, type ReadView } from './reads.ts';
import { StoreKeeper } from './recovery.ts';
import { TableWatch } from './table-watch.ts';
import type { StoreRole } from './open-verified.ts';
import { dirname } from 'node:path';
import type { Collection, CollectionRead } from './list.ts';
import { systemIntent, type SystemWrite } from './system-write.ts';
import { ClassicLevel } from 'classic-level';
import { FollowerTail, LeaderFeed, type FollowerLink } from './follower.ts';

// The facade's types: what its callers need, so they import nothing else of storage.
export type { StorageLogger } from './store-health.ts';
export type { ObjectKey } from './keys.ts';
export type { Verdict, RejectReason, IndexEntry } from './mvcc/fold.ts';
export type { Change, ChangeListener } from './mvcc/materializer.ts';
export type { ReadView } from './reads.ts';
export type { Collection, CollectionRead, ListEntry, BatchSizes } from './list.ts';
export type { SystemWrite } from './system-write.ts';
export { StorageError, isStoreNotOpen, type StorageErrorCode } from './errors.ts';
export { objectPath } from './keys.ts';
export type { FollowerLink } from './follower.ts';

/**
 * How often the running server verifies its tables (Storage.startScrub): ~0.3–0.5 s of CPU per
 * 100k 1 KiB objects (41 MiB of tables), in steps of one table (≤ 2 MiB, a few ms each).
 */
export const DEFAULT_SCRUB_INTERVAL_MS = 10 * 60_000;

/** How a Storage is opened (embedded; KafkaStorageOptions adds the topic). */
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

/** How a replica on a Kafka topic is opened. */
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

/** How a serving thread's follower storage is opened (storage/follower.ts). */
export interface FollowerStorageOptions {
  dataDir: string;
  historyWindowMs: number;
  link: FollowerLink;
  atRest?: AtRest;
  onUndecryptable?: StorageOptions['onUndecryptable'];
  logger?: StorageLogger;
}

/** What a writer supplies; the storage fills the intent id. */
export type WriteIntent = Omit<LogEvent, 'id'>;

/** The parts a Storage is built from (by openEmbedded / openKafka). */
interface StorageParts {
  db: Db;
  materializer: Materializer;
  log: EventLog;
  compactor: Compactor;
  /** Kafka mode: the fold loop; embedded: the log folds as it appends. */
  tail?: KafkaTail | null;
  /** A serving thread: the leader's commits applied, writes sent to it (then `log` is this too). */
  follower?: FollowerTail | null;
  /** Kafka mode: how long a write waits for this replica's fold of it (0: no limit). */
  writeTimeoutMs?: number;
  atRest?: AtRest;
  onUndecryptable?: StorageOptions['onUndecryptable'];
  /** The embedded log's own store (null on Kafka). */
  logDb?: Db | null;
  health: StoreHealth;
  dataDir: string;
  logger?: StorageLogger;
  openCheck: OpenCheck;
}

/** The storage facade (see the file comment); one per process. */
export class Storage {
  private closed = false;
  /** The tables' checksums verified at open (storage/open-verified.ts), for the start-up log. */
  readonly openCheck: OpenCheck;
  /** Listeners of readable (decrypted) changes; one materializer subscription serves them all. */
  private readonly decodedListeners = new Set<ChangeListener>();
  private unsubscribeDecoded: (() => void) | null = null;
  readonly db: Db;
  readonly materializer: Materializer;
  readonly log: EventLog;
  private readonly compactor: Compactor;
  private readonly tail: KafkaTail | null;
  private readonly follower: FollowerTail | null;
  /** The leader's feed to its serving threads (created by the first `lead`). */
  private feed: LeaderFeed | null = null;
  private readonly writeTimeoutMs: number;
  /** Encryption at rest (encryption/at-rest.ts); a pass-through when nothing is configured. */
  readonly atRest: AtRest;
  private readonly onUndecryptable: StorageOptions['onUndecryptable'];
  /** The embedded log's own store (null on Kafka). */
  readonly logDb: Db | null;
  /** Whether writes (and, once damage is found, reads) are served, and why not (store-health.ts); shared with every writer. */
  readonly health: StoreHealth;
  private readonly reads: SnapshotReads;
  private readonly keeper: StoreKeeper;
  /** Changes to the tables while the server runs (table-watch.ts; a serving thread reads its leader's). */
  private readonly tables: TableWatch;

  private constructor(p: StorageParts) {
    this.db = p.db;
    this.materializer = p.materializer;
    this.log = p.log;
    this.compactor = p.compactor;
    this.tail = p.tail ?? null;
    this.follower = p.follower ?? null;
    this.writeTimeoutMs = p.writeTimeoutMs ?? 0;
    this.atRest = p.atRest ?? new AtRest();
    this.onUndecryptable = p.onUndecryptable;
    this.logDb = p.logDb ?? null;
    this.health = p.health;
    this.openCheck = p.openCheck;
    const role: StoreRole = this.tail ? 'replica snapshot' : 'snapshot';
    const watched: Array<{ dir: string; role: StoreRole }> = [{ dir: this.db.location, role }, ...(this.logDb ? [{ dir: this.logDb.location, role: 'log' as const }] : [])];
    const tables = (this.tables = new TableWatch(watched, this.health, dirname(this.db.location), p.logger));
    const follower = this.follower;
    this.reads = new SnapshotReads({
      db: this.db, materializer: this.materializer, compactor: this.compactor, atRest: this.atRest, health: this.health, role,
      // A serving thread's reads are held by its leader's table watch, and report damage to it (storage/follower.ts).
      tables: follower ?? tables,
      report: follower ? (reason) => follower.reportDamage(reason) : undefined,
    });
    this.keeper = new StoreKeeper({
      db: this.db, logDb: this.logDb, log: this.log, materializer: this.materializer, compactor: this.compactor,
      health: this.health, reads: this.reads, role, dataDir: p.dataDir, logger: p.logger, tables, threads: () => this.feed,
    });
    const { health, tail, materializer } = this;
    if (follower) {
      // The leader recovers the stores; this thread's health mirrors its, and its handles are
      // closed while the leader reopens them (storage/follower.ts).
      follower.onRelease = () =>
        this.reads.holdReads(async () => {
          for (const d of [this.db, this.logDb]) await d?.close();
          await follower.released();
          for (const d of [this.logDb, this.db]) await d?.open({ multithreading: true });
          this.materializer.forgetCached();
        });
      return;
    }
    health.onChange(() => {
      // Kafka mode: writes already in the log wait for this replica's fold, which cannot write
      // now. They are answered at once with a Timeout (kube's answer for an outcome it does not
      // know: the event is in the log and is applied when a replica folds it), not after writeTimeoutMs.
      const problem = health.problem;
      if (problem && tail) materializer.cancelVerdicts(new StorageError('timeout', `the write is in the log, but this replica cannot apply it now (${problem.reason}); it is applied once the store recovers`));
      this.keeper.scheduleRecovery();
    });
    this.keeper.scheduleRecovery(); // a Kafka replica's fold may have failed before this was built
  }

  private static compactorFor(db: Db, m: Materializer, opts: StorageOptions, health: StoreHealth): Compactor {
    return new Compactor(db, m, opts.historyWindowMs, opts.compactIntervalMs ?? Math.max(1000, opts.historyWindowMs / 10), health);
  }

  /** Open the embedded default: the log in `dataDir/log`, the snapshot in `dataDir/db`. */
  static async openEmbedded(opts: StorageOptions): Promise<Storage> {
    const { db, logDb, check } = await openStores(opts.dataDir, true);
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
      storage = new Storage({ ...opts, db, materializer, log, compactor, logDb, health, openCheck: check });
      storage.startScrub(opts.scrubIntervalMs ?? DEFAULT_SCRUB_INTERVAL_MS);
      return storage;
    } catch (err) {
      await logDb!.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Open a serving thread's storage (storage/follower.ts): the leader's stores, opened again from
   * this thread, and the key index loaded from them; the leader's commits are applied from `link`.
   * No fold, compactor, scrub or recovery here: they are the leader's.
   */
  static async openFollower(opts: FollowerStorageOptions): Promise<Storage> {
    const open = async (dir: string): Promise<Db> => {
      const db: Db = new ClassicLevel<string, Buffer>(`${opts.dataDir}/${dir}`, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
      await db.open({ multithreading: true });
      return db;
    };
    const db = await open('db');
    const logDb = opts.link.kafka ? null : await open('log');
    const health = new StoreHealth(opts.logger);
    const follower = new FollowerTail(opts.link, health, logDb);
    try {
      const materializer = await Materializer.open(db);
      // Never started: the leader compacts. Its point is read from shared memory, where the
      // leader stores it before deleting anything below it.
      const compactor = Storage.compactorFor(db, materializer, opts, health);
      Object.defineProperty(compactor, 'compacted', { get: () => follower.compacted });
      follower.start(materializer);
      return new Storage({ ...opts, db, materializer, log: follower, compactor, follower, logDb, health, openCheck: { tables: 0, bytes: 0, ms: 0 } });
    } catch (err) {
      await follower.close();
      await logDb?.close().catch(() => undefined);
      await db.close().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The leader's end of a serving thread's link (storage/follower.ts): `port` gets this storage's
   * commits, verdicts and health from now on; the result goes to Storage.openFollower in the thread.
   */
  lead(port: import('node:worker_threads').MessagePort): FollowerLink {
    this.feed ??= new LeaderFeed({
      materializer: this.materializer,
      health: this.health,
      compaction: this.compactor,
      tables: this.tables,
      damage: (reason) => this.reads.found(reason),
      appendFor: (id, event) => {
        if (this.closed) return Promise.reject(new StorageError('unreachable', 'storage is closed'));
        this.health.assertWritable();
        return this.append(event, id);
      },
      latest: () => this.latest(),
      kafka: this.tail !== null,
      readLog: (from, to) => this.log.read(from, to),
    });
    return this.feed.link(port);
  }

  /** Writes this leader took from its serving threads so far. */
  get followerWrites(): number {
    return this.feed?.appends ?? 0;
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
    const { db, check } = await openStores(opts.dataDir, false);
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
      const storage = new Storage({ ...opts, db, materializer, log, compactor, tail, writeTimeoutMs, health, openCheck: check });
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
    if (this.follower) {
      // A serving thread: the leader's end (shared memory; Kafka: the leader asks the broker),
      // then this thread's application of it (the commit is on its way on the port).
      const end = await this.log.endOffset();
      if (!(await this.materializer.waitFolded(end - 1, timeoutMs))) {
        throw new StorageError('timeout', `serving thread applied ${this.materializer.folded}, the leader committed ${end - 1}: not caught up within ${timeoutMs} ms`);
      }
      return end - 1;
    }
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
    // `return await`: one turn, where returning the promise costs a thenable job and two.
    return await this.append(intent);
  }

  /** A write by the server itself (system-write.ts): the intent's other fields filled in. */
  writeSystem(w: SystemWrite): Promise<Verdict> {
    return this.write(systemIntent(w));
  }

  private async append(intent: WriteIntent, id: string = randomUUID()): Promise<Verdict> {
    const verdict = this.materializer.expectVerdict(id);
    try {
      await this.log.append({ ...intent, id });
    } catch (err) {
      this.materializer.cancelVerdict(id, err as Error);
      throw err;
    }
    if (!this.writeTimeoutMs) return await verdict;
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
   * What to throw for a failed read of the snapshot store (reads.ts): damage becomes
   * StorageError('corrupt') and fails the store's health; any other error is returned as it is.
   */
  damaged(err: unknown): unknown {
    return this.reads.damaged(err);
  }

  /**
   * Every `intervalMs`, verify the tables of both stores (recovery.ts): damage that no read has
   * run into yet fails the health before a short list is served.
   */
  startScrub(intervalMs: number): void {
    this.keeper.startScrub(intervalMs);
  }

  /** Reads of a damaged store are refused (StorageError('corrupt')). */
  checkReadable(): void {
    this.reads.checkReadable();
  }

  /** Key index lookup as of the latest fold (cheap, synchronous). */
  entry(key: ObjectKey): IndexEntry | undefined {
    return this.materializer.entry(key);
  }

  get folded(): number {
    return this.materializer.folded;
  }

  /** Resolves true once the fold has reached `offset`, false after `timeoutMs`. */
  waitFolded(offset: number, timeoutMs: number): Promise<boolean> {
    return this.materializer.waitFolded(offset, timeoutMs);
  }

  /** Offset below which history has been compacted away. */
  get compactedBelow(): number {
    return this.compactor.compacted;
  }

  /** Whether objects of this resource are encrypted at rest (their reads decrypt every value). */
  encrypts(group: string, resource: string): boolean {
    return this.atRest.transforms(group, resource);
  }

  /**
   * Resolves when LevelDB is open for reads: at once (undefined), except while recovery reopens
   * it. Every reader of `db` awaits it before starting a read.
   */
  whenOpen(): Promise<void> | undefined {
    return this.reads.whenOpen();
  }

  /** Latest committed value of one object. */
  get(key: ObjectKey): Promise<Buffer | undefined> {
    return this.reads.get(key);
  }

  /**
   * The stored value of `key` was read with a provider or key that writes no longer use (after a
   * key rotation): a no-op update must still write it. False at once for unencrypted resources.
   */
  stale(key: ObjectKey): Promise<boolean> {
    return this.reads.stale(key);
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
  getAt(key: ObjectKey, rv: number): Promise<Buffer | undefined> {
    return this.reads.getAt(key, rv);
  }

  /**
   * What history says about offset `rv` of one object, for replaying the log: `written` is the
   * version written at exactly `rv` (undefined: the event at `rv` was rejected or is not this
   * object's; an empty Buffer: deleted at `rv`), `previous` the newest live version before it.
   * Callers must check `compactedBelow` afterwards: a compaction past `rv` may have removed both.
   */
  historyAt(key: ObjectKey, rv: number): Promise<{ written: Buffer | undefined; previous: Buffer | undefined }> {
    return this.reads.historyAt(key, rv);
  }

  /** A consistent view at the latest folded version (LevelDB snapshot + the m/folded it holds). */
  view(): Promise<ReadView> {
    return this.reads.view();
  }

  /**
   * A consistent read of one collection for a list (list.ts), at the latest folded version or at
   * exactly `at` (StorageError('expired') when compacted away): its objects in key order from a
   * continue position, counts, and continue positions. The caller closes it.
   */
  collection(c: Collection, at?: number, withCount = false): Promise<CollectionRead> {
    return this.reads.collection(c, at, withCount);
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


  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feed?.close();
    await this.keeper.stop();
    this.compactor.stop();
    await this.tail?.stop();
    await this.log.close();
    this.materializer.close();
    await this.db.close();
    await this.logDb?.close();
  }
}

