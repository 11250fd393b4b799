/**
 * Go's fmt printing of decoded JSON values (interface{} holding float64/int64, string, bool,
 * []interface{}, map[string]interface{}) as kube's messages show them: `%v`, `%#v`, and float64's
 * shortest form.
 */
import { goQuote } from './quote.ts';
import { isObj } from './json.ts';

/**
 * Go's `%v` of a float64 (strconv.FormatFloat(f, 'g', -1, 64)): the shortest digits, in exponent
 * form when the decimal exponent is below -4 or at least 6 (the shortest precision's threshold).
 *   goFloat(1e6) → "1e+06"    goFloat(123456) → "123456"    goFloat(0.5) → "0.5"    goFloat(1e-5) → "1e-05"
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  const eprec = 6;
  if (exp < -4 || exp >= eprec) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return String(f);
}

/**
 * `%v` of a decoded JSON number: whole numbers decode to int64 in kube's unstructured JSON
 * (printed as integers), the rest to float64.
 */
export const goNumber = (n: number): string => (Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n));

/** Go's `%#v` of a decoded JSON value (interface{}): maps with sorted keys, slices, quoted strings. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (isObj(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${goQuote(k)}:${goSharpV(v[k])}`).join(', ')}}`;
  return String(v);
}

/** Go's `%v` of a decoded JSON value: `map[a:1 b:x]`, `[1 2]`, strings bare. */
export function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  return String(v);
}
