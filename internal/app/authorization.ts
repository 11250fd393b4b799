/**
 * Start-up step: authorization — the privileged group, then --authorization-mode in order (default
 * Node,RBAC). The RBAC cache follows the fold; it is loaded (started) before the server listens.
 */
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, DEFAULT_AUTHORIZATION_MODES, privilegedGroupAuthorizer, unionAuthorizer } from '../auth/authorizers.ts';
import { NodeAuthorizer, NodeGraph } from '../auth/node-authorizer.ts';
import { RbacCache } from '../auth/rbac/cache.ts';
import { RbacAuthorizer } from '../auth/rbac/authorizer.ts';
import type { ServerOptions } from './options.ts';

export function authorization(opts: ServerOptions) {
  const rbacCache = new RbacCache();
  const rbac = new RbacAuthorizer(rbacCache);
  const nodeGraph = new NodeGraph();
  const modes = opts.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES;
  const byMode = { RBAC: rbac, Node: new NodeAuthorizer(nodeGraph), AlwaysAllow: alwaysAllowAuthorizer, AlwaysDeny: alwaysDenyAuthorizer };
  const authorizer = unionAuthorizer([privilegedGroupAuthorizer, ...modes.map((m) => byMode[m])]);
  return { rbacCache, rbac, authorizer, nodeGraph: modes.includes('Node') ? nodeGraph : undefined };
}
