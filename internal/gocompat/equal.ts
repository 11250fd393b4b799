/**
 * Go's equality of decoded values, on their JSON form:
 * - jsonEqual: reflect.DeepEqual of two values decoded from JSON (key order ignored, an absent
 *   member and an undefined one alike);
 * - semanticEqual: apimachinery's equality.Semantic.DeepEqual, whose forked DeepEqual takes a nil
 *   and an empty slice or map as equal (absent/null/[] of a list field).
 */

import { isObj, type Obj } from './json.ts';

/** reflect.DeepEqual on decoded JSON (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a).filter((k) => (a as Obj)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Obj)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => jsonEqual((a as Obj)[k], (b as Obj)[k]));
}

/** jsonEqual of two objects without the members named in `skip` (as if both had none). */
export function jsonEqualExcept(a: Obj, b: Obj, skip: ReadonlySet<string>): boolean {
  let n = 0;
  for (const k of Object.keys(a)) {
    if (skip.has(k) || a[k] === undefined) continue;
    if (!jsonEqual(a[k], b[k])) return false;
    n++;
  }
  for (const k of Object.keys(b)) if (!skip.has(k) && b[k] !== undefined) n--;
  return n === 0;
}

/**
 * apiequality.Semantic.DeepEqual on JSON values: a nil and an empty slice or map are equal
 * (absent/null/[]/{} of a list or map field). Pointer fields (absent vs present) stay distinct
 * because JSON keeps them apart.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const emptyish = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  if (emptyish(a) && emptyish(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}
