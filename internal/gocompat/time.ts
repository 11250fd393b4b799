/**
 * Decoding of metav1.Time and metav1.MicroTime JSON values as Go's time.Parse does it, with Go's
 * error texts, and their canonical JSON (UTC; seconds for Time, microseconds for MicroTime).
 *
 *   Time:      layout "2006-01-02T15:04:05Z07:00"        (fractional seconds accepted, dropped)
 *   MicroTime: layout "2006-01-02T15:04:05.000000Z07:00" (exactly six fractional digits)
 *
 *   "2026-11-23T12:00:00.123456+01:00" as MicroTime → "2026-11-23T11:00:00.123456Z"
 *   "2026-11-23T11:00:00Z" as MicroTime → error: cannot parse "Z" as ".000000"
 */

export const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

export type GoTimeResult = { ok: true; canonical: string } | { ok: false; error: string };

/**
 * time's own quote (format.go, not strconv.Quote): `"` and `\` escaped, every byte of a rune below
 * U+0020 or above U+007F as `\xNN`.
 */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || cp >= 0x80) for (const b of Buffer.from(ch)) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += ch === '"' || ch === '\\' ? `\\${ch}` : ch;
  }
  return `${out}"`;
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** time.getnum: one or two digits (exactly two when `fixed`); null when malformed. */
function getnum(s: string, fixed: boolean): [number, string] | null {
  if (!isDigit(s, 0)) return null;
  if (!isDigit(s, 1)) return fixed ? null : [Number(s[0]), s.slice(1)];
  return [Number(s.slice(0, 2)), s.slice(2)];
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (month: number, year: number): number => (month === 2 && isLeap(year) ? 29 : DAYS[month - 1]!);
const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * Parse `value` with one of the two layouts above, step by step like time.Parse, so errors read
 * like Go's: `parsing time "x" as "layout": cannot parse "rest" as "element"`,
 * `parsing time "x": month out of range`, `parsing time "x": extra text: "rest"`.
 */
export function parseGoTime(value: string, micro: boolean): GoTimeResult {
  const layout = micro ? RFC3339_MICRO_LAYOUT : RFC3339_LAYOUT;
  const cannot = (rest: string, elem: string): GoTimeResult => ({ ok: false, error: `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(rest)} as ${quote(elem)}` });
  const range = (what: string): GoTimeResult => ({ ok: false, error: `parsing time ${quote(value)}: ${what} out of range` });
  let v = value;
  const lit = (s: string): boolean => {
    if (!v.startsWith(s)) return false;
    v = v.slice(s.length);
    return true;
  };
  // year
  if (v.length < 4 || ![0, 1, 2, 3].every((i) => isDigit(v, i))) return cannot(v, '2006');
  const year = Number(v.slice(0, 4));
  v = v.slice(4);
  if (!lit('-')) return cannot(v, '-');
  let r = getnum(v, true);
  if (!r) return cannot(v, '01');
  const month = r[0];
  v = r[1];
  if (month < 1 || month > 12) return range('month');
  if (!lit('-')) return cannot(v, '-');
  r = getnum(v, true);
  if (!r) return cannot(v, '02');
  const day = r[0];
  v = r[1];
  if (!lit('T')) return cannot(v, 'T');
  r = getnum(v, false);
  if (!r) return cannot(v, '15');
  const hour = r[0];
  v = r[1];
  if (hour >= 24) return range('hour');
  if (!lit(':')) return cannot(v, ':');
  r = getnum(v, true);
  if (!r) return cannot(v, '04');
  const minute = r[0];
  v = r[1];
  if (minute >= 60) return range('minute');
  if (!lit(':')) return cannot(v, ':');
  r = getnum(v, true);
  if (!r) return cannot(v, '05');
  const second = r[0];
  v = r[1];
  if (second >= 60) return range('second');
  let frac = '';
  if (micro) {
    const hold = v;
    if (v.length < 7 || (v[0] !== '.' && v[0] !== ',') || ![1, 2, 3, 4, 5, 6].every((i) => isDigit(v, i))) return cannot(hold, '.000000');
    frac = v.slice(1, 7);
    v = v.slice(7);
  } else if (v.length >= 2 && (v[0] === '.' || v[0] === ',') && isDigit(v, 1)) {
    // A fraction the layout does not name is accepted (and, for metav1.Time, dropped).
    let n = 2;
    while (isDigit(v, n)) n++;
    v = v.slice(n);
  }
  let offsetMin = 0;
  if (v.startsWith('Z')) v = v.slice(1);
  else {
    const hold = v;
    if (v.length < 6 || v[3] !== ':' || (v[0] !== '+' && v[0] !== '-')) return cannot(hold, 'Z07:00');
    const hh = getnum(v.slice(1, 3), true);
    const mm = getnum(v.slice(4, 6), true);
    if (!hh || !mm || hh[1] || mm[1]) return cannot(hold, 'Z07:00');
    if (hh[0] > 24) return range('time zone offset hour');
    if (mm[0] > 60) return range('time zone offset minute');
    offsetMin = (v[0] === '-' ? -1 : 1) * (hh[0] * 60 + mm[0]);
    v = v.slice(6);
  }
  if (v) return { ok: false, error: `parsing time ${quote(value)}: extra text: ${quote(v)}` };
  if (day < 1 || day > daysIn(month, year)) return { ok: false, error: `parsing time ${quote(value)}: day out of range` };
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute - offsetMin, second, 0);
  const iso = d.toISOString(); // ±YYYYYY for years outside 0..9999; Go refuses to marshal those
  const base = iso.slice(0, 19);
  return { ok: true, canonical: micro ? `${base}.${frac}Z` : `${base}Z` };
}
