/**
 * A request sent exactly as written, over node:https with a kubeconfig's credentials: the path is
 * not normalized (undici and curl resolve `.`/`..` segments before sending), the body can be sent
 * slowly, and headers and query strings can be as big as the test wants.
 */
import https from 'node:https';
import http2 from 'node:http2';
import { readKubeconfig } from './target.ts';

export interface RawResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
  /** Milliseconds from sending to the answer's end. */
  ms: number;
}

export interface RawOptions {
  headers?: Record<string, string | number>;
  body?: Buffer | string;
  /** Send the body this many bytes at a time, `drip.everyMs` apart (content-length is set). */
  drip?: { bytes: number; everyMs: number };
  /** Give up after this long (rejects). */
  timeoutMs?: number;
  /** Send the body chunked (no content-length). */
  chunked?: boolean;
}

export function rawRequest(kubeconfig: string, method: string, path: string, opts: RawOptions = {}): Promise<RawResult> {
  const k = readKubeconfig(kubeconfig);
  const u = new URL(k.server);
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const headers: Record<string, string | number> = { accept: 'application/json', ...opts.headers };
  if (k.token) headers.authorization = `Bearer ${k.token}`;
  if (body) {
    headers['content-type'] ??= 'application/json';
    if (!opts.chunked) headers['content-length'] = body.length;
  }
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timers: NodeJS.Timeout[] = [];
    const req = https.request({ host: u.hostname, port: u.port, method, path, ca: k.ca, cert: k.cert, key: k.key, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        timers.forEach(clearTimeout);
        req.destroy();
        resolve(result(res.statusCode ?? 0, res.headers, chunks, started));
      });
      res.on('error', reject);
    });
    req.on('error', (e) => {
      timers.forEach(clearTimeout);
      reject(e);
    });
    if (opts.timeoutMs) timers.push(setTimeout(() => req.destroy(new Error(`no answer in ${opts.timeoutMs} ms`)), opts.timeoutMs));
    if (!body || (!opts.drip && !opts.chunked)) return void req.end(body);
    sendSlowly(req, body, opts.drip ?? { bytes: 64 * 1024, everyMs: 0 }, timers);
  });
}

/** The same over HTTP/2 (one session per request): status, body text and time. */
export function rawRequestH2(kubeconfig: string, method: string, path: string, opts: RawOptions = {}): Promise<RawResult> {
  const k = readKubeconfig(kubeconfig);
  const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const session = http2.connect(k.server, { ca: k.ca, cert: k.cert, key: k.key });
    const timers: NodeJS.Timeout[] = [];
    const done = (f: () => void): void => {
      timers.forEach(clearTimeout);
      session.close();
      f();
    };
    session.on('error', (e) => done(() => reject(e)));
    const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path, accept: 'application/json', ...opts.headers };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    if (body) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = body.length;
    }
    const req = session.request(headers);
    let status = 0;
    let resHeaders: Record<string, string | string[] | undefined> = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => {
      status = Number(h[':status']);
      resHeaders = h as Record<string, string | string[] | undefined>;
    });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () =>
      done(() => resolve(result(status, resHeaders, chunks, started))),
    );
    req.on('error', (e) => done(() => reject(e)));
    if (opts.timeoutMs) timers.push(setTimeout(() => done(() => reject(new Error(`no answer in ${opts.timeoutMs} ms`))), opts.timeoutMs));
    if (!body || !opts.drip) return void req.end(body);
    sendSlowly(req, body, opts.drip, timers);
  });
}

/** An answer as the tests read it: the body as text and, when it is JSON, parsed. */
function result(status: number, headers: Record<string, string | string[] | undefined>, chunks: Buffer[], started: number): RawResult {
  const text = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status, headers, text, json, ms: Date.now() - started };
}

/** Write `body` `bytes` at a time, `everyMs` apart, then end; stops once the request is gone. */
function sendSlowly(req: { write(b: Buffer): unknown; end(): unknown; destroyed: boolean }, body: Buffer, drip: { bytes: number; everyMs: number }, timers: NodeJS.Timeout[]): void {
  let at = 0;
  const next = (): void => {
    if (req.destroyed) return;
    req.write(body.subarray(at, at + drip.bytes));
    at += drip.bytes;
    if (at >= body.length) req.end();
    else timers.push(setTimeout(next, drip.everyMs));
  };
  next();
}
