/**
 * Local PKI for the API server: one self-signed CA (also the client CA), a serving certificate and
 * an admin client certificate, all ECDSA P-256 / SHA-256, stored as PEM files in one directory.
 *
 * The certificates are built by certificates.ts, as Go's crypto/x509, OpenSSL and Node's TLS
 * expect them.
 *
 * `ensurePki` is idempotent: an existing CA is always reused; leaf certificates are re-issued only
 * when missing, unreadable, not issued by the current CA, expiring within 30 days, or (serving cert)
 * lacking a requested host.
 */
import { createPrivateKey, createPublicKey, randomBytes, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { isIP } from 'node:net';
import * as path from 'node:path';
import type * as X509 from '@peculiar/x509';
import { canonicalIp, certPem, createCa, DAY, dn, importSigningKey, issueLeaf, LEAF_LIFETIME, x509, type Ca } from './certificates.ts';

export interface Pki {
  caCertPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  dir: string;
}

export interface EnsurePkiOptions {
  /** Extra serving-certificate SANs: IP addresses (v4/v6, brackets allowed) or DNS names. */
  hosts?: string[];
}

/** File names inside the PKI directory. */
export const PKI_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'apiserver.crt',
  serverKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
} as const;

const RENEW_BEFORE = 30 * DAY;

/** SANs every serving certificate carries besides the caller's hosts. */
const DEFAULT_DNS = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
const DEFAULT_IPS = ['127.0.0.1', '::1'];

/** Normalize a host for a SAN: strip IPv6 brackets, lowercase DNS names. */
function normalizeHost(h: string): { type: 'ip' | 'dns'; value: string } | null {
  let v = h.trim();
  if (!v) return null;
  if (v.startsWith('[') && v.endsWith(']')) v = v.slice(1, -1);
  const zone = v.indexOf('%'); // fe80::1%eth0: the zone is not part of the address
  if (zone > 0 && isIP(v.slice(0, zone)) === 6) v = v.slice(0, zone);
  if (isIP(v)) return { type: 'ip', value: v };
  return { type: 'dns', value: v.toLowerCase().replace(/\.$/, '') };
}

function servingSans(hosts: string[] = []): X509.JsonGeneralNames {
  const dns: string[] = [];
  const ips: string[] = [];
  for (const h of [...DEFAULT_DNS, ...DEFAULT_IPS, ...hosts]) {
    const n = normalizeHost(h);
    if (!n) continue;
    if (n.type === 'ip') {
      if (!ips.some((i) => canonicalIp(i) === canonicalIp(n.value))) ips.push(n.value);
    } else if (!dns.includes(n.value)) dns.push(n.value);
  }
  return [...dns.map((value) => ({ type: 'dns' as const, value })), ...ips.map((value) => ({ type: 'ip' as const, value }))];
}

// ---------------------------------------------------------------------------------------------
// the PKI's leaves

function issueServing(ca: Ca, hosts?: string[]) {
  return issueLeaf(ca, {
    subject: dn('kube-apiserver'),
    usages: [x509.ExtendedKeyUsage.serverAuth],
    sans: servingSans(hosts),
    lifetimeMs: LEAF_LIFETIME,
  });
}

function issueAdmin(ca: Ca) {
  return issueLeaf(ca, {
    subject: dn('admin', ['system:masters']),
    usages: [x509.ExtendedKeyUsage.clientAuth],
    lifetimeMs: LEAF_LIFETIME,
  });
}

// ---------------------------------------------------------------------------------------------
// loading / checking existing material

async function readIfExists(file: string): Promise<string | null> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Atomic write (temp file + rename) with the final mode applied before the rename. */
async function writeFileAtomic(file: string, data: string, mode: number): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await fsp.writeFile(tmp, data, { mode });
    await fsp.chmod(tmp, mode);
    await fsp.rename(tmp, file);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}

/** True when the PEM pair is usable: parses, issued by `ca`, key matches, not close to expiry. */
async function leafIsGood(ca: Ca, certText: string | null, keyText: string | null, wantSans?: X509.JsonGeneralNames): Promise<boolean> {
  if (!certText || !keyText) return false;
  try {
    const cert = new x509.X509Certificate(certText);
    if (cert.notAfter.getTime() - Date.now() < RENEW_BEFORE) return false;
    if (!(await cert.verify({ publicKey: ca.cert.publicKey, signatureOnly: true }))) return false;
    // Key matches certificate?
    const pub = createPublicKey(keyText).export({ type: 'spki', format: 'der' });
    if (!Buffer.from(cert.publicKey.rawData).equals(pub)) return false;
    if (wantSans) {
      const have = cert.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? [];
      const key = (n: { type: string; value: string }) => (n.type === 'ip' ? `ip:${canonicalIp(n.value)}` : `${n.type}:${n.value.toLowerCase()}`);
      const haveSet = new Set(have.map(key));
      if (!wantSans.every((n) => haveSet.has(key(n)))) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * The PKI in `dir` when all six files are there and both leaves pass leafIsGood's checks — issued
 * by the CA (signature), key matching the certificate, not within RENEW_BEFORE of expiry, the
 * serving certificate carrying `wantSans` — made with Node's native X.509 parser; null otherwise,
 * and then ensurePki's full path (with @peculiar/x509) decides what to repair, as before.
 */
async function existingPki(dir: string, wantSans: X509.JsonGeneralNames): Promise<Pki | null> {
  const [caCertPem, caKeyPem, serverCertPem, serverKeyPem, adminCertPem, adminKeyPem] = await Promise.all(
    [PKI_FILES.caCert, PKI_FILES.caKey, PKI_FILES.serverCert, PKI_FILES.serverKey, PKI_FILES.adminCert, PKI_FILES.adminKey].map((f) => readIfExists(path.join(dir, f))),
  );
  if (!caCertPem || !caKeyPem || !serverCertPem || !serverKeyPem || !adminCertPem || !adminKeyPem) return null;
  try {
    const ca = new NodeX509Certificate(caCertPem);
    const good = (certPemText: string, keyPemText: string, sans?: X509.JsonGeneralNames): boolean => {
      const cert = new NodeX509Certificate(certPemText);
      const notAfter = Date.parse(cert.validTo);
      if (!(notAfter - Date.now() >= RENEW_BEFORE)) return false;
      if (!cert.verify(ca.publicKey)) return false;
      if (!cert.checkPrivateKey(createPrivateKey(keyPemText))) return false;
      if (!sans) return true;
      // Node lists SANs as "DNS:a, IP Address:b"; anything else (or a quoted value) just fails the match.
      const have = new Set<string>();
      for (const part of (cert.subjectAltName ?? '').split(', ')) {
        if (part.startsWith('DNS:')) have.add(`dns:${part.slice(4).toLowerCase()}`);
        else if (part.startsWith('IP Address:')) have.add(`ip:${canonicalIp(part.slice(11))}`);
      }
      return sans.every((n) => have.has(n.type === 'ip' ? `ip:${canonicalIp(n.value)}` : `${n.type}:${n.value.toLowerCase()}`));
    };
    if (!good(serverCertPem, serverKeyPem, wantSans) || !good(adminCertPem, adminKeyPem)) return null;
  } catch {
    return null;
  }
  return { caCertPem, serverCertPem, serverKeyPem, adminCertPem, adminKeyPem, dir };
}

// ---------------------------------------------------------------------------------------------
// directory lock: several processes (parallel tests) may call ensurePki on one directory.

async function withDirLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(dir, '.pki.lock');
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const h = await fsp.open(lock, 'wx', 0o600);
      await h.writeFile(String(process.pid));
      await h.close();
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Stale lock (holder crashed): generation takes well under a second.
      const st = await fsp.stat(lock).catch(() => null);
      if (st && Date.now() - st.mtimeMs > 20_000) {
        await fsp.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for PKI lock ${lock}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  try {
    return await fn();
  } finally {
    await fsp.rm(lock, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// public API

/**
 * Load the PKI in `dir`, creating whatever is missing. The directory is created with mode 0700;
 * private keys are written with mode 0600 as PKCS#8 "PRIVATE KEY" PEM.
 */
export async function ensurePki(dir: string, opts: EnsurePkiOptions = {}): Promise<Pki> {
  dir = path.resolve(dir);
  const created = await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  if (created !== undefined) await fsp.chmod(dir, 0o700);
  const f = (name: string) => path.join(dir, name);

  return withDirLock(dir, async () => {
    // --- everything present and usable (every start but the first): no certificate library needed.
    const existing = await existingPki(dir, servingSans(opts.hosts));
    if (existing) return existing;
    // --- CA: load if present, never regenerate.
    let caCertText = await readIfExists(f(PKI_FILES.caCert));
    let caKeyText = await readIfExists(f(PKI_FILES.caKey));
    let ca: Ca;
    if (caCertText || caKeyText) {
      if (!caCertText || !caKeyText) {
        throw new Error(`incomplete CA in ${dir}: need both ${PKI_FILES.caCert} and ${PKI_FILES.caKey}`);
      }
      ca = { cert: new x509.X509Certificate(caCertText), key: await importSigningKey(caKeyText) };
    } else {
      const made = await createCa();
      ca = made.ca;
      caCertText = certPem(made.ca.cert);
      caKeyText = made.keyPem;
      // Key first: a crash in between leaves an incomplete CA that the check above reports.
      await writeFileAtomic(f(PKI_FILES.caKey), caKeyText, 0o600);
      await writeFileAtomic(f(PKI_FILES.caCert), caCertText, 0o644);
    }

    // --- serving certificate
    let serverCertText = await readIfExists(f(PKI_FILES.serverCert));
    let serverKeyText = await readIfExists(f(PKI_FILES.serverKey));
    if (!(await leafIsGood(ca, serverCertText, serverKeyText, servingSans(opts.hosts)))) {
      // Keep the union of the old and the requested hosts so earlier callers keep working.
      const oldHosts: string[] = [];
      if (serverCertText) {
        try {
          const old = new x509.X509Certificate(serverCertText);
          for (const n of old.getExtension(x509.SubjectAlternativeNameExtension)?.names.toJSON() ?? []) {
            if (n.type === 'dns' || n.type === 'ip') oldHosts.push(n.value);
          }
        } catch {
          /* unreadable: replace */
        }
      }
      const leaf = await issueServing(ca, [...oldHosts, ...(opts.hosts ?? [])]);
      serverCertText = leaf.certPem;
      serverKeyText = leaf.keyPem;
      await writeFileAtomic(f(PKI_FILES.serverKey), serverKeyText, 0o600);
      await writeFileAtomic(f(PKI_FILES.serverCert), serverCertText, 0o644);
    }

    // --- admin client certificate
    let adminCertText = await readIfExists(f(PKI_FILES.adminCert));
    let adminKeyText = await readIfExists(f(PKI_FILES.adminKey));
    if (!(await leafIsGood(ca, adminCertText, adminKeyText))) {
      const leaf = await issueAdmin(ca);
      adminCertText = leaf.certPem;
      adminKeyText = leaf.keyPem;
      await writeFileAtomic(f(PKI_FILES.adminKey), adminKeyText, 0o600);
      await writeFileAtomic(f(PKI_FILES.adminCert), adminCertText, 0o644);
    }

    return {
      caCertPem: caCertText,
      serverCertPem: serverCertText!,
      serverKeyPem: serverKeyText!,
      adminCertPem: adminCertText!,
      adminKeyPem: adminKeyText!,
      dir,
    };
  });
}

/** The CA private key of a PKI directory (PEM). Needed by `issueClientCert`. */
export async function readCaKey(pki: Pki): Promise<string> {
  return fsp.readFile(path.join(pki.dir, PKI_FILES.caKey), 'utf8');
}

/**
 * Issue a client certificate (CN=user, one O per group, extKeyUsage clientAuth, 1 year) signed by
 * the PKI's CA. Nothing is written to disk.
 */
export async function issueClientCert(pki: Pki, caKeyPem: string, user: string, groups: string[]): Promise<{ certPem: string; keyPem: string }> {
  const ca: Ca = { cert: new x509.X509Certificate(pki.caCertPem), key: await importSigningKey(caKeyPem) };
  return issueLeaf(ca, {
    subject: dn(user, groups),
    usages: [x509.ExtendedKeyUsage.clientAuth],
    lifetimeMs: LEAF_LIFETIME,
  });
}
