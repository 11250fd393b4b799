/**
 * kube-controller-manager's `tokencleaner` (pkg/controller/bootstrap/tokencleaner.go, 1.24):
 * deletes bootstrap-token Secrets (type bootstrap.kubernetes.io/token in kube-system) once their
 * `expiration` has passed; an unparseable expiration counts as passed, no expiration never does.
 * kube's controller is off by default (`--controllers=*,tokencleaner`); this server runs it
 * whenever --enable-bootstrap-token-auth is on, the only setting in which such tokens matter.
 *
 *   onChange (ADDED/MODIFIED of a bootstrap Secret at rv) ─► expiry parsed ─► timer at expiry
 *   onChange (DELETED)                                    ─► timer dropped
 *   timer ─► work queue ─► still that version? ─► DELETE with uid + resourceVersion preconditions
 *
 * Replica-safe: every replica on one Kafka topic sees the same Secrets and arms the same timers;
 * the preconditions let exactly one DELETE land, the others get 404/409 (expected, not failures).
 * A Secret updated after its timer was armed (a new expiration) changes its resourceVersion, so
 * the stale timer deletes nothing and the update's own timer decides. A start-up scan arms timers
 * for the Secrets already stored, which is how a restarted server resumes.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, timeToExpiry } from '../auth/token/bootstrap.ts';
import { WorkQueue, DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';

/** Page size of the start-up scan: bounds memory on large stores. */
const SCAN_PAGE = 500;
/** setTimeout's largest delay (2^31-1 ms, ~24.8 days); longer waits re-arm when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One stored version of a bootstrap-token Secret that will expire. */
interface Expiry {
  /** The work queue's dedup key: the Secret's name. */
  key: string;
  name: string;
  uid: string;
  rv: number;
  due: number;
}

const errCode = (e: unknown): number | undefined => (e instanceof ApiError ? e.code : undefined);

/** When a bootstrap-token Secret is due for deletion (epoch ms), or null when it never is. */
export function deletionDue(secret: KubeObject, nowMs: number): number | null {
  if ((secret as { type?: unknown }).type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return null;
  const left = timeToExpiry(secret, nowMs);
  if (left === null) return null;
  return left === 'expired' ? nowMs : nowMs + left;
}

export class TokenCleaner {
  private readonly expiries = new Map<string, Expiry>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly queue: WorkQueue<Expiry>;
  private readonly ctx = systemContext('token-cleaner');
  private unsubscribe: (() => void) | null = null;
  private scanned: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: Storage,
    private readonly secrets: ServedKind,
    private readonly log: Logger,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    if (secrets.kind.resource !== 'secrets' || secrets.kind.group !== '') throw new Error(`token cleaner: needs the core Secrets kind, got ${secrets.kind.resource}`);
    this.queue = new WorkQueue<Expiry>(
      (e) => this.expire(e),
      (e, err) => this.log.warn({ err, secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${e.name}` }, 'token cleaner: deletion failed; retrying'),
      queueOptions,
    );
  }

  /** Subscribe to changes, then scan the stored Secrets in the background. */
  start(): void {
    const { group, resource } = this.secrets.store.codec;
    this.unsubscribe = this.storage.onChange((changes) => {
      for (const c of changes) {
        if (c.key.group !== group || c.key.resource !== resource || c.key.namespace !== BOOTSTRAP_TOKEN_NAMESPACE) continue;
        if (c.type === 'DELETED') {
          this.forget(c.key.name);
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
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.queue.stop();
  }

  /** Resolves when no deletion is in flight (tests, shutdown). */
  idle(): Promise<void> {
    return this.queue.idle();
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

  /** A version of a Secret was seen: arm (or drop) its timer. */
  private observe(o: KubeObject, rv: number): void {
    const name = o.metadata.name ?? '';
    const known = this.expiries.get(name);
    if (known && known.rv >= rv) return;
    const due = deletionDue(o, Date.now());
    if (due === null) {
      this.forget(name);
      return;
    }
    const e: Expiry = { key: name, name, uid: o.metadata.uid ?? '', rv, due };
    this.expiries.set(name, e);
    this.arm(e);
  }

  private arm(e: Expiry): void {
    const old = this.timers.get(e.name);
    if (old) clearTimeout(old);
    const wait = Math.max(0, e.due - Date.now());
    const t = setTimeout(() => {
      this.timers.delete(e.name);
      if (this.expiries.get(e.name) !== e) return;
      if (Date.now() < e.due) this.arm(e);
      else this.queue.add(e);
    }, Math.min(wait, MAX_TIMER_MS));
    t.unref();
    this.timers.set(e.name, t);
  }

  private forget(name: string): void {
    this.expiries.delete(name);
    const t = this.timers.get(name);
    if (t) clearTimeout(t);
    this.timers.delete(name);
  }

  /** Delete the version the timer was set for, if it is still the current one. */
  private async expire(e: Expiry): Promise<void> {
    await this.storage.latest();
    if (this.expiries.get(e.name)?.rv !== e.rv) return; // updated (or gone) since
    try {
      await this.secrets.store.delete(this.ctx, BOOTSTRAP_TOKEN_NAMESPACE, e.name, { preconditions: { uid: e.uid, resourceVersion: String(e.rv) } });
      this.log.info({ secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${e.name}` }, 'token cleaner: deleted an expired bootstrap token');
    } catch (err) {
      // 404: already deleted (another replica, a client); 409: written since, a new timer runs.
      if (errCode(err) !== 404 && errCode(err) !== 409) throw err;
    }
    if (this.expiries.get(e.name)?.rv === e.rv) this.forget(e.name);
  }
}
