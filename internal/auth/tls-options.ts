/**
 * TLS settings of the secure port and access to the verified client certificate of a request,
 * for both HTTP/1.1 and HTTP/2 (compat API) requests.
 */
import type { SecureServerOptions, Http2ServerRequest } from 'node:http2';
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { Pki } from './pki.ts';

/**
 * The key-exchange groups of kube-apiserver's crypto/tls, in its order: Go's defaults without the
 * post-quantum hybrid (the reference's build sets tlsmlkem=0, as go.mod's go version asks; a Go
 * 1.26 client offering X25519MLKEM768 + X25519 key shares gets X25519 from it). OpenSSL 3.5's
 * default list starts with X25519MLKEM768: an ML-KEM-768 encapsulation per handshake on top of the
 * X25519 one, ~3.5 % of a connection's server CPU (perf, bench/handshake.ts).
 */
export const KUBE_GROUPS = 'X25519:P-256:P-384:P-521';

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
    cert: servingChain(pki.serverCertPem, clientCaPems ?? [pki.caCertPem]),
    key: pki.serverKeyPem,
    ecdhCurve: KUBE_GROUPS,
  };
}

const chains = new Map<string, string>();

/**
 * The serving certificate with the chain clients have always been sent: a single certificate
 * followed by its issuers found among `cas`, as OpenSSL completes a chain from the context's
 * certificate store. Given explicitly, OpenSSL sends it as is instead of building it (an
 * X509_verify_cert with a signature check) on every handshake: ~3 % of a connection's server CPU
 * (perf, bench/handshake.ts). A PEM holding a chain already is left alone (OpenSSL does not build
 * one then either). Kept per input: a CA reload rebuilds the options.
 */
export function servingChain(certPem: string, cas: string[]): string {
  const key = `${certPem}\0${cas.join('\0')}`;
  let chain = chains.get(key);
  if (chain === undefined) {
    chain = buildChain(certPem, cas);
    if (chains.size > 16) chains.clear();
    chains.set(key, chain);
  }
  return chain;
}

function buildChain(certPem: string, cas: string[]): string {
  const pems = certPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (pems.length !== 1) return certPem;
  let store: { pem: string; cert: X509Certificate }[];
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(pems[0]!);
    store = cas.flatMap((bundle) => bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((pem) => ({ pem, cert: new X509Certificate(pem) }));
  } catch {
    return certPem;
  }
  const out = [pems[0]!];
  let last = leaf;
  // Up to the first self-issued certificate, as OpenSSL's chain building stops at a root.
  while (last.subject !== last.issuer && out.length < 10) {
    const issuer = store.find((c) => last.checkIssued(c.cert) && last.verify(c.cert.publicKey));
    if (!issuer || out.includes(issuer.pem)) break;
    out.push(issuer.pem);
    last = issuer.cert;
  }
  return out.join('\n') + '\n';
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
