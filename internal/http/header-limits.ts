/**
 * Header limits of kube-apiserver's Go server: http.Server.MaxHeaderBytes 1 MiB, which Go's
 * reader lets overflow by 4096 bytes of buffer; the request line (with its query string) counts.
 * Beyond it Go answers a plain-text 431 and closes the connection. Node's default (16 KiB) refused
 * ordinary large headers and cut a 1 MB query string without an answer.
 */
import type { Socket } from 'node:net';
import type { Http2SecureServer } from 'node:http2';

/** kube's http.Server ReadHeaderTimeout: a client has this long to send its headers (Node: 60 s). */
export const READ_HEADER_TIMEOUT_MS = 32_000;

/** Go's DefaultMaxHeaderBytes (1 MiB) plus the 4096 bytes its bufio reader allows over it. */
export const MAX_HEADER_BYTES = (1 << 20) + 4096;

const TOO_LARGE = '431 Request Header Fields Too Large';

/**
 * An HTTP/1.1 connection's parse error as Go's server answers it: headers over the limit get the
 * plain-text 431, anything else Node's parser refuses the plain `400 Bad Request`; then the
 * connection is closed.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (socket as Socket & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? TOO_LARGE : '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`);
}

/**
 * Give a server's HTTP/1.1 connections kube's limits: headers (request line included) up to
 * MAX_HEADER_BYTES within READ_HEADER_TIMEOUT_MS, and Go's answers to what its parser refuses.
 * Node's HTTP/1 parser reads these from the server object (the http2 server takes no option).
 */
export function limitHttp1(server: Http2SecureServer): void {
  Object.assign(server, { maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: READ_HEADER_TIMEOUT_MS });
  server.on('clientError', answerClientError);
}
