/**
 * Keeping the stores behind the Storage facade healthy while the server runs: a store that
 * refused writes is reopened once there is room again (recover), and the tables of both stores
 * are verified in the background (scrub).
 */
import { readdirSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventLog } from './log/log.ts';
import { LevelLog, lastLogOffset } from './log/level-log.ts';
import type { Materializer, Db } from './mvcc/materializer.ts';
import type { Compactor } from './mvcc/compactor.ts';
import { StorageError } from './errors.ts';
import { damagedTables, repairHint, type StoreRole } from './open-verified.ts';
import { describeFaults } from './verify-tables.ts';
import { DAMAGE, describeStoreError, type StoreHealth, type StorageLogger } from './store-health.ts';
import type { SnapshotReads } from './reads.ts';
import type { TableWatch } from './table-watch.ts';

/** Tables this recent are left to the next scrub pass (a compaction may be writing them). */
const SCRUB_SKIP_RECENT_MS = 10_000;
/**
 * How often a store that refuses writes tries to recover (recover): once a second, so writes
 * resume about a second after space is freed, at the cost of one statfs a second.
 */
const RECOVER_INTERVAL_MS = 1000;
/**
 * Free space wanted on top of LevelDB's write-ahead logs before the store is reopened: reopening
 * writes the logs' contents into a new table and a new MANIFEST; a reopen that fails for lack of
 * space leaves the store closed (no reads either) until the next try, so it is not tried blind.
 */
const REOPEN_MARGIN_BYTES = 1024 * 1024;

/** The stores and state a StoreKeeper looks after (the Storage facade's parts). */
export interface StoreKeeperOptions {
  db: Db;
  /** The embedded log's own store (null on Kafka). */
  logDb: Db | null;
  log: EventLog;
  materializer: Materializer;
  compactor: Compactor;
  health: StoreHealth;
  reads: SnapshotReads;
  role: StoreRole;
  /** '' (tests of the storage alone): no free-space check before a reopen. */
  dataDir: string;
  logger?: StorageLogger;
  /** Changes to the tables while the server runs (table-watch.ts), started with the scrub. */
  tables?: TableWatch;
  /** Serving threads sharing the stores (storage/follower.ts), closed around a reopen. */
  threads?: () => { release(): Promise<boolean>; reattach(): void } | null;
}

/** Recovery and scrubbing of one Storage's stores (see the file comment). */
export class StoreKeeper {
  private closed = false;
  private scrubTimer: NodeJS.Timeout | null = null;
  private scrubbing: Promise<void> | null = null;
  private recoverTimer: NodeJS.Timeout | null = null;
  private recovering: Promise<void> | null = null;

  constructor(private readonly o: StoreKeeperOptions) {}

  /** Start the recovery timer when the store refuses writes (and a restart is not required). */
  scheduleRecovery(): void {
    const { health } = this.o;
    // Only a failed write is recovered by reopening; other sources clear their own problems.
    if (this.closed || this.recoverTimer || this.recovering || !health.get('write') || health.fatal) return;
    this.recoverTimer = setTimeout(() => {
      this.recoverTimer = null;
      this.recovering = this.recover()
        .catch((err: unknown) => health.fail('write', `recovering the store failed: ${describeStoreError(err)}`, true))
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
    const { health, materializer, db, logDb } = this.o;
    if (this.closed || !health.get('write') || health.fatal) return;
    if (this.o.dataDir && this.freeBytes() < this.reopenNeeds()) return; // still full: try again later
    const log = this.o.log instanceof LevelLog ? this.o.log : null;
    // Embedded: every batch the log store took is acknowledged (201, or 504 "in the log" when the
    // snapshot write failed after it); the snapshot may be behind it. Kafka: what was folded.
    const acknowledged = log ? log.durableEnd : materializer.folded;
    await health.drained();
    await this.o.compactor.idle();
    if (this.closed) return;
    const committed = materializer.folded;
    try {
      const threads = this.o.threads?.() ?? null;
      await this.o.reads.holdReads(async () => {
        // Serving threads share the native databases (`multithreading`): a close is real only once
        // theirs are closed too, and they open theirs again after these (storage/follower.ts).
        if (threads && !(await threads.release())) this.o.logger?.warn({}, 'a serving thread did not close its stores for the reopen');
        try {
          for (const d of [db, logDb]) await d?.close();
          for (const d of [logDb, db]) await d?.open({ multithreading: true });
        } finally {
          threads?.reattach();
        }
      });
    } catch (err) {
      health.fail('write', `reopening the store failed: ${describeStoreError(err)}`);
      return;
    }
    const folded = await materializer.reload();
    materializer.forgetCached();
    // Read once: resume() below folds up to this same end.
    const durable = log ? await lastLogOffset(logDb!) : folded;
    const fatal = (what: string): void => health.fail('write', `after a failed write the store holds ${what}`, true);
    if (durable !== acknowledged) {
      return fatal(durable > acknowledged ? `writes ${acknowledged + 1}..${durable} that were answered with an error` : `only up to ${durable}, but ${acknowledged} was acknowledged`);
    }
    if (log) {
      // The snapshot is never ahead of what was published (a failed snapshot write that reached
      // the disk anyway: its changes never went to watchers), and catches up with the log.
      if (folded > committed) return fatal(`snapshot changes ${committed + 1}..${folded} that watchers were never sent`);
      try {
        await log.resume(durable);
      } catch (err) {
        if (err instanceof StorageError && err.code === 'corrupt') return fatal(err.message);
        health.fail('write', `folding the log into the snapshot failed: ${describeStoreError(err)}`);
        return;
      }
    }
    this.o.logger?.info({ folded: materializer.folded }, 'store reopened; its durable state matches every acknowledged write');
    health.clear('write');
  }

  /** Bytes available to this process on the data dir's filesystem. */
  private freeBytes(): number {
    const s = statfsSync(this.o.dataDir);
    return s.bavail * s.bsize;
  }

  /** What a reopen writes: LevelDB's write-ahead logs (replayed into a table) and a margin. */
  private reopenNeeds(): number {
    let bytes = REOPEN_MARGIN_BYTES;
    for (const db of [this.o.db, this.o.logDb]) {
      if (!db) continue;
      for (const f of readdirSync(db.location)) if (f.endsWith('.log')) bytes += statSync(`${db.location}/${f}`).size;
    }
    return bytes;
  }

  /**
   * Every `intervalMs`, verify the tables of both stores (verify-tables.ts): damage that no read
   * has run into yet — a zeroed block, which LevelDB reads as an empty one — fails the health
   * before a short list is served. Tables written in the last SCRUB_SKIP_RECENT_MS are left to
   * the next pass (a compaction may still be writing them).
   */
  startScrub(intervalMs: number): void {
    // Changes made through the file system are caught as they happen (table-watch.ts), whatever the interval.
    void this.o.tables?.start();
    if (intervalMs <= 0 || this.scrubTimer) return;
    const { db, logDb, health } = this.o;
    const pass = async (): Promise<void> => {
      for (const [dir, role] of [[db.location, this.o.role], ...(logDb ? [[logDb.location, 'log']] : [])] as Array<[string, StoreRole]>) {
        if (this.closed || health.get(DAMAGE)) return;
        const faults = await damagedTables(dir, SCRUB_SKIP_RECENT_MS).catch(() => []);
        if (faults.length && !this.closed) health.damaged(`the ${role} store is damaged: ${describeFaults(faults)}${repairHint(role, dirname(db.location))}`);
      }
    };
    this.scrubTimer = setInterval(() => {
      if (this.scrubbing) return;
      this.scrubbing = pass().finally(() => (this.scrubbing = null));
    }, intervalMs);
    this.scrubTimer.unref();
  }

  /** Stop both, waiting for a recovery or scrub pass in progress. */
  async stop(): Promise<void> {
    this.closed = true;
    this.o.tables?.stop();
    if (this.recoverTimer) clearTimeout(this.recoverTimer);
    await this.recovering;
    if (this.scrubTimer) clearInterval(this.scrubTimer);
    await this.scrubbing;
  }
}
