/**
 * client-go v0.24.17 as controllers use it (test/go/informer-client, built from the Go module proxy):
 * a shared informer over Protobuf with watch bookmarks requested, which must converge after the
 * server restarts with the informer's version compacted meanwhile (the watch gets 410 Gone and the
 * reflector relists); a raw watch receiving BOOKMARK events; the dynamic client; discovery.
 * Under CI a missing Go toolchain or module fails the test.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { startGoSteps } from './go-env.ts';
import { spawnServer, clientFor, tempDir, type ChildServer } from './harness.ts';

const NS = 'informer-go';
const label = { suite: 'informer' };

test('shared informer survives a restart with its version compacted (410 → relist); bookmarks; dynamic client; discovery', async () => {
  const dir = tempDir();
  let srv: ChildServer = await spawnServer(dir, 0, ['--history-window', '2s']);
  const port = srv.port;
  let c = clientFor(srv.url, path.join(dir, 'pki'));
  assert.is((await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
  const go = startGoSteps('informer-client', [path.join(dir, 'kubeconfig'), NS]);
  const step = go.step;
  try {
    const synced = await step('synced');
    assert.equal(synced.names, ['live-1']);
    assert.is(synced.lists, 1);
    assert.ok(synced.watches >= 1 && synced.bookmarkParam === synced.watches, 'reflector watches ask for bookmarks');

    // Away: stop the server, write through another one on the same data, let compaction pass.
    await c.close();
    await srv.kill('SIGTERM');
    const away = await spawnServer(dir, 0, ['--history-window', '2s']);
    const ac = clientFor(away.url, path.join(dir, 'pki'));
    for (const n of ['away-1', 'away-2']) assert.is((await ac.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: n, labels: label } } })).status, 201);
    await new Promise((r) => setTimeout(r, 4000));
    // More writes after the window, so the compaction point moves past the informer's version.
    for (const n of ['filler-1', 'filler-2']) assert.is((await ac.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { metadata: { name: n } } })).status, 201);
    await new Promise((r) => setTimeout(r, 2500));
    await ac.close();
    await away.kill('SIGTERM');
    srv = await spawnServer(dir, port, ['--history-window', '2s']);
    c = clientFor(srv.url, path.join(dir, 'pki'));
    go.stdin.write('go\n');

    const relisted = await step('relisted');
    assert.equal(relisted.names, ['away-1', 'away-2', 'live-1']);
    assert.ok(relisted.lists >= 2, `the reflector relisted after 410 (lists: ${relisted.lists})`);
    assert.ok(relisted.events.includes('ADD away-1') && relisted.events.includes('ADD away-2'), relisted.events.join(', '));

    const bm = await step('bookmarks');
    assert.is(bm.added, 3, 'initial ADDED events of the raw watch');
    assert.ok(bm.bookmarks >= 1, 'a BOOKMARK before the watch times out');
    assert.match(bm.lastRV, /^\d+$/);

    const dyn = await step('dynamic');
    assert.is(dyn.uid, true);
    assert.ok(dyn.listed >= 6);
    assert.match(dyn.getAfterDelete, 'configmaps "dyn-1" not found');

    const disc = await step('discovery');
    for (const gv of ['v1', 'authorization.k8s.io/v1', 'events.k8s.io/v1', 'events.k8s.io/v1beta1']) assert.ok(disc.groupVersions.includes(gv), gv);
    assert.equal([...disc.configmapVerbs].sort(), ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);
    assert.ok(disc.preferredLists >= 3);
    assert.is(await go.exited, 0, go.stderr());
  } finally {
    go.kill();
    await c.close().catch(() => undefined);
    await srv.kill('SIGTERM').catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
