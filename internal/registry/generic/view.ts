/**
 * Where a kind's objects are stored and how stored bytes become the kind's own shape: the identity
 * for most kinds, a conversion for kinds that are a view of another kind's storage
 * (KindDescriptor.storedAs, e.g. events.k8s.io/v1 Event over core/v1 Event). The generic store,
 * reader and watch use this one object so no generic code needs to know which kinds are views.
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor, VersionConversion } from '../rest/strategy.ts';
import type { Change } from '../../storage/storage.ts';
import { goJson } from '../../gocompat/json.ts';
import { parseObject } from './serialize.ts';

export interface StorageCodec {
  /** Group and resource of the storage keys (the storage kind's for a view). */
  readonly group: string;
  readonly resource: string;
  /** Is this kind a view of another kind's storage? */
  readonly isView: boolean;
  /** Stored bytes → bytes of this kind (the same Buffer when not a view). */
  decode(stored: Buffer): Buffer;
  /** A parsed stored object → this kind's object (the same object when not a view). */
  view(stored: KubeObject): KubeObject;
  /** This kind's object → the object to store (the same object when not a view). */
  encode(obj: KubeObject): KubeObject;
  /** A committed change with its objects in this kind's shape. */
  decodeChange(c: Change): Change;
}

/** The codec of a kind (see module comment). Built once per store/reader. */
export function storageCodec(kind: KindDescriptor): StorageCodec {
  const v = kind.storedAs;
  if (!v) {
    return {
      group: kind.group,
      resource: kind.resource,
      isView: false,
      decode: (b) => b,
      view: (o) => o,
      encode: (o) => o,
      decodeChange: (c) => c,
    };
  }
  const decode = (b: Buffer): Buffer => Buffer.from(JSON.stringify(v.fromStorage(parseObject(b))));
  return {
    group: v.group,
    resource: v.resource,
    isView: true,
    decode,
    view: (o) => v.fromStorage(o),
    encode: (o) => v.toStorage(o),
    decodeChange: (c) => ({ ...c, object: decode(c.object), prev: c.prev && decode(c.prev) }),
  };
}

/**
 * Stored object bytes (this kind's shape) → bytes served at `version` through the kind's
 * VersionConversion: one call for all of them (a webhook gets one review for a list), synchronous
 * unless the conversion calls out.
 */
export function convertStored(conversion: VersionConversion, items: Buffer[], version: string): Buffer[] | Promise<Buffer[]> {
  if (!items.length) return items;
  const parsed = items.map(parseObject);
  const out = conversion.fromStorage(parsed, version);
  // An object served as it was stored: its stored bytes (the same text goJson would write).
  const bytes = (objs: KubeObject[]): Buffer[] => objs.map((o, i) => (o === parsed[i] && conversion.servedAsStored?.(o) ? items[i] : Buffer.from(goJson(o))));
  return Array.isArray(out) ? bytes(out) : out.then(bytes);
}

/** The same for one change (its object and the object before it), for a watcher at `version`. */
export function convertChange(conversion: VersionConversion, c: Change, version: string): Change | Promise<Change> {
  const out = convertStored(conversion, c.prev ? [c.object, c.prev] : [c.object], version);
  const change = ([object, prev]: Buffer[]): Change => ({ ...c, object, prev });
  return Array.isArray(out) ? change(out) : out.then(change);
}
