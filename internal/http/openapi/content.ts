/**
 * How kube-apiserver 1.24 hands out its OpenAPI bytes: kube-openapi's handlers negotiate the
 * format with goautoneg and then call Go's http.ServeContent, wrapped (v2 only) in NYTimes'
 * gziphandler. This module reproduces the parts clients observe: the sniffed Content-Type,
 * Accept-Ranges, Last-Modified, ETag, `If-None-Match` / `If-Modified-Since` → 304, HEAD, and gzip
 * above gziphandler's minimum size.
 */
import { gzipSync } from 'node:zlib';
import type { Res } from '../respond.ts';

/** One `Accept` clause as goautoneg parses it. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
}

/** goautoneg.ParseAccept: clauses sorted by q, then concrete before wildcard types. */
export function parseAccept(header: string): AcceptClause[] {
  const out: AcceptClause[] = [];
  for (const part of header.split(',')) {
    const [mt, ...params] = part.trim().split(';');
    const [type, subType] = (mt ?? '').trim().split('/');
    if (!type || subType === undefined) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k?.trim() === 'q' && v !== undefined) q = Number.parseFloat(v) || 0;
    }
    out.push({ type: type.trim(), subType: subType.trim(), q });
  }
  return out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.q - a.c.q || rank(a.c) - rank(b.c) || a.i - b.i)
    .map((x) => x.c);
}
const rank = (c: AcceptClause): number => (c.type === '*' ? 2 : c.subType === '*' ? 1 : 0);

/** The first offered `type/subType` the clauses accept, in clause order (kube-openapi's loop). */
export function negotiate(acceptHeader: string | undefined, offered: string[]): string | undefined {
  for (const c of parseAccept(acceptHeader || '*/*')) {
    for (const o of offered) {
      const [t, s] = o.split('/');
      if ((c.type === t || c.type === '*') && (c.subType === s || c.subType === '*')) return o;
    }
  }
  return undefined;
}

/** Go's http.DetectContentType for our two kinds of body: JSON text, or binary protobuf. */
export function sniffContentType(body: Buffer): string {
  const n = Math.min(body.length, 512);
  for (let i = 0; i < n; i++) {
    const b = body[i]!;
    if (b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)) return 'application/octet-stream';
  }
  return 'text/plain; charset=utf-8';
}

/** Bytes with their gzip form made on first use (served documents never change once built). */
export class Payload {
  private gz: Buffer | undefined;
  readonly contentType: string;
  constructor(readonly bytes: Buffer) {
    this.contentType = sniffContentType(bytes);
  }
  gzipped(): Buffer {
    return (this.gz ??= gzipSync(this.bytes));
  }
}

/** gziphandler.DefaultMinSize: smaller bodies are sent as they are. */
const GZIP_MIN_SIZE = 1400;

/** Does `Accept-Encoding` allow gzip (q > 0)? */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim().split('=')).find(([k]) => k === 'q');
    return !q || Number.parseFloat(q[1] ?? '1') > 0;
  });
}

/** Request facts ServeContent looks at. */
export interface ContentRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

const header = (r: ContentRequest, name: string): string | undefined => {
  const v = r.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** RFC 7232 weak comparison against a quoted ETag (If-None-Match may list several, or be `*`). */
function noneMatch(ifNoneMatch: string, etag: string | undefined): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  if (!etag) return false;
  const strip = (t: string): string => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => strip(t) === strip(etag));
}

/** HTTP date without sub-second precision (Last-Modified is compared in seconds). */
const httpDate = (d: Date): string => d.toUTCString();

/** How one payload is served. */
export interface ServeOptions {
  /** Quoted ETag, if any. */
  etag?: string;
  lastModified: Date;
  /** Extra headers set before serving (Vary, Cache-Control, Expires). */
  headers: Record<string, string | string[]>;
  /** Wrapped in gziphandler (v2). */
  gzip: boolean;
}

/** http.ServeContent (+ gziphandler when asked): conditional requests, HEAD, the body. */
export function serveContent(req: ContentRequest, res: Res, payload: Payload, opts: ServeOptions): void {
  const h: Record<string, string | string[]> = { 'Cache-Control': 'no-cache, private', ...opts.headers };
  if (opts.gzip) h.Vary = ['Accept-Encoding', ...toArray(h.Vary)];
  if (opts.etag) h.Etag = opts.etag;
  const inm = header(req, 'if-none-match');
  const ims = header(req, 'if-modified-since');
  const notModified =
    (req.method === 'GET' || req.method === 'HEAD') &&
    (inm !== undefined ? noneMatch(inm, opts.etag) : ims !== undefined && !Number.isNaN(Date.parse(ims)) && Math.floor(opts.lastModified.getTime() / 1000) <= Math.floor(Date.parse(ims) / 1000));
  if (notModified) {
    (res as import('node:http').ServerResponse).writeHead(304, h);
    res.end();
    return;
  }
  h['Accept-Ranges'] = 'bytes';
  h['Content-Type'] = payload.contentType;
  h['Last-Modified'] = httpDate(opts.lastModified);
  let body = payload.bytes;
  let code = 200;
  const range = header(req, 'range');
  const size = payload.bytes.length;
  if (range !== undefined && (req.method === 'GET' || req.method === 'HEAD')) {
    const r = singleRange(range, size);
    if (r === 'unsatisfiable') {
      const text = 'invalid range: failed to overlap\n';
      (res as import('node:http').ServerResponse).writeHead(416, { 'Cache-Control': h['Cache-Control']!, ...(opts.gzip ? { Vary: h.Vary! } : {}), 'Content-Range': `bytes */${size}`, 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(text.length) });
      res.end(text);
      return;
    }
    if (r) {
      code = 206;
      body = payload.bytes.subarray(r.start, r.end + 1);
      h['Content-Range'] = `bytes ${r.start}-${r.end}/${size}`;
    }
  }
  if (opts.gzip && body.length >= GZIP_MIN_SIZE && acceptsGzip(header(req, 'accept-encoding'))) {
    body = code === 200 ? payload.gzipped() : gzipSync(body);
    h['Content-Encoding'] = 'gzip';
  }
  // gziphandler streams the compressed body (no Content-Length), as kube's answer shows.
  if (!h['Content-Encoding']) h['Content-Length'] = String(body.length);
  (res as import('node:http').ServerResponse).writeHead(code, h);
  if (req.method === 'HEAD') res.end();
  else res.end(body);
}

/**
 * One `bytes=` range as http.ServeContent reads it (first-last, first-, -suffix). Several ranges
 * (a multipart answer in Go) and malformed headers are served whole: undefined.
 */
function singleRange(h: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const m = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(h);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Math.min(Number(m[2]), size);
    return n === 0 ? 'unsatisfiable' : { start: size - n, end: size - 1 };
  }
  const start = Number(m[1]);
  if (start >= size) return 'unsatisfiable';
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  return end < start ? undefined : { start, end };
}

const toArray = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** An empty-bodied answer (406 from the negotiation, 404 for an unknown group version). */
export function sendEmpty(res: Res, code: number, headers: Record<string, string | string[]>): void {
  (res as import('node:http').ServerResponse).writeHead(code, { 'Cache-Control': 'no-cache, private', 'Content-Length': '0', ...headers });
  res.end();
}
