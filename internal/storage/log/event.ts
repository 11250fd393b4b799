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
export type FoldEvent = Pick<LogEvent, 'op' | 'id' | 'group' | 'resource' | 'namespace' | 'name' | 'expectRv' | 'expectUid' | 'requireActiveNamespace' | 'uid' | 'deleting' | 'object' | 'time'>;

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

const OPS: readonly Op[] = ['GENESIS', 'CREATE', 'UPDATE', 'DELETE'];

/**
 * Reads the Avro binary encoding of proto/event.avsc field by field (Avro spec: zig-zag varint
 * longs, length-prefixed strings and bytes, unions as a branch index, booleans as one byte).
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

  /** A ["null", T] union: true when the value is there. */
  present(): boolean {
    const branch = this.long();
    if (branch !== 0 && branch !== 1) this.fail();
    return branch === 1;
  }
}

/**
 * The fold's fields of an encoded event, skipping the audit fields (verb … requestId) that
 * decodeEvent would also turn into strings and arrays. `object` is a view into `b` (decodeEvent
 * copies it): a replica or rebuild decodes every event of the log and copies the object once
 * anyway, when stamping its resourceVersion. Equal to decodeEvent's fields (event.test.ts).
 */
export function decodeFoldEvent(b: Buffer): FoldEvent {
  const r = new AvroReader(b);
  const op = OPS[r.long()];
  if (op === undefined) throw new Error('malformed log event: unknown op');
  const id = r.string();
  const group = r.string();
  const resource = r.string();
  const namespace = r.string();
  const name = r.string();
  const expectRv = r.present() ? r.long() : null;
  const expectUid = r.present() ? r.string() : null;
  const requireActiveNamespace = r.boolean();
  const uid = r.string();
  const deleting = r.boolean();
  const object = r.present() ? r.bytes() : null;
  const time = r.long();
  return { op, id, group, resource, namespace, name, expectRv, expectUid, requireActiveNamespace, uid, deleting, object, time };
}
