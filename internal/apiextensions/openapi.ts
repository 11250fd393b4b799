/**
 * The OpenAPI schema a custom resource kind publishes, as kube-apiserver 1.24's apiextensions
 * OpenAPI builder makes it from a CRD version's openAPIV3Schema
 * (apiextensions-apiserver pkg/controller/openapi/builder, schema.NewStructural, Unfold,
 * ToKubeOpenAPI, openapi/v2.ToStructuralOpenAPIV2):
 *
 *   - only what the structural schema carries survives (no `example`, `externalDocs`);
 *   - `x-kubernetes-int-or-string` gets its `anyOf: [integer, string]` spelled out (Unfold);
 *   - v2 only: allOf/anyOf/oneOf/not are dropped, a nullable node loses its type, items and
 *     properties (and leaves its parent's `required`), a node preserving unknown fields loses its
 *     items, properties and `type: object`, an array without items its type, and every `default`
 *     is pruned (kube-openapi's handler.PruneDefaults); a root preserving unknown fields (or
 *     `spec.preserveUnknownFields`) publishes `type: object` alone, as does a version without schema;
 *   - the object gets apiVersion, kind and metadata (ObjectMeta), an embedded resource gets the same
 *     (not in v2 when it preserves unknown fields), and `x-kubernetes-group-version-kind`;
 *   - the list kind: apiVersion, kind, items (refs to the kind), metadata (ListMeta).
 *
 * Members come out in the order kube-openapi's spec.Schema marshals them (its struct order, then
 * the extensions sorted, then `$ref`), maps (defaults, enum values) with sorted keys as Go's JSON.
 * In v3 a `$ref` with a sibling becomes `allOf: [{$ref}]`, as kube-openapi's builder3 renders it.
 */
import { isObj } from '../gocompat/json.ts';
import type { JSONSchemaProps } from './types.ts';

type Json = Record<string, unknown>;

/** Which document: the definition prefix differs, and v2 drops what it cannot say. */
export interface PublishOptions {
  v2: boolean;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const API_VERSION_DOC = 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DOC = 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const EMBEDDED_API_VERSION_DOC = 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND_DOC = 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const OBJECT_META_DOC = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_META_DOC = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** The definition name of a custom kind: util.ToRESTFriendlyName("<group>/<version>/<kind>") (group reversed). */
export const customResourceDefinitionName = (group: string, version: string, kind: string): string =>
  `${group.includes('.') ? group.split('.').reverse().join('.') : group}.${version}.${kind}`;

/** A schema node as the builder holds it; `$ref` (a full reference) only on nodes it adds itself. */
type Node = JSONSchemaProps & { $ref?: string };

/** Fields NewStructural refuses: the builder then publishes no schema for the version. */
const UNSUPPORTED = ['id', '$schema', '$ref', 'patternProperties', 'dependencies', 'additionalItems', 'definitions'] as const;
const OPENAPI_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

/** Can NewStructural (and SchemaHasInvalidTypes) take this schema? */
function supported(s: unknown): boolean {
  if (!isObj(s)) return true;
  const n = s as Node;
  if (n.type && !OPENAPI_TYPES.has(n.type)) return false;
  for (const k of UNSUPPORTED) {
    const v = (n as Record<string, unknown>)[k];
    if (v === undefined || v === '' || (isObj(v) && !Object.keys(v).length)) continue;
    return false;
  }
  if (Array.isArray(n.items)) return false;
  const kids: unknown[] = [n.items, n.not, isObj(n.additionalProperties) ? n.additionalProperties : undefined, ...(n.allOf ?? []), ...(n.anyOf ?? []), ...(n.oneOf ?? []), ...Object.values(n.properties ?? {})];
  return kids.every(supported);
}

/** The structural children of a node (what schema.Visitor walks as Structural). */
function structuralChildren(n: Node): Node[] {
  const out: Node[] = [];
  if (isObj(n.items)) out.push(n.items as Node);
  for (const p of Object.values(n.properties ?? {})) out.push(p);
  if (isObj(n.additionalProperties)) out.push(n.additionalProperties as Node);
  return out;
}

const isIntOrStringAnyOf = (a: unknown): boolean =>
  Array.isArray(a) && a.length === 2 && a.every((x, i) => isObj(x) && Object.keys(x).length === 1 && x.type === (i === 0 ? 'integer' : 'string'));

/** Structural.Unfold: spell out x-kubernetes-int-or-string as anyOf [integer, string]. */
function unfold(n: Node): void {
  if (n['x-kubernetes-int-or-string'] && !isIntOrStringAnyOf(n.anyOf) && !(n.allOf?.length && isIntOrStringAnyOf(n.allOf[0]!.anyOf))) {
    const anyOf = [{ type: 'integer' }, { type: 'string' }];
    if (!n.anyOf?.length) n.anyOf = anyOf;
    else n.allOf = [{ anyOf }, ...(n.allOf ?? [])];
  }
  for (const c of structuralChildren(n)) unfold(c);
}

/** openapi/v2.ToStructuralOpenAPIV2, parent before children as its visitor goes. */
function toV2(n: Node): void {
  delete n.allOf;
  delete n.oneOf;
  delete n.anyOf;
  delete n.not;
  if (n.nullable) {
    delete n.type;
    delete n.nullable;
    delete n.items;
    delete n.properties;
  }
  if (n['x-kubernetes-preserve-unknown-fields']) {
    delete n.items;
    delete n.properties;
  }
  if (n.items === undefined && n.type === 'array') delete n.type;
  if (n['x-kubernetes-preserve-unknown-fields'] && n.type === 'object') delete n.type;
  if (n.properties && n.required) {
    const nullable = new Set(Object.keys(n.properties).filter((k) => n.properties![k]!.nullable));
    if (nullable.size) n.required = n.required.filter((r) => !nullable.has(r));
  }
  if (isObj(n.additionalProperties) && (n.additionalProperties as Node).nullable) delete n.required;
  for (const c of structuralChildren(n)) toV2(c);
}

const ref = (name: string, opts: PublishOptions): string => (opts.v2 ? '#/definitions/' : '#/components/schemas/') + name;
const metaRef = (name: string, description: string, opts: PublishOptions): Node => ({ description, $ref: ref(name, opts) });
const typeMeta = (description: string): Node => ({ description, type: 'string' });

/** addEmbeddedProperties: apiVersion, kind and metadata of every embedded resource (children first). */
function addEmbedded(n: Node, opts: PublishOptions): void {
  for (const c of structuralChildren(n)) addEmbedded(c, opts);
  if (opts.v2 && n['x-kubernetes-preserve-unknown-fields']) return;
  if (!n['x-kubernetes-embedded-resource']) return;
  n.properties = { ...(n.properties ?? {}), apiVersion: typeMeta(EMBEDDED_API_VERSION_DOC), kind: typeMeta(EMBEDDED_KIND_DOC), metadata: metaRef(OBJECT_META, OBJECT_META_DOC, opts) };
  const req = new Set(n.required ?? []);
  n.required = [...(n.required ?? []), ...(req.has('kind') ? [] : ['kind']), ...(req.has('apiVersion') ? [] : ['apiVersion'])];
}

/** Go's JSON of a decoded value: map keys sorted. */
function goJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(goJson);
  if (isObj(v)) {
    const out: Json = {};
    for (const k of Object.keys(v).sort()) out[k] = goJson(v[k]);
    return out;
  }
  return v;
}

/** spec.Schema's members in its JSON order (SchemaProps' fields; `$ref` and extensions after). */
const ORDER = ['description', 'type', 'nullable', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties', 'required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties'] as const;
const EXTENSIONS = ['x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations'] as const;
const POINTERS = new Set(['default', 'enum', 'items', 'not', 'additionalProperties']);
/** Members Go omits when empty (omitempty of a bool, string, slice or map). */
const emptyOmitted = (v: unknown): boolean => v === false || v === '' || (Array.isArray(v) && !v.length) || (isObj(v) && !Object.keys(v).length);

/** A node as kube-openapi marshals it. */
function render(n: Node, opts: PublishOptions): Json {
  const out: Json = {};
  const src = n as Record<string, unknown>;
  // builder3: a reference with siblings is an allOf of the reference.
  const allOfRef = !opts.v2 && n.$ref !== undefined && Object.keys(n).length > 1;
  for (const k of ORDER) {
    let v = src[k];
    if (k === 'allOf' && allOfRef) v = [{ $ref: n.$ref }, ...(n.allOf ?? [])];
    if (v === undefined || v === null) continue;
    // Pointers (default, items, not, additionalProperties) are written whenever set, even empty.
    if (!POINTERS.has(k) && emptyOmitted(v)) continue;
    if (k === 'default') out.default = goJson(v);
    else if (k === 'enum') {
      if (Array.isArray(v) && v.length) out.enum = v.map(goJson);
    } else if (k === 'items' || k === 'not') out[k] = render(v as Node, opts);
    else if (k === 'allOf' || k === 'oneOf' || k === 'anyOf') out[k] = (v as Node[]).map((x) => render(x, opts));
    else if (k === 'properties') {
      const props: Json = {};
      for (const name of Object.keys(v as object).sort()) props[name] = render((v as Record<string, Node>)[name]!, opts);
      out.properties = props;
    } else if (k === 'additionalProperties') {
      // An empty schema (a nullable one after v2's drops) comes out as `false`: kube-openapi's
      // SchemaOrBool reads JSON shorter than 4 bytes (`{}`) as a disallowing bool.
      const a = typeof v === 'boolean' ? v : render(v as Node, opts);
      out.additionalProperties = isObj(a) && !Object.keys(a).length ? false : a;
    }
    else out[k] = v;
  }
  for (const k of EXTENSIONS) {
    const v = src[k];
    if (v === undefined || v === null || emptyOmitted(v)) continue;
    out[k] = k === 'x-kubernetes-validations' && Array.isArray(v) ? v.map((r) => (isObj(r) ? { rule: r.rule, ...(r.message ? { message: r.message } : {}) } : r)) : v;
  }
  if (n.$ref !== undefined && !allOfRef) out.$ref = n.$ref;
  return out;
}

/** Strip what NewStructural does not keep (example, externalDocs, unknown members). */
function structural(s: JSONSchemaProps): Node {
  const out: Record<string, unknown> = {};
  const src = s as Record<string, unknown>;
  for (const k of [...ORDER, ...EXTENSIONS]) if (src[k] !== undefined) out[k] = src[k];
  const n = out as Node;
  if (isObj(n.items)) n.items = structural(n.items as JSONSchemaProps);
  if (n.not) n.not = structural(n.not);
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) if (n[k]) n[k] = n[k]!.map(structural);
  if (n.properties) n.properties = Object.fromEntries(Object.entries(n.properties).map(([k, v]) => [k, structural(v)]));
  if (isObj(n.additionalProperties)) n.additionalProperties = structural(n.additionalProperties as JSONSchemaProps);
  if (n['x-kubernetes-preserve-unknown-fields'] === false) delete n['x-kubernetes-preserve-unknown-fields'];
  return n;
}

/** What the builder needs of a CRD version. */
export interface PublishedKind {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  schema: JSONSchemaProps | undefined;
  /** spec.preserveUnknownFields of the CRD. */
  preserveUnknownFields: boolean;
}

const gvkExtension = (group: string, version: string, kind: string): Json[] => [{ group, kind, version }];

/** The kind's definition (buildKubeNative). */
export function customResourceSchema(k: PublishedKind, opts: PublishOptions): Json {
  const gvk = gvkExtension(k.group, k.version, k.kind);
  const s = k.schema && supported(k.schema) ? structural(structuredClone(k.schema)) : undefined;
  if (!s || (opts.v2 && (s['x-kubernetes-preserve-unknown-fields'] || k.preserveUnknownFields))) {
    return { type: 'object', 'x-kubernetes-group-version-kind': gvk };
  }
  unfold(s);
  if (opts.v2) toV2(s);
  if (opts.v2) pruneDefaults(s);
  s.properties = { ...(s.properties ?? {}), metadata: metaRef(OBJECT_META, OBJECT_META_DOC, opts), apiVersion: typeMeta(API_VERSION_DOC), kind: typeMeta(KIND_DOC) };
  addEmbedded(s, opts);
  return { ...render(s, opts), 'x-kubernetes-group-version-kind': gvk };
}

/** handler.PruneDefaults: v2 definitions carry no `default` anywhere. */
function pruneDefaults(n: Node): void {
  delete n.default;
  for (const c of structuralChildren(n)) pruneDefaults(c);
  for (const c of [...(n.allOf ?? []), ...(n.anyOf ?? []), ...(n.oneOf ?? []), ...(n.not ? [n.not] : [])]) pruneDefaults(c);
}

/** The list kind's definition (buildListSchema). */
export function customResourceListSchema(k: PublishedKind, opts: PublishOptions): Json {
  const item = ref(customResourceDefinitionName(k.group, k.version, k.kind), opts);
  const s: Node = {
    description: `${k.listKind} is a list of ${k.kind}`,
    required: ['items'],
    properties: {
      items: { description: `List of ${k.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, type: 'array', items: { $ref: item } },
      metadata: metaRef(LIST_META, LIST_META_DOC, opts),
      apiVersion: typeMeta(API_VERSION_DOC),
      kind: typeMeta(KIND_DOC),
    },
  };
  return { ...render(s, opts), 'x-kubernetes-group-version-kind': gvkExtension(k.group, k.version, k.listKind) };
}
