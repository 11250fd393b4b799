/**
 * The storage's health: ok, or failed with a reason a person can act on (which file is damaged,
 * which write failed). Set by whoever finds the fault (a read that LevelDB answers with
 * `Corruption`/`IO error`, a snapshot write that failed after the log took it); read by the
 * etcd health check (Storage.probe) and logged once per change by the listener. A failure is
 * never cleared by this process: the damaged snapshot needs `replay repair` with the server
 * stopped, and a restart refolds the log.
 */
import { StorageError } from './errors.ts';

export class StorageHealth {
  private reason: string | null = null;
  private readonly listeners = new Set<(reason: string) => void>();

  /** Null while healthy. */
  get failure(): string | null {
    return this.reason;
  }

  /** Record the first failure (later ones are consequences and only keep the first reason). */
  fail(reason: string): void {
    if (this.reason !== null) return;
    this.reason = reason;
    this.notify();
  }

  private notify(): void {
    const reason = this.reason!;
    for (const l of this.listeners) {
      try {
        l(reason);
      } catch {
        // A listener's failure is its own.
      }
    }
  }

  /** Add what was found out since (the damaged files): the reason grows, listeners hear it again. */
  explain(detail: string): void {
    if (this.reason === null) return;
    this.reason = `${this.reason} (${detail})`;
    this.notify();
  }

  /** Throws the failure as a StorageError('corrupt') (the etcd check's message). */
  check(): void {
    if (this.reason !== null) throw new StorageError('corrupt', this.reason);
  }

  /** Called when the storage fails, and again when the reason is explained further. */
  onFailure(listener: (reason: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
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
