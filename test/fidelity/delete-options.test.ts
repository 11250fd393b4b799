/**
 * DeleteOptions and the other write options, as kube-apiserver 1.24 reads them (issue 8: a dryRun
 * inside the DeleteOptions BODY used to be ignored, so `kubectl delete --dry-run=server` deleted):
 *
 * - DeleteOptions come from the body when there is one (JSON, YAML, Protobuf; any apiVersion with
 *   kind DeleteOptions), and then the query is not read at all; otherwise from the query.
 * - Invalid options are 422 Invalid on `<Verb>Options.meta.k8s.io`; undecodable bodies are kube's
 *   500s; query conversion errors 400.
 * - deletecollection reads ListOptions first and answers the list it deleted.
 * - The real clients: kubectl `delete --dry-run=server` (with and without `--all`) and the Python
 *   client's `body=V1DeleteOptions(dry_run=['All'])` leave every object in place.
 *
 * Runs against this server and, with TEST_KUBECONFIG, the reference kube-apiserver.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTarget, normalize, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';
import { show } from '../assertions.ts';
import { encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let n = 0;

test.before(async () => {
  // The suite provokes kube's 500s (undecodable DeleteOptions, unparsable resourceVersions) on
  // purpose; the server logs every 500 as an error, which would only be noise here.
  // The reference runs no controller-manager: without its per-namespace objects (kube-root-ca.crt,
  // the default ServiceAccount) our fresh namespaces hold exactly what the suite puts there, as its.
  t = await startTarget({ logLevel: 'fatal', namespaceDefaults: false });
  ns = await t.createNamespace('delopts');
});
test.after(async () => {
  await t?.close();
});

const cmPath = (name = ''): string => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

/** Create a fresh ConfigMap (unique name per call) and return it. */
async function freshConfigMap(labels: Record<string, string> = {}): Promise<{ name: string; uid: string; rv: string }> {
  const name = `cm-${++n}`;
  const r = await t.client.request('POST', cmPath(), { body: { metadata: { name, labels }, data: { k: 'v' } } });
  assert.is(r.status, 201, `create ${name}: ${show(r)}`);
  return { name, uid: r.json.metadata.uid, rv: r.json.metadata.resourceVersion };
}

async function exists(name: string): Promise<boolean> {
  const r = await t.client.request('GET', cmPath(name));
  if (r.status !== 200 && r.status !== 404) assert.unreachable(`GET ${name}: ${show(r)}`);
  return r.status === 200;
}

const body = (r: HttpResult): unknown => normalize(r.json, { [ns]: 'NS' });

/** The Status kube answers for a (dry-run or real) delete of a core object. */
const deletedStatus = (name: string): unknown => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: 'configmaps', uid: '<uid>' } });

/** 422 on `<kind>.meta.k8s.io` with these [field, ErrorBody] causes, as errors.NewInvalid prints it. */
function optionsInvalid(kind: string, causes: [string, string, string][]): unknown {
  const full = causes.map(([, field, msg]) => `${field}: ${msg}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind}.meta.k8s.io "" is invalid: ${full.length === 1 ? full[0] : `[${full.join(', ')}]`}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind, causes: causes.map(([reason, field, message]) => ({ reason, message, field })) },
    code: 422,
  };
}

/** A decoder failure: a plain Go error, so 500 with no reason and no details. */
const decodeError = (message: string): unknown => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });

const DRY_X = ['FieldValueNotSupported', 'dryRun', 'Unsupported value: []string{"x"}: supported values: "All"'] as [string, string, string];

// ---------------------------------------------------------------- DeleteOptions: body vs query

interface DeleteCase {
  name: string;
  query?: string;
  /** JSON body (sent as application/json unless `raw`). */
  json?: unknown;
  raw?: string | Buffer;
  contentType?: string;
  /** Expected HTTP status and whether the object is gone afterwards. */
  status: number;
  deleted: boolean;
  /** Expected whole (normalized) body, when it does not depend on the object. */
  expect?: (name: string, uid: string) => unknown;
}

const DELETE_CASES: DeleteCase[] = [
  { name: 'body dryRun (JSON, kubectl shape)', json: { propagationPolicy: 'Background', dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body dryRun with kind/apiVersion v1', json: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body dryRun with apiVersion meta.k8s.io/v1', json: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body dryRun, DeleteOptions of another group version', json: { kind: 'DeleteOptions', apiVersion: 'apps/v1', dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body dryRun (YAML)', raw: 'kind: DeleteOptions\napiVersion: meta.k8s.io/v1\ndryRun: [All]\n', contentType: 'application/yaml', status: 200, deleted: false, expect: deletedStatus },
  {
    name: 'body dryRun (Protobuf)',
    raw: encodeProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'], propagationPolicy: 'Background' }),
    contentType: PROTOBUF,
    status: 200,
    deleted: false,
    expect: deletedStatus,
  },
  { name: 'query dryRun, no body', query: 'dryRun=All', status: 200, deleted: false, expect: deletedStatus },
  { name: 'body wins: empty body options + query dryRun really deletes', query: 'dryRun=All', json: {}, status: 200, deleted: true, expect: deletedStatus },
  { name: 'body wins: body dryRun + invalid query options', query: 'propagationPolicy=bad&dryRun=x&gracePeriodSeconds=abc', json: { dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body null: empty options, the query is still ignored', query: 'dryRun=All', raw: 'null', status: 200, deleted: true, expect: deletedStatus },
  { name: 'body dryRun null is no dry run', json: { dryRun: null }, status: 200, deleted: true, expect: deletedStatus },
  { name: 'body dryRun [] is no dry run', json: { dryRun: [] }, status: 200, deleted: true, expect: deletedStatus },
  { name: 'query propagationPolicy bad', query: 'propagationPolicy=bad', status: 422, deleted: false, expect: () => optionsInvalid('DeleteOptions', [['FieldValueNotSupported', 'propagationPolicy', 'Unsupported value: "bad": supported values: "Foreground", "Background", "Orphan", "nil"']]) },
  { name: 'query propagationPolicy empty', query: 'propagationPolicy=', status: 422, deleted: false, expect: () => optionsInvalid('DeleteOptions', [['FieldValueNotSupported', 'propagationPolicy', 'Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil"']]) },
  { name: 'query dryRun x', query: 'dryRun=x', status: 422, deleted: false, expect: () => optionsInvalid('DeleteOptions', [DRY_X]) },
  {
    name: 'query orphanDependents with propagationPolicy',
    query: 'orphanDependents=false&propagationPolicy=Background&dryRun=All',
    status: 422,
    deleted: false,
    expect: () => optionsInvalid('DeleteOptions', [['FieldValueInvalid', 'propagationPolicy', 'Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set']]),
  },
  {
    name: 'body: every DeleteOptions error at once',
    json: { dryRun: ['x'], propagationPolicy: 'bad', orphanDependents: true },
    status: 422,
    deleted: false,
    expect: () =>
      optionsInvalid('DeleteOptions', [
        ['FieldValueInvalid', 'propagationPolicy', 'Invalid value: "bad": orphanDependents and deletionPropagation cannot be both set'],
        ['FieldValueNotSupported', 'propagationPolicy', 'Unsupported value: "bad": supported values: "Foreground", "Background", "Orphan", "nil"'],
        DRY_X,
      ]),
  },
  { name: 'query gracePeriodSeconds not an integer', query: 'gracePeriodSeconds=abc&dryRun=All', status: 400, deleted: false, expect: () => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'strconv.ParseInt: parsing "abc": invalid syntax', reason: 'BadRequest', code: 400 }) },
  { name: 'query gracePeriodSeconds and policy valid, dry run', query: 'gracePeriodSeconds=0&propagationPolicy=Background&dryRun=All', status: 200, deleted: false, expect: deletedStatus },
  { name: 'body gracePeriodSeconds negative, dry run', json: { gracePeriodSeconds: -5, dryRun: ['All'] }, status: 200, deleted: false, expect: deletedStatus },
  { name: 'body dryRun not a list', json: { dryRun: 'All' }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string') },
  { name: 'body dryRun element not a string', json: { dryRun: [1] }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string') },
  { name: 'body gracePeriodSeconds fractional', json: { dryRun: ['All'], gracePeriodSeconds: 1.5 }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64') },
  { name: 'body orphanDependents a string', json: { dryRun: ['All'], orphanDependents: 'true' }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool') },
  { name: 'body propagationPolicy a number', json: { dryRun: ['All'], propagationPolicy: 5 }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation') },
  { name: 'body preconditions a string', json: { dryRun: ['All'], preconditions: 'x' }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions') },
  { name: 'body preconditions.uid a number', json: { dryRun: ['All'], preconditions: { uid: 5 } }, status: 500, deleted: false, expect: () => decodeError('json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID') },
  { name: 'body of another kind', json: { kind: 'ConfigMap', apiVersion: 'v1', dryRun: ['All'] }, status: 500, deleted: false, expect: () => decodeError('no kind "ConfigMap" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"') },
  { name: 'body of another meta kind', json: { kind: 'ListOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] }, status: 500, deleted: false, expect: () => decodeError('converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion') },
  { name: 'body Status kind', json: { kind: 'Status', apiVersion: 'v1', dryRun: ['All'] }, status: 500, deleted: false, expect: () => decodeError('converting (v1.Status) to (v1.DeleteOptions): unknown conversion') },
  { name: 'body bad apiVersion', json: { kind: 'DeleteOptions', apiVersion: 'a/b/c', dryRun: ['All'] }, status: 500, deleted: false, expect: () => decodeError('unexpected GroupVersion string: a/b/c') },
  { name: 'body kind a number', json: { kind: 5, dryRun: ['All'] }, status: 500, deleted: false, expect: () => decodeError("couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string") },
  {
    name: 'body not an object',
    raw: '[1]',
    status: 500,
    deleted: false,
    expect: () => decodeError(`couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`),
  },
  { name: 'body not JSON', raw: 'xx', status: 500, deleted: false, expect: () => decodeError("couldn't get version/kind; json parse error: invalid character 'x' looking for beginning of value") },
  { name: 'body invalid JSON object', raw: '{nope}', status: 500, deleted: false, expect: () => decodeError("couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string") },
  { name: 'body of an unsupported media type', raw: 'dryRun=All', contentType: 'text/plain', status: 415, deleted: false },
  // Preconditions reach the store (their Conflict wording is the store's, checked for code/reason).
  { name: 'body preconditions uid mismatch', json: { dryRun: ['All'], preconditions: { uid: 'nope' } }, status: 409, deleted: false },
  { name: 'body preconditions stale resourceVersion', json: { preconditions: { resourceVersion: '1' } }, status: 409, deleted: false },
];

test('DELETE: DeleteOptions from the body (JSON, YAML, Protobuf) or else the query, validated as kube 1.24', async () => {
  for (const [i, c] of DELETE_CASES.entries()) {
    const label = `case ${i} (${c.name})`;
    const cm = await freshConfigMap();
    const opts = c.raw !== undefined ? { raw: c.raw, contentType: c.contentType ?? 'application/json' } : c.json !== undefined ? { body: c.json } : {};
    const r = await t.client.request('DELETE', cmPath(cm.name) + (c.query ? `?${c.query}` : ''), opts);
    assert.is(r.status, c.status, `${label}: ${show(r)}`);
    if (c.expect) assert.equal(body(r), c.expect(cm.name, cm.uid), `${label}: body`);
    if (c.status >= 400) {
      assert.is(r.json?.kind, 'Status', `${label}: a Status`);
      if (c.status === 409) assert.is(r.json.reason, 'Conflict', `${label}: reason`);
    }
    assert.is(await exists(cm.name), !c.deleted, `${label}: object ${c.deleted ? 'deleted' : 'still there'}`);
  }
});

test('DELETE with preconditions that match (body) deletes; dry run keeps', async () => {
  const a = await freshConfigMap();
  let r = await t.client.request('DELETE', cmPath(a.name), { body: { dryRun: ['All'], preconditions: { uid: a.uid, resourceVersion: a.rv } } });
  assert.equal([r.status, body(r)], [200, deletedStatus(a.name)], show(r));
  assert.ok(await exists(a.name), 'dry run kept it');
  r = await t.client.request('DELETE', cmPath(a.name), { body: { preconditions: { uid: a.uid, resourceVersion: a.rv } } });
  assert.equal([r.status, body(r)], [200, deletedStatus(a.name)], show(r));
  assert.not.ok(await exists(a.name), 'deleted');
});

test('DELETE that only starts (finalizers pending) with orphanDependents=false answers 202, body or query', async () => {
  const name = `fin-${++n}`;
  const c = await t.client.request('POST', cmPath(), { body: { metadata: { name, finalizers: ['example.com/hold'] }, data: { k: 'v' } } });
  assert.is(c.status, 201, show(c));
  for (const [label, q, opts] of [
    ['body', '', { body: { orphanDependents: false, dryRun: ['All'] } }],
    ['query', '?orphanDependents=false&dryRun=All', {}],
  ] as const) {
    const r = await t.client.request('DELETE', cmPath(name) + q, opts);
    assert.is(r.status, 202, `${label}: ${show(r)}`);
    assert.is(r.json.kind, 'ConfigMap', `${label}: the object, being deleted`);
    assert.ok(r.json.metadata.deletionTimestamp, `${label}: deletionTimestamp set`);
  }
  const plain = await t.client.request('DELETE', cmPath(name), { body: { dryRun: ['All'] } });
  assert.is(plain.status, 200, `without orphanDependents=false: 200; ${show(plain)}`);
  const after = await t.client.request('GET', cmPath(name));
  assert.not.ok(after.json.metadata.deletionTimestamp, 'dry runs changed nothing');
});

// ---------------------------------------------------------------- deletecollection

/** Create `count` ConfigMaps labelled set=<set>; return their names. */
async function freshSet(set: string, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push((await freshConfigMap({ set })).name);
  return out;
}

async function namesIn(set: string): Promise<string[]> {
  const r = await t.client.request('GET', `${cmPath()}?labelSelector=set%3D${set}`);
  assert.is(r.status, 200, show(r));
  return r.json.items.map((o: any) => o.metadata.name).sort();
}

test('DELETECOLLECTION: dry run from the body or the query keeps everything and answers the list', async () => {
  const names = await freshSet('dc1', 3);
  const listed = await t.client.request('GET', `${cmPath()}?labelSelector=set%3Ddc1`);
  const variants: [string, Parameters<Target['client']['request']>[2], string][] = [
    ['body JSON', { body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] } }, ''],
    ['body YAML', { raw: 'dryRun: [All]\n', contentType: 'application/yaml' }, ''],
    ['body Protobuf', { raw: encodeProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', dryRun: ['All'] }), contentType: PROTOBUF }, ''],
    ['query', {}, '&dryRun=All'],
  ];
  for (const [label, opts, q] of variants) {
    const r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc1${q}`, opts);
    assert.is(r.status, 200, `${label}: ${show(r)}`);
    // kube's DeleteCollection answers the list it worked on, list metadata included.
    assert.equal(body(r), body(listed), `${label}: the ConfigMapList of the deleted objects`);
    assert.equal(await namesIn('dc1'), names, `${label}: nothing deleted`);
  }
});

test('DELETECOLLECTION: a real delete answers the ConfigMapList of what it deleted, selector respected', async () => {
  const gone = await freshSet('dc2', 2);
  const kept = await freshSet('dc2-keep', 1);
  const listed = await t.client.request('GET', `${cmPath()}?labelSelector=set%3Ddc2`);
  const r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc2`);
  assert.is(r.status, 200, show(r));
  assert.is(r.json.kind, 'ConfigMapList');
  assert.equal(r.json.items.map((o: any) => o.metadata.name).sort(), gone);
  assert.equal(body(r), body(listed), 'the list as listed before the deletes');
  assert.equal(await namesIn('dc2'), []);
  assert.equal(await namesIn('dc2-keep'), kept);
});

test('DELETECOLLECTION: ListOptions are checked before DeleteOptions; invalid options delete nothing', async () => {
  const names = await freshSet('dc3', 2);
  const bad = { dryRun: ['x'] };
  // resourceVersionMatch without resourceVersion: 422 on ListOptions, even with bad DeleteOptions.
  let r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc3&resourceVersionMatch=Exact`, { body: bad });
  assert.is(r.status, 422, show(r));
  assert.is(r.json.details?.kind, 'ListOptions', show(r));
  // A selector that does not parse: 400 before the body is looked at.
  r = await t.client.request('DELETE', `${cmPath()}?labelSelector=a%20in%20(`, { body: bad });
  assert.is(r.status, 400, show(r));
  // Invalid DeleteOptions: 422, in the body and in the query.
  r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc3`, { body: bad });
  assert.equal([r.status, body(r)], [422, optionsInvalid('DeleteOptions', [DRY_X])], show(r));
  r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc3&propagationPolicy=Sometimes`);
  assert.equal(
    [r.status, body(r)],
    [422, optionsInvalid('DeleteOptions', [['FieldValueNotSupported', 'propagationPolicy', 'Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"']])],
    show(r),
  );
  assert.equal(await namesIn('dc3'), names, 'nothing deleted');
});

test('writes on paths kube has no route for are 405 and change nothing (no all-namespaces deletecollection)', async () => {
  const names = await freshSet('dc405', 2);
  const notAllowed = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405 };
  const notFound = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
  const cases: [string, string, Parameters<Target['client']['request']>[2], unknown][] = [
    ['DELETE', '/api/v1/configmaps?labelSelector=set%3Ddc405', {}, notAllowed],
    ['DELETE', '/api/v1/configmaps?labelSelector=set%3Ddc405', { body: { dryRun: ['All'] } }, notAllowed],
    ['POST', '/api/v1/configmaps', { body: { metadata: { name: 'x', namespace: ns } } }, notAllowed],
    ['PATCH', '/api/v1/configmaps', { raw: '{}', contentType: 'application/merge-patch+json' }, notAllowed],
    ['PUT', cmPath(), { body: { metadata: { name: 'x' } } }, notAllowed],
    ['PATCH', cmPath(), { raw: '{}', contentType: 'application/merge-patch+json' }, notAllowed],
    ['POST', cmPath(names[0]), { body: { metadata: { name: names[0] } } }, notAllowed],
    ['DELETE', `/api/v1/namespaces?labelSelector=${encodeURIComponent('none=none')}`, {}, notAllowed],
    ['DELETE', `/api/v1/namespaces/${ns}/status`, {}, notAllowed],
    ['DELETE', `${cmPath(names[0])}/status`, {}, notFound],
    ['PUT', `/api/v1/configmaps/${names[0]}`, { body: { metadata: { name: names[0] } } }, notFound],
    ['DELETE', `/api/v1/configmaps/${names[0]}`, {}, notFound],
  ];
  for (const [i, [method, path, opts, want]] of cases.entries()) {
    const r = await t.client.request(method, path, opts);
    assert.equal(body(r), want, `case ${i} (${method} ${path}): ${show(r)}`);
  }
  assert.equal(await namesIn('dc405'), names, 'nothing deleted');
});

// ---------------------------------------------------------------- options of every write verb

interface WriteVerb {
  verb: string;
  kind: string;
  /** Issue the request with this query on a fresh object (name) and return the answer. */
  send(name: string, query: string, headers?: Record<string, string>): Promise<HttpResult>;
}

const WRITE_VERBS: WriteVerb[] = [
  { verb: 'create', kind: 'CreateOptions', send: (name, q, headers) => t.client.request('POST', `${cmPath()}?${q}`, { body: { metadata: { name: `${name}-new` }, data: { k: 'new' } }, headers }) },
  { verb: 'update', kind: 'UpdateOptions', send: (name, q, headers) => t.client.request('PUT', `${cmPath(name)}?${q}`, { body: { metadata: { name }, data: { k: 'new' } }, headers }) },
  { verb: 'patch', kind: 'PatchOptions', send: (name, q, headers) => t.client.request('PATCH', `${cmPath(name)}?${q}`, { raw: '{"data":{"k":"new"}}', contentType: 'application/merge-patch+json', headers }) },
  { verb: 'delete', kind: 'DeleteOptions', send: (name, q, headers) => t.client.request('DELETE', `${cmPath(name)}?${q}`, { headers }) },
  { verb: 'delete (body)', kind: 'DeleteOptions', send: (name, q, headers) => t.client.request('DELETE', cmPath(name), { body: deleteOptionsBody(q), headers }) },
  { verb: 'deletecollection', kind: 'DeleteOptions', send: (name, q, headers) => t.client.request('DELETE', `${cmPath()}?fieldSelector=metadata.name%3D${name}&${q}`, { headers }) },
  {
    verb: 'deletecollection (body)',
    kind: 'DeleteOptions',
    send: (name, q, headers) => t.client.request('DELETE', `${cmPath()}?fieldSelector=metadata.name%3D${name}`, { body: deleteOptionsBody(q), headers }),
  },
];

/**
 * The same options as a DeleteOptions body: dryRun a list, orphanDependents a bool; what
 * DeleteOptions has no field for (fieldManager, force, …) goes in as is and must be ignored.
 */
function deleteOptionsBody(query: string): Record<string, unknown> {
  const q = new URLSearchParams(query);
  const out: Record<string, unknown> = {};
  for (const k of new Set(q.keys())) {
    const v = q.getAll(k);
    if (k === 'dryRun') out.dryRun = v;
    else if (k === 'orphanDependents') out.orphanDependents = v[0] !== 'false' && v[0] !== '0';
    else out[k] = v[0];
  }
  return out;
}

/** How `name` looks after a request that must have had no effect. */
async function unchanged(name: string, verb: string, label: string): Promise<void> {
  const r = await t.client.request('GET', cmPath(name));
  assert.is(r.status, 200, `${label}: ${name} still there; ${show(r)}`);
  assert.equal(r.json.data, { k: 'v' }, `${label}: ${name} unchanged`);
  if (verb === 'create') assert.not.ok(await exists(`${name}-new`), `${label}: nothing created`);
  if (verb.startsWith('delete')) assert.not.ok(r.json.metadata.deletionTimestamp, `${label}: not being deleted`);
}

const LONG = 'm'.repeat(129);
/** [query, per-kind expected causes or null when the verb ignores the option (the write succeeds)]. */
const OPTION_CASES: [string, (kind: string) => [string, string, string][] | null][] = [
  ['dryRun=x', () => [DRY_X]],
  ['dryRun=All&dryRun=', () => [['FieldValueNotSupported', 'dryRun', 'Unsupported value: []string{"All", ""}: supported values: "All"']]],
  ['fieldManager=' + LONG + '&dryRun=All', (k) => (k === 'DeleteOptions' ? null : [['FieldValueTooLong', 'fieldManager', 'Too long: must have at most 128 bytes']])],
  [
    'fieldManager=a%01b%C3%A9%E2%80%8B&dryRun=All',
    (k) =>
      k === 'DeleteOptions'
        ? null
        : [
            ['FieldValueInvalid', 'fieldManager', 'Invalid value: "a\\x01bé\\u200b": invalid character U+0001 (at position 1)'],
            ['FieldValueInvalid', 'fieldManager', 'Invalid value: "a\\x01bé\\u200b": invalid character U+200B (at position 5)'],
          ],
  ],
  ['fieldValidation=Nope&dryRun=All', (k) => (k === 'DeleteOptions' ? null : [['FieldValueNotSupported', 'fieldValidation', 'Unsupported value: "Nope": supported values: "", "Ignore", "Strict", "Warn"']])],
  ['force=true&dryRun=All', (k) => (k === 'PatchOptions' ? [['FieldValueForbidden', 'force', 'Forbidden: may not be specified for non-apply patch']] : null)],
  ['propagationPolicy=bad&dryRun=All', (k) => (k === 'DeleteOptions' ? [['FieldValueNotSupported', 'propagationPolicy', 'Unsupported value: "bad": supported values: "Foreground", "Background", "Orphan", "nil"']] : null)],
  [
    'dryRun=x&fieldValidation=Nope&force=1',
    (k) =>
      k === 'DeleteOptions'
        ? [DRY_X]
        : [
            ...(k === 'PatchOptions' ? [['FieldValueForbidden', 'force', 'Forbidden: may not be specified for non-apply patch'] as [string, string, string]] : []),
            DRY_X,
            ['FieldValueNotSupported', 'fieldValidation', 'Unsupported value: "Nope": supported values: "", "Ignore", "Strict", "Warn"'],
          ],
  ],
];

test('every write verb × option × query/body: 422 on <Verb>Options.meta.k8s.io with kube causes, no side effect; dry runs change nothing', async () => {
  for (const v of WRITE_VERBS) {
    for (const [i, [query, causes]] of OPTION_CASES.entries()) {
      const label = `${v.verb} case ${i} (${query.slice(0, 60)})`;
      const cm = await freshConfigMap();
      const r = await v.send(cm.name, query);
      const want = causes(v.kind);
      if (want) assert.equal([r.status, body(r)], [422, optionsInvalid(v.kind, want)], `${label}: ${show(r)}`);
      else assert.ok(r.status === 200 || r.status === 201, `${label}: option ignored by this verb, dry run succeeds; ${show(r)}`);
      await unchanged(cm.name, v.verb, label);
    }
  }
});

test('apply patch without fieldManager: 422 PatchOptions (force allowed there)', async () => {
  const cm = await freshConfigMap();
  const r = await t.client.request('PATCH', `${cmPath(cm.name)}?dryRun=All&force=true`, { raw: 'data: {k: applied}', contentType: 'application/apply-patch+yaml' });
  assert.equal([r.status, body(r)], [422, optionsInvalid('PatchOptions', [['FieldValueRequired', 'fieldManager', 'Required value: is required for apply patch']])], show(r));
  await unchanged(cm.name, 'patch', 'apply');
});

test('every write verb: an Accept that cannot be served is 406 before any side effect', async () => {
  for (const v of WRITE_VERBS) {
    const cm = await freshConfigMap();
    const label = v.verb;
    for (const [accept, message, details] of [
      // refused by the router (no type the route produces) …
      ['text/html', '406: Not Acceptable', {}],
      // … or by the handler's output negotiation (a conversion it cannot do)
      ['application/json;as=Foo;g=meta.k8s.io;v=v1', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf', undefined],
    ] as const) {
      const r = await v.send(cm.name, '', { accept });
      const want: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'NotAcceptable', code: 406 };
      if (details) want.details = details;
      assert.equal([r.status, body(r)], [406, want], `${label} (${accept}): ${show(r)}`);
      await unchanged(cm.name, v.verb, label);
    }
  }
  const names = await freshSet('dc406', 2);
  const r = await t.client.request('DELETE', `${cmPath()}?labelSelector=set%3Ddc406`, { headers: { accept: 'text/html' } });
  assert.is(r.status, 406, `deletecollection: ${show(r)}`);
  assert.equal(await namesIn('dc406'), names, 'deletecollection: nothing deleted');
});

// ---------------------------------------------------------------- dry run runs every check

test('dry run answers exactly what the real request answers when it fails', async () => {
  const cm = await freshConfigMap();
  const gone = `${cm.name}-missing`;
  const cases: [string, (q: string) => Promise<HttpResult>, number][] = [
    ['create of an existing name', (q) => t.client.request('POST', `${cmPath()}?${q}`, { body: { metadata: { name: cm.name } } }), 409],
    ['update of a missing object', (q) => t.client.request('PUT', `${cmPath(gone)}?${q}`, { body: { metadata: { name: gone } } }), 404],
    ['update with a stale resourceVersion', (q) => t.client.request('PUT', `${cmPath(cm.name)}?${q}`, { body: { metadata: { name: cm.name, resourceVersion: '1' } } }), 409],
    ['patch of a missing object', (q) => t.client.request('PATCH', `${cmPath(gone)}?${q}`, { raw: '{}', contentType: 'application/merge-patch+json' }), 404],
    ['patch with a stale resourceVersion', (q) => t.client.request('PATCH', `${cmPath(cm.name)}?${q}`, { raw: '{"metadata":{"resourceVersion":"1"}}', contentType: 'application/merge-patch+json' }), 409],
    ['delete of a missing object', (q) => t.client.request('DELETE', `${cmPath(gone)}?${q}`), 404],
    ['delete with a stale precondition', (q) => t.client.request('DELETE', `${cmPath(cm.name)}?${q}`, { body: { preconditions: { resourceVersion: '1' }, ...(q ? { dryRun: ['All'] } : {}) } }), 409],
    ['create in a missing namespace', (q) => t.client.request('POST', `/api/v1/namespaces/${ns}-nope/configmaps?${q}`, { body: { metadata: { name: 'x' } } }), 404],
  ];
  for (const [label, send, code] of cases) {
    const dry = await send('dryRun=All');
    const real = await send('');
    assert.is(dry.status, code, `${label} (dry run): ${show(dry)}`);
    assert.equal(body(dry), body(real), `${label}: dry run and real answers are the same`);
  }
  assert.equal((await t.client.request('GET', cmPath(cm.name))).json.data, { k: 'v' }, 'nothing changed');
});

test('dry-run create in a terminating namespace is refused like the real one', async () => {
  const term = await t.createNamespace('delopts-term');
  // Keep the namespace Terminating on both targets (kube's namespace controller would finish it).
  await t.client.request('POST', `/api/v1/namespaces/${term}/configmaps`, { body: { metadata: { name: 'keep', finalizers: ['example.com/hold'] } } });
  const d = await t.client.request('DELETE', `/api/v1/namespaces/${term}`);
  assert.is(d.status, 200, show(d));
  const send = (q: string): Promise<HttpResult> => t.client.request('POST', `/api/v1/namespaces/${term}/configmaps?${q}`, { body: { metadata: { name: 'x' } } });
  const dry = await send('dryRun=All');
  const real = await send('');
  assert.is(dry.status, 403, show(dry));
  assert.equal(normalize(dry.json), normalize(real.json), 'same answer');
});

// ---------------------------------------------------------------- resourceVersion and patch bodies

test('update/patch: an unparsable resourceVersion is kube\'s 500; "0" is no precondition', async () => {
  const cm = await freshConfigMap();
  for (const [rv, why] of [['abc', 'invalid syntax'], ['-1', 'invalid syntax'], ['99999999999999999999999', 'value out of range']]) {
    const want = decodeError(`strconv.ParseUint: parsing "${rv}": ${why}`);
    let r = await t.client.request('PUT', cmPath(cm.name), { body: { metadata: { name: cm.name, resourceVersion: rv } } });
    assert.equal([r.status, body(r)], [500, want], `PUT rv ${rv}: ${show(r)}`);
    r = await t.client.request('PUT', `${cmPath(cm.name)}?dryRun=All`, { body: { metadata: { name: cm.name, resourceVersion: rv } } });
    assert.equal([r.status, body(r)], [500, want], `dry-run PUT rv ${rv}: ${show(r)}`);
    r = await t.client.request('PATCH', cmPath(cm.name), { raw: JSON.stringify({ metadata: { resourceVersion: rv } }), contentType: 'application/merge-patch+json' });
    assert.equal([r.status, body(r)], [500, want], `PATCH rv ${rv}: ${show(r)}`);
  }
  // The object is looked up first: a missing one is 404 whatever the version says.
  const r404 = await t.client.request('PUT', cmPath(`${cm.name}-missing`), { body: { metadata: { name: `${cm.name}-missing`, resourceVersion: 'abc' } } });
  assert.is(r404.status, 404, show(r404));
  const r0 = await t.client.request('PUT', cmPath(cm.name), { body: { metadata: { name: cm.name, resourceVersion: '0' }, data: { k: 'zero' } } });
  assert.is(r0.status, 200, `rv "0" is an unconditional update: ${show(r0)}`);
  assert.equal(r0.json.data, { k: 'zero' });
});

test('PUT: the body uid is a storage precondition (before existence and version checks); a patch changing it is 422', async () => {
  const cm = await freshConfigMap();
  const msg = (name: string, key: string, actual: string): string =>
    `Operation cannot be fulfilled on configmaps "${name}": StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: wrong, UID in object meta: ${actual}`;
  const missing = `${cm.name}-missing`;
  const cases: [string, string, string, unknown][] = [
    ['real', cmPath(cm.name), cm.name, msg(cm.name, `/registry/configmaps/NS/${cm.name}`, cm.uid)],
    // kube's dry-run storage reports its key without the /registry prefix
    ['dry run', `${cmPath(cm.name)}?dryRun=All`, cm.name, msg(cm.name, `/configmaps/NS/${cm.name}`, cm.uid)],
    ['missing object', cmPath(missing), missing, msg(missing, `/registry/configmaps/NS/${missing}`, '')],
  ];
  for (const [label, path, name, message] of cases) {
    const r = await t.client.request('PUT', path, { body: { metadata: { name, uid: 'wrong', resourceVersion: 'abc' }, data: { k: 'new' } } });
    assert.is(r.status, 409, `${label}: ${show(r)}`);
    assert.equal(normalize(r.json.message, { [ns]: 'NS' }), message, `${label}: message`);
    assert.equal([r.json.reason, r.json.details.name, r.json.details.kind], ['Conflict', name, 'configmaps'], `${label}: reason, details`);
  }
  const p = await t.client.request('PATCH', cmPath(cm.name), { raw: '{"metadata":{"uid":"wrong"}}', contentType: 'application/merge-patch+json' });
  assert.is(p.status, 422, show(p));
  // (kube lists this cause twice: ObjectMeta is validated by the generic update path and the strategy)
  assert.equal([...new Set(p.json.details.causes.map((c: { field: string }) => c.field))], ['metadata.uid'], show(p));
  await unchanged(cm.name, 'update', 'uid preconditions');
});

const ARRAY_INTO_TYPEMETA = `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
const badRequestBody = (message: string): unknown => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });

/** [content type, patch, status, expected body]. */
const PATCH_CASES: [string, string, number, unknown][] = [
  ['merge', '[1]', 422, {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: ` "" is invalid: patch: Invalid value: "[1]": ${ARRAY_INTO_TYPEMETA}`,
    reason: 'Invalid',
    details: { causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "[1]": ${ARRAY_INTO_TYPEMETA}`, field: 'patch' }] },
    code: 422,
  }],
  ['merge', '"x"', 400, badRequestBody('Invalid JSON Patch')],
  ['merge', 'null', 400, badRequestBody('Invalid JSON Patch')],
  ['merge', '{bad', 400, badRequestBody('Invalid JSON Patch')],
  ['strategic-merge', '5', 400, badRequestBody('json: cannot unmarshal number into Go value of type map[string]interface {}')],
  ['strategic-merge', '[1]', 400, badRequestBody('json: cannot unmarshal array into Go value of type map[string]interface {}')],
  ['json', '{}', 400, badRequestBody('json: cannot unmarshal object into Go value of type jsonpatch.Patch')],
  ['json', '[1]', 400, badRequestBody('json: cannot unmarshal number into Go value of type jsonpatch.Operation')],
  // A JSON patch that does not apply: a fixed message and empty details (NewGenericServerResponse).
  ...['[{"op":"test","path":"/data/k","value":"other"}]', '[{"op":"remove","path":"/data/zz"}]', '[{"op":"bogus","path":"/data/k"}]'].map(
    (p): [string, string, number, unknown] => ['json', p, 422, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server rejected our request due to an error in our request', reason: 'Invalid', details: {}, code: 422 }],
  ),
];

test('patch bodies kube cannot use: its status and body, object untouched', async () => {
  const cm = await freshConfigMap();
  for (const [i, [type, patch, code, want]] of PATCH_CASES.entries()) {
    for (const q of ['', '?dryRun=All']) {
      const r = await t.client.request('PATCH', cmPath(cm.name) + q, { raw: patch, contentType: `application/${type}-patch+json` });
      assert.equal([r.status, body(r)], [code, want], `case ${i} (${type} ${patch}${q}): ${show(r)}`);
    }
  }
  await unchanged(cm.name, 'patch', 'patch bodies');
});

// ---------------------------------------------------------------- real clients

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const ROOT = new URL('../..', import.meta.url).pathname;
const PYTHON = join(process.env.PYVENV ?? join(ROOT, '.cache', 'pyvenv'), 'bin', 'python');

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 90_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (err && code === 1 ? `\n${err.message}` : '') });
    });
  });
}

test('kubectl delete --dry-run=server (one object, and --all) deletes nothing', async () => {
  const kns = await t.createNamespace('delopts-kubectl');
  const kc = (...args: string[]) => run(KUBECTL, ['--kubeconfig', t.kubeconfig, '-n', kns, ...args]);
  for (const name of ['a', 'b', 'c']) {
    const r = await kc('create', 'configmap', name, '--from-literal=k=v');
    assert.is(r.code, 0, `create ${name}: ${r.stderr}`);
  }
  let r = await kc('delete', 'configmap', 'a', '--dry-run=server');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /configmap "a" deleted \(server dry run\)/);
  r = await kc('delete', 'configmap', '--all', '--dry-run=server');
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.trim().split('\n').length, 3, r.stdout);
  r = await kc('get', 'configmaps', '-o', 'name');
  assert.equal(r.stdout.trim().split('\n').filter((l) => l.startsWith('configmap/') && l !== 'configmap/kube-root-ca.crt').sort(), ['configmap/a', 'configmap/b', 'configmap/c'], r.stdout);
  r = await kc('delete', 'configmap', 'a');
  assert.is(r.code, 0, r.stderr);
  assert.not.ok(await t.client.request('GET', `/api/v1/namespaces/${kns}/configmaps/a`).then((x) => x.status === 200), 'a real delete deletes');
});

test('Python client: delete_namespaced_config_map(body=V1DeleteOptions(dry_run=["All"])) deletes nothing', async () => {
  if (!existsSync(PYTHON)) {
    if (process.env.CI === 'true') assert.unreachable(`Python venv missing at ${PYTHON}: run test/python/setup.sh`);
    console.log(`skipped: no Python venv at ${PYTHON} (bash test/python/setup.sh)`);
    return;
  }
  const pns = await t.createNamespace('delopts-py');
  const r = await run(PYTHON, [join(ROOT, 'test', 'python', 'delete_dry_run.py'), t.kubeconfig, pns]);
  assert.is(r.code, 0, `delete_dry_run.py exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}');
  assert.equal(out.dryRunDeleteCollection, { kind: 'ConfigMapList', items: ['py-del-a', 'py-del-b'] });
  assert.equal(out.invalidDryRun, { status: 422, reason: 'Invalid', kind: 'DeleteOptions' });
  assert.equal(out.afterRealDelete, ['py-del-b']);
  const left = await t.client.request('GET', `/api/v1/namespaces/${pns}/configmaps/py-del-b`);
  assert.is(left.status, 200, 'the server agrees');
});

test.run();
