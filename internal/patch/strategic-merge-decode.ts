/**
 * The first error of runtime.DefaultUnstructuredConverter.FromUnstructured (k8s.io/apimachinery
 * @v0.24.17 pkg/runtime/converter.go) on a strategic merge patch's result: kube-apiserver converts
 * the merged map straight into the Go type (handlers/patch.go applyPatchToObject) and reports a
 * failure as a 422 naming the patch, with the converter's text ("unrecognized type: string",
 * "cannot restore slice from map", ...), which differs from the JSON decoder's.
 *
 * The walk follows the kind's schema as the converter follows the Go type: struct fields in
 * declaration order (unknown keys ignored), pointers, slices, maps, and the JSON scalar rules of
 * fromUnstructured. Types with their own JSON unmarshaler get the errors of their UnmarshalJSON
 * (time.Parse, ParseQuantity, IntOrString's int32, base64).
 */
import type { OpenApiSchema } from '../schema/types.ts';
import { base64Error } from '../decode/decode.ts';
import { canonicalMicroTime, canonicalTime, TimeError } from '../decode/time.ts';
import { canonicalQuantity, QuantityError } from '../decode/quantity.ts';
// The converter hands these definitions to the type's UnmarshalJSON.
import { OPAQUE_STRUCTS } from './strategic-merge-meta.ts';

type Resolve = (definition: string) => OpenApiSchema | undefined;

/** encoding/json's name of a JSON value's type in "cannot unmarshal X into Go value of type T". */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v !== null && typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? 'number' : 'string';
}

/** The message of a parser's error of the given class, or undefined when `parse` succeeds. */
function parseError(parse: () => unknown, kind: new (...a: never[]) => Error): string | undefined {
  try {
    parse();
    return undefined;
  } catch (e) {
    if (e instanceof kind) return e.message;
    throw e;
  }
}

/** The UnmarshalJSON error of a custom type for a value of the wrong JSON type, if any. */
function customError(definition: string, v: unknown): string | undefined {
  switch (definition) {
    case 'io.k8s.apimachinery.pkg.apis.meta.v1.Time':
    case 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': {
      // json.Unmarshal(b, &str), then time.Parse with RFC3339 (RFC3339Micro).
      if (typeof v !== 'string') return `json: cannot unmarshal ${jsonKind(v)} into Go value of type string`;
      const micro = definition.endsWith('MicroTime');
      return parseError(() => (micro ? canonicalMicroTime(v) : canonicalTime(v)), TimeError);
    }
    case 'io.k8s.apimachinery.pkg.util.intstr.IntOrString':
      // A string is StrVal; anything else is json.Unmarshal into IntVal (int32).
      if (typeof v === 'string') return undefined;
      if (typeof v === 'number') return Number.isInteger(v) && v >= -2147483648 && v <= 2147483647 ? undefined : `json: cannot unmarshal number ${v} into Go value of type int32`;
      return `json: cannot unmarshal ${jsonKind(v)} into Go value of type int32`;
    case 'io.k8s.apimachinery.pkg.api.resource.Quantity':
      // ParseQuantity of the JSON text, unquoted.
      return parseError(() => canonicalQuantity(typeof v === 'string' ? v : JSON.stringify(v)), QuantityError);
    default:
      return undefined;
  }
}

/** reflect.Kind of a decoded JSON value (integers are int64, as PreserveInts decodes them). */
function sourceKind(v: unknown): string {
  if (Array.isArray(v)) return 'slice';
  if (v !== null && typeof v === 'object') return 'map';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** The Go type after one step: `*T` → T, `[]T` → T, `map[string]T` → T. */
const deref = (goType: string): string => goType.replace(/^\*/, '');
const elem = (goType: string): string => goType.replace(/^\*/, '').replace(/^\[\]/, '').replace(/^map\[[^\]]*\]/, '');

/** A JSON scalar into a Go scalar of kind `kind` (named `goType`): fromUnstructured's simple types. */
function scalarError(v: unknown, kind: 'string' | 'bool' | 'int' | 'float', goType: string, reflectKind: string): string | undefined {
  const st = sourceKind(v);
  if (st === 'map' || st === 'slice') return `unrecognized type: ${reflectKind}`;
  switch (kind) {
    case 'string':
      if (st === 'string') return undefined;
      // int64 → string is a Go conversion (to a rune), which the converter refuses by name.
      return st === 'int64' ? `cannot convert int64 to ${goType}` : `unrecognized type: ${reflectKind}`;
    case 'bool':
      return st === 'bool' ? undefined : `unrecognized type: ${reflectKind}`;
    case 'int':
      if (st === 'int64') return undefined;
      if (st === 'float64') return Number.isInteger(v) ? undefined : `cannot convert float64 to ${goType}`;
      return `unrecognized type: ${reflectKind}`;
    case 'float':
      return st === 'int64' || st === 'float64' ? undefined : `unrecognized type: ${reflectKind}`;
  }
}

/**
 * fromUnstructured(v, <type of node>): the converter's error text, or undefined. `goType` is the
 * Go type as reflect prints it (from generated/go/types.json; '' when unknown).
 */
function walk(v: unknown, node: OpenApiSchema, goType: string, resolve: Resolve, goTypes: Record<string, Record<string, string>>): string | undefined {
  if (v === null || v === undefined) return undefined; // nil: the zero value
  if (node.$ref) {
    if (OPAQUE_STRUCTS.has(node.$ref)) return customError(node.$ref, v);
    const def = resolve(node.$ref);
    if (!def) return undefined;
    return walkDefinition(v, def, node.$ref, resolve, goTypes);
  }
  const t = deref(goType);
  switch (node.type) {
    case 'string':
      if (node.format === 'byte') {
        // []byte: a string is base64-decoded through encoding/json; anything else must be a slice.
        if (typeof v === 'string') {
          const at = base64Error(v);
          return at === undefined ? undefined : `error decoding from json: illegal base64 data at input byte ${at}`;
        }
        return Array.isArray(v) ? undefined : `cannot restore slice from ${sourceKind(v)}`;
      }
      if (node.format === 'int-or-string') return customError('io.k8s.apimachinery.pkg.util.intstr.IntOrString', v);
      return scalarError(v, 'string', t || 'string', 'string');
    case 'boolean':
      return scalarError(v, 'bool', t || 'bool', 'bool');
    case 'integer': {
      const k = node.format === 'int32' ? 'int32' : 'int64';
      return scalarError(v, 'int', t || k, k);
    }
    case 'number':
      return scalarError(v, 'float', t || 'float64', 'float64');
    case 'array': {
      if (!Array.isArray(v)) return `cannot restore slice from ${sourceKind(v)}`;
      for (const x of v) {
        const e = walk(x, node.items ?? {}, elem(goType), resolve, goTypes);
        if (e) return e;
      }
      return undefined;
    }
    default:
      if (typeof node.additionalProperties === 'object' && node.additionalProperties) {
        if (sourceKind(v) !== 'map') return `cannot restore map from ${sourceKind(v)}`;
        for (const x of Object.values(v as Record<string, unknown>)) {
          const e = walk(x, node.additionalProperties, elem(goType), resolve, goTypes);
          if (e) return e;
        }
        return undefined;
      }
      return undefined; // untyped (preserve-unknown) nodes take anything
  }
}

/** A named struct definition: fields in declaration order, as structFromUnstructured reads them. */
function walkDefinition(v: unknown, def: OpenApiSchema, name: string, resolve: Resolve, goTypes: Record<string, Record<string, string>>): string | undefined {
  if (!def.properties) return walk(v, def, '', resolve, goTypes);
  if (sourceKind(v) !== 'map') return `cannot restore struct from: ${sourceKind(v)}`;
  const obj = v as Record<string, unknown>;
  const types = goTypes[name] ?? {};
  for (const [field, node] of Object.entries(def.properties)) {
    if (!Object.hasOwn(obj, field)) continue;
    const e = walk(obj[field], node, types[field] ?? '', resolve, goTypes);
    if (e) return e;
  }
  return undefined;
}

/** The converter's first error converting `obj` into the kind whose root schema is `root`. */
export function fromUnstructuredError(obj: Record<string, unknown>, root: OpenApiSchema, resolve: Resolve, goTypes: Record<string, Record<string, string>>): string | undefined {
  return walk(obj, root, '', resolve, goTypes);
}
