import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kubeHealthChecks, type HealthState } from './checks.ts';
import { runHealth } from './health.ts';

function checks(problem: { source?: string; reason: string; fatal: boolean } | undefined) {
  const state: HealthState = { storageOpen: () => true, probeStorage: async () => undefined, shuttingDown: () => false, storageProblem: () => problem };
  return kubeHealthChecks(state);
}

test('a store that refuses writes fails readyz etcd; livez and healthz only when a restart is needed', async () => {
  const q = new URLSearchParams();
  const ok = checks(undefined);
  for (const ep of ['readyz', 'livez', 'healthz'] as const) assert.is((await runHealth(ep, ep === 'readyz' ? ok.readyz : ok.livez, '', q)).code, 200);

  const full = checks({ reason: 'no space left on device (ENOSPC): IO error: db/000012.log: No space left on device', fatal: false });
  const ready = await runHealth('readyz', full.readyz, '', new URLSearchParams('verbose'));
  assert.is(ready.code, 500);
  assert.match(ready.body, /\[-\]etcd failed: reason withheld/);
  const one = await runHealth('readyz', full.readyz, 'etcd', q);
  assert.is(one.code, 500);
  assert.match(one.body, /internal server error: storage refuses writes: no space left on device \(ENOSPC\)/);
  assert.is((await runHealth('livez', full.livez, '', q)).code, 200, 'alive: it recovers by itself');
  assert.is((await runHealth('healthz', full.livez, '', q)).code, 200);

  const fatal = checks({ reason: 'after a failed write the store holds writes 8..9 that were answered with an error', fatal: true });
  assert.is((await runHealth('readyz', fatal.readyz, '', q)).code, 500);
  assert.is((await runHealth('livez', fatal.livez, '', q)).code, 500, 'a restart is needed');
  assert.match((await runHealth('livez', fatal.livez, 'etcd', q)).body, /answered with an error/);

  const damaged = checks({ source: 'corrupt', reason: 'the snapshot store is damaged: /d/db/000012.ldb — … npm run replay -- repair --data-dir /d', fatal: true });
  assert.is((await runHealth('readyz', damaged.readyz, '', q)).code, 500);
  const live = await runHealth('livez', damaged.livez, 'etcd', q);
  assert.is(live.code, 500, 'damage is fatal');
  assert.match(live.body, /storage refuses reads and writes: the snapshot store is damaged: \/d\/db\/000012\.ldb .*replay -- repair/);
});

test.run();
