/**
 * The at-rest codec of one process: object JSON → the bytes appended to the log (the writer, once
 * per write), and stored bytes → object JSON with its resourceVersion (every read: get, list,
 * exact-version reads from h/, watch changes and log replay). Resources the config does not name,
 * and every resource without a config, pass through untouched; the only cost then is one byte
 * compare per value, which turns a value this process cannot read into a clear error instead of
 * a JSON parse failure somewhere downstream.
 *
 * The authenticated data of aesgcm is the object path (`core/secrets/<ns>/<name>`), kube's etcd key
 * counterpart: a ciphertext copied to another object's key does not decrypt.
 */
import { StorageError } from '../errors.ts';
import { objectPath, type ObjectKey } from '../keys.ts';
import { stampResourceVersion } from '../mvcc/fold.ts';
import { groupResourceKey, loadEncryptionConfig, type ResourceTransformers } from './config.ts';
import type { Transformer } from './providers.ts';
import { isTransformed, splitStamp } from './stamp.ts';

/** Stored bytes of one resource → object JSON (throws StorageError 'corrupt' with kube's transformer text). */
export type ValueDecoder = (path: string, stored: Buffer) => Buffer;

const passThrough: ValueDecoder = (path, stored) => {
  if (isTransformed(stored)) throw new StorageError('corrupt', `${path} is encrypted at rest, but no --encryption-provider-config provider is configured for its resource`);
  return stored;
};

export class AtRest {
  private readonly decoders = new Map<string, ValueDecoder>();

  constructor(private readonly transformers: ResourceTransformers = new Map()) {
    for (const [gr, t] of transformers) this.decoders.set(gr, decoderOf(t));
  }

  /** `--encryption-provider-config` (undefined: no encryption). */
  static fromFile(path: string | undefined): AtRest {
    return new AtRest(path ? loadEncryptionConfig(path) : undefined);
  }

  /** Some resource is configured. */
  get enabled(): boolean {
    return this.transformers.size > 0;
  }

  private transformer(group: string, resource: string): Transformer | undefined {
    return this.transformers.size ? this.transformers.get(groupResourceKey(group, resource)) : undefined;
  }

  /** The bytes the log carries for `object` (its plain JSON when the resource is not configured). */
  encode(key: ObjectKey, object: Buffer): Buffer {
    const t = this.transformer(key.group, key.resource);
    return t ? t.toStorage(object, Buffer.from(objectPath(key))) : object;
  }

  /** Whether writes of this resource are transformed (the writer then keeps its plain bytes). */
  transforms(group: string, resource: string): boolean {
    return this.transformer(group, resource) !== undefined;
  }

  /** The decoder of one resource's stored values (look it up once per list or watch, not per value). */
  decoderFor(group: string, resource: string): ValueDecoder {
    return (this.transformers.size && this.decoders.get(groupResourceKey(group, resource))) || passThrough;
  }

  /** Stored bytes (o/, h/ or a stamped event object) of the object `key` → object JSON. */
  decode(key: ObjectKey, stored: Buffer): Buffer {
    const d = this.transformers.size ? this.decoders.get(groupResourceKey(key.group, key.resource)) : undefined;
    if (!d && !isTransformed(stored)) return stored; // the common case: no string built, nothing copied
    return (d ?? passThrough)(objectPath(key), stored);
  }

  /**
   * A stored value that a write would store differently: read with a provider or key other than
   * the first (kube's "stale"). A no-op update of such an object still writes, which is how
   * `kubectl replace` re-encrypts everything after a key rotation.
   */
  stale(key: ObjectKey, stored: Buffer): boolean {
    const t = this.transformer(key.group, key.resource);
    if (!t) return false;
    return t.fromStorage(splitStamp(stored).data, Buffer.from(objectPath(key))).stale;
  }
}

function decoderOf(t: Transformer): ValueDecoder {
  return (path, stored) => {
    const { rv, data } = splitStamp(stored);
    let plain: Buffer;
    try {
      plain = t.fromStorage(data, Buffer.from(path)).data;
    } catch (e) {
      throw new StorageError('corrupt', (e as Error).message);
    }
    if (rv === null) return plain; // stored plain (identity): stamped by the fold already
    const stamped = stampResourceVersion(plain, rv);
    if (!stamped) throw new StorageError('corrupt', `${path}: the decrypted value is not an object`);
    return stamped;
  };
}
