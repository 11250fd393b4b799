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

/** The object an event writes. */
export const eventKey = (e: LogEvent): ObjectKey => ({ group: e.group, resource: e.resource, namespace: e.namespace, name: e.name });

/** An event as read back from the log, with its position. */
export interface PositionedEvent {
  offset: number;
  event: LogEvent;
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
