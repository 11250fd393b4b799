/**
 * Small shared helpers of the Pod modules: loose accessors over decoded JSON (the body is already
 * decoded into the Go shape, so types are right when present), and resource.Quantity arithmetic
 * for the rules that compare quantities (requests ≤ limits, non-negative, integer resources, QoS).
 */
import { canonicalQuantity } from '../../decode/quantity.ts';

/** A decoded JSON object of the Pod (its shape is checked by the decoder already). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type J = Record<string, any>;

/** The object at `v`, or undefined when it is absent or not an object. */
export const obj = (v: unknown): J | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as J) : undefined);
/** The list at `v` ([] when absent). */
export const list = (v: unknown): J[] => (Array.isArray(v) ? (v as J[]) : []);
/** The string at `v` ('' when absent, as Go's zero value). */
export const s = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The number at `v` (0 when absent, as Go's zero value). */
export const n = (v: unknown): number => (typeof v === 'number' ? v : 0);
/** podutil.IsPodReady: the Pod's Ready condition is True. */
export const isPodReady = (pod: object): boolean => list(obj((pod as J).status)?.conditions).some((c) => c.type === 'Ready' && c.status === 'True');
/** Own entries of a map field ([] when absent). */
export const entries = (v: unknown): [string, unknown][] => (obj(v) ? Object.entries(v as J) : []);

/**
 * A v1 PodSpec with its deprecated alias resolved as Convert_v1_PodSpec_To_core_PodSpec does: the
 * internal PodSpec has no `serviceAccount`, it only fills an empty `serviceAccountName`. Rules that
 * compare two specs (ValidatePodUpdate) compare these, so the alias present on one side and absent
 * on the other (a stored Pod carries it, a patch or an apply may drop it) is no change. A copy.
 */
export function withoutServiceAccountAlias(spec: J): J {
  const { serviceAccount, ...rest } = spec;
  if (!s(rest.serviceAccountName) && s(serviceAccount)) rest.serviceAccountName = serviceAccount;
  return rest;
}

// ---------------------------------------------------------------- quantities

const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** Everything is compared in units of 10^-9 (nano), resource.Quantity's smallest scale. */
const SCALE = 9;

/**
 * A quantity's exact value × 10^9 as a BigInt (sub-nano values round up, as Go's Quantity does when
 * it stores them), or undefined when the text is no quantity.
 */
export function nanoValue(text: string): bigint | undefined {
  let canon: string;
  try {
    canon = canonicalQuantity(text);
  } catch {
    return undefined;
  }
  const m = /^([+-]?)(\d+)(?:\.(\d+))?(.*)$/.exec(canon);
  if (!m) return undefined;
  const neg = m[1] === '-';
  const frac = m[3] ?? '';
  let digits = BigInt(m[2]! + frac);
  let exp10 = -frac.length;
  let mul = 1n;
  const suf = m[4]!;
  if (suf in DEC) exp10 += DEC[suf]!;
  else if (suf in BIN) mul = 2n ** BigInt(BIN[suf]!);
  else if (/^[eE][+-]?\d+$/.test(suf)) exp10 += Number(suf.slice(1));
  else return undefined;
  digits *= mul;
  const e = exp10 + SCALE;
  let v: bigint;
  if (e >= 0) v = digits * 10n ** BigInt(e);
  else {
    const d = 10n ** BigInt(-e);
    v = digits / d + (digits % d ? 1n : 0n);
  }
  return neg ? -v : v;
}

/** Quantity.Cmp: -1, 0 or 1 (unparsable quantities compare as 0). */
export function cmpQuantity(a: string, b: string): number {
  const x = nanoValue(a) ?? 0n;
  const y = nanoValue(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * SetDefaults_ResourceList's RoundUp(milli): a quantity finer than a milli-unit is rounded up to
 * one (`100u` → `1m`); everything else keeps its text.
 */
export function roundUpMilli(text: string): string {
  const v = nanoValue(text);
  if (v === undefined || v % 1_000_000n === 0n) return text;
  const milli = v / 1_000_000n + (v > 0n ? 1n : 0n);
  return canonicalQuantity(`${milli}m`);
}
