/**
 * Values decoded from JSON as Go's encoding/json sees them: the one `isObj` of the project (a
 * map[string]interface{}: not null, not an array; every layer imports it from here), their deep
 * copy, and the JSON text encoding/json writes.
 */

/** A decoded JSON object. */
export type Obj = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A deep copy of a JSON value (objects decoded from JSON: plain objects, arrays, scalars). About
 * ten times faster than structuredClone on a 1 KiB object, which made it ~2% of a create's CPU;
 * anything that is not a plain object or array (a Buffer, a Date, a Map) is copied by
 * structuredClone as before.
 */
export function deepCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopy(v[i]);
    return out as T;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return structuredClone(v);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = deepCopy((v as Record<string, unknown>)[k]);
  return out as T;
}

const GO_ESCAPES: Record<string, string> = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * JSON text as Go's encoding/json writes it (kube-apiserver's serializer): JSON.stringify plus
 * the HTML-safe escapes of <, >, & and U+2028/U+2029 (`"x<y"` is written `"x\u003cy"`). Members
 * keep their order (a struct's field order; maps the caller sorts).
 */
export function goJson(value: unknown): string {
  const s = JSON.stringify(value);
  // Five indexOf scans cost about half of one regular-expression test on a 1 KiB object.
  const plain = s.indexOf('<') < 0 && s.indexOf('>') < 0 && s.indexOf('&') < 0 && s.indexOf('\u2028') < 0 && s.indexOf('\u2029') < 0;
  return plain ? s : s.replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]!);
}
