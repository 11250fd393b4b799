/**
 * serviceaccounts/token, after k8s.io/kubernetes 1.24 pkg/registry/core/serviceaccount/storage/
 * token.go (TokenREST.Create): a POST of an authentication.k8s.io/v1 TokenRequest answers 201
 * with a signed token for the account in `status.token`. Nothing is stored.
 *
 *   - metadata.name, when given, must be the account's (422); the account must exist (404);
 *   - spec.audiences default to the API audiences; spec.expirationSeconds (defaulted to 3600 when
 *     decoding) must be within [600, 2^32] (422, kube's messages, an empty object name);
 *   - spec.boundObjectRef binds the token to a v1 Pod (which must run as this account, 400) or a
 *     v1 Secret; anything else is a 400 naming the GroupVersionKind; the object must exist (its
 *     404) and match a given uid (409);
 *   - --service-account-max-token-expiration shortens longer requests, with a Warning;
 *   - --service-account-extend-token-expiration: a pod-bound token asking for exactly 3607 s (what
 *     the ServiceAccount admission plugin's projected volume asks) for API audiences only is issued
 *     for a year with `warnafter` at the requested expiry (kube's safe-transition rule); the answer's
 *     expirationTimestamp still names the requested expiry.
 *
 * RBAC sees the request as verb `create` on `serviceaccounts/token` (request-info does that).
 */
import { rfc3339 } from '../generic/serialize.ts';
import { badRequest, conflict, invalid } from '../../api/errors.ts';
import { FieldPath, invalid as invalidField, type FieldError } from '../../api/field-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { boundClaims, type BoundTo } from '../../auth/serviceaccount/tokens.ts';
import { EXPIRATION_EXTENSION_SECONDS, WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS } from '../../auth/serviceaccount/options.ts';
import type { SubresourceCreateContext, SubresourceDescriptor } from '../rest/strategy.ts';
import type { TokenRequestDeps } from '../rest/token-request.ts';

// auth/serviceaccount/setup.ts (wiring, moving out of auth) still imports the type from here.
export type { TokenRequestDeps };

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';
/** SetDefaults_TokenRequestSpec. */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

type J = Record<string, unknown>;
const obj = (v: unknown): J | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as J) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateTokenRequest. */
export function validateTokenRequest(expirationSeconds: number): FieldError[] {
  const path = new FieldPath('spec').child('expirationSeconds');
  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) errs.push(invalidField(path, expirationSeconds, 'may not specify a duration less than 10 minutes'));
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) errs.push(invalidField(path, expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  return errs;
}

/** schema.FromAPIVersionAndKind(…).String(): `group/version, Kind=kind`. */
export function gvkString(apiVersion: string, kind: string): string {
  const parts = apiVersion.split('/');
  let group = '';
  let version = '';
  if (parts.length === 1) version = parts[0]!;
  else if (parts.length === 2) [group, version] = parts as [string, string];
  return `${group}/${version}, Kind=${kind}`;
}

/** The group of an apiVersion ('' for the core group or an unparsable one). */
const groupOf = (apiVersion: string): string => {
  const parts = apiVersion.split('/');
  return parts.length === 2 ? parts[0]! : '';
};

/** RFC 3339 in whole seconds, as metav1.Time marshals. */
/** TokenREST.Create. */
async function createToken(deps: TokenRequestDeps, ctx: SubresourceCreateContext, req: KubeObject): Promise<{ code: number; body: unknown; warnings?: string[] }> {
  const meta = req.metadata;
  if (meta.name && meta.name !== ctx.name) {
    throw invalid('TokenRequest', AUTHENTICATION_GROUP, ctx.name, [invalidField(new FieldPath('metadata').child('name'), meta.name, 'must match the service account name if specified')]);
  }
  const sa = await ctx.get();
  const spec = obj(req.spec) ?? {};
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length ? (spec.audiences as string[]) : [...deps.apiAudiences];
  let expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
  const now = deps.now?.() ?? new Date();
  const errs = validateTokenRequest(expirationSeconds);
  if (errs.length) throw invalid('TokenRequest', AUTHENTICATION_GROUP, '', errs);

  const ref = obj(spec.boundObjectRef);
  const bound: BoundTo = {};
  if (ref) {
    const kind = str(ref.kind);
    const apiVersion = str(ref.apiVersion);
    const refName = str(ref.name);
    const group = groupOf(apiVersion);
    let uid: string;
    if (group === '' && kind === 'Pod') {
      const pod = await deps.getObject('pods', ctx.namespace, refName);
      if (ctx.name !== str(obj(pod.spec)?.serviceAccountName)) {
        throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(ctx.name)} to pod running with different serviceaccount name.`);
      }
      uid = pod.metadata.uid ?? '';
      bound.pod = { name: pod.metadata.name ?? refName, uid };
    } else if (group === '' && kind === 'Secret') {
      const secret = await deps.getObject('secrets', ctx.namespace, refName);
      uid = secret.metadata.uid ?? '';
      bound.secret = { name: secret.metadata.name ?? refName, uid };
    } else {
      throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
    }
    const wantUid = str(ref.uid);
    if (wantUid && wantUid !== uid) {
      throw conflict(
        { group, resource: kind },
        refName,
        `the UID in the bound object reference (${wantUid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }

  const warnings: string[] = [];
  if (deps.maxExpirationSeconds > 0 && expirationSeconds > deps.maxExpirationSeconds) {
    warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${deps.maxExpirationSeconds} seconds`);
    expirationSeconds = deps.maxExpirationSeconds;
  }
  // Safe transition of projected tokens: warn (instead of fail) after the requested expiry.
  let exp = expirationSeconds;
  let warnAfter = 0;
  if (deps.extendExpiration && bound.pod && expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && audiences.every((a) => deps.apiAudiences.includes(a))) {
    warnAfter = exp;
    exp = EXPIRATION_EXTENSION_SECONDS;
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const account = { namespace: sa.metadata.namespace ?? ctx.namespace, name: sa.metadata.name ?? ctx.name, uid: sa.metadata.uid ?? '' };
  const token = await deps.generator.generate(boundClaims(account, bound, nowSeconds, exp, warnAfter, audiences));

  const outMeta: Record<string, unknown> = { ...meta, name: meta.name || account.name, namespace: meta.namespace || account.namespace, creationTimestamp: rfc3339(now) };
  const outRef = ref ? Object.fromEntries(['kind', 'apiVersion', 'name', 'uid'].filter((k) => str(ref[k])).map((k) => [k, ref[k]])) : null;
  const body = {
    kind: 'TokenRequest',
    apiVersion: `${AUTHENTICATION_GROUP}/v1`,
    metadata: orderMeta(outMeta),
    // v1 TokenRequestSpec.boundObjectRef has no omitempty: an absent reference is written as null.
    spec: { audiences, expirationSeconds, boundObjectRef: outRef },
    status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
  };
  return { code: 201, body, warnings };
}

/** ObjectMeta's Go field order, for the members a TokenRequest can carry. */
const META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields'];
function orderMeta(m: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of META_ORDER) if (m[k] !== undefined && m[k] !== '') out[k] = m[k];
  return out;
}

/**
 * The `token` subresource of serviceaccounts (create only, authentication.k8s.io/v1
 * TokenRequest). `defaults` is the v1 defaulting the decoder applies (expirationSeconds 3600),
 * which managedFields also see.
 */
export function tokenSubresource(deps: TokenRequestDeps): SubresourceDescriptor {
  return {
    name: 'token',
    verbs: ['create'],
    kind: { group: AUTHENTICATION_GROUP, version: 'v1', kind: 'TokenRequest' },
    defaults(o: KubeObject) {
      const spec = (obj(o.spec) ?? (o.spec = {})) as J;
      if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) spec.expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
    },
    create: (ctx, body) => createToken(deps, ctx, body),
  };
}
