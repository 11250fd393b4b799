/**
 * TLS settings of the secure port and access to the verified client certificate of a request,
 * for both HTTP/1.1 and HTTP/2 (compat API) requests.
 */
import type { SecureServerOptions, Http2ServerRequest } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { Pki } from './pki.ts';

/**
 * Options for `http2.createSecureServer`: h2 with HTTP/1.1 fallback, TLS >= 1.2, client
 * certificates requested (not required) and verified against the client CAs (default: the PKI CA). Unverified or missing
 * client certificates do not fail the handshake; the authentication stage answers 401 itself.
 */
export function secureServerOptions(pki: Pki, clientCaPems?: string[]): SecureServerOptions {
  return {
    allowHTTP1: true,
    ALPNProtocols: ['h2', 'http/1.1'],
    minVersion: 'TLSv1.2',
    requestCert: true,
    rejectUnauthorized: false,
    // Every CA whose certificates some authenticator accepts (--client-ca-file and
    // --requestheader-client-ca-file): the CertificateRequest names them, and Go clients send a
    // certificate only when its issuer is named. Which bundle a certificate belongs to is decided
    // per authenticator (client-ca.ts), not by the handshake.
    ca: clientCaPems ?? [pki.caCertPem],
    cert: pki.serverCertPem,
    key: pki.serverKeyPem,
  };
}

export interface PeerInfo {
  peerCertificate: PeerCertificate | null;
  certAuthorized: boolean;
}

function tlsSocketOf(req: Http2ServerRequest | IncomingMessage): TLSSocket | undefined {
  // HTTP/2 compat request: the TLS socket belongs to the session (a proxy that forwards reads of
  // `authorized` / `getPeerCertificate`). HTTP/1.1 (also via allowHTTP1): req.socket.
  const stream = (req as Http2ServerRequest).stream as Http2ServerRequest['stream'] | undefined;
  if (stream && typeof stream === 'object' && 'session' in stream) {
    const sock = stream.session?.socket as TLSSocket | undefined;
    if (sock) return sock;
  }
  return (req as IncomingMessage).socket as TLSSocket | undefined;
}

/**
 * Per-connection cache: getPeerCertificate() builds a fresh object from the DER each call, which
 * profiled at ~10% of a create's CPU. The peer of a TLS connection never changes.
 */
const peers = new WeakMap<object, PeerInfo>();

/** Client certificate and verification result of a request; null when none was presented. */
export function peerOf(req: Http2ServerRequest | IncomingMessage): PeerInfo {
  const sock = tlsSocketOf(req);
  if (!sock || typeof sock.getPeerCertificate !== 'function') return { peerCertificate: null, certAuthorized: false };
  const key = (req as Http2ServerRequest).stream?.session ?? sock;
  const cached = peers.get(key);
  if (cached) return cached;
  const info = readPeer(sock);
  peers.set(key, info);
  return info;
}

function readPeer(sock: TLSSocket): PeerInfo {
  let cert: PeerCertificate | null = null;
  try {
    // Detailed: the chain the client sent (issuerCertificate links) for per-bundle verification.
    const c = sock.getPeerCertificate(true);
    cert = c && Object.keys(c).length > 0 ? c : null;
  } catch {
    cert = null; // socket already gone
  }
  return { peerCertificate: cert, certAuthorized: cert !== null && sock.authorized === true };
}
