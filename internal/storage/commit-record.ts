/**
 * One commit of the leader's fold as serving threads follow it (`--workers N`, storage/follower.ts),
 * encoded once into one SharedArrayBuffer that every thread reads: the leader pays one copy
 * whatever the number of threads, each thread's message carries only a reference to the memory
 * (postMessage's structured clone of the change and index-entry arrays cost the leader ~30 µs per
 * change per thread, and each thread as much again to rebuild them).
 *
 * Layout (little endian; str = u32 byte length + UTF-8; bytes = u32 length + raw):
 *
 *   u32 changes  u32 entries
 *   changes × { f64 offset  f64 time  u8 type (0 ADDED, 1 MODIFIED, 2 DELETED)  u8 has prev
 *               str group  str resource  str namespace  str name  bytes object  [bytes prev] }
 *   entries × { str path  u8 present  [str i/ value "rv uid deleting"] }
 *
 * Decoding copies no object: a change's `object` and `prev` are views of the shared memory, which
 * stays alive while anything holds one (the watch ring, a watcher's queue); the current-object
 * cache copies what it keeps (own-buffer.ts).
 */
import type { Change, ChangeType, FollowedCommit } from './mvcc/materializer.ts';

const TYPES: readonly ChangeType[] = ['ADDED', 'MODIFIED', 'DELETED'];
const TYPE_CODE: Record<ChangeType, number> = { ADDED: 0, MODIFIED: 1, DELETED: 2 };
/** Fixed bytes of one change: offset, time, type, has prev, six lengths (4 strings, object, prev). */
const CHANGE_FIXED = 8 + 8 + 1 + 1 + 6 * 4;
/** Fixed bytes of one entry: path length, present, value length. */
const ENTRY_FIXED = 4 + 1 + 4;
/** UTF-8 takes at most 3 bytes per UTF-16 code unit. */
const strBound = (s: string): number => 3 * s.length;

const indexValue = (e: NonNullable<FollowedCommit['entries'][number][1]>): string =>
  typeof e === 'string' ? e : `${e.rv} ${e.uid} ${e.deleting ? 1 : 0}`;

/**
 * The commit's changes and key index entries in one SharedArrayBuffer (sized by an upper bound of
 * the text's UTF-8; the few spare bytes at the end are never read), or null when it has neither.
 */
export function encodeCommit(changes: readonly Change[], entries: FollowedCommit['entries']): SharedArrayBuffer | null {
  if (!changes.length && !entries.length) return null;
  let bound = 8;
  for (const c of changes) {
    const k = c.key;
    bound += CHANGE_FIXED + strBound(k.group) + strBound(k.resource) + strBound(k.namespace) + strBound(k.name) + c.object.length + (c.prev?.length ?? 0);
  }
  const values: (string | null)[] = [];
  for (const [path, e] of entries) {
    const v = e ? indexValue(e) : null;
    values.push(v);
    bound += ENTRY_FIXED + strBound(path) + (v ? v.length : 0);
  }
  const sab = new SharedArrayBuffer(bound);
  const b = Buffer.from(sab);
  let at = b.writeUInt32LE(changes.length, 0);
  at = b.writeUInt32LE(entries.length, at);
  const str = (s: string): void => {
    const n = b.write(s, at + 4, 'utf8');
    b.writeUInt32LE(n, at);
    at += 4 + n;
  };
  const bytes = (v: Buffer): void => {
    at = b.writeUInt32LE(v.length, at);
    at += v.copy(b, at);
  };
  for (const c of changes) {
    at = b.writeDoubleLE(c.offset, at);
    at = b.writeDoubleLE(c.time, at);
    at = b.writeUInt8(TYPE_CODE[c.type], at);
    at = b.writeUInt8(c.prev ? 1 : 0, at);
    str(c.key.group);
    str(c.key.resource);
    str(c.key.namespace);
    str(c.key.name);
    bytes(c.object);
    if (c.prev) bytes(c.prev);
  }
  for (let i = 0; i < entries.length; i++) {
    str(entries[i]![0]);
    const v = values[i];
    at = b.writeUInt8(v === null ? 0 : 1, at);
    if (v !== null) str(v);
  }
  return sab;
}

/** The commit encodeCommit wrote (objects are views of `sab`; entries' values stay text, parsed when read). */
export function decodeCommit(sab: SharedArrayBuffer | null): Pick<FollowedCommit, 'changes' | 'entries'> {
  if (!sab) return { changes: [], entries: [] };
  const b = Buffer.from(sab);
  let at = 8;
  const str = (): string => {
    const n = b.readUInt32LE(at);
    at += 4 + n;
    return b.toString('utf8', at - n, at);
  };
  const bytes = (): Buffer => {
    const n = b.readUInt32LE(at);
    at += 4 + n;
    return b.subarray(at - n, at);
  };
  const changes: Change[] = new Array(b.readUInt32LE(0));
  for (let i = 0; i < changes.length; i++) {
    const offset = b.readDoubleLE(at);
    const time = b.readDoubleLE(at + 8);
    const type = TYPES[b[at + 16]!];
    if (type === undefined) throw new Error(`commit record: change type ${b[at + 16]} at byte ${at + 16}`);
    const hasPrev = b[at + 17] === 1;
    at += 18;
    const key = { group: str(), resource: str(), namespace: str(), name: str() };
    const object = bytes();
    const change: Change = { offset, type, key, object, time };
    if (hasPrev) change.prev = bytes();
    changes[i] = change;
  }
  const entries: FollowedCommit['entries'] = new Array(b.readUInt32LE(4));
  for (let i = 0; i < entries.length; i++) {
    const path = str();
    const present = b[at++] === 1;
    entries[i] = [path, present ? str() : null];
  }
  return { changes, entries };
}
