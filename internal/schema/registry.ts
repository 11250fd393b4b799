/**
 * The schema registry: one schema per kind, looked up by group/version/kind.
 *
 * Schemas come from sources. `generatedSource()` serves the built-in kinds from the files
 * cmd/gen-schemas.ts writes from Kubernetes' published OpenAPI; a CustomResourceDefinition will
 * register a `StaticSource` holding its structural schema (apiextensions v1) at run time. The
 * registry converts OpenAPI nodes into merge-semantics atoms the way kube-openapi's schemaconv
 * does for kube-apiserver's field manager, lazily and once per type.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Atom, GroupVersionKind, MapAtom, OpenApiSchema, Shape, StructField, TypeRef } from './types.ts';

/** Where schemas come from: generated files, or a CRD's structural schema. */
export interface SchemaSource {
  /** A named definition (target of `$ref`), if this source has it. */
  definition(name: string): OpenApiSchema | undefined;
  /** The root schema of a kind in a group/version, if this source serves it. */
  kind(gvk: GroupVersionKind): OpenApiSchema | undefined;
}

const gvkKey = (g: GroupVersionKind): string => `${g.group}/${g.version}/${g.kind}`;

/** A source built from data held in memory (CRD schemas, tests). */
export class StaticSource implements SchemaSource {
  private readonly kinds = new Map<string, OpenApiSchema>();
  constructor(
    kinds: Array<{ gvk: GroupVersionKind; schema: OpenApiSchema }>,
    private readonly definitions: Record<string, OpenApiSchema> = {},
  ) {
    for (const k of kinds) this.kinds.set(gvkKey(k.gvk), k.schema);
  }
  definition(name: string): OpenApiSchema | undefined {
    return this.definitions[name];
  }
  kind(gvk: GroupVersionKind): OpenApiSchema | undefined {
    return this.kinds.get(gvkKey(gvk));
  }
}

const GENERATED_DIR = join(dirname(fileURLToPath(import.meta.url)), 'generated');

/** Named definitions of a set of OpenAPI files; a kind is the definition listing exactly its GVK. */
export class DefinitionsSource implements SchemaSource {
  private readonly byGvk = new Map<string, string>();
  constructor(private readonly defs: Record<string, OpenApiSchema>) {
    for (const [name, def] of Object.entries(defs)) {
      const gvks = def['x-kubernetes-group-version-kind'] ?? [];
      if (gvks.length === 1) this.byGvk.set(gvkKey(gvks[0]), name);
    }
  }
  definition(name: string): OpenApiSchema | undefined {
    return this.defs[name];
  }
  kind(gvk: GroupVersionKind): OpenApiSchema | undefined {
    const name = this.byGvk.get(gvkKey(gvk));
    // A reference, not the node itself, so the kind resolves to the (cached) named type.
    return name ? { $ref: name } : undefined;
  }
  /** Definition names, for tests and OpenAPI serving. */
  names(): string[] {
    return Object.keys(this.defs);
  }
}

let generated: DefinitionsSource | undefined;

/** The built-in kinds (internal/schema/generated/*.json), loaded on first use. */
export function generatedSource(): DefinitionsSource {
  if (!generated) {
    const defs: Record<string, OpenApiSchema> = {};
    for (const f of readdirSync(GENERATED_DIR)) {
      if (!f.endsWith('.json') || f === 'manifest.json') continue;
      Object.assign(defs, (JSON.parse(readFileSync(join(GENERATED_DIR, f), 'utf8')) as { definitions: Record<string, OpenApiSchema> }).definitions);
    }
    generated = new DefinitionsSource(defs);
  }
  return generated;
}

let descriptions: Record<string, Record<string, string>> | undefined;

/** Descriptions of one generated definition: '' = the type, 'a.b' = its field a.b. */
export function descriptionsOf(definition: string): Record<string, string> | undefined {
  if (!descriptions) {
    descriptions = {};
    const dir = join(GENERATED_DIR, 'descriptions');
    for (const f of readdirSync(dir)) Object.assign(descriptions, JSON.parse(readFileSync(join(dir, f), 'utf8')));
  }
  return descriptions[definition];
}

class LazyRef implements TypeRef {
  private resolved: Atom | undefined;
  constructor(private readonly make: () => Atom) {}
  get atom(): Atom {
    return (this.resolved ??= this.make());
  }
}

const fixed = (atom: Atom): TypeRef => ({ atom });

const untypedAtomic: Atom = {};
const UNTYPED_REF = fixed(untypedAtomic);
untypedAtomic.scalar = 'untyped';
untypedAtomic.list = { elementType: UNTYPED_REF, relationship: 'atomic', keys: [] };
untypedAtomic.map = { fields: new Map(), elementType: UNTYPED_REF, relationship: 'atomic' };

const deduced: Atom = {};
const DEDUCED_REF = fixed(deduced);
deduced.scalar = 'untyped';
deduced.list = { elementType: UNTYPED_REF, relationship: 'atomic', keys: [] };
deduced.map = { fields: new Map(), elementType: DEDUCED_REF, relationship: 'separable' };

/**
 * SMD's DeducedParseableType: the type of an object without a schema (a custom resource without
 * one): every map granular, every list atomic, scalars untyped.
 */
export const DEDUCED_TYPE: TypeRef = DEDUCED_REF;

/** kube-openapi special-cases these definitions. */
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

/** Schemas of all registered sources; the first source that knows a kind or definition wins. */
export class SchemaRegistry {
  private readonly sources: SchemaSource[] = [];
  private named = new Map<string, TypeRef>();
  private kinds = new Map<string, TypeRef | null>();

  constructor(sources: SchemaSource[] = []) {
    this.sources.push(...sources);
  }

  /** Add a source (e.g. a CRD's schema); returns the function that removes it again. */
  register(source: SchemaSource): () => void {
    this.sources.push(source);
    this.invalidate();
    return () => {
      const i = this.sources.indexOf(source);
      if (i >= 0) this.sources.splice(i, 1);
      this.invalidate();
    };
  }

  private invalidate(): void {
    this.named = new Map();
    this.kinds = new Map();
  }

  /** The type of a kind, or undefined when no source serves it. */
  typeOf(gvk: GroupVersionKind): TypeRef | undefined {
    const key = gvkKey(gvk);
    let t = this.kinds.get(key);
    if (t === undefined) {
      let schema: OpenApiSchema | undefined;
      for (const s of this.sources) if ((schema = s.kind(gvk))) break;
      t = schema ? this.refFor(schema, false) : null;
      this.kinds.set(key, t);
    }
    return t ?? undefined;
  }

  /**
   * The OpenAPI node of a kind as its source holds it (generated kinds: a `$ref` to the named
   * definition), for readers of the raw extensions (strategic merge patch's
   * x-kubernetes-patch-strategy / x-kubernetes-patch-merge-key), or undefined.
   */
  openApiKind(gvk: GroupVersionKind): OpenApiSchema | undefined {
    for (const s of this.sources) {
      const node = s.kind(gvk);
      if (node) return node;
    }
    return undefined;
  }

  /** The OpenAPI node of a named definition (the target of a `$ref`), or undefined. */
  openApiDefinition(name: string): OpenApiSchema | undefined {
    for (const s of this.sources) {
      const node = s.definition(name);
      if (node) return node;
    }
    return undefined;
  }

  /** A named definition's type (e.g. io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta). */
  definition(name: string): TypeRef | undefined {
    let t = this.named.get(name);
    if (!t) {
      if (name === RAW_EXTENSION) return UNTYPED_REF;
      let def: OpenApiSchema | undefined;
      for (const s of this.sources) if ((def = s.definition(name))) break;
      if (!def) return undefined;
      const d = def;
      t = new LazyRef(() => this.toAtom(d, false, name));
      this.named.set(name, t);
    }
    return t;
  }

  private refFor(node: OpenApiSchema, preserveUnknown: boolean): TypeRef {
    if (node.$ref) {
      const t = this.definition(node.$ref);
      if (!t) throw new Error(`schema: unknown definition ${node.$ref}`);
      return t;
    }
    return new LazyRef(() => this.toAtom(node, preserveUnknown, ''));
  }

  /** OpenAPI node → atom, following kube-openapi schemaconv (ToSchema). */
  private toAtom(node: OpenApiSchema, inheritedPreserve: boolean, name: string): Atom {
    if (node.$ref) return this.refFor(node, inheritedPreserve).atom;
    if (node['x-kubernetes-int-or-string'] || name === QUANTITY) return { scalar: 'untyped' };
    const preserve = inheritedPreserve || node['x-kubernetes-preserve-unknown-fields'] === true;
    const mapRel = node['x-kubernetes-map-type'] === 'atomic' ? 'atomic' : 'separable';
    const addl = node.additionalProperties;
    if (node.type === 'object' && addl && typeof addl === 'object' && !node.properties) {
      const map: MapAtom = { fields: new Map(), elementType: this.refFor(addl, preserve), relationship: mapRel };
      return { map };
    }
    if (node.type === 'object' || node.properties) {
      const fields = new Map<string, StructField>();
      for (const [k, v] of Object.entries(node.properties ?? {})) {
        const f: StructField = { type: this.refFor(v, preserve) };
        // kube's field manager reads the OpenAPI its own generator wrote, where a non-omitempty
        // scalar Go field defaults to its zero value (e.g. ServicePort.port 0): list keys a
        // list item omits take that value, as in SMD.
        const dflt = v.default !== undefined ? v.default : v['x-go'] === 'v' && !v.$ref ? scalarZero(v.type, v.format) : undefined;
        if (dflt !== undefined) f.default = dflt;
        if (v['x-go']) f.go = v['x-go'];
        fields.set(k, f);
      }
      const map: MapAtom = { fields, relationship: mapRel };
      if (preserve) map.elementType = DEDUCED_REF;
      return { map };
    }
    if (node.type === 'array') {
      const items = node.items ?? {};
      const list = { elementType: this.refFor(items, preserve), relationship: 'atomic' as 'atomic' | 'associative', keys: [] as string[] };
      const listType = node['x-kubernetes-list-type'];
      if (listType === 'set') list.relationship = 'associative';
      else if (listType === 'map') {
        list.relationship = 'associative';
        list.keys = [...(node['x-kubernetes-list-map-keys'] ?? [])];
      } else if (!listType) {
        const strategy = node['x-kubernetes-patch-strategy'];
        if (strategy === 'merge' || strategy === 'merge,retainKeys') {
          list.relationship = 'associative';
          const key = node['x-kubernetes-patch-merge-key'];
          if (key) list.keys = [key];
        }
      }
      return { list };
    }
    switch (node.type) {
      case 'integer':
      case 'number':
        return { scalar: 'numeric' };
      case 'boolean':
        return { scalar: 'boolean' };
      case 'string':
        return { scalar: !node.format || node.format === 'byte' ? 'string' : 'untyped' };
      case undefined:
        return deduced;
      default:
        return { scalar: 'untyped' };
    }
  }
}

/** The zero value of a Go scalar of this OpenAPI type ([]byte strings have none: nil). */
function scalarZero(type: string | undefined, format: string | undefined): unknown {
  if (type === 'string') return format === 'byte' ? undefined : '';
  if (type === 'integer' || type === 'number') return 0;
  if (type === 'boolean') return false;
  return undefined;
}

/** Pick the form of a (possibly untyped) atom that a value has, as SMD's deduceAtom does. */
export function deduceAtom(atom: Atom, value: unknown): Atom {
  if (value === undefined || value === null) return atom;
  // An atom of one form is its own deduction (no object per compared node).
  if (Array.isArray(value)) return atom.list ? (atom.map || atom.scalar ? { list: atom.list } : atom) : atom;
  if (typeof value === 'object') return atom.map ? (atom.list || atom.scalar ? { map: atom.map } : atom) : atom;
  return atom.scalar ? (atom.map || atom.list ? { scalar: atom.scalar } : atom) : atom;
}

/** The type of a field path below `type`; lists are stepped through (as `kubectl explain` does). */
export function fieldAt(type: TypeRef, path: string[]): TypeRef | undefined {
  let t: TypeRef | undefined = type;
  for (const seg of path) {
    while (t && !t.atom.map && t.atom.list) t = t.atom.list.elementType;
    const m: MapAtom | undefined = t?.atom.map;
    if (!m) return undefined;
    t = m.fields.get(seg)?.type ?? m.elementType;
    if (!t) return undefined;
  }
  return t;
}

/** What kind of node a type is (for an untyped node: the form `value` has, if given). */
export function shapeOf(type: TypeRef, value?: unknown): Shape {
  const a = deduceAtom(type.atom, value);
  if (a.map) {
    if (a.map.relationship === 'atomic') return { kind: 'atomic' };
    return a.map.fields.size ? { kind: 'struct', fields: [...a.map.fields.keys()] } : { kind: 'map' };
  }
  if (a.list) {
    if (a.list.relationship === 'atomic') return { kind: 'list', listType: 'atomic' };
    return a.list.keys.length ? { kind: 'list', listType: 'map', keys: [...a.list.keys] } : { kind: 'list', listType: 'set' };
  }
  return { kind: 'scalar', scalar: a.scalar ?? 'untyped' };
}

let defaultRegistry: SchemaRegistry | undefined;

/** The process-wide registry: built-in kinds first; CRDs register into it. */
export function schemas(): SchemaRegistry {
  return (defaultRegistry ??= new SchemaRegistry([generatedSource()]));
}
