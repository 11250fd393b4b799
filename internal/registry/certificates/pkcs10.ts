/**
 * What kube reads of a CertificateSigningRequest's `spec.request` (pkg/apis/certificates ParseCSR
 * and x509.CertificateRequest.CheckSignature): one PEM block of type CERTIFICATE REQUEST holding
 * a PKCS#10 CertificationRequest (RFC 2986) whose signature verifies with its own public key; and
 * the subject's Organization values (CertificateSubjectRestriction). A small DER walk; the
 * signature is checked with node:crypto, synchronously, as the strategy's validation must be.
 */
import { createPublicKey, verify } from 'node:crypto';

/** The parts of a parsed request the callers use. */
export interface CertificationRequest {
  /** subject O= values, in order. */
  organizations: string[];
}

interface Tlv {
  tag: number;
  /** The whole element (tag, length, value). */
  raw: Buffer;
  value: Buffer;
}

const MALFORMED = 'x509: malformed certificate request';

function readTlv(b: Buffer, at: number): Tlv {
  if (at + 2 > b.length) throw new Error(MALFORMED);
  const tag = b[at]!;
  let len = b[at + 1]!;
  let head = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || at + 2 + n > b.length) throw new Error(MALFORMED);
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[at + 2 + i]!;
    head += n;
  }
  if (at + head + len > b.length) throw new Error(MALFORMED);
  return { tag, raw: b.subarray(at, at + head + len), value: b.subarray(at + head, at + head + len) };
}

/** The elements of a constructed value. */
function children(v: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let at = 0; at < v.length; ) {
    const t = readTlv(v, at);
    out.push(t);
    at += t.raw.length;
  }
  return out;
}

/** A DER OBJECT IDENTIFIER's dotted text. */
function oid(v: Buffer): string {
  const parts = [Math.floor(v[0]! / 40), v[0]! % 40];
  let n = 0;
  for (const byte of v.subarray(1)) {
    n = n * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

const SEQUENCE = 0x30;
const ORGANIZATION = '2.5.4.10';
/** Signature algorithms Go's x509 checks a request with: the digest and the verification error. */
const ALGORITHMS: Record<string, { hash: string | null; failure: string }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', failure: 'crypto/rsa: verification error' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', failure: 'crypto/rsa: verification error' },
  '1.2.840.10045.4.1': { hash: 'sha1', failure: 'x509: ECDSA verification failure' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', failure: 'x509: ECDSA verification failure' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', failure: 'x509: ECDSA verification failure' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', failure: 'x509: ECDSA verification failure' },
  '1.3.101.112': { hash: null, failure: 'x509: Ed25519 verification failure' },
};

/** The DER of the first PEM block, or undefined when there is none of type CERTIFICATE REQUEST. */
function pemBlock(pem: Buffer): Buffer | undefined {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem.toString('latin1'));
  if (!m || m[1] !== 'CERTIFICATE REQUEST') return undefined;
  const body = m[2]!;
  // PEM headers ("Key: value" lines before a blank line) are not part of the base64.
  const b64 = body.includes(':') ? body.slice(body.search(/\r?\n\r?\n/) + 1) : body;
  return Buffer.from(b64.replace(/\s+/g, ''), 'base64');
}

/**
 * Parse a request; throws an Error with kube's message (ParseCSR's PEM message, the parse
 * failure) when it cannot be read.
 */
export function parseCertificationRequest(pem: Buffer): { request: CertificationRequest; tbs: Buffer; spki: Buffer; algorithm: string; signature: Buffer } {
  const der = pemBlock(pem);
  if (!der) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  const outer = readTlv(der, 0);
  if (outer.tag !== SEQUENCE) throw new Error(MALFORMED);
  const [info, alg, sig] = children(outer.value);
  if (!info || !alg || !sig || info.tag !== SEQUENCE || alg.tag !== SEQUENCE || sig.tag !== 0x03) throw new Error(MALFORMED);
  const [, subject, spki] = children(info.value);
  if (!subject || !spki || subject.tag !== SEQUENCE || spki.tag !== SEQUENCE) throw new Error(MALFORMED);
  const organizations: string[] = [];
  for (const rdn of children(subject.value)) {
    for (const atv of children(rdn.value)) {
      const [type, value] = children(atv.value);
      if (type && value && oid(type.value) === ORGANIZATION) organizations.push(value.value.toString('utf8'));
    }
  }
  const algOid = children(alg.value)[0];
  return { request: { organizations }, tbs: info.raw, spki: spki.raw, algorithm: algOid ? oid(algOid.value) : '', signature: sig.value.subarray(1) };
}

/** ParseCSR then CheckSignature: the request, or the error kube reports for spec.request. */
export function checkCertificationRequest(pem: Buffer): CertificationRequest {
  const parsed = parseCertificationRequest(pem);
  const alg = ALGORITHMS[parsed.algorithm];
  if (!alg) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  let key;
  try {
    key = createPublicKey({ key: parsed.spki, format: 'der', type: 'spki' });
  } catch {
    throw new Error('x509: unsupported public key algorithm');
  }
  let ok = false;
  try {
    ok = verify(alg.hash, parsed.tbs, key, parsed.signature);
  } catch {
    ok = false;
  }
  if (!ok) throw new Error(alg.failure);
  return parsed.request;
}
