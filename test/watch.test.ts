/**
 * Watch streams through HTTP: start semantics (list → watch from its version, rv=0 synthetic
 * ADDED, streaming-list bookmark), event order and versions, selector transitions (an object
 * leaving a label/field selection is DELETED, entering it ADDED), resuming from a version from
 * before a server restart, 410 for a compacted version, timeoutSeconds, and a real client
 * (kubectl get -w / delete --wait).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { Agent } from 'undici';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { adminAgentFor, openWatchStream, type WatchEvent } from './watch-stream.ts';
import { startTestServer, spawnServer, clientFor, tempDir, type TestServer, type Client } from './harness.ts';
import { ok } from './assertions.ts';

let s: TestServer;
let agent: Agent;
const NS = 'watch';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

type Event = WatchEvent;

/** An mTLS agent presenting the admin certificate of a data dir's PKI. */
const adminAgent = (dataDir: string): Agent => adminAgentFor(join(dataDir, 'pki'));

/** Open a watch on this suite's server (or another one). */
const openWatch = (path: string, on: { url: string; agent: Agent } = { url: s.url, agent }) => openWatchStream(on.url, on.agent, path);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const merge = (client: Client, path: string, body: unknown) => client.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
/** `TYPE/name@rv` plus the labels it carries: what a selector watcher can tell apart. */
const brief = (e: Event) => `${e.type}/${e.object.metadata.name}@${e.object.metadata.resourceVersion} ${JSON.stringify(e.object.metadata.labels ?? {})}`;

test.before(async () => {
  s = await startTestServer();
  agent = adminAgent(s.dataDir);
  await ok(s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
});

test.after(async () => {
  await agent.close();
  await s.close();
});

test('list then watch from its resourceVersion: every change once, in order, with its version', async () => {
  await ok(s.client.request('POST', CM, { body: { metadata: { name: 'pre' } } }), 201, 'pre');
  const list = await ok(s.client.request('GET', CM), 200, 'list');
  const w = await openWatch(`${CM}?watch=1&resourceVersion=${list.metadata.resourceVersion}`);
  assert.is(w.status, 200);
  const a = await ok(s.client.request('POST', CM, { body: { metadata: { name: 'a' }, data: { k: '1' } } }), 201, 'create a');
  const m = await ok(s.client.request('PATCH', `${CM}/a`, { body: { data: { k: '2' } }, contentType: 'application/merge-patch+json' }), 200, 'patch a');
  await ok(s.client.request('DELETE', `${CM}/a`), 200, 'delete a');
  const ev = await w.waitFor(3);
  w.close();
  assert.equal(ev.map((e) => `${e.type}/${e.object.metadata.name}`), ['ADDED/a', 'MODIFIED/a', 'DELETED/a']);
  assert.is(ev[0].object.metadata.resourceVersion, a.metadata.resourceVersion);
  assert.is(ev[1].object.metadata.resourceVersion, m.metadata.resourceVersion);
  assert.is(ev[1].object.data.k, '2');
  const rvs = ev.map((e) => Number(e.object.metadata.resourceVersion));
  assert.ok(rvs[0] < rvs[1] && rvs[1] < rvs[2], `versions increase: ${rvs}`);
});

test('resourceVersion=0 starts with synthetic ADDED events for existing objects', async () => {
  const w = await openWatch(`${CM}?watch=1&resourceVersion=0`);
  const ev = await w.waitFor(1);
  w.close();
  assert.ok(ev.some((e) => e.type === 'ADDED' && e.object.metadata.name === 'pre'), JSON.stringify(ev));
});

test('sendInitialEvents ends the initial state with an initial-events-end bookmark, then streams', async () => {
  const objects = (await ok(s.client.request('GET', CM), 200, 'list')).items.length;
  const w = await openWatch(`${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
  // The initial events may come in more than one read: wait for all of them and the bookmark.
  const first = await w.waitFor(objects + 1);
  const bm = first.find((e) => e.type === 'BOOKMARK');
  assert.ok(bm, JSON.stringify(first));
  assert.is(bm!.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
  assert.is(bm!.object.kind, 'ConfigMap');
  await ok(s.client.request('POST', CM, { body: { metadata: { name: 'after-bookmark' } } }), 201, 'create');
  const ev = await w.waitFor(first.length + 1);
  w.close();
  assert.is(ev[ev.length - 1].object.metadata.name, 'after-bookmark');
  const bad = await s.client.request('GET', `${CM}?watch=1&sendInitialEvents=true`);
  assert.is(bad.status, 422, bad.text);
});

test('a label selector watch sees objects leave (DELETED, previous object at the new version) and enter (ADDED)', async () => {
  const list = await ok(s.client.request('GET', CM), 200, 'list');
  const w = await openWatch(`${CM}?watch=1&resourceVersion=${list.metadata.resourceVersion}&labelSelector=app%3Dweb`);
  const c = await ok(s.client.request('POST', CM, { body: { metadata: { name: 'sel', labels: { app: 'web' } }, data: { v: '1' } } }), 201, 'create');
  const out = await ok(merge(s.client, `${CM}/sel`, { metadata: { labels: { app: 'db' } }, data: { v: '2' } }), 200, 'relabel out');
  await ok(merge(s.client, `${CM}/sel`, { data: { v: '3' } }), 200, 'change while not selected');
  const back = await ok(merge(s.client, `${CM}/sel`, { metadata: { labels: { app: 'web' } } }), 200, 'relabel in');
  const mod = await ok(merge(s.client, `${CM}/sel`, { data: { v: '4' } }), 200, 'change while selected');
  await ok(s.client.request('POST', CM, { body: { metadata: { name: 'never', labels: { app: 'db' } } } }), 201, 'unselected create');
  await ok(s.client.request('DELETE', `${CM}/never`), 200, 'unselected delete');
  await ok(s.client.request('DELETE', `${CM}/sel`), 200, 'delete');
  const ev = await w.waitFor(5);
  await sleep(200); // nothing else may follow
  w.close();
  const rv = (o: any) => o.metadata.resourceVersion;
  assert.equal(ev.slice(0, 4).map(brief), [
    `ADDED/sel@${rv(c)} {"app":"web"}`,
    `DELETED/sel@${rv(out)} {"app":"web"}`,
    `ADDED/sel@${rv(back)} {"app":"web"}`,
    `MODIFIED/sel@${rv(mod)} {"app":"web"}`,
  ]);
  assert.is(ev.length, 5, JSON.stringify(ev.map(brief)));
  assert.is(ev[4].type, 'DELETED');
  assert.ok(Number(rv(ev[4].object)) > Number(rv(mod)) + 2, 'the real delete, after the unselected create/delete');
  assert.is(ev[1].object.data.v, '1', 'the transition DELETED carries the object as it was last selected');
  assert.is(ev[2].object.data.v, '3');
});

test('a field selector watch (namespaces, status.phase=Active) sees a namespace leave when it turns Terminating', async () => {
  const nsList = await ok(s.client.request('GET', '/api/v1/namespaces'), 200, 'list namespaces');
  const w = await openWatch(`/api/v1/namespaces?watch=1&resourceVersion=${nsList.metadata.resourceVersion}&fieldSelector=status.phase%3DActive`);
  const all = await openWatch(`/api/v1/namespaces?watch=1&resourceVersion=${nsList.metadata.resourceVersion}&fieldSelector=metadata.name%3Dphase-test`);
  const created = await ok(s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'phase-test' } } }), 201, 'create namespace');
  const terminating = await ok(s.client.request('DELETE', '/api/v1/namespaces/phase-test'), 200, 'delete namespace');
  assert.is(terminating.status.phase, 'Terminating');
  // The namespace controller finishes the deletion: the unfiltered watch sees it go.
  const deadline = Date.now() + 10_000;
  while (!all.events.some((e) => e.type === 'DELETED') && Date.now() < deadline) await all.waitFor(all.events.length + 1, 500);
  all.close();
  const everything = all.events.map((e) => `${e.type}/${e.object.status?.phase}`);
  assert.equal(everything.slice(0, 2), ['ADDED/Active', 'MODIFIED/Terminating'], JSON.stringify(everything));
  assert.is(everything[everything.length - 1], 'DELETED/Terminating', JSON.stringify(everything));
  const ev = await w.waitFor(2);
  await sleep(200);
  w.close();
  const mine = ev.filter((e) => e.object.metadata.name === 'phase-test');
  assert.equal(mine.map((e) => `${e.type}@${e.object.metadata.resourceVersion}/${e.object.status.phase}`), [
    `ADDED@${created.metadata.resourceVersion}/Active`,
    `DELETED@${terminating.metadata.resourceVersion}/Active`,
  ], 'leaving the selection is a DELETED of the last Active version; the final delete is not repeated');
});

test('a start version below the compaction point gets an ERROR event with 410 Expired', async () => {
  const dir = tempDir();
  // A 1 s history window: once the server idles for a second, everything before its last write is compacted.
  let t = await startTestServer({ dataDir: dir, historyWindowMs: 1000 });
  try {
    await ok(t.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
    const old = await ok(t.client.request('POST', CM, { body: { metadata: { name: 'old' } } }), 201, 'create');
    await ok(t.client.request('POST', CM, { body: { metadata: { name: 'newer' } } }), 201, 'create');
    await t.close();
    t = await startTestServer({ dataDir: dir, historyWindowMs: 1000 }); // its ring starts after `old`
    const rv = Number(old.metadata.resourceVersion);
    const deadline = Date.now() + 10_000;
    while (t.server.storage.compactedBelow <= rv && Date.now() < deadline) await sleep(100);
    assert.ok(t.server.storage.compactedBelow > rv, 'compaction passed the old version');
    const a = adminAgent(dir);
    const w = await openWatch(`${CM}?watch=1&resourceVersion=${rv}`, { url: t.url, agent: a });
    const ev = await w.waitFor(1);
    assert.is(ev[0]?.type, 'ERROR', JSON.stringify(ev));
    assert.is(ev[0].object.code, 410);
    assert.is(ev[0].object.reason, 'Expired');
    await a.close();
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('after a restart, a watch from a version before it gets exactly the changes after that version', async () => {
  const dir = tempDir();
  let srv = await spawnServer(dir);
  let c = clientFor(srv.url, join(dir, 'pki'));
  const a = adminAgent(dir);
  try {
    await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
    await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'elsewhere' } } }), 201, 'namespace');
    const start = await ok(c.request('POST', CM, { body: { metadata: { name: 'a', labels: { app: 'web' } }, data: { v: '1' } } }), 201, 'create a');
    const from = start.metadata.resourceVersion;
    const steps: [string, any][] = [];
    const record = async (what: string, p: Promise<any>) => {
      steps.push([what, await p]);
    };
    await record('MODIFIED/a', ok(merge(c, `${CM}/a`, { data: { v: '2' } }), 200, 'patch a'));
    await record('ADDED/b', ok(c.request('POST', CM, { body: { metadata: { name: 'b', labels: { app: 'web' } } } }), 201, 'create b'));
    await ok(c.request('POST', '/api/v1/namespaces/elsewhere/configmaps', { body: { metadata: { name: 'x' } } }), 201, 'other namespace');
    const stale = await c.request('PUT', `${CM}/b`, { body: { metadata: { name: 'b', resourceVersion: from }, data: { v: 'stale' } } });
    assert.is(stale.status, 409, 'a rejected write leaves no event');
    await record('MODIFIED/b', ok(merge(c, `${CM}/b`, { metadata: { labels: { app: 'db' } } }), 200, 'relabel b'));
    await record('DELETED/a', ok(c.request('DELETE', `${CM}/a`), 200, 'delete a'));
    await srv.kill();
    await c.close();

    srv = await spawnServer(dir);
    c = clientFor(srv.url, join(dir, 'pki'));
    const on = { url: srv.url, agent: a };
    const w = await openWatch(`${CM}?watch=1&resourceVersion=${from}`, on);
    const sel = await openWatch(`${CM}?watch=1&resourceVersion=${from}&labelSelector=app%3Dweb`, on);
    const got = await w.waitFor(steps.length);
    assert.equal(got.map((e) => `${e.type}/${e.object.metadata.name}`), steps.map(([what]) => what));
    const rvs = got.map((e) => e.object.metadata.resourceVersion);
    assert.equal(rvs.slice(0, 3), steps.slice(0, 3).map(([, o]) => o.metadata.resourceVersion));
    assert.ok(Number(rvs[3]) > Number(rvs[2]), 'the delete comes last, with its own version');
    // A selector watch resumed from history still sees b leave its selection.
    const selGot = await sel.waitFor(4);
    assert.equal(selGot.map(brief), [
      `MODIFIED/a@${rvs[0]} {"app":"web"}`,
      `ADDED/b@${rvs[1]} {"app":"web"}`,
      `DELETED/b@${rvs[2]} {"app":"web"}`,
      `DELETED/a@${rvs[3]} {"app":"web"}`,
    ]);
    // Then live, with no duplicate of the replayed changes.
    const live = await ok(c.request('POST', CM, { body: { metadata: { name: 'live' } } }), 201, 'create live');
    const all = await w.waitFor(steps.length + 1);
    await sleep(200);
    w.close();
    sel.close();
    assert.is(all.length, steps.length + 1, JSON.stringify(all.map((e) => e.type)));
    assert.is(all[steps.length].object.metadata.resourceVersion, live.metadata.resourceVersion);
  } finally {
    await a.close();
    await c.close();
    await srv.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('timeoutSeconds ends the stream cleanly; a field selector narrows to one object', async () => {
  const w = await openWatch(`${CM}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name%3Dpre`);
  const ev = await w.waitFor(100, 4000);
  assert.ok(w.isEnded(), 'stream ended');
  assert.ok(ev.every((e) => e.object.metadata.name === 'pre'), JSON.stringify(ev));
});

test('kubectl delete waits for the deletion through a watch and returns', async () => {
  await ok(s.client.request('POST', CM, { body: { metadata: { name: 'kd', finalizers: ['example.com/hold'] } } }), 201, 'create');
  const kubectl = promisify(execFile)('kubectl', ['--kubeconfig', s.server.kubeconfigPath, 'delete', 'cm', 'kd', '-n', NS, '--timeout=20s'], { timeout: 30_000 });
  await new Promise((r) => setTimeout(r, 500));
  // Still held by its finalizer: kubectl must be waiting on the watch; release it.
  await ok(s.client.request('PATCH', `${CM}/kd`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }), 200, 'release');
  const out = await kubectl;
  assert.match(out.stdout, /configmap "kd" deleted/);
});

test.run();
