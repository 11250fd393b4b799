/**
 * OpenAPI v3 component schemas from the generated (v2-form) schemas, as kube-openapi's builder3
 * renders kube-apiserver 1.24's: a `$ref` with siblings (a description, a default) becomes
 * `allOf: [{$ref}]`, and the zero-value defaults the Go types imply — which the v2 document
 * prunes — come back: `{}` for a non-pointer struct field or struct element, `""` / `0` / `false`
 * for a scalar element of a slice or map.
 */
import { scalarZero, type OpenApiSchema } from '../../schema/types.ts';
import type { Json } from './v2.ts';

const REF_PREFIX = '#/components/schemas/';

/** Codes of `x-go` (cmd/gen-schemas.ts) whose Go field is a non-pointer struct (Time, Quantity, IntOrString too). */
const STRUCT_CODES = new Set(['s', 't', 'q', 'i']);

/** The zero value builder3 declares for a property, from how its Go field is declared. */
function fieldDefault(p: OpenApiSchema): unknown {
  const go = p['x-go'];
  if (!go) return undefined;
  if (STRUCT_CODES.has(go[0]!)) return {};
  // A non-pointer struct the generator saw as a scalar (runtime.RawExtension) is still a struct.
  if (p.$ref) return go[0] === 'v' ? {} : undefined;
  // A non-omitempty scalar is always serialized: its zero value is its default.
  if (go === 'v') return scalarZero(p);
  return undefined;
}

const SCHEMA_KEYS = ['description', 'type', 'format', 'default', 'enum', 'required', 'items', 'allOf', 'properties', 'additionalProperties'];

/** Zero value of a slice or map element (they are never pointers in the built-in kinds). */
function elementDefault(node: OpenApiSchema, isStruct: (ref: string) => boolean): unknown {
  if (node.$ref) return isStruct(node.$ref) ? {} : undefined;
  return scalarZero(node);
}

/**
 * Go types that declare OpenAPIV3OneOfTypes (kube-openapi renders them as `oneOf` in v3 and as a
 * plain `type: string` in v2).
 */
const V3_ONE_OF: Record<string, string[]> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
};

/** A named definition in v3 form. */
export function renderV3Definition(name: string, node: OpenApiSchema, descs: Record<string, string> | undefined, refs: Set<string>, isStruct: (ref: string) => boolean): Json {
  const out = renderV3(node, descs, '', refs, isStruct);
  const oneOf = V3_ONE_OF[name];
  if (!oneOf) return out;
  const { type: _type, ...rest } = out;
  return { ...rest, oneOf: oneOf.map((t) => ({ type: t })) };
}

/**
 * Render one node. `implied` is the default the Go type implies (for properties: from `x-go`; for
 * elements: the element's zero value); an explicit default from the source wins.
 */
export function renderV3(node: OpenApiSchema, descs: Record<string, string> | undefined, path: string, refs: Set<string>, isStruct: (ref: string) => boolean, implied?: unknown): Json {
  const src = node as Record<string, unknown>;
  const out: Json = {};
  const description = descs?.[path];
  const dflt = node.default !== undefined ? node.default : implied;
  if (node.$ref) refs.add(node.$ref);
  if (node.$ref && description === undefined && dflt === undefined) {
    out.$ref = REF_PREFIX + node.$ref;
  } else {
    for (const k of SCHEMA_KEYS) {
      if (k === 'description') {
        if (description) out.description = description;
      } else if (k === 'default') {
        if (dflt !== undefined) out.default = dflt;
      } else if (k === 'allOf') {
        if (node.$ref) out.allOf = [{ $ref: REF_PREFIX + node.$ref }];
      } else if (k === 'items') {
        if (node.items) out.items = renderV3(node.items, undefined, '', refs, isStruct, elementDefault(node.items, isStruct));
      } else if (k === 'additionalProperties') {
        const a = node.additionalProperties;
        if (a !== undefined) out.additionalProperties = typeof a === 'object' ? renderV3(a, undefined, '', refs, isStruct, elementDefault(a, isStruct)) : a;
      } else if (k === 'properties') {
        if (node.properties) {
          const props: Json = {};
          for (const name of Object.keys(node.properties).sort()) {
            const p = node.properties[name]!;
            props[name] = renderV3(p, descs, path ? `${path}.${name}` : name, refs, isStruct, fieldDefault(p));
          }
          out.properties = props;
        }
      } else if (src[k] !== undefined) out[k] = src[k];
    }
  }
  for (const k of Object.keys(src).filter((x) => x.startsWith('x-') && x !== 'x-go').sort()) out[k] = src[k];
  return out;
}
