/**
 * Values decoded from JSON as Go's encoding/json sees them: the one `isObj` of the project (a
 * map[string]interface{}: not null, not an array; every layer imports it from here) and the JSON
 * text encoding/json writes.
 */

/** A decoded JSON object. */
export type Obj = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

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
