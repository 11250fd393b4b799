/**
 * Coded storage errors. Storage never picks HTTP codes; the generic store maps these codes to API
 * Status once per verb (internal/registry/generic/errors.ts).
 */
export type StorageErrorCode = 'notFound' | 'exists' | 'conflict' | 'unreachable' | 'timeout' | 'invalidObject' | 'corrupt' | 'expired' | 'tooLarge';

export class StorageError extends Error {
  constructor(readonly code: StorageErrorCode, message: string) {
    super(message);
    this.name = 'StorageError';
  }
}
