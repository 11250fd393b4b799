/**
 * Chunked lists (limit / continue) against concurrent writers, selectors and history expiry:
 *
 * - pages taken while another client creates, updates and deletes concatenate to exactly the
 *   collection at the first page's resourceVersion — checked against an Exact list at that version
 *   and against a replay of the writes the test made (each with the version its response carried);
 * - every page carries the first page's resourceVersion; remainingItemCount is exact on non-final
 *   pages and absent on the last; the last page has an empty continue;
 * - selectors filter before the limit (full pages of matches) and suppress remainingItemCount;
 * - a continue token whose version left the history window (a child server with
 *   --history-window 2s) gets 410 Expired with kube's message and a token to resume at the latest.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startTestServer, spawnServer, clientFor, tempDir, type TestServer, type Client } from './harness.ts';
import { show, expectStatus, ok } from './assertions.ts';

let srv: TestServer;
let c: Client;

const NS = 'pg';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const nameOf = (i: number): string => `p-${String(i).padStart(3, '0')}`;
const cm = (name: string, value: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v: value } });
/** What a page item is compared on: name, its own version, its data. */
const summary = (o: any): string => `${o.metadata.name}@${o.metadata.resourceVersion}=${o.data?.v}`;

/** Every write the test made, with the version its response carried. */
interface Write {
  rv: number;
  op: 'put' | 'delete';
  name: string;
  value?: string;
  labels?: Record<string, string>;
}
const journal: Write[] = [];

/** The collection at `rv` according to the journal, in name (= key) order. */
function replay(rv: number, keep: (w: Write) => boolean = () => true): string[] {
  const state = new Map<string, Write>();
  for (const w of journal) {
    if (w.rv > rv) continue;
    if (w.op === 'delete') state.delete(w.name);
    else state.set(w.name, w);
  }
  return [...state.values()].filter(keep).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((w) => `${w.name}@${w.rv}=${w.value}`);
}

async function put(name: string, value: string, create: boolean): Promise<void> {
  const labels = { parity: Number(name.slice(2)) % 2 === 0 ? 'even' : 'odd', tier: Number(name.slice(2)) % 3 === 0 ? 'a' : 'b' };
  const r = create
    ? await ok(c.request('POST', CM, { body: cm(name, value, labels) }), 201, `create ${name}`)
    : await ok(c.request('PUT', `${CM}/${name}`, { body: cm(name, value, labels) }), 200, `update ${name}`);
  journal.push({ rv: Number(r.metadata.resourceVersion), op: 'put', name, value, labels });
}

/**
 * Delete `name`. A DELETE answers with the object as it was before (kube does the same), so the
 * deletion's own version is filled in later from a watch (`datedDeletes`).
 */
async function del(name: string): Promise<void> {
  await ok(c.request('DELETE', `${CM}/${name}`), 200, `delete ${name}`);
  journal.push({ rv: NaN, op: 'delete', name });
}

/** Give every journal delete the version of its DELETED watch event (in order, per name). */
async function datedDeletes(fromRv: number): Promise<void> {
  const w = await c.request('GET', `${CM}?watch=1&resourceVersion=${fromRv}&timeoutSeconds=1`);
  assert.is(w.status, 200, show(w));
  const deleted = w.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)).filter((e) => e.type === 'DELETED');
  for (const j of journal.filter((x) => x.op === 'delete' && Number.isNaN(x.rv))) {
    const i = deleted.findIndex((e) => e.object.metadata.name === j.name);
    assert.ok(i >= 0, `a DELETED event for ${j.name}`);
    j.rv = Number(deleted.splice(i, 1)[0].object.metadata.resourceVersion);
  }
  journal.sort((a, b) => a.rv - b.rv);
}

/** Follow continue tokens from `first` to the end; returns every page. */
async function allPages(client: Client, base: string, query: string, between?: () => Promise<void>): Promise<any[]> {
  const pages: any[] = [];
  let token = '';
  for (let i = 0; i < 1000; i++) {
    // Later pages carry the token instead of a resourceVersion (kube rejects both together).
    const q = token ? `${query.replace(/&?resourceVersion=\d+/, '')}&continue=${encodeURIComponent(token)}` : query;
    pages.push(await ok(client.request('GET', `${base}?${q}`), 200, `page ${i} ?${q}`));
    token = pages[pages.length - 1].metadata.continue ?? '';
    if (!token) return pages;
    await between?.();
  }
  throw new Error('more than 1000 pages');
}

/** The page invariants: one version, exact remainingItemCount (or none), empty continue at the end. */
function checkPages(pages: any[], total: number, filtered: boolean, label: string): void {
  let seen = 0;
  for (const [i, p] of pages.entries()) {
    const last = i === pages.length - 1;
    seen += p.items.length;
    assert.is(p.metadata.resourceVersion, pages[0].metadata.resourceVersion, `${label} page ${i}: same resourceVersion as page 0`);
    assert.is(Boolean(p.metadata.continue), !last, `${label} page ${i}: continue ${last ? 'empty on the last page' : 'present'}`);
    const want = last || filtered ? undefined : total - seen;
    assert.is(p.metadata.remainingItemCount, want, `${label} page ${i}: remainingItemCount`);
  }
  assert.is(seen, total, `${label}: items over all pages`);
}

test.before(async () => {
  // Without kube-controller-manager's per-namespace objects (kube-root-ca.crt, the default
  // ServiceAccount): the suite counts exactly the objects it makes in its namespaces.
  srv = await startTestServer({ namespaceDefaults: false });
  c = srv.client;
  await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }), 201, 'namespace');
  // Even names now; the writer later creates odd names, which land between them in key order.
  for (let i = 0; i < 90; i += 2) await put(nameOf(i), 'seed', true);
});

test.after(async () => {
  await srv?.close();
});

test('pages taken during concurrent creates, updates and deletes equal the snapshot at the first page', async () => {
  const live = new Set(journal.filter((w) => w.op === 'put').map((w) => w.name));
  const seeded = journal[journal.length - 1].rv;
  let stop = false;
  let ops = 0;
  // Deterministic mix over the whole key range, so writes land before and after the page cursor.
  const writer = (async () => {
    for (let step = 0; !stop && step < 400; step++) {
      const i = (step * 37) % 90;
      const name = nameOf(i);
      if (step % 3 === 0 && !live.has(name)) {
        await put(name, `c${step}`, true);
        live.add(name);
      } else if (step % 3 === 1 && live.has(name)) {
        await put(name, `u${step}`, false);
      } else if (step % 3 === 2 && live.has(name)) {
        await del(name);
        live.delete(name);
      } else continue;
      ops++;
    }
  })();
  while (ops < 5) await sleep(5);
  const writesBefore = journal.length;
  // Between pages, wait for the writer's next write (2 s at most), so writes land between every
  // two pages however fast either side runs (a `--workers` thread's first DELETE loads its modules).
  let seen = ops;
  const nextWrite = async (): Promise<void> => {
    const until = Date.now() + 2_000;
    while (ops === seen && Date.now() < until) await sleep(5);
    seen = ops;
  };
  const pages = await allPages(c, CM, 'limit=10', nextWrite);
  stop = true;
  await writer;
  await datedDeletes(seeded);
  const x = Number(pages[0].metadata.resourceVersion);
  const during = journal.filter((w) => w.rv > x).length;
  assert.ok(during >= 3, `writes happened while paging (${during} after the first page, ${journal.length - writesBefore} in all)`);

  const paged = pages.flatMap((p) => (p.items as any[]).map(summary));
  const exact = await ok(c.request('GET', `${CM}?resourceVersionMatch=Exact&resourceVersion=${x}`), 200, 'Exact list at the first page version');
  assert.is(exact.metadata.resourceVersion, String(x), 'Exact list served at x');
  assert.equal(paged, (exact.items as any[]).map(summary), 'pages = Exact list at the first page version');
  assert.equal(paged, replay(x), 'pages = the journal replayed up to the first page version');
  checkPages(pages, paged.length, false, 'concurrent');

  // The same version paged again later, as a legacy exact list (limit + resourceVersion).
  const again = await allPages(c, CM, `limit=7&resourceVersion=${x}`);
  assert.equal(again.flatMap((p) => (p.items as any[]).map(summary)), paged, 'paging at x again gives the same list');
  checkPages(again, paged.length, false, 'again at x');

  const now = await ok(c.request('GET', CM), 200, 'latest list');
  assert.equal((now.items as any[]).map(summary), replay(Number(now.metadata.resourceVersion)), 'the latest list = the whole journal');
});

test('selectors apply before the limit: full pages of matches, no remainingItemCount, empty continue at the end', async () => {
  const cases: { query: string; keep: (w: Write) => boolean; limit: number }[] = [
    { query: 'labelSelector=parity%3Deven', keep: (w) => w.labels?.parity === 'even', limit: 4 },
    { query: 'labelSelector=parity%3Dodd%2Ctier%3Da', keep: (w) => w.labels?.parity === 'odd' && w.labels?.tier === 'a', limit: 3 },
    { query: 'fieldSelector=metadata.name%21%3Dp-000', keep: (w) => w.name !== 'p-000', limit: 9 },
    { query: 'labelSelector=tier%3Dnone', keep: () => false, limit: 5 },
  ];
  const x = (await ok(c.request('GET', `${CM}?limit=1`), 200, 'version')).metadata.resourceVersion;
  for (const [i, k] of cases.entries()) {
    for (const rvq of ['', `&resourceVersion=${x}`]) {
      const label = `case ${i} ${k.query}${rvq}`;
      const pages = await allPages(c, CM, `limit=${k.limit}&${k.query}${rvq}`);
      const want = replay(Number(pages[0].metadata.resourceVersion), k.keep);
      const got = pages.flatMap((p) => (p.items as any[]).map(summary));
      assert.equal(got, want, `${label}: matches over all pages`);
      checkPages(pages, want.length, true, label);
      for (const [j, p] of pages.entries()) {
        if (j < pages.length - 1) assert.is(p.items.length, k.limit, `${label} page ${j}: full page of matches`);
      }
    }
  }
  const one = await ok(c.request('GET', `${CM}?limit=1&fieldSelector=metadata.name%3D${nameOf(2)}`), 200, 'single name');
  assert.is(one.metadata.continue, undefined, 'one match: no continue');
});

test('a limit larger than the collection: one page, no continue, no remainingItemCount', async () => {
  const all = await ok(c.request('GET', CM), 200, 'all');
  const p = await ok(c.request('GET', `${CM}?limit=${all.items.length}`), 200, 'limit = size');
  assert.is(p.items.length, all.items.length);
  assert.is(p.metadata.continue, undefined);
  assert.is(p.metadata.remainingItemCount, undefined);
  const q = await ok(c.request('GET', `${CM}?limit=${all.items.length - 1}`), 200, 'limit = size - 1');
  assert.is(q.metadata.remainingItemCount, 1);
});

test('a page read ahead answers only the request it was read for (same token, limit and selectors)', async () => {
  // Each page's successor is read while the page is sent (read-ahead.ts), keyed by the request
  // that will ask for it. Requests that differ in limit or selector, or repeat a token, must get
  // what they ask for, not that page.
  const first = await ok(c.request('GET', `${CM}?limit=2`), 200, 'first page');
  const x = Number(first.metadata.resourceVersion);
  const token = encodeURIComponent(first.metadata.continue);
  const at = replay(x);
  const wider = await ok(c.request('GET', `${CM}?limit=3&continue=${token}`), 200, 'limit 3 on a token read ahead for limit 2');
  assert.equal((wider.items as any[]).map(summary), at.slice(2, 5), 'three items after the first page');
  const even = await ok(c.request('GET', `${CM}?limit=2&labelSelector=parity%3Deven&continue=${token}`), 200, 'with a selector');
  assert.equal((even.items as any[]).map(summary), replay(x, (w) => w.labels?.parity === 'even').filter((s) => s > at[1]).slice(0, 2), 'matches after the first page');
  assert.is(even.metadata.remainingItemCount, undefined, 'filtered: no remainingItemCount');
  for (const n of [1, 2]) {
    const same = await ok(c.request('GET', `${CM}?limit=2&continue=${token}`), 200, `the same token, time ${n}`);
    assert.equal((same.items as any[]).map(summary), at.slice(2, 4), `time ${n}: the second page`);
    assert.is(same.metadata.remainingItemCount, at.length - 4, `time ${n}: remainingItemCount`);
    assert.is(Number(same.metadata.resourceVersion), x, `time ${n}: the first page's version`);
  }
  // A write after the first page changes nothing in its pages (read ahead or not).
  await put(nameOf(1), 'after', journal.filter((w) => w.name === nameOf(1)).pop()?.op !== 'put');
  const rest = await allPagesFrom(c, CM, first.metadata.continue);
  assert.equal(rest.flatMap((p) => (p.items as any[]).map(summary)), at.slice(2), 'the rest at the first page version');
});

test('continue token whose version left the history window → 410 Expired, then resume at the latest', async () => {
  const dataDir = tempDir();
  const child = await spawnServer(dataDir, 0, ['--history-window', '2s', '--no-fsync']);
  const cc = clientFor(child.url, join(dataDir, 'pki'));
  try {
    const W = '/api/v1/namespaces/default/configmaps';
    for (const n of ['e1', 'e2', 'e3', 'e4', 'e5']) await ok(cc.request('POST', W, { body: cm(n, 'old') }), 201, n);
    const first = await ok(cc.request('GET', `${W}?limit=2`), 200, 'first page');
    assert.equal((first.items as any[]).map((o) => o.metadata.name), ['e1', 'e2']);
    const x = first.metadata.resourceVersion;
    await ok(cc.request('PUT', `${W}/e4`, { body: cm('e4', 'new') }), 200, 'update e4');
    await ok(cc.request('POST', W, { body: cm('e6', 'new') }), 201, 'create e6');
    await ok(cc.request('DELETE', `${W}/e3`), 200, 'delete e3');
    // Past the window, and until the compactor (every second) has passed x.
    await sleep(2500);
    const deadline = Date.now() + 15_000;
    for (;;) {
      const probe = await cc.request('GET', `${W}?resourceVersionMatch=Exact&resourceVersion=${x}`);
      if (probe.status === 410) break;
      assert.is(probe.status, 200, show(probe));
      assert.ok(Date.now() < deadline, `x=${x} never compacted`);
      await sleep(250);
    }
    const r = await cc.request('GET', `${W}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
    expectStatus(r, 410, 'Expired', 'next page with an expired token');
    assert.is(r.json.message, EXPIRED_CONTINUE, 'kube message: restart the list, or use the token in this response');
    assert.ok(r.json.metadata?.continue, `a resume token; ${show(r)}`);
    const rest = await allPagesFrom(cc, W, r.json.metadata.continue);
    // kube-root-ca.crt (the root-ca-cert-publisher's) sorts after the suite's objects in `default`.
    const remainder = rest.flatMap((p) => (p.items as any[]).filter((o) => o.metadata.name !== 'kube-root-ca.crt').map((o) => `${o.metadata.name}=${o.data.v}`));
    assert.equal(remainder, ['e4=new', 'e5=old', 'e6=new'], 'the remainder as it is now (inconsistent, as kube warns)');
    const latest = (await ok(cc.request('GET', W), 200, 'latest')).metadata.resourceVersion;
    assert.is(rest[0].metadata.resourceVersion, latest, 'resumed at the latest version');
  } finally {
    await cc.close();
    await child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Follow a given continue token to the end (limit 2). */
async function allPagesFrom(client: Client, base: string, token: string): Promise<any[]> {
  const pages: any[] = [];
  while (token) {
    pages.push(await ok(client.request('GET', `${base}?limit=2&continue=${encodeURIComponent(token)}`), 200, `resume page ${pages.length}`));
    token = pages[pages.length - 1].metadata.continue ?? '';
  }
  return pages;
}

test('a larger collection pages in order with exact counts (1,200 objects, limit 500)', async () => {
  const BIG = '/api/v1/namespaces/pg-big/configmaps';
  await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'pg-big' } } }), 201, 'namespace');
  const names: string[] = [];
  for (let i = 0; i < 1200; i += 50) {
    const batch = Array.from({ length: 50 }, (_, j) => `b-${String(i + j).padStart(5, '0')}`);
    names.push(...batch);
    await Promise.all(batch.map((n) => ok(c.request('POST', BIG, { body: cm(n, 'x') }), 201, n)));
  }
  const pages = await allPages(c, BIG, 'limit=500');
  assert.is(pages.length, 3);
  assert.equal(pages.flatMap((p) => (p.items as any[]).map((o) => o.metadata.name)), names);
  checkPages(pages, 1200, false, 'big');
});

test.run();
