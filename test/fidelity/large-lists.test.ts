/**
 * Unpaged lists larger than a megabyte, as kube-apiserver sends them: a chunked JSON body (no
 * Content-Length) from one consistent read. This server sends them while it reads them
 * (internal/http/respond.ts sendListStream, GenericReader.openList), from one storage snapshot.
 *
 * - the body is the same list a client gets by paging (same items, same order, same version),
 *   without a Content-Length; a small list still goes out whole with one;
 * - writes during the stream do not show up in it: it equals an Exact list at its version
 *   (which itself streams from the history keys);
 * - selectors filter per batch; Table and PartialObjectMetadataList conversions (a batch at a
 *   time here) answer every row, in order;
 * - a client that goes away mid-body leaves the server serving (its snapshot is released).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import https from 'node:https';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import type { Client } from '../harness.ts';
import { show, ok } from '../assertions.ts';

let t: Target;
let c: Client;
let CM = '';
let SMALL = '';
const COUNT = 1500;
const nameOf = (i: number): string => `l-${String(i).padStart(5, '0')}`;
const PAYLOAD = 'x'.repeat(1024);
const cm = (name: string, value: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v: value } });

test.before(async () => {
  // Without the per-namespace objects of kube-controller-manager (kube-root-ca.crt), which the
  // reference does not run either: the collections hold exactly what the suite creates.
  t = await startTarget({ namespaceDefaults: false });
  c = t.client;
  CM = `/api/v1/namespaces/${await t.createNamespace('large')}/configmaps`;
  SMALL = `/api/v1/namespaces/${await t.createNamespace('small')}/configmaps`;
  for (let i = 0; i < COUNT; i += 100) {
    await Promise.all(
      Array.from({ length: 100 }, (_, j) => i + j).map((n) => ok(c.request('POST', CM, { body: cm(nameOf(n), PAYLOAD, { parity: n % 2 ? 'odd' : 'even' }) }), 201, nameOf(n))),
    );
  }
  for (const n of ['a', 'b', 'c']) await ok(c.request('POST', SMALL, { body: cm(n, 'v', {}) }), 201, n);
});

test.after(async () => {
  await t?.close();
});

/** Items of every page of `path` (limit 500), and the first page's version. */
async function paged(path: string): Promise<{ rv: string; items: any[] }> {
  const items: any[] = [];
  let token = '';
  let rv = '';
  do {
    const p = await ok(c.request('GET', `${path}?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`), 200, 'page');
    rv ||= p.metadata.resourceVersion;
    items.push(...p.items);
    token = p.metadata.continue ?? '';
  } while (token);
  return { rv, items };
}

test('an unpaged list over a megabyte is chunked and equals the paged list', async () => {
  const r = await c.request('GET', CM);
  assert.is(r.status, 200, show(r));
  assert.is(r.headers['content-length'], undefined, 'no Content-Length: sent while read');
  assert.is(r.headers['transfer-encoding'], 'chunked');
  assert.is(r.headers['content-type'], 'application/json');
  assert.ok(r.text.length > 1 << 20, `body of ${r.text.length} bytes`);
  assert.ok(r.text.endsWith(']}\n'), 'a complete body with json.Encoder\'s newline');
  assert.is(r.json.kind, 'ConfigMapList');
  assert.is(r.json.apiVersion, 'v1');
  assert.equal(Object.keys(r.json.metadata), ['resourceVersion']);
  assert.equal(r.json.items.map((o: any) => o.metadata.name), Array.from({ length: COUNT }, (_, i) => nameOf(i)));
  assert.is(r.json.items[0].kind, undefined, 'items without their own TypeMeta, as kube writes lists');
  const p = await paged(CM);
  assert.is(p.rv, r.json.metadata.resourceVersion, 'nothing was written in between: same version');
  assert.equal(p.items, r.json.items);
});

test('a small list still goes out whole with a Content-Length', async () => {
  const r = await c.request('GET', SMALL);
  assert.is(r.status, 200, show(r));
  assert.is(r.headers['content-length'], String(Buffer.byteLength(r.text)));
  assert.equal(r.json.items.map((o: any) => o.metadata.name), ['a', 'b', 'c']);
});

test('writes during a streamed list do not reach it: it equals the Exact list at its version', async () => {
  let writing = true;
  let writes = 0;
  const writer = (async () => {
    for (let i = 0; writing && i < 400; i++) {
      const n = (i * 7) % COUNT;
      await ok(c.request('PUT', `${CM}/${nameOf(n)}`, { body: cm(nameOf(n), `changed-${i}`, { parity: 'changed' }) }), 200, `update ${n}`);
      await ok(c.request('POST', CM, { body: cm(`m-${String(i).padStart(4, '0')}`, 'new', {}) }), 201, `create ${i}`);
      writes += 2;
    }
  })();
  const lists = [];
  for (let i = 0; i < 3; i++) lists.push(await c.request('GET', CM));
  writing = false;
  await writer;
  assert.ok(writes > 0, 'the writer wrote while the lists ran');
  for (const [i, r] of lists.entries()) {
    assert.is(r.status, 200, show(r));
    const rv = r.json.metadata.resourceVersion;
    const exact = await c.request('GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    assert.is(exact.status, 200, show(exact));
    assert.is(exact.headers['transfer-encoding'], 'chunked', 'the Exact list streams too (history keys)');
    assert.is(exact.json.metadata.resourceVersion, rv);
    assert.equal(exact.json.items, r.json.items, `list ${i} at ${rv} equals the Exact list at its version`);
    for (const o of r.json.items) assert.ok(Number(o.metadata.resourceVersion) <= Number(rv), `${o.metadata.name} is not newer than the list`);
  }
});

test('a label selector filters a streamed list', async () => {
  const r = await c.request('GET', `${CM}?labelSelector=parity%3Deven`);
  assert.is(r.status, 200, show(r));
  const all = (await c.request('GET', CM)).json.items as any[];
  const want = all.filter((o) => o.metadata.labels?.parity === 'even').map((o) => o.metadata.name);
  assert.ok(want.length > 500);
  assert.equal(r.json.items.map((o: any) => o.metadata.name), want);
});

test('Table conversion of a large list answers every row', async () => {
  const r = await c.request('GET', CM, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(r.status, 200, show(r));
  assert.is(r.json.kind, 'Table');
  const all = (await c.request('GET', CM)).json.items as any[];
  assert.is(r.json.rows.length, all.length);
  assert.equal(r.json.rows.map((row: any) => row.cells[0]), all.map((o) => o.metadata.name));
});

test('a Table with whole objects and a PartialObjectMetadataList of a large list: every row, in order, the Table chunked', async () => {
  const all = (await c.request('GET', CM)).json.items as any[];
  const ids = all.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`);
  // Rows that carry their objects: over a megabyte, converted and sent a batch at a time here.
  const table = await c.request('GET', `${CM}?includeObject=Object`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(table.status, 200, show(table));
  assert.is(table.headers['content-length'], undefined, 'no Content-Length');
  assert.is(table.headers['transfer-encoding'], 'chunked');
  assert.ok(table.text.endsWith(']}\n'), 'a complete body');
  assert.is(table.json.kind, 'Table');
  assert.equal(Object.keys(table.json), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
  assert.is(table.json.columnDefinitions[0].name, 'Name');
  assert.equal(table.json.rows.map((row: any) => `${row.object.metadata.name}@${row.object.metadata.resourceVersion}`), ids);
  assert.equal(table.json.rows.map((row: any) => row.cells[0]), all.map((o) => o.metadata.name));
  assert.equal(table.json.rows.map((row: any) => row.object.data.v), all.map((o) => o.data.v));
  const meta = await c.request('GET', CM, { headers: { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' } });
  assert.is(meta.status, 200, show(meta));
  assert.is(meta.json.kind, 'PartialObjectMetadataList');
  assert.equal(meta.json.items.map((o: any) => `${o.metadata.name}@${o.metadata.resourceVersion}`), ids);
  assert.is(meta.json.items[0].kind, 'PartialObjectMetadata');
  assert.is(meta.json.items[0].data, undefined);
});

test('clients that leave mid-body do not disturb the server', async () => {
  const creds = readKubeconfig(t.kubeconfig);
  const url = new URL(t.url);
  const agent = new https.Agent({ ca: creds.ca, cert: creds.cert, key: creds.key });
  for (let i = 0; i < 10; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = https.get({ host: url.hostname, port: url.port, path: CM, agent, headers: { accept: 'application/json' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
        res.once('error', () => undefined);
      });
      req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    });
  }
  agent.destroy();
  const r = await c.request('GET', CM);
  assert.is(r.status, 200, show(r));
  assert.ok(r.json.items.length >= COUNT);
});

test.run();
