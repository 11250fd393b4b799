/**
 * Legacy (non-aggregated) discovery documents: /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>.
 * Clients that ask for aggregated discovery first fall back to these when we answer plain JSON.
 */
import { createHash } from 'node:crypto';
import type { Registry, ServedKind } from '../registry/registry.ts';

export const FULL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** kube's storageversion hash: base64 of the first 8 bytes of sha256("group/version/kind"). */
const hashOf = (s: string): string => createHash('sha256').update(s).digest().subarray(0, 8).toString('base64');

function resourcesOf(kinds: ServedKind[]) {
  const out: Record<string, unknown>[] = [];
  for (const { kind } of kinds) {
    const r: Record<string, unknown> = {
      name: kind.resource,
      singularName: '', // kube-apiserver 1.24 leaves it empty for every built-in resource
      namespaced: kind.namespaced,
      kind: kind.kind,
      verbs: kind.verbs ?? FULL_VERBS,
      // The hash names the version objects are stored in: a view shares its storage kind's.
      storageVersionHash: kind.storedAs
        ? hashOf(`${kind.storedAs.group}/${kind.storedAs.version}/${kind.storedAs.kind}`)
        : hashOf(`${kind.group}/${kind.versions[0]}/${kind.kind}`),
    };
    if (kind.shortNames.length) r.shortNames = kind.shortNames;
    if (kind.categories?.length) r.categories = kind.categories;
    out.push(r);
    for (const sub of kind.subresources ?? []) {
      out.push({ name: `${kind.resource}/${sub.name}`, singularName: '', namespaced: kind.namespaced, kind: kind.kind, verbs: sub.verbs });
    }
  }
  return out;
}

export function apiVersions(serverAddress: string) {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiResourceList(registry: Registry, group: string, version: string) {
  const kinds = registry.inGroupVersion(group, version);
  if (!kinds.length) return null;
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources: resourcesOf(kinds) };
}

function groupDoc(name: string, versions: string[]) {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(registry: Registry) {
  const groups = [...registry.groups()].filter(([g]) => g !== '').map(([g, vs]) => groupDoc(g, vs));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

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
