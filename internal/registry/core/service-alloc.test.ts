import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from '../../storage/storage.ts';
import { AllocationError, IPAllocator, PortAllocator } from './service-alloc.ts';

const owner = { namespace: 'ns', name: 's', uid: 'u' };
let dir: string;
let storage: Storage;

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'alloc-'));
  storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false });
});
test.after.each(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const code = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    if (e instanceof AllocationError) return `${e.code}: ${e.message}`;
    throw e;
  }
};

test('IPv4 range: network and broadcast addresses are never handed out', async () => {
  const a = new IPAllocator(storage, '10.96.0.0/29');
  assert.is(a.nth(0), '10.96.0.1');
  const got = await Promise.all(Array.from({ length: 6 }, () => a.allocateNext(owner, false)));
  assert.equal([...got].sort(), ['10.96.0.1', '10.96.0.2', '10.96.0.3', '10.96.0.4', '10.96.0.5', '10.96.0.6']);
  assert.is(await code(a.allocateNext(owner, false)), 'full: range is full');
  assert.is(await code(a.allocate('10.96.0.3', owner, false)), 'allocated: provided IP is already allocated');
  for (const ip of ['10.96.0.0', '10.96.0.7', '10.97.0.1', '::1']) {
    assert.ok((await code(a.allocate(ip, owner, false))).startsWith(`notInRange: the provided IP (${ip}) is not in the valid range. The range of valid IPs is 10.96.0.0/29`), ip);
  }
  await a.release('10.96.0.3', 'someone-else');
  assert.is(await code(a.allocate('10.96.0.3', owner, false)), 'allocated: provided IP is already allocated', 'only the owner releases');
  await a.release('10.96.0.3', owner.uid);
  await a.release('10.96.0.3', owner.uid); // idempotent
  assert.is(await a.allocateNext(owner, false), '10.96.0.3');
});

test('dry-run claims nothing; a specific dry-run IP is only range-checked (as kube)', async () => {
  const a = new IPAllocator(storage, '10.0.0.0/30'); // .1 and .2
  await a.allocate('10.0.0.1', owner, false);
  assert.is(await code(a.allocate('10.0.0.1', owner, true)), 'ok');
  assert.is(await a.allocateNext(owner, true), '10.0.0.2');
  assert.is(await a.allocateNext(owner, true), '10.0.0.2', 'dry run left .2 free');
});

test('IPv6 range and host bits in the flag', async () => {
  const a = new IPAllocator(storage, 'fd00::5/126');
  assert.is(a.cidr.text, 'fd00::4/126');
  assert.is(a.family, 'IPv6');
  const got = [await a.allocateNext(owner, false), await a.allocateNext(owner, false), await a.allocateNext(owner, false)].sort();
  assert.equal(got, ['fd00::5', 'fd00::6', 'fd00::7']);
});

test('node ports: range syntax, claims, release', async () => {
  const p = new PortAllocator(storage, '30000-30001');
  assert.is(p.text, '30000-30001');
  assert.is(new PortAllocator(storage, '30000+10').text, '30000-30009');
  await p.allocate(30001, owner, false);
  assert.is(await code(p.allocate(30001, owner, false)), 'allocated: provided port is already allocated');
  assert.is(await code(p.allocate(80, owner, false)), 'notInRange: provided port is not in the valid range. The range of valid ports is 30000-30001');
  assert.is(await p.allocateNext(owner, false), 30000);
  assert.is(await code(p.allocateNext(owner, false)), 'full: range is full');
  await p.release(30000, owner.uid);
  assert.is(await p.allocateNext(owner, false), 30000);
  assert.throws(() => new PortAllocator(storage, '40000-30000'), /not a valid range/);
  assert.throws(() => new IPAllocator(storage, '10.0.0.0'), /not a CIDR/);
});

test('racing claims of one value: exactly one wins (the fold decides)', async () => {
  const a = new IPAllocator(storage, '10.0.0.0/24');
  const rs = await Promise.all(Array.from({ length: 10 }, () => code(a.allocate('10.0.0.9', owner, false))));
  assert.is(rs.filter((r) => r === 'ok').length, 1, rs.join(' | '));
});

test.run();
