/**
 * What the `serviceaccounts/token` subresource (registry/core/serviceaccount-token.ts, TokenRequest)
 * needs from the server: a contract of the registry, filled in by the wiring (app), so
 * `ServerOptions` names it without importing a kind. One of the review kinds' documented imports of
 * auth (docs/architecture.md, Module map): the token issuer is auth's.
 */
import type { KubeObject } from '../../api/types.ts';
import type { TokenGenerator } from '../../auth/serviceaccount/tokens.ts';

/** What the token subresource needs from the server. */
export interface TokenRequestDeps {
  /** Signs as the first --service-account-issuer. */
  generator: TokenGenerator;
  /** The API audiences (--api-audiences, default the issuers). */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds (0: none). */
  maxExpirationSeconds: number;
  /** --service-account-extend-token-expiration. */
  extendExpiration: boolean;
  /** The Pod or Secret a token is bound to, or the store's 404. */
  getObject(resource: 'pods' | 'secrets', namespace: string, name: string): Promise<KubeObject>;
  /** Clock (tests). */
  now?: () => Date;
}
