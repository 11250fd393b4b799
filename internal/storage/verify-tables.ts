/**
 * Checksums of LevelDB's table files, verified by this process: classic-level opens LevelDB with
 * `paranoid_checks` off and reads with `verify_checksums` off, and exposes neither option. Reads
 * then detect only what breaks a block's parsing (a Snappy block that does not decompress answers
 * `Corruption: …`); a block of zeros, for one, parses as an empty block, and its keys silently
 * vanish from lists. So the stores are verified here, block by block, as LevelDB would with
 * verify_checksums: at open (every table) and when a read fails at run time (to name the file).
 *
 * Table format (leveldb table_format.md, 1.20 as vendored by classic-level):
 *
 *   [data block 1] … [data block N] [filter block] [metaindex block] [index block] [footer 48 B]
 *   block on disk:  contents (size bytes) | type (1 B: 0 raw, 1 Snappy) | masked crc32c (4 B LE)
 *                   of contents + type
 *   footer:         metaindex handle, index handle (varint64 offset, varint64 size each),
 *                   zero padding to 40 B, magic 0xdb4775248b80fb57 (8 B LE)
 *   index/metaindex block (after Snappy): prefix-compressed entries (shared, non-shared, value
 *                   length: varint32 each; key delta; value = the block handle), then the
 *                   restart array (uint32 LE each) and its length (uint32 LE)
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** One damaged table. */
export interface TableFault {
  file: string;
  problem: string;
}

const FOOTER_BYTES = 48;
const TRAILER_BYTES = 5;
const MAGIC_LO = 0x8b80fb57;
const MAGIC_HI = 0xdb477524;
const MASK_DELTA = 0xa282ead8;

/** CRC-32C (Castagnoli) tables for slicing by 8. */
const CRC_TABLES: Uint32Array[] = (() => {
  const t: Uint32Array[] = [];
  const t0 = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t0[i] = c >>> 0;
  }
  t.push(t0);
  for (let n = 1; n < 8; n++) {
    const tn = new Uint32Array(256);
    for (let i = 0; i < 256; i++) tn[i] = (t[n - 1][i] >>> 8) ^ t0[t[n - 1][i] & 0xff];
    t.push(tn);
  }
  return t;
})();

/** CRC-32C of `b[from, to)` continuing `crc` (0 to start). */
export function crc32c(b: Uint8Array, from = 0, to = b.length, crc = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = CRC_TABLES;
  let c = ~crc >>> 0;
  let i = from;
  for (; i + 8 <= to; i += 8) {
    const lo = (c ^ (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24))) >>> 0;
    c = t7[lo & 0xff] ^ t6[(lo >>> 8) & 0xff] ^ t5[(lo >>> 16) & 0xff] ^ t4[lo >>> 24] ^
      t3[b[i + 4]] ^ t2[b[i + 5]] ^ t1[b[i + 6]] ^ t0[b[i + 7]];
  }
  for (; i < to; i++) c = t0[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** LevelDB's masked CRC (util/crc32c.h Mask). */
const mask = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;

class Corrupt extends Error {}

/** A varint at `at` of `b`: [value, next position]. Values up to 2^53 (block offsets/sizes). */
function varint(b: Uint8Array, at: number, end: number): [number, number] {
  let v = 0;
  let scale = 1;
  for (let i = at; i < end && i < at + 10; i++) {
    v += (b[i] & 0x7f) * scale;
    if (!(b[i] & 0x80)) return [v, i + 1];
    scale *= 128;
  }
  throw new Corrupt(`bad varint at ${at}`);
}

/** Snappy raw-format decompression (what LevelDB writes for type-1 blocks). */
export function snappyUncompress(src: Uint8Array): Buffer {
  const [length, start] = varint(src, 0, src.length);
  const out = Buffer.allocUnsafe(length);
  let o = 0;
  let i = start;
  while (i < src.length) {
    const tag = src[i++];
    if ((tag & 3) === 0) {
      let len = (tag >>> 2) + 1;
      if (len > 60) {
        const bytes = len - 60;
        if (i + bytes > src.length) throw new Corrupt('snappy: literal length past the end');
        len = 1;
        for (let k = 0; k < bytes; k++) len += src[i + k] * 2 ** (8 * k);
        i += bytes;
      }
      if (i + len > src.length || o + len > length) throw new Corrupt('snappy: literal past the end');
      out.set(src.subarray(i, i + len), o);
      i += len;
      o += len;
      continue;
    }
    let len: number;
    let offset: number;
    if ((tag & 3) === 1) {
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[i++];
    } else if ((tag & 3) === 2) {
      len = (tag >>> 2) + 1;
      offset = src[i] | (src[i + 1] << 8);
      i += 2;
    } else {
      len = (tag >>> 2) + 1;
      offset = (src[i] | (src[i + 1] << 8) | (src[i + 2] << 16) | (src[i + 3] << 24)) >>> 0;
      i += 4;
    }
    if (i > src.length || offset === 0 || offset > o || o + len > length) throw new Corrupt('snappy: bad copy');
    for (let k = 0; k < len; k++, o++) out[o] = out[o - offset];
  }
  if (o !== length) throw new Corrupt('snappy: short output');
  return out;
}

/** Verify the checksum of the block at (offset, size) of `file`. */
function checkBlock(file: Buffer, offset: number, size: number, what: string): void {
  const end = offset + size;
  if (end + TRAILER_BYTES > file.length - FOOTER_BYTES) {
    throw new Corrupt(`${what} at ${offset} (+${size}) runs past the end of the file (${file.length} bytes)`);
  }
  const type = file[end];
  const want = file.readUInt32LE(end + 1);
  if (mask(crc32c(file, offset, end + 1)) !== want) throw new Corrupt(`checksum mismatch in the ${what} at offset ${offset}`);
  if (type !== 0 && type !== 1) throw new Corrupt(`${what} at offset ${offset} has unknown compression type ${type}`);
}

/** The block at (offset, size) of `file`, checksum verified, uncompressed (index blocks: to walk them). */
function block(file: Buffer, offset: number, size: number, what: string): Buffer {
  checkBlock(file, offset, size, what);
  const end = offset + size;
  const type = file[end];
  if (type === 0) return file.subarray(offset, end);
  return snappyUncompress(file.subarray(offset, end));
}

/** The block handles an index or metaindex block lists. */
function handles(b: Buffer, what: string): Array<[number, number]> {
  if (b.length < 4) throw new Corrupt(`${what} too short`);
  const restarts = b.readUInt32LE(b.length - 4);
  const limit = b.length - 4 - 4 * restarts;
  if (limit < 0) throw new Corrupt(`${what}: bad restart count`);
  const out: Array<[number, number]> = [];
  let i = 0;
  while (i < limit) {
    let shared: number, unshared: number, valueLength: number;
    [shared, i] = varint(b, i, limit);
    [unshared, i] = varint(b, i, limit);
    [valueLength, i] = varint(b, i, limit);
    void shared;
    i += unshared;
    const vEnd = i + valueLength;
    if (vEnd > limit) throw new Corrupt(`${what}: entry past the end`);
    let offset: number, size: number;
    [offset, i] = varint(b, i, vEnd);
    [size, i] = varint(b, i, vEnd);
    out.push([offset, size]);
    i = vEnd;
  }
  return out;
}

/** The footer's metaindex and index block handles (magic checked). */
function footer(file: Buffer): { metaOffset: number; metaSize: number; indexOffset: number; indexSize: number } {
  if (file.length < FOOTER_BYTES) throw new Corrupt(`file too short for a table (${file.length} bytes)`);
  const f = file.length - FOOTER_BYTES;
  if (file.readUInt32LE(f + 40) !== MAGIC_LO || file.readUInt32LE(f + 44) !== MAGIC_HI) throw new Corrupt('bad table magic number (truncated or overwritten)');
  let at = f;
  let metaOffset: number, metaSize: number, indexOffset: number, indexSize: number;
  [metaOffset, at] = varint(file, at, f + 40);
  [metaSize, at] = varint(file, at, f + 40);
  [indexOffset, at] = varint(file, at, f + 40);
  [indexSize, at] = varint(file, at, f + 40);
  return { metaOffset, metaSize, indexOffset, indexSize };
}

/** The data blocks of a table's bytes, as [offset, size] (size without the 5-byte trailer). */
export function dataBlocks(file: Buffer): Array<[number, number]> {
  const { indexOffset, indexSize } = footer(file);
  return handles(block(file, indexOffset, indexSize, 'index block'), 'index block');
}

/** Verify every block of one table file's bytes; throws a description of the first damage. */
export function verifyTable(file: Buffer): number {
  const { metaOffset, metaSize, indexOffset, indexSize } = footer(file);
  let blocks = 2;
  for (const [o, s] of handles(block(file, metaOffset, metaSize, 'metaindex block'), 'metaindex block')) {
    checkBlock(file, o, s, 'filter block');
    blocks++;
  }
  for (const [o, s] of handles(block(file, indexOffset, indexSize, 'index block'), 'index block')) {
    checkBlock(file, o, s, 'data block');
    blocks++;
  }
  return blocks;
}

/** Table files of a LevelDB directory (`.ldb`, and `.sst` of older LevelDBs). */
export async function tableFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [] as string[];
    throw e;
  });
  return names.filter((n) => n.endsWith('.ldb') || n.endsWith('.sst')).sort();
}

export interface VerifyResult {
  tables: number;
  bytes: number;
  faults: TableFault[];
}

/**
 * Verify every table of the LevelDB at `dir`. A table that disappears while it is read (a
 * compaction removed it) is skipped; `names` limits the check to those files.
 */
export async function verifyTables(dir: string, names?: string[]): Promise<VerifyResult> {
  const out: VerifyResult = { tables: 0, bytes: 0, faults: [] };
  for (const name of names ?? (await tableFiles(dir))) {
    const path = join(dir, name);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      out.faults.push({ file: path, problem: (e as Error).message });
      continue;
    }
    out.tables++;
    out.bytes += bytes.length;
    try {
      verifyTable(bytes);
    } catch (e) {
      if (!(e instanceof Corrupt) && !(e instanceof RangeError)) throw e;
      out.faults.push({ file: path, problem: e.message });
    }
  }
  return out;
}

/** Of `faults`, those whose file is still there (LevelDB deletes obsolete tables at open). */
export async function stillPresent(faults: TableFault[]): Promise<TableFault[]> {
  const out: TableFault[] = [];
  for (const f of faults) if (await stat(f.file).then(() => true, () => false)) out.push(f);
  return out;
}

/** One line naming every damaged file. */
export function describeFaults(faults: TableFault[]): string {
  return faults.map((f) => `${f.file}: ${f.problem}`).join('; ');
}
