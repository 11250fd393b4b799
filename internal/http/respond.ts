/**
 * Writing responses. Object bytes from storage are sent as they are (never re-serialized); list
 * bodies are spliced from item bytes. Every error leaves as a Status.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { kubeYaml } from './kube-yaml.ts';
import type { ApiError } from '../api/errors.ts';
import { PROTOBUF, encodeProtobuf, type ProtobufListParts } from './protobuf.ts';

export type Res = ServerResponse | Http2ServerResponse;

export interface ResponseOptions {
  code?: number;
  headers?: Record<string, string | string[]>;
  yaml?: boolean;
  /** kube writes this document with WriteRawJSON (json.MarshalIndent, no trailing newline). */
  rawJson?: boolean;
}

function send(res: Res, code: number, contentType: string, body: Buffer | string | Buffer[], headers: Record<string, string | string[]> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const parts = Array.isArray(body) ? body : [typeof body === 'string' ? Buffer.from(body) : body];
  const h: Record<string, string | string[] | number> = {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': String(parts.reduce((n, p) => n + p.length, 0)),
    ...headers,
  };
  (res as ServerResponse).writeHead(code, h as Record<string, string>);
  // Parts go out as they are: a large list is never copied into one buffer again.
  for (const p of parts.slice(0, -1)) (res as ServerResponse).write(p);
  res.end(parts[parts.length - 1]);
}

/** Send JSON bytes (or a value) as application/json, or YAML when asked. */
export function sendJson(res: Res, value: Buffer | unknown, opts: ResponseOptions = {}): void {
  const code = opts.code ?? 200;
  if (opts.yaml) {
    const v = Buffer.isBuffer(value) ? JSON.parse(value.toString('utf8')) : value;
    send(res, code, 'application/yaml', kubeYaml(v), opts.headers);
    return;
  }
  const json = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
  // kube's pretty serializer is json.MarshalIndent (two spaces, no trailing newline).
  if (opts.rawJson || prettyPrint(res)) return send(res, code, 'application/json', goJsonEscape(indentJson(json)), opts.headers);
  // kube's JSON serializer is a json.Encoder: every body ends with a newline.
  send(res, code, 'application/json', [goJsonEscape(json), NEWLINE], opts.headers);
}
const NEWLINE = Buffer.from('\n');

/** Send a JSON object (with kind/apiVersion) as kube's protobuf body ("k8s\0" + runtime.Unknown). */
export function sendProtobuf(res: Res, value: unknown, opts: ResponseOptions = {}): void {
  send(res, opts.code ?? 200, PROTOBUF, encodeProtobuf(value), opts.headers);
}

/**
 * Re-indent compact JSON bytes as json.MarshalIndent(v, "", "  ") writes them (Go's json.Indent):
 * a byte scan, so key order and number text stay exactly as stored; empty `{}`/`[]` stay closed.
 */
export function indentJson(json: Buffer): Buffer {
  const out: string[] = [];
  const text = json.toString('utf8');
  let depth = 0;
  const nl = (): string => '\n' + '  '.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(text.slice(i, j + 1));
      i = j;
    } else if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      if (text[i + 1] === close) {
        out.push(c + close);
        i++;
      } else {
        depth++;
        out.push(c + nl());
      }
    } else if (c === '}' || c === ']') {
      depth--;
      out.push(nl() + c);
    } else if (c === ',') out.push(',' + nl());
    else if (c === ':') out.push(': ');
    else if (c !== ' ' && c !== '\n' && c !== '\t' && c !== '\r') out.push(c);
  }
  return Buffer.from(out.join(''));
}

/** The values Go's strconv.ParseBool reads as true. */
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

/**
 * Whether kube's negotiation picks the pretty JSON serializer (isPrettyPrint): a non-empty
 * `pretty` query value decides (strconv.ParseBool, anything unparsable is false); otherwise
 * User-Agents of browsers and CLI HTTP tools (curl, Wget, Mozilla/5.0) get it.
 */
export function prettyPrint(res: Res): boolean {
  const req = (res as { req?: { url?: string; headers: Record<string, string | string[] | undefined> } }).req;
  if (!req) return false;
  const url = req.url ?? '';
  const q = url.indexOf('?');
  if (q >= 0 && url.includes('pretty', q)) {
    const v = new URLSearchParams(url.slice(q + 1)).get('pretty');
    if (v) return GO_TRUE.has(v);
  }
  const ua = req.headers['user-agent'];
  return typeof ua === 'string' && (ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0'));
}

const GO_ESCAPES: Record<number, Buffer> = { 0x3c: Buffer.from('\\u003c'), 0x3e: Buffer.from('\\u003e'), 0x26: Buffer.from('\\u0026') };

/**
 * Go's encoding/json escapes `<`, `>`, `&`, U+2028 and U+2029 inside strings (\u003c …), and
 * kube's serializer keeps that default; JSON.stringify does not. Those bytes can only occur
 * inside strings in JSON, so they are replaced wherever they are. Bodies without any (nearly
 * all) are returned as they are after native single-byte scans (U+2028/9 are found by their
 * lead byte 0xE2, which memchr finds far faster than a three-byte search).
 */
export function goJsonEscape(b: Buffer): Buffer {
  if (b.indexOf(0x3c) < 0 && b.indexOf(0x3e) < 0 && b.indexOf(0x26) < 0 && !hasLineSeparator(b)) return b;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    const ascii = GO_ESCAPES[c];
    if (ascii) {
      parts.push(b.subarray(from, i), ascii);
      from = i + 1;
    } else if (c === 0xe2 && b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) {
      parts.push(b.subarray(from, i), Buffer.from(b[i + 2] === 0xa8 ? '\\u2028' : '\\u2029'));
      i += 2;
      from = i + 1;
    }
  }
  parts.push(b.subarray(from));
  return Buffer.concat(parts);
}

/** Does `b` hold U+2028 or U+2029 (UTF-8 E2 80 A8 / E2 80 A9)? */
function hasLineSeparator(b: Buffer): boolean {
  for (let i = b.indexOf(0xe2); i >= 0; i = b.indexOf(0xe2, i + 1)) {
    if (b[i + 1] === 0x80 && (b[i + 2] === 0xa8 || b[i + 2] === 0xa9)) return true;
  }
  return false;
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
  if (prettyPrint(res)) return send(res, err.code, 'application/json', goJsonEscape(indentJson(Buffer.from(JSON.stringify(err.status)))), h);
  send(res, err.code, 'application/json', Buffer.concat([goJsonEscape(Buffer.from(JSON.stringify(err.status))), NEWLINE]), h);
}

/**
 * How kube's ErrorNegotiated writes a Status for this Accept header: the first media range it can
 * serve without conversion (no `as=`, a stream only where a stream serializer exists) decides; none at all → 'raw' (indented JSON). No header →
 * JSON.
 */
function errorRepresentation(accept: string | undefined): 'json' | 'yaml' | 'protobuf' | 'raw' {
  if (!accept || !accept.trim()) return 'json';
  for (const part of accept.split(',')) {
    const [type, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    if (params.some((p) => p.startsWith('as='))) continue;
    // `stream=<v>` needs a stream serializer (JSON and Protobuf have one, YAML not) and v = watch.
    const stream = params.find((p) => p.startsWith('stream='))?.slice(7);
    if (stream && (stream !== 'watch' || type === 'application/yaml')) continue;
    if (type === 'application/yaml') return 'yaml';
    if (type === PROTOBUF) return 'protobuf';
    if (type === 'application/json' || type === '*/*' || type === 'application/*' || type === '') return 'json';
  }
  return 'raw';
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
export function listBody(kind: string, apiVersion: string, listMeta: Record<string, unknown>, items: Buffer[], keepTypeMeta = false): Buffer {
  const parts: Buffer[] = [listHead(kind, apiVersion, listMeta)];
  pushItems(parts, items, true, keepTypeMeta);
  parts.push(TAIL);
  return Buffer.concat(parts);
}

/** A list body up to its first item: `{"kind":…,"apiVersion":…,"metadata":…,"items":[`. */
const listHead = (kind: string, apiVersion: string, listMeta: Record<string, unknown>): Buffer =>
  Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`);

/**
 * Push items (TypeMeta cut off, unless `keepTypeMeta`: an UnstructuredList's items, custom
 * resources, keep their apiVersion and kind) onto `parts`, comma-separated; a comma first unless `first`.
 */
function pushItems(parts: Buffer[], items: Buffer[], first: boolean, keepTypeMeta = false): void {
  let seen: Buffer | null = null;
  items.forEach((b, i) => {
    if (i || !first) parts.push(COMMA);
    if (keepTypeMeta) return void parts.push(b);
    const at = sharedTypeMetaLength(b, seen);
    if (at > 0) {
      seen = b.subarray(0, at);
      parts.push(OPEN, b.subarray(at));
    } else parts.push(withoutTypeMeta(b));
  });
}

/**
 * A list body that reaches this size before its items are all read is sent as it is read
 * (chunked; kube's own list bodies of more than a few KiB are chunked too); a smaller one goes
 * out whole with a Content-Length, exactly as before.
 */
export const STREAM_AFTER_BYTES = 1 << 20;

/**
 * Send an unpaged JSON list while its items are read (`batches`, from one storage snapshot):
 * each batch becomes one write, and the next is read only once the socket has taken the last
 * (backpressure), so a list of any size holds about one batch in memory, and LevelDB's reads
 * overlap TLS and the client. `close` releases the snapshot, also when the client goes away.
 * A read failure before the first write is thrown (the caller answers a Status); after it the
 * response is cut off (destroyed), as an incomplete body is all a client can still be told.
 */
export async function sendListStream(res: Res, kind: string, apiVersion: string, listMeta: Record<string, unknown>, batches: AsyncIterable<Buffer[]>, close: () => Promise<void>, headers: Record<string, string | string[]> = {}, keepTypeMeta = false): Promise<void> {
  async function* chunks(): AsyncGenerator<Buffer> {
    let first = true;
    for await (const batch of batches) {
      const items: Buffer[] = [];
      pushItems(items, batch, first, keepTypeMeta);
      first = false;
      yield goJsonEscape(Buffer.concat(items));
    }
  }
  return sendJsonStream(res, listHead(kind, apiVersion, listMeta), chunks(), TAIL_NEWLINE, close, headers);
}

/**
 * Send an unpaged list as YAML while its items are read, byte for byte what kubeYaml of the whole
 * list writes: its keys sorted (`apiVersion`, `items`, `kind`, `metadata`), so the items come
 * between a head and a tail, and each batch of them is a top-level YAML sequence — which
 * kubeYaml writes exactly as the sequence under `items:` (not indented under its key, folded at
 * the same columns). Memory and failures as sendListStream's.
 */
export async function sendYamlListStream(res: Res, kind: string, apiVersion: string, listMeta: Record<string, unknown>, batches: AsyncIterable<Buffer[]>, close: () => Promise<void>, headers: Record<string, string | string[]> = {}): Promise<void> {
  let empty = true;
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const batch of batches) {
      if (!batch.length) continue;
      if (empty) yield YAML_ITEMS;
      empty = false;
      yield Buffer.from(kubeYaml(batch.map(untyped)));
    }
    if (empty) yield YAML_NO_ITEMS;
  }
  const head = Buffer.from(kubeYaml({ apiVersion }));
  const tail = Buffer.from(kubeYaml({ kind, metadata: listMeta }));
  return sendJsonStream(res, head, chunks(), tail, close, headers, 'application/yaml');
}
/**
 * Send an unpaged list as Protobuf while its items are read: the body's Unknown envelope carries
 * the list message's length before it, so the list is read twice from its one snapshot — once
 * encoded only to be measured (`reread`), then encoded again and sent (`batches`), a batch at a
 * time each (memory: about a batch, as sendListStream's; CPU: the encoding twice). A list that
 * measures under STREAM_AFTER_BYTES is kept from the first pass and sent whole with a
 * Content-Length. The bytes are encodeProtobuf's of the whole list (encodeProtobufList).
 */
/** Send a list read whole (a page) as Protobuf: encodeProtobuf's bytes of the whole list, from the parts. */
export function sendProtobufList(res: Res, parts: ProtobufListParts, items: Buffer[], code = 200, headers: Record<string, string | string[]> = {}): void {
  const encoded = parts.stored(items);
  send(res, code, PROTOBUF, [parts.head(parts.meta.length + encoded.length), parts.meta, encoded, parts.tail], headers);
}

export async function sendProtobufListStream(res: Res, parts: ProtobufListParts, stream: { batches: AsyncIterable<Buffer[]>; reread(): AsyncIterable<Buffer[]>; close(): Promise<void> }, headers: Record<string, string | string[]> = {}): Promise<void> {
  let kept: Buffer[] | null = [];
  let size = parts.meta.length;
  try {
    for await (const batch of stream.reread()) {
      const b = parts.stored(batch);
      size += b.length;
      if (kept) {
        kept.push(b);
        if (size >= STREAM_AFTER_BYTES) kept = null;
      }
    }
  } catch (e) {
    await stream.close();
    throw e;
  }
  if (kept) {
    await stream.close();
    return send(res, 200, PROTOBUF, [parts.head(size), parts.meta, ...kept, parts.tail], headers);
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    for await (const batch of stream.batches) yield parts.stored(batch);
  }
  return sendJsonStream(res, Buffer.concat([parts.head(size), parts.meta]), chunks(), parts.tail, stream.close, headers, PROTOBUF);
}

const YAML_ITEMS = Buffer.from('items:\n');
const YAML_NO_ITEMS = Buffer.from('items: []\n');

/** A stored object as a list item: without its kind and apiVersion. */
function untyped(b: Buffer): Record<string, unknown> {
  const { kind: _k, apiVersion: _a, ...rest } = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
  return rest;
}

/**
 * Send a JSON body made of `head`, the `chunks` as they come (each already escaped), and `tail`:
 * a body that stays under STREAM_AFTER_BYTES goes out whole with a Content-Length, a larger one
 * chunked, each chunk once the socket has taken the last. Failures as sendListStream's.
 */
export async function sendJsonStream(res: Res, head: Buffer, chunks: AsyncIterable<Buffer>, tail: Buffer, close: () => Promise<void>, headers: Record<string, string | string[]> = {}, contentType = 'application/json'): Promise<void> {
  const w = res as ServerResponse;
  let gone = false;
  const onClose = (): void => void (gone = true);
  w.once('close', onClose);
  const parts: Buffer[] = [head];
  let size = head.length;
  let streaming = false;
  try {
    for await (const chunk of chunks) {
      if (!streaming) {
        parts.push(chunk);
        size += chunk.length;
        if (size < STREAM_AFTER_BYTES) continue;
        streaming = true;
        w.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', ...headers } as Record<string, string>);
        let ok = true;
        for (const p of parts) ok = w.write(p);
        parts.length = 0;
        if (!ok) await drained(w, () => gone);
      } else if (!w.write(chunk)) await drained(w, () => gone);
      if (gone) return;
    }
  } catch (e) {
    if (!streaming) throw e;
    w.destroy(e as Error);
    return;
  } finally {
    w.off('close', onClose);
    await close();
  }
  parts.push(tail);
  if (!streaming) return send(res, 200, contentType, parts, headers);
  w.end(tail);
}
const TAIL_NEWLINE = Buffer.from(']}\n');

/** Resolves when `w` can take more, or has closed (at once when `gone`). */
export function drained(w: ServerResponse, gone: () => boolean): Promise<void> {
  if (gone()) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      w.off('drain', done);
      w.off('close', done);
      resolve();
    };
    w.on('drain', done);
    w.on('close', done);
  });
}
const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}');

/**
 * Object bytes without their leading `"kind":…,"apiVersion":…,` members. Stored objects start
 * with exactly those (registry/generic/serialize.ts writes them first), so this is a slice;
 * anything else is re-serialized without them.
 */
export function withoutTypeMeta(b: Buffer): Buffer {
  const at = typeMetaLength(b);
  if (at > 0) return Buffer.concat([OPEN, b.subarray(at)]);
  const { kind: _k, apiVersion: _a, ...rest } = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify(rest));
}
/**
 * typeMetaLength for a run of items: the items of one list nearly always share their TypeMeta,
 * so `seen` (the bytes found for an earlier item) is compared first with a short byte loop.
 */
function sharedTypeMetaLength(b: Buffer, seen: Buffer | null): number {
  if (seen && b.length > seen.length) {
    let i = 0;
    while (i < seen.length && b[i] === seen[i]) i++;
    if (i === seen.length) return i;
  }
  return typeMetaLength(b);
}

/**
 * Length of a leading `{"kind":"…","apiVersion":"…",` (0 when the bytes do not start so), found
 * with native searches: this runs once per list item.
 */
function typeMetaLength(b: Buffer): number {
  if (b.compare(KIND_OPEN, 0, KIND_OPEN.length, 0, KIND_OPEN.length) !== 0) return 0;
  const sep = b.indexOf(API_VERSION_SEP, KIND_OPEN.length);
  if (sep < 0 || sep > TYPE_META_MAX) return 0;
  const end = b.indexOf(QUOTE_COMMA, sep + API_VERSION_SEP.length);
  if (end < 0 || end > TYPE_META_MAX) return 0;
  // Kinds and apiVersions are plain names: a quote or backslash inside means another layout.
  const kind = b.subarray(KIND_OPEN.length, sep);
  const apiVersion = b.subarray(sep + API_VERSION_SEP.length, end);
  if (kind.includes(0x22) || kind.includes(0x5c) || apiVersion.includes(0x22) || apiVersion.includes(0x5c)) return 0;
  return end + QUOTE_COMMA.length;
}
const KIND_OPEN = Buffer.from('{"kind":"');
const API_VERSION_SEP = Buffer.from('","apiVersion":"');
const QUOTE_COMMA = Buffer.from('",');
const TYPE_META_MAX = 512;
const OPEN = Buffer.from('{');

/** `Warning` header values in RFC 7234 form, as kube-apiserver sends them. */
export const warningHeaders = (warnings: string[]): Record<string, string[]> =>
  warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};

/** A body written as is with its own content type (kube handlers that write pre-rendered bytes). */
export function sendRaw(res: Res, code: number, contentType: string, body: Buffer | string, headers: Record<string, string> = {}): void {
  send(res, code, contentType, body, headers);
}
