/**
 * GET /api (APIVersions): serverAddressByClientCIDRs names the address clients reach the server
 * at — host:port of the URL in use, even when the server was started with `--secure-port 0`.
 * Runs on this server and, with TEST_KUBECONFIG, on the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';

let t: Target;

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t.close();
});

test('/api lists v1 and the serving host:port for 0.0.0.0/0', async () => {
  const r = await t.client.request('GET', '/api');
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: new URL(t.url).host }] });
});

test.run();
