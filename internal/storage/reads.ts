/**
 * The snapshot store's reads behind the Storage facade: one object (latest, at a version, its
 * history at an offset), a consistent view, and a collection for lists (list.ts). Every read goes
 * through `read`: refused on a damaged store, held while recovery reopens LevelDB, and a LevelDB
 * failure that means damage becomes StorageError('corrupt') and fails the store's health (`damaged`).
 */
import { dirname } from 'node:path';
import type { Materializer, Db } from './mvcc/materializer.ts';
import type { Compactor } from './mvcc/compactor.ts';
import { currentKey, historyKey, historyPrefix, fromHex16, parseObjectPath, META_FOLDED, type ObjectKey } from './keys.ts';
import type { AtRest } from './encryption/at-rest.ts';
import { isTransformed } from './encryption/stamp.ts';
import { StorageError } from './errors.ts';
import { damagedTables, repairHint, type StoreRole } from './open-verified.ts';
import { describeFaults } from './verify-tables.ts';
import { DAMAGE, isStoreDamage, type StoreHealth } from './store-health.ts';
import { readAt, readLatest, type Collection, type CollectionRead } from './list.ts';
import type { TableVouch } from './table-watch.ts';

/** A consistent read view: every read through it sees the state as of `rv`. */
export interface ReadView {
  rv: number;
  get(key: ObjectKey): Promise<Buffer | undefined>;
  /** o/ entries with keys in [gte, lt), in key order, starting strictly after `after` if given. */
  scan(gte: string, lt: string, after?: string): AsyncIterable<[string, Buffer]>;
  close(): Promise<void>;
}

/** What SnapshotReads reads (the Storage facade's parts). */
export interface SnapshotReadsOptions {
  db: Db;
  materializer: Materializer;
  compactor: Compactor;
  atRest: AtRest;
  health: StoreHealth;
  /** What the snapshot store is, in errors and repair hints. */
  role: StoreRole;
  /** Changes to the store's tables while it runs (table-watch.ts): reads racing one wait for its verification. */
  tables?: TableVouch;
  /**
   * A serving thread (storage/follower.ts): damage one of its reads finds goes to the leader,
   * which logs it, names the tables and fails the health of every thread.
   */
  report?: (reason: string) => void;
}

/** The snapshot store's reads (see the file comment); one per Storage. */
export class SnapshotReads {
  private readonly db: Db;
  private readonly materializer: Materializer;
  private readonly compactor: Compactor;
  private readonly atRest: AtRest;
  private readonly health: StoreHealth;
  private readonly role: StoreRole;
  private readonly tables: TableVouch | undefined;
  private readonly report: ((reason: string) => void) | undefined;
  /** Set while recovery closes and reopens LevelDB: readers wait for it instead of failing. */
  private reopening: Promise<void> | null = null;

  constructor(o: SnapshotReadsOptions) {
    ({ db: this.db, materializer: this.materializer, compactor: this.compactor, atRest: this.atRest, health: this.health, role: this.role, tables: this.tables, report: this.report } = o);
  }

  /**
   * Run `reopen` (recovery closing and opening the stores) with reads held until it ends: reads
   * that begin meanwhile wait (whenOpen); scans already running end with LevelDB's not-open
   * error, which clients get as a 503 with Retry-After (storageFailure).
   */
  async holdReads(reopen: () => Promise<void>): Promise<void> {
    let reopened = (): void => undefined;
    this.reopening = new Promise<void>((r) => (reopened = r));
    try {
      await reopen();
    } finally {
      this.reopening = null;
      reopened();
    }
  }

  /** Resolves when LevelDB is open for reads: at once (undefined), except while it is reopened. */
  whenOpen(): Promise<void> | undefined {
    return this.reopening ?? undefined;
  }

  /**
   * Reads of the snapshot are refused once the storage has failed: a damaged store may have lost
   * keys silently, so no list or get from it can be vouched for until `replay repair`.
   */
  checkReadable(): void {
    const damage = this.health.get(DAMAGE);
    if (damage) throw new StorageError('corrupt', `not reading a damaged store: ${damage.reason}`);
  }

  /**
   * One read of LevelDB: after a reopen in progress, its failure passed through `damaged`, its
   * result vouched for (a table changed while it read: kept only once the table verifies).
   */
  private async read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.reopening) await this.reopening;
    const generation = this.tables?.generation ?? 0;
    let out: T;
    try {
      out = await fn();
    } catch (e) {
      throw this.damaged(e);
    }
    const vouched = this.vouch(generation);
    if (vouched) await vouched;
    return out;
  }

  /**
   * What was read since the table watch was at `generation` may be used: waits for the
   * verification of tables changed meanwhile (table-watch.ts), then throws if the store was found damaged.
   */
  private vouch(generation: number): Promise<void> | undefined {
    const verified = this.tables?.vouch(generation);
    if (!verified) {
      this.checkReadable();
      return undefined;
    }
    return verified.then(() => this.checkReadable());
  }

  /** Latest committed value of one object. */
  async get(key: ObjectKey): Promise<Buffer | undefined> {
    this.checkReadable();
    // Recently committed or read objects are answered from memory (mvcc/current-cache.ts).
    let v = this.materializer.cached(key);
    if (v === undefined) {
      if (this.reopening) await this.reopening;
      const version = this.materializer.committedVersion(key);
      v = await this.read(() => this.db.get(currentKey(key)));
      if (v !== undefined && version !== undefined) this.materializer.remember(key, version, v);
    }
    return v === undefined ? v : this.atRest.decode(key, v);
  }

  /**
   * The stored value of `key` was read with a provider or key that writes no longer use (after a
   * key rotation): a no-op update must still write it. False at once for unencrypted resources.
   */
  async stale(key: ObjectKey): Promise<boolean> {
    if (!this.atRest.transforms(key.group, key.resource)) return false;
    const v = await this.read(() => this.db.get(currentKey(key)));
    try {
      return v !== undefined && this.atRest.stale(key, v);
    } catch {
      return false; // unreadable: the write path has already failed on the read
    }
  }

  /**
   * The object as it was at version `rv` (exact read through history). Throws
   * StorageError('expired') when `rv` is below the compaction point.
   */
  async getAt(key: ObjectKey, rv: number): Promise<Buffer | undefined> {
    this.checkReadable();
    if (rv < this.compactor.compacted) throw new StorageError('expired', `too old resource version: ${rv} (${this.compactor.compacted})`);
    return this.read(async () => {
      for await (const v of this.db.values({ gte: historyPrefix(key), lte: historyKey(key, rv), reverse: true, limit: 1 })) {
        return v.length ? this.atRest.decode(key, v) : undefined;
      }
      return undefined;
    });
  }

  /** See Storage.historyAt. */
  async historyAt(key: ObjectKey, rv: number): Promise<{ written: Buffer | undefined; previous: Buffer | undefined }> {
    this.checkReadable();
    const at = historyKey(key, rv);
    let written: Buffer | undefined;
    let previous: Buffer | undefined;
    // Newest first: the entry at rv itself (if any), then the one before it.
    await this.read(async () => {
      for await (const [k, v] of this.db.iterator({ gte: historyPrefix(key), lte: at, reverse: true, limit: 2 })) {
        if (k === at) {
          written = v.length ? this.atRest.decode(key, v) : v;
          continue;
        }
        previous = v.length ? this.atRest.decode(key, v) : undefined;
        break;
      }
    });
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
    const tables = this.tables;
    const vouch = (generation: number): Promise<void> | undefined => this.vouch(generation);
    return {
      rv,
      get: async (key) => {
        const generation = tables?.generation ?? 0;
        const v = await db.get(currentKey(key), { snapshot }).catch((e: unknown) => {
          throw damaged(e);
        });
        await vouch(generation);
        return v === undefined ? v : atRest.decode(key, v);
      },
      async *scan(gte, lt, after) {
        const range = after !== undefined ? { gt: after, lt } : { gte, lt };
        const generation = tables?.generation ?? 0;
        try {
          for await (const [k, v] of db.iterator({ ...range, snapshot })) {
            const vouched = vouch(generation);
            if (vouched) await vouched;
            yield atRest.enabled || isTransformed(v) ? [k, atRest.decode(parseObjectPath(k), v)] : [k, v];
          }
        } catch (e) {
          throw damaged(e);
        }
        await vouch(generation);
      },
      close: () => snapshot.close(),
    };
  }

  /**
   * A read of collection `c` (list.ts): at the latest folded version, or at exactly `at` —
   * StorageError('expired') when `at` has been compacted away. `withCount`: a latest read also
   * takes the key index's count of the collection (CollectionRead.liveCount).
   */
  async collection(c: Collection, at?: number, withCount = false): Promise<CollectionRead> {
    this.checkReadable();
    if (this.reopening) await this.reopening;
    const src = {
      db: this.db,
      decoder: this.atRest.decoderFor(c.group, c.resource),
      liveUnder: (base: string) => this.materializer.liveUnder(base),
    };
    const read = at === undefined
      ? readLatest(src, c, withCount)
      : readAt(src, c, at, () => {
        if (at < this.compactor.compacted) throw new StorageError('expired', `too old resource version: ${at} (${this.compactor.compacted})`);
      });
    return this.tables ? this.vouched(read) : read;
  }

  /** `read` with every batch and count vouched for (see read): nothing read while a table changed is passed on unverified. */
  private vouched(read: CollectionRead): CollectionRead {
    const tables = this.tables!;
    const vouch = (generation: number): Promise<void> | undefined => this.vouch(generation);
    return {
      rv: read.rv,
      liveCount: read.liveCount,
      position: (path) => read.position(path),
      close: () => read.close(),
      async *objects(after, sizes) {
        // The generation at the start (not per batch): a batch may have been read ahead of the last one vouched for.
        const generation = tables.generation;
        for await (const batch of read.objects(after, sizes)) {
          await vouch(generation);
          yield batch;
        }
        await vouch(generation);
      },
      async countAfter(path) {
        const generation = tables.generation;
        const n = await read.countAfter(path);
        await vouch(generation);
        return n;
      },
    };
  }

  /**
   * What to throw for a failed read of the snapshot store. LevelDB's `Corruption:` / `IO error:`
   * (store-health.ts isStoreDamage) mean damaged files: the storage is marked failed (the etcd
   * health check fails from now on, the app logs it), the tables are verified once in the
   * background to name the damaged file (verify-tables.ts), and the error becomes a
   * StorageError('corrupt'): a 500 Status, never data. Any other error is returned as it is.
   */
  damaged(err: unknown): unknown {
    if (err instanceof StorageError || !isStoreDamage(err)) return err;
    const cause = (err as { cause?: Error }).cause;
    const text = cause?.message ?? (err as Error).message;
    this.found(`the snapshot store is damaged: ${text}${repairHint(this.role, dirname(this.db.location))}`);
    return new StorageError('corrupt', `the snapshot store is damaged: ${text}`);
  }

  /**
   * Damage a read found (here or, on the leader, in a serving thread's read): the health fails
   * and the damaged tables are named once. A serving thread refuses its reads at once and tells
   * its leader, which does the rest.
   */
  found(reason: string): void {
    if (this.health.get(DAMAGE)) return;
    if (this.report) {
      this.health.damaged(reason, true);
      this.report(reason);
      return;
    }
    this.health.damaged(reason);
    void this.nameDamagedTables();
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
}
