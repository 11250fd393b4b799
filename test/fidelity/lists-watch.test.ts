/**
 * Lists and watches as kube-apiserver 1.24 answers them:
 *   - list items carry no `kind`/`apiVersion` (JSON, YAML, Protobuf);
 *   - `resourceVersion=0` is served by kube's watch cache, which ignores `limit`: the whole list,
 *     no continue token, no remainingItemCount (item order is the cache's, so names are compared
 *     as a set);
 *   - reads at a version not reached: Exact (and the legacy "N with a limit", and continue tokens)
 *     fail at once with etcd's 500; NotOlderThan with a limit at once with a 504 and no
 *     Retry-After; watch-cache reads (no limit, get) wait 3 s, then 504 with Retry-After 1;
 *   - an unparsable resourceVersion is a 500 where the watch cache parses it (get, watch, list
 *     without limit) and a 400 where etcd does (limit, Exact);
 *   - the deprecated `/api/v1/watch/…` paths (namespaced, all namespaces, one object, a
 *     cluster-scoped object), `?watch=1` on an item path being a plain get, and metadata-only
 *     watches (`as=PartialObjectMetadata`) whose events carry only metadata.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';
import { decodeProtobuf } from '../../internal/http/protobuf.ts';
import { kubeYaml } from '../../internal/http/kube-yaml.ts';

let t: Target;
let ns: string;
let CM: string;

const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: name } });
const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 600)}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const events = (r: HttpResult): any[] => r.text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
/** `TYPE Kind/name` per event. */
const summary = (r: HttpResult): string[] => events(r).map((e) => `${e.type} ${e.object.kind}/${e.object.metadata?.name}`);
/** The latest resourceVersion of the target (a list's ListMeta). */
const latest = async (): Promise<number> => Number((await t.client.request('GET', CM)).json.metadata.resourceVersion);
const FUTURE_REVISION = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'etcdserver: mvcc: required revision is a future revision', code: 500 };

test.before(async () => {
  // The reference runs no controller-manager: without its per-namespace objects (kube-root-ca.crt,
  // the default ServiceAccount) our fresh namespaces hold exactly what the suite puts there, as its.
  t = await startTarget({ namespaceDefaults: false });
  ns = await t.createNamespace('lists');
  CM = `/api/v1/namespaces/${ns}/configmaps`;
  for (const n of ['a', 'b', 'c']) {
    const r = await t.client.request('POST', CM, { body: cm(n, { app: n === 'c' ? 'other' : 'x' }) });
    assert.is(r.status, 201, show(r));
  }
});

test.after(async () => {
  await t?.close();
});

// ------------------------------------------------------------------------------------------ items

test('list items carry no kind/apiVersion (JSON)', async () => {
  const r = await t.client.request('GET', CM);
  assert.is(r.status, 200, show(r));
  assert.ok(r.text.startsWith('{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"'), r.text.slice(0, 120));
  assert.ok(r.text.endsWith(']}\n'), 'a trailing newline');
  assert.is(r.json.items.length, 3);
  for (const [i, item] of (r.json.items as any[]).entries()) {
    assert.equal(Object.keys(item), ['metadata', 'data'], `item ${i}: members`);
  }
  // A single object still names itself.
  const one = await t.client.request('GET', `${CM}/a`);
  assert.ok(one.text.startsWith('{"kind":"ConfigMap","apiVersion":"v1","metadata":{'), one.text.slice(0, 80));
});

test('list items carry no kind/apiVersion (YAML: sorted keys, items unindented)', async () => {
  const before = await latest();
  const r = await t.client.request('GET', `${CM}?fieldSelector=metadata.name%3Da`, { headers: { accept: 'application/yaml' } });
  const after = await latest();
  assert.is(r.status, 200, show(r));
  assert.is(r.headers['content-type'], 'application/yaml');
  assert.ok(r.text.startsWith('apiVersion: v1\nitems:\n- data:\n    k: a\n  metadata:\n'), r.text.slice(0, 200));
  // The list's own version, between a read before and one after (the server's controllers and
  // kube's lease writers may write meanwhile).
  const tail = /kind: ConfigMapList\nmetadata:\n {2}resourceVersion: "(\d+)"\n$/.exec(r.text);
  assert.ok(tail, r.text.slice(-120));
  const rv = Number(tail![1]);
  assert.ok(rv >= before && rv <= after, `${before} <= ${rv} <= ${after}`);
  assert.not.match(r.text, /\n {2}kind: ConfigMap\n/, 'no kind inside the item');
});

test('YAML is go-yaml\'s: quoting, literal blocks, folding past column 80 (kubeYaml against the target)', async () => {
  // Against the reference this checks kubeYaml on strings go-yaml treats specially.
  const long = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua ut enim ad minim veniam';
  const annotations = {
    c: '', e: 'null', f: '~', h: 'a: b', i: 'multi\nline', k: "it's", l: '- x', m: '#x', n: 'x #y', o: ' lead', p: 'trail ', q: '@x', r: '2026-01-01', s: '1e3', t: 'on', u: 'é\t', y: 'yes', z: '0x1',
    plain: long, sq: `- ${long}`, dq: `\t${long}  two  spaces  ${long}`, sp2: `${'a'.repeat(79)}  ${'b'.repeat(30)}  c`, esc: 'a<b>&c',
  };
  const made = await t.client.request('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'yaml', annotations }, data: { k: long } } });
  assert.is(made.status, 201, show(made));
  for (const [i, p] of [`${CM}/yaml`, `${CM}?fieldSelector=metadata.name%3Dyaml`].entries()) {
    const json = await t.client.request('GET', p);
    const yaml = await t.client.request('GET', p, { headers: { accept: 'application/yaml' } });
    assert.is(yaml.headers['content-type'], 'application/yaml', `case ${i}`);
    assert.is(yaml.text, kubeYaml(json.json), `case ${i} ${p}`);
  }
  const del = await t.client.request('DELETE', `${CM}/yaml`);
  assert.is(del.status, 200, show(del));
});

test('list items carry no kind/apiVersion (Protobuf)', async () => {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const r = await undiciRequest(`${k.server}${CM}`, { dispatcher: agent, headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    const body = Buffer.from(await r.body.arrayBuffer());
    assert.is(r.statusCode, 200);
    const list = decodeProtobuf(body);
    assert.equal([list.apiVersion, list.kind], ['v1', 'ConfigMapList']);
    const items = list.object.items as Record<string, unknown>[];
    assert.is(items.length, 3);
    for (const [i, item] of items.entries()) assert.equal([item.kind, item.apiVersion], [undefined, undefined], `item ${i}`);
  } finally {
    await agent.close();
  }
});

// ------------------------------------------------------------------------------------------ rv=0

test('resourceVersion=0 ignores limit: the whole list, no continue', async () => {
  for (const [i, q] of ['resourceVersion=0&limit=1', 'resourceVersion=0&limit=1&resourceVersionMatch=NotOlderThan', 'resourceVersion=0&limit=1&labelSelector=app%3Dx'].entries()) {
    const r = await t.client.request('GET', `${CM}?${q}`);
    assert.is(r.status, 200, `case ${i}: ${show(r)}`);
    assert.equal(Object.keys(r.json.metadata), ['resourceVersion'], `case ${i}: ListMeta has no continue/remainingItemCount`);
    const names = (r.json.items as any[]).map((x) => x.metadata.name).sort();
    assert.equal(names, q.includes('labelSelector') ? ['a', 'b'] : ['a', 'b', 'c'], `case ${i}: every item`);
  }
  // Control: without resourceVersion=0 the limit applies.
  const paged = await t.client.request('GET', `${CM}?limit=1`);
  assert.is(paged.json.items.length, 1);
  assert.ok(paged.json.metadata.continue, 'a continue token');
});

// ------------------------------------------------------------------------------------------ future versions

test('a version not reached: Exact and etcd-path reads answer at once', async () => {
  const fut = (await latest()) + 1_000_000;
  const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: fut, start: 'a' })).toString('base64url');
  const started = Date.now();
  for (const [i, q] of [`resourceVersionMatch=Exact&resourceVersion=${fut}`, `resourceVersionMatch=Exact&resourceVersion=${fut}&limit=1`, `resourceVersion=${fut}&limit=1`, `limit=1&continue=${token}`].entries()) {
    const r = await t.client.request('GET', `${CM}?${q}`);
    assert.is(r.status, 500, `case ${i} ?${q}: ${show(r)}`);
    assert.is(r.text, JSON.stringify(FUTURE_REVISION) + '\n', `case ${i}: body`);
    assert.is(r.headers['retry-after'], undefined, `case ${i}: no Retry-After`);
  }
  const r = await t.client.request('GET', `${CM}?resourceVersionMatch=NotOlderThan&resourceVersion=${fut}&limit=1`);
  assert.is(r.status, 504, show(r));
  assert.is(r.headers['retry-after'], undefined, 'no Retry-After');
  const current = /current: (\d+)"/.exec(r.text)?.[1];
  assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Timeout: Too large resource version: ${fut}, current: ${current}`, reason: 'Timeout', details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] }, code: 504 }) + '\n');
  assert.ok(Date.now() - started < 2500, 'no wait');
});

test('a version not reached: watch-cache reads wait 3 s, then 504 with Retry-After 1', async () => {
  const fut = (await latest()) + 1_000_000;
  const started = Date.now();
  const rs = await Promise.all([`${CM}?resourceVersion=${fut}`, `${CM}?resourceVersion=${fut}&resourceVersionMatch=NotOlderThan`, `${CM}/a?resourceVersion=${fut}`].map((p) => t.client.request('GET', p)));
  assert.ok(Date.now() - started >= 2900, 'waited');
  for (const [i, r] of rs.entries()) {
    assert.is(r.status, 504, `case ${i}: ${show(r)}`);
    assert.is(r.headers['retry-after'], '1', `case ${i}: Retry-After`);
    const current = /current: (\d+)"/.exec(r.text)?.[1];
    assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Timeout: Too large resource version: ${fut}, current: ${current}`, reason: 'Timeout', details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 }, code: 504 }) + '\n', `case ${i}: body`);
  }
});

test('a watch from a version not reached is a quiet 200 until its timeout', async () => {
  const fut = (await latest()) + 1_000_000;
  const started = Date.now();
  const r = await t.client.request('GET', `${CM}?watch=1&resourceVersion=${fut}&timeoutSeconds=1`);
  assert.is(r.status, 200, show(r));
  assert.is(r.text, '', 'no events');
  assert.ok(Date.now() - started < 2500, 'ended at its timeout');
});

test('bookmarks: one 2 s before the deadline, once the store moved on; an empty object of the kind', async () => {
  const other = await t.createNamespace('lists-other');
  const from = await latest();
  const watching = t.client.request('GET', `${CM}?watch=1&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=4`);
  await sleep(500);
  // A change the watch does not select (another namespace) still moves the bookmark's version.
  const made = await t.client.request('POST', `/api/v1/namespaces/${other}/configmaps`, { body: cm('elsewhere') });
  assert.is(made.status, 201, show(made));
  const r = await watching;
  assert.is(r.status, 200, show(r));
  // kube files bookmark times in 1 s buckets, so the pre-deadline bookmark sometimes goes out
  // twice (popped before its exact time, requeued for the same time); this server sends it once.
  const lines = r.text.split('\n').filter(Boolean);
  assert.ok(lines.length === 1 || (t.reference && lines.length === 2), r.text);
  const rv = /"resourceVersion":"(\d+)"/.exec(lines[0])?.[1];
  assert.ok(Number(rv) >= Number(made.json.metadata.resourceVersion), `bookmark at ${rv}, after the change at ${made.json.metadata.resourceVersion}`);
  for (const line of lines) assert.is(line, `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"${rv}","creationTimestamp":null}}}`);
  // Too short a watch for a bookmark before its deadline: none.
  const short = await t.client.request('GET', `${CM}?watch=1&allowWatchBookmarks=true&resourceVersion=${await latest()}&timeoutSeconds=1`);
  assert.is(short.text, '', 'no bookmark');
});

test('query booleans and integers as kube parses them', async () => {
  // ?watch= (empty), yes, TRUE: watches; FALSE: a list.
  for (const [i, v] of ['', 'yes', 'TRUE'].entries()) {
    const r = await t.client.request('GET', `${CM}?watch=${v}&timeoutSeconds=1&labelSelector=app%3Dother`);
    assert.equal(summary(r), ['ADDED ConfigMap/c'], `watch case ${i} (${v})`);
  }
  const list = await t.client.request('GET', `${CM}?watch=FALSE`);
  assert.is(list.json.kind, 'ConfigMapList', show(list));
  const bad = (v: string, why: string): string => JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `strconv.ParseInt: parsing ${JSON.stringify(v)}: ${why}`, reason: 'BadRequest', code: 400 }) + '\n';
  for (const [i, [q, v, why]] of [['watch=1&timeoutSeconds=abc', 'abc', 'invalid syntax'], ['limit=99999999999999999999', '99999999999999999999', 'value out of range'], ['limit=1.5', '1.5', 'invalid syntax']].entries()) {
    const r = await t.client.request('GET', `${CM}?${q}`);
    assert.is(r.text, bad(v, why), `int case ${i} ?${q}: ${show(r)}`);
  }
  const all = await t.client.request('GET', `${CM}?limit=-1`);
  assert.is(all.json.items.length, 3, 'a negative limit is no limit');
});

// ------------------------------------------------------------------------------------------ unparsable

test('an unparsable resourceVersion: 500 where the watch cache parses it, 400 where etcd does', async () => {
  const inner = (v: string): string => `resourceVersion: Invalid value: ${JSON.stringify(v)}: strconv.ParseUint: parsing ${JSON.stringify(v)}: invalid syntax`;
  const cache = [`${CM}?resourceVersion=abc`, `${CM}/a?resourceVersion=abc`, `${CM}?watch=1&resourceVersion=abc`, `/api/v1/watch/namespaces/${ns}/configmaps?resourceVersion=abc`, `${CM}?resourceVersion=-1`];
  for (const [i, p] of cache.entries()) {
    const v = p.endsWith('-1') ? '-1' : 'abc';
    const r = await t.client.request('GET', p);
    assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: inner(v), code: 500 }) + '\n', `cache case ${i} ${p}: ${show(r)}`);
  }
  for (const [i, p] of [`${CM}?resourceVersion=abc&limit=1`, `${CM}?resourceVersion=abc&resourceVersionMatch=Exact`].entries()) {
    const r = await t.client.request('GET', p);
    assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `invalid resource version: ${inner('abc')}`, reason: 'BadRequest', code: 400 }) + '\n', `etcd case ${i} ${p}: ${show(r)}`);
  }
});

// ------------------------------------------------------------------------------------------ legacy watch paths

test('legacy /api/v1/watch/… paths: namespaced, all namespaces, one object, a cluster-scoped object', async () => {
  const cases: { path: string; want: string[] }[] = [
    { path: `/api/v1/watch/namespaces/${ns}/configmaps`, want: ['ADDED ConfigMap/a', 'ADDED ConfigMap/b', 'ADDED ConfigMap/c'] },
    { path: `/api/v1/watch/configmaps?fieldSelector=metadata.namespace%3D${ns}&labelSelector=app%3Dx`, want: ['ADDED ConfigMap/a', 'ADDED ConfigMap/b'] },
    { path: `/api/v1/watch/namespaces/${ns}/configmaps/b`, want: ['ADDED ConfigMap/b'] },
    { path: `/api/v1/watch/namespaces/${ns}/configmaps/b?fieldSelector=metadata.name%3Db`, want: ['ADDED ConfigMap/b'] },
    { path: `/api/v1/watch/namespaces/${ns}`, want: [`ADDED Namespace/${ns}`] },
    { path: `/api/v1/watch/namespaces?fieldSelector=metadata.name%3D${ns}`, want: [`ADDED Namespace/${ns}`] },
    // `watch=0` does not turn a legacy watch path into a list.
    { path: `/api/v1/watch/namespaces/${ns}/configmaps/a?watch=0`, want: ['ADDED ConfigMap/a'] },
  ];
  const rs = await Promise.all(cases.map((k) => t.client.request('GET', `${k.path}${k.path.includes('?') ? '&' : '?'}timeoutSeconds=1`)));
  for (const [i, r] of rs.entries()) {
    assert.is(r.status, 200, `case ${i} ${cases[i].path}: ${show(r)}`);
    assert.equal(summary(r).sort(), cases[i].want, `case ${i} ${cases[i].path}`);
  }
});

test('a legacy watch of one object sees its changes, not its neighbours\'', async () => {
  const watching = t.client.request('GET', `/api/v1/watch/namespaces/${ns}/configmaps/a?timeoutSeconds=2`);
  await sleep(500);
  for (const n of ['a', 'b']) {
    const r = await t.client.request('PATCH', `${CM}/${n}`, { body: { data: { k: `${n}2` } }, contentType: 'application/merge-patch+json' });
    assert.is(r.status, 200, show(r));
  }
  const r = await watching;
  assert.equal(summary(r), ['ADDED ConfigMap/a', 'MODIFIED ConfigMap/a'], r.text.slice(0, 300));
});

test('a named watch refuses a field selector naming another object', async () => {
  const r = await t.client.request('GET', `/api/v1/watch/namespaces/${ns}/configmaps/a?fieldSelector=metadata.name%3Db&timeoutSeconds=1`);
  assert.is(r.text, JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: "fieldSelector metadata.name doesn't match requested name", reason: 'BadRequest', code: 400 }) + '\n', show(r));
});

test('?watch=1 on an item path is a plain get', async () => {
  const r = await t.client.request('GET', `${CM}/a?watch=1&timeoutSeconds=1`);
  assert.is(r.status, 200, show(r));
  assert.is(r.json.kind, 'ConfigMap');
  assert.is(r.json.metadata.name, 'a');
});

test('legacy watch paths that name no route: 404', async () => {
  const PATH_404 = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 }) + '\n';
  for (const [i, p] of [`/api/v1/watch/namespaces/${ns}/widgets`, `/api/v1/watch/namespaces/${ns}/configmaps/a/status`, `/api/v1/watch/namespaces/${ns}/status`].entries()) {
    const r = await t.client.request('GET', p);
    assert.is(r.text, PATH_404, `case ${i} ${p}: ${show(r)}`);
  }
});

test('a Table watch prints its column definitions on the first event only', async () => {
  const r = await t.client.request('GET', `${CM}?watch=1&timeoutSeconds=1`, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
  assert.is(r.status, 200, show(r));
  const evs = events(r);
  assert.is(evs.length, 3, r.text.slice(0, 300));
  assert.ok(Array.isArray(evs[0].object.columnDefinitions) && evs[0].object.columnDefinitions.length > 0, 'first event: headers');
  for (const [i, e] of evs.slice(1).entries()) {
    assert.is(e.object.kind, 'Table', `event ${i + 1}`);
    assert.is(e.object.columnDefinitions, null, `event ${i + 1}: no headers`);
    assert.equal(Object.keys(e.object), ['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows'], `event ${i + 1}: members`);
  }
});

// ------------------------------------------------------------------------------------------ metadata-only watch

test('a metadata-only watch sends PartialObjectMetadata objects', async () => {
  const accept = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
  const watching = t.client.request('GET', `${CM}?watch=1&labelSelector=app%3Dother&timeoutSeconds=2`, { headers: { accept } });
  await sleep(500);
  const p = await t.client.request('PATCH', `${CM}/c`, { body: { metadata: { annotations: { x: 'y' } } }, contentType: 'application/merge-patch+json' });
  assert.is(p.status, 200, show(p));
  const r = await watching;
  assert.is(r.status, 200, show(r));
  assert.is(r.headers['content-type'], 'application/json');
  const evs = events(r);
  assert.equal(evs.map((e) => e.type), ['ADDED', 'MODIFIED'], r.text.slice(0, 300));
  for (const [i, e] of evs.entries()) {
    assert.equal(Object.keys(e), ['type', 'object'], `event ${i}`);
    assert.equal(Object.keys(e.object), ['kind', 'apiVersion', 'metadata'], `event ${i}: only metadata`);
    assert.equal([e.object.kind, e.object.apiVersion, e.object.metadata.name], ['PartialObjectMetadata', 'meta.k8s.io/v1', 'c'], `event ${i}`);
  }
  assert.equal(evs[1].object.metadata.annotations, { x: 'y' }, 'the change is in the metadata');
  assert.is(evs[1].object.metadata.resourceVersion, p.json.metadata.resourceVersion);
});

test.run();
