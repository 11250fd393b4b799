/**
 * Bearer-token authentication, shaped as k8s.io/apiserver's `authenticator.Token`: the token
 * authenticators (token file, service-account JWTs, bootstrap tokens, OIDC, the webhook) are
 * combined into one union, cached, and turned into ONE request authenticator
 * (`bearerTokenAuthenticator`) that joins the x509 and other request authenticators of authn.ts.
 * The TokenReview API asks the same cached union, so every token the server accepts on a request
 * is accepted there too (pkg/kubeapiserver/authenticator/config.go, 1.24).
 *
 * Contract of every TokenAuthenticator (kube's `(resp, ok, err)`):
 *   - resolves to a TokenResponse when the token is valid for it            (ok=true);
 *   - resolves to null when the token is not its kind or not valid for it  (ok=false, err=nil);
 *   - rejects with an Error when authentication failed with a reason        (ok=false, err);
 *     the message reaches TokenReview's status.error, never the 401 body.
 */
import type { UserInfo } from '../../api/types.ts';
import { unauthorized } from '../../api/errors.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { bearerToken, withAuthenticatedGroup, type AuthRequest, type Authenticator } from '../authn.ts';

/** What the caller expects the token to be meant for (kube's authenticator.WithAudiences). */
export interface TokenContext {
  /** Absent: no audience is asked for (kube's context without audiences). */
  audiences?: string[];
}

export interface TokenResponse {
  user: UserInfo;
  /** The audiences the token was found valid for (empty when none was asked for). */
  audiences: string[];
  /**
   * Audit annotations the authenticator records (kube's audit.AddAuditAnnotation while
   * authenticating, e.g. `authentication.k8s.io/legacy-token`); kept with a cached answer.
   */
  annotations?: Record<string, string>;
}

export interface TokenAuthenticator {
  authenticateToken(token: string, ctx: TokenContext): Promise<TokenResponse | null>;
}


/**
 * Several authenticators' errors as one, with the text of apimachinery's utilerrors.Aggregate:
 * one message as is, several as `[a, b]` (nested aggregates flattened, duplicates dropped).
 */
export class AggregateAuthError extends Error {
  constructor(readonly errors: Error[]) {
    super(aggregateMessage(errors));
  }
}

function flatten(errors: Error[]): Error[] {
  return errors.flatMap((e) => (e instanceof AggregateAuthError ? flatten(e.errors) : [e]));
}

function aggregateMessage(errors: Error[]): string {
  if (errors.length === 1) return errors[0]!.message;
  const seen = [...new Set(flatten(errors).map((e) => e.message))];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

/** kube's token union: first success wins; otherwise the aggregate of the errors, or null. */
export function tokenUnion(list: TokenAuthenticator[]): TokenAuthenticator {
  if (list.length === 1) return list[0]!;
  return {
    async authenticateToken(token, ctx) {
      const errors: Error[] = [];
      for (const a of list) {
        try {
          const r = await a.authenticateToken(token, ctx);
          if (r) return r;
        } catch (e) {
          errors.push(asError(e));
        }
      }
      if (errors.length) throw new AggregateAuthError(errors);
      return null;
    },
  };
}

/** Audiences.Intersect: the elements of `wanted` (in its order) that `have` holds. */
export function intersectAudiences(have: readonly string[], wanted: readonly string[]): string[] {
  return wanted.filter((a) => have.includes(a));
}

/**
 * WrapAudienceAgnosticToken: an authenticator whose tokens carry no audience (token file,
 * bootstrap tokens, OIDC) is valid only for the server's own audiences (`implicit`, kube's
 * --api-audiences): when the caller asks for audiences, the token answers for their
 * intersection with `implicit`, and for none (not authenticated, no error) when it is empty.
 */
export function audienceAgnostic(implicit: readonly string[], inner: TokenAuthenticator): TokenAuthenticator {
  return {
    async authenticateToken(token, ctx) {
      if (ctx.audiences === undefined) return inner.authenticateToken(token, ctx);
      const auds = intersectAudiences(implicit, ctx.audiences);
      if (!auds.length) return null;
      const r = await inner.authenticateToken(token, ctx);
      if (!r) return null;
      if (r.audiences.length) throw new Error(`audience agnostic authenticator wrapped an authenticator that returned audiences: ${goQuoteList(r.audiences)}`);
      return { user: r.user, audiences: auds };
    },
  };
}

/** Go's %q of a []string: ["a" "b"]. */
export const goQuoteList = (xs: readonly string[]): string => `[${xs.map(goQuote).join(' ')}]`;

/**
 * The request authenticator of the bearer token (`Authorization: Bearer`, or the websocket
 * subprotocol): null without one; 401 when the token authenticators reject it or fail. Requests
 * ask for `apiAudiences` (kube's WithAuthentication puts --api-audiences in the context when set),
 * unless the request already names its audiences (the TokenReview's fake request).
 */
export function bearerTokenAuthenticator(tokens: TokenAuthenticator, apiAudiences: readonly string[] = []): Authenticator {
  return {
    async authenticate(req: AuthRequest) {
      const token = bearerToken(req.headers);
      if (token === undefined) return null;
      const audiences = req.audiences ?? (apiAudiences.length ? [...apiAudiences] : undefined);
      let r: TokenResponse | null;
      try {
        r = await tokens.authenticateToken(token, audiences ? { audiences } : {});
      } catch {
        throw unauthorized();
      }
      if (!r) throw unauthorized();
      if (r.annotations && req.annotations) Object.assign(req.annotations, r.annotations);
      return withAuthenticatedGroup(r.user);
    },
  };
}

/**
 * A token table (what --token-auth-file holds) as a token authenticator: unknown tokens are not
 * authenticated (no error), as kube's tokenfile authenticator answers.
 */
export function staticTokens(tokens: Map<string, UserInfo>): TokenAuthenticator {
  return {
    async authenticateToken(token) {
      const user = tokens.get(token);
      if (!user) return null;
      return { user: { ...user, groups: [...user.groups], ...(user.extra ? { extra: { ...user.extra } } : {}) }, audiences: [] };
    },
  };
}

/**
 * A request authenticator that reads the bearer token itself, used as a token authenticator (the
 * OIDC one, internal/auth/oidc.ts): it sees a request carrying only `Authorization: Bearer <token>`
 * and the audiences. What it throws is the error (its message reaches TokenReview); its
 * audiences are unknown (none: wrap it in audienceAgnostic).
 */
export function tokenFromRequestAuthenticator(a: Authenticator): TokenAuthenticator {
  return {
    async authenticateToken(token, ctx) {
      const user = await a.authenticate({ headers: { authorization: `Bearer ${token}` }, certAuthorized: false, ...(ctx.audiences ? { audiences: ctx.audiences } : {}) });
      return user ? { user, audiences: [] } : null;
    },
  };
}
