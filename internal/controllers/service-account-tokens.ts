/**
 * kube-controller-manager's tokens controller (pkg/controller/serviceaccount/tokens_controller.go,
 * Kubernetes 1.24), in process, for legacy token Secrets:
 *
 *   - a Secret of type `kubernetes.io/service-account-token` annotated
 *     `kubernetes.io/service-account.name` gets `token` (a JWT of issuer kubernetes/serviceaccount),
 *     `namespace` and `ca.crt` (this server's CA) filled when missing or (ca.crt) different, and the
 *     `kubernetes.io/service-account.uid` annotation; Secrets whose account does not exist (or has
 *     another uid than the annotation names) are deleted;
 *   - when a ServiceAccount is deleted, its token Secrets are deleted;
 *   - when a token Secret is deleted, the account's `secrets` reference to it is removed.
 *
 * 1.24 enables LegacyServiceAccountTokenNoAutoGeneration (beta, on by default): accounts no longer
 * get an auto-generated token Secret, and neither do they here (kube's AutoGenerate is off). With
 * the gate off (`--feature-gates LegacyServiceAccountTokenNoAutoGeneration=false`) every account
 * without a referenced token Secret gets one (`<name>-token-xxxxx`), referenced from its `secrets`
 * (ensureReferencedToken); a replica that loses the race to reference its Secret deletes it again.
 *
 * Replica safety (Kafka mode, every replica runs this on the same changes): every write is
 * conditional — the Secret update carries the resourceVersion it was computed from (a loser's 409
 * is dropped: the winner's change re-triggers a sync that finds nothing to do), deletes carry the
 * uid precondition, account updates their resourceVersion. Nothing is ever created, so a
 * Terminating namespace is never written into.
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { SECRET_TYPE_SERVICE_ACCOUNT_TOKEN, SERVICE_ACCOUNT_NAME_KEY } from '../registry/core/secret.ts';
import { legacyClaims, type TokenGenerator } from '../auth/serviceaccount/tokens.ts';
import { ROOT_CA_KEY } from './root-ca-publisher.ts';
import { DEFAULT_WORK_QUEUE_OPTIONS, type WorkQueueOptions } from './work-queue.ts';
import { QueueController } from './controller.ts';
import { listAll } from './list-all.ts';
import { getOrNull, isNamespaceTerminating } from './namespace-reconciler.ts';
import { simpleNameGenerator } from '../admission/service-account-pod.ts';

/** names.SimpleNameGenerator keeps generated names within 63 characters: base ≤ 58 + 5 random. */
const MAX_GENERATED_NAME_BASE = 58;
/** clientretry.DefaultRetry's steps: how often a lost race to reference a new token is retried. */
const REFERENCE_RETRIES = 5;

/** v1.ServiceAccountUIDKey. */
export const SERVICE_ACCOUNT_UID_KEY = 'kubernetes.io/service-account.uid';
/** v1.ServiceAccountTokenKey, ServiceAccountNamespaceKey, ServiceAccountRootCAKey. */
export const TOKEN_KEY = 'token';
export const NAMESPACE_KEY = 'namespace';

/** The field selector of token Secrets (the scans below list only those). */
const TOKEN_SECRETS = { fieldSelector: `type=${SECRET_TYPE_SERVICE_ACCOUNT_TOKEN}` };

/** A unit of work: a token Secret to sync, or a deleted account whose tokens go. */
type Item = { key: string; kind: 'secret'; namespace: string; name: string } | { key: string; kind: 'account'; namespace: string; name: string } | { key: string; kind: 'account-deleted'; namespace: string; name: string; uid: string } | { key: string; kind: 'secret-deleted'; namespace: string; name: string; saName: string; saUid: string };

type J = Record<string, unknown>;
const obj = (v: unknown): J | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as J) : undefined);

const isTokenSecret = (o: KubeObject): boolean => o.type === SECRET_TYPE_SERVICE_ACCOUNT_TOKEN;
const TOKEN_TYPE_BYTES = Buffer.from(JSON.stringify(SECRET_TYPE_SERVICE_ACCOUNT_TOKEN));

/** The work a committed change asks for (kube's informer handlers), or undefined. */
export function tokensTrigger(c: Change, autoGenerate = false): Item | undefined {
  if (c.key.group !== '') return undefined;
  if (c.key.resource === 'secrets') {
    // Runs in the fold's commit step for every Secret write: only token Secrets are parsed.
    if (!c.object.includes(TOKEN_TYPE_BYTES)) return undefined;
    const o = parseObject(c.object);
    if (!isTokenSecret(o)) return undefined;
    const { namespace, name } = c.key;
    if (c.type !== 'DELETED') return { key: `secret:${namespace}/${name}`, kind: 'secret', namespace, name };
    const saName = o.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY] ?? '';
    if (!saName) return undefined;
    return { key: `secret-deleted:${namespace}/${name}`, kind: 'secret-deleted', namespace, name, saName, saUid: o.metadata.annotations?.[SERVICE_ACCOUNT_UID_KEY] ?? '' };
  }
  if (c.key.resource === 'serviceaccounts' && c.type !== 'DELETED') {
    return autoGenerate ? { key: `account:${c.key.namespace}/${c.key.name}`, kind: 'account', namespace: c.key.namespace, name: c.key.name } : undefined;
  }
  if (c.key.resource === 'serviceaccounts' && c.type === 'DELETED') {
    const uid = parseObject(c.object).metadata.uid ?? '';
    return { key: `account-deleted:${c.key.namespace}/${c.key.name}/${uid}`, kind: 'account-deleted', namespace: c.key.namespace, name: c.key.name, uid };
  }
  return undefined;
}

/**
 * IsServiceAccountToken: a token Secret annotated with the account's name and, when it names
 * one, its uid.
 */
export function isTokenOf(secret: KubeObject, sa: { name: string; uid: string }): boolean {
  if (!isTokenSecret(secret)) return false;
  const a = secret.metadata.annotations ?? {};
  if (a[SERVICE_ACCOUNT_NAME_KEY] !== sa.name) return false;
  const uid = a[SERVICE_ACCOUNT_UID_KEY];
  return !uid || uid === sa.uid;
}

/** secretUpdateNeeded: which of ca.crt, namespace and token the Secret lacks. */
export function secretUpdateNeeded(secret: KubeObject, caPem: string): { ca: boolean; namespace: boolean; token: boolean } {
  const data = obj(secret.data) ?? {};
  const b = (k: string): string => (typeof data[k] === 'string' ? Buffer.from(data[k] as string, 'base64').toString('utf8') : '');
  return { ca: caPem.length > 0 && b(ROOT_CA_KEY) !== caPem, namespace: b(NAMESPACE_KEY) === '', token: b(TOKEN_KEY) === '' };
}

export class ServiceAccountTokensController extends QueueController<Item> {
  private readonly secrets: ServedKind;
  private readonly accounts: ServedKind;
  private readonly ctx = systemContext('kube-controller-manager');

  constructor(
    storage: Storage,
    registry: Registry,
    private readonly generator: TokenGenerator,
    private readonly caPem: string,
    log: Logger,
    /** kube's TokensControllerOptions.AutoGenerate (!LegacyServiceAccountTokenNoAutoGeneration). */
    private readonly autoGenerate = false,
    queueOptions: WorkQueueOptions = DEFAULT_WORK_QUEUE_OPTIONS,
  ) {
    super(
      'serviceaccount-token',
      storage,
      log,
      async (item) => {
        await storage.latest();
        await this.sync(item);
      },
      (item, err) => {
        if (!(err instanceof ApiError && (err.code === 409 || err.code === 404))) log.warn({ err, key: item.key }, 'tokens controller sync failed; retrying');
      },
      queueOptions,
    );
    const secrets = registry.lookup('', 'v1', 'secrets');
    const accounts = registry.lookup('', 'v1', 'serviceaccounts');
    if (!secrets || !accounts) throw new Error('tokens controller: the secrets and serviceaccounts resources must be registered');
    this.secrets = secrets;
    this.accounts = accounts;
  }

  protected observe(c: Change): void {
    const item = tokensTrigger(c, this.autoGenerate);
    if (item) this.queue.add(item);
  }

  /** Queue every token Secret, and every ServiceAccount when tokens are auto-generated (kube's informers' initial list). */
  protected async scan(): Promise<void> {
    try {
      await this.queueAll();
    } catch (err) {
      this.log.warn({ err }, 'tokens controller: start-up scan failed; Secrets are synced as they change');
    }
  }

  private async queueAll(): Promise<void> {
    const stopped = (): boolean => this.stopped;
    for await (const b of listAll(this.secrets.reader, '', TOKEN_SECRETS, stopped)) {
      const m = parseObject(b).metadata;
      if (m.name && m.namespace) this.queue.add({ key: `secret:${m.namespace}/${m.name}`, kind: 'secret', namespace: m.namespace, name: m.name });
    }
    if (!this.autoGenerate || stopped()) return;
    for await (const b of listAll(this.accounts.reader, '', {}, stopped)) {
      const m = parseObject(b).metadata;
      if (m.name && m.namespace) this.queue.add({ key: `account:${m.namespace}/${m.name}`, kind: 'account', namespace: m.namespace, name: m.name });
    }
  }

  private async sync(item: Item): Promise<void> {
    if (item.kind === 'secret') return this.syncSecret(item.namespace, item.name);
    if (item.kind === 'account') return this.ensureReferencedToken(item.namespace, item.name);
    if (item.kind === 'account-deleted') return this.deleteTokens(item.namespace, { name: item.name, uid: item.uid });
    return this.removeSecretReference(item.namespace, item.saName, item.saUid, item.name);
  }

  /** syncSecret: delete a token whose account is gone, else fill what it lacks. */
  private async syncSecret(namespace: string, name: string): Promise<void> {
    const secret = await getOrNull(this.secrets, namespace, name);
    if (!secret || !isTokenSecret(secret)) return;
    const saName = secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_KEY] ?? '';
    if (!saName) return; // kube: an invalid queue key, dropped
    const saUid = secret.metadata.annotations?.[SERVICE_ACCOUNT_UID_KEY] ?? '';
    const sa = await getOrNull(this.accounts, namespace, saName);
    if (!sa || (saUid && sa.metadata.uid !== saUid)) {
      await this.deleteToken(namespace, name, secret.metadata.uid ?? '');
      return;
    }
    const needs = secretUpdateNeeded(secret, this.caPem);
    if (!needs.ca && !needs.namespace && !needs.token) return;
    const live = structuredClone(secret);
    const data = (obj(live.data) ?? {}) as Record<string, string>;
    const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
    if (needs.ca) data[ROOT_CA_KEY] = b64(this.caPem);
    if (needs.namespace) data[NAMESPACE_KEY] = b64(namespace);
    if (needs.token) {
      const token = await this.generator.generate(legacyClaims({ namespace: sa.metadata.namespace ?? namespace, name: sa.metadata.name ?? saName, uid: sa.metadata.uid ?? '' }, name));
      data[TOKEN_KEY] = b64(token);
    }
    live.data = data;
    live.metadata.annotations = { ...(live.metadata.annotations ?? {}), [SERVICE_ACCOUNT_NAME_KEY]: sa.metadata.name ?? saName, [SERVICE_ACCOUNT_UID_KEY]: sa.metadata.uid ?? '' };
    try {
      // Carries the resourceVersion it was read at: another writer (replica) wins a race.
      await this.secrets.store.update(this.ctx, namespace, name, live);
    } catch (err) {
      // Conflict: updated by someone else, a later change re-syncs. NotFound: nothing to fill.
      if (err instanceof ApiError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }

  /** The token Secrets of an account in its namespace (listTokenSecrets). */
  private async tokenSecretsOf(namespace: string, sa: { name: string; uid: string }): Promise<KubeObject[]> {
    const out: KubeObject[] = [];
    for await (const b of listAll(this.secrets.reader, namespace, TOKEN_SECRETS)) {
      const s = parseObject(b);
      if (isTokenOf(s, sa)) out.push(s);
    }
    return out;
  }

  /** hasReferencedToken: does the account reference one of its token Secrets? */
  private async hasReferencedToken(sa: KubeObject): Promise<boolean> {
    const refs = new Set((Array.isArray(sa.secrets) ? (sa.secrets as J[]) : []).map((r) => r?.name).filter((n): n is string => typeof n === 'string'));
    if (refs.size === 0) return false;
    const tokens = await this.tokenSecretsOf(sa.metadata.namespace!, { name: sa.metadata.name!, uid: sa.metadata.uid ?? '' });
    return tokens.some((t) => refs.has(t.metadata.name!));
  }

  /**
   * ensureReferencedToken (AutoGenerate): create a filled token Secret for an account that
   * references none, then add the reference (re-reading the account on conflicts); when the
   * reference cannot be added (the account went, changed uid, or got a token meanwhile — e.g. from
   * another replica) the new Secret is deleted again.
   */
  private async ensureReferencedToken(namespace: string, name: string): Promise<void> {
    const sa = await getOrNull(this.accounts, namespace, name);
    if (!sa || sa.metadata.deletionTimestamp || (await this.hasReferencedToken(sa))) return;
    const account = { namespace, name, uid: sa.metadata.uid ?? '' };
    const secretName = simpleNameGenerator(`${name}-token-`.slice(0, MAX_GENERATED_NAME_BASE));
    const b64 = (x: string): string => Buffer.from(x, 'utf8').toString('base64');
    const token = await this.generator.generate(legacyClaims(account, secretName));
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace, annotations: { [SERVICE_ACCOUNT_NAME_KEY]: name, [SERVICE_ACCOUNT_UID_KEY]: account.uid } },
      type: SECRET_TYPE_SERVICE_ACCOUNT_TOKEN,
      data: { [TOKEN_KEY]: b64(token), [NAMESPACE_KEY]: b64(namespace), ...(this.caPem ? { [ROOT_CA_KEY]: b64(this.caPem) } : {}) },
    };
    let created: KubeObject;
    try {
      created = parseObject((await this.secrets.store.create(this.ctx, namespace, secret)).body);
    } catch (err) {
      // A terminating namespace refuses every create: nothing to do.
      if (isNamespaceTerminating(err)) return;
      throw err;
    }
    let added = false;
    for (let attempt = 0; attempt < REFERENCE_RETRIES; attempt++) {
      const live = await getOrNull(this.accounts, namespace, name);
      if (!live || live.metadata.uid !== account.uid || (await this.hasReferencedToken(live))) break;
      live.secrets = [...(Array.isArray(live.secrets) ? (live.secrets as J[]) : []), { name: secretName }];
      try {
        await this.accounts.store.update(this.ctx, namespace, name, live);
        added = true;
        break;
      } catch (err) {
        if (err instanceof ApiError && err.code === 409) continue;
        if (err instanceof ApiError && err.code === 404) break;
        throw err;
      }
    }
    if (!added) await this.deleteToken(namespace, secretName, created.metadata.uid ?? '');
  }

  /** deleteTokens: every token Secret of a deleted account. */
  private async deleteTokens(namespace: string, sa: { name: string; uid: string }): Promise<void> {
    // The account may have been re-created under the same name: its tokens (by uid) stay.
    const current = await getOrNull(this.accounts, namespace, sa.name);
    if (current && current.metadata.uid === sa.uid) return;
    for await (const b of listAll(this.secrets.reader, namespace, TOKEN_SECRETS)) {
      const s = parseObject(b);
      if (isTokenOf(s, sa)) await this.deleteToken(namespace, s.metadata.name!, s.metadata.uid ?? '');
    }
  }

  /** deleteToken: with the uid precondition; gone or replaced (404/409) is done. */
  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await this.secrets.store.delete(this.ctx, namespace, name, uid ? { preconditions: { uid } } : {});
    } catch (err) {
      if (err instanceof ApiError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }

  /** removeSecretReference: drop `secretName` from the account's `secrets`, if it is that account. */
  private async removeSecretReference(namespace: string, saName: string, saUid: string, secretName: string): Promise<void> {
    const sa = await getOrNull(this.accounts, namespace, saName);
    if (!sa) return;
    if (saUid && saUid !== sa.metadata.uid) return;
    const refs = Array.isArray(sa.secrets) ? (sa.secrets as J[]) : [];
    if (!refs.some((r) => r?.name === secretName)) return;
    const next = structuredClone(sa);
    next.secrets = refs.filter((r) => r?.name !== secretName);
    try {
      await this.accounts.store.update(this.ctx, namespace, saName, next);
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return;
      throw err; // a conflict is retried with a fresh read (kube's RetryOnConflict)
    }
  }
}
