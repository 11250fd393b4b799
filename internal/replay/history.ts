/**
 * The full history of one object, from the log: every event on its key with who/when/how, the
 * fold's verdict and a JSON Patch (RFC 6902) from the previous accepted version.
 *
 * Verdicts depend on earlier events of other objects too (the namespace's state, an earlier
 * create of the same name), so the whole log is folded — in memory, with VerdictFold — and only
 * the events on the key are kept.
 *
 * Diffs, per event on the key (prev = the last accepted version; none after an accepted DELETE):
 *   accepted CREATE/UPDATE   prev (or {}) → the stored version
 *   accepted DELETE          prev → the last state the delete carried (usually empty)
 *   rejected                 prev (or {}) → what the writer proposed, i.e. what it would have changed
 * metadata.resourceVersion is left out of diffs: it is the entry's own offset, shown already.
 *
 * Objects encrypted at rest (--encryption-provider-config) are decrypted with the same file; without
 * it their entries say `encrypted` and carry no diff, so the history never needs the keys.
 */
import jsonpatch, { type Operation } from 'fast-json-patch';
import type { Op } from '../storage/log/event.ts';
import { stampResourceVersion, type RejectReason } from '../storage/mvcc/fold.ts';
import { isTransformed } from '../storage/encryption/stamp.ts';
import type { AtRest } from '../storage/encryption/at-rest.ts';
import type { ObjectKey } from '../storage/keys.ts';
import { VerdictFold } from './verdicts.ts';
import type { RawPositionedEvent } from './open-log.ts';

export interface HistoryEntry {
  offset: number;
  /** Writer's clock, ms since the epoch. */
  time: number;
  op: Exclude<Op, 'GENESIS'>;
  verb: string;
  user: string;
  groups: string[];
  fieldManager: string | null;
  userAgent: string | null;
  requestId: string | null;
  uid: string;
  /** The writer's precondition (UPDATE/DELETE). */
  expectRv: number | null;
  accepted: boolean;
  reason?: RejectReason;
  /** Rejections: the object's resourceVersion when the event was folded (null: absent). */
  currentRv?: number | null;
  diff: Operation[];
  /** The object is encrypted at rest and no provider config was given: no diff. */
  encrypted?: boolean;
}

export interface ObjectHistory {
  key: ObjectKey;
  entries: HistoryEntry[];
  /** Events folded to decide the verdicts (the whole log). */
  eventsScanned: number;
  /** Last offset of the log, -1 when empty. */
  lastOffset: number;
}

type Json = Record<string, unknown>;

const sameKey = (a: ObjectKey, e: ObjectKey): boolean =>
  a.name === e.name && a.namespace === e.namespace && a.resource === e.resource && a.group === e.group;

function parseObject(bytes: Buffer | null): Json | null {
  if (!bytes) return null;
  try {
    const v: unknown = JSON.parse(bytes.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/** A shallow copy without metadata.resourceVersion (see the module comment). */
function withoutRv(obj: Json): Json {
  const meta = obj.metadata;
  if (!meta || typeof meta !== 'object' || !('resourceVersion' in meta)) return obj;
  const { resourceVersion: _rv, ...rest } = meta as Json;
  return { ...obj, metadata: rest };
}

/** JSON Patch turning `prev` (null: nothing yet) into `next`, resourceVersion aside. Pure. */
export function diffVersions(prev: Json | null, next: Json | null): Operation[] {
  if (!next) return [];
  return jsonpatch.compare(prev ? withoutRv(prev) : {}, withoutRv(next));
}

/** Fold all of `events` and collect the history of `key`. Reads the iterable to its end. */
export async function objectHistory(events: AsyncIterable<RawPositionedEvent>, key: ObjectKey, atRest?: AtRest): Promise<ObjectHistory> {
  const verdicts = new VerdictFold();
  const out: ObjectHistory = { key, entries: [], eventsScanned: 0, lastOffset: -1 };
  let prev: Json | null = null;
  for await (const pe of events) {
    out.eventsScanned++;
    out.lastOffset = pe.offset;
    const verdict = verdicts.apply(pe);
    const e = pe.event;
    if (!verdict || e.op === 'GENESIS' || !sameKey(key, e)) continue;
    const entry: HistoryEntry = {
      offset: pe.offset, time: e.time, op: e.op, verb: e.verb, user: e.user, groups: e.groups, fieldManager: e.fieldManager,
      userAgent: e.userAgent, requestId: e.requestId, uid: e.uid, expectRv: e.expectRv, accepted: verdict.accepted, diff: [],
    };
    // Encrypted at rest: readable with the provider config, else marked (and never shown raw).
    const readable = (b: Buffer | null, stamp: boolean): Buffer | null => {
      if (!b || !isTransformed(b)) return b;
      if (!atRest) {
        entry.encrypted = true;
        return null;
      }
      return atRest.decode(key, stamp ? stampResourceVersion(b, pe.offset) ?? b : b);
    };
    if (verdict.accepted) {
      const stored = parseObject(readable(verdict.object, false));
      entry.diff = diffVersions(prev, stored);
      prev = verdict.op === 'DELETE' ? null : stored;
    } else {
      entry.reason = verdict.reason;
      entry.currentRv = verdict.currentRv;
      entry.diff = diffVersions(prev, parseObject(readable(e.object, true)));
    }
    out.entries.push(entry);
  }
  return out;
}

/** Why a rejection happened, in words (the reason code plus the numbers behind it). */
export function describeRejection(e: HistoryEntry): string {
  switch (e.reason) {
    case 'Conflict':
      return `Conflict: written against resourceVersion ${e.expectRv}, the object was at ${e.currentRv}`;
    case 'AlreadyExists':
      return `AlreadyExists: the object already existed (resourceVersion ${e.currentRv})`;
    case 'NotFound':
      return 'NotFound: the object did not exist';
    case 'UidMismatch':
      return 'UidMismatch: the object had been deleted and recreated with another uid';
    case 'NamespaceNotFound':
      return 'NamespaceNotFound: its namespace did not exist';
    case 'NamespaceTerminating':
      return 'NamespaceTerminating: its namespace was being deleted';
    default:
      return `${e.reason}`;
  }
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString();

/** `<resource>[.<group>] <ns>/<name>` as a human reads it. */
export function formatKey(k: ObjectKey): string {
  return `${k.resource}${k.group ? `.${k.group}` : ''} ${k.namespace ? `${k.namespace}/` : ''}${k.name}`;
}

/** The text form of a history: one block per event, its patch ops indented below it. */
export function formatHistory(h: ObjectHistory): string {
  const lines: string[] = [];
  const span = h.lastOffset < 0 ? 'an empty log' : `offsets 0..${h.lastOffset}`;
  lines.push(`history of ${formatKey(h.key)}: ${h.entries.length} event(s) in ${span}`);
  for (const e of h.entries) {
    const result = e.accepted ? 'accepted' : `REJECTED ${describeRejection(e)}`;
    lines.push('');
    lines.push(`@${e.offset}  ${rfc3339(e.time)}  ${e.op} (verb ${e.verb || '?'})  ${result}`);
    const who = [`user=${e.user || '?'}`];
    if (e.groups.length) who.push(`groups=${e.groups.join(',')}`);
    who.push(`fieldManager=${e.fieldManager ?? '-'}`, `userAgent=${e.userAgent ?? '-'}`);
    if (e.requestId) who.push(`requestId=${e.requestId}`);
    lines.push(`    ${who.join('  ')}`);
    if (e.encrypted) lines.push('    (encrypted at rest: give --encryption-provider-config to see the change)');
    if (!e.accepted && e.diff.length) lines.push('    would have changed:');
    for (const op of e.diff) lines.push(`    ${JSON.stringify(op)}`);
  }
  return `${lines.join('\n')}\n`;
}
