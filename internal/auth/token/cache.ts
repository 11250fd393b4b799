/**
 * k8s.io/apiserver's cached token authenticator (pkg/authentication/token/cache): results are
 * kept per (token, audiences) for a TTL, concurrent lookups of one key share one call
 * (singleflight), and the key is an HMAC-SHA256 under a per-process random key, so the table never
 * holds a token in clear.
 *
 * What is cached, as kube does:
 *   - a success for `successTtlMs`, a rejection (not authenticated, no error) for `failureTtlMs`
 *     (0: not cached);
 *   - an error (the webhook unreachable, a 500) only when `cacheErrors`, and then as a rejection
 *     would be (failure TTL). kube-apiserver caches its whole token union with cacheErrors=true,
 *     10 s success and 0 s failure TTL, and the webhook's own results with cacheErrors=false and
 *     --authentication-token-webhook-cache-ttl for both successes and rejections.
 *
 *   t=0   token A → miss → inner says OK         → cached until t+ttl
 *   t=1   token A → hit (inner not called)
 *   t=ttl token A → expired → miss → inner again
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { TokenAuthenticator, TokenContext, TokenResponse } from './token.ts';

export interface TokenCacheOptions {
  cacheErrors: boolean;
  successTtlMs: number;
  failureTtlMs: number;
  /** Clock (tests). */
  now?: () => number;
  /**
   * Most entries kept; the oldest go first beyond it. kube's cache is unbounded; a bound keeps
   * a flood of distinct bogus tokens (cached when failures are) from growing memory without end.
   * 65,536 entries of ~200 bytes is ~13 MB at most.
   */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 65_536;

type Outcome = { ok: true; resp: TokenResponse } | { ok: false; resp: null } | { ok: false; error: Error };

interface Entry {
  outcome: Outcome;
  expires: number;
}

/** Length-prefixed fields, as kube's keyFunc writes them, so no two inputs share a key. */
function cacheKey(hmacKey: Buffer, token: string, audiences: string[] | undefined): string {
  const h = createHmac('sha256', hmacKey);
  const len = (n: number): void => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    h.update(b);
  };
  const str = (s: string): void => {
    const b = Buffer.from(s, 'utf8');
    len(b.length);
    h.update(b);
  };
  str(token);
  // kube hashes a missing audience list like an empty one.
  len(audiences?.length ?? 0);
  for (const a of audiences ?? []) str(a);
  return h.digest('base64');
}

const copyResponse = (r: TokenResponse): TokenResponse => ({
  user: { ...r.user, groups: [...r.user.groups], ...(r.user.extra ? { extra: Object.fromEntries(Object.entries(r.user.extra).map(([k, v]) => [k, [...v]])) } : {}) },
  audiences: [...r.audiences],
  // kube's cached authenticator records the audit annotations of the call and replays them on hits.
  ...(r.annotations ? { annotations: { ...r.annotations } } : {}),
});

export function cachedTokenAuthenticator(inner: TokenAuthenticator, opts: TokenCacheOptions): TokenAuthenticator {
  const hmacKey = randomBytes(32);
  const now = opts.now ?? Date.now;
  const max = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Outcome>>();

  const store = (key: string, outcome: Outcome, ttl: number): void => {
    if (ttl <= 0) return;
    entries.delete(key); // re-inserted last: Map order is the eviction order
    entries.set(key, { outcome, expires: now() + ttl });
    while (entries.size > max) entries.delete(entries.keys().next().value as string);
  };

  const lookup = async (token: string, ctx: TokenContext, key: string): Promise<Outcome> => {
    let outcome: Outcome;
    try {
      const resp = await inner.authenticateToken(token, ctx);
      outcome = resp ? { ok: true, resp } : { ok: false, resp: null };
    } catch (e) {
      outcome = { ok: false, error: e instanceof Error ? e : new Error(String(e)) };
    }
    if ('error' in outcome && !opts.cacheErrors) return outcome;
    store(key, outcome, outcome.ok ? opts.successTtlMs : opts.failureTtlMs);
    return outcome;
  };

  return {
    async authenticateToken(token, ctx) {
      const key = cacheKey(hmacKey, token, ctx.audiences);
      let outcome: Outcome;
      const hit = entries.get(key);
      if (hit && hit.expires > now()) outcome = hit.outcome;
      else {
        if (hit) entries.delete(key);
        let p = inflight.get(key);
        if (!p) {
          p = lookup(token, ctx, key).finally(() => inflight.delete(key));
          inflight.set(key, p);
        }
        outcome = await p;
      }
      if ('error' in outcome) throw outcome.error;
      return outcome.ok ? copyResponse(outcome.resp) : null;
    },
  };
}
