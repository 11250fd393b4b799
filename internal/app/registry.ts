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
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import { runtimeConfig, servedKinds } from './runtime-config.ts';
import type { buildTokenAuthentication } from './token-auth.ts';
import type { ServiceAccountTokens } from './service-accounts.ts';
import type { ServerOptions } from './options.ts';

export function buildRegistry(opts: ServerOptions, storage: Storage, admission: AdmissionChain, authorizer: Authorizer, saTokens: ServiceAccountTokens, tokenAuth: ReturnType<typeof buildTokenAuthentication>): { registry: Registry; kinds: KindDescriptor[] } {
  const kinds = servedKinds(opts.kinds ?? defaultKinds, runtimeConfig(opts.runtimeConfig ?? ''));
  const registry = new Registry(
    kinds,
    storage,
    admission,
    { serviceClusterIPRange: opts.serviceClusterIPRange, serviceNodePortRange: opts.serviceNodePortRange, featureGates: opts.featureGates, serviceAccountTokens: saTokens.tokenRequest },
    { authorizer, tokenAuthenticator: tokenAuth.tokenAuthenticator, apiAudiences: tokenAuth.apiAudiences },
  );
  saTokens.attach(registry);
  return { registry, kinds };
}

/**
 * Create each kind's bootstrap objects (e.g. the system namespaces) that do not exist yet. They are
 * independent: created concurrently, so a first start pays one group commit for them, not one each.
 */
export async function createBootstrapObjects(registry: Registry, kinds: KindDescriptor[]): Promise<void> {
  const ctx = systemContext('apiserver-bootstrap');
  const work: Promise<void>[] = [];
  for (const k of kinds) {
    const served = registry.lookup(k.group, k.versions[0], k.resource)!;
    for (const obj of k.bootstrap ?? []) {
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
