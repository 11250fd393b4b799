/**
 * The RBAC objects the authorizer reads, held in memory and kept current from the fold (kube's
 * RBAC authorizer reads informer caches). Start: subscribe to changes first, then load a consistent
 * view, then apply the changes newer than the view — so nothing committed is missed. A change is
 * applied in the same step that folds it, so a binding written by request N is seen by any request
 * answered after N's write was acknowledged on this replica.
 */
import type { Storage } from '../../storage/storage.ts';
import type { ObjectKey } from '../../storage/keys.ts';
import { followStore } from '../../storage/follow.ts';
import type { Change } from '../../storage/mvcc/materializer.ts';
import { serviceAccountUsername, type PolicyRule, type Subject } from './rules.ts';
import type { UserInfo } from '../../api/types.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RESOURCES = ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'] as const;
type Resource = (typeof RESOURCES)[number];

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Binding {
  name: string;
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

export interface ClusterRole {
  name: string;
  rules: PolicyRule[];
  labels: Record<string, string>;
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
  raw: Record<string, unknown>;
}

interface Stored {
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: PolicyRule[];
  roleRef?: RoleRef;
  subjects?: Subject[];
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
}

const keyOf = (ns: string, name: string): string => `${ns}/${name}`;
const byName = <T extends { name: string }>(m: Iterable<T>): T[] => [...m].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

export class RbacCache {
  /** `<ns>/<name>` → rules. */
  readonly roles = new Map<string, PolicyRule[]>();
  readonly clusterRoles = new Map<string, ClusterRole>();
  /** namespace → bindings of that namespace. */
  readonly roleBindings = new Map<string, Map<string, Binding>>();
  readonly clusterRoleBindings = new Map<string, Binding>();
  private unsubscribe: (() => void) | null = null;
  /** Bindings in name order with their subject index; rebuilt only after a binding changed. */
  private sortedClusterBindings: IndexedBindings | null = null;
  private readonly sortedRoleBindings = new Map<string, IndexedBindings>();
  /** Listeners for ClusterRole changes (the aggregation controller). */
  private readonly clusterRoleListeners = new Set<(name: string) => void>();

  /** Load everything and follow the fold. Resolves once the cache is current. */
  async start(storage: Storage): Promise<void> {
    this.unsubscribe = await followStore(storage, {
      resources: RESOURCES.map((resource) => ({ group: RBAC_GROUP, resource })),
      wants: (key) => key.group === RBAC_GROUP,
      load: (r, json) => this.put(r.resource as (typeof RESOURCES)[number], JSON.parse(json.toString('utf8')) as Stored),
      apply: (c) => this.apply(c),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /**
   * The ClusterRoleBindings with a subject that may name `user`, in name order: what the
   * authorizer walks instead of every binding (with 1,000 bindings, the walk of all of them was
   * most of an authorized request's cost). The caller still matches subjects exactly.
   */
  clusterRoleBindingsFor(user: UserInfo): Binding[] {
    return candidates(this.clusterIndex(), user);
  }

  /** The RoleBindings of `namespace` with a subject that may name `user`, in name order. */
  roleBindingsFor(namespace: string, user: UserInfo): Binding[] {
    return candidates(this.namespaceIndex(namespace), user);
  }

  private clusterIndex(): IndexedBindings {
    return (this.sortedClusterBindings ??= indexBindings(byName(this.clusterRoleBindings.values())));
  }

  private namespaceIndex(namespace: string): IndexedBindings {
    let list = this.sortedRoleBindings.get(namespace);
    if (!list) this.sortedRoleBindings.set(namespace, (list = indexBindings(byName(this.roleBindings.get(namespace)?.values() ?? []))));
    return list;
  }

  /** Called with a ClusterRole's name whenever it changes or goes away. */
  onClusterRoleChange(f: (name: string) => void): () => void {
    this.clusterRoleListeners.add(f);
    return () => this.clusterRoleListeners.delete(f);
  }

  private apply(c: Change): void {
    const resource = c.key.resource as Resource;
    if (!RESOURCES.includes(resource)) return;
    if (c.type === 'DELETED') this.remove(resource, c.key);
    else this.put(resource, JSON.parse(c.object.toString('utf8')) as Stored);
  }

  private put(resource: Resource, o: Stored): void {
    const ns = o.metadata.namespace ?? '';
    const name = o.metadata.name;
    switch (resource) {
      case 'roles':
        this.roles.set(keyOf(ns, name), o.rules ?? []);
        break;
      case 'clusterroles':
        this.clusterRoles.set(name, { name, rules: o.rules ?? [], labels: o.metadata.labels ?? {}, aggregationRule: o.aggregationRule, raw: o as unknown as Record<string, unknown> });
        for (const f of this.clusterRoleListeners) f(name);
        break;
      case 'rolebindings': {
        let m = this.roleBindings.get(ns);
        if (!m) this.roleBindings.set(ns, (m = new Map()));
        m.set(name, { name, namespace: ns, roleRef: o.roleRef!, subjects: o.subjects ?? [] });
        this.sortedRoleBindings.delete(ns);
        break;
      }
      case 'clusterrolebindings':
        this.clusterRoleBindings.set(name, { name, namespace: '', roleRef: o.roleRef!, subjects: o.subjects ?? [] });
        this.sortedClusterBindings = null;
        break;
    }
  }

  private remove(resource: Resource, k: ObjectKey): void {
    switch (resource) {
      case 'roles':
        this.roles.delete(keyOf(k.namespace, k.name));
        break;
      case 'clusterroles':
        this.clusterRoles.delete(k.name);
        for (const f of this.clusterRoleListeners) f(k.name);
        break;
      case 'rolebindings':
        this.roleBindings.get(k.namespace)?.delete(k.name);
        this.sortedRoleBindings.delete(k.namespace);
        break;
      case 'clusterrolebindings':
        this.clusterRoleBindings.delete(k.name);
        this.sortedClusterBindings = null;
        break;
    }
  }
}

/** Bindings in name order, and the positions of those whose subjects name a user or a group. */
interface IndexedBindings {
  list: Binding[];
  /** `u:<username>` (User subjects, and ServiceAccount subjects as their username) and `g:<group>` → ascending positions. */
  bySubject: Map<string, number[]>;
}

function indexBindings(list: Binding[]): IndexedBindings {
  const bySubject = new Map<string, number[]>();
  const add = (key: string, i: number): void => {
    const at = bySubject.get(key);
    if (!at) bySubject.set(key, [i]);
    else if (at[at.length - 1] !== i) at.push(i);
  };
  list.forEach((b, i) => {
    for (const s of b.subjects) {
      if (s.kind === 'User') add(`u:${s.name}`, i);
      else if (s.kind === 'Group') add(`g:${s.name}`, i);
      else if (s.kind === 'ServiceAccount') {
        const ns = s.namespace || b.namespace;
        if (ns) add(`u:${serviceAccountUsername(ns, s.name)}`, i);
      }
    }
  });
  return { list, bySubject };
}

/** The bindings naming the user or one of its groups, in the list's (name) order. */
function candidates(ix: IndexedBindings, user: UserInfo): Binding[] {
  const hits: number[][] = [];
  const u = ix.bySubject.get(`u:${user.username}`);
  if (u) hits.push(u);
  for (const g of user.groups) {
    const at = ix.bySubject.get(`g:${g}`);
    if (at) hits.push(at);
  }
  if (hits.length === 0) return [];
  if (hits.length === 1) return hits[0]!.map((i) => ix.list[i]!);
  const positions = [...new Set(hits.flat())].sort((a, b) => a - b);
  return positions.map((i) => ix.list[i]!);
}
