/**
 * Errors of the strategic merge patch port (k8s.io/apimachinery@v0.24.17 pkg/util/mergepatch and
 * strategicpatch), with the exact texts kube prints, and Go's fmt rendering of decoded JSON values
 * those texts embed (`%v`, `%s`, reflect type names).
 */
import { isObj } from '../gocompat/json.ts';

/**
 * mergepatch's sentinel errors that kube-apiserver maps to a status code of their own
 * (handlers/patch.go interpretStrategicMergePatchError); every other error is a plain error (500).
 */
export type SmpSentinel =
  | 'badJSONDoc'
  | 'noListOfLists'
  | 'badPatchFormatForPrimitiveList'
  | 'badPatchFormatForRetainKeys'
  | 'badPatchFormatForSetElementOrderList'
  | 'patchContentNotMatchRetainKeys'
  | 'unsupportedStrategicMergePatchFormat';

const SENTINEL_TEXT: Record<SmpSentinel, string> = {
  badJSONDoc: 'invalid JSON document',
  noListOfLists: 'lists of lists are not supported',
  badPatchFormatForPrimitiveList: 'invalid patch format of primitive list',
  badPatchFormatForRetainKeys: 'invalid patch format of retainKeys',
  badPatchFormatForSetElementOrderList: 'invalid patch format of setElementOrder list',
  patchContentNotMatchRetainKeys: "patch content doesn't match retainKeys list",
  unsupportedStrategicMergePatchFormat: 'strategic merge patch format is not supported',
};

/** An error of the strategic merge: a mergepatch sentinel, or a plain Go error (its text). */
export class SmpError extends Error {
  constructor(
    message: string,
    readonly sentinel?: SmpSentinel,
  ) {
    super(message);
  }
}

/** One of mergepatch's sentinel errors. */
export const sentinel = (s: SmpSentinel): SmpError => new SmpError(SENTINEL_TEXT[s], s);

/**
 * A JSON number as the Go value it decodes to: kube decodes patches with PreserveInts and converts
 * stored objects with ToUnstructured, so integers are int64 and everything else float64.
 */
const numberType = (n: number): 'int64' | 'float64' => (Number.isInteger(n) ? 'int64' : 'float64');

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which `%v` uses for a float64. */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mant, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  // Shortest formatting: %e when the exponent is < -4 or >= 6 (eprec 6), else %f.
  if (exp < -4 || exp >= 6) return `${mant}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

/**
 * Go's fmt rendering of a decoded JSON value: `%v` (maps as map[k:v ...] with sorted keys, slices
 * as [a b], null as <nil>) or `%s` (non-strings as %!s(type=value)).
 */
export function goFormat(v: unknown, verb: 'v' | 's' = 'v'): string {
  if (Array.isArray(v)) return `[${v.map((x) => goFormat(x, verb)).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goFormat(v[k], verb)}`).join(' ')}]`;
  if (typeof v === 'string') return v;
  const plain = v === null || v === undefined ? '<nil>' : typeof v === 'number' ? (numberType(v) === 'int64' ? String(v) : goFloat(v)) : String(v);
  if (verb === 'v') return plain;
  if (v === null || v === undefined) return '%!s(<nil>)';
  return `%!s(${typeof v === 'number' ? numberType(v) : 'bool'}=${plain})`;
}

/** reflect.TypeOf(v) of a decoded JSON value, as `%s` prints it. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '%!s(<nil>)';
  if (Array.isArray(v)) return '[]interface {}';
  if (isObj(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return numberType(v);
  return typeof v === 'boolean' ? 'bool' : 'string';
}

/** Go's reflect type of a decoded JSON value, compared by sliceElementType (nil for null). */
export function reflectType(v: unknown): string | null {
  return v === null || v === undefined ? null : goTypeOf(v);
}

/** mergepatch.ErrBadArgType(expected, actual): `expected` is the Go type name wanted. */
export const badArgType = (expected: '[]interface {}' | 'map[string]interface {}', actual: unknown): SmpError =>
  new SmpError(`expected a ${expected}, but received a ${goTypeOf(actual)}`);

/** mergepatch.ErrNoMergeKey. */
export const noMergeKey = (m: Record<string, unknown>, key: string): SmpError => new SmpError(`map: ${goFormat(m)} does not contain declared merge key: ${key}`);

/** mergepatch.ErrBadPatchType: a `$patch` directive that is not known where it stands. */
export const badPatchType = (directive: unknown, m: Record<string, unknown>): SmpError =>
  new SmpError(`unknown patch type: ${goFormat(directive, 's')} in map: ${goFormat(m)}`);
