/**
 * The serviceaccounts controller and the root-ca-cert-publisher on a real (embedded) storage, as
 * several replicas run them: two instances of each on one log race for every namespace, and the
 * outcome is one object of each per Active namespace, none in a Terminating one, and no write
 * failure beyond the expected lost races (which are retried quietly).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { AdmissionChain } from '../admission/chain.ts';
import { namespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { coreKinds } from '../registry/core/index.ts';
import { systemContext } from '../registry/generic/context.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { ServiceAccountsController } from './service-accounts.ts';
import { RootCaPublisher, ROOT_CA_CONFIGMAP } from './root-ca-publisher.ts';
import { NamespaceController } from './namespace.ts';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBtest\n-----END CERTIFICATE-----\n';
const FAST = { concurrency: 4, baseDelayMs: 5, maxDelayMs: 50 };
let dir: string;
let storage: Storage;
let registry: Registry;
let warnings: string[];
const ctx = systemContext('test');

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ns-defaults-'));
  storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false });
  const lifecycle = namespaceLifecycle(storage);
  registry = new Registry(coreKinds, storage, new AdmissionChain([lifecycle], [lifecycle]));
  warnings = [];
});
test.after.each(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const logger = () =>
  pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _enc, cb) {
        warnings.push(String(chunk));
        cb();
      },
    }),
  );

const names = async (resource: string, ns: string): Promise<string[]> =>
  (await registry.lookup('', 'v1', resource)!.reader.list(ns, {})).items.map((b) => parseObject(b).metadata.name!);

test('two replicas of each controller: exactly one default SA and one kube-root-ca.crt per namespace', async () => {
  const log = logger();
  const controllers = [
    new ServiceAccountsController(storage, registry, log, FAST),
    new ServiceAccountsController(storage, registry, log, FAST),
    new RootCaPublisher(storage, registry, CA, log, FAST),
    new RootCaPublisher(storage, registry, CA, log, FAST),
  ];
  for (const c of controllers) c.start();
  const nsStore = registry.lookup('', 'v1', 'namespaces')!.store;
  const all = Array.from({ length: 12 }, (_, i) => `ns-${i}`);
  await Promise.all(all.map((name) => nsStore.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
  for (const c of controllers) await c.idle();
  for (const ns of all) {
    assert.equal(await names('serviceaccounts', ns), ['default'], ns);
    assert.equal(await names('configmaps', ns), [ROOT_CA_CONFIGMAP], ns);
  }
  // A tampered ConfigMap is put right once, whichever replica gets there first.
  const cms = registry.lookup('', 'v1', 'configmaps')!;
  const cm = parseObject(await cms.store.getLatest('ns-0', ROOT_CA_CONFIGMAP));
  await cms.store.update(ctx, 'ns-0', ROOT_CA_CONFIGMAP, { ...cm, data: { 'ca.crt': 'x' } });
  for (const c of controllers) await c.idle();
  const fixed = parseObject(await cms.store.getLatest('ns-0', ROOT_CA_CONFIGMAP));
  assert.equal(fixed.data, { 'ca.crt': CA });
  assert.is(Number(fixed.metadata.resourceVersion) > Number(cm.metadata.resourceVersion), true);
  for (const c of controllers) c.stop();
  assert.equal(warnings, [], 'no failed syncs beyond quiet lost races');
});

test('a Terminating namespace gets nothing back: deleted objects stay deleted', async () => {
  const log = logger();
  const sa = new ServiceAccountsController(storage, registry, log, FAST);
  const pub = new RootCaPublisher(storage, registry, CA, log, FAST);
  sa.start();
  pub.start();
  const ns = registry.lookup('', 'v1', 'namespaces')!;
  await ns.store.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bye' } });
  await sa.idle();
  await pub.idle();
  assert.equal(await names('serviceaccounts', 'bye'), ['default']);
  // Terminating (the namespace keeps its finalizer: no namespace controller runs here), then its
  // content is deleted as the namespace controller would.
  await ns.store.delete(ctx, '', 'bye', {});
  await registry.lookup('', 'v1', 'serviceaccounts')!.store.delete(ctx, 'bye', 'default', {});
  await registry.lookup('', 'v1', 'configmaps')!.store.delete(ctx, 'bye', ROOT_CA_CONFIGMAP, {});
  await sa.idle();
  await pub.idle();
  assert.equal(await names('serviceaccounts', 'bye'), []);
  assert.equal(await names('configmaps', 'bye'), []);
  sa.stop();
  pub.stop();
  assert.equal(warnings, []);
});

test('namespace controller: content folded in the same batch as its namespace\'s deletion does not cut the grace period', async () => {
  const nsc = new NamespaceController(storage, registry, logger(), { graceMs: 1_000 });
  await nsc.start();
  await registry.lookup('', 'v1', 'namespaces')!.store.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const ns = registry.lookup('', 'v1', 'namespaces')!;
  const cms = registry.lookup('', 'v1', 'configmaps')!;
  for (let round = 0; round < 5; round++) {
    const name = `race-${round}`;
    await ns.store.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    // Sent together behind a burst of other writes, so the group commit folds them in one batch.
    const burst = Array.from({ length: 20 }, (_, i) => cms.store.create(ctx, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${i}` } }));
    await Promise.all([...burst, cms.store.create(ctx, name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }), ns.store.delete(ctx, '', name, {})]);
    await new Promise((r) => setTimeout(r, 300));
    // Still there, Terminating, with its content: the pass waits for the grace period.
    assert.ok(storage.entry({ group: '', resource: 'namespaces', namespace: '', name })?.deleting, `${name}: still Terminating`);
    assert.equal(await names('configmaps', name), ['c'], `${name}: content untouched during the grace period`);
  }
  nsc.stop();
  await nsc.idle();
});

test.run();
