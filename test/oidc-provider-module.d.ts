/**
 * The part of the `oidc-provider` package (it ships no types) that test/oidc-provider.ts uses.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export interface OidcContext {
    oidc: { provider: Provider; client?: { clientId: string }; session?: { accountId?: string } };
  }

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    Grant: new (init: { clientId: string; accountId: string }) => Grant;
  }
}
