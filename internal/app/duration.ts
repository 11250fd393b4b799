import { parseGoDuration } from '../http/timeout.ts';

/**
 * Go-style durations as kube-apiserver flags take them (`300ms`, `30s`, `5m`, `1h30m`): Go's
 * time.ParseDuration (http/timeout.ts), refused when negative.
 */
export function parseDuration(text: string): number {
  let ms = -1;
  try {
    ms = parseGoDuration(text);
  } catch {
    // answered below
  }
  if (!(ms >= 0)) throw new Error(`invalid duration "${text}" (examples: 300ms, 30s, 5m, 1h)`);
  return ms;
}
