/**
 * resource.Quantity arithmetic the validators and defaulters need (sign, comparison, RoundUp to
 * milli, Value()), on the canonical strings decoding stores (internal/decode/quantity.ts), and
 * the quantity validators of pkg/apis/core/validation (Kubernetes 1.24).
 */
import { type FieldError, FieldPath, invalid } from '../../../api/field-errors.ts';
import { canonicalQuantity, QuantityError } from '../../../decode/quantity.ts';

/** An exact quantity: `n / 10^s` (s ≥ 0). */
export interface QuantityValue {
  n: bigint;
  s: number;
}

const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** The exact value of a quantity string; undefined when it does not parse. */
export function quantityValue(input: unknown): QuantityValue | undefined {
  if (typeof input === 'number') input = String(input);
  if (typeof input !== 'string') return undefined;
  let str: string;
  try {
    str = canonicalQuantity(input);
  } catch (e) {
    if (e instanceof QuantityError) return undefined;
    throw e;
  }
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (!m) return undefined;
  const neg = m[1] === '-';
  const int = m[2] || '0';
  const frac = m[3] ?? '';
  const suffix = m[4]!;
  let n = BigInt(int + frac);
  let s = frac.length;
  let e10 = 0;
  if (suffix in DEC) e10 = DEC[suffix]!;
  else if (suffix in BIN) n *= 2n ** BigInt(BIN[suffix]!);
  else if (/^[eE][+-]?\d+$/.test(suffix)) e10 = Number.parseInt(suffix.slice(1), 10);
  else return undefined;
  if (e10 >= 0) n *= 10n ** BigInt(e10);
  else s += -e10;
  return { n: neg ? -n : n, s };
}

/** Cmp of two exact values: -1, 0, 1. */
export function compareValues(a: QuantityValue, b: QuantityValue): number {
  const l = a.n * 10n ** BigInt(b.s);
  const r = b.n * 10n ** BigInt(a.s);
  return l < r ? -1 : l > r ? 1 : 0;
}

/** Cmp of two quantity strings (unparseable counts as zero, as Go's zero Quantity). */
export function compareQuantities(a: unknown, b: unknown): number {
  const zero = { n: 0n, s: 0 };
  return compareValues(quantityValue(a) ?? zero, quantityValue(b) ?? zero);
}

/** Sign of a quantity string: -1, 0, 1. */
export const quantitySign = (q: unknown): number => compareQuantities(q, '0');

/** Quantity.Value(): the int64 value rounded up (away from zero). */
export function quantityIntValue(q: unknown): bigint {
  const v = quantityValue(q) ?? { n: 0n, s: 0 };
  const d = 10n ** BigInt(v.s);
  const t = v.n / d;
  return v.n % d === 0n ? t : v.n > 0n ? t + 1n : t - 1n;
}

/**
 * SetDefaults_ResourceList's `val.RoundUp(-3)` on one quantity string: values finer than milli
 * round up (away from zero) to milli; others keep their string.
 */
export function roundUpToMilli(q: string): string {
  const v = quantityValue(q);
  if (!v || v.s <= 3) return q;
  const d = 10n ** BigInt(v.s - 3);
  const t = v.n / d;
  const milli = v.n % d === 0n ? t : v.n > 0n ? t + 1n : t - 1n;
  // The format is kept: DecimalExponent inputs stay in exponent form, everything else is DecimalSI
  // (a binary quantity with a fractional part already prints in DecimalSI).
  const exp = /[eE][+-]?\d+$/.test(q) ? 'e-3' : 'm';
  return canonicalQuantity(`${milli}${exp}`);
}

/** SetDefaults_ResourceList: every value rounded up to milli. */
export function defaultResourceList(list: unknown): void {
  if (typeof list !== 'object' || list === null || Array.isArray(list)) return;
  const l = list as Record<string, unknown>;
  for (const [k, v] of Object.entries(l)) if (typeof v === 'string') l[k] = roundUpToMilli(v);
}

/** "must be greater than zero" (isNotPositiveErrorMsg). */
export const IS_NOT_POSITIVE_ERROR_MSG = 'must be greater than zero';
/** "must be greater than or equal to 0" (isNegativeErrorMsg). */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';

/** ValidatePositiveQuantityValue. */
export function validatePositiveQuantityValue(q: unknown, p: FieldPath): FieldError[] {
  return quantitySign(q) <= 0 ? [invalid(p, String(q ?? '0'), IS_NOT_POSITIVE_ERROR_MSG)] : [];
}

/** ValidateNonnegativeQuantity. */
export function validateNonnegativeQuantity(q: unknown, p: FieldPath): FieldError[] {
  return quantitySign(q) < 0 ? [invalid(p, String(q), IS_NEGATIVE_ERROR_MSG)] : [];
}

/** validateBasicResource: `Value() < 0` → Invalid with the int64 value. */
export function validateBasicResource(q: unknown, p: FieldPath): FieldError[] {
  const v = quantityIntValue(q);
  return v < 0n ? [invalid(p, Number(v), 'must be a valid resource quantity')] : [];
}
