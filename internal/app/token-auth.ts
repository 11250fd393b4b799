/**
 * The server's token authentication, assembled as kube-apiserver 1.24 assembles it
 * (pkg/kubeapiserver/authenticator/config.go): the token authenticators in kube's order —
 *
 *   token file (audience-agnostic) → service-account tokens → bootstrap tokens (audience-agnostic)
 *   → OIDC (audience-agnostic) → webhook (audience-aware, its own cache, --authentication-token-webhook-cache-ttl)
 *
 * — in one union, behind kube's outer cache (successes 10 s, failures not cached), then one
 * bearer-token request authenticator for the filter chain. TokenReview asks the same cached union.
 * Service-account JWTs and OIDC come in through `TokenAuthSlots`.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import { parseTokenFile, type Authenticator } from '../auth/authn.ts';
import { audienceAgnostic, bearerTokenAuthenticator, staticTokens, tokenUnion, type TokenAuthenticator } from '../auth/token/token.ts';
import { cachedTokenAuthenticator } from '../auth/token/cache.ts';
import { BOOTSTRAP_TOKEN_NAMESPACE, bootstrapTokenAuthenticator } from '../auth/token/bootstrap.ts';
import { cachedWebhookTokenAuthenticator, DEFAULT_WEBHOOK_CACHE_TTL_MS, WebhookTokenAuthenticator, type RetryBackoff, type WebhookVersion } from '../auth/token/webhook.ts';
import { loadWebhookKubeconfig } from '../auth/token/webhook-config.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { Registry } from '../registry/registry.ts';

/** kube-apiserver's TokenSuccessCacheTTL (not a flag): a good token is re-checked after 10 s. */
export const TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
/** kube-apiserver's TokenFailureCacheTTL: rejections are never cached. */
export const TOKEN_FAILURE_CACHE_TTL_MS = 0;

export interface TokenAuthOptions {
  /** --token-auth-file. */
  tokenAuthFile?: string;
  /** --enable-bootstrap-token-auth. */
  enableBootstrapTokenAuth?: boolean;
  /** --authentication-token-webhook-config-file. */
  webhookConfigFile?: string;
  /** --authentication-token-webhook-cache-ttl (default 2m). */
  webhookCacheTtlMs?: number;
  /** --authentication-token-webhook-version (default v1beta1). */
  webhookVersion?: WebhookVersion;
  /** The webhook's retry backoff (kube's WebhookRetryBackoff, not a flag; tests shorten it). */
  webhookRetryBackoff?: RetryBackoff;
  /** --api-audiences: the audiences this server's own tokens are for. */
  apiAudiences?: string[];
}

/** Authenticators built elsewhere that take their place in kube's order. */
export interface TokenAuthSlots {
  /**
   * Service-account JWT authenticators (legacy, then bound), audience-aware: each checks the
   * token's `aud` against `ctx.audiences` (the API audiences when absent) and answers the
   * intersection, as kube's JWTTokenAuthenticator does.
   */
  serviceAccounts?: TokenAuthenticator[];
  /** --oidc-*: the OIDC authenticator as a token authenticator (app/authentication.ts); audience-agnostic. */
  oidc?: TokenAuthenticator;
  /**
   * `--workers N`: what kube keeps once per process — OIDC (one discovery, one key set), the
   * webhook's cache, and their successes in the outer cache — is the leader's. `make()` builds it
   * (undefined: neither is configured); the leader offers it to its serving threads, a thread
   * asks the leader's instead of calling `make()`. Absent: one thread, one cached union.
   */
  shared?: (make: () => TokenAuthenticator | undefined) => TokenAuthenticator | undefined;
}

export interface TokenAuthentication {
  /** The cached union, for TokenReview; undefined when no token authenticator is configured. */
  tokenAuthenticator?: TokenAuthenticator;
  /** The bearer-token request authenticator, for the filter chain. */
  bearer?: Authenticator;
  apiAudiences: string[];
  /** Drops the webhook's connections. */
  close(): Promise<void>;
}

/**
 * Build the token authenticators from the options; throws (start-up error) on an unreadable token
 * file or webhook kubeconfig. `registry` is asked lazily, per token: it is built afterwards.
 */
export function buildTokenAuthentication(opts: TokenAuthOptions, registry: () => Registry | undefined, log: Logger, slots: TokenAuthSlots = {}): TokenAuthentication {
  const apiAudiences = opts.apiAudiences ?? [];
  const list: TokenAuthenticator[] = [];
  const perProcess: TokenAuthenticator[] = [];
  if (opts.tokenAuthFile) list.push(audienceAgnostic(apiAudiences, staticTokens(parseTokenFile(readFileSync(opts.tokenAuthFile, 'utf8'), opts.tokenAuthFile))));
  // Service-account JWTs after the token file: audience-aware, so not wrapped.
  list.push(...(slots.serviceAccounts ?? []));
  if (opts.enableBootstrapTokenAuth) {
    const boot = bootstrapTokenAuthenticator({
      getSecret: (name) => kubeSystemSecret(registry(), name),
      onRejected: (name, why) => log.debug({ secret: `${BOOTSTRAP_TOKEN_NAMESPACE}/${name}`, why }, 'bootstrap secret matching a bearer token refuses it'),
    });
    list.push(audienceAgnostic(apiAudiences, boot));
  }
  // OIDC after the service accounts and bootstrap tokens: kube keeps it after them (both verify
  // JWTs, and an OIDC miss may refetch the provider's keys).
  let webhook: WebhookTokenAuthenticator | undefined;
  const makePerProcess = (): TokenAuthenticator[] => {
    if (slots.oidc) perProcess.push(audienceAgnostic(apiAudiences, slots.oidc));
    if (opts.webhookConfigFile) {
      webhook = new WebhookTokenAuthenticator({
        client: loadWebhookKubeconfig(opts.webhookConfigFile),
        version: opts.webhookVersion ?? 'v1beta1',
        implicitAudiences: apiAudiences,
        retryBackoff: opts.webhookRetryBackoff,
      });
      perProcess.push(cachedWebhookTokenAuthenticator(webhook, opts.webhookCacheTtlMs ?? DEFAULT_WEBHOOK_CACHE_TTL_MS));
    }
    return perProcess;
  };
  const outerCache = (a: TokenAuthenticator): TokenAuthenticator => cachedTokenAuthenticator(a, { cacheErrors: true, successTtlMs: TOKEN_SUCCESS_CACHE_TTL_MS, failureTtlMs: TOKEN_FAILURE_CACHE_TTL_MS });
  let tokenAuthenticator: TokenAuthenticator | undefined;
  if (!slots.shared) {
    list.push(...makePerProcess());
    if (list.length) tokenAuthenticator = outerCache(tokenUnion(list));
  } else {
    // kube's outer cache keeps successes only (failures and errors 0 s), so splitting it in two —
    // this thread's over its own authenticators, the leader's over the per-process ones — answers
    // as one does, in the same order; the per-process part is the leader's, whoever asks.
    const shared = slots.shared(() => (makePerProcess().length ? outerCache(tokenUnion(perProcess)) : undefined));
    const parts = [...(list.length ? [outerCache(tokenUnion(list))] : []), ...(shared ? [shared] : [])];
    if (parts.length) tokenAuthenticator = tokenUnion(parts);
  }
  const close = async (): Promise<void> => {
    await webhook?.close();
  };
  if (!tokenAuthenticator) return { apiAudiences, close };
  return { tokenAuthenticator, bearer: bearerTokenAuthenticator(tokenAuthenticator, apiAudiences), apiAudiences, close };
}

/** A kube-system Secret, or null when absent (kube reads its informer's lister). */
async function kubeSystemSecret(registry: Registry | undefined, name: string): Promise<KubeObject | null> {
  const secrets = registry?.lookup('', 'v1', 'secrets');
  if (!secrets) return null;
  try {
    return parseObject(await secrets.store.getLatest(BOOTSTRAP_TOKEN_NAMESPACE, name));
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return null;
    throw e;
  }
}
