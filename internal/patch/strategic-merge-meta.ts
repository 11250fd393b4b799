/**
 * Patch metadata for strategic merge patch, read from the kind's OpenAPI schema.
 *
 * kube-apiserver 1.24 applies a strategic merge patch to a built-in kind with
 * strategicpatch.PatchMetaFromStruct: reflection over the versioned Go type, reading the
 * `patchStrategy` / `patchMergeKey` struct tags. The generated schemas carry the same information
 * as `x-kubernetes-patch-strategy` / `x-kubernetes-patch-merge-key` on each property (openapi-gen
 * writes them from those tags), and `x-go` tells pointers from values; this module walks the schema
 * the way the reflection walks the Go type, including its errors and their texts (which name Go
 * kinds and struct names).
 */
import type { OpenApiSchema } from '../schema/types.ts';
import { SmpError } from './strategic-merge-errors.ts';

/** A field's patch strategies (split on ",") and merge key (strategicpatch.PatchMeta). */
export interface PatchMeta {
  strategies: string[];
  mergeKey: string;
}

/** What the merge asks of a schema node (strategicpatch.LookupPatchMeta). */
export interface LookupPatchMeta {
  /** The schema of field `key` of this struct and the field's patch metadata. */
  lookupStruct(key: string): { schema: LookupPatchMeta; meta: PatchMeta };
  /** The element schema of slice field `key` of this struct and the field's patch metadata. */
  lookupSlice(key: string): { schema: LookupPatchMeta; meta: PatchMeta };
  /** reflect.Kind of the Go type ("struct", "map", "slice", "ptr", "string", ...). */
  name(): string;
}

const NO_META: PatchMeta = { strategies: [], mergeKey: '' };

/**
 * No schema (strategicpatch.PatchMetaFromOpenAPI with a nil schema): every lookup succeeds without
 * metadata, so maps merge and lists are replaced.
 */
export const NO_SCHEMA: LookupPatchMeta = {
  lookupStruct: () => ({ schema: NO_SCHEMA, meta: NO_META }),
  lookupSlice: () => ({ schema: NO_SCHEMA, meta: NO_META }),
  name: () => '',
};

/** Definitions that are Go structs serialized as JSON scalars or raw JSON (no JSON fields). */
export const OPAQUE_STRUCTS = new Set([
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
  'io.k8s.apimachinery.pkg.runtime.RawExtension',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1',
]);

type Resolve = (definition: string) => OpenApiSchema | undefined;

/** A Go type seen through its schema node: kind, struct name and fields. */
interface GoType {
  kind: string;
  /** Struct name (reflect.Type.Name()), '' for unnamed types. */
  structName: string;
  node: OpenApiSchema;
}

function goTypeOf(node: OpenApiSchema, resolve: Resolve): GoType {
  if (node.$ref) {
    const structName = node.$ref.slice(node.$ref.lastIndexOf('.') + 1);
    const def = resolve(node.$ref);
    if (!def || OPAQUE_STRUCTS.has(node.$ref)) return { kind: 'struct', structName, node: { type: 'object', properties: {} } };
    const t = goTypeOf(def, resolve);
    return t.kind === 'struct' ? { ...t, structName } : t;
  }
  switch (node.type) {
    case 'array':
      return { kind: 'slice', structName: '', node };
    case 'string':
      return { kind: 'string', structName: '', node };
    case 'boolean':
      return { kind: 'bool', structName: '', node };
    case 'integer':
      return { kind: node.format === 'int32' ? 'int32' : 'int64', structName: '', node };
    case 'number':
      return { kind: 'float64', structName: '', node };
    default:
      if (node.properties) return { kind: 'struct', structName: '', node };
      if (node.additionalProperties) return { kind: 'map', structName: '', node };
      return { kind: 'struct', structName: '', node };
  }
}

/**
 * parsePatchMetadata: the field's x-kubernetes-patch-strategy / -merge-key (the struct tags).
 * Only strings are meaningful; anything else is kube's ErrBadArgType.
 */
function patchMetaOf(field: OpenApiSchema): PatchMeta {
  const ps = field['x-kubernetes-patch-strategy'] as unknown;
  const mk = field['x-kubernetes-patch-merge-key'] as unknown;
  if (ps !== undefined && typeof ps !== 'string') throw new SmpError(`expected a string, but received a ${typeof ps}`);
  if (mk !== undefined && typeof mk !== 'string') throw new SmpError(`expected a string, but received a ${typeof mk}`);
  return { strategies: typeof ps === 'string' ? ps.split(',') : [], mergeKey: typeof mk === 'string' ? mk : '' };
}

/** ASCII case folding, as encoding/json's equalFold for the (ASCII) names of API fields. */
const foldEq = (a: string, b: string): boolean => a.length === b.length && a.toLowerCase() === b.toLowerCase();

/** A schema node standing for a Go type (PatchMetaFromStruct{T}); `pointer`: T is *X. */
class SchemaPatchMeta implements LookupPatchMeta {
  constructor(
    private readonly node: OpenApiSchema,
    private readonly resolve: Resolve,
    private readonly pointer: boolean,
  ) {}

  name(): string {
    return this.pointer ? 'ptr' : goTypeOf(this.node, this.resolve).kind;
  }

  /** forkedjson.LookupPatchMetadataForStruct: exact JSON name first, else the first case-folded match. */
  private field(key: string): { node: OpenApiSchema; pointer: boolean; meta: PatchMeta } {
    const t = goTypeOf(this.node, this.resolve);
    if (t.kind !== 'struct') throw new SmpError(`merging an object in json but data type is not struct, instead is: ${t.kind}`);
    const props = t.node.properties ?? {};
    let name = Object.hasOwn(props, key) ? key : undefined;
    name ??= Object.keys(props).find((k) => foldEq(k, key));
    if (name === undefined) throw new SmpError(`unable to find api field in struct ${t.structName} for the json field ${JSON.stringify(key)}`);
    const f = props[name]!;
    return { node: f, pointer: (f['x-go'] ?? '').startsWith('p'), meta: patchMetaOf(f) };
  }

  lookupStruct(key: string): { schema: LookupPatchMeta; meta: PatchMeta } {
    const f = this.field(key);
    return { schema: new SchemaPatchMeta(f.node, this.resolve, f.pointer), meta: f.meta };
  }

  lookupSlice(key: string): { schema: LookupPatchMeta; meta: PatchMeta } {
    const f = this.field(key);
    const t = goTypeOf(f.node, this.resolve);
    if (t.kind === 'slice') {
      const items = t.node.items ?? {};
      if (goTypeOf(items, this.resolve).kind === 'slice') throw new SmpError('unexpected slice of slice');
      return { schema: new SchemaPatchMeta(items, this.resolve, false), meta: f.meta };
    }
    // A pointer field: its element (or, for a pointer to a slice, the slice's element) is used.
    if (f.pointer) return { schema: new SchemaPatchMeta(f.node, this.resolve, false), meta: f.meta };
    // kube names the kind of the struct being looked into here, not the field's.
    throw new SmpError(`expected slice or array type, but got: ${this.name()}`);
  }
}

/** The patch metadata of a kind whose (root) schema node is `root`; definitions resolve `$ref`s. */
export function patchMetaFromSchema(root: OpenApiSchema, resolve: Resolve): LookupPatchMeta {
  return new SchemaPatchMeta(root, resolve, false);
}
