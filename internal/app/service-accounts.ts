/**
 * One server's ServiceAccount token machinery, built from the flags at start-up: the issuer
 * (TokenRequest and the tokens controller sign with it), the two token authenticators (legacy and
 * bound, for the authentication union), and the issuer discovery documents.
 *
 *   flags ─► resolveServiceAccountConfig ─► { signing key, public keys, issuers, audiences }
 *              ├─► tokenRequest   (serviceaccounts/token)       ┐
 *              ├─► legacyGenerator (tokens controller)          ├─ getter ─► registry (attached later)
 *              ├─► tokenAuthenticators (legacy + bound JWT)     ┘
 *              └─► discovery      (/.well-known/openid-configuration, /openid/v1/jwks)
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from '../registry/registry.ts';
import type { TokenRequestDeps } from '../registry/core/serviceaccount-token.ts';
import type { OpenIdDiscovery } from '../http/openid-discovery.ts';
import { PKI_FILES } from '../auth/pki.ts';
import { resolveServiceAccountConfig, type ServiceAccountConfig, type ServiceAccountFlags } from '../auth/serviceaccount/options.ts';
import { jwtTokenGenerator, LEGACY_ISSUER, type TokenGenerator } from '../auth/serviceaccount/tokens.ts';
import { RegistryTokenGetter } from './service-account-getter.ts';
import { serviceAccountTokenAuthenticators, type JwtTokenAuthenticator, type TokenUseListener } from '../auth/serviceaccount/authenticator.ts';
import { openIdMetadata } from '../auth/serviceaccount/openid.ts';

export class ServiceAccountTokens {
  readonly getter = new RegistryTokenGetter();
  readonly tokenRequest: TokenRequestDeps;
  /** Signs the tokens the tokens controller writes into Secrets (issuer kubernetes/serviceaccount). */
  readonly legacyGenerator: TokenGenerator;
  /** kube's legacy and bound token authenticators, in union order. */
  readonly tokenAuthenticators: JwtTokenAuthenticator[];
  /** Set once metrics exist: counts token uses (serviceaccount_*_tokens_total). */
  onTokenUsed: TokenUseListener | undefined;

  private constructor(readonly config: ServiceAccountConfig, log: Logger) {
    const generator = jwtTokenGenerator(config.issuers[0]!, config.signing);
    this.legacyGenerator = jwtTokenGenerator(LEGACY_ISSUER, config.signing);
    this.tokenRequest = {
      generator,
      apiAudiences: config.apiAudiences,
      maxExpirationSeconds: config.maxExpirationSeconds,
      extendExpiration: config.extendExpiration,
      getObject: (resource, namespace, name) => this.getter.getOrNotFound(resource, namespace, name),
    };
    this.tokenAuthenticators = serviceAccountTokenAuthenticators({ issuers: config.issuers, keys: config.publicKeys, apiAudiences: config.apiAudiences, lookup: config.lookup, getter: this.getter, onUsed: (kind) => this.onTokenUsed?.(kind) });
    // Why a token failed is logged at debug level only: the client sees a bare 401, as from kube.
  }

  /** Resolve the flags (kube's start-up errors are thrown) and build everything. */
  static async create(flags: ServiceAccountFlags, pkiDir: string, log: Logger): Promise<ServiceAccountTokens> {
    return new ServiceAccountTokens(await resolveServiceAccountConfig(flags, pkiDir, join(pkiDir, PKI_FILES.serverKey)), log);
  }

  /** Give the lookups their registry (built after the kinds that need them). */
  attach(registry: Registry): void {
    this.getter.attach(registry);
  }

  /**
   * The discovery documents for the server's external address (read per call: it is known once
   * the server listens), or undefined when kube would not install the routes (an issuer that is
   * not an https URL; logged once).
   */
  discovery(externalAddress: () => string, log: Logger): OpenIdDiscovery | undefined {
    const probe = openIdMetadata(this.config.issuers[0]!, 'localhost', this.config.publicKeys);
    if (!probe.ok) {
      log.error({ reason: probe.reason }, 'Could not construct pre-rendered responses for ServiceAccountIssuerDiscovery endpoints. Endpoints will not be enabled.');
      return undefined;
    }
    let cached: { address: string; configJson: string; keysetJson: string } | undefined;
    const render = () => {
      const address = externalAddress();
      if (cached?.address !== address) {
        const md = openIdMetadata(this.config.issuers[0]!, address, this.config.publicKeys, this.config.jwksUri);
        if (!md.ok) throw new Error(md.reason);
        cached = { address, configJson: md.configJson, keysetJson: md.keysetJson };
      }
      return cached;
    };
    return { configJson: () => render().configJson, keysetJson: () => render().keysetJson };
  }
}
