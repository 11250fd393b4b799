/**
 * A batch of store operations packed into one ArrayBuffer, so it can be handed to a worker thread
 * by transfer (no structured clone of thousands of objects: one memcpy per key and value here,
 * none on the way over).
 *
 * Layout, little-endian: u32 count, then per operation
 *   u8 kind (1 put, 2 del, 3 put of the previous put's value) · u32 key bytes · key (UTF-8) ·
 *   [put: u32 value bytes · value]
 */
import type { BatchOp } from '../storage/mvcc/materializer.ts';

const PUT = 1;
const DEL = 2;
/** A put whose value is the previous put's (h/ then o/ of one version, snapshot-fold.ts's writeOut): u32 key bytes · key. */
const PUT_SAME = 3;

/** Packed operations: the first `length` bytes of `buffer`, an ArrayBuffer of their own (transferable). */
export interface PackedOps {
  buffer: ArrayBuffer;
  length: number;
}

/** Pack `ops` into a fresh ArrayBuffer. */
export function packOps(ops: readonly BatchOp[]): PackedOps {
  // Upper bound first (a UTF-16 code unit is at most 3 UTF-8 bytes), so one pass writes it all
  // without measuring each key twice; the buffer is uninitialized and cut to the bytes written.
  let bound = 4;
  for (const op of ops) bound += 9 + op.key.length * 3 + (op.type === 'put' ? op.value.length : 0);
  const buf = Buffer.allocUnsafeSlow(bound);
  buf.writeUInt32LE(ops.length, 0);
  let p = 4;
  let previous: Buffer | null = null;
  for (const op of ops) {
    const keyLen = writeKey(buf, op.key, p + 5);
    buf.writeUInt32LE(keyLen, p + 1);
    if (op.type === 'del') {
      buf[p] = DEL;
      p += 5 + keyLen;
    } else if (op.value === previous) {
      buf[p] = PUT_SAME;
      p += 5 + keyLen;
    } else {
      buf[p] = PUT;
      p += 5 + keyLen;
      buf.writeUInt32LE(op.value.length, p);
      // TypedArray#set: a memcpy without Buffer#copy's argument handling.
      buf.set(op.value, p + 4);
      p += 4 + op.value.length;
      previous = op.value;
    }
  }
  // allocUnsafeSlow: the ArrayBuffer is this Buffer's own (not Node's shared pool), so it can be
  // transferred; the unused tail (the bound's slack) goes along rather than being copied away.
  return { buffer: buf.buffer, length: p };
}

/**
 * Write `key` as UTF-8 at `at`, returning its byte length. Keys are short and nearly always ASCII
 * (storage/keys.ts: prefixes, names, hex offsets): a loop is cheaper than a native call per key.
 */
function writeKey(buf: Buffer, key: string, at: number): number {
  const n = key.length;
  for (let i = 0; i < n; i++) {
    const c = key.charCodeAt(i);
    if (c > 0x7f) return buf.write(key, at, 'utf8');
    buf[at + i] = c;
  }
  return n;
}

/**
 * Call `put`/`del` for each packed operation, in order. Values are views into `packed` (the caller
 * must copy them if it keeps them past the buffer's life; LevelDB's batch copies them).
 */
export function unpackOps(packed: PackedOps, put: (key: string, value: Buffer) => void, del: (key: string) => void): number {
  const buf = Buffer.from(packed.buffer, 0, packed.length);
  const count = buf.readUInt32LE(0);
  let p = 4;
  let previous: Buffer | null = null;
  for (let i = 0; i < count; i++) {
    const kind = buf[p];
    const keyLen = buf.readUInt32LE(p + 1);
    const key = buf.toString('utf8', p + 5, p + 5 + keyLen);
    p += 5 + keyLen;
    if (kind === PUT) {
      const valueLen = buf.readUInt32LE(p);
      previous = buf.subarray(p + 4, p + 4 + valueLen);
      put(key, previous);
      p += 4 + valueLen;
    } else if (kind === PUT_SAME && previous) {
      put(key, previous);
    } else if (kind === DEL) {
      del(key);
    } else {
      throw new Error(`packed operations: bad kind ${kind} at byte ${p - 5 - keyLen}`);
    }
  }
  if (p !== buf.length) throw new Error(`packed operations: ${buf.length - p} trailing bytes`);
  return count;
}
