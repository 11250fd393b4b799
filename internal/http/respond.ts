/**
 * Writing responses. Object bytes from storage are sent as they are (never re-serialized); list
 * bodies are spliced from item bytes. Every error leaves as a Status.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { kubeYaml } from './kube-yaml.ts';
import { partialMetadataMismatch, type ApiError } from '../api/errors.ts';
import { PROTOBUF, encodeProtobuf } from './protobuf.ts';

export type Res = ServerResponse | Http2ServerResponse;

export interface ResponseOptions {
  code?: number;
  headers?: Record<string, string | string[]>;
  yaml?: boolean;
}

function send(res: Res, code: number, contentType: string, body: Buffer | string, headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const h: Record<string, string | string[] | number> = {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(typeof body === 'string' ? Buffer.byteLength(body) : body.length),
    ...headers,
  };
  (res as ServerResponse).writeHead(code, h as Record<string, string>);
  res.end(body);
}

/** Send JSON bytes (or a value) as application/json, or YAML when asked. */
export function sendJson(res: Res, value: Buffer | unknown, opts: ResponseOptions = {}): void {
  const code = opts.code ?? 200;
  if (opts.yaml) {
    const v = Buffer.isBuffer(value) ? JSON.parse(value.toString('utf8')) : value;
    send(res, code, 'application/yaml', kubeYaml(v), opts.headers);
    return;
  }
  // kube's JSON serializer is a json.Encoder: every body ends with a newline.
  const json = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
  send(res, code, 'application/json', Buffer.concat([goJsonEscape(json), NEWLINE]), opts.headers);
}
const NEWLINE = Buffer.from('\n');

/**
 * Go's encoding/json escapes `<`, `>`, `&`, U+2028 and U+2029 inside strings (\u003c …), and
 * kube's serializer keeps that default; JSON.stringify does not. Those bytes can only occur
 * inside strings in JSON, so they are replaced wherever they are.
 */
export function goJsonEscape(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length && b[i] !== 0x3c && b[i] !== 0x3e && b[i] !== 0x26 && !(b[i] === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9))) i++;
  if (i === b.length) return b;
  const parts: Buffer[] = [];
  let from = 0;
  for (; i < b.length; i++) {
    let esc: string | undefined;
    if (b[i] === 0x3c) esc = '\\u003c';
    else if (b[i] === 0x3e) esc = '\\u003e';
    else if (b[i] === 0x26) esc = '\\u0026';
    else if (b[i] === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) esc = b[i + 2] === 0xa8 ? '\\u2028' : '\\u2029';
    if (!esc) continue;
    parts.push(b.subarray(from, i), Buffer.from(esc));
    from = i + (esc.length === 6 && b[i] === 0xe2 ? 3 : 1);
    if (b[i] === 0xe2) i += 2;
  }
  parts.push(b.subarray(from));
  return Buffer.concat(parts);
}

export function sendText(res: Res, code: number, text: string, headers: Record<string, string> = {}): void {
  send(res, code, 'text/plain; charset=utf-8', text, { 'X-Content-Type-Options': 'nosniff', ...headers });
}

/**
 * Send an error's Status in the representation the client asked for, as kube's ErrorNegotiated
 * does: YAML for `application/yaml`, Protobuf for `application/vnd.kubernetes.protobuf`, JSON
 * for anything else (including Accept headers nothing satisfies).
 */
export function sendError(res: Res, err: ApiError, headers: Record<string, string | string[]> = {}, accept?: string): void {
  const h = { ...err.headers, ...headers };
  const rep = errorRepresentation(accept);
  if (rep === 'protobuf') return send(res, err.code, PROTOBUF, encodeProtobuf(err.status), h);
  if (rep === 'yaml') return send(res, err.code, 'application/yaml', kubeYaml(err.status), h);
  // Nothing acceptable: kube's WriteRawJSON (json.MarshalIndent, two spaces, no newline).
  if (rep === 'raw') return send(res, err.code, 'application/json', goJsonEscape(Buffer.from(JSON.stringify(err.status, null, 2))), h);
  send(res, err.code, 'application/json', Buffer.concat([goJsonEscape(Buffer.from(JSON.stringify(err.status))), NEWLINE]), h);
}

/**
 * How kube's ErrorNegotiated writes a Status for this Accept header: the first media range it can
 * serve without conversion (no `as=`) decides; none at all → 'raw' (indented JSON). No header →
 * JSON.
 */
function errorRepresentation(accept: string | undefined): 'json' | 'yaml' | 'protobuf' | 'raw' {
  if (!accept || !accept.trim()) return 'json';
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (params.some((p) => p.startsWith('as='))) continue;
    if (type === 'application/yaml') return 'yaml';
    if (type === PROTOBUF) return 'protobuf';
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '') return 'json';
  }
  return 'raw';
}

/**
 * The `as=` of the first metadata-only media range (`PartialObjectMetadata` or
 * `PartialObjectMetadataList`) in an Accept header: once negotiation chose the metadata
 * representation, it is the range it chose.
 */
export function partialMetadataAs(accept: string | undefined): string | undefined {
  for (const part of (accept ?? '').split(',')) {
    const as = /;\s*as=(PartialObjectMetadata(?:List)?)\s*(;|$)/.exec(part);
    if (as) return as[1];
  }
  return undefined;
}

/**
 * Refuse a metadata-only answer whose `as=` names the other shape (a list for a get, one object
 * for a list) with kube's 406; `goType` names the response's internal type.
 */
export function checkPartialMetadataShape(accept: string | undefined, isList: boolean, group: string, kind: string): void {
  const as = partialMetadataAs(accept);
  if (!as || (as === 'PartialObjectMetadataList') === isList) return;
  const pkg = group ? group.split('.')[0] : 'core';
  throw partialMetadataMismatch(as, isList, `*${pkg}.${kind}${isList ? 'List' : ''}`);
}

/**
 * The mux's answer for a path outside every API prefix (Go's http.NotFound): text/plain
 * `404 page not found`, not a Status.
 */
export function sendPageNotFound(res: Res): void {
  sendText(res, 404, '404 page not found\n');
}

/**
 * Splice stored item bytes into a list body: `{"kind":…,"metadata":…,"items":[a,b,…]}`. Items
 * leave without their own `kind`/`apiVersion`, as kube-apiserver writes lists (the list's
 * TypeMeta names them once).
 */
export function listBody(kind: string, apiVersion: string, listMeta: Record<string, unknown>, items: Buffer[]): Buffer {
  const head = Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`);
  const parts: Buffer[] = [head];
  items.forEach((b, i) => {
    if (i) parts.push(COMMA);
    parts.push(withoutTypeMeta(b));
  });
  parts.push(TAIL);
  return Buffer.concat(parts);
}
const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}');

/**
 * Object bytes without their leading `"kind":…,"apiVersion":…,` members. Stored objects start
 * with exactly those (registry/generic/serialize.ts writes them first), so this is a slice;
 * anything else is re-serialized without them.
 */
export function withoutTypeMeta(b: Buffer): Buffer {
  const m = TYPE_META_PREFIX.exec(b.subarray(0, 512).toString('latin1'));
  if (m) return Buffer.concat([OPEN, b.subarray(m[0].length)]);
  const { kind: _k, apiVersion: _a, ...rest } = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(rest));
}
// Kinds and apiVersions are plain ASCII names: no escapes inside the strings.
const TYPE_META_PREFIX = /^\{"kind":"[^"\\]*","apiVersion":"[^"\\]*",/;
const OPEN = Buffer.from('{');

/** `Warning` header values in RFC 7234 form, as kube-apiserver sends them. */
export const warningHeaders = (warnings: string[]): Record<string, string[]> =>
  warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
