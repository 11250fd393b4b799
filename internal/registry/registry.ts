/**
 * The set of served kinds. Built once at start-up from KindDescriptors; each gets one
 * GenericStore (writes) and one GenericReader (reads). Lookup is by (group, version, resource).
 */
import type { KindDescriptor, KindOptions, VirtualDeps, VirtualKind } from './rest/strategy.ts';
import { allowAuthenticated } from '../auth/authz.ts';
import { GenericStore } from './generic/store.ts';
import { GenericReader } from './generic/reader.ts';
import type { Storage } from '../storage/storage.ts';
import type { Admission } from './rest/admission.ts';

export interface ServedKind {
  kind: KindDescriptor;
  store: GenericStore;
  reader: GenericReader;
  /** Set for a create-only kind answered without storage (KindDescriptor.virtual). */
  virtual?: VirtualKind;
}

export class Registry {
  private readonly byPath = new Map<string, ServedKind>();
  readonly kinds: ServedKind[] = [];

  constructor(
    descriptors: KindDescriptor[],
    storage: Storage,
    admission: Admission,
    options: KindOptions = {},
    virtualDeps: VirtualDeps = { authorizer: allowAuthenticated },
  ) {
    for (const given of descriptors) {
      // A kind rebuilt for the options keeps the versions it was given (--runtime-config may have cut some).
      const d = given.forOptions ? { ...given.forOptions(options), versions: given.versions } : given;
      const hooks = d.hooks?.({ storage, options });
      const virtual = d.virtual?.(virtualDeps);
      const served: ServedKind = { kind: d, store: new GenericStore(d, storage, admission, hooks, virtual, options.featureGates), reader: new GenericReader(d, storage), virtual };
      for (const v of d.versions) {
        const k = `${d.group}/${v}/${d.resource}`;
        if (this.byPath.has(k)) throw new Error(`resource ${k} registered twice`);
        this.byPath.set(k, served);
      }
      this.kinds.push(served);
    }
  }

  lookup(group: string, version: string, resource: string): ServedKind | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /**
   * The kinds that own their storage (views of another kind's storage and virtual kinds left
   * out), so a walk over every stored object (namespace cleanup, garbage-collector scan) meets
   * each object once.
   */
  storageKinds(): ServedKind[] {
    return this.kinds.filter((k) => !k.kind.storedAs && !k.virtual);
  }

  /** group → versions served (preferred first), for discovery. */
  groups(): Map<string, string[]> {
    const m = new Map<string, string[]>();
    for (const { kind } of this.kinds) {
      const vs = m.get(kind.group) ?? [];
      for (const v of kind.versions) if (!vs.includes(v)) vs.push(v);
      m.set(kind.group, vs);
    }
    return m;
  }

  /** Kinds served at group/version. */
  inGroupVersion(group: string, version: string): ServedKind[] {
    return this.kinds.filter((k) => k.kind.group === group && k.kind.versions.includes(version));
  }
}
