/**
 * Lease (coordination.k8s.io/v1) as kube-apiserver 1.24 serves it: ValidateLeaseSpec's messages,
 * MicroTime decoding, PUT that creates, updates that need a resourceVersion, list/watch, the
 * Table (printLease: Name, Holder, Age), Protobuf and server-side apply.
 *
 *   node --import tsx test/run.ts test/fidelity/leases.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/leases.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, namespacedSuite, invalidStatus, item, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';
import { PROTOBUF, encodeProtobuf } from '../../internal/http/protobuf.ts';

const GROUP = 'coordination.k8s.io';
const APPLY = 'application/apply-patch+yaml';

const S = namespacedSuite(test, 'lease', 'leases', `${GROUP}/v1`);


const lease = (name: string, spec: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'Lease', metadata: { name }, spec });
const post = S.post;

/** A Lease as the servers return it (metadata placeholders). */
const stored = (name: string, spec: Record<string, unknown>) => ({
  kind: 'Lease',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
  spec,
});

/** kube's 422 for a Lease. The store's own resourceVersion check names the resource (`leases`) where validation names the kind. */
const invalidLease = (name: string, causes: Cause[], kind = 'Lease') => invalidStatus(kind, name, causes, GROUP);

test('create: every spec field, MicroTimes re-encoded in UTC with six digits; an empty spec stays {}', async () => {
  const r = await post(
    lease('full', { leaseTransitions: 3, renewTime: '2026-01-01T01:00:01.500000+01:00', acquireTime: '2026-01-01T00:00:00.123456Z', leaseDurationSeconds: 15, holderIdentity: 'node-a_1234' }),
  );
  assert.is(r.status, 201, show(r));
  assert.is(JSON.stringify((r.json as any).spec), '{"holderIdentity":"node-a_1234","leaseDurationSeconds":15,"acquireTime":"2026-01-01T00:00:00.123456Z","renewTime":"2026-01-01T00:00:01.500000Z","leaseTransitions":3}');
  const g = await S.t.client.request('GET', `${S.C}/full`);
  same(body(g, S.names), stored('full', { holderIdentity: 'node-a_1234', leaseDurationSeconds: 15, acquireTime: '<time>', renewTime: '<time>', leaseTransitions: 3 }), 'get', g);
  const e = await post(lease('empty'));
  assert.is(e.status, 201, show(e));
  same(body(e, S.names), stored('empty', {}), 'empty spec', e);
});

test('create: rejections with kube field paths and messages; a MicroTime needs six digits (400)', async () => {
  const r = await post(lease('bad', { holderIdentity: '', leaseDurationSeconds: -1, leaseTransitions: -2 }));
  same(
    body(r, S.names),
    invalidLease('bad', [
      ['FieldValueInvalid', 'spec.leaseDurationSeconds', 'Invalid value: -1: must be greater than 0'],
      ['FieldValueInvalid', 'spec.leaseTransitions', 'Invalid value: -2: must be greater than or equal to 0'],
    ]),
    'negative values',
    r,
  );
  const z = await post(lease('zero', { leaseDurationSeconds: 0, leaseTransitions: 0 }));
  same(body(z, S.names), invalidLease('zero', [['FieldValueInvalid', 'spec.leaseDurationSeconds', 'Invalid value: 0: must be greater than 0']]), 'zero duration', z);
  const n = await post(lease('Bad_Name'));
  assert.is(n.status, 422, show(n));
  assert.is((n.json as any).details.causes[0].field, 'metadata.name', show(n));
  const tm = await post(lease('time', { renewTime: '2026-01-01T00:00:00.1Z' }));
  assert.is(tm.status, 400, show(tm));
  assert.is(
    (tm.json as any).message,
    'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-01T00:00:00.1Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".1Z" as ".000000"',
  );
  const ty = await post(lease('type', { leaseDurationSeconds: '15' }));
  assert.is(ty.status, 400, show(ty));
  assert.is((ty.json as any).message, 'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32');
  const big = await post(lease('type', { leaseTransitions: 3000000000 }));
  assert.is(big.status, 400, show(big));
  assert.is((big.json as any).message, 'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 3000000000 into Go struct field LeaseSpec.spec.leaseTransitions of type int32');
  for (const name of ['bad', 'zero', 'Bad_Name', 'time', 'type']) assert.is((await S.t.client.request('GET', `${S.C}/${name}`)).status, 404, `${name}: nothing stored`);
});

test('PUT creates a missing Lease; an update needs metadata.resourceVersion and is validated', async () => {
  const c = await S.t.client.request('PUT', `${S.C}/put`, { body: lease('put', { holderIdentity: 'a', leaseDurationSeconds: 10 }) });
  assert.is(c.status, 201, show(c));
  same(body(c, S.names), stored('put', { holderIdentity: 'a', leaseDurationSeconds: 10 }), 'created by PUT', c);
  const norv = await S.t.client.request('PUT', `${S.C}/put`, { body: lease('put', { holderIdentity: 'b' }) });
  same(body(norv, S.names), invalidLease('put', [['FieldValueInvalid', 'metadata.resourceVersion', 'Invalid value: 0x0: must be specified for an update']], 'leases'), 'no resourceVersion', norv);
  const cur = c.json as any;
  const bad = await S.t.client.request('PUT', `${S.C}/put`, { body: { ...cur, spec: { holderIdentity: 'b', leaseTransitions: -1 } } });
  same(body(bad, S.names), invalidLease('put', [['FieldValueInvalid', 'spec.leaseTransitions', 'Invalid value: -1: must be greater than or equal to 0']]), 'invalid update', bad);
  const u = await S.t.client.request('PUT', `${S.C}/put`, { body: { ...cur, spec: { holderIdentity: 'b', leaseTransitions: 1 } } });
  assert.is(u.status, 200, show(u));
  same(body(u, S.names), stored('put', { holderIdentity: 'b', leaseTransitions: 1 }), 'updated', u);
  const stale = await S.t.client.request('PUT', `${S.C}/put`, { body: { ...cur, spec: { holderIdentity: 'c' } } });
  assert.is(stale.status, 409, show(stale));
  assert.is((stale.json as any).message, `Operation cannot be fulfilled on leases.${GROUP} "put": the object has been modified; please apply your changes to the latest version and try again`);
});

test('list, watch, delete (a Status); Table as printLease', async () => {
  const c = await post(lease('w', { holderIdentity: 'me', leaseDurationSeconds: 2 }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=metadata.name%3Dw`);
  assert.is((l.json as any).kind, 'LeaseList', show(l));
  same(body(l, S.names).items, [item(stored('w', { holderIdentity: 'me', leaseDurationSeconds: 2 }))], 'list', l);
  const u = await S.t.client.request('PATCH', `${S.C}/w`, { body: { spec: { renewTime: '2026-01-01T00:00:02.000000Z' } }, contentType: 'application/merge-patch+json' });
  assert.is(u.status, 200, show(u));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dw`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Holder', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.is(tb.descriptions[1], 'holderIdentity contains the identity of the holder of a current lease.');
  assert.equal(tb.rows, [['w', 'me']]);
  assert.equal((await table(S.t, `${S.C}/empty`)).rows, [['empty', '']], 'no holder: an empty cell');
  const d = await S.t.client.request('DELETE', `${S.C}/w`);
  assert.is(d.status, 200, show(d));
  same(body(d, S.names), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'w', group: GROUP, kind: 'leases', uid: '<uid>' } }, 'delete', d);
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=w'), [
    ['MODIFIED', 'w'],
    ['DELETED', 'w'],
  ]);
});

test('Protobuf round trip', async () => {
  await protobufRoundTrip(S.t, `${S.C}/full`);
  await protobufRoundTrip(S.t, `${S.C}/empty`);
});

test('server-side apply: creates, a second manager conflicts on holderIdentity, force takes it over', async () => {
  const path = (mgr: string, force = false) => `${S.C}/ssa?fieldManager=${mgr}${force ? '&force=true' : ''}`;
  const apply = (mgr: string, spec: Record<string, unknown>, force = false) =>
    S.t.client.request('PATCH', path(mgr, force), { raw: JSON.stringify(lease('ssa', spec)), contentType: APPLY });
  const a = await apply('alpha', { holderIdentity: 'alpha', leaseDurationSeconds: 5 });
  assert.is(a.status, 201, show(a));
  assert.equal((a.json as any).metadata.managedFields.map((f: any) => [f.manager, f.operation, f.fieldsV1]), [
    ['alpha', 'Apply', { 'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {} } }],
  ]);
  const b = await apply('beta', { holderIdentity: 'beta' });
  assert.is(b.status, 409, show(b));
  assert.is((b.json as any).message, 'Apply failed with 1 conflict: conflict with "alpha": .spec.holderIdentity');
  assert.equal((b.json as any).details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alpha"', field: '.spec.holderIdentity' }]);
  const f = await apply('beta', { holderIdentity: 'beta' }, true);
  assert.is(f.status, 200, show(f));
  assert.is((f.json as any).spec.holderIdentity, 'beta');
  assert.equal((f.json as any).metadata.managedFields.map((x: any) => [x.manager, x.fieldsV1]), [
    ['alpha', { 'f:spec': { 'f:leaseDurationSeconds': {} } }],
    ['beta', { 'f:spec': { 'f:holderIdentity': {} } }],
  ]);
});

test('the e2e "lease API" lifecycle: year-1 MicroTimes in a Protobuf create, strategic merge patch, deletecollection by label, all-namespaces list', async () => {
  const ns2 = await S.t.createNamespace('lease-e2e');
  const L = `/apis/${GROUP}/v1/namespaces/${ns2}/leases`;
  try {
    // time.Time{}.Add(2 * time.Second), as the e2e spec writes it.
    const spec = { holderIdentity: 'holder', leaseDurationSeconds: 30, acquireTime: '0001-01-01T00:00:02.000000Z', renewTime: '0001-01-01T00:00:05.000000Z', leaseTransitions: 0 };
    const c = await S.t.client.request('POST', L, { raw: encodeProtobuf(lease('lease', spec)), contentType: PROTOBUF });
    assert.is(c.status, 201, show(c));
    assert.equal((c.json as any).spec, spec);
    await protobufRoundTrip(S.t, `${L}/lease`);
    const patched = { holderIdentity: 'holder3', leaseDurationSeconds: 60, acquireTime: '0001-01-01T00:00:50.000000Z', renewTime: '0001-01-01T00:01:10.000000Z', leaseTransitions: 2 };
    const p = await S.t.client.request('PATCH', `${L}/lease`, { body: { spec: patched }, contentType: 'application/strategic-merge-patch+json' });
    assert.is(p.status, 200, show(p));
    assert.equal((p.json as any).spec, patched);
    const c2 = await post({ ...lease('lease2', spec), metadata: { name: 'lease2', namespace: ns2, labels: { deletecollection: 'true' } } });
    assert.is(c2.status, 400, show(c2));
    assert.is((c2.json as any).message, 'the namespace of the provided object does not match the namespace sent on the request', 'the body names another namespace than the URL');
    assert.is((await S.t.client.request('POST', L, { body: { ...lease('lease2', spec), metadata: { name: 'lease2', labels: { deletecollection: 'true' } } } })).status, 201);
    const names = async () => ((await S.t.client.request('GET', L)).json as any).items.map((i: any) => i.metadata.name);
    assert.equal(await names(), ['lease', 'lease2']);
    const dc = await S.t.client.request('DELETE', `${L}?labelSelector=deletecollection%3Dtrue`);
    assert.is(dc.status, 200, show(dc));
    assert.is((dc.json as any).kind, 'LeaseList');
    assert.equal(await names(), ['lease']);
    assert.is((await S.t.client.request('DELETE', `${L}/lease`)).status, 200);
    assert.is((await S.t.client.request('GET', `${L}/lease`)).status, 404);
    const all = await S.t.client.request('GET', `/apis/${GROUP}/v1/leases`);
    assert.is(all.status, 200, show(all));
    assert.ok((all.json as any).items.some((i: any) => i.metadata.namespace === S.ns), 'all namespaces: this suite\'s leases are listed');
  } finally {
    await S.t.client.request('DELETE', `/api/v1/namespaces/${ns2}`);
  }
});

test('RBAC bootstrap: the scheduler may get/update only its own lock in kube-system, a node any lease (SubjectAccessReview)', async () => {
  const can = async (user: string, groups: string[], verb: string, namespace: string, name = ''): Promise<boolean> => {
    const r = await S.t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, groups, resourceAttributes: { group: GROUP, resource: 'leases', verb, namespace, name } } },
    });
    assert.is(r.status, 201, show(r));
    return (r.json as any).status.allowed === true;
  };
  const cases: [string, string[], string, string, string, boolean][] = [
    ['system:kube-scheduler', [], 'update', 'kube-system', 'kube-scheduler', true],
    ['system:kube-scheduler', [], 'get', 'kube-system', 'kube-scheduler', true],
    ['system:kube-scheduler', [], 'create', 'kube-system', '', true],
    ['system:kube-scheduler', [], 'update', 'kube-system', 'kube-controller-manager', false],
    ['system:kube-scheduler', [], 'delete', 'kube-system', 'kube-scheduler', false],
    ['system:kube-controller-manager', [], 'update', 'kube-system', 'kube-controller-manager', true],
    ['somebody', ['system:authenticated'], 'get', 'kube-system', 'kube-scheduler', false],
  ];
  for (const [user, groups, verb, namespace, name, want] of cases) assert.is(await can(user, groups, verb, namespace, name), want, `${user} ${verb} ${namespace}/${name}`);
});

test.run();
