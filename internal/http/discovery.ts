/**
 * Legacy (non-aggregated) discovery documents: /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>.
 * Clients that ask for aggregated discovery first fall back to these when we answer plain JSON.
 */
import { createHash } from 'node:crypto';
import type { Registry, ServedKind } from '../registry/registry.ts';

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
function resourcesOf(kinds: ServedKind[]) {
  const out: Record<string, unknown>[] = [];
  for (const { kind } of kinds) {
    const r: Record<string, unknown> = {
      name: kind.resource,
      singularName: '',
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: sortedVerbs(kind.verbs ?? FULL_VERBS),
    };
    if (kind.shortNames.length) r.shortNames = kind.shortNames;
    if (kind.categories?.length) r.categories = kind.categories;
    r.storageVersionHash = storageVersionHash(kind.group, kind.versions[0], kind.kind);
    out.push(r);
    for (const sub of kind.subresources ?? []) {
      out.push({ name: `${kind.resource}/${sub.name}`, singularName: '', namespaced: kind.namespaced, kind: kind.kind, verbs: sortedVerbs(sub.verbs) });
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
  if (!group) return { kind: 'APIResourceList', groupVersion: version, resources: resourcesOf(kinds) };
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: resourcesOf(kinds) };
}

function groupDoc(name: string, versions: string[]) {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

/** /apis: every named group with its versions (preferred first). */
export function apiGroupList(registry: Registry) {
  const groups = [...registry.groups()].filter(([g]) => g !== '').map(([g, vs]) => groupDoc(g, vs));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** /apis/<group>; null for the core group or a group not served. */
export function apiGroup(registry: Registry, group: string) {
  const vs = registry.groups().get(group);
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
