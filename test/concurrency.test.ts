/**
 * Optimistic concurrency under real concurrency (HTTP/1.1, many connections, one in-process
 * server): compare-and-swap updates, racing creates, unconditional patches that the server
 * retries internally, and resourceVersions that follow the log's order.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, type HttpResult } from './harness.ts';

const NS = 'concurrency';
let s: TestServer;

const cmPath = (name = '') => `/api/v1/namespaces/${NS}/configmaps${name ? `/${name}` : ''}`;
const rvOf = (r: HttpResult): number => Number(r.json.metadata.resourceVersion);
const auditId = (r: HttpResult): string => String(r.headers['audit-id']);

function countBy<T>(xs: T[], f: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[f(x)] = (out[f(x)] ?? 0) + 1;
  return out;
}

/** offset of the last log event each request appended (a request's retries share its id). */
async function logOffsetsByRequest(from: number): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for await (const { offset, event } of s.server.storage.log.read(from)) {
    if (!event.requestId) continue;
    const list = out.get(event.requestId) ?? [];
    list.push(offset);
    out.set(event.requestId, list);
  }
  return out;
}

/**
 * Successful writes: resourceVersions unique, each equal to the offset of the (last) log event its
 * request appended, so sorting by resourceVersion is sorting by log order.
 */
async function assertRvsFollowLog(oks: HttpResult[], from: number): Promise<void> {
  const rvs = oks.map(rvOf);
  assert.is(new Set(rvs).size, rvs.length, 'resourceVersions of successful writes are unique');
  for (const rv of rvs) assert.ok(Number.isSafeInteger(rv) && rv >= from, `rv ${rv} at or after log end ${from}`);
  const offsets = await logOffsetsByRequest(from);
  for (const r of oks) {
    const mine = offsets.get(auditId(r));
    assert.ok(mine?.length, `request ${auditId(r)} appended to the log`);
    assert.is(rvOf(r), mine![mine!.length - 1], 'resourceVersion = offset of the accepted log event');
  }
}

async function logEnd(): Promise<number> {
  return s.server.storage.log.endOffset();
}

test.before(async () => {
  s = await startTestServer();
  const r = await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await s?.close();
});

test('50 concurrent PUTs with the same resourceVersion: one 200, 49 × 409 Conflict', async () => {
  const created = await s.client.request('POST', cmPath(), { body: { metadata: { name: 'cas' }, data: { v: 'initial' } } });
  assert.is(created.status, 201);
  const rv = created.json.metadata.resourceVersion;
  const from = await logEnd();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      s.client.request('PUT', cmPath('cas'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cas', resourceVersion: rv }, data: { v: `writer-${i}` } } }),
    ),
  );
  assert.equal(countBy(results, (r) => String(r.status)), { '200': 1, '409': 49 });
  const winner = results.find((r) => r.status === 200)!;
  for (const r of results.filter((x) => x.status === 409)) {
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.status, 'Failure');
    assert.is(r.json.reason, 'Conflict');
    assert.is(r.json.code, 409);
    assert.is(r.json.details?.name, 'cas');
    assert.is(r.json.details?.kind, 'configmaps');
    assert.match(r.json.message, /Operation cannot be fulfilled on configmaps "cas": the object has been modified/);
  }
  assert.ok(rvOf(winner) > Number(rv));
  const now = await s.client.request('GET', cmPath('cas'));
  assert.is(now.json.metadata.resourceVersion, winner.json.metadata.resourceVersion);
  assert.equal(now.json.data, winner.json.data, 'the stored object is the winner’s');
  await assertRvsFollowLog([winner], from);

  // the losers retry with the winner's version: exactly one of them wins again
  const again = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      s.client.request('PUT', cmPath('cas'), { body: { metadata: { name: 'cas', resourceVersion: winner.json.metadata.resourceVersion }, data: { v: `round2-${i}` } } }),
    ),
  );
  assert.equal(countBy(again, (r) => String(r.status)), { '200': 1, '409': 9 });
});

test('50 concurrent PUTs of an identical body with the current resourceVersion', async () => {
  // kube-apiserver: a no-op update (nothing changes) is answered 200 without a write, so every
  // writer whose body equals the stored object succeeds and the version does not move.
  const cur = await s.client.request('GET', cmPath('cas'));
  const body = { metadata: { name: 'cas', resourceVersion: cur.json.metadata.resourceVersion }, data: cur.json.data };
  const results = await Promise.all(Array.from({ length: 50 }, () => s.client.request('PUT', cmPath('cas'), { body })));
  assert.equal(countBy(results, (r) => String(r.status)), { '200': 50 });
  for (const r of results) assert.is(r.json.metadata.resourceVersion, cur.json.metadata.resourceVersion);
});

test('20 concurrent creates of one name: one 201, 19 × 409 AlreadyExists', async () => {
  const from = await logEnd();
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => s.client.request('POST', cmPath(), { body: { metadata: { name: 'racer' }, data: { who: String(i) } } })),
  );
  assert.equal(countBy(results, (r) => String(r.status)), { '201': 1, '409': 19 });
  const winner = results.find((r) => r.status === 201)!;
  for (const r of results.filter((x) => x.status === 409)) {
    assert.is(r.json.kind, 'Status');
    assert.is(r.json.reason, 'AlreadyExists');
    assert.is(r.json.details?.name, 'racer');
    assert.is(r.json.details?.kind, 'configmaps');
    assert.is(r.json.message, 'configmaps "racer" already exists');
  }
  const stored = await s.client.request('GET', cmPath('racer'));
  assert.is(stored.json.metadata.uid, winner.json.metadata.uid);
  assert.equal(stored.json.data, winner.json.data);
  await assertRvsFollowLog([winner], from);
});

test('20 concurrent creates of one cluster-scoped name (Namespace): one 201', async () => {
  const results = await Promise.all(Array.from({ length: 20 }, () => s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'racing-ns' } } })));
  assert.equal(countBy(results, (r) => `${r.status}${r.json?.reason ? ' ' + r.json.reason : ''}`), { '201': 1, '409 AlreadyExists': 19 });
});

test('50 concurrent merge patches without resourceVersion: all 200, all 50 keys kept', async () => {
  const created = await s.client.request('POST', cmPath(), { body: { metadata: { name: 'merged' }, data: { base: 'x' } } });
  assert.is(created.status, 201);
  const from = await logEnd();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      s.client.request('PATCH', cmPath('merged'), { raw: JSON.stringify({ data: { [`k${i}`]: `v${i}` } }), contentType: 'application/merge-patch+json' }),
    ),
  );
  const failed = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.json?.reason}: ${r.json?.message}`);
  assert.equal(failed, [], `all patches succeed (server retries on conflict); failures: ${failed.length}`);
  const final = await s.client.request('GET', cmPath('merged'));
  const expected: Record<string, string> = { base: 'x' };
  for (let i = 0; i < 50; i++) expected[`k${i}`] = `v${i}`;
  assert.equal(final.json.data, expected);

  await assertRvsFollowLog(results, from);
  // Linearizable in log order: each answer holds its own key and those of every patch before it.
  const ordered = [...results].sort((a, b) => rvOf(a) - rvOf(b));
  assert.is(final.json.metadata.resourceVersion, ordered[ordered.length - 1].json.metadata.resourceVersion);
  const seen = new Set(['base']);
  for (const r of ordered) {
    const mine = Object.keys(JSON.parse(JSON.stringify(r.json.data))).filter((k) => !seen.has(k));
    assert.is(mine.length, 1, `the answer at rv ${rvOf(r)} adds exactly one key to those before it`);
    seen.add(mine[0]);
    assert.equal(Object.keys(r.json.data).sort(), [...seen].sort());
  }
});

test('50 concurrent strategic-merge and JSON patches (add) without resourceVersion', async () => {
  // A seed key: an empty `data: {}` is not stored (omitempty), and a JSON patch cannot add below
  // a missing /data (422 on kube-apiserver too).
  await s.client.request('POST', cmPath(), { body: { metadata: { name: 'mixed' }, data: { seed: '0' } } });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      i % 2
        ? s.client.request('PATCH', cmPath('mixed'), { raw: JSON.stringify({ metadata: { labels: { [`l${i}`]: 'y' } }, data: { [`s${i}`]: 'y' } }), contentType: 'application/strategic-merge-patch+json' })
        : s.client.request('PATCH', cmPath('mixed'), { raw: JSON.stringify([{ op: 'add', path: `/data/j${i}`, value: 'z' }]), contentType: 'application/json-patch+json' }),
    ),
  );
  const failed = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.json?.reason}: ${r.json?.message}`);
  assert.equal(failed, []);
  const final = await s.client.request('GET', cmPath('mixed'));
  assert.is(Object.keys(final.json.data).length, 51);
  assert.is(Object.keys(final.json.metadata.labels).length, 25);
});

test('mixed writers on many objects: every successful write has a unique rv, in log order', async () => {
  const from = await logEnd();
  const ops: Promise<HttpResult>[] = [];
  for (let i = 0; i < 30; i++) ops.push(s.client.request('POST', cmPath(), { body: { metadata: { name: `many-${i}` }, data: { n: String(i) } } }));
  const creates = await Promise.all(ops);
  for (const r of creates) assert.is(r.status, 201, r.text);
  const writes = await Promise.all(
    creates.flatMap((c, i) => [
      s.client.request('PATCH', cmPath(`many-${i}`), { raw: JSON.stringify({ data: { a: '1' } }), contentType: 'application/merge-patch+json' }),
      s.client.request('PATCH', cmPath(`many-${i}`), { raw: JSON.stringify({ data: { b: '2' } }), contentType: 'application/merge-patch+json' }),
      s.client.request('PUT', cmPath(`many-${i}`), { body: { metadata: { name: `many-${i}`, resourceVersion: c.json.metadata.resourceVersion }, data: { put: 'yes' } } }),
    ]),
  );
  const oks = writes.filter((r) => r.status === 200);
  const conflicts = writes.filter((r) => r.status === 409);
  assert.is(oks.length + conflicts.length, writes.length, 'only 200s and 409s');
  for (const r of conflicts) assert.is(r.json.reason, 'Conflict');
  // the patches never conflict (no precondition); a PUT conflicts iff a patch got in first
  for (let i = 0; i < 30; i++) {
    assert.is(writes[i * 3].status, 200);
    assert.is(writes[i * 3 + 1].status, 200);
  }
  await assertRvsFollowLog([...creates, ...oks], from);
  // list answers at a version covering all of them
  const list = await s.client.request('GET', cmPath());
  const listRv = Number(list.json.metadata.resourceVersion);
  for (const r of oks) assert.ok(rvOf(r) <= listRv);
  for (let i = 0; i < 30; i++) {
    const item = list.json.items.find((x: any) => x.metadata.name === `many-${i}`);
    const mine = [writes[i * 3], writes[i * 3 + 1], writes[i * 3 + 2]].filter((r) => r.status === 200);
    const last = mine.sort((a, b) => rvOf(a) - rvOf(b)).at(-1)!;
    assert.is(item.metadata.resourceVersion, last.json.metadata.resourceVersion, `many-${i}: the stored version is the last write`);
  }
});

test('concurrent deletes of one object: one 200, the rest 404 NotFound', async () => {
  await s.client.request('POST', cmPath(), { body: { metadata: { name: 'victim' } } });
  const results = await Promise.all(Array.from({ length: 20 }, () => s.client.request('DELETE', cmPath('victim'))));
  assert.equal(countBy(results, (r) => `${r.status}${r.json?.reason ? ' ' + r.json.reason : ''}`), { '200': 1, '404 NotFound': 19 });
});

test.run();
