/**
 * The ServiceAccount issuer discovery routes (kube's pkg/routes/openidmetadata.go, go-restful
 * web services): GET `/.well-known/openid-configuration` and `/openid/v1/jwks` (a trailing slash
 * names the same route, as go-restful matches it), pre-rendered bytes with
 * `Cache-Control: public, max-age=3600`. Another method is go-restful's 405, an Accept the route
 * cannot produce its 406. Authorization (non-resource `get` on the path) happened before.
 */
import { methodNotAllowed, notAcceptableRoute } from '../api/errors.ts';
import { DISCOVERY_CACHE_CONTROL, JWKS_CONTENT_TYPE, JWKS_PATH, OPENID_CONFIG_PATH } from '../auth/serviceaccount/openid.ts';
import { sendError, sendRaw, type Res } from './respond.ts';

/** The two documents, rendered for the server's external address (known once it listens). */
export interface OpenIdDiscovery {
  configJson(): string;
  keysetJson(): string;
}

/** go-restful's Route.matchesAccept: no Accept, `*\/*`, or the produced type itself. */
function accepts(accept: string | undefined, produces: string): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const t = part.split(';')[0]!.trim();
    return t === '*/*' || t === produces;
  });
}

/** Answer the request when it is one of the two routes; false when the path is neither. */
export function serveOpenIdDiscovery(discovery: OpenIdDiscovery, method: string, path: string, accept: string | undefined, res: Res): boolean {
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const route = p === OPENID_CONFIG_PATH ? { type: 'application/json', body: () => discovery.configJson() } : p === JWKS_PATH ? { type: JWKS_CONTENT_TYPE, body: () => discovery.keysetJson() } : null;
  if (!route) return false;
  if (method !== 'GET') {
    sendError(res, methodNotAllowed(), {}, accept);
    return true;
  }
  if (!accepts(accept, route.type)) {
    sendError(res, notAcceptableRoute(), {}, accept);
    return true;
  }
  sendRaw(res, 200, route.type, route.body(), { 'Cache-Control': DISCOVERY_CACHE_CONTROL });
  return true;
}
