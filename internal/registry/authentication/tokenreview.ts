/**
 * authentication.k8s.io/v1 TokenReview (pkg/registry/authentication/tokenreview, 1.24): a virtual
 * create-only kind, never stored. The spec's token is checked by the server's own token
 * authenticators — the same cached union the bearer-token filter asks — with the spec's audiences
 * (the server's --api-audiences when it names none), and the answer is echoed back in status:
 * `authenticated`, the `user` (with system:authenticated, as kube's group adder adds it),
 * the `audiences` it is valid for, and `error` ("invalid bearer token" when nobody accepted it).
 */
import type { KubeObject } from '../../api/types.ts';
import { badRequest, internalError } from '../../api/errors.ts';
import { AggregateAuthError, intersectAudiences, type TokenAuthenticator, type TokenResponse } from '../../auth/token/token.ts';
import { withAuthenticatedGroup } from '../../auth/authn.ts';
import type { KindDescriptor, VirtualKind } from '../rest/strategy.ts';
import { isObj } from '../../gocompat/json.ts';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';

type Obj = Record<string, unknown>;
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** bearertoken.invalidToken: the error of a token no authenticator accepted or failed on. */
const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** What TokenReview needs of the server. */
export interface TokenReviewDeps {
  /** The server's token authenticators (cached union); absent: no token authenticator at all. */
  tokenAuthenticator?: TokenAuthenticator;
  /** --api-audiences, asked for when the spec names no audiences. */
  apiAudiences?: readonly string[];
}

/** v1.UserInfo in Go order with omitempty; `extra` only when non-empty. */
function userJson(u: Obj): Obj {
  const out: Obj = {};
  if (typeof u.username === 'string' && u.username) out.username = u.username;
  if (typeof u.uid === 'string' && u.uid) out.uid = u.uid;
  if (Array.isArray(u.groups) && u.groups.length) out.groups = u.groups;
  if (isObj(u.extra) && Object.keys(u.extra).length) out.extra = u.extra;
  return out;
}

/** ObjectMeta's fields in Go declaration order (the order encoding/json writes them). */
const OBJECT_META_ORDER = ['name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'clusterName', 'managedFields'];

function goOrdered(meta: Obj): Obj {
  const out: Obj = {};
  for (const k of OBJECT_META_ORDER) if (k in meta) out[k] = meta[k];
  for (const [k, v] of Object.entries(meta)) if (!(k in out)) out[k] = v;
  return out;
}

/** REST.Create: authenticate spec.token, fill the status. */
export function tokenReviewer(deps: TokenReviewDeps): VirtualKind {
  return {
    async create(_ctx, obj: KubeObject): Promise<KubeObject> {
      const spec = isObj(obj.spec) ? obj.spec : {};
      const token = typeof spec.token === 'string' ? spec.token : '';
      if (!token) throw badRequest('token is required for TokenReview in authentication');
      const given = isObj((obj as Obj).status) ? ((obj as Obj).status as Obj) : {};
      const status: { authenticated: boolean; user: Obj; audiences: unknown; error: unknown } = {
        authenticated: false,
        user: isObj(given.user) ? given.user : {},
        audiences: given.audiences,
        error: given.error,
      };
      const specAuds = strings(spec.audiences);
      const auds = specAuds.length ? specAuds : [...(deps.apiAudiences ?? [])];
      let resp: TokenResponse | null = null;
      if (deps.tokenAuthenticator) {
        // kube-apiserver's request authenticator is a union of its loopback token's bearer
        // authenticator (which calls any other token invalid, whatever the audiences) and the
        // configured chain, so a refused token reads "invalid bearer token" and a failure is
        // aggregated after it: "[invalid bearer token, token revoked]".
        try {
          resp = await deps.tokenAuthenticator.authenticateToken(token, auds.length ? { audiences: auds } : {});
          if (!resp) status.error = INVALID_BEARER_TOKEN;
        } catch (e) {
          const err = e instanceof Error ? e : new Error(String(e));
          status.error = new AggregateAuthError([new Error(INVALID_BEARER_TOKEN), err]).message;
        }
      }
      status.authenticated = resp !== null;
      // An authenticator that answered for none of the audiences asked for is broken (kube: 500).
      if (resp && auds.length && !intersectAudiences(resp.audiences, auds).length) throw internalError('error validating audiences');
      if (resp) {
        const u = withAuthenticatedGroup(resp.user);
        status.user = { username: u.username, uid: u.uid, groups: u.groups, extra: u.extra };
        status.audiences = resp.audiences;
      }
      const out: Obj = {};
      if (status.authenticated) out.authenticated = true;
      out.user = userJson(status.user);
      if (Array.isArray(status.audiences) && status.audiences.length) out.audiences = status.audiences;
      if (typeof status.error === 'string' && status.error) out.error = status.error;
      // Cluster-scoped: a namespace in the body is dropped, the rest of metadata echoed;
      // creationTimestamp is a zero metav1.Time unless given, which Go writes as null.
      const meta: Obj = { ...obj.metadata, creationTimestamp: obj.metadata.creationTimestamp ?? null };
      delete meta.namespace;
      return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: goOrdered(meta), spec, status: out } as KubeObject;
    },
  };
}

/** The TokenReview descriptor (create only, cluster-scoped, no list kind). */
export const tokenReviewKind: KindDescriptor = {
  group: AUTHENTICATION_GROUP,
  versions: ['v1'],
  resource: 'tokenreviews',
  singular: 'tokenreview',
  kind: 'TokenReview',
  listKind: '',
  namespaced: false,
  shortNames: [],
  verbs: ['create'],
  // Never called (the virtual create checks), but every kind has a strategy.
  strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
  deleteReturns: 'Object',
  virtual: (deps) => tokenReviewer({ tokenAuthenticator: deps.tokenAuthenticator, apiAudiences: deps.apiAudiences }),
};
