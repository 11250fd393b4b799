/**
 * Writing responses. Object bytes from storage are sent as they are (never re-serialized); list
 * bodies are spliced from item bytes. Every error leaves as a Status.
 */
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import YAML from 'yaml';
import type { ApiError } from '../api/errors.ts';

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
  const h: Record<string, string | string[] | number> = { 'Content-Type': contentType, 'Cache-Control': 'no-cache, private', ...headers };
  (res as ServerResponse).writeHead(code, h as Record<string, string>);
  res.end(body);
}

/** Send JSON bytes (or a value) as application/json, or YAML when asked. */
export function sendJson(res: Res, value: Buffer | unknown, opts: ResponseOptions = {}): void {
  const code = opts.code ?? 200;
  if (opts.yaml) {
    const v = Buffer.isBuffer(value) ? JSON.parse(value.toString('utf8')) : value;
    send(res, code, 'application/yaml', YAML.stringify(v), opts.headers);
    return;
  }
  const body = Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value));
  send(res, code, 'application/json', body, opts.headers);
}

export function sendText(res: Res, code: number, text: string, headers: Record<string, string> = {}): void {
  send(res, code, 'text/plain; charset=utf-8', text, { 'X-Content-Type-Options': 'nosniff', ...headers });
}

/** Send an error's Status; `pretty`: indented, as kube's WriteRawJSON when Accept could not be met. */
export function sendError(res: Res, err: ApiError, headers: Record<string, string | string[]> = {}, pretty = false): void {
  send(res, err.code, 'application/json', JSON.stringify(err.status, null, pretty ? 2 : undefined), { ...err.headers, ...headers });
}

/** Splice stored item bytes into a list body: `{"kind":…,"metadata":…,"items":[a,b,…]}`. */
export function listBody(kind: string, apiVersion: string, listMeta: Record<string, unknown>, items: Buffer[]): Buffer {
  const head = Buffer.from(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":${JSON.stringify(listMeta)},"items":[`);
  const parts: Buffer[] = [head];
  items.forEach((b, i) => {
    if (i) parts.push(COMMA);
    parts.push(b);
  });
  parts.push(TAIL);
  return Buffer.concat(parts);
}
const COMMA = Buffer.from(',');
const TAIL = Buffer.from(']}');

/** `Warning` header values in RFC 7234 form, as kube-apiserver sends them. */
export const warningHeaders = (warnings: string[]): Record<string, string[]> =>
  warnings.length ? { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) } : {};
