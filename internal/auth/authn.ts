/**
 * Authentication stage: turns request credentials into a UserInfo.
 *
 * Contract of every Authenticator (mirrors k8s.io/apiserver authenticator.Request):
 *   - resolves to a UserInfo when the request carries valid credentials of its kind;
 *   - resolves to null when the request carries no credentials of its kind;
 *   - throws `unauthorized()` when credentials of its kind were presented but are invalid.
 * The union tries each in turn: the first success wins; if none succeeds, the first error is
 * thrown, and null (anonymous) is returned only when nobody saw any credentials.
 */
import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import type { UserInfo } from '../api/types.ts';
import { ApiError, unauthorized } from '../api/errors.ts';

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The client certificate, null/undefined when none was presented. */
  peerCertificate?: PeerCertificate | null;
  /** True when the TLS layer verified the client certificate against the client CA. */
  certAuthorized: boolean;
  /** The request's header lines as received (name, value, …): repeated headers stay apart. */
  rawHeaders?: string[];
  /**
   * Audiences the credentials must be meant for (kube's authenticator.WithAudiences); absent: the
   * server's --api-audiences, if any. TokenReview sets them from spec.audiences.
   */
  audiences?: string[];
  /**
   * Audit annotations an authenticator records (kube's audit.AddAuditAnnotation during
   * authentication, e.g. `authentication.k8s.io/legacy-token`); absent when nobody collects them.
   */
  annotations?: Record<string, string>;
}

export interface Authenticator {
  /**
   * The user, or null when the request carries none of this authenticator's credentials. May
   * answer synchronously (a client certificate: no promise, no microtask turn per request); a
   * failure is always a rejected promise, never a synchronous throw.
   */
  authenticate(req: AuthRequest): Promise<UserInfo | null> | UserInfo | null;
}

export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS_USER = 'system:anonymous';

/**
 * kube's AuthenticatedGroupAdder, which wraps every request authenticator (client certificates,
 * front proxy, tokens, OIDC, webhook): every authenticated user but the anonymous one, and one
 * already in system:authenticated or system:unauthenticated, gets system:authenticated appended.
 */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.username === ANONYMOUS_USER) return user;
  if (user.groups.some((g) => g === SYSTEM_AUTHENTICATED || g === SYSTEM_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, SYSTEM_AUTHENTICATED] };
}

/** Distinct, non-empty groups (a certificate's O values, a token file's group column). */
const distinctGroups = (groups: string[]): string[] => groups.filter((g, i) => g !== '' && groups.indexOf(g) === i);

/** First value of a header, looked up case-insensitively. */
export function headerValue(headers: AuthRequest['headers'], name: string): string | undefined {
  const lower = name.toLowerCase();
  let v = headers[lower];
  if (v === undefined) {
    for (const k of Object.keys(headers)) {
      if (k.toLowerCase() === lower) {
        v = headers[k];
        break;
      }
    }
  }
  return Array.isArray(v) ? v[0] : v;
}

// ---------------------------------------------------------------------------------------------
// x509 client certificates

function rdnValues(v: string | string[] | undefined): string[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * Client-certificate authenticator. The TLS layer does the verification (server `ca` = client CA,
 * requestCert, rejectUnauthorized:false); this reads the result: username = subject CN, groups =
 * subject O values. A certificate that failed verification is an error (401); a verified one
 * without a CN counts as no credentials, as in kube-apiserver.
 */
export function x509Authenticator(verifier?: { verify(cert: PeerCertificate): { ok: boolean } }): Authenticator {
  // peerOf caches one PeerCertificate object per TLS connection, so this cache makes the subject
  // parsing and fingerprint hashing once-per-connection work instead of once-per-request.
  const users = new WeakMap<PeerCertificate, UserInfo | null>();
  return {
    authenticate(req) {
      const cert = req.peerCertificate;
      if (!cert || Object.keys(cert).length === 0) return null;
      // With a verifier (--client-ca-file's bundle) the chain is checked against the client CAs
      // alone: the TLS layer also accepts the requestheader CAs, whose certificates are no users.
      let verified: boolean;
      try {
        verified = verifier ? verifier.verify(cert).ok : req.certAuthorized === true;
      } catch (e) {
        return Promise.reject(e);
      }
      if (!verified) return Promise.reject(unauthorized());
      const known = users.get(cert);
      if (known !== undefined) return known;
      const user = userOfCert(cert);
      users.set(cert, user);
      return user;
    },
  };
}

function userOfCert(cert: PeerCertificate): UserInfo | null {
  const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
  const cns = rdnValues(subject.CN);
  // Go's pkix.Name keeps the last CN when there are several.
  const username = cns.length ? cns[cns.length - 1]! : '';
  if (!username) return null;
  // 1.24's x509 authenticator sets name and groups only (the credential-id extra is a later release's).
  return withAuthenticatedGroup({ username, groups: distinctGroups(rdnValues(subject.O)) });
}

// ---------------------------------------------------------------------------------------------
// bearer tokens

const WS_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

/**
 * Bearer token of a request, as kube-apiserver reads it: `Authorization: Bearer <token>` (scheme
 * case-insensitive), else a websocket subprotocol `base64url.bearer.authorization.k8s.io.<b64url>`.
 * Returns undefined when the request carries no bearer token at all (e.g. Basic auth); an empty
 * token (`Bearer ` with nothing after it) also counts as none, like kube.
 */
export function bearerToken(headers: AuthRequest['headers']): string | undefined {
  const auth = headerValue(headers, 'authorization')?.trim();
  if (auth) {
    const parts = auth.split(' ');
    if (parts.length >= 2 && parts[0]!.toLowerCase() === 'bearer') {
      const token = parts[1]!;
      return token.length ? token : undefined;
    }
    return undefined;
  }
  const protocols = headerValue(headers, 'sec-websocket-protocol');
  if (protocols) {
    for (const p of protocols.split(',')) {
      const t = p.trim();
      if (t.startsWith(WS_PROTOCOL_PREFIX)) {
        const enc = t.slice(WS_PROTOCOL_PREFIX.length);
        if (!/^[A-Za-z0-9_-]+$/.test(enc)) throw unauthorized();
        const token = Buffer.from(enc, 'base64url').toString('utf8');
        return token.length ? token : undefined;
      }
    }
  }
  return undefined;
}

export interface TokenEntry {
  token: string;
  user: UserInfo;
}

/** Split CSV text into records the way Go's encoding/csv does (RFC 4180, blank lines skipped). */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let line = 1;
  let atFieldStart = true;
  let inRecord = false;
  const n = text.length;
  const endField = () => {
    record.push(field);
    field = '';
    atFieldStart = true;
  };
  const endRecord = () => {
    endField();
    records.push(record);
    record = [];
    inRecord = false;
  };
  while (i < n) {
    const c = text[i]!;
    if (atFieldStart && c === '"') {
      // quoted field
      inRecord = true;
      atFieldStart = false;
      i++;
      for (;;) {
        if (i >= n) throw new Error(`line ${line}: extraneous or missing " in quoted-field`);
        const q = text[i]!;
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (q === '\r' && text[i + 1] === '\n') {
          i++;
          continue;
        }
        if (q === '\n') line++;
        field += q;
        i++;
      }
      const next = text[i];
      if (next === undefined) continue;
      if (next === ',') {
        endField();
        i++;
        continue;
      }
      if (next === '\n' || (next === '\r' && text[i + 1] === '\n')) continue;
      throw new Error(`line ${line}: extraneous or missing " in quoted-field`);
    }
    if (c === ',') {
      inRecord = true;
      endField();
      i++;
      continue;
    }
    if (c === '\r' && text[i + 1] === '\n') {
      i++;
      continue;
    }
    if (c === '\n') {
      if (inRecord || !atFieldStart) endRecord();
      line++;
      i++;
      continue;
    }
    if (c === '"') throw new Error(`line ${line}: bare " in non-quoted-field`);
    inRecord = true;
    atFieldStart = false;
    field += c;
    i++;
  }
  if (inRecord || !atFieldStart) endRecord();
  return records;
}

/**
 * Parse a kube-apiserver `--token-auth-file`: CSV rows `token,user,uid[,"group1,group2"]`.
 * Rows with fewer than 3 columns are an error; rows with an empty token are skipped; a duplicated
 * token keeps its last row. Groups get `system:authenticated` appended.
 */
export function parseTokenFile(text: string, source = 'token file'): Map<string, UserInfo> {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (e) {
    throw new Error(`${source}: ${(e as Error).message}`);
  }
  const tokens = new Map<string, UserInfo>();
  for (const record of records) {
    if (record.length < 3) {
      throw new Error(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    const [token, username, uid, groupField] = record as [string, string, string, string | undefined];
    if (token === '') continue;
    const groups = groupField === undefined ? [] : groupField.split(',').map((g) => g.trim());
    const user = withAuthenticatedGroup({ username, groups: distinctGroups(groups) });
    if (uid !== '') user.uid = uid;
    tokens.set(token, user);
  }
  return tokens;
}

/** Authenticator over an in-memory token table (what tokenFileAuthenticator builds). */
export function staticTokenAuthenticator(tokens: Map<string, UserInfo>): Authenticator {
  return {
    async authenticate(req) {
      const token = bearerToken(req.headers);
      if (token === undefined) return null;
      const user = tokens.get(token);
      if (!user) throw unauthorized();
      return { ...user, groups: [...user.groups], ...(user.extra ? { extra: { ...user.extra } } : {}) };
    },
  };
}

/** `--token-auth-file` authenticator. The file is read once, synchronously; errors throw here. */
export function tokenFileAuthenticator(csvPath: string): Authenticator {
  return staticTokenAuthenticator(parseTokenFile(readFileSync(csvPath, 'utf8'), csvPath));
}

// ---------------------------------------------------------------------------------------------
// union

/** First success wins; otherwise the first error is thrown; null only if nobody saw credentials. */
export function unionAuthenticator(list: Authenticator[]): Authenticator {
  /** The union's answer from authenticator `i`, whose answer `pending` is a promise, on. */
  const rest = async (req: AuthRequest, i: number, pending: Promise<UserInfo | null>): Promise<UserInfo | null> => {
    let firstError: unknown;
    for (let j = i; j < list.length; j++) {
      try {
        const user = await (j === i ? pending : list[j]!.authenticate(req));
        if (user) return user;
      } catch (e) {
        if (firstError === undefined) firstError = e;
      }
    }
    if (firstError !== undefined) throw firstError instanceof ApiError ? firstError : unauthorized();
    return null;
  };
  return {
    // Synchronous while every authenticator asked answers synchronously (a client certificate
    // comes first); from the first promise on (a failure is one too), the rest in order as before.
    authenticate(req) {
      for (let i = 0; i < list.length; i++) {
        let user: Promise<UserInfo | null> | UserInfo | null;
        try {
          user = list[i]!.authenticate(req);
        } catch (e) {
          user = Promise.reject(e);
        }
        if (user instanceof Promise) return rest(req, i, user);
        if (user) return user;
      }
      return null;
    },
  };
}

/**
 * --anonymous-auth's answer for a request no authenticator took: kube's bearer-token filter makes
 * a presented token nobody accepted invalid (401, a rejected promise), never anonymous.
 */
function anonymous(req: AuthRequest): Promise<never> | UserInfo {
  if (/^bearer\s/i.test(headerValue(req.headers, 'authorization') ?? '')) return Promise.reject(unauthorized());
  return { ...ANONYMOUS, groups: [...ANONYMOUS.groups] };
}

/** kube's anonymous user (--anonymous-auth, on by default). */
export const ANONYMOUS: UserInfo = { username: ANONYMOUS_USER, groups: [SYSTEM_UNAUTHENTICATED] };

/**
 * --anonymous-auth: a request that presents no credentials at all is system:anonymous (what it may
 * do is up to authorization: RBAC grants it the health and version endpoints). Credentials that
 * fail stay a 401.
 */
export function withAnonymous(inner: Authenticator): Authenticator {
  return {
    authenticate(req) {
      const user = inner.authenticate(req);
      return user instanceof Promise ? user.then((u) => u ?? anonymous(req)) : user ?? anonymous(req);
    },
  };
}
