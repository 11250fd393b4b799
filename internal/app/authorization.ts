/**
 * Start-up step: authorization — the privileged group, then --authorization-mode in order (default
 * RBAC). The RBAC cache follows the fold; it is loaded (started) before the server listens.
 */
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupAuthorizer, unionAuthorizer } from '../auth/authorizers.ts';
import { RbacCache } from '../auth/rbac/cache.ts';
import { RbacAuthorizer } from '../auth/rbac/authorizer.ts';
import type { ServerOptions } from './options.ts';

export function authorization(opts: ServerOptions) {
  const rbacCache = new RbacCache();
  const rbac = new RbacAuthorizer(rbacCache);
  const modes = opts.authorizationModes ?? ['RBAC'];
  const authorizer = unionAuthorizer([privilegedGroupAuthorizer, ...modes.map((m) => (m === 'RBAC' ? rbac : m === 'AlwaysAllow' ? alwaysAllowAuthorizer : alwaysDenyAuthorizer))]);
  return { rbacCache, rbac, authorizer };
}
