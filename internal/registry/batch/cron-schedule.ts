/**
 * A CronJob schedule's check, after github.com/robfig/cron/v3 v3.0.1 `ParseStandard` (what kube
 * 1.24's validation calls): five fields (minute, hour, day of month, month, day of week; month
 * and weekday names), `*`/`?`, ranges, steps, lists, the descriptors (`@yearly`, `@every 1h30m`,
 * …) and a `TZ=`/`CRON_TZ=` prefix, with the library's error messages. Only whether it parses
 * matters here (no controller runs schedules).
 */
import { parseGoDuration } from '../../gocompat/duration.ts';
import { goQuote } from '../../gocompat/quote.ts';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };
const DESCRIPTORS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);

/** Go's strings.Fields: split on Unicode white space, no empty fields. */
const goFields = (s: string): string[] => s.split(/[\s\u0085]+/u).filter((f) => f !== '');

/**
 * Go's time.LoadLocation error for `name` (undefined when it loads): the IANA database's names,
 * case-sensitive as zoneinfo files are, "" and "UTC" and "Local".
 */
export function loadLocationError(name: string): string | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return undefined;
  if (name.includes('..') || name.startsWith('/') || name.startsWith('\\')) return 'time: invalid location name';
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    // Intl matches names case-insensitively; zoneinfo files do not.
    if (resolved.toLowerCase() !== name.toLowerCase() || resolved === name) return undefined;
  } catch {
    // not a zone Intl knows
  }
  return `unknown time zone ${name}`;
}

/** strconv.Atoi's error, or the number. */
function atoi(expr: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(expr)) return `strconv.Atoi: parsing ${goQuote(expr)}: invalid syntax`;
  const n = BigInt(expr);
  if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) return `strconv.Atoi: parsing ${goQuote(expr)}: value out of range`;
  return Number(n);
}

/** mustParseInt. */
function mustParseInt(expr: string): number {
  const n = atoi(expr);
  if (typeof n === 'string') throw new Error(`failed to parse int from ${expr}: ${n}`);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

const parseIntOrName = (expr: string, names: Record<string, number> | undefined): number => (names && Object.hasOwn(names, expr.toLowerCase()) ? names[expr.toLowerCase()]! : mustParseInt(expr));

/** getRange: `number | number "-" number [ "/" number ]`, `*` or `?`. */
function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = r.max;
  } else if (rangeAndStep.length > 2) throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** ParseStandard's error message for `spec`, or undefined when it parses. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

function parseStandard(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new Error('empty spec string');
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    // Go slices spec[eq+1:i]; without a space that is a runtime panic, which kube answers as a 500.
    if (i < 0) throw new Error(`provided bad location ${spec.slice(eq + 1)}: time: invalid location name`);
    const name = spec.slice(eq + 1, i);
    const err = loadLocationError(name);
    if (err) throw new Error(`provided bad location ${name}: ${err}`);
    spec = spec.slice(i).trim();
  }
  if (spec.startsWith('@')) {
    if (DESCRIPTORS.has(spec)) return;
    if (spec.startsWith('@every ')) {
      try {
        parseGoDuration(spec.slice('@every '.length));
      } catch (e) {
        throw new Error(`failed to parse duration ${spec}: ${(e as Error).message}`);
      }
      return;
    }
    throw new Error(`unrecognized descriptor: ${spec}`);
  }
  const fields = goFields(spec);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  [MINUTES, HOURS, DOM, MONTHS, DOW].forEach((bounds, i) => {
    for (const expr of fields[i]!.split(',').filter((x) => x !== '')) checkRange(expr, bounds);
  });
}
