/**
 * Events over Protobuf (client-go's default for built-in kinds, e.g. event recorders): a core/v1
 * Event posted as `application/vnd.kubernetes.protobuf` is accepted, and every version's Protobuf
 * answer decodes to exactly the object its JSON answer shows. Runs on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { PROTOBUF, encodeProtobuf, decodeProtobuf } from '../../internal/http/protobuf.ts';

/** Go's JSON has `"eventTime": null` and friends where the protobuf decoder leaves the key out. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

let t: Target;
let ns: string;
let agent: Agent;
let server: string;

async function raw(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: Buffer; type: string }> {
  const r = await request(server + path, { method: method as 'GET', headers, body, dispatcher: agent });
  return { status: r.statusCode, body: Buffer.from(await r.body.arrayBuffer()), type: String(r.headers['content-type'] ?? '') };
}

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('evpb');
  const k = readKubeconfig(t.kubeconfig);
  server = k.server;
  agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
});

test.after(async () => {
  await agent?.close();
  await t?.close();
});

test('a core/v1 Event posted as Protobuf is created; Protobuf answers of v1, events.k8s.io/v1 and v1beta1 decode to their JSON', async () => {
  const ev = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'pb1', namespace: ns },
    involvedObject: { kind: 'ConfigMap', name: 'x', namespace: ns, apiVersion: 'v1' },
    reason: 'Probe',
    message: 'over protobuf',
    type: 'Normal',
    source: { component: 'tester' },
    count: 2,
    firstTimestamp: '2026-01-02T03:04:05Z',
    lastTimestamp: '2026-01-02T03:04:06Z',
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  };
  const created = await raw('POST', `/api/v1/namespaces/${ns}/events`, { 'content-type': PROTOBUF, accept: PROTOBUF }, encodeProtobuf(ev));
  assert.is(created.status, 201, created.body.toString('utf8').slice(0, 300));
  assert.is(created.type, PROTOBUF);
  const fromPb = decodeProtobuf(created.body).object as unknown as { metadata: { name: string }; message: string; count: number };
  assert.is(fromPb.metadata.name, 'pb1');
  assert.is(fromPb.message, 'over protobuf');
  assert.is(fromPb.count, 2);
  for (const base of [`/api/v1`, `/apis/events.k8s.io/v1`, `/apis/events.k8s.io/v1beta1`]) {
    const path = `${base}/namespaces/${ns}/events/pb1`;
    const json = await raw('GET', path, { accept: 'application/json' });
    const pb = await raw('GET', path, { accept: PROTOBUF });
    assert.is(pb.status, 200, `${base}: ${pb.body.toString('utf8').slice(0, 200)}`);
    assert.is(pb.type, PROTOBUF, base);
    // The decoder leaves a zero Time/MicroTime out where Go's JSON writes `null` (eventTime).
    assert.equal(decodeProtobuf(pb.body).object, dropNulls(JSON.parse(json.body.toString('utf8'))), `${base}: protobuf decodes to the JSON answer`);
  }
  const list = await raw('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, { accept: PROTOBUF });
  assert.is(list.status, 200);
  const items = (decodeProtobuf(list.body).object as unknown as { kind: string; items: { note: string }[] });
  assert.is(items.kind, 'EventList');
  assert.equal(items.items.map((i) => i.note), ['over protobuf']);
});

test.run();
