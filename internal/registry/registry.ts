/**
 * The set of served kinds: the one source of truth for which kinds this server serves, and it
 * changes at run time. Filled at start-up from the built-in KindDescriptors; `add` and `remove`
 * change it later (a CustomResourceDefinition's kind is one more descriptor), and subscribers
 * (discovery and OpenAPI caches, the garbage collector, …) hear of each change synchronously,
 * right after it. Each kind gets one GenericStore (writes) and one GenericReader (reads).
 *
 * Lookup by (group, version, resource) is one Map read, as before: the request path pays nothing
 * for kinds being changeable. The derived views (`kinds`, `storageKinds()`, `groups()`,
 * `inGroupVersion()`) are rebuilt on first use after a change, never per request. Lists handed out
 * are never mutated afterwards (a change builds new ones), so a walk that awaits between kinds
 * (namespace cleanup) keeps the list it started with.
 *
 * `add` and `remove` are synchronous and complete: a request, which runs between event-loop
 * turns, sees a kind either not at all or with its store, reader and every version at once. They
 * may therefore be called from the fold's commit path (a storage change listener; see
 * docs/architecture.md, "Kinds defined at run time").
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

/** What changed: a kind now served, or no longer served (with every version it had). */
export interface KindChange {
  type: 'added' | 'removed';
  served: ServedKind;
}

export type KindListener = (change: KindChange) => void;

/**
 * The versions of a kind that are served (`--runtime-config`); a kind left with none is not
 * served. Applied to every kind, those added later included.
 */
export type VersionFilter = (kind: KindDescriptor) => string[];

export class Registry {
  private readonly byPath = new Map<string, ServedKind>();
  private all: ServedKind[] = [];
  private readonly listeners = new Set<KindListener>();
  /** Derived views, dropped on every change and rebuilt on first use. */
  private cache: { storage?: ServedKind[]; groups?: Map<string, string[]>; byGroupVersion?: Map<string, ServedKind[]> } = {};
  private readonly options: KindOptions;

  constructor(
    descriptors: readonly KindDescriptor[],
    private readonly storage: Storage,
    private readonly admission: Admission,
    options: KindOptions = {},
    private readonly virtualDeps: VirtualDeps = { authorizer: allowAuthenticated },
    private readonly versionFilter?: VersionFilter,
  ) {
    this.options = options;
    for (const d of descriptors) this.add(d);
  }

  /** Every served kind, in the order added (discovery and OpenAPI list them in this order). */
  get kinds(): readonly ServedKind[] {
    return this.all;
  }

  lookup(group: string, version: string, resource: string): ServedKind | undefined {
    return this.byPath.get(`${group}/${version}/${resource}`);
  }

  /**
   * Serve a kind at each of its versions that the version filter keeps; undefined when it keeps
   * none (the kind stays unserved, as `--runtime-config` disables it). Throws, changing nothing,
   * when one of its paths is served already. Subscribers hear `added` before this returns.
   */
  add(given: KindDescriptor): ServedKind | undefined {
    const versions = this.versionFilter ? this.versionFilter(given) : given.versions;
    if (!versions.length) return undefined;
    // A kind rebuilt for the options keeps the versions it was given (--runtime-config may have cut some).
    const base = given.forOptions ? { ...given.forOptions(this.options), versions: given.versions } : given;
    const d = versions.length === base.versions.length ? base : { ...base, versions };
    const paths = d.versions.map((v) => `${d.group}/${v}/${d.resource}`);
    for (const p of paths) if (this.byPath.has(p)) throw new Error(`resource ${p} registered twice`);
    const hooks = d.hooks?.({ storage: this.storage, options: this.options });
    const virtual = d.virtual?.(this.virtualDeps);
    const served: ServedKind = { kind: d, store: new GenericStore(d, this.storage, this.admission, hooks, virtual, this.options.featureGates, (g, v, r) => this.lookup(g, v, r)), reader: new GenericReader(d, this.storage, d.computed?.({ storage: this.storage, options: this.options })), virtual };
    for (const p of paths) this.byPath.set(p, served);
    this.all = [...this.all, served];
    this.changed({ type: 'added', served });
    return served;
  }

  /**
   * Stop serving the kind served at group/version/resource, at every version it is served (one
   * descriptor is one kind). Its stored objects stay in storage untouched. Subscribers hear
   * `removed` before this returns; undefined when nothing is served there.
   */
  remove(group: string, version: string, resource: string): ServedKind | undefined {
    const served = this.lookup(group, version, resource);
    if (!served) return undefined;
    for (const v of served.kind.versions) this.byPath.delete(`${served.kind.group}/${v}/${served.kind.resource}`);
    this.all = this.all.filter((s) => s !== served);
    this.changed({ type: 'removed', served });
    return served;
  }

  /** Hear every later change, synchronously after it. Returns the unsubscribe function. */
  subscribe(listener: KindListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(change: KindChange): void {
    this.cache = {};
    for (const l of [...this.listeners]) l(change);
  }

  /**
   * The kinds that own their storage (views of another kind's storage, virtual and computed kinds
   * left out), so a walk over every stored object (namespace cleanup, garbage-collector scan) meets
   * each object once.
   */
  storageKinds(): readonly ServedKind[] {
    return (this.cache.storage ??= this.all.filter((k) => !k.kind.storedAs && !k.virtual && !k.kind.computed));
  }

  /** group → versions served (preferred first), for discovery. Do not mutate. */
  groups(): ReadonlyMap<string, readonly string[]> {
    if (this.cache.groups) return this.cache.groups;
    const m = new Map<string, string[]>();
    for (const { kind } of this.all) {
      const vs = m.get(kind.group) ?? [];
      for (const v of kind.versions) if (!vs.includes(v)) vs.push(v);
      m.set(kind.group, vs);
    }
    return (this.cache.groups = m);
  }

  /** Kinds served at group/version. */
  inGroupVersion(group: string, version: string): readonly ServedKind[] {
    if (!this.cache.byGroupVersion) {
      const m = new Map<string, ServedKind[]>();
      for (const k of this.all) {
        for (const v of k.kind.versions) {
          const key = `${k.kind.group}/${v}`;
          m.set(key, [...(m.get(key) ?? []), k]);
        }
      }
      this.cache.byGroupVersion = m;
    }
    return this.cache.byGroupVersion.get(`${group}/${version}`) ?? [];
  }
}
