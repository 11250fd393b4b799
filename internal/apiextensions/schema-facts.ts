/**
 * What the per-request walks need to know about a schema node, worked out once per node (the
 * schema of a CRD version is the same object for every request to it) instead of on every
 * custom resource: its properties as an array, those with a default, and whether anything below
 * it (its structural children: properties, additionalProperties, items) has a default, an embedded
 * resource or a list type. The walks skip subtrees where there is nothing for them to do.
 * Schemas are never changed once served; a changed CRD brings new schema objects.
 */
import { isObj } from '../gocompat/json.ts';
import type { JSONSchemaProps } from './types.ts';

export interface SchemaFacts {
  /** Own properties in their order. */
  readonly properties: readonly [string, JSONSchemaProps][];
  /** The properties that have a default. */
  readonly defaulted: readonly [string, JSONSchemaProps][];
  /** The properties with a default at or below them. */
  readonly defaultedBelow: readonly [string, JSONSchemaProps][];
  /** This node or one below has a default. */
  readonly hasDefaults: boolean;
  /** This node or one below is an x-kubernetes-embedded-resource. */
  readonly hasEmbedded: boolean;
  /** This node or one below has an x-kubernetes-list-type. */
  readonly hasListType: boolean;
}

const cache = new WeakMap<JSONSchemaProps, SchemaFacts>();

/** The structural children of a node (where pruning, defaulting and the metadata walks descend). */
function structuralChildren(s: JSONSchemaProps): JSONSchemaProps[] {
  const out: JSONSchemaProps[] = [];
  if (isObj(s.properties)) for (const k of Object.keys(s.properties)) if (isObj(s.properties[k])) out.push(s.properties[k]);
  if (isObj(s.additionalProperties)) out.push(s.additionalProperties as JSONSchemaProps);
  if (isObj(s.items)) out.push(s.items as JSONSchemaProps);
  else if (Array.isArray(s.items)) for (const i of s.items) if (isObj(i)) out.push(i);
  return out;
}

export function schemaFacts(s: JSONSchemaProps): SchemaFacts {
  let f = cache.get(s);
  if (f) return f;
  const properties = isObj(s.properties) ? Object.entries(s.properties) : [];
  const children = structuralChildren(s).map(schemaFacts);
  f = {
    properties,
    defaulted: properties.filter(([, p]) => isObj(p) && p.default !== undefined),
    defaultedBelow: properties.filter(([, p]) => isObj(p) && schemaFacts(p).hasDefaults),
    hasDefaults: s.default !== undefined || children.some((c) => c.hasDefaults),
    hasEmbedded: !!s['x-kubernetes-embedded-resource'] || children.some((c) => c.hasEmbedded),
    hasListType: !!s['x-kubernetes-list-type'] || children.some((c) => c.hasListType),
  };
  cache.set(s, f);
  return f;
}
