/**
 * Damage to a table while the server runs, caught when it happens instead of at the next scrub.
 *
 * LevelDB reads without checksums (classic-level 3.0.0 exposes neither `verify_checksums` nor
 * `paranoid_checks`: its binding sets only `fill_cache` on reads), so a block overwritten with
 * zeros is read as an empty block and its keys are silently missing from lists and gets. But
 * LevelDB never rewrites a table: it writes one front to back (the footer last), then only reads
 * it until a compaction deletes it. So a change to a complete table is damage or an outside
 * writer, and the directory's change notifications (inotify on Linux, through fs.watch) say when
 * one happens:
 *
 *   new file ──change events while LevelDB writes it──► pending ──quiet for SETTLE_MS, verifies──► complete
 *   complete ──change event──► suspect: reads held (`vouch`) until the table is verified again
 *            ──fails its checksums──► the store's health is `damaged`, naming the file (reads refused)
 *            ──verifies──► complete (an outside write that changed nothing LevelDB reads: `touch`)
 *
 * A read records the watch's generation before it reads LevelDB and calls `vouch` with it before
 * its result is used: a change notified meanwhile makes it wait for the verification, then fail
 * if the store was found damaged. What this does not see — damage below the file system (a disk's
 * bit rot, a write through another mount) — is left to the scrub (recovery.ts) and to the check at
 * the next start.
 */
import { watch, type FSWatcher } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { verifyTables, tableFiles, describeFaults } from './verify-tables.ts';
import { repairHint, type StoreRole } from './open-verified.ts';
import { DAMAGE, type StoreHealth, type StorageLogger } from './store-health.ts';

/** A table LevelDB is writing is taken as complete once it has not changed for this long and verifies. */
const SETTLE_MS = 1000;

interface WatchedStore {
  dir: string;
  role: StoreRole;
  /** Tables that verified whole: a change to one of them is damage until verified again. */
  complete: Set<string>;
  /** Tables being written (changed in the last SETTLE_MS): name → timer of their check. */
  pending: Map<string, NodeJS.Timeout>;
  watcher: FSWatcher | null;
}

/** What a read needs of a table watch (the leader's TableWatch; a serving thread's view of it, storage/follower.ts). */
export interface TableVouch {
  /** What a read records before it reads LevelDB (see vouch). */
  readonly generation: number;
  /** Resolves once every table changed since `generation` has been verified (undefined: nothing changed). */
  vouch(generation: number): Promise<void> | undefined;
}

export class TableWatch implements TableVouch {
  private readonly stores: WatchedStore[];
  /**
   * Called with the generation and the number of verifications in progress whenever either
   * changes (the leader shares them with its serving threads, storage/follower.ts); after a
   * verification that found damage, only once the health says so.
   */
  onState: ((generation: number, verifying: number) => void) | null = null;
  /** Bumped at every change to a complete table. */
  private changes = 0;
  /** Verifications of changed complete tables in progress. */
  private readonly verifying = new Set<Promise<void>>();
  private started = false;
  private closed = false;

  constructor(
    stores: Array<{ dir: string; role: StoreRole }>,
    private readonly health: StoreHealth,
    /** The data dir, for the repair hint. */
    private readonly dataDir: string,
    private readonly logger?: StorageLogger,
  ) {
    this.stores = stores.map((s) => ({ ...s, complete: new Set(), pending: new Map(), watcher: null }));
  }

  /** What a read records before it reads LevelDB (see vouch). */
  get generation(): number {
    return this.changes;
  }

  /**
   * Resolves once every table changed since `generation` has been verified; the caller then
   * checks the store's health (a damaged table has set it). Synchronous-cheap when nothing changed.
   */
  vouch(generation: number): Promise<void> | undefined {
    if (generation === this.changes && !this.verifying.size) return undefined;
    return Promise.all([...this.verifying]).then(() => undefined);
  }

  /**
   * Watch the stores' directories. The tables present now were verified at open (open-verified.ts)
   * or written by LevelDB since: one unchanged for SETTLE_MS is complete, a newer one is settled.
   */
  async start(): Promise<void> {
    if (this.started || this.closed) return;
    this.started = true;
    for (const s of this.stores) {
      try {
        s.watcher = watch(s.dir, { persistent: false }, (_event, name) => {
          if (name && (name.endsWith('.ldb') || name.endsWith('.sst'))) this.changed(s, name);
        });
        s.watcher.on('error', (e) => this.logger?.warn({ dir: s.dir, err: e.message }, 'table watch failed; damage is found by the scrub'));
      } catch (e) {
        this.logger?.warn({ dir: s.dir, err: (e as Error).message }, 'cannot watch the tables; damage is found by the scrub');
        continue;
      }
      const quietSince = Date.now() - SETTLE_MS;
      for (const name of await tableFiles(s.dir)) {
        if (s.complete.has(name) || s.pending.has(name)) continue;
        const st = await stat(join(s.dir, name)).catch(() => null);
        if (st && st.mtimeMs < quietSince) s.complete.add(name);
        else if (st) this.settle(s, name);
      }
    }
  }

  stop(): void {
    this.closed = true;
    for (const s of this.stores) {
      s.watcher?.close();
      s.watcher = null;
      for (const t of s.pending.values()) clearTimeout(t);
      s.pending.clear();
    }
  }

  /** A change notification for table `name` of store `s` (or its removal: LevelDB deletes obsolete tables). */
  private changed(s: WatchedStore, name: string): void {
    if (this.closed) return;
    if (!s.complete.has(name)) {
      this.settle(s, name);
      return;
    }
    this.changes++;
    const check = this.verify(s, name).finally(() => {
      this.verifying.delete(check);
      this.onState?.(this.changes, this.verifying.size);
    });
    this.verifying.add(check);
    this.onState?.(this.changes, this.verifying.size);
  }

  /**
   * Check `name` once it has been quiet for SETTLE_MS: complete if it verifies (a compaction's
   * table is written). One that fails is checked again after another quiet SETTLE_MS (a table
   * LevelDB still writes slowly); failing a second time with no change in between, it is damage
   * (a table damaged while LevelDB had just written it, before it counted as complete).
   */
  private settle(s: WatchedStore, name: string, failedOnce = false): void {
    clearTimeout(s.pending.get(name));
    const timer = setTimeout(() => {
      s.pending.delete(name);
      void verifyTables(s.dir, [name]).then((r) => {
        if (this.closed || s.pending.has(name)) return;
        if (r.tables === 1 && !r.faults.length) s.complete.add(name);
        else if (r.tables === 0 && !r.faults.length) return; // deleted by a compaction
        else if (!failedOnce) this.settle(s, name, true);
        else this.health.damaged(`the ${s.role} store is damaged: ${describeFaults(r.faults)}${repairHint(s.role, this.dataDir)}`);
      }, () => undefined);
    }, SETTLE_MS);
    timer.unref();
    s.pending.set(name, timer);
  }

  /** Verify a complete table that changed: damage → the store's health fails, naming the file. */
  private async verify(s: WatchedStore, name: string): Promise<void> {
    const exists = await stat(join(s.dir, name)).then(() => true, () => false);
    if (!exists) {
      s.complete.delete(name); // deleted by a compaction
      return;
    }
    try {
      const r = await verifyTables(s.dir, [name]);
      if (r.faults.length && !this.closed) {
        this.health.damaged(`the ${s.role} store is damaged: ${describeFaults(r.faults)}${repairHint(s.role, this.dataDir)}`);
      }
    } catch (e) {
      if (!this.health.get(DAMAGE)) this.health.damaged(`the ${s.role} store's table ${join(s.dir, name)} changed and cannot be verified: ${(e as Error).message}${repairHint(s.role, this.dataDir)}`);
    }
  }
}
