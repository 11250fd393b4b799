/**
 * ServiceAccount token authentication, after k8s.io/kubernetes 1.24 pkg/serviceaccount (jwt.go
 * jwtTokenAuthenticator, claims.go validator, legacy.go legacyValidator). kube-apiserver runs two
 * of these in its token union, in this order:
 *
 *   legacy:  issuer `kubernetes/serviceaccount` (the tokens controller's Secrets), checked against
 *            storage only with --service-account-lookup;
 *   bound:   the --service-account-issuer values (TokenRequest tokens), always checked against
 *            storage: the account (name and uid), and the Pod or Secret it is bound to.
 *
 * Each answers null (not its token: the union moves on) when the payload's unverified `iss` is
 * not one of its issuers or the token is not a compact JWS; otherwise the signature must verify
 * with one of the keys, the token's audiences (or, for a token without `aud`, the API audiences)
 * must meet the API audiences, and the validator must accept it — any failure is a 401.
 *
 * A bound token is rejected when expired or not yet valid (go-jose's one-minute leeway), when the
 * account is gone, has another uid or was deleted more than a minute ago, and when its Pod or
 * Secret is gone, has another uid or was marked deleted more than a minute ago (kube's
 * invalidIfDeletedBefore: a Pod in its grace period keeps its tokens). A legacy token with lookup
 * is rejected when its Secret is gone, being deleted, or holds another token, and when the account
 * is gone, being deleted, or has another uid.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import type { KubeObject, UserInfo } from '../../api/types.ts';
import { SYSTEM_AUTHENTICATED } from '../authn.ts';
import { goQuoteList, type TokenAuthenticator, type TokenContext, type TokenResponse } from '../token/token.ts';
import {
  ALL_SERVICE_ACCOUNTS_GROUP,
  LEGACY_CLAIMS,
  LEGACY_ISSUER,
  POD_NAME_EXTRA,
  POD_UID_EXTRA,
  SERVICE_ACCOUNT_GROUP_PREFIX,
  serviceAccountUsername,
  splitServiceAccountUsername,
} from './tokens.ts';

/** go-jose's jwt.DefaultLeeway. */
export const LEEWAY_SECONDS = 60;

/** ServiceAccountTokenGetter: the current object, or null when there is none. */
export interface ServiceAccountTokenGetter {
  serviceAccount(namespace: string, name: string): Promise<KubeObject | null>;
  pod(namespace: string, name: string): Promise<KubeObject | null>;
  secret(namespace: string, name: string): Promise<KubeObject | null>;
}

/** ServiceAccountInfo: who the token speaks for. */
export interface ServiceAccountInfo {
  namespace: string;
  name: string;
  uid: string;
  podName?: string;
  podUid?: string;
}

/** ServiceAccountInfo.UserInfo. */
export function serviceAccountUser(sa: ServiceAccountInfo): UserInfo {
  const user: UserInfo = {
    username: serviceAccountUsername(sa.namespace, sa.name),
    groups: [ALL_SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNT_GROUP_PREFIX}${sa.namespace}`, SYSTEM_AUTHENTICATED],
  };
  if (sa.uid) user.uid = sa.uid;
  if (sa.podName && sa.podUid) user.extra = { [POD_NAME_EXTRA]: [sa.podName], [POD_UID_EXTRA]: [sa.podUid] };
  return user;
}

/** Why a token was refused (kept for logs and tests; the client only ever sees a 401). */
export class TokenRejected extends Error {}

type Claims = Record<string, unknown>;
/** A validator's answer: the account, and audit annotations it wants recorded. */
type Validated = ServiceAccountInfo & { annotations?: Record<string, string> };
type Validate = (token: string, claims: Claims, nowSeconds: number) => Promise<Validated>;

export interface ServiceAccountAuthenticatorOptions {
  issuers: string[];
  keys: KeyObject[];
  /** The API audiences (implicit audiences of the token). */
  apiAudiences: string[];
  getter: ServiceAccountTokenGetter;
  /** Clock (seconds since the epoch); tests may move it. */
  now?: () => number;
  /** Counts tokens as kube's serviceaccount_*_tokens_total metrics do. */
  onUsed?: TokenUseListener;
}

/** legacy: a token without audiences was presented; stale / valid: a projected token with warnafter, past it or not. */
export type TokenUseListener = (kind: 'legacy' | 'stale' | 'valid') => void;

/**
 * A token authenticator (kube's authenticator.Token) for one set of issuers. `authenticateToken`
 * answers null for a token that is not its kind, throws TokenRejected for a bad one.
 */
export class JwtTokenAuthenticator implements TokenAuthenticator {
  private readonly issuers: Set<string>;
  private readonly now: () => number;

  private readonly keys: KeyObject[];

  constructor(private readonly opts: ServiceAccountAuthenticatorOptions, private readonly validate: Validate) {
    this.issuers = new Set(opts.issuers);
    // A private key verifies as its public half (jose takes only public KeyObjects for RS/ES).
    this.keys = opts.keys.map((k) => (k.type === 'private' ? createPublicKey(k) : k));
    this.now = opts.now ?? (() => Math.floor(Date.now() / 1000));
  }

  /** Audit annotations in the answer: kube's `authentication.k8s.io/legacy-token` and `…/stale-token`. */
  async authenticateToken(token: string, ctx: TokenContext = {}): Promise<TokenResponse | null> {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const unverified = decodeJson(parts[1]!);
    if (!unverified || typeof unverified.iss !== 'string' || !this.issuers.has(unverified.iss)) return null;
    // jwt.ParseSigned: a header that is not a JWS header means "not ours".
    if (!decodeJson(parts[0]!)) return null;
    let claims: Claims | undefined;
    const errors: string[] = [];
    // jose is loaded at the first service-account token verified, not at start-up (~30 ms).
    const { compactVerify } = await import('jose');
    for (const key of this.keys) {
      try {
        const { payload } = await compactVerify(token, key);
        claims = JSON.parse(Buffer.from(payload).toString('utf8')) as Claims;
        break;
      } catch (e) {
        errors.push((e as Error).message);
      }
    }
    if (!claims) throw new TokenRejected(errors.join(', ') || 'no keys');
    const rawAud = claims.aud;
    let tokenAudiences = typeof rawAud === 'string' ? [rawAud] : Array.isArray(rawAud) ? rawAud.filter((a): a is string => typeof a === 'string') : [];
    const annotations: Record<string, string> = {};
    // Only apiserver audiences are allowed for legacy tokens.
    if (tokenAudiences.length === 0) {
      annotations['authentication.k8s.io/legacy-token'] = str(claims.sub);
      this.opts.onUsed?.('legacy');
      tokenAudiences = this.opts.apiAudiences;
    }
    const requested = ctx.audiences ?? this.opts.apiAudiences;
    const audiences = tokenAudiences.filter((a) => requested.includes(a));
    if (audiences.length === 0 && this.opts.apiAudiences.length !== 0) {
      throw new TokenRejected(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}`);
    }
    const sa = await this.validate(token, claims, this.now());
    return { user: serviceAccountUser(sa), audiences, annotations: { ...annotations, ...sa.annotations } };
  }
}

function decodeJson(segment: string): Claims | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) return undefined;
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Claims) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Claims | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Claims) : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Seconds since the epoch of an RFC 3339 timestamp (metadata.deletionTimestamp), or undefined. */
function seconds(ts: unknown): number | undefined {
  if (typeof ts !== 'string') return undefined;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/** claims.go validator.Validate: times, then the account, the Secret and the Pod in storage. */
export function boundValidator(getter: ServiceAccountTokenGetter, onUsed?: TokenUseListener): Validate {
  return async (_token, claims, now) => {
    const exp = num(claims.exp);
    const nbf = num(claims.nbf);
    if (nbf !== undefined && now + LEEWAY_SECONDS < nbf) throw new TokenRejected('service account token is not valid yet');
    if (exp !== undefined && now - LEEWAY_SECONDS > exp) throw new TokenRejected('service account token has expired');
    const k8s = obj(claims['kubernetes.io']) ?? {};
    const namespace = str(k8s.namespace);
    const saRef = obj(k8s.serviceaccount) ?? {};
    const podRef = obj(k8s.pod);
    const secretRef = obj(k8s.secret);
    const invalidIfDeletedBefore = now - LEEWAY_SECONDS;
    const deletedLongAgo = (o: KubeObject): boolean => {
      const at = seconds(o.metadata.deletionTimestamp);
      return at !== undefined && at < invalidIfDeletedBefore;
    };
    const saName = str(saRef.name);
    const sa = await getter.serviceAccount(namespace, saName);
    if (!sa) throw new TokenRejected(`serviceaccounts "${saName}" not found`);
    if (deletedLongAgo(sa)) throw new TokenRejected(`service account ${namespace}/${saName} has been deleted`);
    if ((sa.metadata.uid ?? '') !== str(saRef.uid)) throw new TokenRejected(`service account UID (${sa.metadata.uid}) does not match claim (${str(saRef.uid)})`);
    if (secretRef) {
      const secret = await getter.secret(namespace, str(secretRef.name));
      if (!secret || deletedLongAgo(secret)) throw new TokenRejected('service account token has been invalidated');
      if (str(secretRef.uid) !== (secret.metadata.uid ?? '')) throw new TokenRejected(`secret UID (${secret.metadata.uid}) does not match service account secret ref claim (${str(secretRef.uid)})`);
    }
    const info: ServiceAccountInfo = { namespace, name: saName, uid: str(saRef.uid) };
    if (podRef) {
      const pod = await getter.pod(namespace, str(podRef.name));
      if (!pod || deletedLongAgo(pod)) throw new TokenRejected('service account token has been invalidated');
      if (str(podRef.uid) !== (pod.metadata.uid ?? '')) throw new TokenRejected(`pod UID (${pod.metadata.uid}) does not match service account pod ref claim (${str(podRef.uid)})`);
      info.podName = str(podRef.name);
      info.podUid = str(podRef.uid);
    }
    // A projected token past its requested expiry (the extension's warnafter): still valid, audited.
    const warnAfter = num(k8s.warnafter);
    if (warnAfter) onUsed?.(now > warnAfter ? 'stale' : 'valid');
    if (warnAfter && now > warnAfter) {
      return { ...info, annotations: { 'authentication.k8s.io/stale-token': `subject: ${str(claims.sub)}, seconds after warning threshold: ${now - warnAfter}` } };
    }
    return info;
  };
}

/** legacy.go legacyValidator.Validate. */
export function legacyValidator(lookup: boolean, getter: ServiceAccountTokenGetter): Validate {
  return async (token, claims) => {
    const sub = str(claims.sub);
    if (!sub) throw new TokenRejected('sub claim is missing');
    const namespace = str(claims[LEGACY_CLAIMS.namespace]);
    if (!namespace) throw new TokenRejected('namespace claim is missing');
    const secretName = str(claims[LEGACY_CLAIMS.secretName]);
    if (!secretName) throw new TokenRejected('secretName claim is missing');
    const name = str(claims[LEGACY_CLAIMS.serviceAccountName]);
    if (!name) throw new TokenRejected('serviceAccountName claim is missing');
    const uid = str(claims[LEGACY_CLAIMS.serviceAccountUid]);
    if (!uid) throw new TokenRejected('serviceAccountUID claim is missing');
    const split = splitServiceAccountUsername(sub);
    if (!split || split[0] !== namespace || split[1] !== name) throw new TokenRejected('sub claim is invalid');
    if (lookup) {
      const secret = await getter.secret(namespace, secretName);
      if (!secret || secret.metadata.deletionTimestamp) throw new TokenRejected('Token has been invalidated');
      const stored = (secret.data as Record<string, unknown> | undefined)?.token;
      if (typeof stored !== 'string' || Buffer.from(stored, 'base64').toString('utf8') !== token) throw new TokenRejected("Token does not match server's copy");
      const sa = await getter.serviceAccount(namespace, name);
      if (!sa) throw new TokenRejected(`serviceaccounts "${name}" not found`);
      if (sa.metadata.deletionTimestamp) throw new TokenRejected(`ServiceAccount ${namespace}/${name} has been deleted`);
      if ((sa.metadata.uid ?? '') !== uid) throw new TokenRejected(`ServiceAccount UID (${sa.metadata.uid}) does not match claim (${uid})`);
    }
    return { namespace, name, uid };
  };
}

/** kube's two service-account token authenticators, in its union's order (legacy, then bound). */
export function serviceAccountTokenAuthenticators(opts: { issuers: string[]; keys: KeyObject[]; apiAudiences: string[]; lookup: boolean; getter: ServiceAccountTokenGetter; now?: () => number; onUsed?: TokenUseListener }): JwtTokenAuthenticator[] {
  const base = { keys: opts.keys, apiAudiences: opts.apiAudiences, getter: opts.getter, now: opts.now, onUsed: opts.onUsed };
  return [
    new JwtTokenAuthenticator({ ...base, issuers: [LEGACY_ISSUER] }, legacyValidator(opts.lookup, opts.getter)),
    new JwtTokenAuthenticator({ ...base, issuers: opts.issuers }, boundValidator(opts.getter, opts.onUsed)),
  ];
}
