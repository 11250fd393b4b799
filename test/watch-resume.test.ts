/**
 * Watches resumed from a resourceVersion, hundreds at once, as informers do after an API server
 * restart: each must get exactly the events after its version, in order, none lost, none
 * duplicated — per namespace, across namespaces, with a label selector and a field selector.
 * Here the server is restarted between the writes and the watches, so every watch starts older
 * than the restarted server's in-memory window and is served from the log (internal/watch/hub.ts:
 * the watchers share one read of it). Against the reference (TEST_KUBECONFIG) there is no restart:
 * the same watches, from the same versions, are served by kube-apiserver's watch cache.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { Agent } from 'undici';
import { startTarget, readKubeconfig, type Target } from './target.ts';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { adminAgentFor, openWatchStream } from './watch-stream.ts';

const WATCHERS = 300;
const WRITES = 60;

let target: Target;
let restarted: TestServer | undefined;
const dataDir = tempDir('watch-resume-');

test.after(async () => {
  if (restarted) await restarted.close();
  else await target?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Write {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  ns: string;
  name: string;
  /** The object's resourceVersion in the answer (creates and updates). */
  rv: string;
}

test('hundreds of watches resumed from various resourceVersions (after a restart here) each get exactly the events after their version', async () => {
  target = await startTarget({ dataDir });
  const run = target.ns('x').slice(2);
  const namespaces = [await target.createNamespace('resume-a'), await target.createNamespace('resume-b'), await target.createNamespace('resume-c')];
  const label = `resume-run=${run}`;
  // Sequential writes: creates, updates and deletes of ConfigMaps labelled with the run.
  const writes: Write[] = [];
  const live = new Map<string, string>();
  for (let i = 0; i < WRITES; i++) {
    const ns = namespaces[i % 3];
    const name = `o${i % 7}`;
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const key = `${ns}/${name}`;
    let r;
    if (!live.has(key)) {
      r = await target.client.request('POST', path, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { 'resume-run': run } }, data: { i: String(i) } } });
      assert.is(r.status, 201, r.text);
      writes.push({ type: 'ADDED', ns, name, rv: (r.json as any).metadata.resourceVersion });
      live.set(key, name);
    } else if (i % 5 === 0) {
      r = await target.client.request('DELETE', `${path}/${name}`);
      assert.is(r.status, 200, r.text);
      writes.push({ type: 'DELETED', ns, name, rv: '' });
      live.delete(key);
    } else {
      r = await target.client.request('PATCH', `${path}/${name}`, { body: { data: { i: String(i) } }, contentType: 'application/merge-patch+json' });
      assert.is(r.status, 200, r.text);
      writes.push({ type: 'MODIFIED', ns, name, rv: (r.json as any).metadata.resourceVersion });
    }
  }

  let url = target.url;
  let agent: Agent;
  if (target.local) {
    // Restart on the same data dir: every watch below starts older than the new process's ring.
    await target.local.close();
    restarted = await startTestServer({ dataDir });
    url = restarted.url;
    agent = adminAgentFor(join(dataDir, 'pki'));
  } else {
    const k = readKubeconfig(target.kubeconfig);
    agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  }

  // Start versions: after each create or update (the write's own version), spread over the writes.
  const starts = writes.map((w, i) => ({ i, rv: w.rv })).filter((s) => s.rv);
  const kinds = [
    { what: 'one namespace', path: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`, q: `labelSelector=${label}`, keep: (w: Write, ns: string) => w.ns === ns },
    { what: 'all namespaces', path: () => '/api/v1/configmaps', q: `labelSelector=${label}`, keep: () => true },
    { what: 'one name', path: (ns: string) => `/api/v1/namespaces/${ns}/configmaps`, q: `labelSelector=${label}&fieldSelector=metadata.name%3Do3`, keep: (w: Write, ns: string) => w.ns === ns && w.name === 'o3' },
    { what: 'field namespace', path: () => '/api/v1/configmaps', q: `labelSelector=${label}&fieldSelector=metadata.namespace%3D${namespaces[1]}`, keep: (w: Write) => w.ns === namespaces[1] },
  ];
  const watchers = await Promise.all(
    Array.from({ length: WATCHERS }, async (_, n) => {
      const start = starts[(n * 7) % starts.length];
      const kind = kinds[n % kinds.length];
      const ns = namespaces[n % 3];
      const expected = writes.slice(start.i + 1).filter((w) => kind.keep(w, ns));
      const bookmarks = n % 2 ? '&allowWatchBookmarks=true' : '';
      const s = await openWatchStream(url, agent, `${kind.path(ns)}?watch=true&resourceVersion=${start.rv}&${kind.q}${bookmarks}&timeoutSeconds=60`);
      return { n, what: `${kind.what} (${ns}) from ${start.rv} (write ${start.i})`, expected, s };
    }),
  );
  for (const w of watchers) assert.is(w.s.status, 200, w.what);
  /** Events received (bookmarks left out: none is due within the test, and they carry no object change). */
  const events = (w: (typeof watchers)[number]) => w.s.events.filter((e) => e.type !== 'BOOKMARK').map((e) => ({ type: e.type, ns: e.object.metadata.namespace, name: e.object.metadata.name, rv: e.object.metadata.resourceVersion }));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && watchers.some((w) => events(w).length < w.expected.length)) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 500)); // room for an extra (duplicated) event to show
  let total = 0;
  for (const w of watchers) {
    w.s.close();
    const got = events(w);
    assert.equal(got.map((e) => `${e.type} ${e.ns}/${e.name}`), w.expected.map((x) => `${x.type} ${x.ns}/${x.name}`), `watcher ${w.n}: ${w.what}`);
    got.forEach((e, i) => {
      const x = w.expected[i];
      if (x.rv) assert.is(e.rv, x.rv, `watcher ${w.n}: the version of event ${i}`);
      if (i) assert.ok(Number(e.rv) > Number(got[i - 1].rv), `watcher ${w.n}: versions increase`);
    });
    total += w.expected.length;
  }
  assert.ok(total > WATCHERS * 5, `the watchers had events to get (${total})`);
  if (restarted) {
    // Here: the resumed watchers were served by reads of the log, shared (internal/watch/hub.ts), as /metrics counts them.
    const metrics = await restarted.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
    const value = (re: RegExp): number => Number(metrics.text.match(re)?.[1] ?? NaN);
    const shared = value(/^watch_resume_reads_total\{kind="shared"\} (\d+)$/m);
    const own = value(/^watch_resume_reads_total\{kind="own"\} (\d+)$/m);
    const events = value(/^watch_resume_read_events_total (\d+)$/m);
    assert.ok(shared >= 1 && shared < WATCHERS, `shared resume reads: ${shared}`);
    assert.ok(own >= 0, `own resume reads: ${own}`);
    // How many depends on what the ring already holds after the start-up fold: only what lies below it is read.
    assert.ok(events >= 1, `events the shared reads went through: ${events}`);
  }
  await agent.close();
});

test.run();
