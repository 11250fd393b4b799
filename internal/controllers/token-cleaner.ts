/**
 * kube-controller-manager's `tokencleaner` (pkg/controller/bootstrap/tokencleaner.go, 1.24):
 * deletes bootstrap-token Secrets (type bootstrap.kubernetes.io/token in kube-system) once their
 * `expiration` has passed; an unparseable expiration counts as passed, no expiration never does.
 * kube's controller is off by default (`--controllers=*,tokencleaner`); this server runs it
 * whenever --enable-bootstrap-token-auth is on, the only setting in which such tokens matter.
 *
 *   onChange (ADDED/MODIFIED of a bootstrap Secret at rv) ─► expiry parsed ─► scheduled at expiry
 *   onChange (DELETED)                                    ─► forgotten
 *
 * The timers, the guarded DELETE and its replica safety are ExpiringObjects' (expiring-objects.ts):
 * a Secret updated after its timer was armed (a new expiration) changes its resourceVersion, so
 * the stale timer deletes nothing. A start-up scan schedules the Secrets already stored, which is
 * how a restarted server resumes.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, timeToExpiry } from '../auth/token/bootstrap.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { ExpiringObjects } from './expiring-objects.ts';
import type { Controller } from './controller.ts';

/** When a bootstrap-token Secret is due for deletion (epoch ms), or null when it never is. */
export function deletionDue(secret: KubeObject, nowMs: number): number | null {
  if ((secret as { type?: unknown }).type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return null;
  const left = timeToExpiry(secret, nowMs);
  if (left === null) return null;
  return left === 'expired' ? nowMs : nowMs + left;
}

export class TokenCleaner implements Controller {
  private readonly expiring: ExpiringObjects;

  constructor(
    storage: Storage,
    secrets: ServedKind,
    log: Logger,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    if (secrets.kind.resource !== 'secrets' || secrets.kind.group !== '') throw new Error(`token cleaner: needs the core Secrets kind, got ${secrets.kind.resource}`);
    this.expiring = new ExpiringObjects({
      storage,
      served: secrets,
      ctx: systemContext('token-cleaner'),
      log,
      failureMessage: 'token cleaner: deletion failed; retrying',
      onDeleted: (e) => log.info({ secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${e.name}` }, 'token cleaner: deleted an expired bootstrap token'),
      queueOptions,
    });
  }

  /** Follow the kube-system Secrets, then scan the stored ones in the background. */
  start(): void {
    this.expiring.start({ name: 'token cleaner', namespace: BOOTSTRAP_TOKEN_NAMESPACE, due: (o) => deletionDue(o, Date.now()) });
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.expiring.synced();
  }

  stop(): void {
    this.expiring.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.expiring.idle();
  }
}
