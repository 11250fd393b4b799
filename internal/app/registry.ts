/**
 * Start-up step: the registry of served kinds (--runtime-config applied) over the storage and
 * the admission chains, then each kind's bootstrap objects.
 */
import type { Authorizer } from '../auth/authz.ts';
import type { AdmissionChain } from '../admission/chain.ts';
import { ApiError } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { defaultKinds } from '../registry/kinds.ts';
import { systemContext } from '../registry/generic/context.ts';
import { runtimeConfig, servedVersions } from './runtime-config.ts';
import type { buildTokenAuthentication } from './token-auth.ts';
import type { ServiceAccountTokens } from './service-accounts.ts';
import type { ServerOptions } from './options.ts';

export function buildRegistry(opts: ServerOptions, storage: Storage, admission: AdmissionChain, authorizer: Authorizer, saTokens: ServiceAccountTokens, tokenAuth: ReturnType<typeof buildTokenAuthentication>): Registry {
  // --runtime-config is the registry's version filter: it applies to kinds added later too.
  const registry = new Registry(
    opts.kinds ?? defaultKinds,
    storage,
    admission,
    { serviceClusterIPRange: opts.serviceClusterIPRange, serviceNodePortRange: opts.serviceNodePortRange, featureGates: opts.featureGates, serviceAccountTokens: saTokens.tokenRequest },
    { authorizer, tokenAuthenticator: tokenAuth.tokenAuthenticator, apiAudiences: tokenAuth.apiAudiences },
    servedVersions(runtimeConfig(opts.runtimeConfig ?? '')),
  );
  saTokens.attach(registry);
  return registry;
}

/**
 * Create each kind's bootstrap objects (e.g. the system namespaces) that do not exist yet. They are
 * independent: created concurrently, so a first start pays one group commit for them, not one each.
 */
export async function createBootstrapObjects(registry: Registry): Promise<void> {
  const ctx = systemContext('apiserver-bootstrap');
  const work: Promise<void>[] = [];
  for (const served of registry.kinds) {
    for (const obj of served.kind.bootstrap ?? []) {
      const ns = obj.metadata.namespace ?? '';
      work.push((async () => {
        const exists = await served.store.getLatest(ns, obj.metadata.name!).then(() => true, () => false);
        if (exists) return;
        await served.store.create(ctx, ns, structuredClone(obj)).catch((err: unknown) => {
          // Another replica on the same log bootstrapped it first.
          if (!(err instanceof ApiError && err.status.reason === 'AlreadyExists')) throw err;
        });
      })());
    }
  }
  await Promise.all(work);
}
