/**
 * The labels kube-apiserver 1.24 puts on a request's metrics (k8s.io/apiserver/pkg/endpoints/metrics:
 * CleanScope, CanonicalVerb, cleanVerb, cleanDryRun), as pure functions of the request.
 */

/** The verbs kube reports as they are; anything else is reported as `other` (validRequestMethods). */
const VALID_VERBS = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);

/** What the label functions need to know of a request. */
export interface LabelInput {
  /** HTTP method as sent. */
  method: string;
  /** RequestInfo verb (get, list, watch, create, …); '' for non-resource requests. */
  verb: string;
  isResourceRequest: boolean;
  namespace: string;
  name: string;
  query: URLSearchParams;
  contentType: string | undefined;
  /** The deprecated /watch/ path form (a watch whatever the query says). */
  legacyWatch?: boolean;
}

/** CleanScope: resource (a name, or a create), namespace, cluster, or '' for non-resource paths. */
export function cleanScope(r: Pick<LabelInput, 'name' | 'verb' | 'namespace' | 'isResourceRequest'>): string {
  if (r.name !== '' || r.verb === 'create') return 'resource';
  if (r.namespace !== '') return 'namespace';
  if (r.isResourceRequest) return 'cluster';
  return '';
}

/** CanonicalVerb: GET/HEAD of a collection is LIST. */
export function canonicalVerb(method: string, scope: string): string {
  if (method === 'GET' || method === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return method;
}

/** getVerbIfWatch: a GET with a true `watch` parameter (kube's bool conversion) is a WATCH. */
function isWatchQuery(method: string, query: URLSearchParams): boolean {
  if (method !== 'GET' && method !== 'LIST') return false;
  const v = query.getAll('watch')[0];
  if (v === undefined) return false;
  const l = v.toLowerCase();
  return l !== '0' && l !== 'false';
}

/**
 * The `verb` label: GET/LIST/WATCH/POST/PUT/PATCH/APPLY/DELETE (and `other` for an unknown method).
 * Apply is a PATCH with the apply content type; the legacy /watch/ paths are WATCH.
 */
export function reportedVerb(r: LabelInput): string {
  const method = r.method.toUpperCase();
  const scope = cleanScope(r);
  let v = canonicalVerb(method, scope);
  if (r.legacyWatch || isWatchQuery(method, r.query)) v = 'WATCH';
  else if (v === 'PATCH' && (r.contentType ?? '').split(';')[0]!.trim() === 'application/apply-patch+yaml') v = 'APPLY';
  if (v === 'WATCHLIST') v = 'WATCH';
  return VALID_VERBS.has(v) ? v : 'other';
}

/** cleanDryRun: the sorted, de-duplicated dryRun values joined by ',', or `invalid`. */
export function dryRunLabel(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  // ValidateDryRun: only "All" is valid (each value), and repeats are allowed.
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** Read-only (get/list/watch) or mutating, as kube's max-in-flight filter splits requests. */
export function requestKind(verb: string, isResourceRequest: boolean, method: string): 'readOnly' | 'mutating' {
  if (isResourceRequest) return verb === 'get' || verb === 'list' || verb === 'watch' ? 'readOnly' : 'mutating';
  // Non-resource requests: RequestInfo's verb is the lower-cased method.
  const m = method.toLowerCase();
  return m === 'get' || m === 'list' || m === 'watch' ? 'readOnly' : 'mutating';
}
