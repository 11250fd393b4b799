/**
 * User impersonation (kube's WithImpersonation filter, k8s.io/apiserver
 * pkg/endpoints/filters/impersonation.go): `Impersonate-User`, `Impersonate-Group` (repeatable),
 * `Impersonate-Uid` and `Impersonate-Extra-<key>` make an authenticated requestor act as another
 * user, each part authorized with the `impersonate` verb:
 *
 *   Impersonate-User: bob                           → users "bob" (cluster scope, group "")
 *   Impersonate-User: system:serviceaccount:ns:sa   → serviceaccounts "sa" in namespace ns
 *   Impersonate-Group: devs                         → groups "devs"
 *   Impersonate-Uid: 1234                           → uids.authentication.k8s.io "1234"
 *   Impersonate-Extra-scopes: view                  → userextras.authentication.k8s.io/scopes "view"
 *
 * The first part refused ends the request with kube's 403 naming it; groups, uid or extras without
 * a user are a plain-text 500 (kube answers that with responsewriters.InternalError).
 */
import type { UserInfo } from '../api/types.ts';
import { ApiError, forbidden } from '../api/errors.ts';
import type { AuthorizationAttributes, Authorizer } from './authz.ts';
import { ANONYMOUS_USER, SYSTEM_UNAUTHENTICATED, withAuthenticatedGroup } from './authn.ts';
import { allValues, firstValue, removeHeaders, sortedKeys, unescapeExtraKey, type HeaderLines } from './headers.ts';
import { isDNS1123Label, isDNS1123Subdomain } from '../validation/names.ts';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';
const AUTHN_GROUP = 'authentication.k8s.io';

/** One thing to impersonate: a v1.ObjectReference as kube builds it. */
export interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  namespace?: string;
  name: string;
  apiVersion?: string;
  fieldPath?: string;
}

/** Groups without a user and the like: kube's InternalError, a text/plain 500 naming the request. */
export class ImpersonationRequestError extends Error {}

/** serviceaccount.SplitUsername: `system:serviceaccount:<ns>:<name>` with a valid namespace and name. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | null {
  if (!username.startsWith(SA_PREFIX)) return null;
  const parts = username.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return null;
  const [namespace, name] = parts as [string, string];
  if (isDNS1123Label(namespace).length || isDNS1123Subdomain(name).length) return null;
  return { namespace, name };
}

/** Go's %v of a v1.ObjectReference: its seven fields in order, space-separated, in braces. */
function goFormat(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace ?? '', r.name, '', r.apiVersion ?? '', '', r.fieldPath ?? ''].join(' ')}}`;
}

/** Whether the request asks for impersonation at all (cheap check for the common case). */
export function wantsImpersonation(lines: HeaderLines): boolean {
  return lines.some(([k]) => k === USER_HEADER || k === GROUP_HEADER || k === UID_HEADER || k.startsWith(EXTRA_PREFIX));
}

/** buildImpersonationRequests: the parts asked for, in kube's order (user, groups, extras, uid). */
export function impersonationRequests(lines: HeaderLines): ImpersonationRequest[] {
  const out: ImpersonationRequest[] = [];
  const user = firstValue(lines, USER_HEADER);
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name } : { kind: 'User', name: user });
  }
  const groups = allValues(lines, GROUP_HEADER);
  for (const g of groups) out.push({ kind: 'Group', name: g });
  let hasExtra = false;
  for (const [name, value] of lines) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    out.push({ kind: 'UserExtra', apiVersion: `${AUTHN_GROUP}/v1`, name: value, fieldPath: unescapeExtraKey(name.slice(EXTRA_PREFIX.length)) });
  }
  const uid = firstValue(lines, UID_HEADER);
  if (uid) out.push({ kind: 'UID', name: uid, apiVersion: `${AUTHN_GROUP}/v1` });
  if ((groups.length || hasExtra || uid) && !user) throw new ImpersonationRequestError(`requested [${out.map(goFormat).join(' ')}] without impersonating a user`);
  return out;
}

/** The `impersonate` check of one part, as kube's actingAsAttributes. */
function attributesFor(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  const group = r.apiVersion ? r.apiVersion.split('/')[0]! : '';
  const version = r.apiVersion ? r.apiVersion.split('/')[1] ?? '' : '';
  const resource = { User: 'users', ServiceAccount: 'serviceaccounts', Group: 'groups', UserExtra: 'userextras', UID: 'uids' }[r.kind];
  return { user: requestor, verb: 'impersonate', isResourceRequest: true, group, version, resource, subresource: r.kind === 'UserExtra' ? r.fieldPath ?? '' : '', namespace: r.namespace ?? '', name: r.name, path: '' };
}

/** responsewriters.Forbidden for a resource request: kube's message, the reason after a colon. */
export function forbiddenFor(a: AuthorizationAttributes, reason: string): ApiError {
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const scope = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  // kube passes the message through its HTML sanitizer (& < > escaped); the reason stays as is.
  const msg = `User ${JSON.stringify(a.user.username)} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.group)} ${scope}`.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const e = forbidden({ group: a.group, resource: a.resource }, a.name, reason ? `${msg}: ${reason}` : msg);
  e.headers['X-Content-Type-Options'] = 'nosniff';
  return e;
}

/**
 * Authorize every part for `requestor` and build the impersonated user; throws the 403 of the first
 * part refused. Groups default to a service account's groups when only the user is given;
 * system:authenticated (system:unauthenticated for system:anonymous) is added as kube does.
 */
export async function impersonate(requestor: UserInfo, requests: ImpersonationRequest[], authorizer: Authorizer): Promise<UserInfo> {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let username = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    switch (r.kind) {
      case 'ServiceAccount':
        username = `${SA_PREFIX}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        username = r.name;
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.fieldPath ?? ''] ??= []).push(r.name);
        break;
      case 'UID':
        uid = r.name;
        break;
    }
    const a = attributesFor(requestor, r);
    const d = await authorizer.authorize(a);
    if (!d.allowed) throw forbiddenFor(a, d.reason ?? '');
  }
  if (username === ANONYMOUS_USER && !groups.includes(SYSTEM_UNAUTHENTICATED)) groups.push(SYSTEM_UNAUTHENTICATED);
  const user = withAuthenticatedGroup({ username, groups });
  if (uid) user.uid = uid;
  if (Object.keys(extra).length) user.extra = sortedKeys(extra);
  return user;
}

/** Remove the impersonation headers once used (kube deletes them before the request goes on). */
export function removeImpersonationHeaders(headers: Record<string, string | string[] | undefined>, rawHeaders: string[] | undefined): void {
  removeHeaders(headers, rawHeaders, (n) => n === USER_HEADER || n === GROUP_HEADER || n === UID_HEADER || n.startsWith(EXTRA_PREFIX));
}
