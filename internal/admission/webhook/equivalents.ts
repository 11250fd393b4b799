/**
 * matchPolicy Equivalent's resource mapper (kube's EquivalentResourceRegistry): resources are
 * equivalent when they serve the same stored objects — another version of the same kind (e.g.
 * storage.k8s.io v1 and v1beta1 CSIStorageCapacity) or a view of another kind's storage
 * (events.k8s.io Event over core Event). Objects convert through the stored form.
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor } from '../../registry/rest/strategy.ts';
import type { GroupVersionKind, GroupVersionResource } from './match.ts';
import type { ObjectConverter } from './dispatch.ts';

interface Served {
  kind: KindDescriptor;
  version: string;
}

/** The stored identity of a kind: its own group/resource, or the one it is a view of. */
const storageOf = (k: KindDescriptor): string => (k.storedAs ? `${k.storedAs.group}/${k.storedAs.resource}` : `${k.group}/${k.resource}`);

/** A converter over the kinds `kinds()` answers (read on each call: the registry is built later). */
export function kindConverter(kinds: () => readonly KindDescriptor[]): ObjectConverter {
  const find = (gvr: GroupVersionResource): Served | undefined => {
    for (const kind of kinds()) if (kind.group === gvr.group && kind.resource === gvr.resource && kind.versions.includes(gvr.version)) return { kind, version: gvr.version };
    return undefined;
  };
  const hasSub = (k: KindDescriptor, sub: string): boolean => !sub || Boolean(k.subresources?.some((s) => s.name === sub));
  return {
    equivalents(gvr, subresource): GroupVersionResource[] {
      const self = find(gvr);
      if (!self || self.kind.virtual) return [];
      const key = storageOf(self.kind);
      const out: GroupVersionResource[] = [];
      for (const k of kinds()) {
        if (k.virtual || storageOf(k) !== key || !hasSub(k, subresource)) continue;
        for (const v of k.versions) out.push({ group: k.group, version: v, resource: k.resource });
      }
      return out;
    },
    kindFor(gvr, subresource): GroupVersionKind | undefined {
      const s = find(gvr);
      if (!s || !hasSub(s.kind, subresource)) return undefined;
      return { group: s.kind.group, version: s.version, kind: s.kind.kind };
    },
    convert(obj: KubeObject, from: GroupVersionResource, to: GroupVersionResource): KubeObject {
      const f = find(from);
      const t = find(to);
      if (!f || !t) return obj;
      const stored = f.kind.storedAs ? f.kind.storedAs.toStorage(obj) : obj;
      const out = t.kind.storedAs ? t.kind.storedAs.fromStorage(stored) : structuredClone(stored);
      out.apiVersion = t.kind.group ? `${t.kind.group}/${t.version}` : t.version;
      out.kind = t.kind.kind;
      return out;
    },
  };
}
