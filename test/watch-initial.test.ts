/**
 * A watch that starts with the current list (no resourceVersion) while writes happen: its
 * client reads slowly, so the initial ADDED events are still going out (here: read from one
 * storage snapshot under backpressure) when the writes land. Every event arrives exactly once
 * and in order: first the state at one resourceVersion (exactly the objects and versions listed
 * before the watch began, as nothing was written in between), then each write after it, in the
 * order written, with the versions the writes answered.
 *
 * Runs against this server and the reference (TEST_KUBECONFIG).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { startTarget, readKubeconfig, type Target } from './target.ts';
import { eventually } from './harness.ts';
import { ok } from './assertions.ts';

const OBJECTS = 1500;
const WRITES = 60; // × 3: an update, a create, a delete

let t: Target;
test.before(async () => {
  t = await startTarget();
});
test.after(async () => {
  await t.close();
});

const name = (i: number): string => `cm-${String(i).padStart(5, '0')}`;

test('initial events at one version, then every write once and in order, with writes during the initial events', async () => {
  const ns = await t.createNamespace('watch-initial');
  const cm = `/api/v1/namespaces/${ns}/configmaps`;
  // This server's root CA publisher writes kube-root-ca.crt into a new namespace: not during the test.
  if (!t.reference) await eventually('kube-root-ca.crt', async () => (await t.client.request('GET', `${cm}/kube-root-ca.crt`)).status === 200);
  // 1,500 × 4 KiB: more than the kernel's socket buffers take, so the initial events are still
  // going out when the writes land.
  const value = 'v'.repeat(4000);
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < OBJECTS) {
      const i = next++;
      await ok(t.client.request('POST', cm, { body: { metadata: { name: name(i) }, data: { v: value } } }), 201, `create ${i}`);
    }
  }));
  const listed = await ok(t.client.request('GET', cm), 200, 'list');
  const state = new Map<string, string>(listed.items.map((o: any) => [o.metadata.name, o.metadata.resourceVersion]));
  // kube serves the watch from its watch cache: let it catch up with the list (resourceVersion=0 reads the cache).
  await eventually('the watch cache has every object', async () => (await ok(t.client.request('GET', `${cm}?resourceVersion=0`), 200, 'cached list')).items.length === state.size);

  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  const watch = await request(`${t.url}${cm}?watch=1&timeoutSeconds=60`, { dispatcher: agent, headers: k.token ? { authorization: `Bearer ${k.token}` } : {} });
  assert.is(watch.statusCode, 200);
  const chunks: Buffer[] = [];
  let received = 0;
  const first = new Promise<void>((resolve) => {
    watch.body.on('data', (c: Buffer) => {
      chunks.push(c);
      received += c.length;
      // Read one chunk, then stop reading while the writes happen.
      if (chunks.length === 1) {
        watch.body.pause();
        resolve();
      }
    });
  });
  await first;
  const receivedBeforeWrites = received;
  const written: { type: string; name: string; rv?: string }[] = [];
  for (let i = 0; i < WRITES; i++) {
    const u = await ok(t.client.request('PUT', `${cm}/${name(i)}`, { body: { metadata: { name: name(i) }, data: { v: `updated ${i}` } } }), 200, `update ${i}`);
    written.push({ type: 'MODIFIED', name: name(i), rv: u.metadata.resourceVersion });
    const c = await ok(t.client.request('POST', cm, { body: { metadata: { name: `new-${i}` } } }), 201, `create new-${i}`);
    written.push({ type: 'ADDED', name: `new-${i}`, rv: c.metadata.resourceVersion });
    await ok(t.client.request('DELETE', `${cm}/${name(OBJECTS - 1 - i)}`), 200, `delete ${i}`);
    written.push({ type: 'DELETED', name: name(OBJECTS - 1 - i) });
  }
  watch.body.resume();
  const total = state.size + written.length;
  // Complete lines only: the last one may still be arriving.
  const events = (): any[] => Buffer.concat(chunks).toString().split('\n').slice(0, -1).map((l) => JSON.parse(l));
  await eventually('every event arrived', async () => events().length >= total, 30_000);
  // Nothing more comes (no duplicate).
  await new Promise((r) => setTimeout(r, 500));
  const ev = events();
  watch.body.destroy();
  await agent.close();
  console.log(`initial events: ${state.size}; ${receivedBeforeWrites} bytes had arrived when the writes began, of ${Buffer.concat(chunks).length}`);
  assert.is(ev.length, total, 'each event once');

  // The initial state: the listed objects, each once, at the listed versions.
  const initial = ev.slice(0, state.size);
  assert.ok(initial.every((e) => e.type === 'ADDED'), 'the initial events are ADDED');
  const seen = new Map<string, string>(initial.map((e) => [e.object.metadata.name, e.object.metadata.resourceVersion]));
  assert.is(seen.size, state.size, 'each object once');
  for (const [n, rv] of state) assert.is(seen.get(n), rv, `${n} at the listed version`);
  const initialMax = Math.max(...[...state.values()].map(Number));

  // Then the writes, in order, after the initial state's version.
  const live = ev.slice(state.size);
  assert.equal(live.map((e) => `${e.type}/${e.object.metadata.name}`), written.map((w) => `${w.type}/${w.name}`));
  let last = initialMax;
  live.forEach((e, i) => {
    const rv = Number(e.object.metadata.resourceVersion);
    assert.ok(rv > last, `event ${i} (${e.type} ${e.object.metadata.name}) at ${rv} after ${last}`);
    last = rv;
    if (written[i].rv) assert.is(e.object.metadata.resourceVersion, written[i].rv);
  });
});

test.run();
