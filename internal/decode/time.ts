/**
 * metav1.Time / MicroTime as Go decodes and re-encodes them, on the one Go time parser of the
 * project (internal/registry/core/go-time.ts: time.Parse with RFC3339 / RFC3339Micro, Go's error
 * texts). That module belongs here (it is decoding, not a kind); it stays where the Events change
 * put it until the two merge, and this one is the decoder's entry point.
 */
import { parseGoTime } from '../registry/core/go-time.ts';

/** A time string Go does not parse; `message` is time.ParseError's. */
export class TimeError extends Error {}

/** Already what Go writes: UTC, whole seconds (Time) or six fractional digits (MicroTime). */
const CANONICAL = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)Z$/;
const CANONICAL_MICRO = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{6}Z$/;
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Fast path for the usual value, a time this server (or any Go client) wrote: in range, it parses
 * and prints back unchanged. Years before 1000 and February 29th take the full parser (leap
 * years, and the zero time, which metav1.Time writes differently).
 */
function alreadyCanonical(value: string, micro: boolean): boolean {
  const m = (micro ? CANONICAL_MICRO : CANONICAL).exec(value);
  if (!m || m[1]! < '1000') return false;
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1]! || (month === 2 && day === 29)) return false;
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60;
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
