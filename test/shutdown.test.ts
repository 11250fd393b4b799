/**
 * Graceful termination of a real server process (SIGTERM), as kube-apiserver does it with
 * --shutdown-delay-duration: /readyz fails first while /livez and every other request keep working,
 * watches keep receiving events during the delay and then end cleanly (a complete chunked response,
 * not a reset) with the last event delivered, writes in flight when the listener closes are
 * answered and durable, new connections are refused, and the process exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { spawnServer, tempDir, clientFor, startTestServer, type ChildServer, type Client } from './harness.ts';

let dir: string;
let srv: ChildServer;
let c: Client;

test.before(async () => {
  dir = tempDir();
  srv = await spawnServer(dir, 0, ['--shutdown-delay-duration', '1500ms']);
  c = clientFor(srv.url, join(dir, 'pki'));
});
test.after(async () => {
  await c.close().catch(() => undefined);
  if (srv.proc.exitCode === null) await srv.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('SIGTERM: readyz fails first, requests and watches continue for the delay, then a clean end and exit 0', async () => {
  const P = '/api/v1/namespaces/default/configmaps';
  assert.is((await c.request('GET', '/readyz')).status, 200);

  // A watch on its own connection (HTTP/1.1), read to its end.
  const watcher = clientFor(srv.url, join(dir, 'pki'));
  const watch = watcher.request('GET', `${P}?watch=1`);
  await new Promise((r) => setTimeout(r, 300));

  srv.proc.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  const ready = await c.request('GET', '/readyz?verbose');
  assert.is(ready.status, 500);
  assert.match(ready.text, '[-]shutdown failed: reason withheld\n');
  assert.match(ready.text, '[+]etcd ok\n');
  assert.is((await c.request('GET', '/readyz/shutdown')).status, 500);
  assert.is((await c.request('GET', '/livez')).status, 200);

  // Still serving during the delay: writes are accepted and reach the open watch.
  assert.is((await c.request('POST', P, { body: { metadata: { name: 'during-delay' } } })).status, 201);
  // A burst of writes around the moment the listener closes: every write is answered (201) or
  // refused before it was accepted (connection error) — never cut off after being accepted.
  const burstStart = Date.now();
  const results: (number | 'refused')[] = [];
  const burst: Promise<void>[] = [];
  const writer = clientFor(srv.url, join(dir, 'pki'));
  while (Date.now() - burstStart < 2500) {
    const name = `burst-${results.length}`;
    const i = results.push('refused') - 1;
    burst.push(writer.request('POST', P, { body: { metadata: { name } } }).then((r) => void (results[i] = r.status), () => undefined));
    await new Promise((r) => setTimeout(r, 20));
  }
  await Promise.all(burst);
  await writer.close().catch(() => undefined);

  const w = await watch;
  assert.is(w.status, 200);
  const events = w.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
  assert.ok(events.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'during-delay'), 'the watch saw the write made during the delay');
  await watcher.close().catch(() => undefined);

  const code = await srv.exited;
  assert.is(code, 0, srv.logTail());

  const accepted = results.map((r, i) => [r, `burst-${i}`] as const).filter(([r]) => r === 201).map(([, n]) => n);
  assert.ok(accepted.length > 0, 'some writes were accepted during the delay');
  assert.ok(results.every((r) => r === 201 || r === 'refused'), `every write was answered 201 or refused: ${JSON.stringify(results)}`);
  assert.ok(results.includes('refused'), 'new connections are refused once the listener closed');

  // Every acknowledged write is in the store after a restart.
  const again = await startTestServer({ dataDir: dir });
  try {
    const names = new Set(((await again.client.request('GET', P)).json.items as { metadata: { name: string } }[]).map((o) => o.metadata.name));
    for (const n of ['during-delay', ...accepted]) assert.ok(names.has(n), `${n} survived`);
    // Watch events seen are exactly what was stored (nothing invented).
    for (const e of events) if (e.type === 'ADDED' && e.object.metadata.name.startsWith('burst-')) assert.ok(names.has(e.object.metadata.name));
  } finally {
    await again.close();
  }
});

test.run();
