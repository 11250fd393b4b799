/**
 * --event-ttl: the server deletes an Event once the TTL has passed since its last write (kube's
 * etcd lease, renewed by every write), whichever API version wrote it; a write renews it; other
 * kinds are untouched; a restarted server resumes expiry from the stored objects. Local only:
 * the reference runs with kube's default hour.
 */
import { rmSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, tempDir, type TestServer } from './harness.ts';

const TTL_MS = 2000;
let s: TestServer;
const ns = 'ttl';
const ev = (name: string) => ({ metadata: { name }, involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns }, reason: 'R', message: 'm' });
const status = async (path: string): Promise<number> => (await s.client.request('GET', path)).status;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  s = await startTestServer({ eventTtlMs: TTL_MS });
  await s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
});
test.after(() => s.close());

test('events expire TTL after their last write; a write renews; other kinds stay', async () => {
  const core = `/api/v1/namespaces/${ns}/events`;
  assert.is((await s.client.request('POST', core, { body: ev('a') })).status, 201);
  assert.is((await s.client.request('POST', core, { body: ev('renewed') })).status, 201);
  const v1 = await s.client.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
    body: { metadata: { name: 'b' }, regarding: { kind: 'ConfigMap', name: 'x', namespace: ns }, reason: 'R', action: 'A', type: 'Normal', eventTime: '2026-11-23T11:00:00.000000Z', reportingController: 'c', reportingInstance: 'i' },
  });
  assert.is(v1.status, 201, v1.text);
  assert.is((await s.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'keep' } } })).status, 201);
  await sleep(TTL_MS / 2);
  const renew = await s.client.request('PATCH', `${core}/renewed`, { raw: '{"count":2}', contentType: 'application/merge-patch+json' });
  assert.is(renew.status, 200, renew.text);
  await sleep(TTL_MS / 2 + 700);
  assert.is(await status(`${core}/a`), 404, 'a expired');
  assert.is(await status(`${core}/b`), 404, 'b (written through events.k8s.io/v1) expired');
  assert.is(await status(`${core}/renewed`), 200, 'renewed lives on');
  assert.is(await status(`/api/v1/namespaces/${ns}/configmaps/keep`), 200);
  await sleep(TTL_MS / 2 + 200);
  assert.is(await status(`${core}/renewed`), 404, 'renewed expired TTL after its last write');
});

test('a restarted server expires the events stored before it started', async () => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir, eventTtlMs: 3_600_000 });
  await first.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
  assert.is((await first.client.request('POST', `/api/v1/namespaces/${ns}/events`, { body: ev('old') })).status, 201);
  await first.close();
  const second = await startTestServer({ dataDir, eventTtlMs: TTL_MS });
  try {
    await sleep(TTL_MS + 1200); // managedFields/creation times have second precision
    assert.is((await second.client.request('GET', `/api/v1/namespaces/${ns}/events/old`)).status, 404);
  } finally {
    await second.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
