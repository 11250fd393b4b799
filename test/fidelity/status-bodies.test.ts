/**
 * Status bodies byte for byte as kube-apiserver 1.24 writes them: field order (kind, apiVersion,
 * metadata, status, message, reason, details, code), empty `details` fields left out, `details`
 * present but empty where kube's go-restful layer answers (path 404, 405, 406, 415), `details.kind`
 * as each error names it (the resource for NotFound/AlreadyExists/Conflict, the Kind for Invalid
 * and for delete preconditions), causes without the field in their message, and the trailing
 * newline of kube's JSON encoder. Also the Success Status of a delete and the same error in YAML
 * and Protobuf when the client asks for those.
 *
 * Expected bodies are written out here and compared with the raw response text, so a run against
 * the reference (TEST_KUBECONFIG) checks every one of them against kube itself.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import type { HttpResult } from '../harness.ts';
import { encodeProtobuf } from '../../internal/http/protobuf.ts';

let t: Target;
let ns: string;
let CM: string;
/** The fixture object `exists`: its uid and resourceVersion. */
let uid: string;
let rv: string;

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' }, ...extra });

/** A Status in kube's field order; details as given (already in kube's order). */
function failure(code: number, reason: string | undefined, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  const s: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  if (reason) s.reason = reason;
  if (details) s.details = details;
  s.code = code;
  return s;
}
const show = (r: HttpResult): string => `HTTP ${r.status} ${r.headers['content-type']}: ${r.text.slice(0, 600)}`;

/**
 * The response is exactly this JSON Status (bytes, trailing newline included). `indented`: the
 * Accept header allowed no serializer, so kube wrote it with json.MarshalIndent (no newline).
 */
function expectBody(r: HttpResult, want: Record<string, unknown>, label: string, indented = false): void {
  assert.is(r.status, want.code, `${label}: HTTP code; ${show(r)}`);
  assert.is(r.headers['content-type'], 'application/json', `${label}: content type`);
  assert.is(r.text, indented ? JSON.stringify(want, null, 2) : JSON.stringify(want) + '\n', `${label}: body`);
}

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('status');
  CM = `/api/v1/namespaces/${ns}/configmaps`;
  const r = await t.client.request('POST', CM, { body: cm('exists') });
  assert.is(r.status, 201, show(r));
  uid = r.json.metadata.uid;
  rv = r.json.metadata.resourceVersion;
});

test.after(async () => {
  await t?.close();
});

const PATH_404 = (): Record<string, unknown> => failure(404, 'NotFound', 'the server could not find the requested resource', {});
const NOT_ALLOWED = (): Record<string, unknown> => failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
const RFC1123_SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const CONFIG_KEY = "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

interface Case {
  label: string;
  method: string;
  path: () => string;
  body?: unknown;
  raw?: string;
  contentType?: string;
  accept?: string;
  want: () => Record<string, unknown>;
}

const CASES: Case[] = [
  // 404: NewNotFound names the resource; empty group left out.
  { label: 'get a missing object', method: 'GET', path: () => `${CM}/nope`, want: () => failure(404, 'NotFound', 'configmaps "nope" not found', { name: 'nope', kind: 'configmaps' }) },
  { label: 'delete a missing object', method: 'DELETE', path: () => `${CM}/nope`, want: () => failure(404, 'NotFound', 'configmaps "nope" not found', { name: 'nope', kind: 'configmaps' }) },
  { label: 'update a missing object', method: 'PUT', path: () => `${CM}/nope`, body: cm('nope'), want: () => failure(404, 'NotFound', 'configmaps "nope" not found', { name: 'nope', kind: 'configmaps' }) },
  { label: 'get a missing namespace', method: 'GET', path: () => `/api/v1/namespaces/${ns}-none`, want: () => failure(404, 'NotFound', `namespaces "${ns}-none" not found`, { name: `${ns}-none`, kind: 'namespaces' }) },
  { label: 'create in a missing namespace', method: 'POST', path: () => `/api/v1/namespaces/${ns}-none/configmaps`, body: cm('a'), want: () => failure(404, 'NotFound', `namespaces "${ns}-none" not found`, { name: `${ns}-none`, kind: 'namespaces' }) },
  // 404 from the route table: no resource, name or verb in it.
  { label: 'unknown resource', method: 'GET', path: () => `/api/v1/namespaces/${ns}/widgets`, want: PATH_404 },
  { label: 'unknown subresource', method: 'GET', path: () => `${CM}/exists/status`, want: PATH_404 },
  { label: 'namespaced resource by name outside a namespace', method: 'GET', path: () => '/api/v1/configmaps/exists', want: PATH_404 },
  // 409
  { label: 'create an existing name', method: 'POST', path: () => CM, body: cm('exists'), want: () => failure(409, 'AlreadyExists', 'configmaps "exists" already exists', { name: 'exists', kind: 'configmaps' }) },
  {
    label: 'update with a stale resourceVersion', method: 'PUT', path: () => `${CM}/exists`, body: cm('exists', { metadata: { name: 'exists', resourceVersion: '1' } }),
    want: () => failure(409, 'Conflict', 'Operation cannot be fulfilled on configmaps "exists": the object has been modified; please apply your changes to the latest version and try again', { name: 'exists', kind: 'configmaps' }),
  },
  {
    label: 'update with another uid', method: 'PUT', path: () => `${CM}/exists`, body: cm('exists', { metadata: { name: 'exists', uid: '00000000-0000-0000-0000-000000000000' } }),
    want: () => failure(409, 'Conflict', `Operation cannot be fulfilled on configmaps "exists": StorageError: invalid object, Code: 4, Key: /registry/configmaps/${ns}/exists, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: ${uid}`, { name: 'exists', kind: 'configmaps' }),
  },
  {
    label: 'delete with a uid precondition that does not hold', method: 'DELETE', path: () => `${CM}/exists`, body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
    want: () => failure(409, 'Conflict', `Operation cannot be fulfilled on ConfigMap "exists": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (${uid}). The object might have been deleted and then recreated`, { name: 'exists', kind: 'ConfigMap' }),
  },
  {
    label: 'delete with a resourceVersion precondition that does not hold', method: 'DELETE', path: () => `${CM}/exists`, body: { preconditions: { resourceVersion: '1' } },
    want: () => failure(409, 'Conflict', `Operation cannot be fulfilled on ConfigMap "exists": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${rv}). The object might have been modified`, { name: 'exists', kind: 'ConfigMap' }),
  },
  // 405: go-restful has no route for the method on that path.
  { label: 'POST to an item', method: 'POST', path: () => `${CM}/exists`, body: cm('exists'), want: NOT_ALLOWED },
  { label: 'PATCH a collection', method: 'PATCH', path: () => CM, body: {}, contentType: 'application/merge-patch+json', want: NOT_ALLOWED },
  { label: 'PUT a collection', method: 'PUT', path: () => CM, body: cm('x'), want: NOT_ALLOWED },
  { label: 'DELETE the namespaces collection (no deletecollection)', method: 'DELETE', path: () => '/api/v1/namespaces', want: NOT_ALLOWED },
  { label: 'POST to namespaces/x/status', method: 'POST', path: () => `/api/v1/namespaces/${ns}/status`, body: {}, want: NOT_ALLOWED },
  { label: 'GET namespaces/x/finalize (update only)', method: 'GET', path: () => `/api/v1/namespaces/${ns}/finalize`, want: NOT_ALLOWED },
  { label: 'PATCH namespaces/x/finalize', method: 'PATCH', path: () => `/api/v1/namespaces/${ns}/finalize`, body: {}, contentType: 'application/merge-patch+json', want: NOT_ALLOWED },
  { label: 'POST to a legacy watch path', method: 'POST', path: () => `/api/v1/watch/namespaces/${ns}/configmaps`, body: {}, want: NOT_ALLOWED },
  { label: 'POST /api', method: 'POST', path: () => '/api', body: {}, want: NOT_ALLOWED },
  { label: 'DELETE /api/v1', method: 'DELETE', path: () => '/api/v1', want: NOT_ALLOWED },
  { label: 'POST /version', method: 'POST', path: () => '/version', body: {}, want: NOT_ALLOWED },
  // 406: no produced type at all (go-restful), or a produced type with unusable parameters.
  { label: 'text/html on an object', method: 'GET', path: () => `${CM}/exists`, accept: 'text/html', want: () => failure(406, 'NotAcceptable', '406: Not Acceptable', {}) },
  { label: 'text/html on a list', method: 'GET', path: () => CM, accept: 'text/html', want: () => failure(406, 'NotAcceptable', '406: Not Acceptable', {}) },
  { label: 'text/html on discovery', method: 'GET', path: () => '/api/v1', accept: 'text/html', want: () => failure(406, 'NotAcceptable', '406: Not Acceptable', {}) },
  { label: 'text/html on /version', method: 'GET', path: () => '/version', accept: 'text/html', want: () => failure(406, 'NotAcceptable', '406: Not Acceptable', {}) },
  // /apis is a plain handler that negotiates itself: kube's NewNotAcceptableError.
  { label: 'text/html on /apis', method: 'GET', path: () => '/apis', accept: 'text/html', want: () => failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf') },
  { label: 'application/foo on a list', method: 'GET', path: () => CM, accept: 'application/foo', want: () => failure(406, 'NotAcceptable', '406: Not Acceptable', {}) },
  { label: 'JSON as an unknown kind', method: 'GET', path: () => CM, accept: 'application/json;as=Foo;g=meta.k8s.io;v=v1', want: () => failure(406, 'NotAcceptable', 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf') },
  // Metadata-only of the wrong shape: refused after negotiation, even with a JSON fallback.
  {
    label: 'PartialObjectMetadata for a list', method: 'GET', path: () => CM, accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json',
    want: () => failure(406, 'NotAcceptable', 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)'),
  },
  {
    label: 'PartialObjectMetadataList for one object', method: 'GET', path: () => `${CM}/exists`, accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    want: () => failure(406, 'NotAcceptable', 'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)'),
  },
  // 415: the decoder (create) vs the PATCH route's Consumes.
  { label: 'create with text/plain', method: 'POST', path: () => CM, raw: 'x', contentType: 'text/plain', want: () => failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf') },
  { label: 'patch with text/plain', method: 'PATCH', path: () => `${CM}/exists`, raw: 'x', contentType: 'text/plain', want: () => failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}) },
  // 413
  { label: 'a body over 3 MiB', method: 'POST', path: () => CM, raw: `{"a":"${'x'.repeat(3 * 1024 * 1024 + 10)}"}`, want: () => failure(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728') },
  // 400
  { label: 'name in the body is not the name in the URL', method: 'PUT', path: () => `${CM}/exists`, body: cm('other'), want: () => failure(400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (exists)') },
  { label: 'namespace in the body is not the URL namespace', method: 'POST', path: () => CM, body: cm('nsm', { metadata: { name: 'nsm', namespace: 'default' } }), want: () => failure(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request') },
  { label: 'label selector that does not parse', method: 'GET', path: () => `${CM}?labelSelector=x%20in%20(a`, want: () => failure(400, 'BadRequest', "unable to parse requirement: found '', expected: ',' or ')'") },
  { label: 'unknown field selector', method: 'GET', path: () => `${CM}?fieldSelector=foo%3Dbar`, want: () => failure(400, 'BadRequest', '"foo" is not a known field selector: only "metadata.name", "metadata.namespace"') },
  { label: 'limit that is not a number', method: 'GET', path: () => `${CM}?limit=abc`, want: () => failure(400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax') },
  // 422: NewInvalid names the Kind; causes carry the message without the field.
  {
    label: 'invalid name', method: 'POST', path: () => CM, body: cm('Bad_Name'),
    want: () => failure(422, 'Invalid', `ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": ${RFC1123_SUBDOMAIN}`, { name: 'Bad_Name', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${RFC1123_SUBDOMAIN}`, field: 'metadata.name' }] }),
  },
  {
    label: 'two invalid fields', method: 'POST', path: () => CM, body: cm('Bad_Name', { data: { 'a b': 'x' } }),
    want: () => failure(422, 'Invalid', `ConfigMap "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": ${RFC1123_SUBDOMAIN}, data[a b]: Invalid value: "a b": ${CONFIG_KEY}]`, {
      name: 'Bad_Name', kind: 'ConfigMap', causes: [
        { reason: 'FieldValueInvalid', message: `Invalid value: "Bad_Name": ${RFC1123_SUBDOMAIN}`, field: 'metadata.name' },
        { reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${CONFIG_KEY}`, field: 'data[a b]' },
      ],
    }),
  },
  {
    label: 'no name (details.name left out)', method: 'POST', path: () => CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} },
    want: () => failure(422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required', { kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] }),
  },
];

for (const [i, k] of CASES.entries()) {
  test(`case ${i}: ${k.label}`, async () => {
    const headers: Record<string, string> = {};
    if (k.accept) headers.accept = k.accept;
    const r = await t.client.request(k.method, k.path(), { body: k.body, raw: k.raw, contentType: k.contentType, headers });
    // An Accept header naming nothing kube can serialize an error to makes it indent the JSON.
    const indented = k.accept !== undefined && !/application\/(json|yaml)(,|$)|\*\/\*/.test(k.accept);
    expectBody(r, k.want(), `case ${i} (${k.label})`, indented);
  });
}

test('an error in YAML when the client asks for YAML (keys sorted, go-yaml quoting and folding)', async () => {
  const r = await t.client.request('GET', `${CM}/nope`, { headers: { accept: 'application/yaml' } });
  assert.is(r.status, 404, show(r));
  assert.is(r.headers['content-type'], 'application/yaml');
  assert.is(r.text, 'apiVersion: v1\ncode: 404\ndetails:\n  kind: configmaps\n  name: nope\nkind: Status\nmessage: configmaps "nope" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n');
  // A watch cannot stream YAML: the 406 lists the stream types, folded past column 80.
  const w = await t.client.request('GET', `${CM}?watch=1&timeoutSeconds=1`, { headers: { accept: 'application/yaml' } });
  assert.is(w.status, 406, show(w));
  assert.is(w.headers['content-type'], 'application/yaml');
  assert.is(w.text, "apiVersion: v1\ncode: 406\nkind: Status\nmessage: 'only the following media types are accepted: application/json;stream=watch,\n  application/vnd.kubernetes.protobuf;stream=watch'\nmetadata: {}\nreason: NotAcceptable\nstatus: Failure\n");
});

test('discovery in YAML; /version only in JSON (its 406 in YAML)', async () => {
  const api = await t.client.request('GET', '/api', { headers: { accept: 'application/yaml' } });
  assert.is(api.status, 200, show(api));
  assert.is(api.headers['content-type'], 'application/yaml');
  assert.ok(api.text.startsWith('kind: APIVersions\nserverAddressByClientCIDRs:\n- clientCIDR: 0.0.0.0/0\n'), api.text);
  const v = await t.client.request('GET', '/version', { headers: { accept: 'application/yaml' } });
  assert.is(v.status, 406, show(v));
  assert.is(v.headers['content-type'], 'application/yaml');
  assert.is(v.text, "apiVersion: v1\ncode: 406\ndetails: {}\nkind: Status\nmessage: '406: Not Acceptable'\nmetadata: {}\nreason: NotAcceptable\nstatus: Failure\n");
});

test('an error in Protobuf when the client asks for Protobuf', async () => {
  const r = await t.client.request('GET', `${CM}/nope`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.is(r.status, 404, show(r));
  assert.is(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  const want = encodeProtobuf(failure(404, 'NotFound', 'configmaps "nope" not found', { name: 'nope', kind: 'configmaps' }));
  assert.is(r.text, want.toString('utf8'), 'protobuf Status bytes');
});

test('the Success Status of a delete names the resource and the uid, no group', async () => {
  const made = await t.client.request('POST', CM, { body: cm('gone') });
  assert.is(made.status, 201, show(made));
  const r = await t.client.request('DELETE', `${CM}/gone`);
  assert.is(r.status, 200, show(r));
  const want = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'gone', kind: 'configmaps', uid: made.json.metadata.uid } };
  assert.is(r.text, JSON.stringify(want) + '\n');
});

test.run();
