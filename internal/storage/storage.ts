/**
 * Storage facade: the log (durable, ordered), the materializer (fold + key index) and the
 * snapshot (values by key and version), wired for one process. Generic registry code talks only
 * to this; it never touches LevelDB keys.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import type { EventLog } from './log/log.ts';
import { LevelLog } from './log/level-log.ts';
import type { LogEvent } from './log/event.ts';
import { Materializer, type Db, type ChangeListener } from './mvcc/materializer.ts';
import type { Verdict, IndexEntry } from './mvcc/fold.ts';
import { currentKey, historyKey, historyPrefix, fromHex16, META_FOLDED, type ObjectKey } from './keys.ts';
import { StorageError } from './errors.ts';
import { Compactor } from './mvcc/compactor.ts';

export interface StorageOptions {
  dataDir: string;
  /** How long object history stays readable at exact versions (ms). Kubernetes: 5 minutes. */
  historyWindowMs: number;
  /** fsync every group commit (default true). */
  sync?: boolean;
  /** How often the compactor runs (ms). Default: a tenth of the window, at least 1 s. */
  compactIntervalMs?: number;
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
  private constructor(
    readonly db: Db,
    readonly materializer: Materializer,
    readonly log: EventLog,
    private readonly compactor: Compactor,
  ) {}

  /** Open the embedded default: log and snapshot in one LevelDB under `dataDir/db`. */
  static async openEmbedded(opts: StorageOptions): Promise<Storage> {
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    const db: Db = new ClassicLevel<string, Buffer>(`${opts.dataDir}/db`, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
    await db.open();
    const materializer = await Materializer.open(db);
    const log = await LevelLog.open(db, materializer, { sync: opts.sync });
    const compactor = new Compactor(db, materializer, opts.historyWindowMs, opts.compactIntervalMs ?? Math.max(1000, opts.historyWindowMs / 10));
    await compactor.start();
    return new Storage(db, materializer, log, compactor);
  }

  /**
   * Append an intent and wait for the fold's verdict on it. Throws StorageError('unreachable') if
   * the append itself failed (nothing was written).
   */
  async write(intent: WriteIntent): Promise<Verdict> {
    if (this.closed) throw new StorageError('unreachable', 'storage is closed');
    const id = randomUUID();
    const verdict = this.materializer.expectVerdict(id);
    try {
      await this.log.append({ ...intent, id });
    } catch (err) {
      this.materializer.cancelVerdict(id, err as Error);
      throw err;
    }
    return verdict;
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

  /** Latest committed value of one object. */
  async get(key: ObjectKey): Promise<Buffer | undefined> {
    return this.db.get(currentKey(key));
  }

  /**
   * The object as it was at version `rv` (exact read through history). Throws
   * StorageError('expired') when `rv` is below the compaction point.
   */
  async getAt(key: ObjectKey, rv: number): Promise<Buffer | undefined> {
    if (rv < this.compactor.compacted) throw new StorageError('expired', `too old resource version: ${rv} (${this.compactor.compacted})`);
    for await (const v of this.db.values({ gte: historyPrefix(key), lte: historyKey(key, rv), reverse: true, limit: 1 })) {
      return v.length ? v : undefined;
    }
    return undefined;
  }

  /** A consistent view at the latest folded version (LevelDB snapshot + the m/folded it holds). */
  async view(): Promise<ReadView> {
    const snapshot = this.db.snapshot();
    const f = await this.db.get(META_FOLDED, { snapshot });
    const rv = f === undefined ? 0 : fromHex16(f.toString());
    const db = this.db;
    return {
      rv,
      get: (key) => db.get(currentKey(key), { snapshot }),
      async *scan(gte, lt, after) {
        const range = after !== undefined ? { gt: after, lt } : { gte, lt };
        for await (const entry of db.iterator({ ...range, snapshot })) yield entry;
      },
      close: () => snapshot.close(),
    };
  }

  /** Subscribe to committed changes (in offset order). Returns an unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    return this.materializer.onChange(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor.stop();
    await this.log.close();
    this.materializer.close();
    await this.db.close();
  }
}

