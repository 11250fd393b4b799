/**
 * A REAL OpenID Connect provider for the OIDC authentication suites: the `oidc-provider` package
 * (a certified OP implementation) served over HTTPS on 127.0.0.1 with a test CA (made with
 * internal/auth/pki.ts), issuing real id_tokens through the real authorization-code flow:
 * /auth → the provider's own login interaction (devInteractions: a form that signs in any
 * account id) → redirect with a code → /token (client_secret_basic + PKCE) → id_token.
 * Consent is pre-granted (loadExistingGrant) so no second form is needed.
 *
 * What the suites change between tokens, all of it through the provider itself:
 *   - `accounts`: the claims each account id gets (email, email_verified, groups, tenant, …);
 *   - `idTokenTtl`: the id_token lifetime in seconds (1 → a token that expires under test);
 *   - `reconfigure({ kubeAlg, rotateKeys })`: a new provider instance takes over the same
 *     listener — with fresh signing keys (key rotation), or signing the `kube` client's tokens
 *     with another algorithm;
 *   - `stop()` / `listen()`: the provider down and up again on the same port.
 *
 * Distributed claims: `distributedGroups(holder)` gives the `_claim_names`/`_claim_sources` pair
 * that points an account's groups claim at `<issuer>/claims/<holder>`, an endpoint served beside
 * the provider that answers (to the right access token) with a real id_token the provider issues
 * to the `kube` client for the account `holder` — whose `groups` are the distributed value.
 */
import { createServer, type Server } from 'node:https';
import { createHash, randomBytes, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import Provider, { type OidcContext } from 'oidc-provider';
import { ensurePki, type Pki } from '../internal/auth/pki.ts';

export interface AccountClaims {
  email?: unknown;
  email_verified?: unknown;
  groups?: unknown;
  tenant?: unknown;
  [claim: string]: unknown;
}

export const REDIRECT_URI = 'https://client.test/callback';
/** Clients registered at the provider: `kube` is the API server's --oidc-client-id. */
export const CLIENTS = { kube: 'kube-secret', other: 'other-secret' } as const;
export type ClientId = keyof typeof CLIENTS;
/** The access token the distributed-claims endpoint wants. */
export const CLAIMS_ACCESS_TOKEN = 'claims-endpoint-token';

interface SigningKeys {
  rsa: Record<string, unknown>;
  ec: Record<string, unknown>;
}

function newSigningKeys(): SigningKeys {
  const kid = randomBytes(6).toString('hex');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return { rsa: { ...rsa, kid: `rsa-${kid}`, use: 'sig' }, ec: { ...ec, kid: `ec-${kid}`, use: 'sig' } };
}

export interface TestProvider {
  issuer: string;
  port: number;
  /** PEM of the CA that signed the provider's serving certificate (--oidc-ca-file). */
  caFile: string;
  pki: Pki;
  accounts: Map<string, AccountClaims>;
  idTokenTtl: number;
  /** The `kid`s of the signing keys now published. */
  kids(): string[];
  listen(): Promise<void>;
  stop(): Promise<void>;
  reconfigure(opts: { kubeAlg?: string; rotateKeys?: boolean }): void;
  /** Claims that make `groups` a distributed claim resolved from account `holder`'s id_token. */
  distributedGroups(holder: string): AccountClaims;
  /** A real id_token for `accountId`, issued to `clientId` through the authorization-code flow. */
  idToken(accountId: string, clientId?: ClientId): Promise<string>;
  close(): Promise<void>;
}

/**
 * Create a provider on 127.0.0.1:`port` (0 = pick a free one now) whose TLS material lives in
 * `pkiDir`. It is NOT listening yet: call listen().
 */
export async function createTestProvider(pkiDir: string, port = 0): Promise<TestProvider> {
  const pki = await ensurePki(pkiDir);
  if (port === 0) {
    // Reserve a free port now, so the issuer URL is known before the provider serves.
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
  }
  const issuer = `https://127.0.0.1:${port}`;
  const accounts = new Map<string, AccountClaims>();
  let keys = newSigningKeys();
  let kubeAlg = 'RS256';
  const state = { idTokenTtl: 600 };
  let handler: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

  const build = (): void => {
    const provider = new Provider(issuer, {
      clients: (Object.keys(CLIENTS) as ClientId[]).map((id) => ({
        client_id: id,
        client_secret: CLIENTS[id],
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        id_token_signed_response_alg: id === 'kube' ? kubeAlg : 'RS256',
      })),
      jwks: { keys: [keys.rsa, keys.ec] as never },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], groups: ['groups'], tenant: ['tenant', 'region'] },
      // Put the scopes' claims in the id_token itself (not only at userinfo): the API server
      // sees nothing else.
      conformIdTokenClaims: false,
      cookies: { keys: ['oidc-test-cookie-key'] },
      // Explicit lifetimes (the provider warns about each default it falls back on).
      ttl: { IdToken: () => state.idTokenTtl, AccessToken: 600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
      features: { devInteractions: { enabled: true } },
      async findAccount(_ctx: OidcContext, sub: string) {
        const claims = accounts.get(sub);
        if (!claims) return undefined;
        return { accountId: sub, claims: async () => ({ sub, ...claims }) };
      },
      // First-party clients: consent is granted, so the only interaction is the login form.
      async loadExistingGrant(ctx: OidcContext) {
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
        grant.addOIDCScope('openid email groups tenant');
        await grant.save();
        return grant;
      },
    });
    const cb = provider.callback();
    handler = (req, res) => void cb(req, res);
  };
  build();

  const server: Server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (req, res) => {
    const m = /^\/claims\/([^/?]+)$/.exec(req.url ?? '');
    if (!m) return handler(req, res);
    // The distributed-claims endpoint (OIDC Core 5.6.2): a signed JWT carrying the claim.
    if (req.headers.authorization !== `Bearer ${CLAIMS_ACCESS_TOKEN}`) {
      res.writeHead(401).end();
      return;
    }
    idToken(decodeURIComponent(m[1]!)).then(
      (jwt) => res.writeHead(200, { 'content-type': 'application/jwt' }).end(jwt),
      (e: Error) => res.writeHead(500).end(e.message),
    );
  });
  const agent = new Agent({ connect: { ca: pki.caCertPem } });

  async function idToken(accountId: string, clientId: ClientId = 'kube'): Promise<string> {
    const jar = new Map<string, { value: string; path: string }>();
    const cookieHeader = (path: string): string =>
      [...jar].filter(([, c]) => path.startsWith(c.path)).map(([n, c]) => `${n}=${c.value}`).join('; ');
    const call = async (method: 'GET' | 'POST', url: string, body?: string, headers: Record<string, string> = {}) => {
      const u = new URL(url, issuer);
      const res = await request(u, {
        method,
        dispatcher: agent,
        body,
        headers: { cookie: cookieHeader(u.pathname), ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      });
      const text = await res.body.text();
      const set = res.headers['set-cookie'];
      for (const line of Array.isArray(set) ? set : set ? [set] : []) {
        const [pair, ...attrs] = line.split(';');
        const eq = pair!.indexOf('=');
        const path = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
        jar.set(pair!.slice(0, eq).trim(), { value: pair!.slice(eq + 1), path });
      }
      return { status: res.statusCode, location: res.headers.location as string | undefined, text };
    };
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const auth = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      scope: 'openid email groups tenant',
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      nonce: randomBytes(8).toString('hex'),
      state: 's',
    });
    let r = await call('GET', `/auth?${auth}`);
    if (!r.location?.includes('/interaction/')) throw new Error(`authorization did not ask for a login: ${r.status} ${r.text}`);
    r = await call('POST', r.location, new URLSearchParams({ prompt: 'login', login: accountId, password: 'x' }).toString());
    if (!r.location) throw new Error(`login failed: ${r.status} ${r.text}`);
    r = await call('GET', r.location);
    if (!r.location?.startsWith(REDIRECT_URI)) throw new Error(`no code after login: ${r.status} ${r.location} ${r.text}`);
    const code = new URL(r.location).searchParams.get('code');
    if (!code) throw new Error(`no code in ${r.location}`);
    const basic = Buffer.from(`${clientId}:${CLIENTS[clientId]}`).toString('base64');
    const tok = await call('POST', '/token', new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier }).toString(), { authorization: `Basic ${basic}` });
    const idt = (JSON.parse(tok.text) as { id_token?: string }).id_token;
    if (!idt) throw new Error(`token endpoint gave no id_token: ${tok.status} ${tok.text}`);
    return idt;
  }

  let listening = false;
  async function stop(): Promise<void> {
    if (!listening) return;
    listening = false;
    const closed = new Promise((r) => server.close(r));
    server.closeAllConnections();
    await closed;
  }
  return {
    issuer,
    port,
    caFile: `${pki.dir}/ca.crt`,
    pki,
    accounts,
    get idTokenTtl() {
      return state.idTokenTtl;
    },
    set idTokenTtl(v: number) {
      state.idTokenTtl = v;
    },
    distributedGroups: (holder) => ({
      _claim_names: { groups: 'src1' },
      _claim_sources: { src1: { endpoint: `${issuer}/claims/${encodeURIComponent(holder)}`, access_token: CLAIMS_ACCESS_TOKEN } },
    }),
    kids: () => [keys.rsa.kid as string, keys.ec.kid as string],
    async listen() {
      if (listening) return;
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      listening = true;
    },
    stop,
    reconfigure(opts) {
      if (opts.rotateKeys) keys = newSigningKeys();
      if (opts.kubeAlg) kubeAlg = opts.kubeAlg;
      build();
    },
    idToken,
    async close() {
      await stop();
      await agent.close();
    },
  };
}
