/**
 * metav1.Time / MicroTime as Go decodes and re-encodes them: parsed with time.RFC3339 (fractional
 * seconds accepted, an offset or Z required), written in UTC — whole seconds for Time, six
 * fractional digits for MicroTime. Parse failures carry Go's time.ParseError message.
 */

/** A time string Go does not parse; `message` is time.ParseError's. */
export class TimeError extends Error {}

const LAYOUT = '2006-01-02T15:04:05Z07:00';

/** The layout's elements in order: [Go's element text, length or literal]. */
const ELEMENTS: Array<[string, 'num' | 'lit', number]> = [
  ['2006', 'num', 4], ['-', 'lit', 0], ['01', 'num', 2], ['-', 'lit', 0], ['02', 'num', 2], ['T', 'lit', 0],
  ['15', 'num', 2], [':', 'lit', 0], ['04', 'num', 2], [':', 'lit', 0], ['05', 'num', 2],
];

function parseError(value: string, rest: string, elem: string, tail = ''): TimeError {
  return new TimeError(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}${tail}`);
}

/** Epoch milliseconds and the nanosecond fraction of an RFC 3339 time, as time.Parse reads it. */
function parse(value: string): { ms: number; nanos: number } {
  let rest = value;
  const nums: number[] = [];
  for (const [elem, kind, len] of ELEMENTS) {
    if (kind === 'lit') {
      if (!rest.startsWith(elem)) throw parseError(value, rest, elem);
      rest = rest.slice(elem.length);
      continue;
    }
    const digits = rest.slice(0, len);
    if (digits.length < len || !/^\d+$/.test(digits)) throw parseError(value, rest, elem);
    nums.push(Number(digits));
    rest = rest.slice(len);
  }
  let nanos = 0;
  const frac = /^[.,](\d+)/.exec(rest);
  if (frac) {
    nanos = Number(frac[1].slice(0, 9).padEnd(9, '0'));
    rest = rest.slice(frac[0].length);
  }
  let offsetMin = 0;
  if (rest.startsWith('Z')) rest = rest.slice(1);
  else {
    const m = /^([+-])(\d\d):(\d\d)/.exec(rest);
    if (!m) throw parseError(value, rest, 'Z07:00');
    offsetMin = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
    rest = rest.slice(6);
  }
  if (rest) throw new TimeError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(rest)}`);
  const [y, mo, d, h, mi, s] = nums;
  const range = (what: string): TimeError => new TimeError(`parsing time ${JSON.stringify(value)}: ${what} out of range`);
  if (mo < 1 || mo > 12) throw range('month');
  const dim = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > dim) throw range('day');
  if (h > 23) throw range('hour');
  if (mi > 59) throw range('minute');
  if (s > 59) throw range('second');
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return { ms: date.getTime() - offsetMin * 60_000, nanos };
}

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

function format(ms: number, micros: number | undefined): string {
  const d = new Date(ms);
  const base = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  return micros === undefined ? `${base}Z` : `${base}.${pad(micros, 6)}Z`;
}

/** A metav1.Time string as the Go round trip writes it (UTC, whole seconds). */
export function canonicalTime(value: string): string {
  return format(parse(value).ms, undefined);
}

/** A metav1.MicroTime string as the Go round trip writes it (UTC, microseconds). */
export function canonicalMicroTime(value: string): string {
  const { ms, nanos } = parse(value);
  return format(ms, Math.floor(nanos / 1000));
}
