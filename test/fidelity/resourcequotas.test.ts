/**
 * ResourceQuota (core/v1) as kube-apiserver 1.24 serves it: status reset on create and kept on
 * update, `/status` writes keeping spec, sub-milli quantities rounded up, ValidateResourceQuota's
 * messages (names, integers, negatives, scopes), scopes immutable, delete returning the object,
 * the Table (printResourceQuota: Name, Age, Request, Limit), Protobuf. The resourcequota
 * controller is off here, as on the reference (status is whatever a client writes); quota
 * admission and the controller: admission-resourcequota.test.ts.
 *
 *   node --import tsx test/run.ts test/fidelity/resourcequotas.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/resourcequotas.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

// Status as a client writes it: this server's resourcequota controller off, as on the reference.
const S = namespacedSuite(test, 'quota', 'resourcequotas', 'v1', { controllers: ['*', '-resourcequota'] });

const quota = (name: string, spec: Record<string, unknown>, status?: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec, ...(status ? { status } : {}) });
const post = (b: unknown) => S.t.client.request('POST', S.C, { body: b });
const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });

const invalid = (name: string, causes: Cause[]) => invalidStatus('ResourceQuota', name, causes, '');
const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown>) => ({
  kind: 'ResourceQuota',
  apiVersion: 'v1',
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
  spec,
  status,
});

test('create: status dropped, sub-milli rounded up; /status writes status only', async () => {
  const r = await post(quota('ok', { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi', cpu: '0.5001m' } }, { hard: { pods: '3' } }));
  assert.is(r.status, 201, show(r));
  const spec = { hard: { cpu: '1m', 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi' } };
  same(body(r, S.names), stored('ok', spec, {}), 'created', r);
  const st = await merge(`${S.C}/ok/status`, { spec: { hard: { pods: '1' } }, status: { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi' }, used: { pods: '2', 'limits.cpu': '500m' } } });
  assert.is(st.status, 200, show(st));
  same(body(st, S.names), stored('ok', spec, { hard: { 'limits.cpu': '2', pods: '10', 'requests.memory': '1Gi' }, used: { 'limits.cpu': '500m', pods: '2' } }), '/status', st);
  const u = await merge(`${S.C}/ok`, { spec: { hard: { pods: '20' } }, status: { used: { pods: '9' } } });
  assert.is(u.status, 200, show(u));
  assert.equal((u.json as any).status.used, { 'limits.cpu': '500m', pods: '2' }, 'an update keeps status');
  assert.is((u.json as any).spec.hard.pods, '20');
  const g = await S.t.client.request('GET', `${S.C}/ok/status`);
  assert.is((g.json as any).kind, 'ResourceQuota', show(g));
});

test('create: ValidateResourceQuota messages, nothing stored', async () => {
  const int = await post(quota('int', { hard: { pods: '1500m' } }));
  same(
    body(int, S.names),
    invalid('int', [['FieldValueInvalid', 'spec.hard[pods]', 'Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer']]),
    'integer',
    int,
  );
  const neg = await post(quota('neg', { hard: { cpu: '-1' } }));
  same(body(neg, S.names), invalid('neg', [['FieldValueInvalid', 'spec.hard[cpu]', 'Invalid value: "-1": must be greater than or equal to 0']]), 'negative', neg);
  const name = await post(quota('name', { hard: { foo: '1' } }));
  same(
    body(name, S.names),
    invalid('name', [
      ['FieldValueInvalid', 'spec.hard[foo]', 'Invalid value: "foo": must be a standard resource type or fully qualified'],
      ['FieldValueInvalid', 'spec.hard[foo]', 'Invalid value: "foo": must be a standard resource for quota'],
    ]),
    'resource name',
    name,
  );
  const scopes = await post(quota('scopes', { hard: { cpu: '1' }, scopes: ['BestEffort', 'NotBestEffort', 'Bogus'] }));
  const sv = '[]core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Bogus"}';
  same(
    body(scopes, S.names),
    invalid('scopes', [
      ['FieldValueInvalid', 'spec.scopes', `Invalid value: ${sv}: unsupported scope applied to resource`],
      ['FieldValueInvalid', 'spec.scopes', `Invalid value: ${sv}: unsupported scope`],
      ['FieldValueInvalid', 'spec.scopes', `Invalid value: ${sv}: conflicting scopes`],
    ]),
    'scopes',
    scopes,
  );
  const sel = await post(quota('sel', { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }, { scopeName: 'BestEffort', operator: 'In', values: ['x'] }] } }));
  same(
    body(sel, S.names),
    invalid('sel', [
      ['FieldValueRequired', 'spec.scopeSelector.matchExpressions.values', "Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"],
      [
        'FieldValueInvalid',
        'spec.scopeSelector.matchExpressions.operator',
        `Invalid value: "In": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`,
      ],
    ]),
    'scope selector',
    sel,
  );
  for (const n of ['int', 'neg', 'name', 'scopes', 'sel']) assert.is((await S.t.client.request('GET', `${S.C}/${n}`)).status, 404, `${n}: nothing stored`);
});

test('update: scopes immutable; /status validated', async () => {
  const c = await post(quota('sc', { hard: { pods: '5' }, scopes: ['NotTerminating'] }));
  assert.is(c.status, 201, show(c));
  const u = await merge(`${S.C}/sc`, { spec: { scopes: ['Terminating'] } });
  same(body(u, S.names), invalid('sc', [['FieldValueInvalid', 'spec.scopes', 'Invalid value: []core.ResourceQuotaScope{"Terminating"}: field is immutable']]), 'scopes immutable', u);
  const st = await merge(`${S.C}/sc/status`, { status: { used: { pods: '-1' } } });
  same(body(st, S.names), invalid('sc', [['FieldValueInvalid', 'status.used[pods]', 'Invalid value: "-1": must be greater than or equal to 0']]), 'status validated', st);
});

test('Table as printResourceQuota; Protobuf; delete returns the object', async () => {
  const tb = await table(S.t, `${S.C}/ok`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Age', 'string', '', 0],
    ['Request', 'string', '', 0],
    ['Limit', 'string', '', 0],
  ]);
  assert.equal(tb.rows, [['ok', 'pods: 2/10, requests.memory: 0/1Gi', 'limits.cpu: 500m/2']]);
  await protobufRoundTrip(S.t, `${S.C}/ok`);
  const d = await S.t.client.request('DELETE', `${S.C}/sc`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'ResourceQuota', show(d));
});

test.run();
