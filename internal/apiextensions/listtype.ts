/**
 * Uniqueness of `x-kubernetes-list-type: set` items and `map` keys in a custom resource
 * (apiextensions-apiserver schema/listtype): each value that repeats an earlier one is a
 * Duplicate at its index, reported once however often it repeats; a map list's item that is not
 * an object is Invalid. Map keys print as Go prints the key map (`map[string]interface {}{"name":"a"}`).
 */
import { FieldPath, GoValue, duplicate, invalid, type FieldError } from '../api/field-errors.ts';
import { isObj } from '../gocompat/json.ts';
import { goSharpV, propertyOf, type JSONSchemaProps } from './types.ts';
import { schemaFacts } from './schema-facts.ts';

/** Validates the list sets and maps of a whole custom resource (its top-level fields down). */
export function validateListSetsAndMaps(schema: JSONSchemaProps | undefined, obj: unknown, base = new FieldPath()): FieldError[] {
  if (!schema || !isObj(obj) || !schemaFacts(schema).hasListType) return [];
  // Only members whose schema has a list type at or below them are walked (and given a path).
  const additional = isObj(schema.additionalProperties) && schemaFacts(schema.additionalProperties as JSONSchemaProps).hasListType ? (schema.additionalProperties as JSONSchemaProps) : undefined;
  const listed = listTypedProperties(schema);
  // One such property and no additional ones (most schemas): only it is looked at.
  if (!additional && listed.length === 1) {
    const [k, sub] = listed[0];
    return Object.prototype.hasOwnProperty.call(obj, k) ? walk(base.child(k), sub, obj[k]) : [];
  }
  const errs: FieldError[] = [];
  for (const k of Object.keys(obj)) {
    if (additional) errs.push(...walk(base.key(k), additional, obj[k]));
    const sub = propertyOf(schema, k);
    if (sub && schemaFacts(sub).hasListType) errs.push(...walk(base.child(k), sub, obj[k]));
  }
  return errs;
}

/** The properties of a node with a list type at or below them, worked out once per node. */
const listTyped = new WeakMap<JSONSchemaProps, [string, JSONSchemaProps][]>();
function listTypedProperties(s: JSONSchemaProps): [string, JSONSchemaProps][] {
  let out = listTyped.get(s);
  if (!out) listTyped.set(s, (out = schemaFacts(s).properties.filter(([, p]) => isObj(p) && schemaFacts(p).hasListType)));
  return out;
}

function walk(path: FieldPath, s: JSONSchemaProps, v: unknown): FieldError[] {
  if (Array.isArray(v)) return validateArray(path, s, v);
  if (isObj(v)) return validateListSetsAndMaps(s, v, path);
  return [];
}

/** A value's identity as Go's map key / json.Marshal sees it. */
const identity = (x: unknown): string => (isObj(x) || Array.isArray(x) ? `c${JSON.stringify(sortKeys(x))}` : `s${typeof x}:${String(x)}`);
function sortKeys(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(sortKeys);
  if (isObj(x)) return Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])]));
  return x;
}

/** Indices of values that repeat an earlier one (the second occurrence of each only). */
function nonUnique(values: unknown[]): number[] {
  // The common case, distinct strings: no identities to build.
  if (values.every((x) => typeof x === 'string') && new Set(values).size === values.length) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  values.forEach((x, i) => {
    const id = identity(x);
    const times = seen.get(id) ?? 0;
    seen.set(id, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateArray(path: FieldPath, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  const errs: FieldError[] = [];
  const listType = s['x-kubernetes-list-type'];
  if (listType === 'set') {
    if (list.length > 1) for (const i of nonUnique(list)) errs.push(duplicate(path.index(i), dupValue(list[i])));
  } else if (listType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  if (isObj(s.items) && schemaFacts(s.items as JSONSchemaProps).hasListType) list.forEach((v, i) => errs.push(...walk(path.index(i), s.items as JSONSchemaProps, v)));
  return errs;
}

const dupValue = (v: unknown): unknown => (isObj(v) || Array.isArray(v) ? new GoValue(goSharpV(v)) : v);

function validateListMap(path: FieldPath, s: JSONSchemaProps, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObj(x)) return [invalid(path.index(i), dupValue(x), 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s['x-kubernetes-list-map-keys'] ?? [];
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObj(x)) for (const f of keyFields) if (Object.prototype.hasOwnProperty.call(x, f)) key[f] = x[f];
    return key;
  });
  return nonUnique(keys).map((i) => duplicate(path.index(i), new GoValue(goSharpV(keys[i]))));
}
