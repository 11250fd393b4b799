/**
 * Encrypted objects in the log and the snapshot. The writer encrypts an object once, before the
 * append, so the event carries `k8s:enc:<provider>:v1:<key>:<ciphertext>` (kube's etcd value).
 * The fold has no keys and must not re-encrypt (random IVs would make replicas disagree), so it
 * cannot stamp metadata.resourceVersion inside the ciphertext; it stores
 *
 *   k8s:rv:<resourceVersion>:k8s:enc:<provider>:v1:<key>:<ciphertext>
 *
 * in o/ and h/ — the version in clear beside the value, as etcd keeps mod_revision beside its
 * value — and readers stamp it into the JSON after decrypting. Plain objects start with '{', so
 * one byte tells the two apart.
 */
import { concatOwn } from '../own-buffer.ts';

const STAMP = 'k8s:rv:';
const STAMP_BYTES = Buffer.from(STAMP);
const ENCRYPTED_BYTES = Buffer.from('k8s:enc:');
const K = 0x6b; // 'k'

const hasPrefix = (b: Buffer, p: Buffer): boolean => b.length >= p.length && b.compare(p, 0, p.length, 0, p.length) === 0;

/** The event object is a transformer's output (kube's `k8s:enc:` prefix). */
export const isEncryptedObject = (b: Buffer): boolean => b[0] === K && hasPrefix(b, ENCRYPTED_BYTES);

/** A stored value or event object that is not plain JSON (needs the at-rest codec to read). */
export const isTransformed = (b: Buffer): boolean => b.length > 0 && b[0] === K;

/** The fold's stored form of an encrypted event object at `rv`. */
export const stampEncrypted = (b: Buffer, rv: number): Buffer => concatOwn([Buffer.from(`${STAMP}${rv}:`), b]);

/** Split a stored value into its clear resourceVersion and the transformer's bytes (rv null: not stamped). */
export function splitStamp(b: Buffer): { rv: number | null; data: Buffer } {
  if (!hasPrefix(b, STAMP_BYTES)) return { rv: null, data: b };
  const end = b.indexOf(0x3a, STAMP_BYTES.length); // ':'
  const rv = end > STAMP_BYTES.length ? Number(b.subarray(STAMP_BYTES.length, end).toString('latin1')) : NaN;
  if (!Number.isSafeInteger(rv)) return { rv: null, data: b };
  return { rv, data: b.subarray(end + 1) };
}
