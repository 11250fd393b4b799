/**
 * metav1.Time / MicroTime as Go decodes and re-encodes them, on the one Go time parser of the
 * project (internal/gocompat/time.ts: time.Parse with RFC3339 / RFC3339Micro, Go's error texts);
 * this module is the decoder's entry point.
 */
import { parseGoTime } from '../gocompat/time.ts';

/** A time string Go does not parse; `message` is time.ParseError's. */
export class TimeError extends Error {}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Two ASCII digits at `i` as a number, or -1. */
function two(v: string, i: number): number {
  const a = v.charCodeAt(i) - 48;
  const b = v.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * Fast path for the usual value, a time this server (or any Go client) wrote: already what Go
 * writes — UTC, whole seconds (`2006-01-02T15:04:05Z`, Time) or six fractional digits (MicroTime)
 * — and in range, it parses and prints back unchanged. Years before 1000 and February 29th take
 * the full parser (leap years, and the zero time, which metav1.Time writes differently). Read
 * by character codes: a regular expression's match array was most of a write's time decoding.
 */
function alreadyCanonical(v: string, micro: boolean): boolean {
  if (v.length !== (micro ? 27 : 20) || v.charCodeAt(v.length - 1) !== 90 /* Z */) return false;
  if (v.charCodeAt(4) !== 45 || v.charCodeAt(7) !== 45 || v.charCodeAt(10) !== 84 || v.charCodeAt(13) !== 58 || v.charCodeAt(16) !== 58) return false;
  if (micro) {
    if (v.charCodeAt(19) !== 46 /* . */) return false;
    for (let i = 20; i < 26; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) return false;
    }
  }
  const century = two(v, 0);
  const year = two(v, 2);
  const month = two(v, 5);
  const day = two(v, 8);
  if (century < 10 || year < 0 || month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]! || (month === 2 && day === 29)) return false;
  const h = two(v, 11);
  const m = two(v, 14);
  const s = two(v, 17);
  return h >= 0 && h < 24 && m >= 0 && m < 60 && s >= 0 && s < 60;
}

function canonical(value: string, micro: boolean): string {
  if (alreadyCanonical(value, micro)) return value;
  const r = parseGoTime(value, micro);
  if (!r.ok) throw new TimeError(r.error);
  return r.canonical;
}

/** A metav1.Time string as the Go round trip writes it (UTC, whole seconds). */
export const canonicalTime = (value: string): string => canonical(value, false);

/** A metav1.MicroTime string as the Go round trip writes it (UTC, microseconds; six digits required). */
export const canonicalMicroTime = (value: string): string => canonical(value, true);
