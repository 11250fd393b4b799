/**
 * managedFields written by non-apply writes (create, PUT, merge / strategic / JSON patch, the
 * namespace /status and /finalize subresources), checked whole after every step against what
 * kube-apiserver 1.24 writes. Runs on this server and, with TEST_KUBECONFIG, on the reference.
 *
 * Each step's `want` is the full managedFields list with times replaced by `<time>`; besides,
 * every answer must be ordered as kube orders entries (operation, time in seconds, manager).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('mf');
});
test.after(async () => {
  await t?.close();
});

type Entry = { manager?: string; operation: string; apiVersion: string; time?: string; fieldsType: string; fieldsV1: unknown; subresource?: string };

const JSON_CT = 'application/json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSONPATCH = 'application/json-patch+json';

async function call(method: string, path: string, body: unknown, opts: { ua?: string; manager?: string; contentType?: string } = {}): Promise<Record<string, any>> {
  const q = opts.manager ? `${path.includes('?') ? '&' : '?'}fieldManager=${encodeURIComponent(opts.manager)}` : '';
  const r: HttpResult = await t.client.request(method, path + q, {
    body,
    contentType: opts.contentType ?? JSON_CT,
    headers: { 'user-agent': opts.ua ?? 'fidelity-test/1.0 (linux)' },
  });
  assert.ok(r.status >= 200 && r.status < 300, `${method} ${path}: HTTP ${r.status} ${r.text}`);
  return r.json as Record<string, any>;
}

/** managedFields with times masked; also checks kube's ordering of the entries. */
function mf(obj: Record<string, any>): Entry[] | undefined {
  const entries = obj.metadata.managedFields as Entry[] | undefined;
  if (!entries) return undefined;
  for (let i = 1; i < entries.length; i++) {
    const p = entries[i - 1];
    const q = entries[i];
    const ordered =
      p.operation < q.operation ||
      (p.operation === q.operation && (Date.parse(p.time ?? '0') < Date.parse(q.time ?? '0') || (p.time === q.time && (p.manager ?? '') <= (q.manager ?? ''))));
    assert.ok(ordered, `entries out of kube's order: ${JSON.stringify(entries)}`);
  }
  return entries.map((e) => ({ ...e, ...(e.time ? { time: '<time>' } : {}) }));
}

const upd = (manager: string, fieldsV1: unknown, subresource?: string): Entry => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time: '<time>',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...(subresource ? { subresource } : {}),
});

/** Entries compared as a set of managers (order is checked by mf itself, within the second). */
function same(got: Entry[] | undefined, want: Entry[] | undefined, what: string): void {
  const key = (e: Entry): string => `${e.manager}/${e.subresource ?? ''}`;
  const sort = (l: Entry[] | undefined): Entry[] | undefined => l && [...l].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  assert.equal(sort(got), sort(want), what);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('configmap: create, PUT, merge, strategic and JSON patches by several managers', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm1', labels: { x: '1' } }, data: { a: '1', b: '2' } }, { ua: 'alpha/1.0 (linux/amd64) kubernetes/abc' });
  same(mf(o), [upd('alpha', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } })], 'create');

  // PUT removing b and adding c: b leaves alpha's set, c is beta's.
  o = await call('PUT', `${base}/cm1`, { metadata: { name: 'cm1', labels: { x: '1' } }, data: { a: '1', c: '3' } }, { manager: 'beta' });
  same(mf(o), [
    upd('alpha', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }),
    upd('beta', { 'f:data': { 'f:c': {} } }),
  ], 'PUT');

  // Merge patch changing a: a moves from alpha to gamma.
  o = await call('PATCH', `${base}/cm1`, { data: { a: 'changed' } }, { manager: 'gamma', contentType: MERGE });
  same(mf(o), [
    upd('alpha', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }),
    upd('beta', { 'f:data': { 'f:c': {} } }),
    upd('gamma', { 'f:data': { 'f:a': {} } }),
  ], 'merge patch');

  // Strategic patch adding a finalizer (metadata.finalizers is a set): beta's entry grows.
  o = await call('PATCH', `${base}/cm1`, { metadata: { finalizers: ['example.com/f'] } }, { manager: 'beta', contentType: STRATEGIC });
  same(mf(o), [
    upd('alpha', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }),
    upd('beta', { 'f:data': { 'f:c': {} }, 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/f"': {} } } }),
    upd('gamma', { 'f:data': { 'f:a': {} } }),
  ], 'strategic patch');

  // JSON patch removing the finalizers (by another manager): nobody owns them any more.
  o = await call('PATCH', `${base}/cm1`, [{ op: 'remove', path: '/metadata/finalizers' }], { manager: 'delta', contentType: JSONPATCH });
  same(mf(o), [
    upd('alpha', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }),
    upd('beta', { 'f:data': { 'f:c': {} } }),
    upd('gamma', { 'f:data': { 'f:a': {} } }),
  ], 'JSON patch');

  // $patch: replace on data: every key rewritten by epsilon; removed keys leave everyone.
  o = await call('PATCH', `${base}/cm1`, { data: { $patch: 'replace', z: '26' } }, { manager: 'epsilon', contentType: STRATEGIC });
  same(mf(o), [
    upd('alpha', { 'f:data': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } }),
    upd('epsilon', { 'f:data': { 'f:z': {} } }),
  ], '$patch: replace');
});

test('configmap: an entry keeps its time while its fields do not change', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-time' }, data: { a: '1' } }, { manager: 'writer' });
  const t0 = o.metadata.managedFields[0].time as string;
  await sleep(1100);
  o = await call('PATCH', `${base}/cm-time`, { data: { a: '2' } }, { manager: 'writer', contentType: MERGE });
  assert.is(o.data.a, '2');
  assert.is(o.metadata.managedFields[0].time, t0, 'same field set: same time');
  o = await call('PATCH', `${base}/cm-time`, { data: { b: '2' } }, { manager: 'writer', contentType: MERGE });
  same(mf(o), [upd('writer', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })], 'grown set');
  assert.is.not(o.metadata.managedFields[0].time, t0, 'new field: new time');
  // A no-op write by another manager adds no entry.
  o = await call('PATCH', `${base}/cm-time`, { data: { b: '2' } }, { manager: 'other', contentType: MERGE });
  same(mf(o), [upd('writer', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })], 'no-op');
});

test('configmap: managedFields [{}] clears them, and updates then track nothing', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-reset', labels: { l: '1' } }, data: { a: '1' } }, { manager: 'one' });
  assert.ok(mf(o));
  o = await call('PATCH', `${base}/cm-reset`, { metadata: { managedFields: [{}] } }, { manager: 'two', contentType: MERGE });
  assert.is(o.metadata.managedFields, undefined);
  o = await call('PATCH', `${base}/cm-reset`, { data: { b: '2' } }, { manager: 'two', contentType: MERGE });
  assert.is(o.metadata.managedFields, undefined, 'no tracking until the next create or apply');
  // A client may write managedFields of its own; they are then the starting point.
  const mine = [upd('manual', { 'f:data': { 'f:a': {} } })].map((e) => ({ ...e, time: '2020-01-01T00:00:00Z' }));
  o = await call('PATCH', `${base}/cm-reset`, { metadata: { managedFields: mine }, data: { c: '3' } }, { manager: 'three', contentType: MERGE });
  same(mf(o), [upd('manual', { 'f:data': { 'f:a': {} } }), upd('three', { 'f:data': { 'f:c': {} } })], 'client-written managedFields');
  assert.is(o.metadata.managedFields.find((e: Entry) => e.manager === 'manual').time, '2020-01-01T00:00:00Z');
});

test('configmap: generateName is owned; User-Agent names the manager', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const o = await call('POST', base, { metadata: { generateName: 'gen-' }, data: { a: '1' } }, { ua: 'kubectl-create/v1.32.0 (linux/amd64) kubernetes/abc' });
  same(mf(o), [upd('kubectl-create', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:generateName': {} } })], 'generateName');
});

test('configmap: more than ten updaters merge the oldest into ancient-changes', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-cap' }, data: { k0: '0' } }, { manager: 'm00' });
  for (let i = 1; i <= 11; i++) {
    o = await call('PATCH', `${base}/cm-cap`, { data: { [`k${i}`]: String(i) } }, { manager: `m${String(i).padStart(2, '0')}`, contentType: MERGE });
  }
  const managers = (o.metadata.managedFields as Entry[]).map((e) => e.manager);
  assert.is(managers.length, 10);
  assert.ok(managers.includes('ancient-changes'), JSON.stringify(managers));
  const ancient = (o.metadata.managedFields as Entry[]).find((e) => e.manager === 'ancient-changes')!;
  // Two oldest merged: with 12 updaters, the bucket holds the first (m00) and the next ones merged until 10 remain.
  const got = Object.keys((ancient.fieldsV1 as any)['f:data']).sort();
  assert.equal(got, ['.', 'f:k0', 'f:k1', 'f:k2']);
});

test('secret: stringData lands in data, type is defaulted and owned', async () => {
  const base = `/api/v1/namespaces/${ns}/secrets`;
  let o = await call('POST', base, { metadata: { name: 's1' }, stringData: { k: 'v' } }, { manager: 'maker' });
  same(mf(o), [upd('maker', { 'f:data': { '.': {}, 'f:k': {} }, 'f:type': {} })], 'create');
  o = await call('PATCH', `${base}/s1`, { stringData: { k2: 'v2' } }, { manager: 'patcher', contentType: MERGE });
  same(mf(o), [upd('maker', { 'f:data': { '.': {}, 'f:k': {} }, 'f:type': {} }), upd('patcher', { 'f:data': { 'f:k2': {} } })], 'stringData patch');
  o = await call('PUT', `${base}/s1`, { metadata: { name: 's1' }, data: { k2: Buffer.from('v3').toString('base64') } }, { manager: 'putter' });
  same(mf(o), [upd('maker', { 'f:data': {}, 'f:type': {} }), upd('putter', { 'f:data': { 'f:k2': {} } })], 'PUT');
});

test('namespace: the kubernetes finalizer is not owned; /status, /finalize and spec are tracked as kube does', async () => {
  const name = t.ns('mfns');
  let o = await call('POST', '/api/v1/namespaces', { metadata: { name, labels: { team: 'a' } } }, { manager: 'creator' });
  same(mf(o), [upd('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {}, 'f:team': {} } } })], 'create');
  assert.equal(o.spec, { finalizers: ['kubernetes'] });

  // Status through the main resource is reset by the strategy, so nobody owns it.
  o = await call('PATCH', `/api/v1/namespaces/${name}`, { metadata: { labels: { team: 'b' } }, status: { phase: 'Active' } }, { manager: 'labeler', contentType: MERGE });
  same(mf(o), [
    upd('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }),
    upd('labeler', { 'f:metadata': { 'f:labels': { 'f:team': {} } } }),
  ], 'main patch');

  // spec.finalizers is an atomic list: a PUT on the main resource owns it (the strategy keeps the old value).
  o = await call('PUT', `/api/v1/namespaces/${name}`, { metadata: { name, labels: o.metadata.labels }, spec: { finalizers: ['kubernetes', 'example.com/x'] } }, { manager: 'specwriter' });
  assert.equal(o.spec, { finalizers: ['kubernetes'] });
  same(mf(o), [
    upd('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }),
    upd('labeler', { 'f:metadata': { 'f:labels': { 'f:team': {} } } }),
    upd('specwriter', { 'f:spec': { 'f:finalizers': {} } }),
  ], 'PUT spec.finalizers');

  // /status: status fields are owned under the subresource's own entry.
  o = await call('PUT', `/api/v1/namespaces/${name}/status`, { ...o, metadata: { ...o.metadata, managedFields: undefined }, status: { phase: 'Active', conditions: [{ type: 'X', status: 'True' }] } }, { manager: 'statuser' });
  const creatorAndLabeler = [
    upd('creator', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }),
    upd('labeler', { 'f:metadata': { 'f:labels': { 'f:team': {} } } }),
  ];
  // A condition's zero lastTransitionTime is a field too (Go writes it as null).
  const statuser = upd('statuser', { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"X"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:status': {}, 'f:type': {} } } } }, 'status');
  same(mf(o), [...creatorAndLabeler, upd('specwriter', { 'f:spec': { 'f:finalizers': {} } }), statuser], '/status');

  // /finalize removing the kubernetes finalizer: spec.finalizers is no longer owned by anyone.
  o = await call('PUT', `/api/v1/namespaces/${name}/finalize`, { ...o, metadata: { ...o.metadata, managedFields: undefined }, spec: { finalizers: [] } }, { manager: 'finalizer' });
  assert.equal(o.spec.finalizers ?? [], []);
  same(mf(o), [...creatorAndLabeler, statuser], '/finalize');
});

test('configmap: Go field presence decides what is owned (omitempty zero values are not fields)', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-zero', labels: { empty: '' }, annotations: {} }, immutable: false, data: {}, binaryData: { b: 'AA==' } }, { manager: 'zero' });
  // immutable is a *bool: false is a value; empty data/annotations are omitted by Go.
  same(mf(o), [upd('zero', { 'f:binaryData': { '.': {}, 'f:b': {} }, 'f:immutable': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:empty': {} } } })], 'create');
  o = await call('PUT', `${base}/cm-zero`, { metadata: { name: 'cm-zero', labels: { empty: '' } }, immutable: false, data: { d: '' } }, { manager: 'zero2' });
  same(mf(o), [upd('zero', { 'f:immutable': {}, 'f:metadata': { 'f:labels': { '.': {}, 'f:empty': {} } } }), upd('zero2', { 'f:data': { '.': {}, 'f:d': {} } })], 'PUT');
});

test('configmap: invalid managedFields in a request are ignored; [] resets like [{}]', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-bad', managedFields: [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] }, data: { a: '1' } }, { manager: 'creator' });
  same(mf(o), [upd('creator', { 'f:data': { '.': {}, 'f:a': {} } })], 'create with an invalid entry');
  o = await call('PATCH', `${base}/cm-bad`, { metadata: { managedFields: [{ manager: 'y', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV2' }] }, data: { b: '2' } }, { manager: 'patcher', contentType: MERGE });
  same(mf(o), [upd('creator', { 'f:data': { '.': {}, 'f:a': {} } }), upd('patcher', { 'f:data': { 'f:b': {} } })], 'patch with an invalid entry');
  o = await call('PATCH', `${base}/cm-bad`, { metadata: { managedFields: [] } }, { manager: 'patcher', contentType: MERGE });
  assert.is(o.metadata.managedFields, undefined);
});

test('namespace: generateName is owned, the name label set once named is not', async () => {
  const o = await call('POST', '/api/v1/namespaces', { metadata: { generateName: `${ns}-g-` } }, { manager: 'gen' });
  assert.is(o.metadata.labels['kubernetes.io/metadata.name'], o.metadata.name);
  same(mf(o), [upd('gen', { 'f:metadata': { 'f:generateName': {} } })], 'create');
});

test('namespace: PUT without spec or status by a second manager', async () => {
  const name = t.ns('mfput');
  let o = await call('POST', '/api/v1/namespaces', { metadata: { name } }, { ua: '' });
  same(mf(o), [upd('unknown', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } })], 'create without a User-Agent');
  o = await call('PUT', `/api/v1/namespaces/${name}`, { metadata: { name, annotations: { a: 'b' } } }, { ua: 'Mozilla/5.0 (X11)' });
  same(mf(o), [
    upd('unknown', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } }),
    upd('Mozilla', { 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } } }),
  ], 'PUT');
  assert.equal(o.spec, { finalizers: ['kubernetes'] });
});

/** kubectl (1.32 on PATH) against the target, with a private cache dir; resolves stdout. */
function kubectl(args: string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, KUBECACHEDIR: join(tmpdir(), 'mf-kubectl-cache') };
    const child = execFile('kubectl', ['--kubeconfig', t.kubeconfig, ...args], { env, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
  });
}

test('kubectl create, label, client-side apply, replace and patch', async () => {
  const get = async (): Promise<Record<string, any>> => JSON.parse(await kubectl(['-n', ns, 'get', 'configmap', 'kc', '-o', 'json', '--show-managed-fields']));
  await kubectl(['-n', ns, 'create', 'configmap', 'kc', '--from-literal=a=1']);
  same(mf(await get()), [upd('kubectl-create', { 'f:data': { '.': {}, 'f:a': {} } })], 'kubectl create');
  await kubectl(['-n', ns, 'label', 'configmap', 'kc', 'tier=web']);
  same(mf(await get()), [upd('kubectl-create', { 'f:data': { '.': {}, 'f:a': {} } }), upd('kubectl-label', { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } })], 'kubectl label');
  const dir = mkdtempSync(join(tmpdir(), 'mf-'));
  const file = join(dir, 'cm.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kc', namespace: ns }, data: { a: '1', b: '2' } }));
  await kubectl(['apply', '-f', file]);
  const lastApplied = { 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } };
  same(mf(await get()), [
    upd('kubectl-create', { 'f:data': { '.': {}, 'f:a': {} } }),
    upd('kubectl-label', { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } }),
    upd('kubectl-client-side-apply', { 'f:data': { 'f:b': {} }, ...lastApplied }),
  ], 'kubectl apply');
  // replace sends the object it read, managedFields included (they are the starting point), and
  // kubectl rewrites the last-applied annotation: both changed fields move to kubectl-replace,
  // their parents stay members of the former owners.
  const o = await get();
  o.data = { b: '3' };
  await kubectl(['replace', '-f', '-'], JSON.stringify(o));
  const afterReplace = [
    upd('kubectl-create', { 'f:data': {} }),
    upd('kubectl-label', { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } }),
    upd('kubectl-client-side-apply', { 'f:metadata': { 'f:annotations': {} } }),
    upd('kubectl-replace', { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }),
  ];
  same(mf(await get()), afterReplace, 'kubectl replace');
  // Removing the labels removes kubectl-label's entry; a write that only removes adds none.
  await kubectl(['-n', ns, 'patch', 'configmap', 'kc', '--type=json', '-p', '[{"op":"remove","path":"/metadata/labels"}]']);
  same(mf(await get()), afterReplace.filter((e) => e.manager !== 'kubectl-label'), 'kubectl patch');
});

test('configmap: removing the last finalizer of a deleting object', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  let o = await call('POST', base, { metadata: { name: 'cm-fin', finalizers: ['example.com/a', 'example.com/b'] }, data: { a: '1' } }, { manager: 'f1' });
  same(mf(o), [upd('f1', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/a"': {}, 'v:"example.com/b"': {} } } })], 'create');
  o = await call('DELETE', `${base}/cm-fin`, undefined);
  assert.ok(o.metadata.deletionTimestamp);
  same(mf(o), [upd('f1', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/a"': {}, 'v:"example.com/b"': {} } } })], 'delete does not manage fields');
  o = await call('PATCH', `${base}/cm-fin`, { metadata: { finalizers: ['example.com/b'] } }, { manager: 'f2', contentType: MERGE });
  same(mf(o), [upd('f1', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/b"': {} } } })], 'one finalizer removed');
  o = await call('PATCH', `${base}/cm-fin`, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b'] } }, { manager: 'f2', contentType: STRATEGIC });
  // The last finalizer gone: the object is deleted; the answer is its final state, where the
  // empty list is no field at all (Go omits it).
  same(mf(o), [upd('f1', { 'f:data': { '.': {}, 'f:a': {} } })], 'last finalizer removed');
  const gone = await t.client.request('GET', `${base}/cm-fin`);
  assert.is(gone.status, 404);
});

test.run();
