import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { crc32c, verifyTable, verifyTables } from './verify-tables.ts';

const dirs: string[] = [];
test.after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A LevelDB with one table of ~2,000 entries (compressible and not), compacted to disk. */
async function table(): Promise<{ dir: string; file: string; bytes: Buffer }> {
  const dir = mkdtempSync(join(tmpdir(), 'verify-tables-'));
  dirs.push(dir);
  const db = new ClassicLevel<string, Buffer>(dir, { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  const batch = db.batch();
  for (let i = 0; i < 2000; i++) {
    const v = i % 2 ? Buffer.from(`{"n":${i},"pad":"${'x'.repeat(300)}"}`) : Buffer.from(Array.from({ length: 300 }, (_, k) => (i * 31 + k * 17) & 0xff));
    batch.put(`o/${String(i).padStart(5, '0')}`, v);
  }
  await batch.write();
  await db.compactRange('o/', 'o0');
  await db.close();
  const file = readdirSync(dir).filter((n) => n.endsWith('.ldb')).map((n) => join(dir, n))[0];
  return { dir, file, bytes: readFileSync(file) };
}

test('crc32c: the Castagnoli check value, also resumed', () => {
  assert.is(crc32c(Buffer.from('123456789')), 0xe3069283);
  const b = Buffer.from('123456789abcdefghij');
  assert.is(crc32c(b, 9, b.length, crc32c(b, 0, 9)), crc32c(b));
});

test('a table LevelDB wrote verifies; a changed byte, a truncation and zeros are found, with where', async () => {
  const { dir, file, bytes } = await table();
  assert.ok(verifyTable(bytes) > 3, 'every block is visited');
  const flipped = Buffer.from(bytes);
  flipped[Math.floor(bytes.length / 3)] ^= 0x01;
  assert.throws(() => verifyTable(flipped), /checksum mismatch in the data block at offset \d+/);
  assert.throws(() => verifyTable(bytes.subarray(0, bytes.length - 100)), /bad table magic number/);
  const zeroed = Buffer.from(bytes);
  zeroed.fill(0, 4096, 4096 + 8192);
  assert.throws(() => verifyTable(zeroed), /checksum mismatch/);
  writeFileSync(file, zeroed);
  const r = await verifyTables(dir);
  assert.is(r.tables, 1);
  assert.is(r.faults.length, 1);
  assert.is(r.faults[0].file, file);
});

test.run();
