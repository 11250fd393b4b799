/**
 * resource.Quantity as k8s.io/apimachinery 1.24 parses and prints it: the canonical string a
 * quantity field round-trips to (`1.5Gi` → `1536Mi`, `1000m` → `1`, `0.5` → `500m`), with the
 * parser's quirk of keeping the written string when its fast path finds it already canonical
 * (`+1` stays `+1`). Values are exact (BigInt), as Go's inf.Dec fallback is.
 */

/** The parse errors' messages (resource.ErrFormatWrong / ErrSuffix / ErrNumeric). */
export const QUANTITY_ERRORS = {
  format: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
  suffix: "unable to parse quantity's suffix",
  numeric: 'unable to parse numeric part of quantity',
} as const;

/** A quantity that does not parse; `message` is Go's. */
export class QuantityError extends Error {}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXP = new Map(Object.entries(DECIMAL_SUFFIXES).map(([k, v]) => [v, k]));
const BINARY_BY_EXP = new Map(Object.entries(BINARY_SUFFIXES).map(([k, v]) => [v, k]));

/** quantitySuffixer.interpret: base, exponent and format of a suffix, or undefined. */
function interpret(s: string): { base: 10 | 2; exp: number; format: Format } | undefined {
  if (s in DECIMAL_SUFFIXES) return { base: 10, exp: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (s in BINARY_SUFFIXES) return { base: 2, exp: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E') && /^[+-]?\d+$/.test(s.slice(1))) {
    const exp = Number.parseInt(s.slice(1), 10);
    if (Number.isSafeInteger(exp) && Math.abs(exp) <= 2 ** 31) return { base: 10, exp, format: 'DecimalExponent' };
  }
  return undefined;
}

/** parseQuantityString: sign, numerator (leading zeros cut), denominator, suffix. */
function split(str: string): { positive: boolean; num: string; denom: string; suffix: string } {
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?([eEinumkKMGTP]*(?:[-+]?\d*))$/.exec(str);
  if (!m) throw new QuantityError(QUANTITY_ERRORS.format);
  // Go stops the suffix at the first character outside [eEinumkKMGTP] and then allows one sign
  // and digits only; the regular expression above is that grammar.
  return { positive: m[1] !== '-', num: m[2] || '0', denom: m[3] ?? '', suffix: m[4] };
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);

/** Canonical string of `unscaled × 10^scale` (int64Amount / infDecAmount AsCanonicalBytes). */
function canonicalDecimal(unscaled: bigint, scale: number, format: Format): string {
  if (unscaled === 0n) return '0';
  let m = unscaled;
  let e = scale;
  while (m % 10n === 0n) {
    m /= 10n;
    e++;
  }
  const r = ((e % 3) + 3) % 3;
  if (r) {
    m *= pow10(r);
    e -= r;
  }
  if (format === 'DecimalExponent') return e === 0 ? `${m}` : `${m}e${e}`;
  const suffix = DECIMAL_BY_EXP.get(e);
  // Beyond Exa, Go's suffixer falls back to the exponent form.
  return suffix !== undefined ? `${m}${suffix}` : `${m}e${e}`;
}

/**
 * The string a Quantity field stores for `input` (a JSON string or number), or QuantityError
 * with Go's message.
 */
export function canonicalQuantity(input: string): string {
  const str = input.trim();
  if (str.length === 0) throw new QuantityError(QUANTITY_ERRORS.format);
  if (str === '0') return '0';
  const { positive, num, denom, suffix } = split(str);
  const suf = interpret(suffix);
  if (!suf) throw new QuantityError(QUANTITY_ERRORS.suffix);

  // The int64 fast path of ParseQuantity keeps an already canonical input string as it is.
  const shifted = num + denom;
  if (suf.base === 10) {
    const scale = suf.exp - denom.length;
    if (18 - shifted.length >= 0 && scale >= -9 && BigInt(shifted) <= 2n ** 63n - 1n) {
      if (scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0') return str;
    }
  } else if (denom.length === 0) {
    const precision = 15 - num.length - Math.trunc((suf.exp * 3) / 10) - 1;
    const value = BigInt(num);
    if (precision >= 0 && suf.exp % 10 === 0 && (value & 7n) !== 0n && value * 2n ** BigInt(suf.exp) <= 2n ** 63n - 1n) return str;
  }

  // Exact value: unscaled × 10^scale.
  let unscaled = BigInt(shifted);
  let scale = -denom.length;
  if (suf.base === 10) scale += suf.exp;
  else unscaled *= 2n ** BigInt(suf.exp);
  // Non-zero values round up (away from zero) to a multiple of 10^-9.
  if (unscaled !== 0n && scale < -9) {
    const d = pow10(-9 - scale);
    unscaled = (unscaled + d - 1n) / d;
    scale = -9;
  }
  let format = suf.format;
  const mag = scale >= 0 ? unscaled * pow10(scale) : unscaled / pow10(-scale);
  const isInteger = scale >= 0 || unscaled % pow10(-scale) === 0n;
  if (format === 'BinarySI' && !(mag >= 1n) && unscaled !== 0n) format = 'DecimalSI';
  const signed = positive ? unscaled : -unscaled;
  if (unscaled === 0n) return '0';
  if (format === 'BinarySI') {
    // CanonicalizeBytes: |v| < 1024 or a fraction → decimal; else the largest power of 1024.
    if (abs(mag) < 1024n || !isInteger) return canonicalDecimal(signed, scale, 'DecimalSI');
    let m = signed * (scale >= 0 ? pow10(scale) : 1n) / (scale >= 0 ? 1n : pow10(-scale));
    let e = 0;
    while (m % 1024n === 0n && e < 60) {
      m /= 1024n;
      e += 10;
    }
    return `${m}${BINARY_BY_EXP.get(e) ?? ''}`;
  }
  return canonicalDecimal(signed, scale, format);
}
