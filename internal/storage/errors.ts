/**
 * Coded storage errors. Storage never picks HTTP codes; the generic store maps these codes to API
 * Status once per verb (internal/registry/generic/errors.ts).
 */
export type StorageErrorCode = 'notFound' | 'exists' | 'conflict' | 'unreachable' | 'timeout' | 'invalidObject' | 'corrupt' | 'expired' | 'tooLarge';

/**
 * LevelDB was closed under a read (the store is being reopened after a failed write, or the
 * server is shutting down): abstract-level's codes, for the callers that read `db` directly.
 */
export function isStoreNotOpen(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'LEVEL_DATABASE_NOT_OPEN' || code === 'LEVEL_ITERATOR_NOT_OPEN';
}

export class StorageError extends Error {
  /**
   * @param retryAfterSeconds the failure is expected to pass (a store that refuses writes and
   *   recovers by itself): clients are told when to try again (Retry-After).
   */
  constructor(readonly code: StorageErrorCode, message: string, readonly retryAfterSeconds?: number) {
    super(message);
    this.name = 'StorageError';
  }
}
