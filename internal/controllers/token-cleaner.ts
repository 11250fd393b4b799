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
import { parseObject } from '../registry/generic/serialize.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, timeToExpiry } from '../auth/token/bootstrap.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { ExpiringObjects } from './expiring-objects.ts';

/** Page size of the start-up scan: bounds memory on large stores. */
const SCAN_PAGE = 500;

/** When a bootstrap-token Secret is due for deletion (epoch ms), or null when it never is. */
export function deletionDue(secret: KubeObject, nowMs: number): number | null {
  if ((secret as { type?: unknown }).type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return null;
  const left = timeToExpiry(secret, nowMs);
  if (left === null) return null;
  return left === 'expired' ? nowMs : nowMs + left;
}

export class TokenCleaner {
  private readonly expiring: ExpiringObjects;
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly secrets: ServedKind,
    private readonly log: Logger,
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

  /** Subscribe to changes, then scan the stored Secrets in the background. */
  start(): void {
    const { group, resource } = this.secrets.store.codec;
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== group || c.key.resource !== resource || c.key.namespace !== BOOTSTRAP_TOKEN_NAMESPACE) continue;
        if (c.type === 'DELETED') {
          this.expiring.forget(c.key.name);
          continue;
        }
        // This runs in the fold's commit step: a bad object must never break it.
        try {
          this.observe(parseObject(c.object), c.offset);
        } catch (err) {
          this.log.warn({ err, secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${c.key.name}` }, 'token cleaner could not read a change');
        }
      }
    });
    this.scanned = this.scan().catch((err) => this.log.warn({ err }, 'token cleaner: start-up scan failed; cleaning resumes as Secrets are written'));
  }

  /** Resolves when the start-up scan is done (tests). */
  synced(): Promise<void> {
    return this.scanned;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.expiring.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.expiring.idle();
  }

  private async scan(): Promise<void> {
    let cont: string | undefined;
    do {
      const page = await this.secrets.reader.list(BOOTSTRAP_TOKEN_NAMESPACE, { limit: SCAN_PAGE, continue: cont });
      for (const b of page.items) {
        const o = parseObject(b);
        this.observe(o, Number(o.metadata.resourceVersion));
      }
      cont = page.continue;
    } while (cont);
  }

  /** A version of a Secret was seen: schedule (or forget) its deletion. */
  private observe(o: KubeObject, rv: number): void {
    const name = o.metadata.name ?? '';
    const known = this.expiring.known(name);
    if (known && known.rv >= rv) return;
    const due = deletionDue(o, Date.now());
    if (due === null) this.expiring.forget(name);
    else this.expiring.schedule({ key: name, namespace: BOOTSTRAP_TOKEN_NAMESPACE, name, uid: o.metadata.uid ?? '', rv, due });
  }
}
