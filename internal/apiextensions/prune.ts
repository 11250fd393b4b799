/**
 * Structural pruning, null pruning and defaulting of a custom resource, as kube-apiserver 1.24
 * applies them when it decodes a custom resource (apiextensions-apiserver schema/pruning and
 * schema/defaulting): pruning drops every field its structural schema does not specify, except
 * under `x-kubernetes-preserve-unknown-fields: true` and the apiVersion/kind/metadata of an
 * embedded resource (and of the object itself); then nulls of non-nullable fields without a
 * default are dropped; then `default`s fill absent fields (and non-nullable nulls), outside in.
 *
 * Only the structural part of a schema counts: properties, additionalProperties, items and the
 * x-kubernetes extensions of each node, never what allOf/anyOf/oneOf/not say.
 * These functions mutate the value they are given (it is a fresh decoded object).
 */
import { deepCopy, isObj, type Obj } from '../gocompat/json.ts';
import { propertyOf, type JSONSchemaProps } from './types.ts';
import { schemaFacts } from './schema-facts.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** The schema of a map's key `k`: its property, else additionalProperties (`null`: no schema). */
function fieldSchema(s: JSONSchemaProps, k: string): JSONSchemaProps | null | undefined {
  const prop = propertyOf(s, k);
  if (prop) return prop;
  if (s.additionalProperties === undefined || s.additionalProperties === false) return undefined;
  return s.additionalProperties === true ? null : s.additionalProperties;
}
const itemsOf = (s: JSONSchemaProps | null): JSONSchemaProps | null => (s && isObj(s.items) ? (s.items as JSONSchemaProps) : null);

/**
 * Drops the fields `schema` does not specify from `obj` (a whole custom resource: its
 * apiVersion, kind and metadata stay; with `resourceRoot` false, `obj` is any value, e.g. a default). Returns the pruned paths, sorted (`spec.a`, `x[0].y`), as
 * kube's unknown-field warnings name them.
 */
export function prune(obj: unknown, schema: JSONSchemaProps | undefined, resourceRoot = true): string[] {
  const pruned: string[] = [];
  const root: JSONSchemaProps | null = resourceRoot ? { ...(schema ?? {}), 'x-kubernetes-embedded-resource': true } : (schema ?? null);
  pruneNode(obj, root, [], pruned);
  return pruned.sort();
}

/** The path to a node: its keys and indices from the top (rendered only for a pruned field). */
type Path = (string | number)[];
const render = (path: Path, k: string): string => [...path, k].reduce<string>((p, seg) => (typeof seg === 'number' ? `${p}[${seg}]` : p ? `${p}.${seg}` : seg), '');

function pruneNode(x: unknown, s: JSONSchemaProps | null, path: Path, pruned: string[]): void {
  if (s?.['x-kubernetes-preserve-unknown-fields']) return skipPrune(x, s, path, pruned);
  if (isObj(x)) {
    for (const k of Object.keys(x)) {
      if (s?.['x-kubernetes-embedded-resource'] && META_FIELDS.has(k)) continue;
      const sub = s ? fieldSchema(s, k) : undefined;
      if (sub === undefined) {
        pruned.push(render(path, k));
        delete x[k];
      } else if (x[k] !== null && typeof x[k] === 'object') {
        path.push(k);
        pruneNode(x[k], sub, path, pruned);
        path.pop();
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => {
      if (v === null || typeof v !== 'object') return;
      path.push(i);
      pruneNode(v, items, path, pruned);
      path.pop();
    });
  }
}

/** Under preserve-unknown-fields: unknown fields stay, specified ones are pruned by their schema. */
function skipPrune(x: unknown, s: JSONSchemaProps, path: Path, pruned: string[]): void {
  if (isObj(x)) {
    for (const k of Object.keys(x)) {
      if (s['x-kubernetes-embedded-resource'] && META_FIELDS.has(k)) continue;
      const sub = fieldSchema(s, k);
      if (sub === undefined) continue;
      path.push(k);
      pruneNode(x[k], sub, path, pruned);
      path.pop();
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s);
    if (items) {
      x.forEach((v, i) => {
        path.push(i);
        skipPrune(v, items, path, pruned);
        path.pop();
      });
    }
  }
}

/** Drops `null`s of fields that are neither nullable nor defaulted (PruneNonNullableNullsWithoutDefaults). */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | null | undefined): void {
  if (!s) return; // no schema below: no null to drop
  if (isObj(x)) {
    for (const k of Object.keys(x)) {
      const sub = s ? fieldSchema(s, k) : undefined;
      if (x[k] === null && sub && !sub.nullable && sub.default === undefined) delete x[k];
      else pruneNonNullableNulls(x[k], sub);
    }
  } else if (Array.isArray(x)) {
    const items = s ? itemsOf(s) : null;
    for (const v of x) pruneNonNullableNulls(v, items);
  }
}

const isNonNullableNull = (v: unknown, s: JSONSchemaProps | null | undefined): s is JSONSchemaProps => v === null && !!s && !s.nullable;
/**
 * Applies the schema's defaults to `x` (structural defaulting: absent fields and non-nullable
 * nulls). A subtree whose schema has no default anywhere is not walked (nothing would change).
 */
export function applyDefaults(x: unknown, s: JSONSchemaProps | null | undefined): void {
  if (!s || !schemaFacts(s).hasDefaults) return;
  if (isObj(x)) {
    const o = x as Obj;
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
    const facts = schemaFacts(s);
    for (const [k, prop] of facts.defaulted) {
      if (!has(k) || isNonNullableNull(o[k], prop)) o[k] = deepCopy(prop.default);
    }
    // Members are independent: the properties with defaults below, then the additional ones.
    for (const [k, prop] of facts.defaultedBelow) if (has(k)) applyDefaults(o[k], prop);
    const extra = isObj(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined;
    if (extra && schemaFacts(extra).hasDefaults) {
      for (const k of Object.keys(o)) {
        if (propertyOf(s, k)) continue;
        if (isNonNullableNull(o[k], extra)) o[k] = deepCopy(extra.default) ?? null;
        applyDefaults(o[k], extra);
      }
    }
  } else if (Array.isArray(x)) {
    const items = itemsOf(s);
    x.forEach((v, i) => {
      if (isNonNullableNull(v, items)) x[i] = deepCopy(items.default) ?? null;
      applyDefaults(x[i], items);
    });
  }
}
