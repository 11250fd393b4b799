/**
 * The request target as Go's net/http gives it to kube-apiserver (url.ParseRequestURI): the path
 * %-decoded as a whole and never cleaned, the query parsed by url.ParseQuery. A WHATWG URL (Node's
 * `new URL`) resolves `.` and `..` segments, decodes `%2e%2e` into them and reads `\` as `/`, so
 * `…/configmaps/../../kube-system/secrets` named another namespace's Secrets; kube keeps the
 * segments as they are (`..` is then a name, refused as a key: path-names.ts).
 */

/** A request target that Go's server refuses with its plain-text `400 Bad Request`. */
export class BadRequestTarget extends Error {}

export interface RequestTarget {
  /** The path, %-decoded (`%2F` is a `/` here, as in Go's URL.Path). */
  path: string;
  query: URLSearchParams;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Go's url unescape: `%XX` (two hex digits) is a byte, a malformed escape is an error (null);
 * `+` is a space in query components only. The bytes are read as UTF-8 (an invalid sequence
 * becomes U+FFFD, as Go's JSON writes it).
 */
export function goUnescape(s: string, query: boolean): string | null {
  if (!s.includes('%') && !(query && s.includes('+'))) return s;
  const out: number[] = [];
  const bytes = Buffer.from(s, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x25) {
      const hi = i + 2 < bytes.length ? hexValue(bytes[i + 1]!) : -1;
      const lo = hi >= 0 ? hexValue(bytes[i + 2]!) : -1;
      if (lo < 0) return null;
      out.push(hi * 16 + lo);
      i += 2;
    } else out.push(query && c === 0x2b ? 0x20 : c);
  }
  return Buffer.from(out).toString('utf8');
}

/**
 * Go's url.ParseQuery as `req.URL.Query()` uses it: pairs split on `&`; a pair with a `;` in its
 * key or a malformed escape is dropped (Go 1.17+), the others kept in order.
 */
export function parseGoQuery(raw: string): URLSearchParams {
  // Without escapes, '+' or ';' both parsers agree (empty pairs skipped, a bare key is ''), and
  // the native one is faster.
  if (!/[%+;]/.test(raw)) return new URLSearchParams(raw);
  const q = new URLSearchParams();
  for (const pair of raw.split('&')) {
    if (!pair || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const k = goUnescape(eq < 0 ? pair : pair.slice(0, eq), true);
    const v = goUnescape(eq < 0 ? '' : pair.slice(eq + 1), true);
    if (k === null || v === null) continue;
    q.append(k, v);
  }
  return q;
}

/**
 * Split and decode a request target (`/path?query`; an absolute `https://host/path?query` is
 * read from its path). Throws BadRequestTarget for a malformed %-escape in the path.
 */
export function parseRequestTarget(target: string): RequestTarget {
  let t = target || '/';
  if (!t.startsWith('/')) {
    const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/.exec(t);
    if (m) t = t.slice(m[0].length) || '/';
  }
  const qi = t.indexOf('?');
  const rawPath = qi < 0 ? t : t.slice(0, qi);
  const path = goUnescape(rawPath, false);
  if (path === null) throw new BadRequestTarget('invalid URL escape');
  return { path: path || '/', query: parseGoQuery(qi < 0 ? '' : t.slice(qi + 1)) };
}
