/**
 * Store health: whether this process may write to its store, and if not, why. Every writer of the
 * store (the embedded log's group commit, a Kafka replica's fold, the compactor) writes through
 * `guard`, so the first failed write stops all the others before they touch the store again; the
 * health checks (/readyz, /livez `etcd`) and Storage.write read the state; the state is logged
 * once when it changes, never per request.
 *
 * Problems are kept by source, each with a reason a person can act on:
 *
 *   ok ──guard(write) throws ENOSPC──► {write: "no space left on device: IO error: …/000012.log: …"}
 *      ◄──clear('write') after both stores were reopened, re-read and the log refolded──┘
 *   {write: …} ──reopen finds writes nobody acknowledged──► {write: …, fatal} (a restart is needed)
 *   ok ──a read, the open check or the scrub finds a damaged table──► {corrupt: "…000123.ldb … replay
 *      repair …", fatal} (reads of the snapshot are refused too; only `replay repair` clears it)
 *
 * `write` covers a failed write of either store (the log store's or the snapshot's, embedded
 * mode) and is the only source StoreKeeper.recover (recovery.ts) clears. Any problem refuses writes and fails
 * readiness; a fatal one also fails liveness, so a supervisor restarts the process (which re-reads
 * everything from disk, or refuses to start on a damaged store, naming the file and the remedy).
 */
import { StorageError } from './errors.ts';

/** The part of a pino logger the storage uses. */
export interface StorageLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface StoreProblem {
  /** Who reported it (`write`, …). */
  source: string;
  /** Why, in words a person can act on (the OS error included). */
  reason: string;
  /** Epoch ms when it began. */
  since: number;
  /** Only a restart can clear it. */
  fatal: boolean;
}

/** The source of damage found in a store's files (fatal; reads of the snapshot are refused). */
export const DAMAGE = 'corrupt';

/** Seconds a refused writer is told to wait (Retry-After): the store is re-tried every second. */
export const WRITE_RETRY_AFTER_SECONDS = 1;

/**
 * The words for an error of a LevelDB write or open (`IO error: <file>: No space left on device`,
 * with the causes classic-level wraps it in): names ENOSPC when that is the cause, so the operator knows to free space rather than look for a fault.
 */
export function describeStoreError(err: unknown): string {
  const chain: string[] = [];
  for (let e: unknown = err; e instanceof Error && chain.length < 4; e = (e as { cause?: unknown }).cause) chain.push(e.message);
  const text = chain.join(': ') || String(err);
  if (/no space left on device|ENOSPC/i.test(text)) return `no space left on device (ENOSPC): ${text}`;
  return text;
}

/**
 * A LevelDB error that means damaged or unreadable files (classic-level's LEVEL_CORRUPTION, or
 * LevelDB's `Corruption:` / `IO error:` statuses), as opposed to a closed store, a bad call or a
 * full disk (`IO error: …: No space left on device` is a state that passes, not damage).
 */
export function isStoreDamage(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const cause = (err as { cause?: unknown }).cause;
  const code = (err as { code?: string }).code ?? (cause as { code?: string } | undefined)?.code;
  const text = `${err.message} ${cause instanceof Error ? cause.message : ''}`;
  if (/No space left on device|Disk quota exceeded/i.test(text)) return false;
  return code === 'LEVEL_CORRUPTION' || /\bCorruption: |\bIO error: /.test(text);
}

export class StoreHealth {
  private readonly problems = new Map<string, StoreProblem>();
  private inFlight = 0;
  private drainedWaiters: (() => void)[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(private readonly logger?: StorageLogger) {}

  /** No problem at all: writes are accepted. */
  get writable(): boolean {
    return this.problems.size === 0;
  }

  /** The problem reported to clients, if any: damage first, then the first fatal one, then the first. */
  get problem(): StoreProblem | undefined {
    const all = [...this.problems.values()];
    return this.problems.get(DAMAGE) ?? all.find((p) => p.fatal) ?? all[0];
  }

  /** Some problem can only be cleared by a restart. */
  get fatal(): boolean {
    for (const p of this.problems.values()) if (p.fatal) return true;
    return false;
  }

  /** `source`'s problem, if it has one. */
  get(source: string): StoreProblem | undefined {
    return this.problems.get(source);
  }

  /** Every problem, for logs and health output. */
  list(): StoreProblem[] {
    return [...this.problems.values()];
  }

  /** Called after every state change (the store's recovery loop listens). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * `source` has a problem. Logged once when it begins or its reason changes; a fatal problem
   * stays fatal until the process restarts.
   */
  fail(source: string, reason: string, fatal = false): void {
    const had = this.problems.get(source);
    if (had && had.reason === reason && (had.fatal || !fatal)) return;
    this.problems.set(source, { source, reason, since: had?.since ?? Date.now(), fatal: fatal || (had?.fatal ?? false) });
    const msg = source === DAMAGE ? 'storage is damaged: not serving from it' : fatal ? 'storage refuses writes until the server is restarted' : 'storage refuses writes';
    this.logger?.error({ source, reason }, msg);
    this.changed();
  }

  /**
   * Damage found (DAMAGE, fatal): only the first reason stays; `explain` adds what was found out since.
   * `quiet`: not logged here (a serving thread's find: its leader logs it, storage/follower.ts).
   */
  damaged(reason: string, quiet = false): void {
    if (this.problems.has(DAMAGE)) return;
    if (!quiet) return this.fail(DAMAGE, reason, true);
    this.problems.set(DAMAGE, { source: DAMAGE, reason, since: Date.now(), fatal: true });
    this.changed();
  }

  /** Resolves at the next state change, or after `timeoutMs`. */
  nextChange(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      const off = this.onChange(done);
    });
  }

  /** Add to the damage's reason (the damaged files, once verified): logged again with it. */
  explain(detail: string): void {
    const had = this.problems.get(DAMAGE);
    if (had) this.fail(DAMAGE, `${had.reason} (${detail})`, true);
  }

  /**
   * A serving thread's health follows its leader's (storage/follower.ts): the leader's problems
   * replace this one's, except damage this thread found itself (its reads refuse it either way).
   */
  mirror(problems: StoreProblem[]): void {
    const own = this.problems.get(DAMAGE);
    this.problems.clear();
    for (const p of problems) this.problems.set(p.source, p);
    if (own && !this.problems.has(DAMAGE)) this.problems.set(DAMAGE, own);
    this.changed();
  }

  /** `source`'s problem is over (logged once, with how long it lasted). No-op for a fatal one. */
  clear(source: string): void {
    const had = this.problems.get(source);
    if (!had || had.fatal) return;
    this.problems.delete(source);
    this.logger?.info({ source, downMs: Date.now() - had.since, writable: this.writable }, 'storage problem cleared');
    this.changed();
  }

  /** The error a refused writer gets: 503 with Retry-After naming the cause (500 for damage). */
  refusal(): StorageError {
    const p = this.problem;
    // Damage is a 500 (as a read of it), not a 503: waiting does not help, `replay repair` does.
    if (p?.source === DAMAGE) return new StorageError('corrupt', `not writing to a damaged store: ${p.reason}`);
    const why = p ? (p.fatal ? `${p.reason} (writes stay refused until the server is restarted)` : p.reason) : 'writes are refused';
    return new StorageError('unreachable', why, p?.fatal ? undefined : WRITE_RETRY_AFTER_SECONDS);
  }

  /** Throws `refusal()` unless writable. */
  assertWritable(): void {
    if (!this.writable) throw this.refusal();
  }

  /**
   * Run one write to the store. Refused at once while there is a problem; a write that fails puts
   * the store in the `write` problem state (every later write is refused until `clear('write')`)
   * and rethrows as StorageError('unreachable') naming the cause. A failed write has unknown
   * durability (a failed fsync may or may not have reached the disk, a failed append left a torn
   * record that LevelDB would misread behind the next one), so nothing more is written through
   * the same open store: recovery reopens it and re-reads the durable state (StoreKeeper.recover (recovery.ts)).
   */
  async guard<T>(write: () => Promise<T>): Promise<T> {
    this.assertWritable();
    this.inFlight++;
    try {
      return await write();
    } catch (err) {
      this.fail('write', `writing the store failed: ${describeStoreError(err)}`);
      throw this.refusal();
    } finally {
      if (--this.inFlight === 0) for (const w of this.drainedWaiters.splice(0)) w();
    }
  }

  /**
   * Resolves true once writable, false after `timeoutMs`, when `signal` aborts, or at once when
   * the problem is fatal.
   */
  whenWritable(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.writable) return Promise.resolve(true);
    if (this.fatal || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (v: boolean): void => {
        clearTimeout(timer);
        off();
        signal?.removeEventListener('abort', aborted);
        resolve(v);
      };
      const aborted = (): void => done(false);
      signal?.addEventListener('abort', aborted);
      const timer = setTimeout(() => done(false), timeoutMs);
      const off = this.onChange(() => {
        if (this.writable) done(true);
        else if (this.fatal) done(false);
      });
    });
  }

  /** Resolves when no guarded write is in flight. */
  drained(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainedWaiters.push(resolve));
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }
}
