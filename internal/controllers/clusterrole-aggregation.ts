/**
 * kube-controller-manager's clusterrole-aggregation controller: a ClusterRole with an
 * aggregationRule holds the rules of every ClusterRole matching one of its label selectors (roles
 * in name order, rules in order, each rule once; the aggregated role itself excluded). Recomputed
 * whenever any ClusterRole changes; written only when it differs, precondition-guarded (a replica
 * that loses the race reads again), so several replicas converge on the same rules.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';

import { labelSelectorFromObject, type LabelSelectorObject } from '../selectors/label-selector.ts';
import type { ClusterRole, RbacCache } from '../auth/rbac/cache.ts';
import { RBAC_GROUP } from '../auth/rbac/cache.ts';
import { jsonEqual } from '../gocompat/equal.ts';
import type { Controller } from './controller.ts';

/** The rules an aggregated role should hold, from the roles in `cache`. */
export function aggregatedRules(role: ClusterRole, all: Iterable<ClusterRole>): unknown[] {
  const selectors = (role.aggregationRule?.clusterRoleSelectors ?? []).map((s) => labelSelectorFromObject(s as LabelSelectorObject));
  const out: unknown[] = [];
  const sources = [...all].filter((r) => r.name !== role.name && selectors.some((s) => s.matches(r.labels))).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const r of sources) for (const rule of r.rules) if (!out.some((x) => jsonEqual(x, rule))) out.push(rule);
  return out;
}

export class ClusterRoleAggregator implements Controller {
  private readonly ctx = systemContext('clusterrole-aggregation-controller');
  private readonly clusterRoles: ServedKind | undefined;
  private unsubscribe: (() => void) | null = null;
  private queued = false;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly cache: RbacCache, registry: Registry, private readonly log: Logger) {
    this.clusterRoles = registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  }

  /** Aggregate now and after every ClusterRole change. */
  start(): void {
    if (!this.clusterRoles) return;
    this.unsubscribe = this.cache.onClusterRoleChange(() => this.schedule());
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** Resolves once the queued pass (if any) is done. */
  idle(): Promise<void> {
    return this.running;
  }

  private schedule(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    this.running = this.running.then(() => new Promise<void>((r) => setImmediate(r))).then(() => {
      this.queued = false;
      return this.pass();
    }).catch((err: unknown) => this.log.warn({ err }, 'clusterrole aggregation failed'));
  }

  private async pass(): Promise<void> {
    const store = this.clusterRoles!.store;
    for (const role of [...this.cache.clusterRoles.values()]) {
      if (this.stopped) return;
      if (!role.aggregationRule) continue;
      const want = aggregatedRules(role, this.cache.clusterRoles.values());
      if (jsonEqual(role.rules, want)) continue;
      const next = { ...(structuredClone(role.raw) as KubeObject), rules: want };
      try {
        await store.update(this.ctx, '', role.name, next);
      } catch (err) {
        // A newer version exists (another replica, or a user): the change notification reschedules.
        if (!(err instanceof ApiError && (err.status.reason === 'Conflict' || err.status.reason === 'NotFound'))) throw err;
      }
    }
  }
}
