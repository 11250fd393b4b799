/**
 * Which HTTP methods kube-apiserver registers for a resource path (its go-restful routes, one
 * per verb the storage implements). A request whose path has no route at all gets the 404 Status
 * "the server could not find the requested resource"; one whose path has routes, but none for
 * its method, gets the generic 405 — both written by go-restful before any handler runs, so no
 * resource, name or verb appears in them.
 *
 *   /configmaps                 GET (list, ?watch) · POST (create) · DELETE (deletecollection)
 *   /configmaps/x               GET (get) · PUT (update) · PATCH (patch) · DELETE (delete)
 *   /namespaces/x/finalize      PUT only (the subresource's verbs)
 *   /watch/…/configmaps[/x]     GET only (the deprecated watch paths)
 */
import { methodNotAllowed, pathNotFound } from '../api/errors.ts';
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { RequestInfo } from './request-info.ts';
import { FULL_VERBS } from './discovery.ts';

const METHOD_OF_VERB: Record<string, string> = { get: 'GET', update: 'PUT', patch: 'PATCH', create: 'POST', delete: 'DELETE' };

const CONNECT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The methods routed for this request's path on `kind` (empty: the path has no route). */
export function routedMethods(kind: KindDescriptor, info: RequestInfo): string[] {
  const verbs = kind.verbs ?? FULL_VERBS;
  if (info.legacyWatch) return !info.subresource && verbs.includes('watch') ? ['GET'] : [];
  if (info.subresource) {
    const sub = kind.subresources?.find((s) => s.name === info.subresource);
    // A connect subresource takes every method (kube's connect routes) and any path below it.
    if (sub?.connect) return sub.connectMethods ?? CONNECT_METHODS;
    if (info.subpath.length) return [];
    return sub ? sub.verbs.map((v) => METHOD_OF_VERB[v]).filter((m): m is string => Boolean(m)) : [];
  }
  const out: string[] = [];
  // A namespaced kind outside a namespace: only the all-namespaces list/watch is routed.
  if (kind.namespaced && !info.namespace) return !info.name && (verbs.includes('list') || verbs.includes('watch')) ? ['GET'] : [];
  if (!kind.namespaced && info.namespace) return [];
  if (info.name) {
    if (verbs.includes('get')) out.push('GET');
    for (const v of ['update', 'patch', 'delete']) if (verbs.includes(v)) out.push(METHOD_OF_VERB[v]!);
    return out;
  }
  if (verbs.includes('list') || verbs.includes('watch')) out.push('GET');
  if (verbs.includes('create')) out.push('POST');
  if (verbs.includes('deletecollection')) out.push('DELETE');
  return out;
}

/**
 * Throw go-restful's 404 (no route on the path) or 405 (no route for the method; HEAD and
 * OPTIONS included, which kube registers nowhere).
 */
export function checkRoute(kind: KindDescriptor, info: RequestInfo): void {
  const methods = routedMethods(kind, info);
  if (!methods.length) throw pathNotFound();
  if (!methods.includes(info.method)) throw methodNotAllowed();
}
