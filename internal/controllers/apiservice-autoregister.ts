/**
 * The local APIServices kube-apiserver 1.24 registers for the group versions it serves
 * (cmd/kube-apiserver/app/aggregator.go apiServicesToRegister + kube-aggregator's autoregister
 * controller, and pkg/controlplane/controller/crdregistration for CustomResourceDefinitions):
 *
 * - every built-in group version served here that kube's apiVersionPriorities table knows gets
 *   `<version>.<group>` (core: `v1.`) with the table's priorities, labelled
 *   `kube-aggregator.kubernetes.io/automanaged: onstart`: created at start when missing, its spec
 *   put back at start when changed, left alone afterwards;
 * - every served version of a custom resource group gets one with groupPriorityMinimum 1000 and
 *   versionPriority 100, labelled `automanaged: "true"`: kept while the group version is served
 *   (created again when deleted) and deleted when it no longer is.
 *
 * A local APIService is Available from its creation (the strategy's condition).
 */
import type { Logger } from 'pino';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { CUSTOM_RESOURCE_PRIORITY, builtinPriority } from '../registry/apiregistration/priorities.ts';
import type { Controller } from './controller.ts';
import { getOrNull } from './namespace-reconciler.ts';
import { listAll } from './list-all.ts';
import { CoalescedRun } from './coalesced-run.ts';

export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** The APIService kube registers for a group version (null: none, e.g. apiregistration's own). */
export function localAPIService(group: string, version: string, customResource: boolean): KubeObject | null {
  const p = customResource ? CUSTOM_RESOURCE_PRIORITY : builtinPriority(group, version);
  if (!p) return null;
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${version}.${group}`, labels: { [AUTOMANAGED_LABEL]: customResource ? 'true' : 'onstart' } },
    spec: { ...(group ? { group } : {}), version, groupPriorityMinimum: p.group, versionPriority: p.version },
  };
}

/** Every served group version → whether it is a custom resource group version. */
function servedGroupVersions(registry: Registry): Map<string, { group: string; version: string; custom: boolean }> {
  const out = new Map<string, { group: string; version: string; custom: boolean }>();
  for (const { kind } of registry.kinds) {
    for (const version of kind.versions) {
      const key = `${kind.group}/${version}`;
      const prev = out.get(key);
      out.set(key, { group: kind.group, version, custom: (prev?.custom ?? true) && kind.customResource === true });
    }
  }
  return out;
}

const isCode = (err: unknown, code: number): boolean => err instanceof ApiError && err.code === code;

export class APIServiceAutoRegister implements Controller {
  private readonly ctx = systemContext('kube-apiserver');
  private unsubscribe: (() => void) | null = null;
  private readonly runs = new CoalescedRun(() => this.sync(false), (err) => this.log.warn({ err }, 'APIService autoregister: sync failed'), () => this.unsubscribe !== null);

  private constructor(private readonly storage: Storage, private readonly registry: Registry, private readonly apiServices: ServedKind, private readonly log: Logger) {}

  static create(storage: Storage, registry: Registry, log: Logger): APIServiceAutoRegister | null {
    const served = registry.lookup('apiregistration.k8s.io', 'v1', 'apiservices');
    return served ? new APIServiceAutoRegister(storage, registry, served, log) : null;
  }

  /** The start-up sync (the onstart ones included), then the custom resource groups as they come and go. */
  async start(): Promise<void> {
    this.unsubscribe = this.registry.subscribe(() => this.runs.schedule());
    const stopWatch = this.storage.onChange((changes) => {
      if (changes.some((c) => c.key.group === 'apiregistration.k8s.io' && c.type === 'DELETED')) this.runs.schedule();
    });
    const unsub = this.unsubscribe;
    this.unsubscribe = () => {
      unsub();
      stopWatch();
    };
    await this.sync(true);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  idle(): Promise<void> {
    return this.runs.idle();
  }

  /** onStart: the built-in ones too; later only the continuously managed (custom resource) ones. */
  private async sync(onStart: boolean): Promise<void> {
    const wanted = new Map<string, KubeObject>();
    for (const { group, version, custom } of servedGroupVersions(this.registry).values()) {
      const o = localAPIService(group, version, custom);
      if (o && (onStart || custom)) wanted.set(o.metadata.name!, o);
    }
    await Promise.all([...wanted.values()].map((o) => this.ensure(o)));
    // Continuously managed ones whose group version is no longer served go.
    const all = servedGroupVersions(this.registry);
    for await (const b of listAll(this.apiServices.reader, '')) {
      const o = parseObject(b);
      if (o.metadata.labels?.[AUTOMANAGED_LABEL] !== 'true') continue;
      const spec = (o.spec ?? {}) as { group?: string; version?: string };
      if (all.has(`${spec.group ?? ''}/${spec.version ?? ''}`)) continue;
      await this.apiServices.store.delete(this.ctx, '', o.metadata.name!, {}).catch((err: unknown) => {
        if (!isCode(err, 404)) throw err;
      });
    }
  }

  private async ensure(want: KubeObject): Promise<void> {
    const name = want.metadata.name!;
    const current = await getOrNull(this.apiServices, '', name);
    if (!current) {
      await this.apiServices.store.create(this.ctx, '', structuredClone(want)).catch((err: unknown) => {
        if (!isCode(err, 409)) throw err;
      });
      return;
    }
    const sameSpec = JSON.stringify(current.spec) === JSON.stringify(want.spec);
    const sameLabel = current.metadata.labels?.[AUTOMANAGED_LABEL] === want.metadata.labels![AUTOMANAGED_LABEL];
    if (sameSpec && sameLabel) return;
    const update = structuredClone(current);
    update.spec = structuredClone(want.spec);
    update.metadata.labels = { ...(update.metadata.labels ?? {}), ...want.metadata.labels };
    await this.apiServices.store.update(this.ctx, '', name, update).catch((err: unknown) => {
      if (!isCode(err, 409)) throw err;
    });
  }
}
