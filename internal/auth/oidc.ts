/**
 * OpenID Connect token authenticator (`--oidc-*`), as kube-apiserver 1.24 runs it
 * (k8s.io/apiserver/plugin/pkg/authenticator/token/oidc with coreos/go-oidc v2):
 *
 *   - the provider is discovered (`<issuer>/.well-known/openid-configuration`, whose `issuer` must
 *     equal --oidc-issuer-url exactly) IN THE BACKGROUND: the server starts even when the provider
 *     is down, a failed attempt is retried every 10 s until one succeeds, and until then every
 *     token of this issuer is refused ("oidc: authenticator not initialized");
 *   - a bearer token whose (unverified) `iss` is another issuer, or that is not a JWT, is not
 *     this authenticator's: it answers null and leaves it to the others;
 *   - claims are checked before any key is fetched (oidc-claims.ts), then the signature against
 *     the provider's JWKS. A key id the cached set lacks makes the set be fetched again, so a
 *     provider that rotates its keys is followed without a restart;
 *   - verified claims become the user (username/groups claims and prefixes, `email_verified`,
 *     required claims), with `system:authenticated`;
 *   - distributed claims (`_claim_names`/`_claim_sources`) for the groups claim are resolved from
 *     their endpoint, whose JWT is verified against its own issuer's discovery document.
 *
 * The HTTPS client trusts --oidc-ca-file when given (else the host's roots), as kube does.
 */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { certificateBlocks } from './client-ca.ts';
import { Agent, fetch as undiciFetch } from 'undici';
import { compactVerify, createRemoteJWKSet, customFetch, decodeProtectedHeader, type FetchImplementation, type JWSHeaderParameters, type RemoteJWKSet } from 'jose';
import type { Logger } from 'pino';
import type { UserInfo } from '../api/types.ts';
import { bearerToken, withAuthenticatedGroup, type Authenticator } from './authn.ts';
import { checkIdToken, decodeSegment, untrustedIssuer, userFromClaims, type OidcConfig } from './oidc-claims.ts';

/** kube's PollImmediateUntil period for the provider discovery (and distributed-claim issuers). */
export const DISCOVERY_RETRY_MS = 10_000;
/** kube's http.Client Timeout for every call to the provider. */
const HTTP_TIMEOUT_MS = 30_000;

/**
 * The PEM bundle of --oidc-ca-file, read once at start-up as kube does. Throws kube's messages:
 * a missing file, or a file without one parseable certificate.
 */
export function readOidcCaBundle(caFile: string): string {
  let text: string;
  try {
    text = readFileSync(caFile, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') throw new Error(`open ${caFile}: no such file or directory`);
    throw new Error(`open ${caFile}: ${err.message}`);
  }
  const good = certificateBlocks(text).filter((b) => {
    try {
      new X509Certificate(b);
      return true;
    } catch {
      return false;
    }
  });
  if (good.length === 0) throw new Error(`error loading CA bundle for "oidc-authenticator::${caFile}": data does not contain any valid RSA or ECDSA certificates`);
  return good.join('\n');
}

/** fetch bound to the provider's trust roots, with kube's 30 s timeout. */
function providerFetch(agent: Agent): (url: string, headers?: Record<string, string>) => Promise<Response> {
  return async (url, headers = {}) => {
    try {
      // Redirects are followed, as Go's http.Client does for discovery, JWKS and claim sources.
      return (await undiciFetch(url, { dispatcher: agent, headers, signal: AbortSignal.timeout(HTTP_TIMEOUT_MS), redirect: 'follow' })) as unknown as Response;
    } catch (e) {
      // undici says only "fetch failed"; the cause (refused, certificate, timeout) is what an
      // operator needs, in Go's `Get "<url>": <cause>` shape.
      const err = e as Error & { cause?: Error };
      throw new Error(`Get ${JSON.stringify(url)}: ${err.cause?.message ?? err.message}`);
    }
  };
}

type Fetch = ReturnType<typeof providerFetch>;

/**
 * One issuer's verifier: discovery in the background (immediately, then every `retryMs` until it
 * succeeds or close()), then signature checks against that issuer's remote JWKS.
 */
class IssuerVerifier {
  private jwks: RemoteJWKSet | null = null;
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  /** Settles when the first discovery attempt has finished (either way). */
  readonly firstAttempt: Promise<void>;

  constructor(
    readonly issuer: string,
    private readonly fetch: Fetch,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {
    this.firstAttempt = this.attempt();
  }

  get ready(): boolean {
    return this.jwks !== null;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async attempt(): Promise<void> {
    if (this.closed) return;
    try {
      const jwksUri = await this.discover();
      this.jwks = createRemoteJWKSet(new URL(jwksUri), {
        timeoutDuration: HTTP_TIMEOUT_MS,
        // go-oidc refetches the key set whenever a token's key is not in it (the provider sends
        // no cache headers): no cool-down, so a rotated key is picked up by the first token
        // that uses it; keys are never dropped on age alone (cached keys are always tried first).
        cooldownDuration: 0,
        cacheMaxAge: Infinity,
        [customFetch]: ((url: string, opts: { headers: Headers }) => this.fetch(url, Object.fromEntries(opts.headers.entries()))) as FetchImplementation,
      });
      this.log.info({ issuer: this.issuer }, 'oidc authenticator: provider discovered');
    } catch (e) {
      this.log.error({ issuer: this.issuer, err: (e as Error).message }, 'oidc authenticator: initializing plugin');
      if (this.closed) return;
      this.timer = setTimeout(() => void this.attempt(), this.retryMs);
      this.timer.unref();
    }
  }

  /** go-oidc NewProvider: the discovery document, whose issuer must be ours exactly. */
  private async discover(): Promise<string> {
    const wellKnown = `${this.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const res = await this.fetch(wellKnown);
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${res.status} ${res.statusText}: ${body}`);
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = JSON.parse(body) as typeof doc;
    } catch (e) {
      throw new Error(`oidc: failed to decode provider discovery object: ${(e as Error).message}`);
    }
    if (doc.issuer !== this.issuer) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.issuer)} got ${JSON.stringify(doc.issuer ?? '')}`);
    if (typeof doc.jwks_uri !== 'string') throw new Error('oidc: provider discovery object has no jwks_uri');
    return doc.jwks_uri;
  }

  /**
   * Claims checks, then the signature; resolves to the verified claims or throws with the reason.
   * When several keys of the set match the header (no `kid`), each is tried, as go-oidc does.
   */
  async verify(token: string, cfg: Pick<OidcConfig, 'clientId' | 'signingAlgs'>): Promise<Record<string, unknown>> {
    const jwks = this.jwks;
    if (!jwks) throw new Error(`verifier not initialized for issuer: ${JSON.stringify(this.issuer)}`);
    const parts = token.split('.');
    let header: JWSHeaderParameters;
    try {
      header = decodeProtectedHeader(token) as JWSHeaderParameters;
    } catch (e) {
      throw new Error(`oidc: malformed jwt: ${(e as Error).message}`);
    }
    const payload = parts.length === 3 ? decodeSegment(parts[1]!) : null;
    if (!payload) throw new Error('oidc: malformed jwt: invalid payload');
    const reason = checkIdToken(header as Record<string, unknown>, payload, { issuerUrl: this.issuer, ...cfg }, Date.now());
    if (reason) throw new Error(reason);
    try {
      await compactVerify(token, jwks, { algorithms: cfg.signingAlgs });
    } catch (e) {
      const err = e as Error & { code?: string; [Symbol.asyncIterator]?: () => AsyncIterator<CryptoKey> };
      if (err.code !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS' || !err[Symbol.asyncIterator]) {
        // go-oidc's words: no key of the (refetched) set verifies it, or the set could not be had.
        if (err.code === 'ERR_JWKS_NO_MATCHING_KEY' || err.code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') throw new Error('failed to verify signature: failed to verify id token signature');
        throw new Error(`failed to verify signature: fetching keys oidc: get keys failed ${err.message}`);
      }
      let verified = false;
      for await (const key of err as unknown as AsyncIterable<CryptoKey>) {
        try {
          await compactVerify(token, key, { algorithms: cfg.signingAlgs });
          verified = true;
          break;
        } catch {
          /* next key */
        }
      }
      if (!verified) throw new Error('failed to verify signature: failed to verify id token signature');
    }
    return payload;
  }
}

/**
 * Resolves a distributed groups claim (kube's claimResolver): when the token lacks the claim but
 * `_claim_names` maps it to a source with an endpoint, the endpoint's JWT (fetched with the
 * source's access token) is verified against ITS issuer — discovered on first use — with the
 * same client id and algorithms, and its value of the claim is taken. Aggregated claims (a JWT
 * inline, no endpoint) are ignored, as in kube.
 */
class ClaimResolver {
  private readonly verifiers = new Map<string, IssuerVerifier>();

  constructor(
    private readonly claim: string,
    private readonly fetch: Fetch,
    private readonly log: Logger,
    private readonly retryMs: number,
  ) {}

  close(): void {
    for (const v of this.verifiers.values()) v.close();
  }

  async expand(claims: Record<string, unknown>, cfg: Pick<OidcConfig, 'clientId' | 'signingAlgs'>): Promise<void> {
    if (this.claim in claims) return;
    const names = claims._claim_names;
    if (names === undefined) return;
    if (names === null || typeof names !== 'object' || Array.isArray(names)) throw new Error('oidc: error parsing distributed claim names');
    const sources = claims._claim_sources;
    if (sources === undefined) throw new Error('oidc: no claim sources');
    if (sources === null || typeof sources !== 'object' || Array.isArray(sources)) throw new Error('oidc: could not parse claim sources');
    const src = (names as Record<string, unknown>)[this.claim];
    if (src === undefined) return;
    const ep = (sources as Record<string, unknown>)[String(src)] as { endpoint?: unknown; access_token?: unknown } | undefined;
    if (!ep) throw new Error(`id token _claim_names contained a source ${String(src)} missing in _claims_sources`);
    if (typeof ep.endpoint !== 'string' || ep.endpoint === '') return;
    const headers: Record<string, string> = typeof ep.access_token === 'string' && ep.access_token ? { authorization: `Bearer ${ep.access_token}` } : {};
    const res = await this.fetch(ep.endpoint, headers);
    const jwt = await res.text();
    if (res.status < 200 || res.status > 226) throw new Error(`while getting distributed claim ${JSON.stringify(this.claim)}: error while getting distributed claim JWT: ${res.status} ${res.statusText}`);
    const iss = untrustedIssuer(jwt);
    if (iss === null) throw new Error(`getting untrusted issuer from endpoint ${ep.endpoint} failed for claim ${JSON.stringify(this.claim)}`);
    let v = this.verifiers.get(iss);
    if (!v) {
      v = new IssuerVerifier(iss, this.fetch, this.log, this.retryMs);
      this.verifiers.set(iss, v);
    }
    // kube starts this issuer's discovery in a goroutine and races it against the first lookup
    // (which then usually fails); waiting for the first attempt makes the outcome deterministic.
    await v.firstAttempt;
    const dist = await v.verify(jwt, cfg);
    if (!(this.claim in dist)) throw new Error(`jwt returned by distributed claim endpoint ${JSON.stringify(ep.endpoint)} did not contain claim: ${this.claim}`);
    claims[this.claim] = dist[this.claim];
  }
}

export interface OidcAuthenticator extends Authenticator {
  /** Stops the background discovery retries (idempotent). */
  close(): void;
  /** True once the provider has been discovered (tests and health only). */
  readonly ready: boolean;
}

export interface OidcAuthenticatorOptions {
  /** The trust roots, PEM (from readOidcCaBundle); absent → the host's root CAs. */
  caPem?: string;
  /** Discovery retry period (default kube's 10 s). */
  retryMs?: number;
}

/**
 * The `--oidc-*` authenticator. Returns at once; discovery runs in the background. A request
 * whose bearer token names this issuer and fails any check is a 401 (the reason is logged, never
 * the token).
 */
export function oidcAuthenticator(cfg: OidcConfig, log: Logger, opts: OidcAuthenticatorOptions = {}): OidcAuthenticator {
  const agent = new Agent({ connect: opts.caPem ? { ca: opts.caPem } : {} });
  const fetch = providerFetch(agent);
  const retryMs = opts.retryMs ?? DISCOVERY_RETRY_MS;
  const verifier = new IssuerVerifier(cfg.issuerUrl, fetch, log, retryMs);
  const resolver = cfg.groupsClaim ? new ClaimResolver(cfg.groupsClaim, fetch, log, retryMs) : null;
  const reject = (reason: string): never => {
    log.info({ err: reason }, 'Unable to authenticate the request due to an error');
    // The reason, as kube's authenticator returns it: a request still gets a plain 401 (the
    // bearer-token filter answers Unauthorized whatever the error), TokenReview shows it in
    // status.error.
    throw new Error(reason);
  };
  return {
    get ready() {
      return verifier.ready;
    },
    close() {
      verifier.close();
      resolver?.close();
      void agent.close();
    },
    async authenticate(req): Promise<UserInfo | null> {
      const token = bearerToken(req.headers);
      if (token === undefined) return null;
      if (untrustedIssuer(token) !== cfg.issuerUrl) return null;
      if (!verifier.ready) return reject('oidc: authenticator not initialized');
      let claims: Record<string, unknown>;
      try {
        claims = await verifier.verify(token, cfg);
      } catch (e) {
        return reject(`oidc: verify token: ${(e as Error).message}`);
      }
      if (resolver) {
        try {
          await resolver.expand(claims, cfg);
        } catch (e) {
          return reject(`oidc: could not expand distributed claims: ${(e as Error).message}`);
        }
      }
      const user = userFromClaims(claims, cfg);
      if ('error' in user) return reject(user.error);
      return withAuthenticatedGroup({ username: user.username, groups: user.groups });
    },
  };
}
