/**
 * Shared pieces of the storage.k8s.io fidelity suites (storage-*.test.ts), also used by other
 * groups' kind suites (leases.test.ts): expected bodies as the reference writes them, Status
 * normalization, Tables, watch and Protobuf reads.
 */
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { normalize, readKubeconfig, startTarget, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { canonicalObject } from '../../internal/decode/body.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import type { ServerOptions } from '../../internal/app/app.ts';

export const GROUP = 'storage.k8s.io';
export const API = `/apis/${GROUP}/v1`;
export const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** Placeholders for what differs between two servers, plus Go pointer addresses in messages. */
export function body(r: HttpResult, names: Record<string, string>): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  for (const i of j?.items ?? []) delete i.metadata?.managedFields;
  return JSON.parse(JSON.stringify(normalize(j, names)).replace(/\(0x[0-9a-f]+\)/g, '(0xPTR)'));
}

/** An object as the servers return it: metadata placeholders (plus `meta`), then the given fields. */
export function stored(kind: string, name: string, fields: Record<string, unknown>, meta: Record<string, unknown> = {}): any {
  return { kind, apiVersion: `${GROUP}/v1`, metadata: { name, uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', ...meta }, ...fields };
}

/** A list item: an object without its own kind and apiVersion. */
export function item(o: any): any {
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return rest;
}

export type Cause = [reason: string, field: string, message: string];

/**
 * kube's 422 Invalid body (NewInvalid: the message lists distinct errors once, causes all).
 * `group` defaults to storage.k8s.io; other groups' suites pass theirs ('' for core: no group
 * in the message or the details).
 */
export function invalidStatus(kind: string, name: string, causes: Cause[], group = GROUP): any {
  const full = [...new Set(causes.map(([, f, m]) => `${f}: ${m}`))];
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${group ? `${kind}.${group}` : kind} "${name}" is invalid: ${full.length === 1 ? full[0] : `[${full.join(', ')}]`}`,
    reason: 'Invalid',
    details: { name, ...(group ? { group } : {}), kind, causes: causes.map(([reason, field, message]) => ({ reason, message, field })) },
    code: 422,
  };
}

/** kube's 403 Forbidden body (NewForbidden): `<resource>[.<group>] "<name>" is forbidden: <message>`. */
export function forbiddenStatus(resource: string, name: string, message: string, group = ''): any {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${group ? `${resource}.${group}` : resource} "${name}" is forbidden: ${message}`,
    reason: 'Forbidden',
    details: { name, ...(group ? { group } : {}), kind: resource },
    code: 403,
  };
}

type Hooks = { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void };

/**
 * A namespaced kind's suite: a target and a fresh namespace (`prefix`-…) before the tests, both
 * gone after; `C` is the kind's collection in it (`groupVersion` 'v1' is core's /api/v1, else
 * /apis/<groupVersion>), `names` the placeholders `body` takes, `post` a create in `C`; `opts`
 * start this server (e.g. without a controller the reference does not run either).
 */
export function namespacedSuite(suite: Hooks, prefix: string, resource: string, groupVersion = 'v1', opts: Partial<ServerOptions> = {}) {
  const s = { t: undefined as unknown as Target, ns: '', C: '', names: {} as Record<string, string>, post: (b: unknown) => s.t.client.request('POST', s.C, { body: b }) };
  suite.before(async () => {
    s.t = await startTarget(opts);
    s.ns = await s.t.createNamespace(prefix);
    s.C = `${groupVersion === 'v1' ? '/api/v1' : `/apis/${groupVersion}`}/namespaces/${s.ns}/${resource}`;
    s.names = { [s.ns]: '<ns>' };
  });
  suite.after(async () => {
    await s.t.client.request('DELETE', `/api/v1/namespaces/${s.ns}`);
    await s.t.close();
  });
  return s;
}

/**
 * A cluster-scoped kind's suite at collection `C`: a target before the tests; `n(s)` names an
 * object `wtst-<s>-<run>` unique to this run, `names` maps the run suffix away for `body`; after
 * the tests the objects named by `leftovers` are deleted and the target closed.
 */
export function clusterSuite(suite: Hooks, C: string, leftovers: string[]) {
  const s = { t: undefined as unknown as Target, n: (_: string) => '', names: {} as Record<string, string>, post: (b: unknown) => s.t.client.request('POST', C, { body: b }) };
  suite.before(async () => {
    s.t = await startTarget();
    const run = s.t.ns('x').slice(2);
    s.n = (x) => `wtst-${x}-${run}`;
    s.names = { [`-${run}`]: '' };
  });
  suite.after(async () => {
    for (const x of leftovers) await s.t.client.request('DELETE', `${C}/${s.n(x)}`);
    await s.t.close();
  });
  return s;
}

/** Deep equality with the whole response in the failure message. */
export function same(got: unknown, want: unknown, label: string, r: HttpResult): void {
  assert.equal(got, want, `${label}; ${show(r)}`);
}

/** The Table of a path: column [name, type, format, priority] and rows' cells (Age cells dropped). */
export async function table(t: Target, path: string): Promise<{ columns: unknown[][]; descriptions: string[]; rows: unknown[][] }> {
  const r = await t.client.request('GET', path, { headers: { accept: TABLE } });
  assert.is(r.status, 200, show(r));
  const j = r.json as any;
  const age = j.columnDefinitions.findIndex((c: any) => c.name === 'Age');
  return {
    columns: j.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]),
    descriptions: j.columnDefinitions.map((c: any) => c.description),
    rows: j.rows.map((row: any) => row.cells.filter((_: unknown, i: number) => i !== age)),
  };
}

/** GET a path as Protobuf bytes. */
export async function getProtobuf(t: Target, path: string): Promise<Buffer> {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const r = await undiciRequest(k.server + path, { headers, dispatcher: agent });
    assert.is(r.statusCode, 200, path);
    return Buffer.from(await r.body.arrayBuffer());
  } finally {
    await agent.close();
  }
}

/** An object's Protobuf bytes decode to its JSON, and its JSON re-encodes to the same bytes. */
export async function protobufRoundTrip(t: Target, path: string): Promise<void> {
  const json = (await t.client.request('GET', path)).json;
  const bytes = await getProtobuf(t, path);
  // Go's JSON of the decoded object: a nested ObjectMeta's zero creationTimestamp is `null` there.
  const decoded = decodeProtobuf(bytes);
  const slash = decoded.apiVersion.lastIndexOf('/');
  const gvk = { group: slash < 0 ? '' : decoded.apiVersion.slice(0, slash), version: decoded.apiVersion.slice(slash + 1), kind: decoded.kind };
  assert.equal(canonicalObject(decoded.object, gvk), json, `${path}: protobuf decodes to the JSON`);
  assert.ok(encodeProtobuf(json).equals(bytes), `${path}: JSON re-encodes to the same bytes`);
}

/** The events of a watch from `rv` that ends after one second: [type, name] pairs. */
export async function watchEvents(t: Target, collection: string, rv: string, fieldSelector?: string): Promise<[string, string][]> {
  const q = `watch=1&resourceVersion=${rv}&timeoutSeconds=1${fieldSelector ? `&fieldSelector=${encodeURIComponent(fieldSelector)}` : ''}`;
  const r = await t.client.request('GET', `${collection}?${q}`);
  assert.is(r.status, 200, show(r));
  return r.text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .map((e: any) => [e.type, e.object.metadata.name]);
}

/** One SubjectAccessReview and its expected verdict; `resource` may name a subresource (`a/status`). */
export type AccessCase = [user: string, groups: string[], verb: string, resource: string, namespace: string, name: string, allowed: boolean];

/** Ask a SubjectAccessReview for each case (resources of `group`) and check the verdict. */
export async function checkAccess(t: Target, group: string, cases: AccessCase[]): Promise<void> {
  for (const [user, groups, verb, res, namespace, name, want] of cases) {
    const [resource, subresource = ''] = res.split('/');
    const r = await t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: { group, resource, subresource, verb, namespace, name } } },
    });
    assert.is(r.status, 201, show(r));
    assert.is((r.json as any).status.allowed === true, want, `${user} ${verb} ${res} ${namespace}/${name}`);
  }
}
