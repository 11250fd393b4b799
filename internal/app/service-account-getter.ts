/**
 * The ServiceAccountTokenGetter over this server's registry: the current ServiceAccount, Pod or
 * Secret as the stores read it (a Kafka replica that does not have an object yet catches up with
 * the log before answering "none", as kube's getter falls back from its informer cache to a live
 * GET). The registry is built after the kinds that need the getter (the TokenRequest subresource),
 * so it is attached once it exists.
 */
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Registry } from '../registry/registry.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { ServiceAccountTokenGetter } from '../auth/serviceaccount/authenticator.ts';

export class RegistryTokenGetter implements ServiceAccountTokenGetter {
  private registry: Registry | undefined;

  /** Called once, when the registry exists; before that every lookup throws. */
  attach(registry: Registry): void {
    this.registry = registry;
  }

  serviceAccount(namespace: string, name: string): Promise<KubeObject | null> {
    return this.read('serviceaccounts', namespace, name);
  }

  pod(namespace: string, name: string): Promise<KubeObject | null> {
    return this.read('pods', namespace, name);
  }

  secret(namespace: string, name: string): Promise<KubeObject | null> {
    return this.read('secrets', namespace, name);
  }

  /** The object, or the store's 404 (kube's REST Get error, e.g. `pods "x" not found`). */
  async getOrNotFound(resource: 'pods' | 'secrets' | 'serviceaccounts', namespace: string, name: string): Promise<KubeObject> {
    const served = this.registry?.lookup('', 'v1', resource);
    if (!served) throw new Error(`service account tokens: the ${resource} resource is not registered`);
    return parseObject(await served.store.getLatest(namespace, name));
  }

  private async read(resource: 'pods' | 'secrets' | 'serviceaccounts', namespace: string, name: string): Promise<KubeObject | null> {
    if (!name) return null;
    try {
      return await this.getOrNotFound(resource, namespace, name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return null;
      throw e;
    }
  }
}
