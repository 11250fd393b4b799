/**
 * resourceVersion semantics through HTTP, one case per cell of the seed's get / list / watch
 * tables, and every error those parameters can produce, checked against kube-apiserver 1.24:
 *
 *   400 BadRequest  non-numeric resourceVersion on a list kube serves from etcd (limit, continue,
 *                   Exact: "invalid resource version: …", etcd3 store.go),
 *                   continue + non-zero resourceVersion, malformed continue token
 *                   ("invalid continue token: continue key is not valid: …"), non-integer limit
 *   422 Invalid     ListOptions validation (validation.go ValidateListOptions): resourceVersionMatch
 *                   without resourceVersion, with continue, unsupported, Exact with "0"
 *   410 Expired     exact list below the compacted history ("The resourceVersion for the provided
 *                   list is too old."); expired continue token (kube's restart-the-list message
 *                   and a token that resumes at the latest version); watch older than the ring
 *   500             non-numeric resourceVersion where kube reads its watch cache (get, watch,
 *                   list without limit): the parse error as is, no reason; an exact list at a
 *                   version not reached yet (etcd's "required revision is a future revision")
 *   504 Timeout     a version the server has not reached within 3 s ("Timeout: Too large resource
 *                   version: N, current: M", Retry-After 1, cause ResourceVersionTooLarge); at
 *                   once and without Retry-After for NotOlderThan with a limit (etcd path)
 *
 * Fixture (namespace `rv`): a, b, c created (S1 = c's version), then a updated, b deleted, d
 * created. At S1 the collection is {a@A1, b@B1, c@C1}; at the latest version {a@A2, c@C1, d@D1}.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startTestServer, tempDir, type TestServer, type Client, type HttpResult } from './harness.ts';
import { show, expectStatus, ok } from './assertions.ts';

let srv: TestServer;
let c: Client;

const NS = 'rv';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const EXPIRED_LIST = 'The resourceVersion for the provided list is too old.';
const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** Versions and tokens of the fixture, filled by test.before. */
const v: Record<string, string> = {};

const cm = (name: string, data: Record<string, string> = { k: '1' }) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
const itemsOf = (list: any): string[] => (list.items as any[]).map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`);
const folded = (): string => String(srv.server.storage.folded);
const b64 = (s: unknown): string => Buffer.from(typeof s === 'string' ? s : JSON.stringify(s)).toString('base64url');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Replace {NAME} with the fixture's value (URL-encoded). */
const fill = (q: string): string => q.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(v[k] ?? `<missing ${k}>`));

/** The NDJSON events of a finished watch response. */
const events = (r: HttpResult): any[] => r.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const eventsOf = (r: HttpResult): string[] => events(r).map((e) => `${e.type} ${e.object.metadata?.name ?? e.object.reason}@${e.object.metadata?.resourceVersion ?? e.object.code}`);

test.before(async () => {
  // Without kube-controller-manager's per-namespace objects (kube-root-ca.crt, the default
  // ServiceAccount): the suite counts exactly the objects it makes in its namespaces.
  srv = await startTestServer({ namespaceDefaults: false });
  c = srv.client;
  for (const ns of [NS, 'rvw', 'rv-wait']) await ok(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } }), 201, `namespace ${ns}`);
  for (const n of ['a', 'b', 'c']) v[`${n.toUpperCase()}1`] = (await ok(c.request('POST', CM, { body: cm(n) }), 201, `create ${n}`)).metadata.resourceVersion;
  v.S1 = v.C1;
  v.A2 = (await ok(c.request('PUT', `${CM}/a`, { body: cm('a', { k: '2' }) }), 200, 'update a')).metadata.resourceVersion;
  await ok(c.request('DELETE', `${CM}/b`), 200, 'delete b');
  v.D1 = (await ok(c.request('POST', CM, { body: cm('d') }), 201, 'create d')).metadata.resourceVersion;
  v.LATEST = folded();
  v.TOK_LATEST = (await ok(c.request('GET', `${CM}?limit=2`), 200, 'latest page')).metadata.continue;
  v.TOK_S1 = (await ok(c.request('GET', `${CM}?limit=2&resourceVersion=${v.S1}`), 200, 'S1 page')).metadata.continue;
  assert.ok(v.TOK_LATEST && v.TOK_S1, 'fixture continue tokens');
});

test.after(async () => {
  await srv?.close();
});

// ------------------------------------------------------------------------------------------ list table

interface ListCell {
  cell: string;
  query: string;
  /** Items as name@resourceVersion (fixture names), in order. */
  items?: string[];
  /** ListMeta.resourceVersion: a fixture name ('LATEST' = the folded version when asked). */
  rv?: string;
  more?: boolean;
  remaining?: number;
  /** Error expectation instead of a list. */
  error?: { code: number; reason: string; message: string | RegExp };
}

const AT_S1 = ['a@A1', 'b@B1', 'c@C1'];
const AT_LATEST = ['a@A2', 'c@C1', 'd@D1'];
const NEEDS_RV = { code: 422, reason: 'Invalid', message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' };
const EXACT_ZERO = { code: 422, reason: 'Invalid', message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' };
const MATCH_WITH_CONTINUE = { code: 422, reason: 'Invalid', message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided' };
const RV_WITH_CONTINUE = { code: 400, reason: 'BadRequest', message: 'specifying resource version is not allowed when using continue' };

// The seed's list table, row by row (match × paging), each row's three columns (rv unset / 0 / N).
// "any" (rv=0) is served from the latest snapshot here, so it reads like "most recent".
const LIST_CELLS: ListCell[] = [
  { cell: 'match unset, no limit, rv unset → most recent', query: '', items: AT_LATEST, rv: 'LATEST' },
  { cell: 'match unset, no limit, rv=0 → any', query: 'resourceVersion=0', items: AT_LATEST, rv: 'LATEST' },
  { cell: 'match unset, no limit, rv=N → not older than', query: 'resourceVersion={S1}', items: AT_LATEST, rv: 'LATEST' },
  { cell: 'match unset, limit, rv unset → most recent', query: 'limit=2', items: ['a@A2', 'c@C1'], rv: 'LATEST', more: true, remaining: 1 },
  // rv=0 is served by kube's watch cache, which ignores limit: the whole list, no continue.
  { cell: 'match unset, limit, rv=0 → any (limit ignored)', query: 'limit=2&resourceVersion=0', items: AT_LATEST, rv: 'LATEST', more: false },
  { cell: 'match unset, limit, rv=N → exact', query: 'limit=2&resourceVersion={S1}', items: ['a@A1', 'b@B1'], rv: 'S1', more: true, remaining: 1 },
  { cell: 'match unset, limit+continue (latest page), rv unset → continue token, exact', query: 'limit=2&continue={TOK_LATEST}', items: ['d@D1'], rv: 'LATEST', more: false },
  { cell: 'match unset, limit+continue (page at N), rv unset → continue token, exact', query: 'limit=2&continue={TOK_S1}', items: ['c@C1'], rv: 'S1', more: false },
  { cell: 'match unset, limit+continue, rv=0 → treated as continue token, exact', query: 'limit=2&continue={TOK_S1}&resourceVersion=0', items: ['c@C1'], rv: 'S1', more: false },
  { cell: 'match unset, continue without limit → the rest at the token version', query: 'continue={TOK_S1}', items: ['c@C1'], rv: 'S1', more: false },
  { cell: 'match unset, limit+continue, rv=N (the token version) → 400', query: 'limit=2&continue={TOK_S1}&resourceVersion={S1}', error: RV_WITH_CONTINUE },
  { cell: 'match unset, limit+continue, rv=N (another version) → 400', query: 'limit=2&continue={TOK_S1}&resourceVersion={LATEST}', error: RV_WITH_CONTINUE },
  { cell: 'Exact, no limit, rv unset → invalid', query: 'resourceVersionMatch=Exact', error: NEEDS_RV },
  { cell: 'Exact, no limit, rv=0 → invalid', query: 'resourceVersionMatch=Exact&resourceVersion=0', error: EXACT_ZERO },
  { cell: 'Exact, no limit, rv=N → exact', query: 'resourceVersionMatch=Exact&resourceVersion={S1}', items: AT_S1, rv: 'S1', more: false },
  { cell: 'Exact, limit, rv unset → invalid', query: 'resourceVersionMatch=Exact&limit=2', error: NEEDS_RV },
  { cell: 'Exact, limit, rv=0 → invalid', query: 'resourceVersionMatch=Exact&limit=2&resourceVersion=0', error: EXACT_ZERO },
  { cell: 'Exact, limit, rv=N → exact', query: 'resourceVersionMatch=Exact&limit=2&resourceVersion={S1}', items: ['a@A1', 'b@B1'], rv: 'S1', more: true, remaining: 1 },
  { cell: 'Exact with continue → invalid', query: 'resourceVersionMatch=Exact&limit=2&continue={TOK_S1}', error: { ...MATCH_WITH_CONTINUE, message: `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]` } },
  { cell: 'Exact with continue and rv → invalid', query: 'resourceVersionMatch=Exact&limit=2&resourceVersion={S1}&continue={TOK_S1}', error: MATCH_WITH_CONTINUE },
  { cell: 'NotOlderThan, no limit, rv unset → invalid', query: 'resourceVersionMatch=NotOlderThan', error: NEEDS_RV },
  { cell: 'NotOlderThan, no limit, rv=0 → any', query: 'resourceVersionMatch=NotOlderThan&resourceVersion=0', items: AT_LATEST, rv: 'LATEST', more: false },
  { cell: 'NotOlderThan, no limit, rv=N → not older than', query: 'resourceVersionMatch=NotOlderThan&resourceVersion={S1}', items: AT_LATEST, rv: 'LATEST', more: false },
  { cell: 'NotOlderThan, limit, rv unset → invalid', query: 'resourceVersionMatch=NotOlderThan&limit=2', error: NEEDS_RV },
  { cell: 'NotOlderThan, limit, rv=0 → any (limit ignored)', query: 'resourceVersionMatch=NotOlderThan&limit=2&resourceVersion=0', items: AT_LATEST, rv: 'LATEST', more: false },
  { cell: 'NotOlderThan, limit, rv=N → not older than', query: 'resourceVersionMatch=NotOlderThan&limit=2&resourceVersion={S1}', items: ['a@A2', 'c@C1'], rv: 'LATEST', more: true, remaining: 1 },
  { cell: 'NotOlderThan with continue and rv → invalid', query: 'resourceVersionMatch=NotOlderThan&resourceVersion={S1}&continue={TOK_S1}', error: MATCH_WITH_CONTINUE },
  { cell: 'unsupported resourceVersionMatch → invalid', query: 'resourceVersionMatch=Newest&resourceVersion={S1}', error: { code: 422, reason: 'Invalid', message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' } },
  { cell: 'empty resourceVersionMatch = unset', query: 'resourceVersionMatch=&limit=2&resourceVersion={S1}', items: ['a@A1', 'b@B1'], rv: 'S1', more: true, remaining: 1 },
];

for (const [i, cell] of LIST_CELLS.entries()) {
  test(`list cell ${i}: ${cell.cell}`, async () => {
    const label = `cell ${i} (${cell.cell}) ?${fill(cell.query)}`;
    const latest = folded();
    const r = await c.request('GET', `${CM}${cell.query ? `?${fill(cell.query)}` : ''}`);
    if (cell.error) {
      expectStatus(r, cell.error.code, cell.error.reason, label);
      if (typeof cell.error.message === 'string') assert.is(r.json.message, cell.error.message, `${label}: message`);
      else assert.match(r.json.message, cell.error.message, `${label}: message`);
      if (cell.error.code === 422) {
        assert.is(r.json.details?.kind, 'ListOptions', `${label}: details.kind`);
        assert.is(r.json.details?.group, 'meta.k8s.io', `${label}: details.group`);
        assert.ok((r.json.details?.causes ?? []).every((x: any) => x.field === 'resourceVersionMatch'), `${label}: cause fields; ${show(r)}`);
      }
      return;
    }
    assert.is(r.status, 200, `${label}: ${show(r)}`);
    assert.is(r.json.kind, 'ConfigMapList', `${label}: kind`);
    const want = cell.items!.map((x) => x.replace(/@(\w+)$/, (_, k: string) => `@${v[k]}`));
    assert.equal(itemsOf(r.json), want, `${label}: items (name@itemVersion)`);
    assert.is(r.json.metadata.resourceVersion, cell.rv === 'LATEST' ? latest : v[cell.rv!], `${label}: ListMeta.resourceVersion`);
    assert.is(Boolean(r.json.metadata.continue), Boolean(cell.more), `${label}: continue present; ${show(r)}`);
    assert.is(r.json.metadata.remainingItemCount, cell.remaining, `${label}: remainingItemCount`);
  });
}

// ------------------------------------------------------------------------------------------ get table

test('get table: unset and 0 → latest; N → not older than N (the latest, whose version ≥ N)', async () => {
  const cases: { q: string; want: string }[] = [
    { q: '', want: 'A2' },
    { q: 'resourceVersion=0', want: 'A2' },
    { q: 'resourceVersion={A1}', want: 'A2' },
    { q: 'resourceVersion={A2}', want: 'A2' },
    { q: 'resourceVersion={LATEST}', want: 'A2' },
  ];
  for (const [i, k] of cases.entries()) {
    const got = await ok(c.request('GET', `${CM}/a${k.q ? `?${fill(k.q)}` : ''}`), 200, `get case ${i} ?${k.q}`);
    assert.is(got.metadata.resourceVersion, v[k.want], `get case ${i} ?${k.q}: version`);
    assert.equal(got.data, { k: '2' }, `get case ${i}: data`);
  }
  // A deleted object stays deleted whatever version is asked for: get is never an exact read.
  const gone = await c.request('GET', `${CM}/b?resourceVersion=${v.B1}`);
  expectStatus(gone, 404, 'NotFound', 'get deleted b at its old version');
});

test('the object as it was at N: list with metadata.name field selector at Exact N', async () => {
  for (const [i, [rv, want]] of ([['A1', { k: '1' }], ['A2', { k: '2' }], ['S1', { k: '1' }]] as const).entries()) {
    const r = await ok(c.request('GET', `${CM}?fieldSelector=metadata.name%3Da&resourceVersionMatch=Exact&resourceVersion=${v[rv]}`), 200, `case ${i}`);
    assert.is(r.items.length, 1, `case ${i}: one item`);
    assert.equal(r.items[0].data, want, `case ${i}: data at ${rv}`);
    assert.is(r.metadata.resourceVersion, v[rv], `case ${i}: served at ${rv}`);
  }
  const b = await ok(c.request('GET', `${CM}?fieldSelector=metadata.name%3Db&resourceVersionMatch=Exact&resourceVersion=${v.S1}`), 200, 'b at S1');
  assert.equal(itemsOf(b), [`b@${v.B1}`], 'b existed at S1');
  const none = await ok(c.request('GET', `${CM}?fieldSelector=metadata.name%3Db&resourceVersionMatch=Exact&resourceVersion=${v.LATEST}`), 200, 'b at latest');
  assert.equal(none.items, [], 'b is gone at the latest version');
});

// ------------------------------------------------------------------------------------------ watch table

test('watch table: rv=N → exactly the changes after N, in order, no synthetic ADDED', async () => {
  const r = await c.request('GET', `${CM}?watch=1&resourceVersion=${v.S1}&timeoutSeconds=1`);
  assert.is(r.status, 200, show(r));
  const got = eventsOf(r);
  assert.is(got.length, 3, `three changes after S1: ${got.join(' | ')}`);
  assert.equal([got[0], got[2]], [`MODIFIED a@${v.A2}`, `ADDED d@${v.D1}`], got.join(' | '));
  assert.match(got[1], /^DELETED b@\d+$/, got.join(' | '));
  const del = Number(got[1].split('@')[1]);
  assert.ok(Number(v.A2) < del && del < Number(v.D1), `delete version between: ${got.join(' | ')}`);
  const fromLatest = await c.request('GET', `${CM}?watch=1&resourceVersion=${v.LATEST}&timeoutSeconds=1`);
  assert.equal(eventsOf(fromLatest), [], 'nothing after the latest version');
});

for (const [i, rv] of [undefined, '0'].entries()) {
  test(`watch table: rv ${rv ?? 'unset'} → synthetic ADDED for the current state, then changes`, async () => {
    const W = '/api/v1/namespaces/rvw/configmaps';
    const p = await ok(c.request('POST', W, { body: cm(`p${i}`) }), 201, 'create p');
    const q = await ok(c.request('POST', W, { body: cm(`q${i}`) }), 201, 'create q');
    const watching = c.request('GET', `${W}?watch=1&timeoutSeconds=2${rv === undefined ? '' : `&resourceVersion=${rv}`}`);
    await sleep(500);
    const m = await ok(c.request('PUT', `${W}/p${i}`, { body: cm(`p${i}`, { k: 'changed' }) }), 200, 'update p');
    const r = await watching;
    assert.is(r.status, 200, show(r));
    const got = eventsOf(r).filter((e) => new RegExp(`^\\w+ [pq]${i}@`).test(e));
    assert.equal(got, [`ADDED p${i}@${p.metadata.resourceVersion}`, `ADDED q${i}@${q.metadata.resourceVersion}`, `MODIFIED p${i}@${m.metadata.resourceVersion}`], got.join(' | '));
  });
}

test('watch table: a future rv → only changes after it', async () => {
  const W = '/api/v1/namespaces/rvw/configmaps';
  const from = Number(folded()) + 2;
  const watching = c.request('GET', `${W}?watch=1&timeoutSeconds=2&resourceVersion=${from}`);
  const made: string[] = [];
  for (const n of ['f1', 'f2', 'f3']) made.push(`ADDED ${n}@${(await ok(c.request('POST', W, { body: cm(n) }), 201, n)).metadata.resourceVersion}`);
  const r = await watching;
  assert.is(r.status, 200, show(r));
  assert.equal(eventsOf(r), made.filter((e) => Number(e.split('@')[1]) > from), `events after ${from}`);
});

// kube answers a watch with resourceVersionMatch (and no sendInitialEvents) with 422 Invalid from
// ValidateListOptions ("resourceVersionMatch is forbidden for watch").
test('watch with resourceVersionMatch → 422 Invalid', async () => {
  const r = await c.request('GET', `${CM}?watch=1&resourceVersion=${v.S1}&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
  expectStatus(r, 422, 'Invalid', 'watch + resourceVersionMatch');
  assert.match(r.json.message, /^ListOptions\.meta\.k8s\.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch/);
});

// ------------------------------------------------------------------------------------------ 400s

test('400 BadRequest: non-numeric versions, bad limits, malformed continue tokens', async () => {
  const tok = (t: unknown) => encodeURIComponent(b64(t));
  const cases: { path: string; message: string | RegExp }[] = [
    { path: `${CM}?limit=2&resourceVersion=abc`, message: 'invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax' },
    { path: `${CM}?limit=2&resourceVersion=-5`, message: /^invalid resource version: .*"-5": invalid syntax$/ },
    { path: `${CM}?limit=2&resourceVersion=1.5`, message: /^invalid resource version: .*"1\.5": invalid syntax$/ },
    { path: `${CM}?limit=2&resourceVersion=99999999999999999999999`, message: /^invalid resource version: .*: value out of range$/ },
    { path: `${CM}?resourceVersionMatch=Exact&resourceVersion=abc`, message: /^invalid resource version: / },
    { path: `${CM}?limit=ten`, message: 'strconv.ParseInt: parsing "ten": invalid syntax' },
    { path: `${CM}?limit=2&continue=***`, message: /^invalid continue token: continue key is not valid: illegal base64 data at input byte 0$/ },
    { path: `${CM}?limit=2&continue=${tok('hello')}`, message: /^invalid continue token: continue key is not valid: / },
    { path: `${CM}?limit=2&continue=${tok([1, 2])}`, message: /^invalid continue token: continue key is not valid: / },
    { path: `${CM}?limit=2&continue=${tok({ v: 'meta.k8s.io/v2', rv: 5, start: 'a' })}`, message: 'invalid continue token: continue key is not valid: server does not recognize this encoded version "meta.k8s.io/v2"' },
    { path: `${CM}?limit=2&continue=${tok({ v: 'meta.k8s.io/v1', rv: 0, start: 'a' })}`, message: 'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)' },
    { path: `${CM}?limit=2&continue=${tok({ v: 'meta.k8s.io/v1', rv: 5, start: '' })}`, message: 'invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)' },
    { path: `${CM}?limit=2&continue=${tok({ v: 'meta.k8s.io/v1', rv: 5, start: '../secrets/x' })}`, message: 'invalid continue token: continue key is not valid: ../secrets/x' },
    // The token is decoded before the resourceVersion is compared with it (etcd3 GetList).
    { path: `${CM}?limit=2&resourceVersion=5&continue=${tok('x')}`, message: /^invalid continue token: / },
  ];
  for (const [i, k] of cases.entries()) {
    const r = await c.request('GET', k.path);
    expectStatus(r, 400, 'BadRequest', `case ${i} ${k.path}`);
    if (typeof k.message === 'string') assert.is(r.json.message, k.message, `case ${i}: message`);
    else assert.match(r.json.message, k.message, `case ${i}: message ${r.json.message}`);
  }
});

test('500 without a reason: non-numeric versions where kube reads its watch cache', async () => {
  const cases: { path: string; message: string | RegExp }[] = [
    { path: `${CM}?resourceVersion=abc`, message: 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax' },
    { path: `${CM}?resourceVersion=-5`, message: /^resourceVersion: .*"-5": invalid syntax$/ },
    { path: `${CM}?resourceVersion=99999999999999999999999`, message: /^resourceVersion: .*: value out of range$/ },
    { path: `${CM}?resourceVersionMatch=NotOlderThan&resourceVersion=x1`, message: /^resourceVersion: Invalid value: "x1"/ },
    { path: `${CM}/a?resourceVersion=abc`, message: /^resourceVersion: Invalid value: "abc"/ },
    { path: `${CM}?watch=1&resourceVersion=abc`, message: /^resourceVersion: Invalid value: "abc"/ },
  ];
  for (const [i, k] of cases.entries()) {
    const r = await c.request('GET', k.path);
    assert.is(r.status, 500, `case ${i} ${k.path}: ${show(r)}`);
    assert.is(r.json?.reason, undefined, `case ${i}: no reason`);
    assert.is(r.json?.code, 500, `case ${i}: code`);
    if (typeof k.message === 'string') assert.is(r.json.message, k.message, `case ${i}: message`);
    else assert.match(r.json.message, k.message, `case ${i}: message ${r.json.message}`);
  }
});

test('a continue token cannot reach outside the listed collection', async () => {
  // A well-formed token whose start sorts before the namespace: the scan stays inside rv/.
  const forged = b64({ v: 'meta.k8s.io/v1', rv: Number(v.LATEST), start: '!' });
  const r = await ok(c.request('GET', `${CM}?limit=10&continue=${forged}`), 200, 'forged start');
  assert.ok((r.items as any[]).every((x) => x.metadata.namespace === NS), itemsOf(r).join(','));
});

// ------------------------------------------------------------------------------------------ waits and 504

test('not older than a version just ahead waits for the fold, then answers', async () => {
  const W = '/api/v1/namespaces/rv-wait/configmaps';
  const next = String(Number(folded()) + 1);
  const started = Date.now();
  // Only the watch-cache reads (no limit) wait; etcd-path reads answer at once (below).
  const pending = [
    c.request('GET', `${W}?resourceVersion=${next}`),
    c.request('GET', `${W}?resourceVersionMatch=NotOlderThan&resourceVersion=${next}`),
    c.request('GET', `${CM}/a?resourceVersion=${next}`),
  ];
  await sleep(300);
  const made = await ok(c.request('POST', W, { body: cm('late') }), 201, 'create late');
  assert.is(made.metadata.resourceVersion, next, 'the create took the next version');
  const [l1, l2, g] = await Promise.all(pending);
  assert.ok(Date.now() - started < 2500, 'answered once the fold got there, not at the timeout');
  for (const [i, r] of [l1, l2].entries()) {
    assert.is(r.status, 200, `list ${i}: ${show(r)}`);
    assert.equal(itemsOf(r.json), [`late@${next}`], `list ${i}: sees the write it waited for`);
    assert.ok(Number(r.json.metadata.resourceVersion) >= Number(next), `list ${i}: ListMeta not older than ${next}`);
  }
  assert.is(g.status, 200, show(g));
});

test('etcd-path reads of a version not reached answer at once: Exact → 500, NotOlderThan with limit → 504', async () => {
  const fut = String(Number(folded()) + 1_000_000);
  const token = b64({ v: 'meta.k8s.io/v1', rv: Number(fut), start: 'a' });
  const started = Date.now();
  for (const [i, p] of [`${CM}?resourceVersionMatch=Exact&resourceVersion=${fut}`, `${CM}?resourceVersion=${fut}&limit=2`, `${CM}?limit=2&continue=${token}`].entries()) {
    const r = await c.request('GET', p);
    assert.is(r.status, 500, `case ${i} ${p}: ${show(r)}`);
    assert.equal(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: mvcc: required revision is a future revision', code: 500 }, `case ${i}: body`);
  }
  const r = await c.request('GET', `${CM}?resourceVersionMatch=NotOlderThan&resourceVersion=${fut}&limit=2`);
  expectStatus(r, 504, 'Timeout', 'NotOlderThan + limit');
  assert.match(r.json.message, new RegExp(`^Timeout: Too large resource version: ${fut}, current: \\d+$`));
  assert.is(r.headers['retry-after'], undefined, 'no Retry-After');
  assert.equal(r.json.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] }, 'details');
  assert.ok(Date.now() - started < 2000, 'no wait');
});

test('504 Timeout "Too large resource version" for a version never reached (get, watch-cache lists)', async () => {
  const fut = String(Number(folded()) + 1_000_000);
  const paths = [
    `${CM}?resourceVersion=${fut}`,
    `${CM}?resourceVersionMatch=NotOlderThan&resourceVersion=${fut}`,
    `${CM}/a?resourceVersion=${fut}`,
  ];
  const started = Date.now();
  const results = await Promise.all(paths.map((p) => c.request('GET', p)));
  assert.ok(Date.now() - started >= 2900, 'the server waited (3 s) before giving up');
  for (const [i, r] of results.entries()) {
    const label = `case ${i} ${paths[i]}`;
    expectStatus(r, 504, 'Timeout', label);
    assert.match(r.json.message, new RegExp(`^Timeout: Too large resource version: ${fut}, current: \\d+$`), `${label}: message`);
    assert.is(r.headers['retry-after'], '1', `${label}: Retry-After header`);
    assert.is(r.json.details?.retryAfterSeconds, 1, `${label}: details.retryAfterSeconds`);
    assert.equal(r.json.details?.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], `${label}: causes`);
  }
});

// ------------------------------------------------------------------------------------------ 410

test('410 Expired below the compacted history (exact lists, continue tokens, watch); not-older-than reads are still served', async () => {
  // A second server with a 1 s history window: everything older than a second gets compacted.
  const dataDir = tempDir();
  let s2 = await startTestServer({ historyWindowMs: 1000, dataDir, namespaceDefaults: false });
  try {
    const c2 = s2.client;
    const W = '/api/v1/namespaces/default/configmaps';
    for (const n of ['x1', 'x2', 'x3']) await ok(c2.request('POST', W, { body: cm(n) }), 201, n);
    const old = String(s2.server.storage.folded);
    const page = await ok(c2.request('GET', `${W}?limit=1`), 200, 'first page before compaction');
    assert.ok(page.metadata.continue, 'a continue token');
    await ok(c2.request('PUT', `${W}/x3`, { body: cm('x3', { k: 'new' }) }), 200, 'update x3');
    const deadline = Date.now() + 10_000;
    while (s2.server.storage.compactedBelow <= Number(old) && Date.now() < deadline) await sleep(200);
    assert.ok(s2.server.storage.compactedBelow > Number(old), `compaction passed ${old} (at ${s2.server.storage.compactedBelow})`);
    const latest = String(s2.server.storage.folded);

    for (const [i, q] of [`resourceVersionMatch=Exact&resourceVersion=${old}`, `limit=1&resourceVersion=${old}`, `resourceVersionMatch=Exact&limit=1&resourceVersion=${old}`].entries()) {
      const r = await c2.request('GET', `${W}?${q}`);
      expectStatus(r, 410, 'Expired', `case ${i} ?${q}`);
      assert.is(r.json.message, EXPIRED_LIST, `case ${i}: message`);
    }
    for (const [i, q] of [`resourceVersion=${old}`, `resourceVersionMatch=NotOlderThan&resourceVersion=${old}`, `resourceVersionMatch=NotOlderThan&limit=5&resourceVersion=${old}`].entries()) {
      const r = await ok(c2.request('GET', `${W}?${q}`), 200, `not older than case ${i}`);
      assert.is(r.metadata.resourceVersion, latest, `not older than case ${i}: served at the latest version`);
    }
    await ok(c2.request('GET', `${W}/x1?resourceVersion=${old}`), 200, 'get not older than a compacted version');
    const exactNow = await ok(c2.request('GET', `${W}?resourceVersionMatch=Exact&resourceVersion=${latest}`), 200, 'Exact at the latest version');
    assert.is(exactNow.metadata.resourceVersion, latest);

    // The expired continue token: kube's message, and a token that continues at the latest version.
    const r = await c2.request('GET', `${W}?limit=1&continue=${encodeURIComponent(page.metadata.continue)}`);
    expectStatus(r, 410, 'Expired', 'expired continue token');
    assert.is(r.json.message, EXPIRED_CONTINUE, 'expired continue: message');
    assert.ok(r.json.metadata?.continue, `expired continue: a token to resume with; ${show(r)}`);
    const rest = await ok(c2.request('GET', `${W}?limit=5&continue=${encodeURIComponent(r.json.metadata.continue)}`), 200, 'resume after 410');
    assert.equal((rest.items as any[]).map((x) => `${x.metadata.name}:${x.data.k}`), ['x2:1', 'x3:new'], 'the remainder, as it is now');
    assert.is(rest.metadata.resourceVersion, latest, 'served at the latest version');
    // A watch from a compacted version older than the watch ring (which starts at the server's
    // start): restart on the same data, then 200 and one ERROR event carrying 410 Expired.
    await s2.close();
    s2 = await startTestServer({ historyWindowMs: 1000, dataDir, namespaceDefaults: false });
    const w = await s2.client.request('GET', `${W}?watch=1&resourceVersion=${old}&timeoutSeconds=1`);
    assert.is(w.status, 200, show(w));
    const ev = events(w);
    assert.is(ev.length, 1, `one event: ${w.text}`);
    assert.is(ev[0].type, 'ERROR', w.text);
    assert.equal([ev[0].object.kind, ev[0].object.code, ev[0].object.reason], ['Status', 410, 'Expired'], w.text);
    assert.match(ev[0].object.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`), w.text);
  } finally {
    await s2.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a watch honours --history-window as exact lists do: 410 inside the watch ring once the version is compacted', async () => {
  // No restart: the watch ring (bounded by changes and bytes, far from full) still holds the
  // changes after `old`; the history window alone puts `old` out of reach.
  const s2 = await startTestServer({ historyWindowMs: 2000, namespaceDefaults: false });
  const c2 = s2.client;
  const W = '/api/v1/namespaces/default/configmaps';
  try {
    await ok(c2.request('POST', W, { body: cm('w1') }), 201, 'w1');
    const old = String(s2.server.storage.folded);
    await ok(c2.request('POST', W, { body: cm('w2') }), 201, 'w2');
    await ok(c2.request('PUT', `${W}/w2`, { body: cm('w2', { k: '2' }) }), 200, 'update w2');
    // Idle until compaction reaches the last write (the window start stays there while nothing is written).
    const storage = s2.server.storage;
    const deadline = Date.now() + 15_000;
    while (storage.compactedBelow < storage.folded && Date.now() < deadline) await sleep(200);
    const cut = storage.compactedBelow;
    assert.is(cut, storage.folded, 'compaction reached the last write');
    expectStatus(await c2.request('GET', `${W}?resourceVersionMatch=Exact&resourceVersion=${old}`), 410, 'Expired', 'exact list at the old version');
    for (const from of [old, String(cut - 1)]) {
      const w = await c2.request('GET', `${W}?watch=1&resourceVersion=${from}&timeoutSeconds=1`);
      assert.is(w.status, 200, show(w));
      assert.is(w.headers['content-type'], 'application/json', 'content type');
      // kube's form (checked on kube-apiserver 1.24 with a version older than its watch cache).
      assert.equal(events(w), [
        {
          type: 'ERROR',
          object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${cut})`, reason: 'Expired', code: 410 },
        },
      ]);
    }
    // From the compaction point itself: a watch (nothing after it yet; a change arrives).
    const live = c2.request('GET', `${W}?watch=1&resourceVersion=${cut}&timeoutSeconds=2`);
    await sleep(300);
    await ok(c2.request('PUT', `${W}/w1`, { body: cm('w1', { k: '3' }) }), 200, 'update w1');
    assert.equal(eventsOf(await live), [`MODIFIED w1@${storage.folded}`]);
  } finally {
    await s2.close();
  }
});

test.run();
