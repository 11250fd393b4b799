/**
 * The official JavaScript client's informer (@kubernetes/client-node v2 `makeInformer`) on
 * ConfigMaps against a server in a child process: list + watch sees every change in order; after
 * a restart on the same data dir and port it resumes from its last resourceVersion (no relist) and
 * receives the changes it missed; when its version was compacted meanwhile it gets 410, relists
 * and converges.
 *
 * Changes "while the informer was away" are made through a second server on another port over
 * the same data dir, so the informer (pinned to the first port) cannot see them live.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { CoreV1Api as CoreV1ApiT, KubeConfig as KubeConfigT, V1ConfigMap } from '@kubernetes/client-node';
import { spawnServer, clientFor, tempDir, type ChildServer, type Client } from './harness.ts';
import { ok } from './assertions.ts';

// package.json overrides the client's undici with the project's undici 7: undici 8 needs Node >= 22.
const { CoreV1Api, KubeConfig, makeInformer } = await import('@kubernetes/client-node');

const NS = 'informer';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * A ConfigMap informer with the restart-on-error loop client-node's README recommends: the
 * informer stops on a connection error and must be started again; start() keeps its last
 * resourceVersion, so it resumes rather than relists.
 */
function configMapInformer(kc: KubeConfigT) {
  const core: CoreV1ApiT = kc.makeApiClient(CoreV1Api);
  const state = { lists: 0, errors: 0, events: [] as string[], stopped: false };
  const informer = makeInformer<V1ConfigMap>(kc, CM, () => {
    state.lists++;
    return core.listNamespacedConfigMap({ namespace: NS });
  });
  // kube-root-ca.crt (the root-ca-cert-publisher's, in every namespace) is not the suite's.
  const ours = (o: V1ConfigMap): boolean => o.metadata?.name !== 'kube-root-ca.crt';
  const record = (verb: string) => (o: V1ConfigMap) => {
    if (ours(o)) state.events.push(`${verb}/${o.metadata?.name}@${o.metadata?.resourceVersion}`);
  };
  informer.on('add', record('add'));
  informer.on('update', record('update'));
  informer.on('delete', record('delete'));
  informer.on('error', () => {
    state.errors++;
    setTimeout(() => {
      if (!state.stopped) void informer.start();
    }, 200);
  });
  return {
    informer,
    state,
    /** The version the informer would watch from next (ListWatch keeps it; not in the typed surface). */
    rv: () => (informer as unknown as { latestResourceVersion(): string }).latestResourceVersion(),
    /** "name=data.v" of every cached object, sorted. */
    cache: () => informer.list(NS).filter(ours).map((o) => `${o.metadata?.name}=${o.data?.v ?? ''}`).sort(),
    async stop() {
      state.stopped = true;
      await informer.stop();
    },
  };
}

const merge = (c: Client, path: string, body: unknown) => c.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
const rvOf = (o: any): string => o.metadata.resourceVersion;

/** Start a server on `port` (0 = any) over `dir`, with a client for it. */
async function serve(dir: string, port = 0, args: string[] = []): Promise<{ srv: ChildServer; c: Client; stop: () => Promise<void> }> {
  const srv = await spawnServer(dir, port, args);
  const c = clientFor(srv.url, join(dir, 'pki'));
  let stopped = false;
  return {
    srv,
    c,
    async stop() {
      if (stopped) return;
      stopped = true;
      await c.close();
      await srv.kill();
    },
  };
}

test('list + watch sees every change in order; after a restart on the same port it resumes from its version', async () => {
  const dir = tempDir();
  let main = await serve(dir);
  const port = main.srv.port;
  const kc: KubeConfigT = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  const inf = configMapInformer(kc);
  try {
    await ok(main.c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
    const pre = await ok(main.c.request('POST', CM, { body: { metadata: { name: 'pre' }, data: { v: '0' } } }), 201, 'pre');
    await inf.informer.start();
    await until(() => inf.state.events.length === 1, 'initial list');
    assert.equal(inf.state.events, [`add/pre@${rvOf(pre)}`]);

    const a = await ok(main.c.request('POST', CM, { body: { metadata: { name: 'a' }, data: { v: '1' } } }), 201, 'create a');
    const a2 = await ok(merge(main.c, `${CM}/a`, { data: { v: '2' } }), 200, 'update a');
    const b = await ok(main.c.request('POST', CM, { body: { metadata: { name: 'b' }, data: { v: '1' } } }), 201, 'create b');
    await ok(main.c.request('DELETE', `${CM}/a`), 200, 'delete a');
    await until(() => inf.state.events.length === 5, 'watched changes');
    assert.equal(inf.state.events.slice(1, 4), [`add/a@${rvOf(a)}`, `update/a@${rvOf(a2)}`, `add/b@${rvOf(b)}`]);
    assert.match(inf.state.events[4], /^delete\/a@\d+$/);
    const seen = inf.rv();
    assert.is(seen, inf.state.events[4].split('@')[1], 'the informer tracks the last event version');

    // Stop the server; while the informer cannot reach it, change things through another port.
    await main.stop();
    const away = await serve(dir);
    const c = await ok(away.c.request('POST', CM, { body: { metadata: { name: 'c' }, data: { v: '1' } } }), 201, 'create c');
    const b2 = await ok(merge(away.c, `${CM}/b`, { data: { v: '2' } }), 200, 'update b');
    await away.stop();

    main = await serve(dir, port);
    await until(() => inf.state.events.length === 7, 'changes made while away', 20_000);
    assert.equal(inf.state.events.slice(5), [`add/c@${rvOf(c)}`, `update/b@${rvOf(b2)}`]);
    const d = await ok(main.c.request('POST', CM, { body: { metadata: { name: 'd' }, data: { v: '1' } } }), 201, 'create d');
    await until(() => inf.state.events.length === 8, 'a live change after the restart');
    assert.is(inf.state.events[7], `add/d@${rvOf(d)}`);
    assert.is(inf.state.lists, 1, 'resumed from its resourceVersion: no relist');
    assert.ok(inf.state.errors > 0, 'the informer did lose its server meanwhile');
    assert.equal(inf.cache(), ['b=2', 'c=1', 'd=1', 'pre=0']);
  } finally {
    await inf.stop();
    await main.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a version compacted while the informer was away: 410, relist, and it converges', async () => {
  const dir = tempDir();
  // A 2 s history window: two idle seconds after the last write compact everything before it.
  const window = ['--history-window', '2s'];
  let main = await serve(dir, 0, window);
  const port = main.srv.port;
  const kc: KubeConfigT = new KubeConfig();
  kc.loadFromFile(join(dir, 'kubeconfig'));
  const inf = configMapInformer(kc);
  try {
    await ok(main.c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
    await inf.informer.start();
    await ok(main.c.request('POST', CM, { body: { metadata: { name: 'x1' }, data: { v: '1' } } }), 201, 'x1');
    await ok(main.c.request('POST', CM, { body: { metadata: { name: 'x2' }, data: { v: '1' } } }), 201, 'x2');
    await until(() => inf.state.events.length === 2, 'watched creates');
    const seen = inf.rv();
    await main.stop();

    const away = await serve(dir, 0, window);
    await ok(away.c.request('DELETE', `${CM}/x1`), 200, 'delete x1');
    await ok(merge(away.c, `${CM}/x2`, { data: { v: '2' } }), 200, 'update x2');
    await ok(away.c.request('POST', CM, { body: { metadata: { name: 'x3' }, data: { v: '1' } } }), 201, 'x3');
    // Wait until the informer's version is gone from history (an exact list at it answers 410).
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await away.c.request('GET', `${CM}?resourceVersion=${seen}&resourceVersionMatch=Exact`)).status;
      if (status === 410) break;
      await sleep(250);
    }
    assert.is(status, 410, `version ${seen} compacted`);
    await away.stop();

    main = await serve(dir, port, window);
    await until(() => inf.state.lists === 2 && inf.cache().join() === 'x2=2,x3=1', 'relist and convergence', 20_000);
    assert.equal(inf.state.events.slice(2).map((e) => e.split('@')[0]).sort(), ['add/x3', 'delete/x1', 'update/x2'], 'the relist reports the differences');
    const x4 = await ok(main.c.request('POST', CM, { body: { metadata: { name: 'x4' }, data: { v: '1' } } }), 201, 'x4');
    await until(() => inf.state.events.length === 6, 'a live change after the relist');
    assert.is(inf.state.events[5], `add/x4@${rvOf(x4)}`);
    assert.equal(inf.cache(), ['x2=2', 'x3=1', 'x4=1']);
  } finally {
    await inf.stop();
    await main.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
