/**
 * ControllerRevision (apps/v1) as kube-apiserver 1.24 serves it: data kept as written (a
 * RawExtension), ValidateControllerRevision's messages, data immutable on update (kube echoes the
 * new data as a runtime.Unknown), no generation or status, the Table (printControllerRevision:
 * the controller owner as `<kind>.<group>/<name>`) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/apps-controllerrevisions.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-apps/kubeconfig node --import tsx test/run.ts test/fidelity/apps-controllerrevisions.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE, appsSuite } from './apps-helpers.ts';
import { show } from '../assertions.ts';
import { body, invalidStatus, protobufRoundTrip, same, table } from './storage-helpers.ts';


const S = appsSuite('controllerrevisions', 'cr');

// The owner exists (this server runs a garbage collector, which deletes dependents of a missing owner).
const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: '', controller: true };
test.before(async () => {
  const labels = { app: 'web' };
  const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' }, spec: { serviceName: 'web', selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } };
  const r = await S.t.client.request('POST', `/apis/apps/v1/namespaces/${S.ns}/statefulsets`, { body: sts });
  assert.is(r.status, 201, show(r));
  owner.uid = (JSON.parse(r.text) as { metadata: { uid: string } }).metadata.uid;
});
const rev = (name: string, fields: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name, ...meta }, ...fields });
const post = (b: unknown) => S.post(b);

test('create keeps data; validation messages; data immutable; delete answers a Status', async () => {
  const r = await post(rev('c1', { data: { spec: { x: 1 } }, revision: 3 }, { ownerReferences: [owner] }));
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    {
      kind: 'ControllerRevision',
      apiVersion: 'apps/v1',
      metadata: { name: 'c1', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', ownerReferences: [{ ...owner, uid: '<uid>' }] },
      data: { spec: { x: 1 } },
      revision: 3,
    },
    'created',
    r,
  );
  const bad = await post(rev('c2', { revision: -1 }));
  same(
    body(bad, S.names),
    invalidStatus(
      'ControllerRevision',
      'c2',
      [
        ['FieldValueRequired', 'data', 'Required value: data is mandatory'],
        ['FieldValueInvalid', 'revision', 'Invalid value: -1: must be greater than or equal to 0'],
      ],
      'apps',
    ),
    'invalid',
    bad,
  );
  const p = await S.t.client.request('PATCH', `${S.C}/c1`, { body: { data: { spec: { x: 2 } }, revision: 4 }, contentType: MERGE });
  same(
    body(p, S.names),
    invalidStatus(
      'ControllerRevision',
      'c1',
      [
        [
          'FieldValueInvalid',
          'data',
          'Invalid value: runtime.Unknown{TypeMeta:runtime.TypeMeta{APIVersion:"", Kind:""}, Raw:[]uint8{0x7b, 0x22, 0x73, 0x70, 0x65, 0x63, 0x22, 0x3a, 0x7b, 0x22, 0x78, 0x22, 0x3a, 0x32, 0x7d, 0x7d}, ContentEncoding:"", ContentType:"application/json"}: field is immutable',
        ],
      ],
      'apps',
    ),
    'data immutable',
    p,
  );
  const ok = await S.t.client.request('PATCH', `${S.C}/c1`, { body: { revision: 4, metadata: { labels: { l: 'v' } } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  assert.is((ok.json as any).revision, 4);
  assert.is((ok.json as any).metadata.generation, undefined);
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dc1`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Controller', 'string', '', 0],
    ['Revision', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.equal(tb.rows, [['c1', 'statefulset.apps/web', 4]]);
  await protobufRoundTrip(S.t, `${S.C}/c1`);
  await post(rev('c3', { data: { a: [1, 'b', null] } }));
  const none = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dc3`);
  assert.equal(none.rows, [['c3', '<none>', 0]]);
  await protobufRoundTrip(S.t, `${S.C}/c3`);
  const d = await S.t.client.request('DELETE', `${S.C}/c3`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status');
  assert.equal((d.json as any).details, { name: 'c3', group: 'apps', kind: 'controllerrevisions', uid: (d.json as any).details.uid });
});

test.run();
