/**
 * Pure parts of the OpenID Connect token authenticator (kube-apiserver 1.24,
 * k8s.io/apiserver/plugin/pkg/authenticator/token/oidc and the go-oidc v2 verifier it uses):
 * flag defaulting and validation, the unverified issuer peek, the ID-token claim checks, and the
 * mapping of verified claims to a user. Nothing here does I/O, so every rule is unit-testable.
 *
 * Every check returns an error message (kube only logs it; the client always sees a plain 401
 * Status) rather than throwing, so the caller decides how a failure surfaces.
 */
import type { UserInfo } from '../api/types.ts';

/** The algorithms `--oidc-signing-algs` may name (kube's allowedSigningAlgs: asymmetric only). */
export const ALLOWED_SIGNING_ALGS: readonly string[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** go-oidc's nbf leeway: a token may be used up to one minute before its nbf (clock skew). */
const NBF_LEEWAY_MS = 60_000;

/** The `--oidc-*` flags as given (after pflag parsing), before kube's defaulting. */
export interface OidcFlags {
  issuerUrl: string;
  clientId: string;
  caFile?: string;
  /** --oidc-username-claim (flag default `sub`). */
  usernameClaim: string;
  /** --oidc-username-prefix as given ('' = not given, '-' = no prefix). */
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  /** --oidc-signing-algs (flag default [RS256]; empty means RS256 as well). */
  signingAlgs: string[];
  /** --oidc-required-claim key=value pairs (a later duplicate key wins, as kube's map flag). */
  requiredClaims: Record<string, string>;
}

/** What the authenticator runs with: flags after kube's defaulting and validation. */
export interface OidcConfig {
  issuerUrl: string;
  clientId: string;
  caFile?: string;
  usernameClaim: string;
  /** The effective prefix ('' = none). */
  usernamePrefix: string;
  groupsClaim: string;
  groupsPrefix: string;
  signingAlgs: string[];
  requiredClaims: Record<string, string>;
}

/**
 * One `--oidc-required-claim` value into the map (cliflag.MapStringStringNoSplit: one pair per
 * occurrence, split at the first '=', key and value trimmed). Throws pflag's message.
 */
export function addRequiredClaim(into: Record<string, string>, value: string): void {
  const eq = value.indexOf('=');
  if (eq < 0) throw new Error(`invalid argument "${value}" for "--oidc-required-claim" flag: malformed pair, expect string=string`);
  into[value.slice(0, eq).trim()] = value.slice(eq + 1).trim();
}

/** pflag's StringSlice: every occurrence is CSV, the first one replaces the default. */
export function parseSigningAlgs(occurrences: string[]): string[] {
  if (occurrences.length === 0) return ['RS256'];
  return occurrences.flatMap((o) => (o === '' ? [] : o.split(',')));
}

/**
 * kube-apiserver's rule (BuiltInAuthenticationOptions.Validate): the issuer and the client id
 * come together or not at all. Returns the error message, or null.
 */
export function validateOidcPairing(issuerUrl: string, clientId: string): string | null {
  return (issuerUrl.length > 0) !== (clientId.length > 0) ? 'oidc-issuer-url and oidc-client-id should be specified together' : null;
}

/**
 * The username prefix kube applies (newAuthenticatorFromOIDCIssuerURL): none given and a claim
 * other than `email` → `<issuer>#` (kubernetes#31380: `sub` values of different issuers must not
 * collide); `-` → no prefix at all; otherwise the value as given.
 */
export function effectiveUsernamePrefix(issuerUrl: string, usernameClaim: string, given: string): string {
  if (given === '' && usernameClaim !== 'email') return `${issuerUrl}#`;
  if (given === '-') return '';
  return given;
}

/** Go's url.Parse errors for the cases a flag value can hit, and the scheme it finds. */
function goUrlScheme(raw: string): { scheme: string } | { error: string } {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (m) return { scheme: m[1]! };
  if (raw.startsWith(':')) return { error: `parse ${JSON.stringify(raw)}: missing protocol scheme` };
  const firstSegment = raw.split('/')[0]!;
  if (firstSegment.includes(':')) return { error: `parse ${JSON.stringify(raw)}: first path segment in URL cannot contain colon` };
  return { scheme: '' };
}

/**
 * Flags → config, with kube's start-up errors (oidc.New) as thrown messages. Returns null when
 * OIDC is off (no issuer and no client id). The CA file is checked by the caller (I/O).
 */
export function oidcConfigFromFlags(f: OidcFlags): OidcConfig | null {
  const pairing = validateOidcPairing(f.issuerUrl, f.clientId);
  if (pairing) throw new Error(pairing);
  if (!f.issuerUrl) return null;
  const parsed = goUrlScheme(f.issuerUrl);
  if ('error' in parsed) throw new Error(parsed.error);
  if (parsed.scheme !== 'https') throw new Error(`'oidc-issuer-url' (${JSON.stringify(f.issuerUrl)}) has invalid scheme (${JSON.stringify(parsed.scheme)}), require 'https'`);
  if (!f.usernameClaim) throw new Error('no username claim provided');
  const signingAlgs = f.signingAlgs.length ? f.signingAlgs : ['RS256'];
  for (const alg of signingAlgs) {
    if (!ALLOWED_SIGNING_ALGS.includes(alg)) throw new Error(`oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  }
  return {
    issuerUrl: f.issuerUrl,
    clientId: f.clientId,
    ...(f.caFile ? { caFile: f.caFile } : {}),
    usernameClaim: f.usernameClaim,
    usernamePrefix: effectiveUsernamePrefix(f.issuerUrl, f.usernameClaim, f.usernamePrefix),
    groupsClaim: f.groupsClaim,
    groupsPrefix: f.groupsPrefix,
    signingAlgs,
    requiredClaims: { ...f.requiredClaims },
  };
}

// ---------------------------------------------------------------------------------------------
// tokens

const B64URL = /^[A-Za-z0-9_-]*$/;

/** The payload segment of a compact JWT as JSON, or null when it is not one (RawURLEncoding). */
export function decodeSegment(segment: string): Record<string, unknown> | null {
  if (!B64URL.test(segment)) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * kube's untrustedIssuer: the `iss` of an UNVERIFIED token (three dot-separated parts), so the
 * authenticator can tell "not my token" (another issuer, or not a JWT: leave it to the other
 * authenticators) from "my token, but invalid". Google's scheme-less issuer is coalesced.
 */
export function untrustedIssuer(token: string): string | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const payload = decodeSegment(parts[1]!);
  if (!payload) return null;
  const iss = payload.iss;
  if (iss === undefined || iss === null) return '';
  if (typeof iss !== 'string') return null;
  return iss === 'accounts.google.com' ? 'https://accounts.google.com' : iss;
}

/** A JSON number as Go's jsonTime reads it (seconds since the epoch, fractions allowed). */
function timeClaim(payload: Record<string, unknown>, name: string): number | undefined | 'invalid' {
  const v = payload[name];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v * 1000 : 'invalid';
}

/** go-oidc's audience type: one string or an array of strings. */
function audiences(v: unknown): string[] | null {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v as string[];
  return null;
}

/**
 * go-oidc's IDTokenVerifier.Verify claim checks, in its order, done before any key is fetched so
 * a wrong token costs no JWKS round trip: well-formed claims and distributed-claim references,
 * issuer, audience (the client id must be one of `aud`), expiry (a missing `exp` is expired; no
 * leeway), `nbf` (one minute's leeway), then the header's algorithm against the allowed list.
 * Returns null when the token may go on to signature verification, else the reason.
 */
export function checkIdToken(header: Record<string, unknown>, payload: Record<string, unknown>, cfg: Pick<OidcConfig, 'issuerUrl' | 'clientId' | 'signingAlgs'>, nowMs: number): string | null {
  const iss = payload.iss ?? '';
  if (typeof iss !== 'string') return 'oidc: failed to unmarshal claims: json: cannot unmarshal iss into a string';
  const aud = audiences(payload.aud);
  if (!aud) return 'oidc: failed to unmarshal claims: invalid aud';
  const exp = timeClaim(payload, 'exp');
  const nbf = timeClaim(payload, 'nbf');
  if (exp === 'invalid' || nbf === 'invalid' || timeClaim(payload, 'iat') === 'invalid') return 'oidc: failed to unmarshal claims: invalid time claim';
  const names = payload._claim_names;
  if (names !== undefined && names !== null) {
    if (typeof names !== 'object' || Array.isArray(names)) return 'oidc: failed to unmarshal claims: invalid _claim_names';
    const sources = payload._claim_sources;
    const srcMap = sources !== null && typeof sources === 'object' && !Array.isArray(sources) ? (sources as Record<string, unknown>) : {};
    for (const src of Object.values(names as Record<string, unknown>)) {
      if (typeof src !== 'string') return 'oidc: failed to unmarshal claims: invalid _claim_names';
      if (src === '') return 'oidc: failed to obtain source from claim name';
      if (!(src in srcMap)) return 'oidc: source does not exist';
    }
  }
  if (iss !== cfg.issuerUrl) return `oidc: id token issued by a different provider, expected ${JSON.stringify(cfg.issuerUrl)} got ${JSON.stringify(iss)}`;
  if (!aud.includes(cfg.clientId)) return `oidc: expected audience ${JSON.stringify(cfg.clientId)} got ${JSON.stringify(aud)}`;
  // Go's zero time for a missing exp is long past, so such a token is always expired.
  if (exp === undefined || exp < nowMs) return `oidc: token is expired (Token Expiry: ${exp === undefined ? '0001-01-01 00:00:00 +0000 UTC' : goTime(exp)})`;
  if (nbf !== undefined && nowMs + NBF_LEEWAY_MS < nbf) return `oidc: current time ${goTime(nowMs)} before the nbf (not before) time: ${goTime(nbf)}`;
  const alg = header.alg;
  if (typeof alg !== 'string' || !cfg.signingAlgs.includes(alg)) return `oidc: id token signed with unsupported algorithm, expected ${JSON.stringify(cfg.signingAlgs)} got ${JSON.stringify(alg ?? '')}`;
  return null;
}

/** A time as Go's time.Time prints it (UTC): `2006-01-02 15:04:05 +0000 UTC`. */
function goTime(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} +0000 UTC`;
}

/** Go's json.Unmarshal of a claim into a string: null leaves "" (no error), non-strings fail. */
function stringClaim(v: unknown): string | null {
  if (v === null) return '';
  return typeof v === 'string' ? v : null;
}

function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/**
 * Verified claims → user, as kube's AuthenticateToken does after verification: the username
 * claim (a string), the `email_verified` rule when that claim is `email` (present → must be
 * true), the username prefix, the groups claim (a string or an array of strings; absent → no
 * groups) with the groups prefix, then every required claim (present, a string, equal).
 * Returns the user, or the reason it is refused. `system:authenticated` is the caller's to add.
 */
export function userFromClaims(claims: Record<string, unknown>, cfg: Pick<OidcConfig, 'usernameClaim' | 'usernamePrefix' | 'groupsClaim' | 'groupsPrefix' | 'requiredClaims'>): UserInfo | { error: string } {
  if (!(cfg.usernameClaim in claims)) return { error: `oidc: parse username claims ${JSON.stringify(cfg.usernameClaim)}: claim not present` };
  let username = stringClaim(claims[cfg.usernameClaim]);
  if (username === null) return { error: `oidc: parse username claims ${JSON.stringify(cfg.usernameClaim)}: json: cannot unmarshal ${jsonTypeName(claims[cfg.usernameClaim])} into Go value of type string` };
  if (cfg.usernameClaim === 'email' && 'email_verified' in claims) {
    const v = claims.email_verified;
    if (v !== null && typeof v !== 'boolean') return { error: `oidc: parse 'email_verified' claim: json: cannot unmarshal ${jsonTypeName(v)} into Go value of type bool` };
    if (v !== true) return { error: 'oidc: email not verified' };
  }
  if (cfg.usernamePrefix) username = cfg.usernamePrefix + username;
  let groups: string[] = [];
  if (cfg.groupsClaim && cfg.groupsClaim in claims) {
    const v = claims[cfg.groupsClaim];
    if (v === null) groups = [];
    else if (Array.isArray(v) && v.every((g) => typeof g === 'string' || g === null)) groups = v.map((g) => (g === null ? '' : (g as string)));
    else if (typeof v === 'string') groups = [v];
    else return { error: `oidc: parse groups claim ${JSON.stringify(cfg.groupsClaim)}: json: cannot unmarshal ${jsonTypeName(v)} into Go value of type string` };
  }
  if (cfg.groupsPrefix) groups = groups.map((g) => cfg.groupsPrefix + g);
  for (const [claim, want] of Object.entries(cfg.requiredClaims)) {
    if (!(claim in claims)) return { error: `oidc: required claim ${claim} not present in ID token` };
    const got = stringClaim(claims[claim]);
    if (got === null) return { error: `oidc: parse claim ${claim}: json: cannot unmarshal ${jsonTypeName(claims[claim])} into Go value of type string` };
    if (got !== want) return { error: `oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}` };
  }
  return { username, groups };
}
