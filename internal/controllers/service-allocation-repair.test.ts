import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { coreKinds } from '../registry/core/index.ts';
import { systemContext } from '../registry/generic/context.ts';
import { IPAllocator, PortAllocator } from '../registry/core/service-alloc.ts';
import { LEAK_PASSES, ServiceAllocationRepair } from './service-allocation-repair.ts';

let dir: string;
let storage: Storage;
let registry: Registry;
const log = pino({ level: 'silent' });
const ctx = systemContext('test');

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'repair-'));
  storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false });
  registry = new Registry(coreKinds, storage, new AdmissionChain([], []));
  await registry.lookup('', 'v1', 'namespaces')!.store.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
test.after.each(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a value no Service holds is released after LEAK_PASSES passes; held values never are', async () => {
  const svc = await registry.lookup('', 'v1', 'services')!.store.create(ctx, 'default', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'held' },
    spec: { type: 'NodePort', ports: [{ port: 80 }] },
  });
  const held = JSON.parse(svc.body.toString()).spec;
  // A claim whose Service never got written (the claiming process died).
  const ips = new IPAllocator(storage, '10.0.0.0/24');
  const ports = new PortAllocator(storage, '30000-32767');
  const owner = { namespace: 'default', name: 'lost', uid: 'u-lost' };
  const leakedIP = await ips.allocateNext(owner, false);
  const leakedPort = await ports.allocateNext(owner, false);

  const repair = new ServiceAllocationRepair(storage, log);
  for (let i = 1; i < LEAK_PASSES; i++) assert.equal(await repair.pass(), [], `pass ${i} only suspects`);
  assert.equal((await repair.pass()).sort(), [`serviceips/${leakedIP}`, `servicenodeports/${leakedPort}`].sort());
  // Free again; the Service's own values stay claimed.
  await ips.allocate(leakedIP, owner, false);
  const again = await ips.allocate(held.clusterIP, owner, false).then(() => 'claimed', (e: Error) => e.message);
  assert.is(again, 'provided IP is already allocated');
  for (let i = 0; i < LEAK_PASSES + 1; i++) await repair.pass();
  const still = await ports.allocate(held.ports[0].nodePort, owner, false).then(() => 'claimed', (e: Error) => e.message);
  assert.is(still, 'provided port is already allocated');
});

test('a record re-claimed between passes starts over', async () => {
  const ips = new IPAllocator(storage, '10.0.0.0/24');
  const owner = { namespace: 'default', name: 'x', uid: 'u1' };
  await ips.allocate('10.0.0.9', owner, false);
  const repair = new ServiceAllocationRepair(storage, log);
  for (let i = 1; i < LEAK_PASSES; i++) await repair.pass();
  // Released and claimed again by someone else: a new version, so a new suspect.
  await ips.release('10.0.0.9', 'u1');
  await ips.allocate('10.0.0.9', { ...owner, uid: 'u2' }, false);
  assert.equal(await repair.pass(), []);
});

test.run();
