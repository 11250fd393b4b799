/**
 * A data dir written before key format 2 (storage/format.ts) keeps working: the server upgrades
 * it at open (keys rewritten, the embedded log moved into a store of its own), and gets, lists (latest, paged, exact), cross-namespace lists and watches resumed
 * from a version before the upgrade all answer as before, in kube's order.
 *
 * The format-1 store is made the way the previous version laid it out: a server writes the objects,
 * then its o/ and h/ keys are rewritten to `o/<path>/` and `h/<path>/<rv>` and m/format removed
 * directly in LevelDB (the previous version wrote exactly these keys and no marker).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { ClassicLevel } from 'classic-level';
import { startTestServer, tempDir, type TestServer, type HttpResult } from './harness.ts';
import { META_FORMAT } from '../internal/storage/keys.ts';
import { KEY_FORMAT } from '../internal/storage/format.ts';

const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 400)}`;
const cm = (name: string, v = '1') => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });
const names = (r: HttpResult): string[] => (r.json.items as any[]).map((i) => i.metadata.name);
const nsNames = (r: HttpResult): string[] => (r.json.items as any[]).map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
const events = (r: HttpResult): string[] => r.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).map((e) => `${e.type} ${e.object.metadata.name}`);

const openDb = async (dataDir: string): Promise<ClassicLevel<string, Buffer>> => {
  const db = new ClassicLevel<string, Buffer>(join(dataDir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await db.open();
  return db;
};

/**
 * Rewrite a stopped server's data dir into key format 1; returns how many keys changed. Format 1
 * (and 2) kept the embedded log inside the snapshot store: its l/ entries move back into db/ and
 * the log store goes away.
 */
async function toFormat1(dataDir: string): Promise<number> {
  const db = await openDb(dataDir);
  const ops: Array<{ type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string }> = [];
  const logDb = new ClassicLevel<string, Buffer>(join(dataDir, 'log'), { keyEncoding: 'utf8', valueEncoding: 'buffer' });
  await logDb.open();
  for await (const [k, v] of logDb.iterator({ gte: 'l/', lt: 'l0' })) ops.push({ type: 'put', key: k, value: v });
  await logDb.close();
  rmSync(join(dataDir, 'log'), { recursive: true });
  for await (const [k, v] of db.iterator({ gte: 'o/', lt: 'o0' })) ops.push({ type: 'del', key: k }, { type: 'put', key: `${k}/`, value: v });
  for await (const [k, v] of db.iterator({ gte: 'h/', lt: 'h0' })) {
    assert.is(k[k.length - 17], '\u0000', k);
    ops.push({ type: 'del', key: k }, { type: 'put', key: `${k.slice(0, -17)}/${k.slice(-16)}`, value: v });
  }
  ops.push({ type: 'del', key: META_FORMAT });
  await db.batch(ops);
  await db.close();
  return ops.length;
}

async function get(s: TestServer, path: string): Promise<HttpResult> {
  const r = await s.client.request('GET', path);
  assert.is(r.status, 200, show(r));
  return r;
}

test('a format-1 data dir is upgraded at start and reads as before, in kube order', async () => {
  const dataDir = tempDir('apiserver-format-');
  try {
    // Without the per-namespace controllers: the suite lists exactly the ConfigMaps it makes.
    let s = await startTestServer({ dataDir, namespaceDefaults: false });
    for (const ns of ['x', 'x-b']) {
      const r = await s.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } });
      assert.is(r.status, 201, show(r));
    }
    for (const n of ['app0', 'app.y', 'app', 'app-x']) {
      const r = await s.client.request('POST', '/api/v1/namespaces/x/configmaps', { body: cm(n) });
      assert.is(r.status, 201, show(r));
    }
    assert.is((await s.client.request('POST', '/api/v1/namespaces/x-b/configmaps', { body: cm('cm') })).status, 201);
    const before = await get(s, '/api/v1/namespaces/x/configmaps');
    const rv1 = before.json.metadata.resourceVersion;
    const firstPage = await get(s, '/api/v1/namespaces/x/configmaps?limit=2');
    const u = await s.client.request('PUT', '/api/v1/namespaces/x/configmaps/app', { body: { ...cm('app', '2'), metadata: { name: 'app', resourceVersion: (await get(s, '/api/v1/namespaces/x/configmaps/app')).json.metadata.resourceVersion } } });
    assert.is(u.status, 200, show(u));
    assert.is((await s.client.request('DELETE', '/api/v1/namespaces/x/configmaps/app.y')).status, 200);
    await s.close();

    assert.ok((await toFormat1(dataDir)) > 10);
    s = await startTestServer({ dataDir, namespaceDefaults: false });
    try {
      assert.is((await get(s, '/api/v1/namespaces/x/configmaps/app')).json.data.v, '2');
      assert.equal(names(await get(s, '/api/v1/namespaces/x/configmaps')), ['app', 'app-x', 'app0']);
      const paged: string[] = [];
      let cont = '';
      do {
        const r = await get(s, `/api/v1/namespaces/x/configmaps?limit=1${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        paged.push(...names(r));
        cont = r.json.metadata.continue ?? '';
      } while (cont);
      assert.equal(paged, ['app', 'app-x', 'app0']);
      // History (h/) was upgraded too: the list at a version before the update and the delete.
      const exact = await get(s, `/api/v1/namespaces/x/configmaps?resourceVersion=${rv1}&resourceVersionMatch=Exact`);
      assert.equal(names(exact), ['app', 'app-x', 'app.y', 'app0']);
      // kube-system/extension-apiserver-authentication: kube-apiserver's own trust ConfigMap.
      assert.equal(nsNames(await get(s, '/api/v1/configmaps')), ['kube-system/extension-apiserver-authentication', 'x-b/cm', 'x/app', 'x/app-x', 'x/app0']);
      assert.is(exact.json.items[0].data.v, '1');
      // A continue token taken before the upgrade still resumes: tokens carry object paths, the
      // same in both formats (a format-1 server's token resumes after its last name, in format-2 order).
      const resumed = await get(s, `/api/v1/namespaces/x/configmaps?limit=10&continue=${encodeURIComponent(firstPage.json.metadata.continue)}`);
      assert.equal(names(firstPage), ['app', 'app-x']);
      assert.is(resumed.json.metadata.resourceVersion, firstPage.json.metadata.resourceVersion);
      assert.equal(names(resumed), ['app.y', 'app0']);
      // A watch from before the upgrade replays the changes after it from history.
      const w = await s.client.request('GET', `/api/v1/namespaces/x/configmaps?watch=1&resourceVersion=${rv1}&timeoutSeconds=1`);
      assert.is(w.status, 200, show(w));
      assert.equal(events(w), ['MODIFIED app', 'DELETED app.y']);
    } finally {
      await s.close();
    }
    // The store is format 3 now: the marker, no key of the old shape left, the log in its own store.
    const db = await openDb(dataDir);
    try {
      assert.is((await db.get(META_FORMAT))?.toString(), String(KEY_FORMAT));
      for await (const k of db.keys({ gte: 'l/', lt: 'l0' })) assert.unreachable(`log entry ${k} left in the snapshot store`);
      for await (const k of db.keys({ gte: 'o/', lt: 'o0' })) assert.not.ok(k.endsWith('/'), k);
      for await (const k of db.keys({ gte: 'h/', lt: 'h0' })) assert.is(k[k.length - 17], '\u0000', k);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
