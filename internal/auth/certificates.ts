/**
 * X.509 certificates as Go's crypto/x509 (kubectl, client-go), OpenSSL (curl, Python ssl incl.
 * VERIFY_X509_STRICT) and Node's TLS expect them, all ECDSA P-256 / SHA-256: positive random
 * serials, SubjectKeyIdentifier on every certificate, AuthorityKeyIdentifier (= the CA's SKID) on
 * every issued certificate, the issuer name copied byte-for-byte from the CA's subject, critical
 * basicConstraints, keyUsage, and notBefore one hour in the past to absorb clock skew.
 *
 * The builders of pki.ts (the server's PKI directory) and the CA / certificate makers tests and
 * tools use (createCertificateAuthority, issueCertificate). @peculiar/x509 is loaded at first use.
 */
import { webcrypto, createPrivateKey, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
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
export const x509: typeof X509 = new Proxy({} as typeof X509, { get: (_target, prop) => Reflect.get(loadX509(), prop) });

const KEY_ALG: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGN_ALG: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
const HOUR = 3600_000;
export const DAY = 24 * HOUR;
const CLOCK_SKEW = HOUR;
const CA_LIFETIME = 3650 * DAY;
export const LEAF_LIFETIME = 365 * DAY;

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

export function certPem(cert: X509.X509Certificate): string {
  return cert.toString('pem').trim() + '\n';
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}-----END PRIVATE KEY-----\n`;
}

/** Import a PEM private key (PKCS#8 or SEC1 "EC PRIVATE KEY") as a WebCrypto ECDSA signing key. */
export async function importSigningKey(pem: string): Promise<CryptoKey> {
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
export function dn(cn: string, orgs: string[] = []): X509.JsonName {
  const name: X509.JsonName = orgs.map((o) => ({ O: [o] }));
  name.push({ CN: [cn] });
  return name;
}

/** Canonical IP text, so that '0:0:0:0:0:0:0:1' and '::1' compare equal. */
export function canonicalIp(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  try {
    return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip.toLowerCase();
  }
}

export interface Ca {
  cert: X509.X509Certificate;
  key: CryptoKey;
}

export async function createCa(cn = `kube-apiserver-ca@${Math.floor(Date.now() / 1000)}`): Promise<{ ca: Ca; keyPem: string }> {
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

export interface LeafSpec {
  subject: X509.JsonName;
  usages: X509.ExtendedKeyUsage[];
  sans?: X509.JsonGeneralNames;
  lifetimeMs: number;
}

export async function issueLeaf(ca: Ca, spec: LeafSpec): Promise<{ certPem: string; keyPem: string }> {
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
