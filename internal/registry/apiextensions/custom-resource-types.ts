/**
 * The field types of a CRD's versions for managedFields and server-side apply (kube's CRD type
 * converter: the structural schema of each version as apiextensions' OpenAPI builder publishes
 * it, turned into structured-merge-diff types). So a custom resource's lists and maps merge as
 * its schema says: `x-kubernetes-list-type` set / map (`x-kubernetes-list-map-keys`) / atomic,
 * `x-kubernetes-map-type` granular / atomic, properties as struct fields; the root and every
 * `x-kubernetes-embedded-resource` get apiVersion, kind and ObjectMeta metadata, as the builder
 * adds them. ObjectMeta and the other meta types come from the generated schemas.
 */
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import { SchemaRegistry, StaticSource, generatedSource } from '../../schema/registry.ts';
import type { OpenApiSchema } from '../../schema/types.ts';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
/** What merge semantics read of a node (validation keywords are stripped, as the builder does). */
const KEPT = ['type', 'format', 'default', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-int-or-string', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource'] as const;

function toOpenApi(node: JSONSchemaProps, objectRoot: boolean): OpenApiSchema {
  const out: Record<string, unknown> = {};
  for (const k of KEPT) if (node[k] !== undefined) out[k] = node[k];
  if (node.properties) out.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, toOpenApi(v, false)]));
  if (node.items && !Array.isArray(node.items)) out.items = toOpenApi(node.items, false);
  if (node.additionalProperties !== undefined) out.additionalProperties = typeof node.additionalProperties === 'object' ? toOpenApi(node.additionalProperties, false) : node.additionalProperties;
  if (objectRoot || node['x-kubernetes-embedded-resource']) {
    const props = (out.properties ??= {}) as Record<string, OpenApiSchema>;
    props.apiVersion = { type: 'string' };
    props.kind = { type: 'string' };
    props.metadata = { $ref: OBJECT_META };
    out.type ??= 'object';
  }
  return out as OpenApiSchema;
}

/** The types of `kind` in each version of `group` that has a schema. */
export function customResourceFieldTypes(group: string, kind: string, versions: { name: string; schema?: { openAPIV3Schema?: JSONSchemaProps } }[]): SchemaRegistry {
  const kinds = versions.map((v) => ({ gvk: { group, version: v.name, kind }, schema: toOpenApi(v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true) }));
  return new SchemaRegistry([new StaticSource(kinds), generatedSource()]);
}
