/**
 * Legacy (non-aggregated) discovery documents: /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>.
 * Clients that ask for aggregated discovery first fall back to these when we answer plain JSON.
 */
import { createHash } from 'node:crypto';
import type { Registry, ServedKind } from '../registry/registry.ts';
import { kindAt } from '../registry/rest/strategy.ts';
import { aggregatedAPIGroup, type APIServiceIndex } from './aggregator.ts';

/** Verbs of a resource that serves everything (in discovery's sorted order). */
export const FULL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>"),
 * the version being the one objects are stored in (our preferred version).
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** Verbs as discovery lists them: sorted (kube builds them as a sorted string set). */
const sortedVerbs = (verbs: string[]): string[] => [...new Set(verbs)].sort();

/**
 * The APIResource entries of a group version, ordered by name as kube's installer lists its
 * (sorted) paths, subresources (`namespaces/status`) right after their resource. Fields follow
 * metav1.APIResource's order; 1.24 leaves singularName empty, and subresources carry no
 * storageVersionHash.
 */
function resourcesOf(kinds: readonly ServedKind[], version: string) {
  const out: Record<string, unknown>[] = [];
  for (const served of kinds) {
    // A custom resource's subresources are its version's.
    const kind = kindAt(served.kind, version);
    const r: Record<string, unknown> = {
      name: kind.resource,
      // Built-ins as kube-apiserver lists them, unless the kind says otherwise (custom resources).
      singularName: kind.discovery?.singularName ?? '',
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: kind.discovery?.verbsInOrder && kind.verbs ? kind.verbs : sortedVerbs(kind.verbs ?? FULL_VERBS),
    };
    if (kind.shortNames.length) r.shortNames = kind.shortNames;
    if (kind.categories?.length) r.categories = kind.categories;
    // The hash names the version objects are stored in: a view (events.k8s.io Events) shares its
    // storage kind's; a virtual kind (access reviews) or a computed one (ComponentStatus) stores
    // nothing and has none.
    // An explicit storageVersion (kube's encoding version) wins over the form we store in.
    const stored = kind.storageVersion ? { group: kind.group, version: kind.storageVersion, kind: kind.kind } : (kind.storedAs ?? { group: kind.group, version: kind.versions[0], kind: kind.kind });
    if (!kind.virtual && !kind.computed) r.storageVersionHash = storageVersionHash(stored.group, stored.version, stored.kind);
    out.push(r);
    for (const sub of kind.subresources ?? []) {
      // APIResource.group/version name a subresource's kind only when its group differs (pods/eviction: policy/v1).
      const subKind = sub.kind && sub.kind.group !== kind.group ? { group: sub.kind.group, version: sub.kind.version, kind: sub.kind.kind } : { kind: sub.kind?.kind ?? kind.kind };
      out.push({ name: `${kind.resource}/${sub.name}`, singularName: '', namespaced: kind.namespaced, ...subKind, verbs: sortedVerbs(sub.verbs) });
    }
  }
  const byName = (e: Record<string, unknown>): string => String(e.name);
  return out.sort((x, y) => (byName(x) < byName(y) ? -1 : byName(x) > byName(y) ? 1 : 0));
}

/** /api: the core group's versions and the address clients reach this server at. */
export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

/**
 * /api/<v> or /apis/<g>/<v>; null when nothing is served there. The legacy core list has no
 * apiVersion (kube-apiserver writes it unversioned); group lists carry `apiVersion: v1`.
 */
export function apiResourceList(registry: Registry, group: string, version: string) {
  const kinds = registry.inGroupVersion(group, version);
  if (!kinds.length) return null;
  if (!group) return { kind: 'APIResourceList', groupVersion: version, resources: resourcesOf(kinds, version) };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: resourcesOf(kinds, version) };
}

/**
 * The groups of kube-apiserver 1.24's /apis, in its order (the aggregator sorts APIServices by
 * group priority), each with its versions in kube's order (preferred first). Groups we serve are
 * listed in this order; others (none today) follow by name.
 */
const KUBE_GROUPS: [string, string[]][] = [
  ['apiregistration.k8s.io', ['v1']],
  ['apps', ['v1']],
  ['events.k8s.io', ['v1', 'v1beta1']],
  ['authentication.k8s.io', ['v1']],
  ['authorization.k8s.io', ['v1']],
  ['autoscaling', ['v2', 'v1', 'v2beta1', 'v2beta2']],
  ['batch', ['v1', 'v1beta1']],
  ['certificates.k8s.io', ['v1']],
  ['networking.k8s.io', ['v1']],
  ['policy', ['v1', 'v1beta1']],
  ['rbac.authorization.k8s.io', ['v1']],
  ['storage.k8s.io', ['v1', 'v1beta1']],
  ['admissionregistration.k8s.io', ['v1']],
  ['apiextensions.k8s.io', ['v1']],
  ['scheduling.k8s.io', ['v1']],
  ['coordination.k8s.io', ['v1']],
  ['node.k8s.io', ['v1', 'v1beta1']],
  ['discovery.k8s.io', ['v1', 'v1beta1']],
  ['flowcontrol.apiserver.k8s.io', ['v1beta2', 'v1beta1']],
];
const GROUP_RANK = new Map(KUBE_GROUPS.map(([g], i) => [g, i] as const));
const VERSION_ORDER = new Map(KUBE_GROUPS);

/** A group's served versions in kube's order (versions kube does not list keep ours, after). */
function orderedVersions(group: string, versions: readonly string[]): string[] {
  const kube = VERSION_ORDER.get(group) ?? [];
  const rank = (v: string): number => (kube.includes(v) ? kube.indexOf(v) : kube.length);
  return [...versions].sort((a, b) => rank(a) - rank(b));
}

function groupDoc(name: string, versions: readonly string[]) {
  const vs = orderedVersions(name, versions).map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** The groups /apis lists (a registry's `groups()`), in kube's order. */
type GroupSource = Pick<Registry, 'groups'>;

/** The APIServices (aggregator.ts's index): groups served elsewhere, and kube-aggregator's group order. */
export type AggregatedGroups = Pick<APIServiceIndex, 'groups' | 'sortedGroups'>;

/**
 * /apis: every named group with its versions (preferred first), in kube-apiserver's order. With
 * the APIServices, kube-aggregator's: apiregistration.k8s.io first, then the groups of the stored
 * APIServices by groupPriorityMinimum (groups served elsewhere included, with their versions by
 * versionPriority); a served group without an APIService yet follows.
 */
export function apiGroupList(registry: GroupSource, aggregated?: AggregatedGroups) {
  const rank = (g: string): number => GROUP_RANK.get(g) ?? KUBE_GROUPS.length;
  const local = registry.groups();
  const named = [...local].filter(([g]) => g !== '');
  named.sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const docs = named.map(([g, vs]) => groupDoc(g, vs));
  if (!aggregated) return { kind: 'APIGroupList', apiVersion: 'v1', groups: docs };
  for (const [g, entries] of aggregated.groups()) if (!local.has(g)) docs.push(aggregatedAPIGroup(entries));
  const position = new Map(aggregated.sortedGroups().map((es, i) => [es[0]!.group, i] as const));
  const at = (g: string): number => (g === 'apiregistration.k8s.io' ? -1 : position.get(g) ?? Number.MAX_SAFE_INTEGER);
  // (Array.prototype.sort is stable: groups without an APIService keep their order.)
  docs.sort((a, b) => at(a.name) - at(b.name));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: docs };
}

/** /apis/<group>; null for the core group or a group not served here or elsewhere. */
export function apiGroup(registry: GroupSource, group: string, aggregated?: AggregatedGroups) {
  const vs = registry.groups().get(group);
  if (group && !vs) {
    const entries = aggregated?.groups().get(group);
    return entries ? { kind: 'APIGroup', apiVersion: 'v1', ...aggregatedAPIGroup(entries) } : null;
  }
  if (!group || !vs) return null;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(group, vs) };
}

/** What /version reports: the Kubernetes API level we implement. */
export const versionInfo = {
  major: '1',
  minor: '24',
  gitVersion: 'v1.24.17-eventsourced',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-11-23T00:00:00Z',
  goVersion: 'node' + process.versions.node,
  compiler: 'tsx',
  platform: `${process.platform}/${process.arch}`,
};
