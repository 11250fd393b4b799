/**
 * ServiceAccount issuer discovery, after k8s.io/kubernetes 1.24 pkg/serviceaccount/
 * openidmetadata.go and pkg/routes/openidmetadata.go: `/.well-known/openid-configuration`
 * (application/json) and `/openid/v1/jwks` (application/jwk-set+json), both with
 * `Cache-Control: public, max-age=3600`, pre-rendered once. kube installs them only when the
 * first issuer is an https URL without query or fragment (otherwise they are 404s), with
 * `jwks_uri` = https://<external address>/openid/v1/jwks. Who may read them is RBAC's business
 * (the bootstrap ClusterRole system:service-account-issuer-discovery, bound to
 * system:serviceaccounts; not to anonymous users by default).
 *
 * JWK members come in go-jose's order (use, kty, kid, crv, alg, x, y, n, e); the configuration's
 * `id_token_signing_alg_values_supported` is the sorted set of the keys' algorithms.
 */
import type { KeyObject } from 'node:crypto';
import { algorithmOf, keyId } from './keys.ts';

export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
export const JWKS_CONTENT_TYPE = 'application/jwk-set+json';
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

/** A public JWK as go-jose marshals one. */
export function publicJwk(key: KeyObject): Record<string, string> {
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
  const alg = algorithmOf(key);
  const out: Record<string, string> = { use: 'sig', kty: jwk.kty!, kid: keyId(key) };
  if (jwk.crv) out.crv = jwk.crv;
  out.alg = alg;
  for (const m of ['x', 'y', 'n', 'e']) if (jwk[m]) out[m] = jwk[m]!;
  return out;
}

/** The two documents, or why kube would not install the endpoints. */
export type OpenIdMetadata = { ok: true; configJson: string; keysetJson: string } | { ok: false; reason: string };

/** NewOpenIDMetadata (`jwksUri` '' : built from the external address host:port). */
export function openIdMetadata(issuer: string, externalAddress: string, publicKeys: KeyObject[], jwksUri = ''): OpenIdMetadata {
  if (!issuer) return { ok: false, reason: 'empty issuer URL' };
  if (publicKeys.length === 0) return { ok: false, reason: 'no keys provided for validating keyset' };
  let url: URL;
  try {
    url = new URL(issuer);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: `issuer URL must use https scheme, got: ${issuer}` };
  if (url.search) return { ok: false, reason: `issuer URL may not include a query, got: ${issuer}` };
  if (url.hash || issuer.includes('#')) return { ok: false, reason: `issuer URL may not include a fragment, got: ${issuer}` };
  let keys: Record<string, string>[];
  try {
    keys = publicKeys.map(publicJwk);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  const algs = [...new Set(keys.map((k) => k.alg!))].sort();
  const configJson = JSON.stringify({
    issuer,
    jwks_uri: jwksUri || `https://${externalAddress}${JWKS_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algs,
  });
  return { ok: true, configJson, keysetJson: JSON.stringify({ keys }) };
}
