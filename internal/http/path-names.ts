/**
 * Names and namespaces from the URL as kube's storage layer refuses them. kube never cleans a
 * request path, so `…/configmaps/..` is a request for the ConfigMap named `..`:
 * - a name that cannot be a path segment (`.`, `..`, or containing `/` or `%`) is a 400 from the
 *   registry's key functions (NamespaceKeyFunc / NoNamespaceKeyFunc: "Name parameter invalid");
 * - a namespace `.` or `..` makes an etcd key etcd3's store refuses (prepareKey: a plain error,
 *   so a 500 without a reason naming the key `/<resource>/<namespace>[/<name>]`), and a create
 *   there fails in admission's namespace lookup (client-go's name check, a 500 InternalError).
 */
import { badRequest, internalError, unknownError, type ApiError } from '../api/errors.ts';

/** apimachinery's path.IsValidPathSegmentName. */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push(`may not contain '/'`);
  if (name.includes('%')) errs.push(`may not contain '%'`);
  return errs;
}

/** The registry's 400 for a name from the URL that cannot be a key segment, else null. */
export function invalidPathName(name: string): ApiError | null {
  const errs = pathSegmentNameErrors(name);
  return errs.length ? badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${errs.join(';')}`) : null;
}

const dotSegment = (s: string): boolean => s === '.' || s === '..';

/**
 * etcd3's "invalid key" for a request in namespace `.` or `..` (name '' for a collection), else
 * null.
 */
export function invalidKeyNamespace(resource: string, namespace: string, name = ''): ApiError | null {
  if (!dotSegment(namespace)) return null;
  return unknownError(`invalid key: ${JSON.stringify(`/${resource}/${namespace}${name ? `/${name}` : ''}`)}`);
}

/** A create in namespace `.` or `..`: admission's lookup of that namespace fails in client-go. */
export function invalidCreateNamespace(namespace: string): ApiError | null {
  if (!dotSegment(namespace)) return null;
  return internalError(`invalid resource name ${JSON.stringify(namespace)}: [${pathSegmentNameErrors(namespace).join(' ')}]`);
}
