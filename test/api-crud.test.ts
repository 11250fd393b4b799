/**
 * ConfigMaps and Secrets end to end over HTTPS: create/get/list (per namespace and across all),
 * selectors, generateName, update and its preconditions, the three patch types, no-op writes,
 * dry run, delete (+ preconditions, deletecollection), paging, Secret stringData/type rules,
 * immutability, validation limits, the finalizer state machine, YAML and Table representations.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import YAML from 'yaml';
import { startTestServer, type TestServer, type Client } from './harness.ts';
import { show, expectStatus, expectInvalid, ok } from './assertions.ts';

let srv: TestServer;
let c: Client;

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const nsPath = (ns: string, resource: string): string => `/api/v1/namespaces/${ns}/${resource}`;




async function createNs(name: string): Promise<void> {
  await ok(c.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201, `create namespace ${name}`);
}

const cm = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...meta },
  data: { a: '1' },
  ...extra,
});
const secret = (name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, ...meta },
  data: { a: b64('1') },
  ...extra,
});

interface KindCase {
  resource: 'configmaps' | 'secrets';
  kind: string;
  listKind: string;
  make: (name: string, extra?: Record<string, unknown>, meta?: Record<string, unknown>) => Record<string, unknown>;
  /** A data map in the kind's wire form for value `v`. */
  data: (v: string) => Record<string, string>;
}
const KINDS: KindCase[] = [
  { resource: 'configmaps', kind: 'ConfigMap', listKind: 'ConfigMapList', make: cm, data: (v) => ({ a: v }) },
  { resource: 'secrets', kind: 'Secret', listKind: 'SecretList', make: secret, data: (v) => ({ a: b64(v) }) },
];

const names = (list: any): string[] => (list.items as any[]).map((i) => i.metadata.name).sort();

test.before(async () => {
  // Without kube-controller-manager's per-namespace objects (kube-root-ca.crt, the default
  // ServiceAccount): the suite counts exactly the objects it makes in its namespaces.
  srv = await startTestServer({ namespaceDefaults: false });
  c = srv.client;
  for (const ns of ['crud', 'crud-b', 'sel', 'page', 'dc']) await createNs(ns);
});

test.after(async () => {
  await srv?.close();
});

// ------------------------------------------------------------------------------------------ create / get

test('create 201 sets uid, creationTimestamp, resourceVersion and an Update managedFields entry; get 200', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const created = await ok(c.request('POST', `${nsPath('crud', k.resource)}?fieldManager=crud-test`, { body: k.make('first', {}, { labels: { app: 'crud' } }) }), 201, `${label} create`);
    assert.is(created.kind, k.kind, `${label}: kind`);
    assert.is(created.apiVersion, 'v1', `${label}: apiVersion`);
    assert.is(created.metadata.name, 'first', `${label}: name`);
    assert.is(created.metadata.namespace, 'crud', `${label}: namespace`);
    assert.match(created.metadata.uid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `${label}: uid`);
    assert.match(created.metadata.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, `${label}: creationTimestamp`);
    assert.match(created.metadata.resourceVersion, /^[1-9]\d*$/, `${label}: resourceVersion`);
    const mf = (created.metadata.managedFields ?? []) as any[];
    const mine = mf.find((e) => e.manager === 'crud-test');
    assert.ok(mine, `${label}: managedFields has an entry for crud-test: ${JSON.stringify(mf)}`);
    assert.is(mine.operation, 'Update', `${label}: managedFields operation`);
    assert.is(mine.apiVersion, 'v1', `${label}: managedFields apiVersion`);
    assert.is(mine.fieldsType, 'FieldsV1', `${label}: managedFields fieldsType`);
    assert.ok(mine.fieldsV1 && typeof mine.fieldsV1 === 'object', `${label}: managedFields fieldsV1`);
    assert.equal(created.data, k.data('1'), `${label}: data`);

    const got = await ok(c.request('GET', `${nsPath('crud', k.resource)}/first`), 200, `${label} get`);
    assert.equal(got, created, `${label}: GET returns what create returned`);
  }
});

// ------------------------------------------------------------------------------------------ list

test('list in a namespace and across all namespaces, with ListMeta.resourceVersion', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    for (const ns of ['crud', 'crud-b']) {
      await ok(c.request('POST', nsPath(ns, k.resource), { body: k.make('listed', {}, { labels: { suite: 'list' } }) }), 201, `${label} create in ${ns}`);
    }
    const sel = `labelSelector=${encodeURIComponent('suite=list')}`;
    const one = await ok(c.request('GET', `${nsPath('crud', k.resource)}?${sel}`), 200, `${label} list crud`);
    assert.is(one.kind, k.listKind, `${label}: list kind`);
    assert.is(one.apiVersion, 'v1', `${label}: list apiVersion`);
    assert.match(one.metadata.resourceVersion, /^[1-9]\d*$/, `${label}: ListMeta.resourceVersion`);
    assert.equal((one.items as any[]).map((x) => `${x.metadata.namespace}/${x.metadata.name}`), ['crud/listed'], `${label}: namespaced list`);

    const all = await ok(c.request('GET', `/api/v1/${k.resource}?${sel}`), 200, `${label} list all`);
    assert.is(all.kind, k.listKind, `${label}: all-namespaces list kind`);
    assert.match(all.metadata.resourceVersion, /^[1-9]\d*$/, `${label}: all-namespaces ListMeta.resourceVersion`);
    assert.equal((all.items as any[]).map((x) => `${x.metadata.namespace}/${x.metadata.name}`).sort(), ['crud-b/listed', 'crud/listed'], `${label}: all-namespaces list`);
    const maxItemRv = Math.max(...(all.items as any[]).map((x) => Number(x.metadata.resourceVersion)));
    assert.ok(Number(all.metadata.resourceVersion) >= maxItemRv, `${label}: list rv ${all.metadata.resourceVersion} >= newest item rv ${maxItemRv}`);

    const unfiltered = await ok(c.request('GET', nsPath('crud-b', k.resource)), 200, `${label} list crud-b`);
    assert.ok((unfiltered.items as any[]).every((x) => x.metadata.namespace === 'crud-b'), `${label}: namespaced list holds only its namespace`);
  }
});

// ------------------------------------------------------------------------------------------ selectors

test('labelSelector operators =, ==, !=, in, notin, exists, !key', async () => {
  const objs: [string, Record<string, string> | undefined][] = [
    ['s1', { env: 'prod', tier: 'web' }],
    ['s2', { env: 'dev', tier: 'web' }],
    ['s3', { env: 'prod' }],
    ['s4', undefined],
  ];
  for (const [name, labels] of objs) {
    await ok(c.request('POST', nsPath('sel', 'configmaps'), { body: cm(name, {}, labels ? { labels } : {}) }), 201, `create ${name}`);
  }
  const cases: [string, string[]][] = [
    ['env=prod', ['s1', 's3']],
    ['env==prod', ['s1', 's3']],
    ['env!=prod', ['s2', 's4']],
    ['env in (prod,dev)', ['s1', 's2', 's3']],
    ['env in (dev)', ['s2']],
    ['env notin (prod)', ['s2', 's4']],
    ['tier', ['s1', 's2']],
    ['!tier', ['s3', 's4']],
    ['env=prod,tier=web', ['s1']],
    ['env,!tier', ['s3']],
    ['env=staging', []],
    ['', ['s1', 's2', 's3', 's4']],
  ];
  for (const [i, [sel, want]] of cases.entries()) {
    const list = await ok(c.request('GET', `${nsPath('sel', 'configmaps')}?labelSelector=${encodeURIComponent(sel)}`), 200, `case ${i} (${sel})`);
    assert.equal(names(list), want, `case ${i} (labelSelector ${JSON.stringify(sel)})`);
  }
});

test('fieldSelector: metadata.name, metadata.namespace, Secret type; unsupported field → 400', async () => {
  const secrets = [
    secret('sec-opaque'),
    secret('sec-tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('crt'), 'tls.key': b64('key') } }),
    secret('sec-basic', { type: 'kubernetes.io/basic-auth', data: { username: b64('u') } }),
  ];
  for (const s of secrets) await ok(c.request('POST', nsPath('sel', 'secrets'), { body: s }), 201, `create ${s.metadata.name}`);

  const cases: [string, string, string[]][] = [
    [nsPath('sel', 'configmaps'), 'metadata.name=s1', ['s1']],
    [nsPath('sel', 'configmaps'), 'metadata.name==s2', ['s2']],
    [nsPath('sel', 'configmaps'), 'metadata.name!=s1', ['s2', 's3', 's4']],
    [nsPath('sel', 'configmaps'), 'metadata.namespace=sel', ['s1', 's2', 's3', 's4']],
    [nsPath('sel', 'configmaps'), 'metadata.namespace=crud', []],
    ['/api/v1/configmaps', 'metadata.namespace=sel', ['s1', 's2', 's3', 's4']],
    ['/api/v1/configmaps', 'metadata.namespace=sel,metadata.name=s3', ['s3']],
    ['/api/v1/configmaps', 'metadata.name=listed', ['listed', 'listed']],
    [nsPath('sel', 'secrets'), 'type=kubernetes.io/tls', ['sec-tls']],
    [nsPath('sel', 'secrets'), 'type=Opaque', ['sec-opaque']],
    [nsPath('sel', 'secrets'), 'type!=Opaque', ['sec-basic', 'sec-tls']],
    ['/api/v1/secrets', 'metadata.namespace=sel,type=kubernetes.io/basic-auth', ['sec-basic']],
  ];
  for (const [i, [path, sel, want]] of cases.entries()) {
    const list = await ok(c.request('GET', `${path}?fieldSelector=${encodeURIComponent(sel)}`), 200, `case ${i} (${path} ${sel})`);
    assert.equal(names(list), want, `case ${i} (${path} fieldSelector ${JSON.stringify(sel)})`);
  }
  const mixed = await ok(c.request('GET', `${nsPath('sel', 'configmaps')}?labelSelector=env%3Dprod&fieldSelector=${encodeURIComponent('metadata.name!=s1')}`), 200, 'label+field');
  assert.equal(names(mixed), ['s3'], 'labelSelector and fieldSelector combine (AND)');

  const bad: [string, string][] = [
    [nsPath('sel', 'configmaps'), 'data.a=1'],
    [nsPath('sel', 'configmaps'), 'type=Opaque'],
    ['/api/v1/configmaps', 'spec.x=1'],
    [nsPath('sel', 'secrets'), 'data.a=1'],
    [nsPath('sel', 'secrets'), 'status.phase=Active'],
  ];
  for (const [i, [path, sel]] of bad.entries()) {
    expectStatus(await c.request('GET', `${path}?fieldSelector=${encodeURIComponent(sel)}`), 400, 'BadRequest', `unsupported case ${i} (${path} ${sel})`);
  }
});

// ------------------------------------------------------------------------------------------ generateName

test('generateName appends a 5-character suffix', async () => {
  for (const [i, k] of KINDS.entries()) {
    const seen = new Set<string>();
    for (let j = 0; j < 3; j++) {
      const body = k.make('', {}, {});
      body.metadata = { generateName: 'gen-' };
      const o = await ok(c.request('POST', nsPath('crud', k.resource), { body }), 201, `case ${i}.${j} (${k.kind})`);
      assert.match(o.metadata.name, /^gen-[a-z0-9]{5}$/, `case ${i}.${j} (${k.kind}): generated name`);
      assert.is(o.metadata.generateName, 'gen-', `case ${i}.${j}: generateName kept`);
      seen.add(o.metadata.name);
      await ok(c.request('GET', `${nsPath('crud', k.resource)}/${o.metadata.name}`), 200, `case ${i}.${j}: get generated`);
    }
    assert.is(seen.size, 3, `case ${i} (${k.kind}): generated names are distinct`);
  }
});

// ------------------------------------------------------------------------------------------ update

test('PUT: current resourceVersion → 200; stale → 409 Conflict; none (unconditional) → 200', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('crud', k.resource);
    const v1 = await ok(c.request('POST', base, { body: k.make('upd') }), 201, `${label} create`);

    const v2 = await ok(c.request('PUT', `${base}/upd`, { body: { ...k.make('upd', { data: k.data('2') }), metadata: { name: 'upd', resourceVersion: v1.metadata.resourceVersion } } }), 200, `${label} PUT current rv`);
    assert.equal(v2.data, k.data('2'), `${label}: updated data`);
    assert.is.not(v2.metadata.resourceVersion, v1.metadata.resourceVersion, `${label}: rv changed`);
    assert.is(v2.metadata.uid, v1.metadata.uid, `${label}: uid kept`);
    assert.is(v2.metadata.creationTimestamp, v1.metadata.creationTimestamp, `${label}: creationTimestamp kept`);

    const stale = await c.request('PUT', `${base}/upd`, { body: { ...k.make('upd', { data: k.data('stale') }), metadata: { name: 'upd', resourceVersion: v1.metadata.resourceVersion } } });
    expectStatus(stale, 409, 'Conflict', `${label} PUT stale rv`);
    const after = await ok(c.request('GET', `${base}/upd`), 200, `${label} get after conflict`);
    assert.equal(after.data, k.data('2'), `${label}: stale PUT changed nothing`);
    assert.is(after.metadata.resourceVersion, v2.metadata.resourceVersion, `${label}: rv unchanged after conflict`);

    const v3 = await ok(c.request('PUT', `${base}/upd`, { body: k.make('upd', { data: k.data('3') }) }), 200, `${label} PUT without rv`);
    assert.equal(v3.data, k.data('3'), `${label}: unconditional update applied`);
    assert.ok(Number(v3.metadata.resourceVersion) > Number(v2.metadata.resourceVersion), `${label}: rv grew`);
  }
});

test('PUT with a mismatched metadata.uid → 409 Conflict (uid is a precondition)', async () => {
  // kube-apiserver: rest.DefaultUpdatedObjectInfo(obj).Preconditions() returns the body's uid;
  // the storage precondition check fails with "Precondition failed: UID in precondition: …",
  // which storage/errors.InterpretUpdateError turns into 409 Conflict.
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('crud', k.resource);
    const o = await ok(c.request('POST', base, { body: k.make('uidpre') }), 201, `${label} create`);
    const withRv = await c.request('PUT', `${base}/uidpre`, { body: { ...k.make('uidpre', { data: k.data('x') }), metadata: { name: 'uidpre', uid: '00000000-0000-0000-0000-000000000000', resourceVersion: o.metadata.resourceVersion } } });
    const noRv = await c.request('PUT', `${base}/uidpre`, { body: { ...k.make('uidpre', { data: k.data('y') }), metadata: { name: 'uidpre', uid: '00000000-0000-0000-0000-000000000000' } } });
    const g = await ok(c.request('GET', `${base}/uidpre`), 200, `${label} get`);
    assert.equal(g.data, k.data('1'), `${label}: uid-mismatched PUTs changed nothing`);
    const same = await ok(c.request('PUT', `${base}/uidpre`, { body: { ...k.make('uidpre', { data: k.data('z') }), metadata: { name: 'uidpre', uid: o.metadata.uid } } }), 200, `${label} PUT with the right uid`);
    assert.equal(same.data, k.data('z'), `${label}: matching uid accepted`);
    expectStatus(withRv, 409, 'Conflict', `${label} PUT with another uid (and current rv)`);
    expectStatus(noRv, 409, 'Conflict', `${label} PUT with another uid (no rv)`);
  }
});

// ------------------------------------------------------------------------------------------ patch

test('merge, JSON (incl. failing test op → 422) and strategic merge patches', async () => {
  const base = nsPath('crud', 'configmaps');
  let cur = await ok(c.request('POST', base, { body: cm('patchme', { data: { a: '1' } }, { labels: { keep: '1', drop: '1' } }) }), 201, 'create');
  const steps: { label: string; type: string; patch: unknown; check: (o: any) => void }[] = [
    { label: 'merge add key', type: 'application/merge-patch+json', patch: { data: { b: '2' } }, check: (o) => assert.equal(o.data, { a: '1', b: '2' }) },
    { label: 'merge remove key', type: 'application/merge-patch+json', patch: { data: { b: null } }, check: (o) => assert.equal(o.data, { a: '1' }) },
    {
      label: 'json replace+add',
      type: 'application/json-patch+json',
      patch: [
        { op: 'replace', path: '/data/a', value: '10' },
        { op: 'add', path: '/data/c', value: '3' },
      ],
      check: (o) => assert.equal(o.data, { a: '10', c: '3' }),
    },
    {
      label: 'json passing test op',
      type: 'application/json-patch+json',
      patch: [
        { op: 'test', path: '/data/a', value: '10' },
        { op: 'remove', path: '/data/c' },
      ],
      check: (o) => assert.equal(o.data, { a: '10' }),
    },
    {
      label: 'strategic add/remove labels',
      type: 'application/strategic-merge-patch+json',
      patch: { metadata: { labels: { added: 'yes', drop: null } } },
      check: (o) => assert.equal(o.metadata.labels, { keep: '1', added: 'yes' }),
    },
  ];
  for (const [i, s] of steps.entries()) {
    const r = await c.request('PATCH', `${base}/patchme`, { body: s.patch, contentType: s.type });
    assert.is(r.status, 200, `case ${i} (${s.label}): ${show(r)}`);
    try {
      s.check(r.json);
    } catch (e) {
      throw new Error(`case ${i} (${s.label}): ${(e as Error).message}; got ${r.text.slice(0, 300)}`);
    }
    assert.ok(Number(r.json.metadata.resourceVersion) > Number(cur.metadata.resourceVersion), `case ${i} (${s.label}): rv grew`);
    const g = await ok(c.request('GET', `${base}/patchme`), 200, `case ${i}: get`);
    assert.equal(g, r.json, `case ${i} (${s.label}): GET shows the patched object`);
    cur = r.json;
  }

  const failing = await c.request('PATCH', `${base}/patchme`, {
    body: [
      { op: 'test', path: '/data/a', value: 'not-the-value' },
      { op: 'replace', path: '/data/a', value: 'x' },
    ],
    contentType: 'application/json-patch+json',
  });
  expectStatus(failing, 422, 'Invalid', 'JSON patch with a failing test op');
  const g = await ok(c.request('GET', `${base}/patchme`), 200, 'get after failed test');
  assert.equal(g.data, { a: '10' }, 'failed JSON patch changed nothing');
  assert.is(g.metadata.resourceVersion, cur.metadata.resourceVersion, 'failed JSON patch kept rv');

  const malformed = await c.request('PATCH', `${base}/patchme`, { raw: '{"data":', contentType: 'application/merge-patch+json' });
  expectStatus(malformed, 400, 'BadRequest', 'malformed merge patch');

  // Secret: merge patch of labels and a stringData key (folded into data)
  await ok(c.request('POST', nsPath('crud', 'secrets'), { body: secret('patchme') }), 201, 'create secret');
  const sp = await ok(
    c.request('PATCH', `${nsPath('crud', 'secrets')}/patchme`, { body: { metadata: { labels: { x: 'y' } }, stringData: { b: 'two' } }, contentType: 'application/merge-patch+json' }),
    200,
    'secret merge patch',
  );
  assert.equal(sp.metadata.labels, { x: 'y' }, 'secret labels patched');
  assert.equal(sp.data, { a: b64('1'), b: b64('two') }, 'secret stringData patched into data');
  assert.is(sp.stringData, undefined, 'secret stringData never returned');
});

test('no-op update and no-op patch keep the resourceVersion', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('crud', k.resource);
    const created = await ok(c.request('POST', base, { body: k.make('noop', {}, { labels: { l: 'v' } }) }), 201, `${label} create`);
    const put = await ok(c.request('PUT', `${base}/noop`, { body: created }), 200, `${label} PUT unchanged`);
    assert.is(put.metadata.resourceVersion, created.metadata.resourceVersion, `${label}: no-op PUT keeps rv`);
    const put2 = await ok(c.request('PUT', `${base}/noop`, { body: k.make('noop', {}, { labels: { l: 'v' } }) }), 200, `${label} PUT same content without rv`);
    assert.is(put2.metadata.resourceVersion, created.metadata.resourceVersion, `${label}: no-op unconditional PUT keeps rv`);
    const p1 = await ok(c.request('PATCH', `${base}/noop`, { body: {}, contentType: 'application/merge-patch+json' }), 200, `${label} empty merge patch`);
    assert.is(p1.metadata.resourceVersion, created.metadata.resourceVersion, `${label}: empty merge patch keeps rv`);
    const p2 = await ok(c.request('PATCH', `${base}/noop`, { body: { metadata: { labels: { l: 'v' } } }, contentType: 'application/strategic-merge-patch+json' }), 200, `${label} same-value patch`);
    assert.is(p2.metadata.resourceVersion, created.metadata.resourceVersion, `${label}: same-value strategic patch keeps rv`);
    const g = await ok(c.request('GET', `${base}/noop`), 200, `${label} get`);
    assert.is(g.metadata.resourceVersion, created.metadata.resourceVersion, `${label}: stored rv unchanged`);
  }
});

// ------------------------------------------------------------------------------------------ dry run

test('dryRun=All on create/update/patch/delete changes nothing but returns the would-be result', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('crud', k.resource);

    const dc = await ok(c.request('POST', `${base}?dryRun=All`, { body: k.make('dry-new') }), 201, `${label} dry create`);
    assert.is(dc.metadata.name, 'dry-new', `${label}: dry create returns the object`);
    assert.equal(dc.data, k.data('1'), `${label}: dry create data`);
    assert.ok(dc.metadata.uid && dc.metadata.creationTimestamp, `${label}: dry create filled uid and creationTimestamp`);
    expectStatus(await c.request('GET', `${base}/dry-new`), 404, 'NotFound', `${label} get after dry create`);

    const real = await ok(c.request('POST', base, { body: k.make('dry') }), 201, `${label} create`);
    const rv = real.metadata.resourceVersion;
    const unchanged = async (what: string) => {
      const g = await ok(c.request('GET', `${base}/dry`), 200, `${label} get after dry ${what}`);
      assert.equal(g.data, k.data('1'), `${label}: dry ${what} left data alone`);
      assert.is(g.metadata.resourceVersion, rv, `${label}: dry ${what} left rv alone`);
      assert.equal(g.metadata.labels, undefined, `${label}: dry ${what} left labels alone`);
    };

    const du = await ok(c.request('PUT', `${base}/dry?dryRun=All`, { body: k.make('dry', { data: k.data('2') }) }), 200, `${label} dry update`);
    assert.equal(du.data, k.data('2'), `${label}: dry update returns the would-be object`);
    await unchanged('update');

    const dp = await ok(c.request('PATCH', `${base}/dry?dryRun=All`, { body: { metadata: { labels: { p: 'q' } } }, contentType: 'application/merge-patch+json' }), 200, `${label} dry patch`);
    assert.equal(dp.metadata.labels, { p: 'q' }, `${label}: dry patch returns the would-be object`);
    await unchanged('patch');

    const dd = await ok(c.request('DELETE', `${base}/dry?dryRun=All`), 200, `${label} dry delete`);
    assert.is(dd.kind, 'Status', `${label}: dry delete returns a Status`);
    assert.is(dd.status, 'Success', `${label}: dry delete Status success`);
    await unchanged('delete');

    // kube 1.24: ValidateCreateOptions → 422 Invalid on CreateOptions.meta.k8s.io (test/fidelity/delete-options.test.ts has the body).
    expectInvalid(await c.request('POST', `${base}?dryRun=Some`, { body: k.make('dry-bad') }), ['dryRun'], `${label} unknown dryRun value`);
  }
});

// ------------------------------------------------------------------------------------------ delete

test('delete returns a Status with details, then 404; preconditions uid/resourceVersion mismatch → 409', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('crud', k.resource);
    const o = await ok(c.request('POST', base, { body: k.make('del') }), 201, `${label} create`);
    const d = await ok(c.request('DELETE', `${base}/del`), 200, `${label} delete`);
    assert.is(d.kind, 'Status', `${label}: delete body kind`);
    assert.is(d.apiVersion, 'v1', `${label}: delete body apiVersion`);
    assert.is(d.status, 'Success', `${label}: delete status`);
    assert.is(d.details?.name, 'del', `${label}: details.name`);
    assert.is(d.details?.kind, k.resource, `${label}: details.kind`);
    assert.is(d.details?.uid, o.metadata.uid, `${label}: details.uid`);
    expectStatus(await c.request('GET', `${base}/del`), 404, 'NotFound', `${label} get after delete`);
    expectStatus(await c.request('DELETE', `${base}/del`), 404, 'NotFound', `${label} second delete`);

    const p = await ok(c.request('POST', base, { body: k.make('pre') }), 201, `${label} create pre`);
    const bad: { label: string; preconditions: Record<string, string> }[] = [
      { label: 'uid mismatch', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
      { label: 'resourceVersion mismatch', preconditions: { resourceVersion: '1' } },
      { label: 'uid ok, resourceVersion mismatch', preconditions: { uid: p.metadata.uid, resourceVersion: String(Number(p.metadata.resourceVersion) + 1000) } },
    ];
    for (const [j, b] of bad.entries()) {
      const r = await c.request('DELETE', `${base}/pre`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: b.preconditions } });
      expectStatus(r, 409, 'Conflict', `${label} precondition ${j} (${b.label})`);
      await ok(c.request('GET', `${base}/pre`), 200, `${label} precondition ${j}: object still there`);
    }
    const good = await ok(c.request('DELETE', `${base}/pre`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: p.metadata.uid, resourceVersion: p.metadata.resourceVersion } } }), 200, `${label} matching preconditions`);
    assert.is(good.status, 'Success', `${label}: delete with matching preconditions`);
    expectStatus(await c.request('GET', `${base}/pre`), 404, 'NotFound', `${label} gone after matching preconditions`);
  }
});

test('deletecollection with a labelSelector deletes only the matching objects of that namespace', async () => {
  for (const [i, k] of KINDS.entries()) {
    const label = `case ${i} (${k.kind})`;
    const base = nsPath('dc', k.resource);
    const objs: [string, Record<string, string> | undefined][] = [
      ['dc-1', { del: 'yes' }],
      ['dc-2', { del: 'yes', other: 'x' }],
      ['dc-3', { del: 'no' }],
      ['dc-4', undefined],
    ];
    for (const [name, labels] of objs) await ok(c.request('POST', base, { body: k.make(name, {}, labels ? { labels } : {}) }), 201, `${label} create ${name}`);
    await ok(c.request('POST', nsPath('crud', k.resource), { body: k.make('dc-elsewhere', {}, { labels: { del: 'yes' } }) }), 201, `${label} create elsewhere`);

    const r = await c.request('DELETE', `${base}?labelSelector=${encodeURIComponent('del=yes')}`);
    assert.is(r.status, 200, `${label} deletecollection: ${show(r)}`);
    const left = await ok(c.request('GET', base), 200, `${label} list after`);
    assert.equal(names(left), ['dc-3', 'dc-4'], `${label}: only matching objects deleted`);
    await ok(c.request('GET', `${nsPath('crud', k.resource)}/dc-elsewhere`), 200, `${label}: other namespace untouched`);

    const none = await c.request('DELETE', `${base}?labelSelector=${encodeURIComponent('del=nothing-matches')}`);
    assert.is(none.status, 200, `${label} deletecollection matching nothing: ${show(none)}`);
    assert.equal(names(await ok(c.request('GET', base), 200, `${label} list`)), ['dc-3', 'dc-4'], `${label}: nothing else deleted`);
  }
});

// ------------------------------------------------------------------------------------------ paging

test('limit/continue paging over 25 objects: 3 pages, remainingItemCount, one resourceVersion, no duplicates', async () => {
  const base = nsPath('page', 'configmaps');
  const all: string[] = [];
  for (let i = 0; i < 25; i++) {
    const name = `p-${String(i).padStart(2, '0')}`;
    all.push(name);
    await ok(c.request('POST', base, { body: cm(name) }), 201, `create ${name}`);
  }
  const pages: any[] = [];
  let token: string | undefined;
  for (let i = 0; i < 5; i++) {
    const q = token ? `limit=10&continue=${encodeURIComponent(token)}` : 'limit=10';
    const page = await ok(c.request('GET', `${base}?${q}`), 200, `page ${i}`);
    pages.push(page);
    token = page.metadata.continue;
    // A write after the first page must not show up in later pages (they are served at page 1's rv).
    if (i === 0) await ok(c.request('POST', base, { body: cm('p-zz-late') }), 201, 'create between pages');
    if (!token) break;
  }
  assert.is(pages.length, 3, `3 pages (got ${pages.length})`);
  const want = [
    { count: 10, remaining: 15, more: true },
    { count: 10, remaining: 5, more: true },
    { count: 5, remaining: undefined, more: false },
  ];
  for (const [i, w] of want.entries()) {
    const p = pages[i];
    assert.is(p.items.length, w.count, `page ${i}: item count`);
    assert.is(p.metadata.remainingItemCount, w.remaining, `page ${i}: remainingItemCount`);
    assert.is(Boolean(p.metadata.continue), w.more, `page ${i}: continue present`);
    assert.is(p.metadata.resourceVersion, pages[0].metadata.resourceVersion, `page ${i}: same resourceVersion as page 0`);
  }
  const seen = pages.flatMap((p) => (p.items as any[]).map((x) => x.metadata.name));
  assert.is(new Set(seen).size, seen.length, `no duplicates across pages: ${seen.join(',')}`);
  assert.equal([...seen].sort(), all, 'union of pages = all 25 objects');

  const fresh = await ok(c.request('GET', base), 200, 'list after paging');
  assert.is(fresh.items.length, 26, 'a fresh list sees the late object');
});

// ------------------------------------------------------------------------------------------ Secret rules

test('Secret stringData is merged into data (base64, overriding) and never returned', async () => {
  const base = nsPath('crud', 'secrets');
  const created = await ok(
    c.request('POST', base, { body: secret('sd', { data: { a: b64('from-data'), keep: b64('k') }, stringData: { a: 'from-string', b: 'hello' } }) }),
    201,
    'create',
  );
  const want = { a: b64('from-string'), keep: b64('k'), b: b64('hello') };
  assert.equal(created.data, want, 'create: data merged');
  assert.is(created.stringData, undefined, 'create: stringData not returned');
  const got = await ok(c.request('GET', `${base}/sd`), 200, 'get');
  assert.equal(got.data, want, 'get: data merged');
  assert.is(got.stringData, undefined, 'get: stringData not stored');

  const upd = await ok(c.request('PUT', `${base}/sd`, { body: secret('sd', { data: got.data, stringData: { c: 'x' } }) }), 200, 'update with stringData');
  assert.equal(upd.data, { ...want, c: b64('x') }, 'update: stringData merged');
  assert.is(upd.stringData, undefined, 'update: stringData not returned');
  const list = await ok(c.request('GET', `${base}?fieldSelector=metadata.name%3Dsd`), 200, 'list');
  assert.is(list.items[0].stringData, undefined, 'list: stringData not returned');
});

test('Secret type defaults to Opaque and is immutable (422 on change)', async () => {
  const base = nsPath('crud', 'secrets');
  const o = await ok(c.request('POST', base, { body: secret('typed') }), 201, 'create');
  assert.is(o.type, 'Opaque', 'type defaulted');
  const changes: { label: string; method: string; body: unknown; contentType?: string }[] = [
    { label: 'PUT new type', method: 'PUT', body: secret('typed', { type: 'example.com/custom' }) },
    { label: 'merge patch type', method: 'PATCH', body: { type: 'example.com/custom' }, contentType: 'application/merge-patch+json' },
    { label: 'PUT tls type', method: 'PUT', body: secret('typed', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } }) },
  ];
  for (const [i, ch] of changes.entries()) {
    const r = await c.request(ch.method, `${base}/typed`, { body: ch.body, contentType: ch.contentType });
    expectInvalid(r, ['type'], `case ${i} (${ch.label})`);
  }
  const same = await ok(c.request('PUT', `${base}/typed`, { body: secret('typed', { data: { a: b64('2') } }) }), 200, 'PUT without type keeps Opaque');
  assert.is(same.type, 'Opaque', 'type still Opaque');
  const g = await ok(c.request('GET', `${base}/typed`), 200, 'get');
  assert.is(g.type, 'Opaque', 'stored type unchanged');

  // immutable Secret: data frozen
  await ok(c.request('POST', base, { body: secret('frozen', { immutable: true }) }), 201, 'create immutable secret');
  expectInvalid(await c.request('PUT', `${base}/frozen`, { body: secret('frozen', { immutable: true, data: { a: b64('2') } }) }), ['data'], 'immutable secret data change');
  expectInvalid(await c.request('PUT', `${base}/frozen`, { body: secret('frozen', { immutable: true, stringData: { z: 'new' } }) }), ['data'], 'immutable secret stringData add');
});

test('ConfigMap immutable: data change → 422, label change → 200, un-setting immutable → 422', async () => {
  const base = nsPath('crud', 'configmaps');
  await ok(c.request('POST', base, { body: cm('imm', { immutable: true, data: { a: '1' }, binaryData: { bin: b64('b') } }) }), 201, 'create');
  const cases: { label: string; method: string; body: unknown; contentType?: string; fields?: string[] }[] = [
    { label: 'PUT data change', method: 'PUT', body: cm('imm', { immutable: true, data: { a: '2' }, binaryData: { bin: b64('b') } }), fields: ['data'] },
    { label: 'merge patch data add', method: 'PATCH', body: { data: { b: '2' } }, contentType: 'application/merge-patch+json', fields: ['data'] },
    { label: 'PUT binaryData change', method: 'PUT', body: cm('imm', { immutable: true, data: { a: '1' }, binaryData: { bin: b64('c') } }), fields: ['binaryData'] },
    { label: 'PUT immutable=false', method: 'PUT', body: cm('imm', { immutable: false, data: { a: '1' }, binaryData: { bin: b64('b') } }), fields: ['immutable'] },
    { label: 'merge patch immutable=null', method: 'PATCH', body: { immutable: null }, contentType: 'application/merge-patch+json', fields: ['immutable'] },
    { label: 'PUT immutable unset and data change', method: 'PUT', body: cm('imm', { data: { a: '3' }, binaryData: { bin: b64('b') } }), fields: ['data', 'immutable'] },
    { label: 'merge patch labels', method: 'PATCH', body: { metadata: { labels: { ok: 'yes' } } }, contentType: 'application/merge-patch+json' },
    { label: 'strategic patch annotations', method: 'PATCH', body: { metadata: { annotations: { note: 'fine' } } }, contentType: 'application/strategic-merge-patch+json' },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request(tc.method, `${base}/imm`, { body: tc.body, contentType: tc.contentType });
    if (tc.fields) expectInvalid(r, tc.fields, `case ${i} (${tc.label})`);
    else assert.is(r.status, 200, `case ${i} (${tc.label}): ${show(r)}`);
  }
  const g = await ok(c.request('GET', `${base}/imm`), 200, 'get');
  assert.equal(g.data, { a: '1' }, 'data unchanged');
  assert.equal(g.binaryData, { bin: b64('b') }, 'binaryData unchanged');
  assert.is(g.immutable, true, 'still immutable');
  assert.equal(g.metadata.labels, { ok: 'yes' }, 'label change applied');
  assert.equal(g.metadata.annotations, { note: 'fine' }, 'annotation change applied');
  const d = await ok(c.request('DELETE', `${base}/imm`), 200, 'immutable ConfigMap can be deleted');
  assert.is(d.status, 'Success');
});

// ------------------------------------------------------------------------------------------ validation

test('validation: 422 Invalid with the Kubernetes field paths', async () => {
  const MiB = 1024 * 1024;
  const cases: { label: string; resource: 'configmaps' | 'secrets'; body: unknown; fields: string[] }[] = [
    { label: 'ConfigMap key with a space', resource: 'configmaps', body: cm('v0', { data: { 'bad key': 'x' } }), fields: ['data[bad key]'] },
    { label: 'ConfigMap key with a slash', resource: 'configmaps', body: cm('v1', { data: { 'a/b': 'x' } }), fields: ['data[a/b]'] },
    { label: 'ConfigMap key ..', resource: 'configmaps', body: cm('v2', { data: { '..': 'x' } }), fields: ['data[..]'] },
    { label: 'ConfigMap binaryData key', resource: 'configmaps', body: cm('v3', { data: {}, binaryData: { 'bad key': b64('x') } }), fields: ['binaryData[bad key]'] },
    { label: 'data/binaryData overlap', resource: 'configmaps', body: cm('v4', { data: { dup: 'x' }, binaryData: { dup: b64('y') } }), fields: ['data[dup]'] },
    { label: 'ConfigMap over 1 MiB (data)', resource: 'configmaps', body: cm('v5', { data: { big: 'x'.repeat(MiB + 1) } }), fields: ['[]'] },
    { label: 'ConfigMap over 1 MiB (data + binaryData)', resource: 'configmaps', body: cm('v6', { data: { s: 'x'.repeat(600 * 1024) }, binaryData: { b: Buffer.alloc(600 * 1024, 1).toString('base64') } }), fields: ['[]'] },
    { label: 'annotations over 256 KiB', resource: 'configmaps', body: cm('v7', {}, { annotations: { big: 'x'.repeat(256 * 1024) } }), fields: ['metadata.annotations'] },
    { label: 'label value of 64 chars', resource: 'configmaps', body: cm('v8', {}, { labels: { k: 'a'.repeat(64) } }), fields: ['metadata.labels'] },
    { label: 'tls Secret without tls.key', resource: 'secrets', body: secret('v9', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c') } }), fields: ['data[tls.key]'] },
    { label: 'tls Secret without both keys', resource: 'secrets', body: secret('v10', { type: 'kubernetes.io/tls', data: {} }), fields: ['data[tls.crt]', 'data[tls.key]'] },
    {
      label: 'service-account-token Secret without the annotation',
      resource: 'secrets',
      body: secret('v11', { type: 'kubernetes.io/service-account-token' }),
      fields: ['metadata.annotations[kubernetes.io/service-account.name]'],
    },
    { label: 'Secret key with a space', resource: 'secrets', body: secret('v12', { data: { 'bad key': b64('x') } }), fields: ['data[bad key]'] },
    { label: 'Secret stringData key with a space', resource: 'secrets', body: secret('v13', { stringData: { 'bad key': 'x' } }), fields: ['data[bad key]'] },
    { label: 'Secret over 1 MiB', resource: 'secrets', body: secret('v14', { data: { big: Buffer.alloc(MiB + 1, 7).toString('base64') } }), fields: ['data'] },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request('POST', nsPath('crud', tc.resource), { body: tc.body });
    expectInvalid(r, tc.fields, `case ${i} (${tc.label})`);
    const name = (tc.body as { metadata: { name: string } }).metadata.name;
    expectStatus(await c.request('GET', `${nsPath('crud', tc.resource)}/${name}`), 404, 'NotFound', `case ${i}: nothing stored`);
  }
  // the boundaries themselves are accepted
  const fine: { label: string; resource: string; body: unknown }[] = [
    { label: 'label value of 63 chars', resource: 'configmaps', body: cm('edge-label', {}, { labels: { k: 'a'.repeat(63) } }) },
    { label: 'ConfigMap of exactly 1 MiB', resource: 'configmaps', body: cm('edge-size', { data: { big: 'x'.repeat(MiB) } }) },
    { label: 'tls Secret with both keys', resource: 'secrets', body: secret('edge-tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('c'), 'tls.key': b64('k') } }) },
    { label: 'service-account-token Secret with the annotation', resource: 'secrets', body: secret('edge-sa', { type: 'kubernetes.io/service-account-token' }, { annotations: { 'kubernetes.io/service-account.name': 'default' } }) },
  ];
  for (const [i, tc] of fine.entries()) {
    const r = await c.request('POST', nsPath('crud', tc.resource), { body: tc.body });
    assert.is(r.status, 201, `boundary case ${i} (${tc.label}): ${show(r)}`);
  }
});

// ------------------------------------------------------------------------------------------ finalizers

test('finalizers: delete marks deletionTimestamp; removing the last finalizer removes the object; name reusable', async () => {
  const base = nsPath('crud', 'configmaps');
  const created = await ok(c.request('POST', base, { body: cm('fin', {}, { finalizers: ['example.com/a', 'example.com/b'] }) }), 201, 'create');
  assert.equal(created.metadata.finalizers, ['example.com/a', 'example.com/b']);

  const del = await ok(c.request('DELETE', `${base}/fin`), 200, 'delete with finalizers');
  assert.is(del.kind, 'ConfigMap', 'delete with pending finalizers returns the object');
  assert.ok(del.metadata.deletionTimestamp, 'deletionTimestamp set');
  assert.equal(del.metadata.finalizers, ['example.com/a', 'example.com/b'], 'finalizers kept');

  const g1 = await ok(c.request('GET', `${base}/fin`), 200, 'still gettable');
  assert.is(g1.metadata.deletionTimestamp, del.metadata.deletionTimestamp, 'deletionTimestamp stored');

  const again = await ok(c.request('DELETE', `${base}/fin`), 200, 'second delete');
  assert.is(again.metadata.deletionTimestamp, del.metadata.deletionTimestamp, 'second delete keeps the first deletionTimestamp');

  const add = await c.request('PATCH', `${base}/fin`, { body: { metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } }, contentType: 'application/merge-patch+json' });
  expectInvalid(add, ['metadata.finalizers'], 'adding a finalizer while deleting');

  const p1 = await ok(c.request('PATCH', `${base}/fin`, { body: { metadata: { finalizers: ['example.com/b'] } }, contentType: 'application/merge-patch+json' }), 200, 'remove one finalizer');
  assert.equal(p1.metadata.finalizers, ['example.com/b']);
  const g2 = await ok(c.request('GET', `${base}/fin`), 200, 'still there with one finalizer');
  assert.ok(g2.metadata.deletionTimestamp, 'still deleting');

  const re = await c.request('POST', base, { body: cm('fin') });
  expectStatus(re, 409, 'AlreadyExists', 'name is taken while the object is terminating');

  const p2 = await c.request('PATCH', `${base}/fin`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
  assert.is(p2.status, 200, `remove the last finalizer: ${show(p2)}`);
  expectStatus(await c.request('GET', `${base}/fin`), 404, 'NotFound', 'gone after the last finalizer');

  const fresh = await ok(c.request('POST', base, { body: cm('fin') }), 201, 'name reusable');
  assert.is.not(fresh.metadata.uid, created.metadata.uid, 'a new object (new uid)');
  assert.is(fresh.metadata.deletionTimestamp, undefined, 'the new object is not deleting');
});

// ------------------------------------------------------------------------------------------ representations

test('YAML request bodies and Accept: application/yaml', async () => {
  const base = nsPath('crud', 'configmaps');
  const yamlBody = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: from-yaml', '  labels:', '    fmt: yaml', 'data:', '  key: value', '  multi: |', '    line1', '    line2', ''].join('\n');
  const r = await c.request('POST', base, { raw: yamlBody, contentType: 'application/yaml' });
  assert.is(r.status, 201, `YAML create: ${show(r)}`);
  assert.is(r.json.metadata.name, 'from-yaml');
  assert.equal(r.json.data, { key: 'value', multi: 'line1\nline2\n' });

  const y = await c.request('GET', `${base}/from-yaml`, { headers: { accept: 'application/yaml' } });
  assert.is(y.status, 200, show(y));
  assert.match(String(y.headers['content-type']), /^application\/yaml/, 'content-type');
  assert.is(y.json, undefined, 'the body is not JSON');
  const doc = YAML.parse(y.text);
  assert.is(doc.kind, 'ConfigMap');
  assert.is(doc.metadata.name, 'from-yaml');
  assert.is(doc.metadata.uid, r.json.metadata.uid);
  assert.equal(doc.data, { key: 'value', multi: 'line1\nline2\n' });

  const yl = await c.request('GET', `${base}?labelSelector=fmt%3Dyaml`, { headers: { accept: 'application/yaml' } });
  assert.is(yl.status, 200, show(yl));
  const listDoc = YAML.parse(yl.text);
  assert.is(listDoc.kind, 'ConfigMapList');
  assert.equal((listDoc.items as any[]).map((i) => i.metadata.name), ['from-yaml']);

  const yu = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: from-yaml', 'data:', '  key: changed', ''].join('\n');
  const u = await c.request('PUT', `${base}/from-yaml`, { raw: yu, contentType: 'application/yaml' });
  assert.is(u.status, 200, `YAML update: ${show(u)}`);
  assert.equal(u.json.data, { key: 'changed' });

  const bad = await c.request('POST', base, { raw: 'metadata: [unclosed', contentType: 'application/yaml' });
  expectStatus(bad, 400, 'BadRequest', 'malformed YAML');
});

test('Table: Accept as=Table on list/get returns columnDefinitions and rows', async () => {
  const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const cases: { path: string; columns: string[]; rows: string[]; cell1?: unknown[] }[] = [
    { path: nsPath('sel', 'configmaps'), columns: ['Name', 'Data', 'Age'], rows: ['s1', 's2', 's3', 's4'], cell1: [1, 1, 1, 1] },
    { path: `${nsPath('sel', 'configmaps')}/s2`, columns: ['Name', 'Data', 'Age'], rows: ['s2'], cell1: [1] },
    { path: nsPath('sel', 'secrets'), columns: ['Name', 'Type', 'Data', 'Age'], rows: ['sec-basic', 'sec-opaque', 'sec-tls'], cell1: ['kubernetes.io/basic-auth', 'Opaque', 'kubernetes.io/tls'] },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await c.request('GET', tc.path, { headers: { accept } });
    assert.is(r.status, 200, `case ${i} (${tc.path}): ${show(r)}`);
    assert.is(r.json.kind, 'Table', `case ${i}: kind`);
    assert.is(r.json.apiVersion, 'meta.k8s.io/v1', `case ${i}: apiVersion`);
    assert.equal((r.json.columnDefinitions as any[]).map((d) => d.name), tc.columns, `case ${i}: columns`);
    const rows = r.json.rows as any[];
    assert.equal(rows.map((row) => row.cells[0]), tc.rows, `case ${i}: row names`);
    if (tc.cell1) assert.equal(rows.map((row) => row.cells[1]), tc.cell1, `case ${i}: second column`);
    for (const row of rows) assert.is(row.cells.length, tc.columns.length, `case ${i}: one cell per column`);
    if (!tc.path.endsWith('/s2')) assert.match(r.json.metadata.resourceVersion, /^\d+$/, `case ${i}: list Table resourceVersion`);
  }
});

test.run();
