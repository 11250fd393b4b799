/**
 * kube-apiserver's rbac/bootstrap-roles post-start hook: the bootstrap policy of Kubernetes 1.24
 * (auth/rbac/bootstrap-policy.json, read from a reference kube-apiserver by cmd/gen-rbac-bootstrap.ts) is
 * reconciled at every start: missing objects are created; objects annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "true"` get back any rule, subject, label or
 * annotation of the policy they lost (additions are kept); objects an administrator set to
 * autoupdate "false" are left alone. Safe with several replicas: AlreadyExists and Conflict mean
 * another replica did it first.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { systemContext } from '../registry/generic/context.ts';
import { jsonEqual } from '../gocompat/equal.ts';
import { RBAC_GROUP } from '../auth/rbac/cache.ts';

const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const KINDS: [string, string][] = [['clusterroles', 'ClusterRole'], ['clusterrolebindings', 'ClusterRoleBinding'], ['roles', 'Role'], ['rolebindings', 'RoleBinding']];

type Policy = Record<string, KubeObject[]>;

/** The 1.24 bootstrap policy (objects without kind/apiVersion). */
export function bootstrapPolicy(): Policy {
  return JSON.parse(readFileSync(join(import.meta.dirname, '..', 'auth', 'rbac', 'bootstrap-policy.json'), 'utf8')) as Policy;
}

const union = (have: unknown[], want: unknown[]): unknown[] => [...have, ...want.filter((w) => !have.some((h) => jsonEqual(h, w)))];

/**
 * Create or reconcile every bootstrap object. Returns how many were created / updated. The objects
 * are independent, so they are reconciled concurrently: on a first start their ~100 creates share
 * a few group commits (fsyncs) instead of paying one each, in sequence.
 */
export async function reconcileBootstrapPolicy(registry: Registry, policy: Policy = bootstrapPolicy()): Promise<{ created: number; updated: number }> {
  const ctx = systemContext('rbac-bootstrap');
  let created = 0;
  let updated = 0;
  const one = async (served: ServedKind, kind: string, want: KubeObject): Promise<void> => {
    const ns = want.metadata.namespace ?? '';
    const name = want.metadata.name!;
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await served.store.getLatest(ns, name).then((b) => JSON.parse(b.toString('utf8')) as KubeObject, () => null);
      try {
        if (!current) {
          await served.store.create(ctx, ns, { apiVersion: `${RBAC_GROUP}/v1`, kind, ...structuredClone(want) } as KubeObject);
          created++;
        } else {
          const next = reconciled(current, want);
          if (!next) break;
          await served.store.update(ctx, ns, name, next);
          updated++;
        }
        break;
      } catch (err) {
        // Another replica created or updated it meanwhile: look again.
        if (err instanceof ApiError && (err.status.reason === 'AlreadyExists' || err.status.reason === 'Conflict')) continue;
        throw err;
      }
    }
  };
  const work: Promise<void>[] = [];
  for (const [resource, kind] of KINDS) {
    const served = registry.lookup(RBAC_GROUP, 'v1', resource);
    if (!served) continue;
    for (const want of policy[resource] ?? []) work.push(one(served, kind, want));
  }
  await Promise.all(work);
  return { created, updated };
}

/** The object with what it lacks of the policy, or null when nothing is missing (or autoupdate is off). */
function reconciled(current: KubeObject, want: KubeObject): KubeObject | null {
  if (current.metadata.annotations?.[AUTOUPDATE] === 'false') return null;
  const next = structuredClone(current);
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const w = want.metadata[field] ?? {};
    const have = (next.metadata[field] ??= {});
    for (const [k, v] of Object.entries(w)) {
      if (have[k] === undefined) {
        have[k] = v;
        changed = true;
      }
    }
  }
  for (const field of ['rules', 'subjects'] as const) {
    // Aggregated roles' rules belong to the aggregation controller.
    if (field === 'rules' && want.aggregationRule) continue;
    const w = (want[field] as unknown[] | undefined) ?? [];
    const have = (next[field] as unknown[] | undefined) ?? [];
    const merged = union(have, w);
    if (merged.length !== have.length) {
      next[field] = merged;
      changed = true;
    }
  }
  if (want.aggregationRule && !jsonEqual(next.aggregationRule, want.aggregationRule)) {
    next.aggregationRule = want.aggregationRule;
    changed = true;
  }
  return changed ? next : null;
}
