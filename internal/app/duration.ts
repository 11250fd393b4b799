/** Go-style durations as kube-apiserver flags take them: `300ms`, `30s`, `5m`, `1h30m`. */
export function parseDuration(text: string): number {
  if (text === '0') return 0; // Go's time.ParseDuration takes a bare zero
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]];
    consumed += m[0].length;
  }
  if (!text || consumed !== text.length) throw new Error(`invalid duration "${text}" (examples: 300ms, 30s, 5m, 1h)`);
  return total;
}
