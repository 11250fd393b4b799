/**
 * ResourceQuota across a restart and `--controllers`: with `-resourcequota` the controller leaves
 * a new quota's status alone (kube-controller-manager's flag); quotas stored before a start are
 * enforced by admission from the first request (its namespace index is filled by a scan at first
 * use), and the controller, back on, recomputes status.used from the objects present. This
 * server's process and data directory only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RestartableServer, eventually } from './harness.ts';
import { show } from './assertions.ts';

const srv = new RestartableServer('rq-restart-');

test.after(async () => {
  await srv.cleanup();
});

const Q = '/api/v1/namespaces/default/resourcequotas';
const S = '/api/v1/namespaces/default/secrets';
const secret = (name: string) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name } });

test('quota enforced after a restart; controller off by --controllers, then recomputing', async () => {
  let c = await srv.start(['--controllers=*,-resourcequota']);
  assert.is((await c.request('POST', S, { body: secret('x') })).status, 201);
  const q = await c.request('POST', Q, { body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { secrets: '2' } } } });
  assert.is(q.status, 201, show(q));
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await c.request('GET', `${Q}/q`)).json.status, {}, 'no controller: status untouched');
  const st = await c.request('PATCH', `${Q}/q/status`, { body: { status: { hard: { secrets: '2' }, used: { secrets: '1' } } }, contentType: 'application/merge-patch+json' });
  assert.is(st.status, 200, show(st));
  await srv.stop();

  c = await srv.start();
  // Admission reads the quota written before the start: used 1 of 2, so one more fits.
  assert.is((await c.request('POST', S, { body: secret('a') })).status, 201);
  const over = await c.request('POST', S, { body: secret('b') });
  assert.is(over.status, 403, show(over));
  assert.is(over.json.message, 'secrets "b" is forbidden: exceeded quota: q, requested: secrets=1, used: secrets=2, limited: secrets=2');
  // A delete makes the controller count what is really there (secret a).
  assert.is((await c.request('DELETE', `${S}/x`)).status, 200);
  await eventually('controller recomputes usage', async () => (await c.request('GET', `${Q}/q`)).json.status?.used?.secrets === '1');
  assert.is((await c.request('POST', S, { body: secret('b') })).status, 201);
});

test.run();
