/**
 * metav1.Time / MicroTime as Go decodes and re-encodes them, on the one Go time parser of the
 * project (internal/registry/core/go-time.ts: time.Parse with RFC3339 / RFC3339Micro, Go's error
 * texts). That module belongs here (it is decoding, not a kind); it stays where the Events change
 * put it until the two merge, and this one is the decoder's entry point.
 */
import { parseGoTime } from '../registry/core/go-time.ts';

/** A time string Go does not parse; `message` is time.ParseError's. */
export class TimeError extends Error {}

function canonical(value: string, micro: boolean): string {
  const r = parseGoTime(value, micro);
  if (!r.ok) throw new TimeError(r.error);
  return r.canonical;
}

/** A metav1.Time string as the Go round trip writes it (UTC, whole seconds). */
export const canonicalTime = (value: string): string => canonical(value, false);

/** A metav1.MicroTime string as the Go round trip writes it (UTC, microseconds; six digits required). */
export const canonicalMicroTime = (value: string): string => canonical(value, true);
