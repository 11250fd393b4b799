/**
 * Bootstrap tokens (--enable-bootstrap-token-auth): `<id>.<secret>` bearer tokens backed by Secrets
 * `bootstrap-token-<id>` of type `bootstrap.kubernetes.io/token` in kube-system, as
 * plugin/pkg/auth/authenticator/token/bootstrap and k8s.io/cluster-bootstrap 1.24 define them.
 * Every rule is a pure function here; the authenticator only fetches the Secret.
 */
import { timingSafeEqual } from 'node:crypto';
import type { KubeObject, UserInfo } from '../../api/types.ts';
import type { TokenAuthenticator } from './token.ts';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

/** api.BootstrapTokenPattern: `\A([a-z0-9]{6})\.([a-z0-9]{16})\z`. */
const TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** api.BootstrapGroupPattern. */
const GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const SECRET_NAME_RE = /^bootstrap-token-([a-z0-9]{6})$/;

/** tokens.ParseToken: the id and secret of a well-formed token, or null (not a bootstrap token). */
export function parseBootstrapToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN_RE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/** secrets.ParseName: the token id a Secret name carries, or null. */
export function tokenIdOfSecretName(name: string): string | null {
  return SECRET_NAME_RE.exec(name)?.[1] ?? null;
}

/** secrets.GetData: a data key's value as a string ('' when absent). */
export function secretData(secret: KubeObject, key: string): string {
  const data = (secret as { data?: Record<string, unknown> }).data;
  const v = data?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * Go's time.Parse(time.RFC3339, s) as epoch milliseconds, or null when Go would fail: a 4-digit
 * year, fields in range (day within its month, second < 60), optional fraction after the
 * seconds (`.` or `,`), `Z` or a ±hh:mm offset. Milliseconds are kept, the rest of a fraction
 * truncated.
 */
export function parseRfc3339(s: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([.,]\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > (mo === 2 && leap(y!) ? 29 : DAYS[mo! - 1]!) || h! > 23 || mi! > 59 || se! > 59) return null;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    // Go accepts offsets up to 24:00 (and minutes up to 60).
    if (oh > 24 || om > 60) return null;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] ? Number(m[7].slice(1, 4).padEnd(3, '0')) : 0;
  const t = new Date(0);
  t.setUTCFullYear(y!, mo! - 1, d!);
  t.setUTCHours(h!, mi!, se!, frac);
  return t.getTime() - offsetMin * 60_000;
}

/**
 * secrets.GetExpiration: milliseconds left before the token expires, or 'expired' (an unparseable
 * `expiration` counts as expired), or null when the Secret sets no expiration.
 */
export function timeToExpiry(secret: KubeObject, nowMs: number): number | 'expired' | null {
  const exp = secretData(secret, 'expiration');
  if (!exp) return null;
  const t = parseRfc3339(exp);
  if (t === null) return 'expired';
  const left = t - nowMs;
  return left <= 0 ? 'expired' : left;
}

/**
 * secrets.GetGroups: system:bootstrappers plus `auth-extra-groups` (comma-separated, each matching
 * the bootstrap group pattern), de-duplicated and sorted as sets.String.List(); an error names the
 * first bad group.
 */
export function bootstrapGroups(secret: KubeObject): string[] {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = secretData(secret, 'auth-extra-groups');
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!GROUP_RE.test(g)) throw new Error(`bootstrap group ${JSON.stringify(g)} is invalid (must match \\Asystem:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]\\z)`);
      groups.add(g);
    }
  }
  return [...groups].sort();
}

/** Constant-time comparison, as subtle.ConstantTimeCompare (lengths may differ). */
function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  if (x.length !== y.length) {
    timingSafeEqual(x, x); // same work whatever the secret's length
    return false;
  }
  return timingSafeEqual(x, y);
}

/** Why a Secret matching a token's id does not authenticate it (null: it does). */
export type BootstrapRejection = 'deleted' | 'type' | 'secret' | 'id' | 'expired' | 'usage' | 'groups';

/**
 * The user a bootstrap Secret authenticates for the token `id.secret`, or the reason it does not,
 * in the order kube checks: being deleted, type and data, token-secret (constant time), token-id,
 * expiration, usage-bootstrap-authentication=true, auth-extra-groups.
 */
export function evaluateBootstrapSecret(secret: KubeObject, token: { id: string; secret: string }, nowMs: number): { user: UserInfo } | { rejected: BootstrapRejection } {
  if (secret.metadata.deletionTimestamp) return { rejected: 'deleted' };
  const data = (secret as { data?: unknown }).data;
  if ((secret as { type?: unknown }).type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !data) return { rejected: 'type' };
  if (!constantTimeEqual(secretData(secret, 'token-secret'), token.secret)) return { rejected: 'secret' };
  const id = secretData(secret, 'token-id');
  if (id !== token.id) return { rejected: 'id' };
  if (timeToExpiry(secret, nowMs) === 'expired') return { rejected: 'expired' };
  if (secretData(secret, 'usage-bootstrap-authentication') !== 'true') return { rejected: 'usage' };
  let groups: string[];
  try {
    groups = bootstrapGroups(secret);
  } catch {
    return { rejected: 'groups' };
  }
  return { user: { username: BOOTSTRAP_USER_PREFIX + id, groups } };
}

export interface BootstrapTokenDeps {
  /** The kube-system Secret of this name, or null when there is none. */
  getSecret(name: string): Promise<KubeObject | null>;
  /** Told why a Secret matching a token's id was refused (kube logs it at V(3)). */
  onRejected?(secretName: string, why: BootstrapRejection): void;
  now?: () => number;
}

/**
 * The bootstrap token authenticator: a token that is not of the bootstrap form, or whose Secret
 * is missing or refuses it, is simply not authenticated (no error), as kube answers; only a
 * failure to read the Secret is an error.
 */
export function bootstrapTokenAuthenticator(deps: BootstrapTokenDeps): TokenAuthenticator {
  const now = deps.now ?? Date.now;
  return {
    async authenticateToken(token) {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return null;
      const name = BOOTSTRAP_TOKEN_SECRET_PREFIX + parsed.id;
      const secret = await deps.getSecret(name);
      if (!secret) return null;
      const r = evaluateBootstrapSecret(secret, parsed, now());
      if ('rejected' in r) {
        deps.onRejected?.(name, r.rejected);
        return null;
      }
      return { user: r.user, audiences: [] };
    },
  };
}
