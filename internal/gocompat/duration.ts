/** Go's time.ParseDuration (request timeouts, flags, cron `@every` schedules). */
import { goQuote as quote } from './quote.ts';

const NS_PER_UNIT: Record<string, bigint> = { ns: 1n, us: 1_000n, 'µs': 1_000n, 'μs': 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };
const MAX_NS = (1n << 63n) - 1n;

/**
 * Go's time.ParseDuration, in milliseconds (fractional below 1 ms), with its error messages
 * (`time: invalid duration "x"`, `time: missing unit in duration "10"`, `time: unknown unit "x" in
 * duration "1x"`).
 */
export function parseGoDuration(orig: string): number {
  let s = orig;
  let neg = false;
  if (s && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  const invalid = (): Error => new Error(`time: invalid duration ${quote(orig)}`);
  if (!s) throw invalid();
  let total = 0n;
  const digit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
  while (s) {
    if (!(s[0] === '.' || digit(s[0]))) throw invalid();
    let i = 0;
    while (digit(s[i])) i++;
    const intPart = s.slice(0, i);
    s = s.slice(i);
    let frac = '';
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      while (digit(s[j])) j++;
      frac = s.slice(0, j);
      s = s.slice(j);
    }
    if (!intPart && !frac) throw invalid();
    let u = 0;
    while (u < s.length && !(s[u] === '.' || digit(s[u]))) u++;
    if (u === 0) throw new Error(`time: missing unit in duration ${quote(orig)}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = NS_PER_UNIT[unitName];
    if (unit === undefined) throw new Error(`time: unknown unit ${quote(unitName)} in duration ${quote(orig)}`);
    const v = BigInt(intPart || '0');
    if (v > (1n << 63n) / unit) throw invalid();
    let part = v * unit;
    if (frac) part += BigInt(Math.floor(Number(`0.${frac}`) * Number(unit)));
    total += part;
    if (total > 1n << 63n) throw invalid();
  }
  if (!neg && total > MAX_NS) throw invalid();
  const ms = Number(total) / 1e6;
  return neg ? -ms : ms;
}
