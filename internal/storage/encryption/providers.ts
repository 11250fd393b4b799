/**
 * Value transformers for data at rest: kube-apiserver 1.24's `identity`, `aescbc`, `aesgcm` and
 * `secretbox` (k8s.io/apiserver/pkg/storage/value/encrypt), with their wire format, so a value
 * reads the way an etcd value written by kube does:
 *
 *   k8s:enc:aescbc:v1:<key name>:<16-byte IV><AES-CBC ciphertext, PKCS#7 padded>
 *   k8s:enc:aesgcm:v1:<key name>:<12-byte nonce><AES-GCM ciphertext><16-byte tag>   (AAD: the object path)
 *   k8s:enc:secretbox:v1:<key name>:<24-byte nonce><16-byte Poly1305 tag><XSalsa20 ciphertext>
 *   identity: the bytes unchanged (and no `k8s:enc:` value is ever read as plain)
 *
 * Reading follows value.prefixTransformers: every provider whose prefix the data starts with is
 * tried in order; the first that succeeds wins and the value is stale when it was not the first
 * provider (or, inside a provider, not the first key) — which is what makes a no-op update re-write
 * it during key rotation. Error texts are kube's (they reach clients in 500 Status messages).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { secretbox } from '@noble/ciphers/salsa.js';

/** The result of reading one stored value. */
export interface FromStorage {
  data: Buffer;
  /** Read with a provider or key other than the first: a write would store it differently. */
  stale: boolean;
}

/** One way of storing values (kube's value.Transformer). `ad` is the authenticated data (object path). */
export interface Transformer {
  fromStorage(data: Buffer, ad: Buffer): FromStorage;
  toStorage(data: Buffer, ad: Buffer): Buffer;
}

/** A transformer chosen by the prefix of the stored bytes (kube's value.PrefixTransformer). */
export interface PrefixTransformer {
  prefix: Buffer;
  transformer: Transformer;
}

/** Go's errors.Reduce(errors.NewAggregate(errs)): one error as is, several as "[a, b]" (duplicates once). */
function reduce(errs: Error[]): Error {
  const seen = [...new Set(errs.map((e) => e.message))];
  return seen.length === 1 ? errs[0] : new Error(`[${seen.join(', ')}]`);
}

/**
 * kube's value.NewPrefixTransformers: writes with the first, reads with any whose prefix matches.
 * An empty prefix (identity) that fails is skipped silently, as kube does, so an encrypted value
 * whose provider is gone reads as `noMatch` rather than identity's complaint.
 */
export function prefixTransformers(noMatch: string, list: PrefixTransformer[]): Transformer {
  if (!list.length) throw new Error('prefixTransformers: at least one transformer is required');
  return {
    fromStorage(data, ad) {
      const errs: Error[] = [];
      for (let i = 0; i < list.length; i++) {
        const { prefix, transformer } = list[i];
        if (!startsWith(data, prefix)) continue;
        try {
          const r = transformer.fromStorage(data.subarray(prefix.length), ad);
          return { data: r.data, stale: r.stale || i !== 0 };
        } catch (e) {
          if (prefix.length) errs.push(e as Error);
        }
      }
      if (errs.length) throw reduce(errs);
      throw new Error(noMatch);
    },
    toStorage(data, ad) {
      const { prefix, transformer } = list[0];
      return Buffer.concat([prefix, transformer.toStorage(data, ad)]);
    },
  };
}

export const startsWith = (data: Buffer, prefix: Buffer): boolean => data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

const ENCRYPTED = Buffer.from('k8s:enc:');

/** identity.NewEncryptCheckTransformer: plain bytes, but never a value that says it is encrypted. */
export const identityTransformer: Transformer = {
  fromStorage(data) {
    if (startsWith(data, ENCRYPTED)) throw new Error('identity transformer tried to read encrypted data');
    return { data, stale: false };
  },
  toStorage: (data) => data,
};

const BLOCK = 16;
const aesName = (key: Buffer, mode: 'cbc' | 'gcm'): string => `aes-${key.length * 8}-${mode}`;

/** AES-CBC with a random IV and PKCS#7 padding (aes.NewCBCTransformer). No authentication. */
export function cbcTransformer(key: Buffer): Transformer {
  const alg = aesName(key, 'cbc');
  return {
    fromStorage(data) {
      if (data.length < BLOCK) throw new Error('the stored data was shorter than the required size');
      const iv = data.subarray(0, BLOCK);
      const body = data.subarray(BLOCK);
      if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
      const d = createDecipheriv(alg, key, iv).setAutoPadding(false);
      const out = Buffer.concat([d.update(body), d.final()]);
      // Padding checked by hand, for kube's messages (an empty body is "not padded" too).
      const pad = out.length ? out[out.length - 1] : 0;
      if (pad === 0 || pad > out.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = out.length - pad; i < out.length; i++) if (out[i] !== pad) throw new Error('invalid padding on input');
      return { data: out.subarray(0, out.length - pad), stale: false };
    },
    toStorage(data) {
      const iv = randomBytes(BLOCK);
      const c = createCipheriv(alg, key, iv); // Node pads with PKCS#7, as kube does by hand
      return Buffer.concat([iv, c.update(data), c.final()]);
    },
  };
}

const GCM_NONCE = 12;
const GCM_TAG = 16;

/** AES-GCM with a random 96-bit nonce; the object path is authenticated data (aes.NewGCMTransformer). */
export function gcmTransformer(key: Buffer): Transformer {
  const alg = aesName(key, 'gcm');
  return {
    fromStorage(data, ad) {
      if (data.length < GCM_NONCE) throw new Error('the stored data was shorter than the required size');
      // Go's aead.Open fails the same way on a short or a forged value.
      if (data.length < GCM_NONCE + GCM_TAG) throw new Error('cipher: message authentication failed');
      const d = createDecipheriv(alg as 'aes-256-gcm', key, data.subarray(0, GCM_NONCE), { authTagLength: GCM_TAG });
      d.setAAD(ad);
      d.setAuthTag(data.subarray(data.length - GCM_TAG));
      try {
        return { data: Buffer.concat([d.update(data.subarray(GCM_NONCE, data.length - GCM_TAG)), d.final()]), stale: false };
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
    toStorage(data, ad) {
      const nonce = randomBytes(GCM_NONCE);
      const c = createCipheriv(alg as 'aes-256-gcm', key, nonce, { authTagLength: GCM_TAG });
      c.setAAD(ad);
      const body = Buffer.concat([c.update(data), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
  };
}

const SECRETBOX_NONCE = 24;
const SECRETBOX_OVERHEAD = 16;

/** NaCl secretbox (XSalsa20-Poly1305), random 24-byte nonce first. No authenticated data, as kube. */
export function secretboxTransformer(key: Buffer): Transformer {
  return {
    fromStorage(data) {
      if (data.length < SECRETBOX_OVERHEAD + SECRETBOX_NONCE) throw new Error('the stored data was shorter than the required size');
      try {
        const out = secretbox(key, data.subarray(0, SECRETBOX_NONCE)).open(data.subarray(SECRETBOX_NONCE));
        return { data: Buffer.from(out.buffer, out.byteOffset, out.byteLength), stale: false };
      } catch {
        // kube's (misleading) text for a failed secretbox.Open.
        throw new Error('output array was not large enough for encryption');
      }
    },
    toStorage(data) {
      const nonce = randomBytes(SECRETBOX_NONCE);
      const sealed = secretbox(key, nonce).seal(data);
      return Buffer.concat([nonce, sealed]);
    },
  };
}
