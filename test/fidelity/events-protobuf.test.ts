/**
 * Events over Protobuf (client-go's default for built-in kinds, e.g. event recorders): a core/v1
 * Event posted as `application/vnd.kubernetes.protobuf` is accepted, and every version's Protobuf
 * answer decodes to exactly the object its JSON answer shows. Runs on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { bytesClient, dropNulls, type BytesClient } from '../bytes-client.ts';
import { PROTOBUF, encodeProtobuf, decodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let client: BytesClient;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('evpb');
  client = bytesClient(t.kubeconfig);
});

test.after(async () => {
  await client?.close();
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
  const created = await client.request('POST', `/api/v1/namespaces/${ns}/events`, { 'content-type': PROTOBUF, accept: PROTOBUF }, encodeProtobuf(ev));
  assert.is(created.status, 201, created.body.toString('utf8').slice(0, 300));
  assert.is(created.type, PROTOBUF);
  const fromPb = decodeProtobuf(created.body).object as unknown as { metadata: { name: string }; message: string; count: number };
  assert.is(fromPb.metadata.name, 'pb1');
  assert.is(fromPb.message, 'over protobuf');
  assert.is(fromPb.count, 2);
  for (const base of [`/api/v1`, `/apis/events.k8s.io/v1`, `/apis/events.k8s.io/v1beta1`]) {
    const path = `${base}/namespaces/${ns}/events/pb1`;
    const json = await client.request('GET', path, { accept: 'application/json' });
    const pb = await client.request('GET', path, { accept: PROTOBUF });
    assert.is(pb.status, 200, `${base}: ${pb.body.toString('utf8').slice(0, 200)}`);
    assert.is(pb.type, PROTOBUF, base);
    // The decoder leaves a zero Time/MicroTime out where Go's JSON writes `null` (eventTime).
    assert.equal(decodeProtobuf(pb.body).object, dropNulls(JSON.parse(json.body.toString('utf8'))), `${base}: protobuf decodes to the JSON answer`);
  }
  const list = await client.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, { accept: PROTOBUF });
  assert.is(list.status, 200);
  const items = (decodeProtobuf(list.body).object as unknown as { kind: string; items: { note: string }[] });
  assert.is(items.kind, 'EventList');
  assert.equal(items.items.map((i) => i.note), ['over protobuf']);
});

test.run();
