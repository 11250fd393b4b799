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
 * These functions mutate the value they are given (it is a fresh decoded object), and say
 * whether they changed it (a stored object they leave alone is served as it was stored).
 *
 * The walks run on each schema node compiled once (`nodeOf`: its properties in a Map, its
 * additionalProperties and items resolved, its defaults listed), since the schema of a CRD
 * version is the same object for every request to it; a changed CRD brings new schema objects.
 */
import { deepCopy, isObj, type Obj } from '../gocompat/json.ts';
import type { JSONSchemaProps } from './types.ts';
import { schemaFacts } from './schema-facts.ts';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** A schema node as the walks read it, worked out once per node. */
interface Node {
  readonly preserve: boolean;
  readonly embedded: boolean;
  readonly nullable: boolean;
  /** The node's default (undefined: none). */
  readonly def: unknown;
  /** Own properties (`constructor`, `__proto__` are field names too). */
  readonly props: ReadonlyMap<string, Node>;
  /** additionalProperties: a schema, `null` for `true` (no schema), undefined for none or false. */
  readonly additional: Node | null | undefined;
  /** The items schema (an object), else null. */
  readonly items: Node | null;
  /** This node or one below has a default. */
  readonly hasDefaults: boolean;
  /** The properties with a default, and those with a default at or below them. */
  readonly defaulted: readonly [string, Node][];
  readonly defaultedBelow: readonly [string, Node][];
  /** additionalProperties when it has a default at or below it. */
  readonly additionalDefaulted: Node | undefined;
}

const nodes = new WeakMap<JSONSchemaProps, Node>();
/** The same node seen as an embedded resource (the root of a custom resource). */
const embeddedNodes = new WeakMap<JSONSchemaProps, Node>();

function nodeOf(s: JSONSchemaProps, asEmbedded = false): Node {
  const cache = asEmbedded && !s['x-kubernetes-embedded-resource'] ? embeddedNodes : nodes;
  let n = cache.get(s);
  if (n) return n;
  const props = new Map<string, Node>();
  if (s.properties) for (const k of Object.keys(s.properties)) if (isObj(s.properties[k])) props.set(k, nodeOf(s.properties[k]));
  const ap = s.additionalProperties;
  const additional = ap === undefined || ap === false ? undefined : ap === true ? null : isObj(ap) ? nodeOf(ap as JSONSchemaProps) : undefined;
  const facts = schemaFacts(s);
  n = {
    preserve: !!s['x-kubernetes-preserve-unknown-fields'],
    embedded: asEmbedded || !!s['x-kubernetes-embedded-resource'],
    nullable: !!s.nullable,
    def: s.default,
    props,
    additional,
    items: isObj(s.items) ? nodeOf(s.items as JSONSchemaProps) : null,
    hasDefaults: facts.hasDefaults,
    defaulted: [...props].filter(([, p]) => p.def !== undefined),
    defaultedBelow: [...props].filter(([, p]) => p.hasDefaults),
    additionalDefaulted: additional && additional.hasDefaults ? additional : undefined,
  };
  cache.set(s, n);
  return n;
}

/** The schema of a map's key `k`: its property, else additionalProperties (`null`: no schema). */
function fieldNode(s: Node, k: string): Node | null | undefined {
  return s.props.get(k) ?? s.additional;
}

/**
 * Drops the fields `schema` does not specify from `obj` (a whole custom resource: its
 * apiVersion, kind and metadata stay; with `resourceRoot` false, `obj` is any value, e.g. a default). Returns the pruned paths, sorted (`spec.a`, `x[0].y`), as
 * kube's unknown-field warnings name them.
 */
export function prune(obj: unknown, schema: JSONSchemaProps | undefined, resourceRoot = true): string[] {
  const pruned: string[] = [];
  const root = schema ? nodeOf(schema, resourceRoot) : resourceRoot ? EMBEDDED_ANY : null;
  pruneNode(obj, root, [], pruned);
  return pruned.sort();
}

/** The root of a custom resource without a schema: everything but apiVersion, kind and metadata goes. */
const EMBEDDED_ANY: Node = nodeOf({}, true);

/** The path to a node: its keys and indices from the top (rendered only for a pruned field). */
type Path = (string | number)[];
const render = (path: Path, k: string): string => [...path, k].reduce<string>((p, seg) => (typeof seg === 'number' ? `${p}[${seg}]` : p ? `${p}.${seg}` : seg), '');

function pruneNode(x: unknown, s: Node | null, path: Path, pruned: string[]): void {
  if (s?.preserve) return skipPrune(x, s, path, pruned);
  if (isObj(x)) {
    for (const k in x) {
      if (s?.embedded && META_FIELDS.has(k)) continue;
      const sub = s ? fieldNode(s, k) : undefined;
      const v = x[k];
      if (sub === undefined) {
        pruned.push(render(path, k));
        delete x[k];
      } else if (v !== null && typeof v === 'object') {
        path.push(k);
        pruneNode(v, sub, path, pruned);
        path.pop();
      }
    }
  } else if (Array.isArray(x)) {
    const items = s && s.items;
    for (let i = 0; i < x.length; i++) {
      const v = x[i];
      if (v === null || typeof v !== 'object') continue;
      path.push(i);
      pruneNode(v, items, path, pruned);
      path.pop();
    }
  }
}

/** Under preserve-unknown-fields: unknown fields stay, specified ones are pruned by their schema. */
function skipPrune(x: unknown, s: Node, path: Path, pruned: string[]): void {
  if (isObj(x)) {
    for (const k in x) {
      if (s.embedded && META_FIELDS.has(k)) continue;
      const sub = fieldNode(s, k);
      if (sub === undefined) continue;
      path.push(k);
      pruneNode(x[k], sub, path, pruned);
      path.pop();
    }
  } else if (Array.isArray(x)) {
    const items = s.items;
    if (items) {
      for (let i = 0; i < x.length; i++) {
        path.push(i);
        skipPrune(x[i], items, path, pruned);
        path.pop();
      }
    }
  }
}

/**
 * Drops `null`s of fields that are neither nullable nor defaulted (PruneNonNullableNullsWithoutDefaults).
 * True when it dropped one.
 */
export function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | null | undefined): boolean {
  return !!s && dropNulls(x, nodeOf(s));
}

function dropNulls(x: unknown, s: Node | null | undefined): boolean {
  if (!s) return false; // no schema below: no null to drop
  let changed = false;
  if (isObj(x)) {
    for (const k in x) {
      const sub = fieldNode(s, k);
      const v = x[k];
      if (v === null) {
        if (sub && !sub.nullable && sub.def === undefined) {
          delete x[k];
          changed = true;
        }
      } else if (typeof v === 'object' && dropNulls(v, sub)) changed = true;
    }
  } else if (Array.isArray(x)) {
    const items = s.items;
    if (items) for (const v of x) if (v !== null && typeof v === 'object' && dropNulls(v, items)) changed = true;
  }
  return changed;
}

const isNonNullableNull = (v: unknown, s: Node | null | undefined): s is Node => v === null && !!s && !s.nullable;

/**
 * Applies the schema's defaults to `x` (structural defaulting: absent fields and non-nullable
 * nulls). A subtree whose schema has no default anywhere is not walked (nothing would change).
 * True when it set a field.
 */
export function applyDefaults(x: unknown, s: JSONSchemaProps | null | undefined): boolean {
  return !!s && defaults(x, nodeOf(s));
}

const hasOwn = Object.prototype.hasOwnProperty;

function defaults(x: unknown, s: Node | null | undefined): boolean {
  if (!s || !s.hasDefaults) return false;
  let changed = false;
  if (isObj(x)) {
    const o = x as Obj;
    for (const [k, prop] of s.defaulted) {
      if (!hasOwn.call(o, k) || isNonNullableNull(o[k], prop)) {
        o[k] = deepCopy(prop.def);
        changed = true;
      }
    }
    // Members are independent: the properties with defaults below, then the additional ones.
    for (const [k, prop] of s.defaultedBelow) if (hasOwn.call(o, k) && defaults(o[k], prop)) changed = true;
    const extra = s.additionalDefaulted;
    if (extra) {
      for (const k of Object.keys(o)) {
        if (s.props.has(k)) continue;
        if (isNonNullableNull(o[k], extra)) {
          o[k] = deepCopy(extra.def) ?? null;
          changed = true;
        }
        if (defaults(o[k], extra)) changed = true;
      }
    }
  } else if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], items)) {
        x[i] = deepCopy(items.def) ?? null;
        changed = true;
      }
      if (defaults(x[i], items)) changed = true;
    }
  }
  return changed;
}
