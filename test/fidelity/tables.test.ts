/**
 * Table and PartialObjectMetadata answers (Accept `…;as=Table;g=meta.k8s.io;v=v1`), compared as
 * whole bodies with what kube-apiserver 1.24 answers: its printers' column definitions
 * (pkg/printers/internalversion/printers.go), cells, includeObject, v1beta1, the 406s of a
 * mismatched PartialObjectMetadata(List), and Table watch events.
 *
 *   node --import tsx test/run.ts test/fidelity/tables.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/tables.test.ts
 */
import { execFile } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, normalize, type Target } from '../target.ts';
import { ok, show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

/**
 * The body's bytes without kube's trailing newline (its JSON encoder ends every body with one;
 * whether ours does is the business of the byte-level suite, not of this one).
 */
const body = (r: HttpResult): string => r.text.replace(/\n$/, '');

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const NAME_DOC =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names';
const AGE_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';
const col = (name: string, description: string, format = '') => ({ name, type: 'string', format, description, priority: 0 });
const NAME = col('Name', NAME_DOC, 'name');
const AGE = col('Age', AGE_DOC);
const COLUMNS: Record<string, unknown[]> = {
  configmaps: [
    NAME,
    col(
      'Data',
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    ),
    AGE,
  ],
  secrets: [
    NAME,
    col('Type', 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types'),
    col(
      'Data',
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    ),
    AGE,
  ],
  namespaces: [NAME, col('Status', 'The status of the namespace'), AGE],
};

let t: Target;
let ns: string;
let cm: any;
let secret: any;
let namespace: any;

/** normalize(), plus: ages ("0s", "3s") become <age>. */
function norm(v: unknown): unknown {
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) {
        out[k] = k === 'cells' && Array.isArray(y) ? y.map((c) => (typeof c === 'string' && /^\d+s$/.test(c) ? '<age>' : c)) : walk(y);
      }
      return out;
    }
    return x;
  };
  return walk(normalize(v, { [ns]: '<ns>' }));
}

const META_ORDER = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'labels', 'annotations', 'finalizers', 'managedFields'];

const partial = (o: any, version = 'v1') => ({ kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: o.metadata });

test.before(async () => {
  // The reference runs no controller-manager: without its per-namespace objects (kube-root-ca.crt,
  // the default ServiceAccount) our fresh namespaces hold exactly what the suite puts there, as its.
  t = await startTarget({ namespaceDefaults: false });
  ns = await t.createNamespace('tables');
  const base = `/api/v1/namespaces/${ns}`;
  cm = await ok(t.client.request('POST', `${base}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { app: 'x' } }, data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } } }), 201, 'create c1');
  secret = await ok(t.client.request('POST', `${base}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, type: 'kubernetes.io/basic-auth', stringData: { username: 'u', password: 'p' } } }), 201, 'create s1');
  namespace = await ok(t.client.request('GET', `/api/v1/namespaces/${ns}`), 200, 'get ns');
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('get as Table: whole body (configmap, secret, namespace; default includeObject = Metadata)', async () => {
  const cases = [
    { path: `/api/v1/namespaces/${ns}/configmaps/c1`, resource: 'configmaps', obj: () => cm, cells: ['c1', 3, '<age>'] },
    { path: `/api/v1/namespaces/${ns}/secrets/s1`, resource: 'secrets', obj: () => secret, cells: ['s1', 'kubernetes.io/basic-auth', 2, '<age>'] },
    { path: `/api/v1/namespaces/${ns}`, resource: 'namespaces', obj: () => namespace, cells: ['<ns>', 'Active', '<age>'] },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await t.client.request('GET', tc.path, { headers: { accept: TABLE } });
    assert.is(r.status, 200, `case ${i}: ${show(r)}`);
    const want = {
      kind: 'Table',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { resourceVersion: tc.obj().metadata.resourceVersion },
      columnDefinitions: COLUMNS[tc.resource],
      rows: [{ cells: tc.cells, object: partial(tc.obj()) }],
    };
    assert.equal(norm(r.json), norm(want), `case ${i} (${tc.resource})`);
    // Metadata re-serialized in ObjectMeta's field order, as kube's JSON encoder writes it.
    const keys = Object.keys(r.json.rows[0].object.metadata);
    assert.equal(keys, META_ORDER.filter((k) => keys.includes(k)), `case ${i}: metadata field order`);
  }
});

test('list as Table with includeObject None / Object / Metadata / empty', async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps`;
  const list = await ok(t.client.request('GET', path), 200, 'list');
  const objectFor: Record<string, unknown> = { None: null, Object: { ...cm, kind: 'ConfigMap', apiVersion: 'v1' }, Metadata: partial(cm), '': partial(cm) };
  for (const [i, io] of ['None', 'Object', 'Metadata', ''].entries()) {
    const r = await t.client.request('GET', `${path}?includeObject=${io}`, { headers: { accept: TABLE } });
    assert.is(r.status, 200, `case ${i}: ${show(r)}`);
    const want = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: list.metadata.resourceVersion }, columnDefinitions: COLUMNS.configmaps, rows: [{ cells: ['c1', 3, '<age>'], object: objectFor[io] }] };
    assert.equal(norm(r.json), norm(want), `case ${i} (includeObject=${io})`);
  }
});

test('list as Table: secrets and namespaces with includeObject=Object', async () => {
  const cases = [
    { path: `/api/v1/namespaces/${ns}/secrets`, resource: 'secrets', obj: () => ({ ...secret, kind: 'Secret', apiVersion: 'v1' }), cells: ['s1', 'kubernetes.io/basic-auth', 2, '<age>'] },
    { path: `/api/v1/namespaces?fieldSelector=metadata.name%3D${ns}`, resource: 'namespaces', obj: () => ({ ...namespace, kind: 'Namespace', apiVersion: 'v1' }), cells: ['<ns>', 'Active', '<age>'] },
  ];
  for (const [i, tc] of cases.entries()) {
    const list = await ok(t.client.request('GET', tc.path), 200, `case ${i}: list`);
    const r = await ok(t.client.request('GET', `${tc.path}${tc.path.includes('?') ? '&' : '?'}includeObject=Object`, { headers: { accept: TABLE } }), 200, `case ${i}`);
    const want = { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: list.metadata.resourceVersion }, columnDefinitions: COLUMNS[tc.resource], rows: [{ cells: tc.cells, object: tc.obj() }] };
    assert.equal(norm(r), norm(want), `case ${i} (${tc.resource})`);
  }
});

test('includeObject other than Metadata/Object/None: 400 with kube message (get, list, watch)', async () => {
  const paths = [`/api/v1/namespaces/${ns}/configmaps/c1`, `/api/v1/namespaces/${ns}/configmaps`, `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=1`];
  for (const [i, p] of paths.entries()) {
    const r = await t.client.request('GET', `${p}${p.includes('?') ? '&' : '?'}includeObject=All`, { headers: { accept: TABLE } });
    assert.is(r.status, 400, `case ${i}: ${show(r)}`);
    assert.is(body(r), JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Unable to convert to Table as requested: includeObject: Invalid value: "All": must be 'Metadata', 'Object', 'None', or empty`,
      reason: 'BadRequest',
      code: 400,
    }, null, 2), `case ${i}`);
  }
  // The Accept offers nothing an error could be negotiated to, so kube writes it as indented raw JSON.
  const r = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=All`, { headers: { accept: TABLE } });
  assert.ok(r.text.startsWith('{\n  "kind": "Status",\n  "apiVersion": "v1",\n'), r.text);
  const compact = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=All`, { headers: { accept: `${TABLE},application/json` } });
  assert.ok(compact.text.startsWith('{"kind":"Status","apiVersion":"v1",'), compact.text);
  // Without a Table conversion the parameter is not looked at.
  await ok(t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=All`), 200, 'plain list');
});

test('meta.k8s.io/v1beta1 Table and PartialObjectMetadata(List) are answered in v1beta1', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const list = await ok(t.client.request('GET', base), 200, 'list');
  const t1 = await ok(t.client.request('GET', `${base}/c1?includeObject=None`, { headers: { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } }), 200, 'v1beta1 Table');
  assert.equal(norm(t1), norm({ kind: 'Table', apiVersion: 'meta.k8s.io/v1beta1', metadata: { resourceVersion: cm.metadata.resourceVersion }, columnDefinitions: COLUMNS.configmaps, rows: [{ cells: ['c1', 3, '<age>'], object: null }] }));
  const t2 = await ok(t.client.request('GET', `${base}/c1`, { headers: { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } }), 200, 'v1beta1 Table metadata rows');
  assert.equal(norm(t2.rows[0].object), norm(partial(cm, 'v1beta1')));
  for (const v of ['v1', 'v1beta1']) {
    const one = await ok(t.client.request('GET', `${base}/c1`, { headers: { accept: `application/json;as=PartialObjectMetadata;v=${v};g=meta.k8s.io` } }), 200, `${v} partial`);
    assert.equal(norm(one), norm(partial(cm, v)), `${v} PartialObjectMetadata`);
    const many = await ok(t.client.request('GET', base, { headers: { accept: `application/json;as=PartialObjectMetadataList;v=${v};g=meta.k8s.io` } }), 200, `${v} partial list`);
    assert.equal(norm(many), norm({ kind: 'PartialObjectMetadataList', apiVersion: `meta.k8s.io/${v}`, metadata: { resourceVersion: list.metadata.resourceVersion }, items: [partial(cm, v)] }), `${v} PartialObjectMetadataList`);
  }
});

test('PartialObjectMetadata of a list / PartialObjectMetadataList of one object: 406 as kube', async () => {
  const base = `/api/v1/namespaces/${ns}`;
  const cases = [
    { path: `${base}/configmaps`, as: 'PartialObjectMetadata', message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)' },
    { path: `${base}/secrets/s1`, as: 'PartialObjectMetadataList', message: 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.Secret)' },
    { path: '/api/v1/namespaces', as: 'PartialObjectMetadata', message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.NamespaceList)' },
  ];
  for (const [i, tc] of cases.entries()) {
    for (const v of ['v1', 'v1beta1']) {
      const r = await t.client.request('GET', tc.path, { headers: { accept: `application/json;as=${tc.as};v=${v};g=meta.k8s.io` } });
      assert.is(r.status, 406, `case ${i} ${v}: ${show(r)}`);
      // Byte for byte (indented: the Accept offers nothing an error could be negotiated to).
      assert.is(body(r), JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: tc.message, reason: 'NotAcceptable', code: 406 }, null, 2), `case ${i} ${v}`);
    }
  }
});

test('conversions kube does not offer: 406 listing its media types; YAML Table is served', async () => {
  const p = `/api/v1/namespaces/${ns}/configmaps/c1`;
  const negotiation = { message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf' };
  // go-restful refuses a request whose Accept names none of the route's types before kube negotiates.
  const route = { message: '406: Not Acceptable', details: {} };
  // `pretty`: nothing in the Accept can carry the error either, so kube writes it indented.
  const cases = [
    { accept: 'application/json;as=Table;v=v2;g=meta.k8s.io', want: negotiation, pretty: true },
    { accept: 'application/json;as=Table;g=meta.k8s.io', want: negotiation, pretty: true },
    { accept: 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', want: negotiation, pretty: true },
    { accept: 'text/html', want: route, pretty: true },
    { accept: 'application/*', want: route, pretty: false },
  ];
  for (const [i, tc] of cases.entries()) {
    const r = await t.client.request('GET', p, { headers: { accept: tc.accept } });
    assert.is(r.status, 406, `case ${i}: ${show(r)}`);
    const want = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: tc.want.message, reason: 'NotAcceptable', ...('details' in tc.want ? { details: tc.want.details } : {}), code: 406 };
    assert.is(body(r), JSON.stringify(want, null, tc.pretty ? 2 : undefined), `case ${i} (${tc.accept})`);
  }
  // A later clause kube accepts wins (kubectl lists the Table conversions, then plain JSON).
  const fallback = await ok(t.client.request('GET', p, { headers: { accept: 'application/json;as=Table;v=v2;g=meta.k8s.io,application/json' } }), 200, 'fallback');
  assert.is(fallback.kind, 'ConfigMap');
  // Clauses are tried by quality, then concrete types before wildcards (goautoneg's order).
  const ordered = [
    { accept: `${TABLE};q=0.5,application/json`, kind: 'ConfigMap' },
    { accept: `*/*,${TABLE}`, kind: 'Table' },
  ];
  for (const [i, tc] of ordered.entries()) {
    const r = await ok(t.client.request('GET', p, { headers: { accept: tc.accept } }), 200, `ordered case ${i}`);
    assert.is(r.kind, tc.kind, `ordered case ${i} (${tc.accept})`);
  }
  const y = await t.client.request('GET', `${p}?includeObject=None`, { headers: { accept: 'application/yaml;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(y.status, 200, show(y));
  assert.match(String(y.headers['content-type']), /^application\/yaml/);
  assert.match(y.text, /kind: Table\n/);
  assert.match(y.text, /- c1\n\s+- 3\n/);
});

test('watch as Table: column definitions on the first event only, includeObject per row', async () => {
  const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=3&includeObject=None`;
  const watching = t.client.request('GET', path, { headers: { accept: TABLE } });
  await new Promise((r) => setTimeout(r, 1000));
  const c2 = await ok(t.client.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2' } } }), 201, 'create c2');
  const r = await watching;
  assert.is(r.status, 200, show(r));
  const events = r.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(norm(events), norm([
    { type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: cm.metadata.resourceVersion }, columnDefinitions: COLUMNS.configmaps, rows: [{ cells: ['c1', 3, '<age>'], object: null }] } },
    { type: 'ADDED', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: c2.metadata.resourceVersion }, columnDefinitions: null, rows: [{ cells: ['c2', 0, '<age>'], object: null }] } },
  ]));
  await ok(t.client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c2`), 200, 'delete c2');
});

test('paged list as Table carries continue and remainingItemCount', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  await ok(t.client.request('POST', base, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c0' } } }), 201, 'create c0');
  const first = await ok(t.client.request('GET', `${base}?limit=1&includeObject=None`, { headers: { accept: TABLE } }), 200, 'page 1');
  assert.equal(norm(first.metadata), { resourceVersion: '<rv>', continue: '<continue>', remainingItemCount: 1 });
  assert.equal(norm(first.rows), [{ cells: ['c0', 0, '<age>'], object: null }]);
  const second = await ok(t.client.request('GET', `${base}?limit=1&includeObject=None&continue=${encodeURIComponent(first.metadata.continue)}`, { headers: { accept: TABLE } }), 200, 'page 2');
  assert.equal(norm(second.metadata), { resourceVersion: first.metadata.resourceVersion === second.metadata.resourceVersion ? '<rv>' : 'same rv' });
  assert.equal(norm(second.rows), [{ cells: ['c1', 3, '<age>'], object: null }]);
  await ok(t.client.request('DELETE', `${base}/c0`), 200, 'delete c0');
});

test('writes answer in the requested conversion; an unacceptable Accept refuses before writing', async () => {
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const created = await t.client.request('POST', `${base}?includeObject=None`, { headers: { accept: TABLE }, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' }, data: { x: 'y' } } });
  assert.is(created.status, 201, show(created));
  assert.equal(norm(created.json), norm({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '<rv>' }, columnDefinitions: COLUMNS.configmaps, rows: [{ cells: ['w1', 1, '<age>'], object: null }] }));
  // A dry-run create has no resourceVersion yet: the Table's metadata is empty.
  const dry = await t.client.request('POST', `${base}?dryRun=All&includeObject=None`, { headers: { accept: TABLE }, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w0' } } });
  assert.is(dry.status, 201, show(dry));
  assert.equal(dry.json.metadata, {});
  const meta = await ok(t.client.request('PATCH', `${base}/w1`, { headers: { accept: 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io' }, body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' }), 200, 'patch');
  assert.is(meta.kind, 'PartialObjectMetadata');
  assert.equal(meta.metadata.labels, { a: 'b' });
  // A delete's Status is not converted.
  const del = await ok(t.client.request('DELETE', `${base}/w1`, { headers: { accept: TABLE } }), 200, 'delete');
  assert.equal([del.kind, del.status, del.details.name], ['Status', 'Success', 'w1']);
  const refused = await t.client.request('POST', base, { headers: { accept: 'text/html' }, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w2' } } });
  assert.is(refused.status, 406, show(refused));
  assert.is((await t.client.request('GET', `${base}/w2`)).status, 404, 'nothing was written');
});

test('kubectl get prints the server-side columns', async () => {
  const kubectl = (...args: string[]) =>
    new Promise<string[][]>((resolve, reject) =>
      execFile('kubectl', ['--kubeconfig', t.kubeconfig, '-n', ns, ...args], { timeout: 30_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim().split('\n').map((l) => l.trim().split(/\s+/).slice(0, -1))),
      ),
    );
  assert.equal(await kubectl('get', 'configmap', 'c1'), [['NAME', 'DATA'], ['c1', '3']]);
  assert.equal(await kubectl('get', 'secrets', '-o', 'wide'), [['NAME', 'TYPE', 'DATA'], ['s1', 'kubernetes.io/basic-auth', '2']]);
});

test.run();
