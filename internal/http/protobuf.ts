/**
 * Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), the way kube-apiserver 1.24 reads
 * and writes it, for the kinds we serve.
 *
 * Wire format (k8s.io/apimachinery/pkg/runtime/serializer/protobuf):
 *   body  = "k8s\0" (6b 38 73 00) + runtime.Unknown{typeMeta{apiVersion, kind}, raw, contentEncoding "", contentType ""}
 *   raw   = the kind's own message (core/v1 ConfigMap, …) — no TypeMeta inside; it lives in the envelope.
 *   watch = frames of [4-byte big-endian length][meta/v1 WatchEvent]; the WatchEvent itself has no
 *           prefix/envelope (the stream serializer is the raw one) but its object.raw holds the full
 *           prefixed envelope of the object (the embedded encoder is the normal one).
 *
 * Messages come from proto/k8s.proto (upstream generated.proto of Kubernetes 1.24); which message a
 * kind is and the Go facts the .proto cannot say (pointers, omitempty) are internal/http/protobuf-schema.ts.
 *
 * Special messages: meta/v1 Time ⇄ RFC3339 (seconds; Go writes nanos 0 and ignores them on read),
 * MicroTime ⇄ RFC3339 with microseconds, zero Time ⇄ empty message (omitted from JSON),
 * resource.Quantity ⇄ its string, intstr.IntOrString ⇄ number | string, FieldsV1 raw ⇄ the JSON
 * object, bytes ⇄ base64 strings, int64 → number; apiextensions/v1 (a CRD's schema, after its Go
 * MarshalJSON/UnmarshalJSON): JSON raw ⇄ any JSON value, JSONSchemaPropsOrArray ⇄ a schema or an
 * array of schemas, JSONSchemaPropsOrBool ⇄ a schema or a boolean, JSONSchemaPropsOrStringArray ⇄
 * a schema or an array of strings.
 */
import { hash } from 'node:crypto';
import protobuf from 'protobufjs';
import { APIEXT, INTSTR, M, QUANTITY, R, WRAPPED_LISTS, loadSchema, message, protobufTypeFor, type FieldInfo, type Json, type MessageInfo } from './protobuf-schema.ts';

export { protobufTypeFor } from './protobuf-schema.ts';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** "k8s\0": the prefix kube-apiserver puts before every (non-stream) protobuf body. */
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

// ---------------------------------------------------------------------------------------------
// Time
// ---------------------------------------------------------------------------------------------

/** Seconds of Go's zero time.Time (0001-01-01T00:00:00Z) since the Unix epoch. */
const ZERO_TIME_SECONDS = -62135596800;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

function parseRFC3339(s: string, path: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(s);
  if (!m) throw new Error(`${path}: ${JSON.stringify(s)} is not an RFC3339 time`);
  const d = new Date(0);
  d.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  d.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6]), 0);
  let seconds = d.getTime() / 1000;
  if (m[8]) seconds -= (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 3600 + Number(m[10]) * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
  return { seconds, nanos };
}

function formatRFC3339(seconds: number, micros?: number): string {
  const iso = new Date(seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const base = iso.slice(0, iso.indexOf('.'));
  return micros === undefined ? `${base}Z` : `${base}.${String(micros).padStart(6, '0')}Z`;
}

// ---------------------------------------------------------------------------------------------
// JSON → protobuf
// ---------------------------------------------------------------------------------------------

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

function goStringCompare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function scalarToProto(scalar: string, v: unknown, path: string): unknown {
  switch (scalar) {
    case 'string':
      if (typeof v !== 'string') throw new Error(`${path}: expected a string, got ${JSON.stringify(v)}`);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw new Error(`${path}: expected a boolean, got ${JSON.stringify(v)}`);
      return v;
    case 'bytes':
      if (v instanceof Uint8Array) return v;
      if (typeof v !== 'string') throw new Error(`${path}: expected a base64 string, got ${JSON.stringify(v)}`);
      return Buffer.from(v, 'base64');
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
    case 'sint32':
    case 'sint64':
    case 'fixed32':
    case 'fixed64':
    case 'sfixed32':
    case 'sfixed64': {
      const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n)) throw new Error(`${path}: expected an integer, got ${JSON.stringify(v)}`);
      return n;
    }
    case 'double':
    case 'float':
      if (typeof v !== 'number') throw new Error(`${path}: expected a number, got ${JSON.stringify(v)}`);
      return v;
    default:
      throw new Error(`${path}: unsupported protobuf type ${scalar}`);
  }
}

function scalarZero(scalar: string): unknown {
  switch (scalar) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'bytes':
      return undefined; // a nil []byte is not written
    default:
      return 0;
  }
}

/** apiextensions/v1 JSONSchemaProps, which its unions hold. */
const schemaProps = (): MessageInfo => message(APIEXT + 'JSONSchemaProps');

/** JSON value → plain object protobufjs can encode as `m` (undefined/null: Go's zero value). */
function toProto(m: MessageInfo, v: unknown, path: string): Json {
  if (WRAPPED_LISTS.has(m.fullName)) {
    if (v != null && !Array.isArray(v)) throw new Error(`${path}: expected an array, got ${JSON.stringify(v)}`);
    return toProtoFields(m, { items: v ?? [] }, path);
  }
  return toProtoFields(m, v, path);
}

function toProtoFields(m: MessageInfo, v: unknown, path: string): Json {
  switch (m.fullName) {
    case M + 'Time':
    case M + 'MicroTime': {
      if (v == null || v === '') return {}; // zero time: empty message
      if (typeof v !== 'string') throw new Error(`${path}: expected an RFC3339 time string, got ${JSON.stringify(v)}`);
      const t = parseRFC3339(v, path);
      const nanos = m.fullName === M + 'Time' ? 0 : t.nanos - (t.nanos % 1000);
      if (t.seconds === ZERO_TIME_SECONDS && nanos === 0) return {};
      return { seconds: t.seconds, nanos };
    }
    case QUANTITY:
      if (v == null) return { string: '0' };
      if (typeof v === 'number') return { string: String(v) };
      if (typeof v !== 'string') throw new Error(`${path}: expected a quantity string, got ${JSON.stringify(v)}`);
      return { string: v };
    case INTSTR:
      if (v == null) return { type: 0, intVal: 0, strVal: '' };
      if (typeof v === 'number' && Number.isInteger(v)) return { type: 0, intVal: v, strVal: '' };
      if (typeof v === 'string') return { type: 1, intVal: 0, strVal: v };
      throw new Error(`${path}: expected an integer or a string, got ${JSON.stringify(v)}`);
    case M + 'FieldsV1':
      return v == null ? {} : { Raw: Buffer.from(JSON.stringify(v), 'utf8') };
    case R + 'RawExtension':
      if (v == null) return {};
      return { raw: v instanceof Uint8Array ? v : Buffer.from(JSON.stringify(v), 'utf8') };
    case APIEXT + 'JSON':
      return v == null ? {} : { raw: Buffer.from(JSON.stringify(v), 'utf8') };
    case APIEXT + 'JSONSchemaPropsOrArray':
      if (Array.isArray(v)) return { jSONSchemas: v.map((x, i) => toProto(schemaProps(), x, `${path}[${i}]`)) };
      return v == null ? {} : { schema: toProto(schemaProps(), v, path) };
    case APIEXT + 'JSONSchemaPropsOrBool':
      if (v == null || typeof v === 'boolean') return { allows: v === true };
      return { allows: true, schema: toProto(schemaProps(), v, path) };
    case APIEXT + 'JSONSchemaPropsOrStringArray':
      if (Array.isArray(v)) return { property: v.map((x, i) => scalarToProto('string', x, `${path}[${i}]`)) };
      return v == null ? {} : { schema: toProto(schemaProps(), v, path) };
  }
  if (v != null && !isObject(v)) throw new Error(`${path}: expected an object, got ${JSON.stringify(v)}`);
  const src = (v ?? {}) as Json;
  const out: Json = {};
  for (const f of m.fields) {
    const val = f.inline ? src : src[f.json];
    const p = `${path}.${f.json}`;
    if (f.kind === 'map') {
      if (val == null) continue;
      if (!isObject(val)) throw new Error(`${p}: expected an object, got ${JSON.stringify(val)}`);
      const keys = Object.keys(val).sort(goStringCompare);
      const entries: Json[] = [];
      for (const k of keys) {
        const x = val[k];
        const vp = `${p}[${JSON.stringify(k)}]`;
        if (f.message) entries.push({ key: k, value: toProto(f.message, x, vp) });
        else if (x == null) entries.push(f.scalar === 'bytes' ? { key: k } : { key: k, value: scalarZero(f.scalar!) });
        else entries.push({ key: k, value: scalarToProto(f.scalar!, x, vp) });
      }
      if (entries.length) out[f.name] = entries;
      continue;
    }
    if (f.kind === 'repeated') {
      if (val == null) continue;
      if (!Array.isArray(val)) throw new Error(`${p}: expected an array, got ${JSON.stringify(val)}`);
      if (val.length) out[f.name] = val.map((x, i) => (f.message ? toProto(f.message, x, `${p}[${i}]`) : x == null ? scalarZero(f.scalar!) : scalarToProto(f.scalar!, x, `${p}[${i}]`)));
      continue;
    }
    if (val == null && f.ptr) continue;
    const enc = f.message ? toProto(f.message, val, p) : val == null ? scalarZero(f.scalar!) : scalarToProto(f.scalar!, val, p);
    if (enc !== undefined) out[f.name] = enc;
  }
  return out;
}

/**
 * The messages toProtoFields maps specially (and the wrapped lists): the direct writer hands them
 * to toProto and protobufjs's encoder of the message.
 */
const SPECIAL = new Set([M + 'Time', M + 'MicroTime', QUANTITY, INTSTR, M + 'FieldsV1', R + 'RawExtension', APIEXT + 'JSON', APIEXT + 'JSONSchemaPropsOrArray', APIEXT + 'JSONSchemaPropsOrBool', APIEXT + 'JSONSchemaPropsOrStringArray', ...WRAPPED_LISTS]);

/** Wire types of the scalar types (protobuf encoding spec). */
const WIRE: Record<string, number> = { double: 1, fixed64: 1, sfixed64: 1, float: 5, fixed32: 5, sfixed32: 5, string: 2, bytes: 2 };

/** Write a scalar (already converted by scalarToProto or scalarZero) as field `id`, as protobufjs writes it. */
function writeScalar(w: protobuf.Writer, id: number, scalar: string, x: unknown): void {
  w.uint32((id << 3) | (WIRE[scalar] ?? 0));
  (w[scalar as 'string'] as (v: unknown) => protobuf.Writer).call(w, x);
}

/**
 * Write JSON value `v` as message `m` straight into `w`: the bytes protobufjs writes for
 * toProto(m, v) (fields by number; a non-pointer field always, a pointer one when set; repeated
 * fields and maps when non-empty, map keys in Go's order) without building that plain object —
 * a page of 500 ConfigMaps costs a fraction of the generic path. Any shape toProto would refuse
 * throws here too (with no path): the caller then runs toProto for kube's message.
 */
function writeMessage(w: protobuf.Writer, m: MessageInfo, v: unknown): void {
  if (SPECIAL.has(m.fullName)) {
    m.type.encode(toProto(m, v, m.fullName), w);
    return;
  }
  if (v != null && !isObject(v)) throw new Error('not an object');
  const src = (v ?? {}) as Json;
  for (const f of m.fields) {
    const val = f.inline ? src : src[f.json];
    if (f.kind === 'map') {
      if (val == null) continue;
      if (!isObject(val)) throw new Error('not an object');
      const keys = Object.keys(val);
      if (keys.length > 1) keys.sort(goStringCompare);
      for (const k of keys) {
        const x = val[k];
        w.uint32((f.id << 3) | 2).fork();
        w.uint32(10).string(k);
        if (f.message) {
          w.uint32(18).fork();
          writeMessage(w, f.message, x);
          w.ldelim();
        } else if (x != null) writeScalar(w, 2, f.scalar!, scalarToProto(f.scalar!, x, ''));
        else if (f.scalar !== 'bytes') writeScalar(w, 2, f.scalar!, scalarZero(f.scalar!));
        w.ldelim();
      }
      continue;
    }
    if (f.kind === 'repeated') {
      if (val == null) continue;
      if (!Array.isArray(val)) throw new Error('not an array');
      for (const x of val) {
        if (f.message) {
          w.uint32((f.id << 3) | 2).fork();
          writeMessage(w, f.message, x);
          w.ldelim();
        } else {
          if (x == null && f.scalar === 'bytes') throw new Error('a null bytes element'); // toProto's answer, whatever it is
          writeScalar(w, f.id, f.scalar!, x == null ? scalarZero(f.scalar!) : scalarToProto(f.scalar!, x, ''));
        }
      }
      continue;
    }
    if (val == null && f.ptr) continue;
    if (f.message) {
      w.uint32((f.id << 3) | 2).fork();
      writeMessage(w, f.message, val);
      w.ldelim();
    } else if (val != null) writeScalar(w, f.id, f.scalar!, scalarToProto(f.scalar!, val, ''));
    else if (f.scalar !== 'bytes') writeScalar(w, f.id, f.scalar!, scalarZero(f.scalar!));
  }
}

/** A Buffer over a Uint8Array's bytes, without copying them. */
const asBuffer = (u: Uint8Array): Buffer => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

function encodeMessage(m: MessageInfo, v: unknown, path: string): Buffer {
  const w = protobuf.Writer.create();
  try {
    writeMessage(w, m, v);
  } catch {
    // The generic path, for its error message (or, were the writers ever to disagree, its bytes).
    return asBuffer(m.type.encode(toProto(m, v, path)).finish());
  }
  return asBuffer(w.finish());
}

/**
 * Encode a JSON object (with `kind` and `apiVersion`) as kube-apiserver's protobuf body: "k8s\0"
 * + runtime.Unknown. `typeName` (a fully-qualified message name) overrides the kind table.
 * Throws when there is no protobuf message for the kind or a field has the wrong shape.
 */
export function encodeProtobuf(obj: unknown, typeName?: string): Buffer {
  if (!isObject(obj)) throw new Error('protobuf: can only encode an object');
  const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const kind = typeof obj.kind === 'string' ? obj.kind : '';
  const name = typeName ?? protobufTypeFor(apiVersion, kind);
  if (!name) throw new Error(`protobuf: no protobuf encoding for ${apiVersion || '<no apiVersion>'} ${kind || '<no kind>'}`);
  const raw = encodeMessage(message(name), obj, kind || name);
  const { unknown } = loadSchema();
  const envelope = unknown.encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, envelope]);
}

/** The parts of a protobuf list body encoded a batch of items at a time (encodeProtobufList). */
export interface ProtobufListParts {
  /** The body up to its list message: "k8s\0", the Unknown's typeMeta, raw's tag and `rawLength`. */
  head(rawLength: number): Buffer;
  /** The list message's ListMeta field (raw starts with it). */
  meta: Buffer;
  /**
   * A batch of stored items (JSON bytes, TypeMeta or not: the item message has no TypeMeta) as
   * the list message's `items` fields, each encoded once per distinct bytes while the item cache
   * holds it (encodedItem).
   */
  stored(batch: Buffer[]): Buffer;
  /** The Unknown's fields after raw. */
  tail: Buffer;
}

/**
 * encodeProtobuf of a list, in parts, so that a list can be encoded a batch at a time: the same
 * bytes as encodeProtobuf({kind, apiVersion, metadata: listMeta, items}) once the raw length is
 * known (the list message encodes its ListMeta, then each item, in field order, as Go's does).
 */
export function encodeProtobufList(apiVersion: string, kind: string, listMeta: Record<string, unknown>): ProtobufListParts {
  const name = protobufTypeFor(apiVersion, kind);
  if (!name) throw new Error(`protobuf: no protobuf encoding for ${apiVersion} ${kind}`);
  const m = message(name);
  const meta = encodeMessage(m, { metadata: listMeta, items: [] }, kind);
  const { unknown } = loadSchema();
  // The envelope around a one-byte raw, cut at that byte: the typeMeta before, the rest after.
  const marker = Buffer.from([0x12, 0x01, 0xab]);
  const probe = Buffer.from(unknown.encode({ typeMeta: { apiVersion, kind }, raw: Buffer.from([0xab]), contentEncoding: '', contentType: '' }).finish());
  const at = probe.lastIndexOf(marker);
  if (at < 0) throw new Error('protobuf: unexpected Unknown encoding');
  const typeMeta = probe.subarray(0, at);
  const tail = Buffer.from(probe.subarray(at + marker.length));
  const itemField = m.fields.find((f) => f.name === 'items' && f.kind === 'repeated' && f.message);
  if (!itemField) throw new Error(`protobuf: ${name} has no repeated items message`);
  return {
    head: (rawLength) => Buffer.concat([MAGIC, typeMeta, Buffer.from([0x12]), varintBytes(rawLength)]),
    meta,
    stored(batch) {
      const w = protobuf.Writer.create();
      const tag = (itemField.id << 3) | 2;
      for (const b of batch) {
        const sample = sampled(b);
        if (itemCacheUse.on || sample) w.uint32(tag).bytes(encodedItem(itemField, b, kind, sample));
        else {
          w.uint32(tag).fork();
          writeMessage(w, itemField.message!, JSON.parse(b.toString('utf8')));
          w.ldelim();
        }
      }
      return asBuffer(w.finish());
    },
    tail,
  };
}

/**
 * Encoded list items, by item message and the SHA-1 of the stored JSON bytes (the encoding is a
 * function of the two alone): a page of objects that have not changed since they were last listed
 * costs a hash and a lookup per item instead of a parse and an encode. The encoded items sit in
 * one slab of ITEM_CACHE_BYTES per generation (thousands of small cached Buffers would cost the GC
 * more than the encoding they save); when the current slab is full it becomes the old one (whose
 * slab is reused), and an old entry that is hit is copied to the current one. Items over
 * ITEM_MAX_BYTES are not kept.
 */
const ITEM_CACHE_BYTES = 2 ** 24;
const ITEM_MAX_BYTES = 2 ** 16;
const ITEM_SAMPLE_BYTES = 192;
/** A generation: slab offset × ITEM_MAX_BYTES + encoded length, by key. */
interface ItemGeneration {
  at: Map<string, number>;
  slab: Buffer | null;
  used: number;
}
const itemCache: { current: ItemGeneration; old: ItemGeneration } = { current: { at: new Map(), slab: null, used: 0 }, old: { at: new Map(), slab: null, used: 0 } };

function cachedItem(g: ItemGeneration, key: string): Buffer | undefined {
  const v = g.at.get(key);
  if (v === undefined) return undefined;
  const length = v % ITEM_MAX_BYTES;
  const at = (v - length) / ITEM_MAX_BYTES;
  return g.slab!.subarray(at, at + length);
}

/**
 * The cache pays only when lists are read again (informers relisting, paging clients): a miss costs
 * more than encoding in place. A fixed sample of the items (an eighth, chosen by their bytes, so
 * the same objects each time) always goes through it; every item does only while at least half of
 * the sample's last ITEM_CACHE_WINDOW lookups hit.
 */
const itemCacheUse = { on: false, lookups: 0, hits: 0 };
const ITEM_CACHE_WINDOW = 256;

/** One item in eight, the same for the same bytes (a sum over the bytes where names differ). */
function sampled(b: Buffer): boolean {
  let sum = 0;
  for (let i = Math.min(b.length, ITEM_SAMPLE_BYTES) - 1; i >= 0; i -= 3) sum += b[i]!;
  return (sum & 7) === 0;
}

function encodedItem(f: FieldInfo, b: Buffer, kind: string, sample: boolean): Buffer {
  const key = f.message!.fullName + hash('sha1', b, 'base64');
  if (sample && ++itemCacheUse.lookups === ITEM_CACHE_WINDOW) {
    itemCacheUse.on = itemCacheUse.hits * 2 >= ITEM_CACHE_WINDOW;
    itemCacheUse.lookups = itemCacheUse.hits = 0;
  }
  const hit = cachedItem(itemCache.current, key);
  if (hit) {
    if (sample) itemCacheUse.hits++;
    return hit;
  }
  const old = cachedItem(itemCache.old, key);
  if (old && sample) itemCacheUse.hits++;
  const item = old ?? encodeMessage(f.message!, JSON.parse(b.toString('utf8')), `${kind}.items`);
  if (item.length >= ITEM_MAX_BYTES) return item;
  let g = itemCache.current;
  if (g.used + item.length > ITEM_CACHE_BYTES) {
    // The old generation's slab is reused: two slabs at most, ever (no external-memory churn for the GC).
    const { slab } = itemCache.old;
    itemCache.old = g;
    g = itemCache.current = { at: new Map(), slab, used: 0 };
  }
  g.slab ??= Buffer.allocUnsafeSlow(ITEM_CACHE_BYTES);
  item.copy(g.slab, g.used);
  g.at.set(key, g.used * ITEM_MAX_BYTES + item.length);
  g.used += item.length;
  return item;
}

/** A protobuf varint. */
function varintBytes(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/**
 * A protobuf watch event: meta/v1 WatchEvent{type, object: RawExtension{raw: the object's full
 * protobuf body, "k8s\0" prefix and Unknown envelope included}}. No prefix on the event itself;
 * pass it to `frameWatchEvent` for the wire.
 */
export function encodeWatchEvent(type: string, objectJson: unknown): Buffer {
  const raw = encodeProtobuf(objectJson);
  return Buffer.from(loadSchema().watchEvent.encode({ type, object: { raw } }).finish());
}

/** One frame of a protobuf watch stream: 4-byte big-endian length, then the WatchEvent bytes. */
export function frameWatchEvent(b: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(b.length, 0);
  return Buffer.concat([header, b]);
}

// ---------------------------------------------------------------------------------------------
// protobuf → JSON
// ---------------------------------------------------------------------------------------------

const has = (msg: Json | undefined, name: string): boolean => msg !== undefined && Object.prototype.hasOwnProperty.call(msg, name) && msg[name] != null;

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'object' && v !== null) return Number(String(v)); // Long
  return Number(v);
}

function scalarFromProto(scalar: string, v: unknown): unknown {
  switch (scalar) {
    case 'bytes':
      return Buffer.from(v as Uint8Array).toString('base64');
    case 'string':
    case 'bool':
      return v;
    case 'double':
    case 'float':
      return v;
    default:
      return toNumber(v);
  }
}

const isZero = (v: unknown): boolean => v === '' || v === 0 || v === false;

/** Decoded message → JSON value; undefined when Go's JSON would leave it out (zero time, nil raw). */
function fromProto(m: MessageInfo, msg: Json | undefined, path: string): unknown {
  if (WRAPPED_LISTS.has(m.fullName)) {
    // A nil slice (no items) is JSON null, as Go prints it.
    const items = (fromProtoFields(m, msg, path) as Json | undefined)?.items;
    return Array.isArray(items) && items.length ? items : null;
  }
  return fromProtoFields(m, msg, path);
}

function fromProtoFields(m: MessageInfo, msg: Json | undefined, path: string): unknown {
  switch (m.fullName) {
    case M + 'Time':
    case M + 'MicroTime': {
      if (!has(msg, 'seconds') && !has(msg, 'nanos')) return undefined;
      const seconds = has(msg, 'seconds') ? toNumber(msg!.seconds) : 0;
      if (m.fullName === M + 'Time') return seconds === ZERO_TIME_SECONDS ? undefined : formatRFC3339(seconds);
      const micros = Math.floor((has(msg, 'nanos') ? toNumber(msg!.nanos) : 0) / 1000);
      return seconds === ZERO_TIME_SECONDS && micros === 0 ? undefined : formatRFC3339(seconds, micros);
    }
    case QUANTITY:
      return has(msg, 'string') ? msg!.string : '0';
    case INTSTR:
      if (has(msg, 'type') && toNumber(msg!.type) === 1) return has(msg, 'strVal') ? msg!.strVal : '';
      return has(msg, 'intVal') ? toNumber(msg!.intVal) : 0;
    case M + 'FieldsV1': {
      if (!has(msg, 'Raw')) return undefined;
      const text = Buffer.from(msg!.Raw as Uint8Array).toString('utf8');
      try {
        return JSON.parse(text);
      } catch (e) {
        throw new Error(`${path}: fieldsV1 is not JSON: ${(e as Error).message}`);
      }
    }
    case R + 'RawExtension': {
      if (!has(msg, 'raw')) return undefined;
      const raw = Buffer.from(msg!.raw as Uint8Array);
      if (raw.subarray(0, 4).equals(MAGIC)) return decodeProtobuf(raw).object;
      try {
        return JSON.parse(raw.toString('utf8'));
      } catch {
        throw new Error(`${path}: raw object is neither Kubernetes protobuf nor JSON`);
      }
    }
    case APIEXT + 'JSON': {
      if (!has(msg, 'raw') || !(msg!.raw as Uint8Array).length) return null;
      try {
        return JSON.parse(Buffer.from(msg!.raw as Uint8Array).toString('utf8'));
      } catch {
        throw new Error(`${path}: raw value is not JSON`);
      }
    }
    case APIEXT + 'JSONSchemaPropsOrArray': {
      const many = (msg?.jSONSchemas ?? []) as Json[];
      if (many.length) return many.map((x, i) => fromProto(schemaProps(), x, `${path}[${i}]`));
      return has(msg, 'schema') ? fromProto(schemaProps(), msg!.schema as Json, path) : null;
    }
    case APIEXT + 'JSONSchemaPropsOrBool':
      if (has(msg, 'schema')) return fromProto(schemaProps(), msg!.schema as Json, path);
      return has(msg, 'allows') && msg!.allows === true;
    case APIEXT + 'JSONSchemaPropsOrStringArray': {
      const property = (msg?.property ?? []) as string[];
      if (property.length) return property;
      return has(msg, 'schema') ? fromProto(schemaProps(), msg!.schema as Json, path) : null;
    }
  }
  const out: Json = {};
  for (const f of m.fields) {
    const p = `${path}.${f.json}`;
    if (f.kind === 'map') {
      const entries = (msg?.[f.name] ?? []) as Json[];
      if (!entries.length) continue;
      const obj: Json = {};
      for (const e of entries) {
        const key = has(e, 'key') ? String(e.key) : '';
        if (f.message) obj[key] = fromProto(f.message, has(e, 'value') ? (e.value as Json) : undefined, `${p}[${JSON.stringify(key)}]`) ?? null;
        else obj[key] = has(e, 'value') ? scalarFromProto(f.scalar!, e.value) : f.scalar === 'bytes' ? '' : scalarZero(f.scalar!);
      }
      out[f.json] = obj;
      continue;
    }
    if (f.kind === 'repeated') {
      const arr = (msg?.[f.name] ?? []) as unknown[];
      if (arr.length) {
        out[f.json] = arr.map((x, i) => (f.message ? (fromProto(f.message, x as Json, `${p}[${i}]`) ?? null) : scalarFromProto(f.scalar!, x)));
      } else if (f.name === 'items' && m.fullName.endsWith('List')) {
        out[f.name] = []; // kube-apiserver's lists always carry `items`
      }
      continue;
    }
    const present = has(msg, f.name);
    if (!present && f.ptr) continue;
    if (f.message) {
      const v = fromProto(f.message, present ? (msg![f.name] as Json) : undefined, p);
      if (v === undefined) continue;
      if (f.inline && isObject(v)) Object.assign(out, v);
      else out[f.json] = v;
      continue;
    }
    const v = present ? scalarFromProto(f.scalar!, msg![f.name]) : scalarZero(f.scalar!);
    if (v === undefined) continue;
    if (!f.ptr && !f.keep && isZero(v)) continue;
    out[f.json] = v;
  }
  return out;
}

function decodeMessage(m: MessageInfo, bytes: Uint8Array, what: string): Json {
  let msg: Json;
  try {
    msg = m.type.decode(bytes) as unknown as Json;
  } catch (e) {
    throw new Error(`protobuf: cannot decode ${what}: ${(e as Error).message}`);
  }
  return fromProto(m, msg, what) as Json;
}

/**
 * Decode a kube-apiserver protobuf body ("k8s\0" + runtime.Unknown) into the JSON Kubernetes
 * would use for the same object (`kind` and `apiVersion` first). `defaults` fills an envelope
 * that names no apiVersion/kind (as Kubernetes defaults them from the URL). Throws a plain Error
 * on a missing prefix, undecodable bytes or a kind we have no message for.
 */
export function decodeProtobuf(
  body: Buffer,
  defaults?: { apiVersion?: string; kind?: string },
): { apiVersion: string; kind: string; object: Record<string, unknown> } {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new Error('protobuf: body does not start with the Kubernetes protobuf prefix 6b 38 73 00 ("k8s\\0")');
  }
  let unk: Json;
  try {
    unk = loadSchema().unknown.decode(body.subarray(MAGIC.length)) as unknown as Json;
  } catch (e) {
    throw new Error(`protobuf: cannot decode the runtime.Unknown envelope: ${(e as Error).message}`);
  }
  const typeMeta = (has(unk, 'typeMeta') ? unk.typeMeta : {}) as Json;
  const apiVersion = (has(typeMeta, 'apiVersion') && typeMeta.apiVersion) || defaults?.apiVersion || '';
  const kind = (has(typeMeta, 'kind') && typeMeta.kind) || defaults?.kind || '';
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') throw new Error('protobuf: bad envelope type meta');
  if (has(unk, 'contentEncoding') && unk.contentEncoding !== '') throw new Error(`protobuf: unsupported content encoding ${JSON.stringify(unk.contentEncoding)}`);
  if (has(unk, 'contentType') && unk.contentType !== '' && unk.contentType !== PROTOBUF) throw new Error(`protobuf: unsupported embedded content type ${JSON.stringify(unk.contentType)}`);
  const name = protobufTypeFor(apiVersion, kind);
  if (!name) throw new Error(`protobuf: no protobuf decoding for ${apiVersion || '<no apiVersion>'} ${kind || '<no kind>'}`);
  const raw = has(unk, 'raw') ? (unk.raw as Uint8Array) : new Uint8Array(0);
  const fields = decodeMessage(message(name), raw, kind);
  return { apiVersion, kind, object: { kind, apiVersion, ...fields } };
}

/** Decode one WatchEvent (a frame body, length prefix removed): its type and the embedded object. */
export function decodeWatchEvent(b: Buffer): { type: string; object: Record<string, unknown> | undefined } {
  const ev = decodeMessage(message(M + 'WatchEvent'), b, 'WatchEvent');
  return { type: String(ev.type ?? ''), object: ev.object as Record<string, unknown> | undefined };
}
