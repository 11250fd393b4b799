/**
 * ServiceAccount token claims and signing, after k8s.io/kubernetes 1.24 pkg/serviceaccount
 * (claims.go Claims, legacy.go LegacyClaims, jwt.go jwtTokenGenerator) and signed with `jose`.
 *
 * go-jose merges the private and public claims into one JSON object through maps, so every
 * object of the payload comes out with sorted keys (Go marshals maps in key order), empty members
 * of the `kubernetes.io` claim left out. The protected header is `{"alg":…,"kid":…}`. Times are
 * whole seconds (jwt.NumericDate).
 *
 * Worked example (a pod-bound token):
 *   {"aud":["https://kubernetes.default.svc.cluster.local"],"exp":1795675905,"iat":1795672305,
 *    "iss":"https://kubernetes.default.svc.cluster.local","kubernetes.io":{"namespace":"ns",
 *    "pod":{"name":"p","uid":"…"},"serviceaccount":{"name":"sa","uid":"…"}},"nbf":1795672305,
 *    "sub":"system:serviceaccount:ns:sa"}
 */
import type { SigningKey } from './options.ts';

/** The issuer of the tokens the tokens controller writes into Secrets (LegacyIssuer). */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const SERVICE_ACCOUNT_GROUP_PREFIX = 'system:serviceaccounts:';
/** The extra keys a pod-bound token's user carries (apiserver/pkg/authentication/serviceaccount). */
export const POD_NAME_EXTRA = 'authentication.kubernetes.io/pod-name';
export const POD_UID_EXTRA = 'authentication.kubernetes.io/pod-uid';

/** Legacy private claim names (legacyPrivateClaims). */
export const LEGACY_CLAIMS = {
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  namespace: 'kubernetes.io/serviceaccount/namespace',
} as const;

/** A name and uid (claims.go ref). */
export interface Ref {
  name: string;
  uid: string;
}

/** The account a token is for. */
export interface AccountRef extends Ref {
  namespace: string;
}

/** MakeUsername. */
export const serviceAccountUsername = (namespace: string, name: string): string => `${SERVICE_ACCOUNT_USERNAME_PREFIX}${namespace}:${name}`;

/** SplitUsername: [namespace, name] of a service account user name, or null. */
export function splitServiceAccountUsername(username: string): [string, string] | null {
  if (!username.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) return null;
  const parts = username.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  return [parts[0], parts[1]];
}

const omitEmptyRef = (r: Ref): Partial<Ref> => ({ ...(r.name ? { name: r.name } : {}), ...(r.uid ? { uid: r.uid } : {}) });

/**
 * The claims in Go's map order at every level: go-jose merges the claim structs by marshalling each
 * and unmarshalling it into a map[string]interface{}, nested objects included, so every object of
 * the payload comes out with sorted keys.
 */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (!v || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) if (o[k] !== undefined) out[k] = sorted(o[k]);
  return out;
}

/** What a bound token is bound to (at most one of pod and secret, as claims.go's switch). */
export interface BoundTo {
  pod?: Ref;
  secret?: Ref;
}

/**
 * claims.go Claims without the issuer (the generator adds it): sub, aud, iat, nbf, exp and the
 * `kubernetes.io` claim; `warnAfterSeconds` (0: none) adds `warnafter`.
 */
export function boundClaims(sa: AccountRef, bound: BoundTo, nowSeconds: number, expirationSeconds: number, warnAfterSeconds: number, audiences: string[]): Record<string, unknown> {
  const k8s: Record<string, unknown> = {};
  if (sa.namespace) k8s.namespace = sa.namespace;
  k8s.serviceaccount = omitEmptyRef(sa);
  if (bound.pod) k8s.pod = omitEmptyRef(bound.pod);
  else if (bound.secret) k8s.secret = omitEmptyRef(bound.secret);
  if (warnAfterSeconds) k8s.warnafter = nowSeconds + warnAfterSeconds;
  return {
    sub: serviceAccountUsername(sa.namespace, sa.name),
    ...(audiences.length ? { aud: audiences } : {}),
    iat: nowSeconds,
    nbf: nowSeconds,
    exp: nowSeconds + expirationSeconds,
    'kubernetes.io': k8s,
  };
}

/** legacy.go LegacyClaims: no audience, no times, the secret's name. */
export function legacyClaims(sa: AccountRef, secretName: string): Record<string, unknown> {
  return {
    sub: serviceAccountUsername(sa.namespace, sa.name),
    [LEGACY_CLAIMS.namespace]: sa.namespace,
    [LEGACY_CLAIMS.serviceAccountName]: sa.name,
    [LEGACY_CLAIMS.serviceAccountUid]: sa.uid,
    [LEGACY_CLAIMS.secretName]: secretName,
  };
}

/** Signs claims as one issuer (jwt.go JWTTokenGenerator). */
export interface TokenGenerator {
  generate(claims: Record<string, unknown>): Promise<string>;
}

/** A generator writing `iss` = `issuer` over the claims, signed with `signing`. */
export function jwtTokenGenerator(issuer: string, signing: SigningKey): TokenGenerator {
  return {
    async generate(claims) {
      // jose is loaded at the first token signed, not at start-up (~30 ms).
      const { SignJWT } = await import('jose');
      return new SignJWT(sorted({ ...claims, iss: issuer }) as Record<string, unknown>).setProtectedHeader({ alg: signing.alg, kid: signing.kid }).sign(signing.key);
    },
  };
}
