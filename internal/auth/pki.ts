/**
 * Local PKI for the API server: one self-signed CA (also the client CA), a serving certificate and
 * an admin client certificate, all ECDSA P-256 / SHA-256, stored as PEM files in one directory.
 *
 * The certificates are built the way Go's crypto/x509 (kubectl, client-go), OpenSSL (curl, Python
 * ssl incl. VERIFY_X509_STRICT) and Node's TLS expect: positive random serials, SubjectKeyIdentifier
 * on every certificate, AuthorityKeyIdentifier (= the CA's SKID) on every issued certificate, the
 * issuer name copied byte-for-byte from the CA's subject, critical basicConstraints, keyUsage, and
 * notBefore one hour in the past to absorb clock skew.
 *
 * `ensurePki` is idempotent: an existing CA is always reused; leaf certificates are re-issued only
 * when missing, unreadable, not issued by the current CA, expiring within 30 days, or (serving cert)
 * lacking a requested host.
 */
import { webcrypto, createPrivateKey, createPublicKey, randomBytes, X509Certificate as NodeX509Certificate } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import type * as X509 from '@peculiar/x509';

/**
 * @peculiar/x509 resolves its algorithm providers through tsyringe, which refuses to load unless a
 * `reflect-metadata` style polyfill is installed (and that package is not a dependency). Install
 * the few functions tsyringe touches when nothing provides them, then load the library: a static
 * import would be evaluated before this code runs.
 */
function installReflectMetadataShim(): void {
  type Key = string | symbol | undefined;
  const R = Reflect as unknown as Record<string, unknown>;
  if (typeof R.getMetadata === 'function') return;
  const store = new WeakMap<object, Map<Key, Map<unknown, unknown>>>();
  const table = (target: object, prop: Key, create: boolean): Map<unknown, unknown> | undefined => {
    let byProp = store.get(target);
    if (!byProp) {
      if (!create) return undefined;
      store.set(target, (byProp = new Map()));
    }
    let t = byProp.get(prop);
    if (!t && create) byProp.set(prop, (t = new Map()));
    return t;
  };
  const getOwn = (k: unknown, target: object, prop?: Key) => table(target, prop, false)?.get(k);
  const hasOwn = (k: unknown, target: object, prop?: Key) => table(target, prop, false)?.has(k) ?? false;
  const get = (k: unknown, target: object, prop?: Key): unknown => {
    for (let o: object | null = target; o; o = Object.getPrototypeOf(o)) if (hasOwn(k, o, prop)) return getOwn(k, o, prop);
    return undefined;
  };
  const define = (k: unknown, v: unknown, target: object, prop?: Key) => void table(target, prop, true)!.set(k, v);
  Object.assign(R, {
    defineMetadata: define,
    getOwnMetadata: getOwn,
    hasOwnMetadata: hasOwn,
    getMetadata: get,
    hasMetadata: (k: unknown, target: object, prop?: Key) => get(k, target, prop) !== undefined,
    metadata: (k: unknown, v: unknown) => (target: object, prop?: Key) => define(k, v, target, prop),
  });
}
const crypto = webcrypto as unknown as Crypto;

/**
 * @peculiar/x509 (its CommonJS build, which is also what `import` resolves to), loaded at the first
 * use of `x509` rather than at import: with its ASN.1 modules it is ~70 ms of start-up, and a
 * start on an existing, valid PKI never needs it (existingPki checks with Node's own parser).
 */
let x509Module: typeof X509 | undefined;
function loadX509(): typeof X509 {
  if (!x509Module) {
    installReflectMetadataShim();
    x509Module = createRequire(import.meta.url)('@peculiar/x509') as typeof X509;
    x509Module.cryptoProvider.set(crypto);
  }
  return x509Module;
}
const x509: typeof X509 = new Proxy({} as typeof X509, { get: (_target, prop) => Reflect.get(loadX509(), prop) });

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

const KEY_ALG: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGN_ALG: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const CLOCK_SKEW = HOUR;
const CA_LIFETIME = 3650 * DAY;
const LEAF_LIFETIME = 365 * DAY;
const RENEW_BEFORE = 30 * DAY;

/** SANs every serving certificate carries besides the caller's hosts. */
const DEFAULT_DNS = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
const DEFAULT_IPS = ['127.0.0.1', '::1'];

// ---------------------------------------------------------------------------------------------
// helpers

/** 16 random bytes, top bit clear and first byte non-zero: a positive 127/128-bit serial in DER. */
function serialHex(): string {
  const b = randomBytes(16);
  b[0] = (b[0]! & 0x7f) | 0x01;
  return b.toString('hex');
}

function validity(lifetimeMs: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  // Whole seconds: X.509 times carry no fractions.
  const notBefore = new Date(Math.floor((now - CLOCK_SKEW) / 1000) * 1000);
  const notAfter = new Date(Math.floor((now + lifetimeMs) / 1000) * 1000);
  return { notBefore, notAfter };
}

function certPem(cert: X509.X509Certificate): string {
  return cert.toString('pem').trim() + '\n';
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}-----END PRIVATE KEY-----\n`;
}

/** Import a PEM private key (PKCS#8 or SEC1 "EC PRIVATE KEY") as a WebCrypto ECDSA signing key. */
async function importSigningKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return crypto.subtle.importKey('pkcs8', der, KEY_ALG, true, ['sign']);
}

async function newKeyPair(): Promise<CryptoKeyPair> {
  return (await crypto.subtle.generateKey(KEY_ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function skidOf(cert: X509.X509Certificate): string | undefined {
  return cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
}

/** Distinguished name as separate single-valued RDNs, so commas or '+' in values need no escaping. */
function dn(cn: string, orgs: string[] = []): X509.JsonName {
  const name: X509.JsonName = orgs.map((o) => ({ O: [o] }));
  name.push({ CN: [cn] });
  return name;
}

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

/** Canonical IP text, so that '0:0:0:0:0:0:0:1' and '::1' compare equal. */
function canonicalIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip.toLowerCase();
  }
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
// certificate builders

interface Ca {
  cert: X509.X509Certificate;
  key: CryptoKey;
}

async function createCa(cn = `kube-apiserver-ca@${Math.floor(Date.now() / 1000)}`): Promise<{ ca: Ca; keyPem: string }> {
  const keys = await newKeyPair();
  const skid = await x509.SubjectKeyIdentifierExtension.create(keys.publicKey);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialHex(),
    name: [{ CN: [cn] }],
    ...validity(CA_LIFETIME),
    keys,
    signingAlgorithm: SIGN_ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      skid,
      // Self-signed: AKID = own SKID (what OpenSSL emits; harmless for Go and Node).
      new x509.AuthorityKeyIdentifierExtension(skid.keyId),
    ],
  });
  return { ca: { cert, key: keys.privateKey }, keyPem: await keyPem(keys.privateKey) };
}

interface LeafSpec {
  subject: X509.JsonName;
  usages: X509.ExtendedKeyUsage[];
  sans?: X509.JsonGeneralNames;
  lifetimeMs: number;
}

async function issueLeaf(ca: Ca, spec: LeafSpec): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeyPair();
  const caSkid = skidOf(ca.cert) ?? (await x509.SubjectKeyIdentifierExtension.create(ca.cert.publicKey)).keyId;
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(spec.usages, false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    new x509.AuthorityKeyIdentifierExtension(caSkid),
  ];
  if (spec.sans && spec.sans.length) extensions.push(new x509.SubjectAlternativeNameExtension(spec.sans, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex(),
    subject: spec.subject,
    // The CA's subject DER verbatim: Go and OpenSSL match issuer to subject on the raw bytes.
    issuer: ca.cert.subjectName,
    ...validity(spec.lifetimeMs),
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: SIGN_ALG,
    extensions,
  });
  return { certPem: certPem(cert), keyPem: await keyPem(keys.privateKey) };
}

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

/** What `issueCertificate` makes: a leaf (or an intermediate CA) for tests and tools. */
export interface CertificateSpec {
  cn: string;
  orgs?: string[];
  /** Extended key usages (default clientAuth); an empty list leaves the extension out. */
  usages?: Array<'clientAuth' | 'serverAuth'>;
  /** An intermediate CA instead of a leaf. */
  ca?: boolean;
  notBefore?: Date;
  notAfter?: Date;
}

/**
 * A new self-signed CA (ECDSA P-256) with the given CN, nothing written to disk: for tests that
 * need a CA of their own (a second client CA, an authenticating proxy's CA).
 */
export async function createCertificateAuthority(cn: string): Promise<{ certPem: string; keyPem: string }> {
  const made = await createCa(cn);
  return { certPem: certPem(made.ca.cert), keyPem: made.keyPem };
}

/** Issue a certificate signed by `issuer` (PEM pair) as `spec` says; nothing is written to disk. */
export async function issueCertificate(issuer: { certPem: string; keyPem: string }, spec: CertificateSpec): Promise<{ certPem: string; keyPem: string }> {
  const ca: Ca = { cert: new x509.X509Certificate(issuer.certPem), key: await importSigningKey(issuer.keyPem) };
  const keys = await newKeyPair();
  const caSkid = skidOf(ca.cert) ?? (await x509.SubjectKeyIdentifierExtension.create(ca.cert.publicKey)).keyId;
  const usages = (spec.usages ?? ['clientAuth']).map((u) => x509.ExtendedKeyUsage[u]);
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(spec.ca === true, undefined, true),
    new x509.KeyUsagesExtension(spec.ca ? x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature : x509.KeyUsageFlags.digitalSignature, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    new x509.AuthorityKeyIdentifierExtension(caSkid),
  ];
  if (usages.length) extensions.push(new x509.ExtendedKeyUsageExtension(usages, false));
  const v = validity(LEAF_LIFETIME);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialHex(),
    subject: dn(spec.cn, spec.orgs ?? []),
    issuer: ca.cert.subjectName,
    notBefore: spec.notBefore ?? v.notBefore,
    notAfter: spec.notAfter ?? v.notAfter,
    publicKey: keys.publicKey,
    signingKey: ca.key,
    signingAlgorithm: SIGN_ALG,
    extensions,
  });
  return { certPem: certPem(cert), keyPem: await keyPem(keys.privateKey) };
}
