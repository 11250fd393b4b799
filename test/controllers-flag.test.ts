/**
 * `--controllers` (kube-controller-manager's syntax) through the server process and HTTPS: with
 * `*,-garbagecollector,-serviceaccount` a deleted owner's dependent stays and a new namespace gets
 * no `default` ServiceAccount, while the other controllers act (the namespace's kube-root-ca.crt
 * appears, a deleted namespace is emptied and removed); the start-up log names what runs; a restart
 * with the default `*` collects the dependent and creates the ServiceAccount. An unknown name stops
 * the start with kube-controller-manager's message. This server only: the reference runs no
 * controller-manager, and the flag is this server's.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnServer, eventually, RestartableServer, type Client } from './harness.ts';

const run = new RestartableServer('apiserver-controllers-');
const status = async (c: Client, path: string): Promise<number> => (await c.request('GET', path)).status;

test.after(() => run.cleanup());

test('--controllers=*,-garbagecollector,-serviceaccount: those two do nothing, the others act', async () => {
  const c = await run.start(['--controllers=*,-garbagecollector', '--controllers=-serviceaccount']);
  const ready = /"running":\[([^\]]*)\],"disabled":\[([^\]]*)\][^\n]*controllers started/.exec(run.server!.logTail());
  assert.ok(ready, 'the start-up log reports the controllers');
  assert.ok(ready![2]!.includes('"garbagecollector"') && ready![2]!.includes('"serviceaccount"'), ready![2]);
  for (const name of ['namespace', 'root-ca-cert-publisher', 'serviceaccount-token', 'bootstrap-controller', 'pvc-protection']) assert.ok(ready![1]!.includes(`"${name}"`), `${name} runs: ${ready![1]}`);

  assert.is((await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ctl' } } })).status, 201);
  // root-ca-cert-publisher runs: the namespace gets kube-root-ca.crt.
  await eventually('kube-root-ca.crt published', async () => (await status(c, '/api/v1/namespaces/ctl/configmaps/kube-root-ca.crt')) === 200);
  const owner = await c.request('POST', '/api/v1/namespaces/ctl/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } } });
  assert.is(owner.status, 201, owner.text);
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.json.metadata.uid };
  assert.is((await c.request('POST', '/api/v1/namespaces/ctl/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', ownerReferences: [ref] } } })).status, 201);
  assert.is((await c.request('DELETE', '/api/v1/namespaces/ctl/configmaps/owner')).status, 200);

  // The namespace controller runs: a deleted namespace is emptied and removed (kube's 5 s grace
  // first). It is done well after the collector would have removed the dependent (milliseconds).
  assert.is((await c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ctl-gone' } } })).status, 201);
  assert.is((await c.request('DELETE', '/api/v1/namespaces/ctl-gone')).status, 200);
  await eventually('namespace ctl-gone removed', async () => (await status(c, '/api/v1/namespaces/ctl-gone')) === 404, 30_000);
  await sleep(300);
  assert.is(await status(c, '/api/v1/namespaces/ctl/configmaps/dependent'), 200, 'no garbage collector: the dependent of a deleted owner stays');
  assert.is(await status(c, '/api/v1/namespaces/ctl/serviceaccounts/default'), 404, 'no serviceaccount controller: no default ServiceAccount');
  await run.stop();
});

test('restart with the default `*`: the collector removes the dependent, the default ServiceAccount appears', async () => {
  const c = await run.start();
  await eventually('dependent collected', async () => (await status(c, '/api/v1/namespaces/ctl/configmaps/dependent')) === 404);
  await eventually('default ServiceAccount created', async () => (await status(c, '/api/v1/namespaces/ctl/serviceaccounts/default')) === 200);
  await run.stop();
});

test('--controllers with an unknown name: no start, kube-controller-manager\'s message', async () => {
  const err = await spawnServer(run.dataDir, 0, ['--controllers=*,bogus']).then(
    () => null,
    (e: Error) => e,
  );
  assert.ok(err, 'the server must not start');
  assert.match(err!.message, /server exited with 1: Error: "bogus" is not in the list of known controllers\n/);
});

test.run();
