/**
 * Request deadlines as kube-apiserver sets them (WithRequestDeadline + WithTimeoutForNonLongRunningRequests):
 * every request but a watch gets `--request-timeout` (60 s), or less when its `?timeout=` (a Go
 * duration) asks for less; an unparsable `?timeout=` is a 400 before authentication. The deadline
 * counts from the request's arrival and covers everything: reading the body (a body sent at a byte
 * a second ends here), authentication, the handler. When it passes before the answer started,
 * the client gets kube's 504 (a bare JSON Status, served as text/plain) and whatever the handler
 * writes later is dropped; an answer already streaming is cut (kube aborts the handler).
 *
 * A write that times out is not cancelled (kube's neither: the 504 leaves while the storage call
 * runs on): it lands whole or not at all, since a write is one appended event, and a GET tells
 * the client which.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { badRequest } from '../api/errors.ts';
import type { Res } from './respond.ts';
import { parseGoDuration } from '../gocompat/duration.ts';

export { parseGoDuration };

/** kube-apiserver's --request-timeout default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** kube-apiserver's --min-request-timeout default (seconds): watches end after [min, 2·min). */
export const DEFAULT_MIN_REQUEST_TIMEOUT_S = 1800;


/**
 * The time a non-watch request may take: `maxMs`, or the request's `?timeout=` when positive and
 * shorter. Throws kube's 400 for a value that is not a Go duration.
 */
export function requestTimeoutMs(query: URLSearchParams, maxMs: number): number {
  const v = query.get('timeout');
  if (!v) return maxMs;
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (e) {
    throw badRequest(`invalid timeout specified in the request URL - ${(e as Error).message}`);
  }
  return ms > 0 && ms < maxMs ? ms : maxMs;
}

/** kube's timeout filter answer: the Status JSON-encoded without its type (json.NewEncoder). */
const TIMEOUT_BODY = `${JSON.stringify({ metadata: {}, status: 'Failure', message: 'Timeout: request did not complete within the allotted timeout', reason: 'Timeout', details: {}, code: 504 })}\n`;

type Req = IncomingMessage | Http2ServerRequest;

/**
 * Arm the deadline of one request (`ms` from now). When it fires: the 504 if nothing was sent yet
 * (then the connection is closed if the body was not read to its end, so a slow sender does not
 * keep it), else the answer is cut. Either way the response is then closed to the handler: its
 * later writes are dropped. Returns the disarm function (call when the answer is complete).
 */
export function armDeadline(req: Req, res: Res, ms: number, onTimeout?: () => void): () => void {
  const timer = setTimeout(() => {
    const r = res as import('node:http').ServerResponse;
    if (r.writableEnded) return;
    onTimeout?.();
    const bodyUnread = !req.complete;
    const isH2 = 'stream' in req;
    if (r.headersSent) {
      // kube panics with http.ErrAbortHandler: the stream is reset, the connection dropped.
      r.destroy();
      return;
    }
    const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(Buffer.byteLength(TIMEOUT_BODY)) };
    if (bodyUnread && !isH2) headers.Connection = 'close';
    r.writeHead(504, headers);
    r.end(TIMEOUT_BODY, () => {
      if (!bodyUnread) return;
      if (isH2) (req as Http2ServerRequest).stream.close();
      else (req as IncomingMessage).socket.destroy();
    });
    seal(r);
  }, Math.max(0, ms));
  timer.unref?.();
  const clear = (): void => clearTimeout(timer);
  res.once('close', clear);
  return clear;
}

/** Make a response ignore everything the (timed-out) handler still writes. */
function seal(r: import('node:http').ServerResponse): void {
  const ignore = function (this: unknown) {
    return r;
  };
  r.setHeader = ignore as typeof r.setHeader;
  r.writeHead = ignore as unknown as typeof r.writeHead;
  r.flushHeaders = () => undefined;
  r.write = (() => true) as typeof r.write;
  r.end = ignore as unknown as typeof r.end;
}
