/**
 * LimitRange (core/v1) as kube-apiserver 1.24 serves it: SetDefaults_LimitRangeItem (a
 * Container item's default from max, defaultRequest from default then min; sub-milli values
 * rounded up), ValidateLimitRange's messages (quantities printed as Go's %#v), PUT that creates,
 * delete answering a Status, kube's default Table, the `limits` short name, Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/limitranges.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/limitranges.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const S = namespacedSuite(test, 'limitrange', 'limitranges');

const limitRange = (name: string, limits: unknown[]) => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name }, spec: { limits } });
const post = (b: unknown) => S.t.client.request('POST', S.C, { body: b });
const q = (value: number, scale: number, s: string, format = 'DecimalSI') =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;

const invalid = (name: string, causes: Cause[]) => invalidStatus('LimitRange', name, causes, '');

test('create: a Container item defaulted from max and min, sub-milli rounded up; a Pod item untouched', async () => {
  const r = await post(
    limitRange('ok', [
      { type: 'Container', min: { cpu: '100m' }, max: { cpu: '2', memory: '1Gi' }, defaultRequest: { memory: '0.5001m' } },
      { type: 'Pod', max: { memory: '2Gi' } },
    ]),
  );
  assert.is(r.status, 201, show(r));
  const g = await S.t.client.request('GET', `${S.C}/ok`);
  same(
    body(g, S.names),
    {
      kind: 'LimitRange',
      apiVersion: 'v1',
      metadata: { name: 'ok', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' }, default: { cpu: '2', memory: '1Gi' }, defaultRequest: { cpu: '2', memory: '1m' } },
          { type: 'Pod', max: { memory: '2Gi' } },
        ],
      },
    },
    'get',
    g,
  );
});

test('create: ValidateLimitRange messages, nothing stored', async () => {
  const r = await post(
    limitRange('bad', [
      { type: 'Container', min: { cpu: '2' }, max: { cpu: '1' } },
      { type: 'Container' },
      { type: 'Foo', max: { 'foo/bar': '1' } },
      { type: 'Pod', default: { cpu: '1' } },
      { type: 'PersistentVolumeClaim', max: { cpu: '1' } },
    ]),
  );
  same(
    body(r, S.names),
    invalid('bad', [
      ['FieldValueInvalid', 'spec.limits[0].min[cpu]', `Invalid value: ${q(2, 0, '2')}: min value 2 is greater than max value 1`],
      ['FieldValueInvalid', 'spec.limits[0].defaultRequest[cpu]', `Invalid value: ${q(1, 0, '1')}: min value 2 is greater than default request value 1`],
      ['FieldValueInvalid', 'spec.limits[0].default[cpu]', `Invalid value: ${q(2, 0, '2')}: min value 2 is greater than default value 1`],
      ['FieldValueDuplicate', 'spec.limits[1].type', 'Duplicate value: "Container"'],
      ['FieldValueInvalid', 'spec.limits[2].type', 'Invalid value: "Foo": must be a standard limit type or fully qualified'],
      ['FieldValueForbidden', 'spec.limits[3].default', "Forbidden: may not be specified when `type` is 'Pod'"],
      ['FieldValueRequired', 'spec.limits[4].limits', 'Required value: either minimum or maximum storage value is required, but neither was provided'],
    ]),
    'invalid',
    r,
  );
  const ratio = await post(limitRange('ratio', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '500m' } }]));
  same(body(ratio, S.names), invalid('ratio', [['FieldValueInvalid', 'spec.limits[0].maxLimitRequestRatio[cpu]', `Invalid value: ${q(500, -3, '500m')}: ratio 500m is less than 1`]]), 'ratio < 1', ratio);
  const big = await post(limitRange('big', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '20' } }]));
  same(body(big, S.names), invalid('big', [['FieldValueInvalid', 'spec.limits[0].maxLimitRequestRatio[cpu]', `Invalid value: ${q(20, 0, '20')}: ratio 20 is greater than max/min = 10.000000`]]), 'ratio > max/min', big);
  const names2 = await post(limitRange('names', [{ type: 'Container', max: { pods: '1' } }, { type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { bogus: '1' } }]));
  same(
    body(names2, S.names),
    invalid('names', [
      ['FieldValueInvalid', 'spec.limits[0].max[pods]', 'Invalid value: "pods": must be a standard resource for containers'],
      // defaulting copied max into default and defaultRequest first
      ['FieldValueInvalid', 'spec.limits[0].default[pods]', 'Invalid value: "pods": must be a standard resource for containers'],
      ['FieldValueInvalid', 'spec.limits[0].defaultRequest[pods]', 'Invalid value: "pods": must be a standard resource for containers'],
      ['FieldValueInvalid', 'spec.limits[1].max[bogus]', 'Invalid value: "bogus": must be a standard resource type or fully qualified'],
    ]),
    'resource names',
    names2,
  );
  for (const n of ['bad', 'ratio', 'big', 'names']) assert.is((await S.t.client.request('GET', `${S.C}/${n}`)).status, 404, `${n}: nothing stored`);
});

test('PUT creates; delete answers a Status; default Table; short name in discovery; Protobuf', async () => {
  const c = await S.t.client.request('PUT', `${S.C}/put`, { body: limitRange('put', [{ type: 'Pod', max: { cpu: '4' } }]) });
  assert.is(c.status, 201, show(c));
  const tb = await table(S.t, `${S.C}/put`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Created At', 'date', '', 0],
  ]);
  await protobufRoundTrip(S.t, `${S.C}/ok`);
  const d = await S.t.client.request('DELETE', `${S.C}/put`);
  assert.is(d.status, 200, show(d));
  same(body(d, S.names), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'put', kind: 'limitranges', uid: '<uid>' } }, 'delete', d);
  const disc = (await S.t.client.request('GET', '/api/v1')).json as any;
  assert.equal(
    disc.resources.find((x: any) => x.name === 'limitranges'),
    { name: 'limitranges', singularName: '', namespaced: true, kind: 'LimitRange', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['limits'], storageVersionHash: 'EBKMFVe6cwo=' },
  );
});

test.run();
