/**
 * Client-certificate trust as kube-apiserver decides it: a CA bundle (`--client-ca-file`,
 * `--requestheader-client-ca-file`) and a verifier that checks a presented chain against one
 * bundle — Go's x509.Verify with kube's DefaultVerifyOptions (ExtKeyUsage clientAuth).
 *
 * Why not node's TLS verdict (`socket.authorized`): the TLS layer must accept certificates of every
 * trusted CA at once (its `ca` is the union of both bundles, so the CertificateRequest names them
 * and clients such as Go's send their certificate), but the decision "is this a user certificate
 * or a proxy certificate" is per bundle. So the handshake only requests the certificate, and each
 * authenticator verifies the chain against its own bundle here.
 */
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';

const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EKU_ANY = '2.5.29.37.0';
/** Longest chain tried (leaf + intermediates); Go has no fixed bound, real chains are 2–4 long. */
const MAX_CHAIN = 8;

/** The PEM CERTIFICATE blocks of a bundle, in order (text around and between them is ignored). */
export function certificateBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/**
 * The certificates of a PEM bundle; throws when it holds none (as client-go's cert.ParseCertsPEM),
 * with kube's wording: `error loading CA bundle for "<name>": …`.
 */
export function parseCaBundle(pem: string, name: string): X509Certificate[] {
  const certs: X509Certificate[] = [];
  for (const b of certificateBlocks(pem)) {
    try {
      certs.push(new X509Certificate(b));
    } catch (e) {
      throw new Error(`error loading CA bundle for ${JSON.stringify(name)}: ${(e as Error).message}`);
    }
  }
  if (certs.length === 0) throw new Error(`error loading CA bundle for ${JSON.stringify(name)}: data does not contain any valid RSA or ECDSA certificates`);
  return certs;
}

/**
 * Read a CA bundle file (`--client-ca-file` → kind "client-ca-bundle", `--requestheader-client-ca-file`
 * → "request-header"), failing as kube-apiserver does at start-up.
 */
export function loadCaBundleFile(path: string, kind: 'client-ca-bundle' | 'request-header'): X509Certificate[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `open ${path}: no such file or directory` : code === 'EACCES' ? `open ${path}: permission denied` : (e as Error).message);
  }
  return parseCaBundle(text, `${kind}::${path}`);
}

/** A bundle back to PEM text, one block per certificate (what kube publishes in its ConfigMap). */
export function bundlePem(certs: X509Certificate[]): string {
  return certs.map((c) => c.toString().trim() + '\n').join('');
}

export type VerifyResult = { ok: true } | { ok: false; error: string };

function timeError(c: X509Certificate, now: number): string | null {
  if (now < Date.parse(c.validFrom)) return `x509: certificate has expired or is not yet valid: current time ${new Date(now).toISOString()} is before ${new Date(c.validFrom).toISOString()}`;
  if (now > Date.parse(c.validTo)) return `x509: certificate has expired or is not yet valid: current time ${new Date(now).toISOString()} is after ${new Date(c.validTo).toISOString()}`;
  return null;
}

/** Go's checkChainForKeyUsage: a certificate without ExtKeyUsage, or with any/clientAuth, passes. */
function usableForClientAuth(c: X509Certificate): boolean {
  const eku = c.keyUsage as string[] | undefined;
  return !eku || eku.length === 0 || eku.includes(EKU_CLIENT_AUTH) || eku.includes(EKU_ANY);
}

function issues(parent: X509Certificate, child: X509Certificate): boolean {
  try {
    // node: `x.checkIssued(y)` asks whether x was issued by y.
    return child.checkIssued(parent) && child.verify(parent.publicKey);
  } catch {
    return false;
  }
}

/**
 * Verify `leaf` (with the intermediates the client sent) against `roots` at `now`: some chain
 * leaf → intermediates… → a root must have valid signatures, CA issuers, current validity and
 * client-auth usage. Returns Go's error wording where it matters for logs.
 */
export function verifyChain(leaf: X509Certificate, intermediates: X509Certificate[], roots: X509Certificate[], now = Date.now()): VerifyResult {
  const leafTime = timeError(leaf, now);
  if (leafTime) return { ok: false, error: leafTime };
  let sawUsageProblem = false;
  const walk = (c: X509Certificate, chain: X509Certificate[]): boolean => {
    // A certificate that is itself a trusted root (byte-equal) ends the chain, as in Go.
    const candidates: X509Certificate[][] = [];
    if (roots.some((r) => r.raw.equals(c.raw))) candidates.push(chain);
    for (const r of roots) if (!r.raw.equals(c.raw) && r.ca && timeError(r, now) === null && issues(r, c)) candidates.push([...chain, r]);
    for (const full of candidates) {
      if (full.every(usableForClientAuth)) return true;
      sawUsageProblem = true;
    }
    if (chain.length >= MAX_CHAIN) return false;
    for (const i of intermediates) {
      if (chain.some((x) => x.raw.equals(i.raw))) continue;
      if (!i.ca || timeError(i, now) !== null || !issues(i, c)) continue;
      if (walk(i, [...chain, i])) return true;
    }
    return false;
  };
  if (walk(leaf, [leaf])) return { ok: true };
  return { ok: false, error: sawUsageProblem ? 'x509: certificate specifies an incompatible key usage' : 'x509: certificate signed by unknown authority' };
}

/** The presented chain of a TLS peer certificate (read with getPeerCertificate(true)). */
export function presentedChain(peer: PeerCertificate): { leaf: X509Certificate; intermediates: X509Certificate[] } | null {
  if (!peer.raw) return null;
  const leaf = new X509Certificate(peer.raw);
  const intermediates: X509Certificate[] = [];
  const seen = new Set<string>([peer.fingerprint256]);
  let p = (peer as { issuerCertificate?: PeerCertificate }).issuerCertificate;
  while (p && p.raw && !seen.has(p.fingerprint256) && intermediates.length < MAX_CHAIN) {
    seen.add(p.fingerprint256);
    intermediates.push(new X509Certificate(p.raw));
    p = (p as { issuerCertificate?: PeerCertificate }).issuerCertificate;
  }
  return { leaf, intermediates };
}

/** Where a verifier reads its trusted CAs: a fixed list, or a bundle file that is reloaded. */
export interface CaSource {
  /** The current certificates; a new array whenever they change. */
  readonly certificates: X509Certificate[];
}

/** A CaSource that never changes. */
export function staticCaSource(certificates: X509Certificate[]): CaSource {
  return { certificates };
}

/**
 * A verifier bound to one CA source. Results are cached per PeerCertificate object (the TLS layer
 * keeps one per connection) until the earliest expiry in the bundle or the leaf, or until the
 * bundle changes, so a keep-alive connection pays for the signature checks once and an expiring
 * certificate (or a CA taken out of the bundle) still stops working.
 */
export class ClientCertVerifier {
  private readonly cache = new WeakMap<PeerCertificate, { result: VerifyResult; until: number; roots: X509Certificate[] }>();

  constructor(readonly source: CaSource) {}

  verify(peer: PeerCertificate, now = Date.now()): VerifyResult {
    const roots = this.source.certificates;
    const hit = this.cache.get(peer);
    if (hit && now <= hit.until && hit.roots === roots) return hit.result;
    const chain = presentedChain(peer);
    if (!chain) return { ok: false, error: 'no certificate' };
    const result = verifyChain(chain.leaf, chain.intermediates, roots, now);
    const until = Math.min(Date.parse(chain.leaf.validTo), ...roots.map((r) => Date.parse(r.validTo)));
    this.cache.set(peer, { result, until, roots });
    return result;
  }
}

/** How often a CA bundle file is checked for changes (kube reacts to fsnotify events at once). */
const BUNDLE_POLL_MS = 1000;

/**
 * kube's DynamicFileCAContent: a CA bundle file read at start (errors there are start-up errors)
 * and re-read when it changes, so CAs rotate without a restart. A changed file that holds no
 * valid certificate is logged and ignored: the last good bundle stays in force, as in kube.
 */
export class DynamicCaBundle implements CaSource {
  private current: X509Certificate[];
  private text: string;
  private readonly listeners = new Set<() => void>();
  private watching = false;

  private constructor(readonly path: string, readonly kind: 'client-ca-bundle' | 'request-header', text: string, certs: X509Certificate[], private readonly onError: (err: Error) => void) {
    this.text = text;
    this.current = certs;
  }

  /** Load the file now (throws kube's start-up errors); `onError` hears about bad reloads. */
  static load(path: string, kind: 'client-ca-bundle' | 'request-header', onError: (err: Error) => void = () => undefined): DynamicCaBundle {
    const certs = loadCaBundleFile(path, kind);
    return new DynamicCaBundle(path, kind, readFileSync(path, 'utf8'), certs, onError);
  }

  get certificates(): X509Certificate[] {
    return this.current;
  }

  /** Call `fn` after every change of the bundle. */
  onChange(fn: () => void): void {
    this.listeners.add(fn);
  }

  /** Start watching the file (a stat poll that does not keep the process alive). */
  start(): void {
    if (this.watching) return;
    this.watching = true;
    watchFile(this.path, { interval: BUNDLE_POLL_MS, persistent: false }, this.poll);
  }

  stop(): void {
    if (!this.watching) return;
    this.watching = false;
    unwatchFile(this.path, this.poll);
  }

  private readonly poll = (): void => {
    this.reload();
  };

  /** Re-read the file; true when the bundle changed. */
  reload(): boolean {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      this.onError(e as Error);
      return false;
    }
    if (text === this.text) return false;
    let certs: X509Certificate[];
    try {
      if (!text.length) throw new Error(`missing content for CA bundle "${this.kind}::${this.path}"`);
      certs = parseCaBundle(text, `${this.kind}::${this.path}`);
    } catch (e) {
      this.onError(e as Error);
      return false;
    }
    this.text = text;
    this.current = certs;
    for (const fn of this.listeners) fn();
    return true;
  }
}

/** Subject CN of a peer certificate (Go's pkix.Name keeps the last CN when there are several). */
export function commonName(peer: PeerCertificate): string {
  const cn = (peer.subject as unknown as Record<string, string | string[] | undefined> | undefined)?.CN;
  if (cn === undefined) return '';
  return Array.isArray(cn) ? (cn[cn.length - 1] ?? '') : cn;
}
