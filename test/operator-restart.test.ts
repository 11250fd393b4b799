/**
 * The controller-runtime operator (test/go/operator, see test/operator.test.ts) across a restart of
 * this server: the server process is stopped with SIGTERM and started again on the same port and
 * data while the operator runs (its lease, 20 s, outlasts the restart). Its informers' watches
 * break and resume, the Widget kind is served again from the stored CRD, and the operator goes on
 * reconciling as the same leader: Widgets created, updated and deleted after the restart are
 * handled, the one it reconciled before is untouched. This server only (the reference is not
 * restarted by the suites).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { spawnServer, clientFor, tempDir, type ChildServer, type Client } from './harness.ts';
import { ok } from './assertions.ts';
import { Operator, Widgets, buildOperator, reconciled } from './operator-process.ts';

const NS = 'operator-restart';
const LEASE_SECONDS = 20;
let dir: string;
let srv: ChildServer | undefined;
let client: Client | undefined;
let op: Operator | undefined;

const serve = async (port = 0): Promise<Widgets> => {
  srv = await spawnServer(dir, port);
  client = clientFor(srv.url, join(dir, 'pki'));
  return new Widgets(client, NS, () => `${op?.describe()}\nserver log: ${srv?.logTail().slice(-3000)}`);
};
const stopServer = async (): Promise<void> => {
  await client?.close();
  await srv?.kill('SIGTERM');
};

test.before(async () => {
  dir = tempDir('operator-restart-');
  const bin = await buildOperator();
  const w8s = await serve();
  await ok(client!.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  op = new Operator(bin, join(dir, 'kubeconfig'), NS, 'operator-r', LEASE_SECONDS);
  await op.waitFor('leading', (e) => e.event === 'leading', 60_000);
  await w8s.create('before', { message: 'before the restart' });
});
test.after(async () => {
  await op?.kill();
  await stopServer();
  rmSync(dir, { recursive: true, force: true });
});

test('the operator rides out a restart of the server: watches resume, the kind is served again, the leader keeps leading', async () => {
  const port = srv!.port;
  const w0 = new Widgets(client!, NS, () => '');
  const before = await w0.get(w0.path('before'));
  await op!.waitFor('reconciled before', reconciled('before', 1), 5000);
  await stopServer();
  const stoppedAt = Date.now();
  const w8s = await serve(port);
  console.log(`server back after ${Date.now() - stoppedAt} ms`);

  // Created after the restart: seen through the resumed Widget watch.
  const { cm } = await w8s.create('after', { message: 'after the restart', size: 4 });
  assert.equal(cm.data, { message: 'after the restart', color: 'blue', size: '4' });
  // Updated and deleted after the restart.
  await w8s.patch('before', { spec: { message: 'updated after the restart' } });
  await w8s.ready('before', 2);
  assert.is((await w8s.get(w8s.configMap('before'))).data.message, 'updated after the restart');
  await w8s.delete('after');
  await op!.waitFor('finalized after', (e) => e.event === 'finalized' && e.widget === 'after', 5000);

  // Still the one leader, never restarted, never failed.
  assert.is(op!.proc.exitCode, null, op!.describe());
  assert.is(op!.count((e) => e.event === 'leading'), 1, op!.describe());
  assert.not.ok(op!.events.some((e) => e.event === 'error'), op!.describe());
  const lease = await w8s.get(w8s.lease());
  assert.is(lease.spec.leaseTransitions, 0, JSON.stringify(lease.spec));
  assert.ok(Date.parse(lease.spec.renewTime) > stoppedAt - 1000, `renewed after the restart: ${JSON.stringify(lease.spec)}`);
  assert.is((await w8s.get(w8s.path('before'))).metadata.uid, before.metadata.uid);
  assert.is(await op!.stop(), 0, op!.describe());
});

test.run();
