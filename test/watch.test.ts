/**
 * Watch streams through HTTP: start semantics (list → watch from its version, rv=0 synthetic
 * ADDED, streaming-list bookmark), event order and versions, 410 for a version before the ring,
 * timeoutSeconds, and a real client (kubectl get -w / delete --wait).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from './harness.ts';
import { ok } from './assertions.ts';

let s: TestServer;
let agent: Agent;
const NS = 'watch';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

interface Event {
  type: string;
  object: any;
}

/** Open a watch; `events()` collects parsed events until `n` arrived or the stream ended. */
async function openWatch(path: string) {
  const r = await request(s.url + path, { dispatcher: agent, headers: { accept: 'application/json' } });
  const events: Event[] = [];
  let buf = '';
  let ended = false;
  const waiters: (() => void)[] = [];
  r.body.on('data', (c: Buffer) => {
    buf += c.toString();
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) events.push(JSON.parse(line));
    }
    waiters.splice(0).forEach((w) => w());
  });
  r.body.on('end', () => {
    ended = true;
    waiters.splice(0).forEach((w) => w());
  });
  r.body.on('error', () => undefined);
  return {
    status: r.statusCode,
    events,
    async waitFor(n: number, ms = 5000): Promise<Event[]> {
      const deadline = Date.now() + ms;
      while (events.length < n && !ended && Date.now() < deadline) {
        await new Promise<void>((res) => {
          waiters.push(res);
          setTimeout(res, 100);
        });
      }
      return events;
    },
    isEnded: () => ended,
    close: () => r.body.destroy(),
  };
}

test.before(async () => {
  s = await startTestServer();
  const pki = join(s.dataDir, 'pki');
  agent = new Agent({ connect: { ca: readFileSync(join(pki, 'ca.crt')), cert: readFileSync(join(pki, 'admin.crt')), key: readFileSync(join(pki, 'admin.key')) } });
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
  const w = await openWatch(`${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
  const first = await w.waitFor(2);
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

test('a start version older than the retained history gets an ERROR event with 410 Expired', async () => {
  const w = await openWatch(`${CM}?watch=1&resourceVersion=1`);
  const ev = await w.waitFor(1);
  assert.is(ev[0]?.type, 'ERROR', JSON.stringify(ev));
  assert.is(ev[0].object.code, 410);
  assert.is(ev[0].object.reason, 'Expired');
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
