/**
 * Start-up steps of authentication: the client-certificate and front-proxy trust (read before
 * anything starts: a bad bundle is a start-up error), OIDC, the token authenticators, and their
 * union in kube's order.
 */
import { join } from 'node:path';
import type pino from 'pino';
import type { Pki } from '../auth/pki.ts';
import { x509Authenticator, unionAuthenticator, withAnonymous, type Authenticator } from '../auth/authn.ts';
import { ClientCertVerifier, DynamicCaBundle, parseCaBundle, staticCaSource, type CaSource } from '../auth/client-ca.ts';
import { requestHeaderAuthenticator, requestHeaderConfig } from '../auth/requestheader.ts';
import type { Registry } from '../registry/registry.ts';
import { buildTokenAuthentication, type TokenAuthSlots } from './token-auth.ts';
import { tokenFromRequestAuthenticator } from '../auth/token/token.ts';
import { untrustedIssuer } from '../auth/oidc-claims.ts';
import type { LeaderClient, LeaderServices } from './leader-services.ts';
import type { ServiceAccountTokens } from './service-accounts.ts';
import type { ServerOptions } from './options.ts';

/** Whom client certificates and the authenticating proxy are trusted from. */
export interface ClientTrust {
  clientCA: CaSource;
  requestHeader: ReturnType<typeof requestHeaderConfig> | undefined;
  /** Every CA a TLS client may present a certificate from (PEM each). */
  tlsCas(): string[];
}

/**
 * kube has no client-certificate authentication without --client-ca-file; this server always
 * issues an admin certificate, so its own CA is the default, and a given bundle replaces it.
 * Bundle files are re-read when they change (kube's dynamic CA content); a bad rewrite is logged
 * and the previous bundle stays.
 */
export function clientTrust(opts: ServerOptions, pki: Pki, log: pino.Logger): ClientTrust {
  const reloadError = (err: Error): void => log.error({ err: err.message }, 'CA bundle reload failed; the previous bundle stays in force');
  const clientCA: CaSource = opts.clientCaFile ? DynamicCaBundle.load(opts.clientCaFile, 'client-ca-bundle', reloadError) : staticCaSource(parseCaBundle(pki.caCertPem, `client-ca-bundle::${join(pki.dir, 'ca.crt')}`));
  const requestHeader = opts.requestHeader?.clientCaFile ? requestHeaderConfig(opts.requestHeader, reloadError) : undefined;
  const ownCa = parseCaBundle(pki.caCertPem, 'pki')[0]!;
  if (!clientCA.certificates.some((c) => c.raw.equals(ownCa.raw))) log.warn({ clientCaFile: opts.clientCaFile }, '--client-ca-file does not include this server\'s CA: the admin certificate of the generated kubeconfig will not authenticate');
  return { clientCA, requestHeader, tlsCas: () => [...clientCA.certificates, ...(requestHeader?.ca.certificates ?? [])].map((c) => c.toString()) };
}

/**
 * The OIDC token authenticator, or null when OIDC is not configured. kube reads --oidc-ca-file
 * when it builds the authenticator, before serving: a bad file is a start-up error. Its discovery
 * starts now, in the background. auth/oidc.ts (jose and an HTTP client, ~75 ms to load) is loaded
 * only when OIDC is configured.
 */
export async function oidcAuthentication(opts: ServerOptions, log: pino.Logger) {
  // A serving thread asks its leader's (sharedTokenAuthenticators): one discovery, one key set.
  if (!opts.oidc || opts.follower) return null;
  const oidcModule = await import('../auth/oidc.ts');
  const caPem = opts.oidc.caFile ? oidcModule.readOidcCaBundle(opts.oidc.caFile) : undefined;
  return oidcModule.oidcAuthenticator(opts.oidc, log, { caPem });
}

/**
 * `--workers N`: kube keeps one OIDC authenticator (one provider discovery with its 10 s retries,
 * one key set) and one token-webhook cache per process (token-auth.ts's `shared`). The leader
 * (`services`) offers its own to the serving threads; a thread (`leader`) asks the leader's for
 * every token its own authenticators do not take — without a webhook, only a token whose
 * unverified issuer is --oidc-issuer-url, as the OIDC authenticator itself decides. Neither: one
 * thread, each authenticator as is.
 */
export function sharedTokenAuthenticators(opts: ServerOptions, oidc: Awaited<ReturnType<typeof oidcAuthentication>>, via: { services?: LeaderServices; leader?: LeaderClient }): Pick<TokenAuthSlots, 'oidc' | 'shared'> {
  const { services, leader } = via;
  const slots: Pick<TokenAuthSlots, 'oidc' | 'shared'> = oidc ? { oidc: tokenFromRequestAuthenticator(oidc) } : {};
  if (services) {
    slots.shared = (make) => {
      const a = make();
      return a && services.offerTokenAuthenticator('tokens', a);
    };
  } else if (leader) {
    const issuer = opts.oidc?.issuerUrl;
    const webhook = Boolean(opts.tokenAuth?.webhookConfigFile);
    const leaders = leader.tokenAuthenticator('tokens');
    slots.shared = () => {
      if (webhook) return leaders;
      if (issuer === undefined) return undefined;
      return { authenticateToken: async (token, ctx) => (untrustedIssuer(token) === issuer ? leaders.authenticateToken(token, ctx) : null) };
    };
  }
  return slots;
}

/**
 * The token authenticators (kube's order, cached union), read and checked before anything starts:
 * asked by the bearer-token filter and by TokenReview. The service-account JWT authenticators take
 * their slot after the token file; the API audiences are --api-audiences, or the service-account
 * issuers (kube's default). Bootstrap tokens read Secrets through the registry, built later.
 */
export function tokenAuthentication(opts: ServerOptions, saTokens: ServiceAccountTokens, shared: ReturnType<typeof sharedTokenAuthenticators>, registry: () => Registry | undefined, log: pino.Logger) {
  return buildTokenAuthentication({ ...opts.tokenAuth, tokenAuthFile: opts.tokenAuthFile, apiAudiences: opts.tokenAuth?.apiAudiences ?? saTokens.config.apiAudiences }, registry, log, {
    ...shared,
    serviceAccounts: saTokens.tokenAuthenticators,
  });
}

/**
 * kube's order: the front proxy first, then client certificates, then bearer tokens (the token
 * authenticators' union, internal/app/token-auth.ts: token file, bootstrap, OIDC, webhook);
 * anonymous last unless --anonymous-auth=false.
 */
export function requestAuthenticator(opts: ServerOptions, trust: ClientTrust, bearer: Authenticator | undefined): Authenticator {
  const authenticators: Authenticator[] = [x509Authenticator(new ClientCertVerifier(trust.clientCA))];
  if (trust.requestHeader) authenticators.unshift(requestHeaderAuthenticator(trust.requestHeader));
  if (bearer) authenticators.push(bearer);
  return opts.anonymousAuth === false ? unionAuthenticator(authenticators) : withAnonymous(unionAuthenticator(authenticators));
}
