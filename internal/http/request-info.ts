/**
 * Request info: what a URL and method mean (kube-apiserver's RequestInfoFactory). Resource
 * requests get verb, group, version, resource, namespace, name, subresource; everything else is a
 * non-resource request (discovery, health, openapi, version).
 */
import { parseFieldSelector } from '../selectors/field-selector.ts';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The HTTP method, upper case (routes are per method: HEAD is not GET there). */
  method: string;
  path: string;
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
  /** Segments after the subresource (kube keeps only parts[2] as the subresource): a connect subresource's path (nodes/x/proxy/<path>), else no route. */
  subpath: string[];
  /** Path segments after /api or /apis (for discovery routes). */
  parts: string[];
  /**
   * The deprecated `/api/v1/watch/…` and `/apis/<g>/<v>/watch/…` form (still served by 1.24):
   * a watch whatever the query says, on a collection or (with a name) on one object.
   */
  legacyWatch: boolean;
  /**
   * Why kube's RequestInfoFactory would refuse the path (`/api/v1/watch` names nothing to watch);
   * kube answers those with a text/plain 500 before anything else.
   */
  error?: string;
}

/**
 * A query boolean as kube's parameter codec reads it: present and not "0"/"false" (any case) is
 * true, so `?watch=` and `?watch=yes` are watches.
 */
export function queryBool(v: string | null): boolean {
  if (v === null) return false;
  const l = v.toLowerCase();
  return l !== '0' && l !== 'false';
}

/** Subresources of namespaces that are not namespaced collections (`/namespaces/x/status`). */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * Parse a request. `rawPath` is the %-decoded, uncleaned path (path.ts). Segments are split as
 * kube's RequestInfoFactory splits them: leading and trailing slashes trimmed, empty inner
 * segments kept (`/namespaces//configmaps` names the namespace "", i.e. all namespaces, as on
 * kube), `.` and `..` kept as they are (a name or namespace then, which the store refuses).
 */
export function requestInfo(method: string, rawPath: string, query: URLSearchParams): RequestInfo {
  const path = rawPath.replace(/\/+$/, '') || '/';
  const trimmed = path.replace(/^\/+/, '');
  const segs = trimmed ? trimmed.split('/') : [];
  const info: RequestInfo = {
    isResourceRequest: false, method: method.toUpperCase(), path, verb: method.toLowerCase(), apiPrefix: '', group: '', version: '', namespace: '', resource: '', name: '', subresource: '', subpath: [], parts: [], legacyWatch: false,
  };
  if (segs[0] !== 'api' && segs[0] !== 'apis') return info;
  info.apiPrefix = segs[0];
  let rest: string[];
  if (segs[0] === 'api') {
    if (segs.length < 2) return { ...info, parts: [] };
    info.version = segs[1];
    rest = segs.slice(2);
  } else {
    if (segs.length < 3) return { ...info, group: segs[1] ?? '', parts: segs.slice(1) };
    info.group = segs[1];
    info.version = segs[2];
    rest = segs.slice(3);
  }
  info.parts = rest;
  if (rest.length === 0) return info;
  info.isResourceRequest = true;
  if (rest[0] === 'watch') {
    info.legacyWatch = true;
    rest = rest.slice(1);
    if (!rest.length) info.error = 'unable to determine kind and namespace from url, ';
  }
  if (rest[0] === 'namespaces' && rest.length > 1) {
    info.namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  info.resource = rest[0] ?? '';
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  info.subpath = rest.slice(3);
  if (info.resource === 'namespaces' && rest.length > 1) info.namespace = '';
  // `?watch=` turns a collection GET into a watch; on an item path it is a plain get (kube's
  // RequestInfoFactory only looks at it when no name was found).
  const isWatch = info.legacyWatch || (!info.name && queryBool(query.get('watch')));
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      info.verb = isWatch ? 'watch' : info.name ? 'get' : 'list';
      break;
    case 'POST':
      info.verb = 'create';
      break;
    case 'PUT':
      info.verb = 'update';
      break;
    case 'PATCH':
      info.verb = 'patch';
      break;
    case 'DELETE':
      info.verb = info.name ? 'delete' : 'deletecollection';
      break;
    default:
      info.verb = method.toLowerCase();
  }
  return info;
}

/**
 * The object name authorization sees: the path's, or for a list or watch a `metadata.name=<x>` field
 * selector's (kube's RequestInfoFactory sets the name from it, so a kubelet watching one secret is
 * authorized for that secret). A selector that does not parse leaves the name empty, as in kube.
 */
export function authorizationName(info: RequestInfo, query: URLSearchParams): string {
  if (info.name || !info.isResourceRequest || (info.verb !== 'list' && info.verb !== 'watch')) return info.name;
  const selector = query.get('fieldSelector');
  if (!selector) return '';
  try {
    const name = parseFieldSelector(selector).requiresExactMatch('metadata.name') ?? '';
    // path.IsValidPathSegmentName
    return name === '.' || name === '..' || /[/%]/.test(name) ? '' : name;
  } catch {
    return '';
  }
}
