/**
 * ServiceAccount token keys, read the way kube-apiserver 1.24 reads them (client-go
 * util/keyutil) and named the way it names them (pkg/serviceaccount/jwt.go keyIDFromPublicKey):
 *
 *   - `--service-account-key-file` (verification): every PEM block of the file is tried, whatever
 *     its label, as an RSA private key (PKCS#1, then PKCS#8), an RSA public key (PKIX, or an X.509
 *     certificate's key), an EC private key (SEC1 only: a PKCS#8 EC key is skipped, as keyutil's
 *     parseECPrivateKey does) and an EC public key (PKIX or certificate); other blocks are skipped;
 *     a file yielding no key is an error.
 *   - `--service-account-signing-key-file` (signing): the first block labelled `EC PRIVATE KEY`,
 *     `RSA PRIVATE KEY` or `PRIVATE KEY` (PKCS#8, RSA or EC) that parses.
 *   - key id: base64url (no padding) of SHA-256 over the public key's PKIX DER.
 *   - algorithm: RS256 for RSA, ES256/ES384/ES512 for P-256/P-384/P-521.
 *
 * When the server is started without any of the service-account flags it signs with a key it
 * generates once under the PKI dir (`sa.key`, RSA 2048 PKCS#1 as kubeadm writes it), created with
 * an exclusive link so that replicas sharing the PKI dir end up with the same one.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, randomBytes, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { promises as fsp, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The JWS algorithms kube signs with (go-jose names). */
export type SigningAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

/** Name of the generated signing key inside the PKI dir (kubeadm's name). */
export const DEFAULT_SIGNING_KEY_FILE = 'sa.key';

interface PemBlock {
  type: string;
  der: Buffer;
}

/** The PEM blocks of `text` in order (Go's pem.Decode loop; header lines such as Proc-Type skipped). */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  const re = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const body = m[2]!
      .split(/\r?\n/)
      .filter((l) => !l.includes(':'))
      .join('');
    if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) continue;
    out.push({ type: m[1]!, der: Buffer.from(body, 'base64') });
  }
  return out;
}

/** Go's x509 supports these curves only; a key on another one does not parse there. */
const GO_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1', 'secp224r1']);

function attempt<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

const isRsa = (k: KeyObject | undefined): k is KeyObject => k?.asymmetricKeyType === 'rsa';
const isEc = (k: KeyObject | undefined): k is KeyObject => k?.asymmetricKeyType === 'ec' && GO_CURVES.has(k.asymmetricKeyDetails?.namedCurve ?? '');

/** x509.ParsePKIXPublicKey, else x509.ParseCertificate's public key. */
function pkixOrCertificate(der: Buffer): KeyObject | undefined {
  return attempt(() => createPublicKey({ key: der, format: 'der', type: 'spki' })) ?? attempt(() => new X509Certificate(der).publicKey);
}

/**
 * Is this DER a SEC1 ECPrivateKey (SEQUENCE { INTEGER 1, OCTET STRING, … })? OpenSSL's decoder
 * behind Node's `type: 'sec1'` also takes PKCS#8, which Go's x509.ParseECPrivateKey refuses.
 */
function isSec1(der: Buffer): boolean {
  if (der[0] !== 0x30 || der.length < 2) return false;
  const lenByte = der[1]!;
  const start = lenByte < 0x80 ? 2 : 2 + (lenByte & 0x7f);
  return der[start] === 0x02 && der[start + 1] === 0x01 && der[start + 2] === 0x01 && der[start + 3] === 0x04;
}

/** x509.ParseECPrivateKey. */
function sec1PrivateKey(der: Buffer): KeyObject | undefined {
  return isSec1(der) ? attempt(() => createPrivateKey({ key: der, format: 'der', type: 'sec1' })) : undefined;
}

/** The public key one PEM block yields for verification (keyutil.ParsePublicKeysPEM), if any. */
function publicKeyOfBlock(der: Buffer): KeyObject | undefined {
  const rsaPrivate = attempt(() => createPrivateKey({ key: der, format: 'der', type: 'pkcs1' })) ?? attempt(() => createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
  if (isRsa(rsaPrivate)) return createPublicKey(rsaPrivate);
  const pub = pkixOrCertificate(der);
  if (isRsa(pub)) return pub;
  const ecPrivate = sec1PrivateKey(der);
  if (isEc(ecPrivate)) return createPublicKey(ecPrivate);
  if (isEc(pub)) return pub;
  return undefined;
}

/**
 * keyutil.ParsePublicKeysPEM over a file's text: every key, in file order. Throws kube's
 * message (`error reading public key file F: data does not contain any valid RSA or ECDSA public
 * keys`) when there is none.
 */
export function publicKeysFromPem(text: string, file: string): KeyObject[] {
  const keys = pemBlocks(text)
    .map((b) => publicKeyOfBlock(b.der))
    .filter((k): k is KeyObject => k !== undefined);
  if (keys.length === 0) throw new Error(`error reading public key file ${file}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

/** keyutil.PublicKeysFromFile (an unreadable file: Go's `open F: no such file or directory`). */
export function publicKeysFromFile(file: string): KeyObject[] {
  return publicKeysFromPem(readKeyFile(file), file);
}

/**
 * keyutil.ParsePrivateKeyPEM: the first `EC PRIVATE KEY` (SEC1), `RSA PRIVATE KEY` (PKCS#1) or
 * `PRIVATE KEY` (PKCS#8, RSA or EC) block that parses.
 */
export function privateKeyFromPem(text: string, file: string): KeyObject {
  for (const b of pemBlocks(text)) {
    const type = b.type === 'EC PRIVATE KEY' ? 'sec1' : b.type === 'RSA PRIVATE KEY' ? 'pkcs1' : b.type === 'PRIVATE KEY' ? 'pkcs8' : undefined;
    if (!type) continue;
    const key = type === 'sec1' ? sec1PrivateKey(b.der) : attempt(() => createPrivateKey({ key: b.der, format: 'der', type }));
    if (isRsa(key) || isEc(key)) return key;
  }
  throw new Error(`error reading private key file ${file}: data does not contain a valid RSA or ECDSA private key`);
}

/** keyutil.PrivateKeyFromFile. */
export function privateKeyFromFile(file: string): KeyObject {
  return privateKeyFromPem(readKeyFile(file), file);
}

/** Read a key file; a missing file fails with Go's os.Open wording. */
function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`open ${file}: no such file or directory`);
    if (code === 'EACCES') throw new Error(`open ${file}: permission denied`);
    throw e;
  }
}

/** keyIDFromPublicKey: base64url(SHA-256(PKIX DER of the public key)). */
export function keyId(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

/**
 * The JWS algorithm kube uses with this key (algorithmFromPublicKey / the signer constructors),
 * or an error naming why there is none (a P-224 key: kube's "unknown private key curve").
 */
export function algorithmOf(key: KeyObject): SigningAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error('unknown private key curve, must be 256, 384, or 521');
  }
  throw new Error('unknown public key type, must be *rsa.PublicKey, *ecdsa.PublicKey, or jose.OpaqueSigner');
}

/**
 * The path of this server's own signing key under `pkiDir`, generating it on first use. Replicas
 * sharing the PKI dir race safely: each writes a private temp file and hard-links it to the final
 * name, which fails for all but the first; everyone then reads the winner.
 */
export async function ensureDefaultSigningKey(pkiDir: string): Promise<string> {
  const file = join(pkiDir, DEFAULT_SIGNING_KEY_FILE);
  if (await fsp.stat(file).then(() => true, () => false)) return file;
  await fsp.mkdir(pkiDir, { recursive: true, mode: 0o700 });
  // In a libuv thread, not the main one: an RSA prime search takes 15–250 ms (Node 24–20), during
  // which the server opens its storage (internal/app/app.ts).
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fsp.writeFile(tmp, pem, { mode: 0o600 });
  try {
    await fsp.link(tmp, file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await fsp.unlink(tmp).catch(() => undefined);
  }
  return file;
}
