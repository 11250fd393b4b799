/**
 * The one place where storage outcomes become API errors (per verb), so handlers and strategies
 * never look at storage codes.
 */
import type { Verdict } from '../../storage/storage.ts';
import { StorageError, isStoreNotOpen } from '../../storage/storage.ts';
import { ApiError, alreadyExists, conflict, notFound, serviceUnavailable, timeout, internalError, expired, namespaceTerminating, type GroupResource } from '../../api/errors.ts';

/** Map a rejected verdict to the Status a client sees. */
export function rejection(v: Extract<Verdict, { accepted: false }>, gr: GroupResource, name: string, namespace: string): ApiError {
  switch (v.reason) {
    case 'AlreadyExists':
      return alreadyExists(gr, name);
    case 'NotFound':
      return notFound(gr, name);
    case 'Conflict':
      return conflict(gr, name, 'the object has been modified; please apply your changes to the latest version and try again');
    case 'UidMismatch':
      return conflict(gr, name, 'Precondition failed: UID in precondition does not match the UID in object meta');
    case 'NamespaceNotFound':
      return notFound({ group: '', resource: 'namespaces' }, namespace);
    case 'NamespaceTerminating':
      return namespaceTerminating(gr, name, namespace);
    default:
      return internalError(`the log rejected a malformed event for ${gr.resource} "${name}"`);
  }
}

/** Map a thrown storage failure (append failed, store closed, corrupt data). */
export function storageFailure(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof StorageError) {
    switch (err.code) {
      case 'unreachable':
        return serviceUnavailable(`storage is unavailable: ${err.message}`, err.retryAfterSeconds);
      case 'timeout':
        return timeout(err.message);
      case 'expired':
        return expired(err.message);
      default:
        return internalError(err.message);
    }
  }
  // A read that ran while the store was reopened: the next one is served (client-go retries it).
  if (isStoreNotOpen(err)) return serviceUnavailable(`storage is unavailable: ${(err as Error).message}`, 1);
  return internalError(err instanceof Error ? err.message : String(err));
}
