/**
 * The log event and its Avro codec. The schema lives in proto/event.avsc so other tools (and other
 * languages) read the same bytes.
 */
import { readFileSync } from 'node:fs';
import avro from 'avsc';
import type { ObjectKey } from '../keys.ts';

export type Op = 'GENESIS' | 'CREATE' | 'UPDATE' | 'DELETE';

export interface LogEvent {
  op: Op;
  id: string;
  group: string;
  resource: string;
  namespace: string;
  name: string;
  expectRv: number | null;
  expectUid: string | null;
  requireActiveNamespace: boolean;
  uid: string;
  deleting: boolean;
  object: Buffer | null;
  time: number;
  verb: string;
  user: string;
  groups: string[];
  fieldManager: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/**
 * The fields the fold reads (schema fields op..object, and time): what a replica or a rebuild
 * decodes (decodeFoldEvent). A LogEvent is one; the audit fields after `time` are not.
 */
export type FoldEvent = Pick<LogEvent, (typeof FOLD_FIELDS)[number]>;
/** FoldEvent's fields; their order and types on the wire come from the schema (FOLD_PLAN). */
export const FOLD_FIELDS = ['op', 'id', 'group', 'resource', 'namespace', 'name', 'expectRv', 'expectUid', 'requireActiveNamespace', 'uid', 'deleting', 'object', 'time'] as const;

/** The object an event writes. */
export const eventKey = (e: ObjectKey): ObjectKey => ({ group: e.group, resource: e.resource, namespace: e.namespace, name: e.name });

/** An event as read back from the log, with its position. */
export interface PositionedEvent {
  offset: number;
  event: LogEvent;
}

/**
 * An event for a fold, with its position and, when the reader has them, its stored bytes (so a
 * copy of the log needs no re-encoding). A PositionedEvent is one.
 */
export interface FoldPositionedEvent {
  offset: number;
  event: FoldEvent;
  bytes?: Buffer;
}

const schema = JSON.parse(readFileSync(new URL('../../../proto/event.avsc', import.meta.url), 'utf8'));
const type = avro.Type.forSchema(schema);

export function encodeEvent(e: LogEvent): Buffer {
  return type.toBuffer(e);
}

export function decodeEvent(b: Buffer | Uint8Array): LogEvent {
  return type.fromBuffer(Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)) as LogEvent;
}

/** The first event of every log: gives offset 0 a meaning so no object ever has resourceVersion "0". */
export function genesisEvent(time: number): LogEvent {
  return {
    op: 'GENESIS', id: 'genesis', group: '', resource: '', namespace: '', name: '', expectRv: null, expectUid: null,
    requireActiveNamespace: false, uid: '', deleting: false, object: null, time, verb: 'genesis', user: '', groups: [],
    fieldManager: null, userAgent: null, requestId: null,
  };
}

/**
 * Reads the Avro binary encoding field by field (Avro spec: zig-zag varint longs, length-prefixed
 * strings and bytes, enums and unions as an index, booleans as one byte).
 */
class AvroReader {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  private fail(): never {
    throw new Error(`truncated or malformed log event (${this.buf.length} bytes, at ${this.pos})`);
  }

  /** A long up to 2^53 (offsets, times): float arithmetic, since bit operators stop at 32 bits. */
  long(): number {
    const buf = this.buf;
    let pos = this.pos;
    let b = buf[pos++];
    let n = b & 0x7f;
    for (let mul = 0x80; b & 0x80; mul *= 0x80) {
      if (pos >= buf.length || mul > 2 ** 56) this.fail();
      b = buf[pos++];
      n += (b & 0x7f) * mul;
    }
    if (pos > buf.length) this.fail();
    this.pos = pos;
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  private span(): number {
    const len = this.long();
    const start = this.pos;
    if (len < 0 || start + len > this.buf.length) this.fail();
    this.pos = start + len;
    return start;
  }

  string(): string {
    const start = this.span();
    return this.buf.toString('utf8', start, this.pos);
  }

  /** A view into the buffer (no copy): the fold copies what it keeps (stampResourceVersion). */
  bytes(): Buffer {
    const start = this.span();
    return this.buf.subarray(start, this.pos);
  }

  boolean(): boolean {
    if (this.pos >= this.buf.length) this.fail();
    return this.buf[this.pos++] === 1;
  }

  /** A union's branch index, checked against its number of branches. */
  branch(n: number): number {
    const i = this.long();
    if (i < 0 || i >= n || !Number.isInteger(i)) this.fail();
    return i;
  }
}

type FieldReader = (r: AvroReader) => unknown;
type AvroSchema = string | AvroSchema[] | { type: string; symbols?: string[] };

/**
 * A reader for one field type of proto/event.avsc, built from the schema itself so the fold's
 * decoder cannot drift from what encodeEvent writes. Covers the types the schema uses; any other
 * fails at load time rather than misreading bytes.
 */
function readerOf(t: AvroSchema, field: string): FieldReader {
  if (Array.isArray(t)) {
    const branches = t.map((b) => readerOf(b, field));
    return (r) => branches[r.branch(branches.length)]!(r);
  }
  if (typeof t === 'object') {
    if (t.type === 'enum') {
      const symbols = t.symbols!;
      return (r) => {
        const s = symbols[r.long()];
        if (s === undefined) throw new Error(`malformed log event: unknown ${field}`);
        return s;
      };
    }
    return readerOf(t.type, field);
  }
  switch (t) {
    case 'null': return () => null;
    case 'boolean': return (r) => r.boolean();
    case 'long': return (r) => r.long();
    case 'string': return (r) => r.string();
    case 'bytes': return (r) => r.bytes();
    default: throw new Error(`proto/event.avsc: field ${field}: type ${JSON.stringify(t)} has no fold reader`);
  }
}

/**
 * The schema's fields up to the last one the fold reads, each with its reader; `keep` is false for
 * a field read only to get past it. The audit fields after that are never touched.
 */
const FOLD_PLAN: readonly { name: string; read: FieldReader; keep: boolean }[] = (() => {
  const fields = schema.fields as { name: string; type: AvroSchema }[];
  const wanted = new Set<string>(FOLD_FIELDS);
  const last = Math.max(...FOLD_FIELDS.map((f) => fields.findIndex((x) => x.name === f)));
  const missing = FOLD_FIELDS.filter((f) => !fields.some((x) => x.name === f));
  if (missing.length) throw new Error(`proto/event.avsc lacks the fold's fields ${missing.join(', ')}`);
  return fields.slice(0, last + 1).map((f) => ({ name: f.name, read: readerOf(f.type, f.name), keep: wanted.has(f.name) }));
})();

/**
 * The fold's fields of an encoded event, skipping the audit fields (verb … requestId) that
 * decodeEvent would also turn into strings and arrays. `object` is a view into `b` (decodeEvent
 * copies it): a replica or rebuild decodes every event of the log and copies the object once
 * anyway, when stamping its resourceVersion. Equal to decodeEvent's fields (event.test.ts).
 */
export function decodeFoldEvent(b: Buffer): FoldEvent {
  const r = new AvroReader(b);
  const out: Record<string, unknown> = {};
  for (const f of FOLD_PLAN) {
    const v = f.read(r);
    if (f.keep) out[f.name] = v;
  }
  return out as unknown as FoldEvent;
}
