/**
 * `--workers 2` (issue 28): the server with two serving threads (the leader, which writes the log,
 * serves no HTTP), driven through HTTP by clients on many separate connections, which the kernel
 * (SO_REUSEPORT) spreads over the two threads. What a client sees must not depend on the thread its connection landed on: a
 * write is visible at once on every other connection (read-your-writes across threads), a watch
 * sees every write made anywhere in order, optimistic-concurrency conflicts between threads are
 * 409 as kube's, a CRD created through one thread is served by the other, and a store that
 * refuses writes gets the same 5xx from every thread.
 *
 * The client-visible assertions run on the reference too (TEST_KUBECONFIG; one apiserver there,
 * so they hold trivially but check what they assert is kube's behaviour). Local only: that both
 * threads took writes and the leader none, and the store fault (injected into the leader's store
 * health).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent } from 'undici';
import { startTarget, readKubeconfig, type Target } from './target.ts';
import { agentClient, eventually, tempDir, type Client } from './harness.ts';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWatchStream } from './watch-stream.ts';

const CONNECTIONS = 16;
let t: Target;
let ns: string;
/** One client per connection (undici Agent with a single connection each). */
let conns: { client: Client; agent: Agent }[] = [];

function oneConnection(kubeconfig: string): { client: Client; agent: Agent } {
  const k = readKubeconfig(kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key }, connections: 1, pipelining: 1 });
  return { agent, client: agentClient(k.server, agent, k.token ? { authorization: `Bearer ${k.token}` } : {}) };
}

const cm = (name: string, data: Record<string, string> = { a: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

let auditLog = '';

test.before(async () => {
  // Here: audit every request at Metadata level into one file (the reference is audited as it is).
  const dir = tempDir('workers-audit-');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
  auditLog = join(dir, 'audit.log');
  t = await startTarget({ workers: 2, auditLogPath: auditLog, auditPolicyFile: join(dir, 'policy.yaml') });
  ns = await t.createNamespace('workers');
  conns = Array.from({ length: CONNECTIONS }, () => oneConnection(t.kubeconfig));
});

test.after(async () => {
  await Promise.all(conns.map((c) => c.client.close()));
  await t?.close();
});

test('a create on one connection is seen at once by a GET and a list on every other', async () => {
  const before = t.local?.server.storage.followerWrites ?? 0;
  const servedBefore = (await t.local?.server.threads?.requestsServed()) ?? [];
  for (let i = 0; i < 48; i++) {
    const writer = conns[i % CONNECTIONS]!.client;
    const created = await writer.request('POST', cms(), { body: cm(`ryw-${i}`) });
    assert.is(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion;
    const reader = conns[(i * 7 + 3) % CONNECTIONS]!.client;
    const got = await reader.request('GET', `${cms()}/ryw-${i}`);
    assert.is(got.status, 200, `GET after create on another connection: ${got.text}`);
    assert.is(got.json.metadata.resourceVersion, rv);
    const listed = await conns[(i * 5 + 1) % CONNECTIONS]!.client.request('GET', cms());
    assert.is(listed.status, 200);
    assert.ok(Number(listed.json.metadata.resourceVersion) >= Number(rv), 'list resourceVersion at least the create\'s');
    assert.ok(listed.json.items.some((o: any) => o.metadata.name === `ryw-${i}`), `ryw-${i} listed on another connection`);
  }
  if (t.local) {
    // Every write came from a serving thread (the leader serves no connection), and both threads
    // answered some of the requests.
    const viaThreads = t.local.server.storage.followerWrites - before;
    assert.is(viaThreads, 48, `writes through the serving threads: ${viaThreads} of 48`);
    const threads = t.local.server.threads!;
    assert.is(threads.count, 2, 'two serving threads');
    // A request is counted once its response has ended: the last one may not be yet.
    let answered: number[] = [];
    await eventually('every request answered by a serving thread', async () => {
      answered = (await threads.requestsServed()).map((n, i) => n - (servedBefore[i] ?? 0));
      return answered.reduce((a, b) => a + b, 0) >= 3 * 48;
    });
    assert.ok(answered.every((n) => n > 0), `requests answered by each thread: ${answered.join(', ')}`);
  }
});

test('a watch on one connection sees every write made on the others, in order, with no gap', async () => {
  const list = await conns[0]!.client.request('GET', cms());
  const from = list.json.metadata.resourceVersion;
  const watcher = oneConnection(t.kubeconfig);
  const w = await openWatchStream(t.url, watcher.agent, `${cms()}?watch=true&resourceVersion=${from}`);
  try {
    assert.is(w.status, 200);
    const rvs: string[] = [];
    // Concurrent writes on every connection: creates, updates and deletes.
    await Promise.all(
      conns.map(async ({ client }, i) => {
        const c = await client.request('POST', cms(), { body: cm(`w-${i}`) });
        assert.is(c.status, 201, c.text);
        rvs.push(c.json.metadata.resourceVersion);
        const u = await client.request('PUT', `${cms()}/w-${i}`, { body: { ...c.json, data: { a: '2' } } });
        assert.is(u.status, 200, u.text);
        rvs.push(u.json.metadata.resourceVersion);
        const d = await client.request('DELETE', `${cms()}/w-${i}`);
        assert.is(d.status, 200, d.text);
        rvs.push(d.json.metadata.resourceVersion);
      }),
    );
    const events = await w.waitFor(3 * CONNECTIONS, 15_000);
    assert.is(events.length, 3 * CONNECTIONS, `events: ${events.length}`);
    const seen = events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.equal(seen, [...seen].sort((a, b) => a - b), 'in resourceVersion order');
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    // Every write's resourceVersion is an event's (deletes: the DELETED object's resourceVersion).
    const types = new Map(events.map((e) => [e.object.metadata.name + e.type, Number(e.object.metadata.resourceVersion)]));
    for (let i = 0; i < CONNECTIONS; i++) {
      assert.ok(types.has(`w-${i}ADDED`) && types.has(`w-${i}MODIFIED`) && types.has(`w-${i}DELETED`), `w-${i}: ADDED, MODIFIED, DELETED`);
      assert.ok(types.get(`w-${i}ADDED`)! < types.get(`w-${i}MODIFIED`)! && types.get(`w-${i}MODIFIED`)! < types.get(`w-${i}DELETED`)!, `w-${i} in order`);
    }
    for (const rv of rvs.slice(0, 1)) assert.ok(seen.includes(Number(rv)), `create ${rv} seen`);
  } finally {
    w.close();
    await watcher.client.close();
  }
});

test('conflicting updates from every connection: one wins, the others get kube\'s 409', async () => {
  const created = await conns[0]!.client.request('POST', cms(), { body: cm('contended') });
  assert.is(created.status, 201);
  const results = await Promise.all(conns.map(({ client }, i) => client.request('PUT', `${cms()}/contended`, { body: { ...created.json, data: { a: `changed-${i}` } } })));
  const codes = results.map((r) => r.status).sort();
  assert.is(codes.filter((c) => c === 200).length, 1, `one 200: ${codes.join(',')}`);
  assert.is(codes.filter((c) => c === 409).length, CONNECTIONS - 1, `the others 409: ${codes.join(',')}`);
  const conflict = results.find((r) => r.status === 409)!;
  assert.is(conflict.json.reason, 'Conflict');
  assert.is(conflict.json.message, 'Operation cannot be fulfilled on configmaps "contended": the object has been modified; please apply your changes to the latest version and try again');
  // A create of an existing name from every connection: 409 AlreadyExists.
  const again = await Promise.all(conns.map(({ client }) => client.request('POST', cms(), { body: cm('contended') })));
  for (const r of again) {
    assert.is(r.status, 409);
    assert.is(r.json.reason, 'AlreadyExists');
  }
});

test('a delete on one connection: every other connection gets 404 at once', async () => {
  for (let i = 0; i < 8; i++) {
    const name = `del-${i}`;
    assert.is((await conns[i]!.client.request('POST', cms(), { body: cm(name) })).status, 201);
    const d = await conns[(i + 5) % CONNECTIONS]!.client.request('DELETE', `${cms()}/${name}`);
    assert.is(d.status, 200, d.text);
    for (const { client } of conns) {
      const g = await client.request('GET', `${cms()}/${name}`);
      assert.is(g.status, 404, `GET after delete: ${g.text}`);
      assert.is(g.json.message, `configmaps "${name}" not found`);
    }
  }
});

test('a CRD created through one connection is served on every connection', async () => {
  const group = `${ns}.workers.example.com`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
    },
  };
  const c = await conns[3]!.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.is(c.status, 201, c.text);
  try {
    await eventually('CRD Established', async () => {
      const r = await conns[3]!.client.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
      return (r.json?.status?.conditions ?? []).some((x: any) => x.type === 'Established' && x.status === 'True');
    });
    const path = `/apis/${group}/v1/namespaces/${ns}/widgets`;
    const made = await Promise.all(conns.map(({ client }, i) => client.request('POST', path, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: i } } })));
    for (const r of made) assert.is(r.status, 201, r.text);
    for (const { client } of conns) {
      const l = await client.request('GET', path);
      assert.is(l.status, 200, l.text);
      assert.is(l.json.items.length, CONNECTIONS);
    }
  } finally {
    await conns[0]!.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`);
  }
});

test('a store that refuses writes: every connection gets the same 503, then writes resume everywhere (local only)', async () => {
  if (!t.local) return;
  const health = t.local.server.storage.health;
  health.fail('test-fault', 'no space left on device (ENOSPC): injected by test/workers.test.ts');
  try {
    await eventually('every thread refuses', async () => {
      const rs = await Promise.all(conns.map(({ client }, i) => client.request('POST', cms(), { body: cm(`fault-${i}`) })));
      return rs.every((r) => r.status === 503);
    });
    const rs = await Promise.all(conns.map(({ client }, i) => client.request('POST', cms(), { body: cm(`fault-${i}`) })));
    const messages = new Set(rs.map((r) => `${r.status} ${r.headers['retry-after']} ${r.json.reason} ${r.json.message}`));
    assert.is(messages.size, 1, [...messages].join('\n'));
    assert.match([...messages][0]!, /^503 1 ServiceUnavailable .*no space left on device/);
    // /readyz of every thread reports the leader's storage problem.
    const ready = await Promise.all(conns.map(({ client }) => client.request('GET', '/readyz?verbose')));
    for (const r of ready) assert.is(r.status, 500, r.text);
  } finally {
    health.clear('test-fault');
  }
  await eventually('every thread writes again', async () => {
    const rs = await Promise.all(conns.map(({ client }, i) => client.request('POST', cms(), { body: cm(`after-fault-${i}-${Date.now()}`) })));
    return rs.every((r) => r.status === 201);
  });
});

/** The sum of one counter's series whose labels include every one of `labels`. */
function counter(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

test('/metrics on any connection counts the requests of every thread', async () => {
  const labels = { verb: 'LIST', resource: 'secrets', code: '200' };
  const scrape = async (c: Client): Promise<number> => {
    const r = await c.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
    assert.is(r.status, 200);
    return counter(r.text, 'apiserver_request_total', labels);
  };
  const before = await scrape(conns[0]!.client);
  await Promise.all(conns.flatMap(({ client }) => [client, client].map((c) => c.request('GET', `/api/v1/namespaces/${ns}/secrets`))));
  // Every connection's scrape (either thread) sees all 2 × CONNECTIONS lists.
  for (const { client } of conns) assert.is(await scrape(client), before + 2 * CONNECTIONS);
});

test('audit events of both threads go to one file, one whole JSON event a line (local only)', async () => {
  if (!t.local) return;
  const ids = await Promise.all(
    conns.flatMap(({ client }) => [1, 2, 3, 4].map(async () => String((await client.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`)).headers['audit-id']))),
  );
  await eventually('every request audited', async () => {
    const lines = readFileSync(auditLog, 'utf8').split('\n').filter(Boolean);
    const events = lines.map((l) => JSON.parse(l) as { auditID: string; stage: string }); // a torn line would throw
    const complete = new Set(events.filter((e) => e.stage === 'ResponseComplete').map((e) => e.auditID));
    return ids.every((id) => complete.has(id));
  });
});

test.run();
