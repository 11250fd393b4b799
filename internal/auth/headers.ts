/**
 * Header access with Go's net/http semantics, for the authenticators and filters that read
 * identity from headers (the authenticating proxy, impersonation): repeated headers stay separate
 * values (node joins them with ", " in `req.headers`, Go keeps one entry per line), names match
 * case-insensitively, and a consumed header can be removed from the request as kube does.
 */

/** A request's header lines as [lower-case name, value], in the order received. */
export type HeaderLines = Array<[string, string]>;

/** Header lines of a request: from node's rawHeaders when available, else from the header map. */
export function headerLines(headers: Record<string, string | string[] | undefined>, rawHeaders?: string[]): HeaderLines {
  const out: HeaderLines = [];
  if (rawHeaders) {
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!;
      // HTTP/2 pseudo-headers (:path, :method, …) are no request headers in Go's http.Header.
      if (!name.startsWith(':')) out.push([name.toLowerCase(), rawHeaders[i + 1]!]);
    }
    return out;
  }
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    for (const x of Array.isArray(v) ? v : [v]) out.push([k.toLowerCase(), x]);
  }
  return out;
}

/** Go's Header.Get: the first value of `name` (case-insensitive), '' when absent. */
export function firstValue(lines: HeaderLines, name: string): string {
  const n = name.toLowerCase();
  for (const [k, v] of lines) if (k === n) return v;
  return '';
}

/** Go's Header[name]: every value of `name`, one per header line. */
export function allValues(lines: HeaderLines, name: string): string[] {
  const n = name.toLowerCase();
  return lines.filter(([k]) => k === n).map(([, v]) => v);
}

/**
 * Go's url.PathUnescape for extra keys: %XX decoded; a malformed escape leaves the key as it came
 * (kube records malformed keys rather than dropping them). `+` stays a plus.
 */
export function unescapeExtraKey(encoded: string): string {
  if (/%(?![0-9a-fA-F]{2})/.test(encoded)) return encoded;
  if (!encoded.includes('%')) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; ) {
    if (encoded[i] === '%') {
      bytes.push(parseInt(encoded.slice(i + 1, i + 3), 16));
      i += 3;
      continue;
    }
    const chunk = Buffer.from(encoded[i]!, 'utf8');
    for (const b of chunk) bytes.push(b);
    i++;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A map with its keys in sorted order (Go marshals maps sorted; audit and reviews show them so). */
export function sortedKeys<T>(m: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k]!;
  return out;
}

/**
 * Remove the headers whose (lower-case) name satisfies `drop` from the request: from node's header
 * map and, in place, from the raw lines later stages read.
 */
export function removeHeaders(headers: Record<string, string | string[] | undefined>, rawHeaders: string[] | undefined, drop: (lowerName: string) => boolean): void {
  for (const k of Object.keys(headers)) if (drop(k.toLowerCase())) delete headers[k];
  if (!rawHeaders) return;
  for (let i = rawHeaders.length - 2; i >= 0; i -= 2) if (drop(rawHeaders[i]!.toLowerCase())) rawHeaders.splice(i, 2);
}
