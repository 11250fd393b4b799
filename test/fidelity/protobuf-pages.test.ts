/**
 * Paged and unpaged LISTs as Protobuf are, byte for byte, the Protobuf encoding of the JSON list
 * the same request answers (same continue token, so the same snapshot), and a page read again (the
 * server's encoded-item cache, internal/http/protobuf.ts) is the same bytes. Runs on both targets:
 * on the reference it checks the encoder against kube-apiserver's own bytes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { bytesClient, type BytesClient } from '../bytes-client.ts';
import { PROTOBUF, encodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let client: BytesClient;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('pbpages');
  client = bytesClient(t.kubeconfig);
  const objects = [
    { metadata: { name: 'a', labels: { z: '1', a: '2', 'example.com/tier': 'x' }, annotations: { note: '' } }, data: { k: 'v', empty: '' } },
    { metadata: { name: 'b' }, binaryData: { bin: Buffer.from([0, 1, 2, 255]).toString('base64') } },
    { metadata: { name: 'c', finalizers: ['example.com/keep'] }, data: { big: 'x'.repeat(3000) }, immutable: true },
    { metadata: { name: 'd' } },
    { metadata: { name: 'e', annotations: { note: 'ü €' } }, data: { key: 'значение' } },
  ];
  for (const o of objects) {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', ...o } });
    if (r.status !== 201) throw new Error(`create ${o.metadata.name}: ${r.status} ${r.text.slice(0, 300)}`);
  }
});

test.after(async () => {
  await client?.close();
  await t?.close();
});

const get = async (path: string, accept: string): Promise<Buffer> => {
  const r = await client.request('GET', path, { accept });
  assert.is(r.status, 200, `${path}: ${r.body.toString('utf8').slice(0, 300)}`);
  return r.body;
};

test('pages of 2 as Protobuf: the encoding of the JSON page at the same continue token, twice the same bytes', async () => {
  // The first page at an exact resourceVersion too: a controller may still add kube-root-ca.crt.
  const rv = JSON.parse((await get(`/api/v1/namespaces/${ns}/configmaps`, 'application/json')).toString('utf8')).metadata.resourceVersion;
  let cont = '';
  let pages = 0;
  do {
    const path = `/api/v1/namespaces/${ns}/configmaps?limit=2&${cont ? `continue=${encodeURIComponent(cont)}` : `resourceVersion=${rv}&resourceVersionMatch=Exact`}`;
    const json = JSON.parse((await get(path, 'application/json')).toString('utf8'));
    const pb = await get(path, PROTOBUF);
    assert.ok(pb.equals(encodeProtobuf(json)), `page ${pages}: Protobuf bytes differ from the JSON page's encoding`);
    assert.ok((await get(path, PROTOBUF)).equals(pb), `page ${pages}: read again, other bytes`);
    cont = json.metadata.continue ?? '';
    pages++;
  } while (cont);
  assert.ok(pages >= 3, String(pages));
});

test('an unpaged list as Protobuf: the encoding of the JSON list', async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const json = JSON.parse((await get(path, 'application/json')).toString('utf8'));
  assert.ok(json.items.length >= 5, String(json.items.length)); // and kube-root-ca.crt where a controller makes it
  const pb = await get(`${path}?resourceVersion=${json.metadata.resourceVersion}&resourceVersionMatch=Exact`, PROTOBUF);
  assert.ok(pb.equals(encodeProtobuf(json)), 'Protobuf bytes differ from the JSON list encoding');
});

test.run();
