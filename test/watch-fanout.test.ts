/**
 * Watch fan-out through HTTP: many watchers of one namespace in every representation (JSON,
 * Protobuf, Table with two includeObject values, PartialObjectMetadata, JSON with a label
 * selector). Each change must be serialized once per representation and its bytes reused for
 * every watcher of that representation, which the server's `watch_events_encoded_total` and
 * `watch_events_sent_total` counters show at /metrics; and each watcher must still get its own
 * events — a Table watcher's first event carries the column definitions whenever it starts, a
 * selector watcher sees an object leave its selection as DELETED while the others see MODIFIED.
 * Encoding per watcher again would multiply the encoded counts by the watchers and fail here.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { adminAgentFor } from './watch-stream.ts';
import { startTestServer, eventually, testWorkers, type TestServer } from './harness.ts';
import { ok } from './assertions.ts';
import { decodeWatchEvent } from '../internal/http/protobuf.ts';

const NS = 'fanout';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const METADATA = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let s: TestServer;
let agent: Agent;

test.before(async () => {
  s = await startTestServer();
  agent = adminAgentFor(join(s.dataDir, 'pki'));
  await ok(s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  // The root CA publisher writes kube-root-ca.crt into a new namespace: let that happen first.
  await eventually('kube-root-ca.crt', async () => (await s.client.request('GET', `${CM}/kube-root-ca.crt`)).status === 200);
});

test.after(async () => {
  await agent.close();
  await s.close();
});

/** A watch stream's raw bytes, split into events (JSON lines or length-prefixed protobuf frames). */
interface RawWatch {
  bytes(): Buffer;
  events(): Record<string, any>[];
  close(): void;
}

async function openRaw(path: string, accept: string): Promise<RawWatch> {
  const r = await request(s.url + path, { dispatcher: agent, headers: { accept } });
  assert.is(r.statusCode, 200, `watch ${path} as ${accept}`);
  const chunks: Buffer[] = [];
  r.body.on('data', (c: Buffer) => chunks.push(c));
  r.body.on('error', () => undefined);
  const protobuf = accept === PROTOBUF;
  return {
    bytes: () => Buffer.concat(chunks),
    events() {
      const b = Buffer.concat(chunks);
      if (!protobuf) return b.toString().split('\n').filter((l) => l).map((l) => JSON.parse(l));
      const out: Record<string, any>[] = [];
      for (let i = 0; i + 4 <= b.length; ) {
        const n = b.readUInt32BE(i);
        if (i + 4 + n > b.length) break;
        out.push(decodeWatchEvent(b.subarray(i + 4, i + 4 + n)));
        i += 4 + n;
      }
      return out;
    },
    close: () => r.body.destroy(),
  };
}

async function counters(): Promise<{ encoded: Record<string, number>; sent: Record<string, number> }> {
  const r = await s.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
  assert.is(r.status, 200, 'metrics');
  const body = r.text;
  const out = { encoded: {} as Record<string, number>, sent: {} as Record<string, number> };
  for (const m of body.matchAll(/^watch_events_(encoded|sent)_total\{format="([^"]+)"\} (\d+)$/gm)) out[m[1] as 'encoded' | 'sent'][m[2]] = Number(m[3]);
  return out;
}

const delta = (after: Record<string, number>, before: Record<string, number>): Record<string, number> => {
  const d: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) if (v - (before[k] ?? 0)) d[k] = v - (before[k] ?? 0);
  return d;
};

test('one encode per change and representation, shared by every watcher of it; per-watcher events intact', async () => {
  const list = await ok(s.client.request('GET', CM), 200, 'list');
  const rv0 = list.metadata.resourceVersion as string;
  const from = (rv: string) => `${CM}?watch=1&timeoutSeconds=30&resourceVersion=${rv}`;
  const json = await Promise.all(Array.from({ length: 6 }, () => openRaw(from(rv0), 'application/json')));
  const proto = await Promise.all(Array.from({ length: 4 }, () => openRaw(from(rv0), PROTOBUF)));
  const tables = await Promise.all(Array.from({ length: 2 }, () => openRaw(from(rv0), TABLE)));
  const tableNone = await openRaw(`${from(rv0)}&includeObject=None`, TABLE);
  const meta = await Promise.all(Array.from({ length: 2 }, () => openRaw(from(rv0), METADATA)));
  const selected = await Promise.all(Array.from({ length: 2 }, () => openRaw(`${from(rv0)}&labelSelector=tier%3Dweb`, 'application/json')));
  const before = await counters();

  const a = await ok(s.client.request('POST', CM, { body: { metadata: { name: 'a', labels: { tier: 'web' } }, data: { k: '<1>' } } }), 201, 'create');
  // A Table watcher starting after the create: its first event (MODIFIED) carries the columns.
  const lateTable = await openRaw(from(a.metadata.resourceVersion), TABLE);
  const m = await ok(s.client.request('PUT', `${CM}/a`, { body: { metadata: { name: 'a' }, data: { k: '2' } } }), 200, 'update drops the label');
  await ok(s.client.request('DELETE', `${CM}/a`), 200, 'delete');

  const all = [...json, ...proto, ...tables, tableNone, ...meta];
  await eventually('every watcher got its events', async () => all.every((w) => w.events().length === 3) && lateTable.events().length === 2 && selected.every((w) => w.events().length === 2), 10_000);
  const after = await counters();
  [...all, lateTable, ...selected].forEach((w) => w.close());

  // Encoded once per change and representation: json 3 changes + 1 "left the selection"
  // DELETED shared by both selector watchers (their ADDED is the plain frame); table: Metadata
  // ADDED+columns, MODIFIED, MODIFIED+columns (the late watcher), DELETED, and None's three.
  // `--workers N` (TEST_WORKERS): each serving thread encodes once for its own watchers, and the
  // watchers' connections are spread over the threads: between once and N times per change.
  const once = { json: 4, protobuf: 3, table: 7, metadata: 3 };
  const threads = testWorkers().workers ?? 1;
  const encoded = delta(after.encoded, before.encoded);
  if (threads === 1) assert.equal(encoded, once);
  else for (const [format, n] of Object.entries(once)) assert.ok(encoded[format]! >= n && encoded[format]! <= n * threads, `${format}: ${encoded[format]} encodes, ${n}..${n * threads} expected`);
  assert.equal(delta(after.sent, before.sent), { json: 6 * 3 + 2 * 2, protobuf: 4 * 3, table: 3 * 3 + 2, metadata: 2 * 3 });

  // Same representation, same bytes; and what they carry is right.
  for (const w of json.slice(1)) assert.ok(w.bytes().equals(json[0].bytes()), 'JSON watchers got identical streams');
  const plain = json[0].events();
  assert.equal(plain.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  assert.equal(plain.slice(0, 2).map((e) => e.object.metadata.resourceVersion), [a.metadata.resourceVersion, m.metadata.resourceVersion]);
  assert.is(json[0].events()[0].object.data.k, '<1>', 'Go-escaped bytes decode to the object');
  assert.match(json[0].bytes().toString(), '\\u003c1\\u003e', 'kube escapes < and > in JSON');
  for (const w of proto) {
    assert.ok(w.bytes().equals(proto[0].bytes()), 'protobuf watchers got identical streams');
    assert.equal(w.events().map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
  }
  for (const w of selected) {
    const ev = w.events();
    assert.equal(ev.map((e) => e.type), ['ADDED', 'DELETED'], 'the selector watcher sees the object leave');
    assert.is(ev[1].object.metadata.resourceVersion, m.metadata.resourceVersion, 'left at the update, with its labels from before');
    assert.equal(ev[1].object.metadata.labels, { tier: 'web' });
  }
  for (const w of [...tables, tableNone, lateTable]) {
    const ev = w.events();
    assert.is(ev[0].object.kind, 'Table');
    assert.ok(Array.isArray(ev[0].object.columnDefinitions) && ev[0].object.columnDefinitions.length > 0, 'columns on the first event');
    for (const e of ev.slice(1)) assert.is(e.object.columnDefinitions, null, 'and on no other');
  }
  assert.equal(lateTable.events().map((e) => e.type), ['MODIFIED', 'DELETED']);
  assert.is(tables[0].events()[0].object.rows[0].object.kind, 'PartialObjectMetadata');
  assert.is(tableNone.events()[0].object.rows[0].object, null);
  for (const w of meta) assert.equal(w.events().map((e) => `${e.type}/${e.object.kind}`), ['ADDED/PartialObjectMetadata', 'MODIFIED/PartialObjectMetadata', 'DELETED/PartialObjectMetadata']);
});

test('a watcher that stops reading is cut off once 16 MiB wait for it; the others get every event', async () => {
  const ns = 'fanout-slow';
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  await ok(s.client.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201, 'namespace');
  await eventually('kube-root-ca.crt', async () => (await s.client.request('GET', `${path}/kube-root-ca.crt`)).status === 200);
  const rv = (await ok(s.client.request('GET', path), 200, 'list')).metadata.resourceVersion as string;
  const endedSlow = async () => Number((await s.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } })).text.match(/^watch_watchers_ended_total\{reason="slow"\} (\d+)$/m)?.[1] ?? 0);
  const slowBefore = await endedSlow();
  const watchPath = `${path}?watch=1&timeoutSeconds=60&resourceVersion=${rv}`;
  const fast = await openRaw(watchPath, 'application/json');
  // Never read: undici stops pulling, the socket and then the server's buffer fill up.
  const stalled = await request(s.url + watchPath, { dispatcher: agent, headers: { accept: 'application/json' } });
  assert.is(stalled.statusCode, 200);
  // 40 × 900 KiB of events: past the 16 MiB bound plus what the kernel buffers hold on loopback.
  const value = 'x'.repeat(900 * 1024);
  const n = 40;
  for (let i = 0; i < n; i++) await ok(s.client.request('POST', path, { body: { metadata: { name: `big-${i}` }, data: { v: value } } }), 201, `create ${i}`);
  await eventually('the fast watcher got every event', async () => fast.events().length === n, 20_000);
  await eventually('the stalled watcher was ended as slow', async () => (await endedSlow()) === slowBefore + 1, 10_000);
  // Reading now: what the kernel still held arrives, then the stream is cut (its queue was
  // dropped to free the memory; client-go takes that as a closed watch and watches again).
  const chunks: Buffer[] = [];
  const cut = await new Promise<boolean>((resolve) => {
    stalled.body.on('data', (c: Buffer) => chunks.push(c));
    stalled.body.on('end', () => resolve(false));
    stalled.body.on('error', () => resolve(true));
  });
  assert.ok(cut, 'the stalled watch was cut off');
  const got = Buffer.concat(chunks).toString().split('\n').filter((l) => l).length;
  assert.ok(got > 0 && got < n, `the stalled watcher got ${got} of ${n} events, then its stream ended`);
  assert.equal(fast.events().map((e) => e.object.metadata.name), Array.from({ length: n }, (_, i) => `big-${i}`));
  fast.close();
});

test.run();
