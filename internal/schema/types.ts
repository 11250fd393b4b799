/**
 * The schema model. Two layers:
 *
 * - `OpenApiSchema`: a schema node as published (OpenAPI v2 definitions, compacted by
 *   cmd/gen-schemas.ts) or as a CustomResourceDefinition declares it (apiextensions v1
 *   JSONSchemaProps, structural): the shared input format of every schema source.
 * - `Atom`: the merge-semantics view structured-merge-diff works with (kube-openapi's schemaconv
 *   turns OpenAPI into it): a node is a scalar, a list and/or a map, and containers say how their
 *   items relate (atomic, granular, set, map keyed by fields). Field sets, managedFields and
 *   (later) server-side apply are computed on atoms.
 */

/** A compacted OpenAPI schema node (only what the server uses; descriptions live apart). */
export interface OpenApiSchema {
  type?: string;
  format?: string;
  $ref?: string;
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema | boolean;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  default?: unknown;
  enum?: unknown[];
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  /**
   * Generated only: how the Go field serializes (pointer, struct, slice/map, scalar; omitempty).
   * See cmd/gen-schemas.ts for the codes.
   */
  'x-go'?: string;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** structured-merge-diff scalar kinds ("untyped": int-or-string, quantities, date-times, ...). */
export type Scalar = 'string' | 'numeric' | 'boolean' | 'untyped';

/** How a list's items relate: `atomic` (a leaf), `associative` (a set, or a map when it has keys). */
export type ListRelationship = 'atomic' | 'associative';
/** How a map's entries relate: `separable` (each entry owned on its own) or `atomic` (a leaf). */
export type MapRelationship = 'separable' | 'atomic';

/** A reference to a type, resolved lazily (types may be recursive, e.g. JSONSchemaProps). */
export interface TypeRef {
  readonly atom: Atom;
}

export interface StructField {
  type: TypeRef;
  /** OpenAPI default (used for associative-list keys a list item omits, as SMD does). */
  default?: unknown;
  /** How the Go field serializes (OpenApiSchema 'x-go'); absent for types without Go structs (CRDs). */
  go?: string;
}

export interface ListAtom {
  elementType: TypeRef;
  relationship: ListRelationship;
  /** Key fields of an associative list of maps; empty for a set of scalars. */
  keys: string[];
}

export interface MapAtom {
  /** Named fields (a struct); empty for a plain map. */
  fields: Map<string, StructField>;
  /** Type of the entries that are not named fields (a map's values); absent on a closed struct. */
  elementType?: TypeRef;
  relationship: MapRelationship;
}

/** One node's possible forms; untyped nodes have several and the value picks one. */
export interface Atom {
  scalar?: Scalar;
  list?: ListAtom;
  map?: MapAtom;
}

/**
 * What a caller usually wants to know about a node: a struct, a granular map, something atomic,
 * a list of type set / map (with its keys) / atomic, or a scalar.
 */
export type Shape =
  | { kind: 'scalar'; scalar: Scalar }
  | { kind: 'struct'; fields: string[] }
  | { kind: 'map' }
  | { kind: 'atomic' }
  | { kind: 'list'; listType: 'set' }
  | { kind: 'list'; listType: 'map'; keys: string[] }
  | { kind: 'list'; listType: 'atomic' };

/**
 * The Go zero value of a scalar schema node, as Go serializes it: '' for a string, 0 for a number,
 * false for a boolean; undefined for []byte (a nil slice is null) and for anything not a scalar.
 */
export function scalarZero(node: OpenApiSchema): string | number | boolean | undefined {
  switch (node.type) {
    case 'string':
      return node.format === 'byte' ? undefined : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}
