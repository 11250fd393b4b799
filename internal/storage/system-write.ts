/**
 * Writes by the server itself (allocation records, its lease, an Endpoints removed with its
 * Service): no request, no field manager, written as a privileged system user. The caller says
 * what it writes and under which preconditions; the rest of the intent is filled here.
 */
import type { LogEvent } from './log/event.ts';
import type { ObjectKey } from './keys.ts';

/** One write by the server itself: what, where, under which preconditions, recorded as whom. */
export interface SystemWrite {
  op: 'CREATE' | 'UPDATE' | 'DELETE';
  key: ObjectKey;
  /** The object written; for a DELETE, the object as last read (JSON, or an object to serialize). */
  object: Buffer | object;
  /** Precondition: the object is still at this resourceVersion (default: none). */
  expectRv?: number | null;
  /** Precondition: the object still has this uid (default: none). */
  expectUid?: string | null;
  /** The object's uid (default ''). */
  uid?: string;
  /** What the server does, as the log records it ('allocate', 'lease', …). */
  verb: string;
  /** Who the log records as the writer (default system:apiserver). */
  user?: string;
}

/** The log intent of a system write. */
export function systemIntent(w: SystemWrite): Omit<LogEvent, 'id'> {
  return {
    op: w.op,
    group: w.key.group,
    resource: w.key.resource,
    namespace: w.key.namespace,
    name: w.key.name,
    expectRv: w.expectRv ?? null,
    expectUid: w.expectUid ?? null,
    requireActiveNamespace: false,
    uid: w.uid ?? '',
    deleting: false,
    object: Buffer.isBuffer(w.object) ? w.object : Buffer.from(JSON.stringify(w.object)),
    time: Date.now(),
    verb: w.verb,
    user: w.user ?? 'system:apiserver',
    groups: ['system:masters'],
    fieldManager: null,
    userAgent: null,
    requestId: null,
  };
}
