/**
 * DaemonSet (apps/v1) as kube-apiserver 1.24 serves it: defaults (RollingUpdate 1/0, history 10,
 * template pod defaults), the `deprecated.daemonset.template.generation` annotation (1 on create,
 * kept, incremented by a template change, a bad value is a 400), ValidateDaemonSet's messages
 * with DaemonSetUpdateSurge (an update lists spec errors twice), the selector immutable,
 * `/status`, no `/scale`, the Table (printDaemonSet) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/apps-daemonsets.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-apps/kubeconfig node --import tsx test/run.ts test/fidelity/apps-daemonsets.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE, appsSuite, defaultedContainer, defaultedTemplate } from './apps-helpers.ts';
import { show } from '../assertions.ts';
import { body, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const TG = 'deprecated.daemonset.template.generation';

const S = appsSuite('daemonsets', 'ds');

const ds = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name, ...meta },
  spec: { selector: { matchLabels: { a: name } }, template: { metadata: { labels: { a: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
});
const post = (b: unknown) => S.post(b);
const invalidDs = (name: string, causes: Cause[]) => invalidStatus('DaemonSet', name, causes, 'apps');

test('create: defaults, template generation annotation, status reset', async () => {
  const r = await post({ ...ds('d1'), status: { numberReady: 4 } });
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    {
      kind: 'DaemonSet',
      apiVersion: 'apps/v1',
      metadata: { name: 'd1', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', annotations: { [TG]: '1' } },
      spec: {
        selector: { matchLabels: { a: 'd1' } },
        template: defaultedTemplate({ a: 'd1' }, [defaultedContainer('c', 'nginx')]),
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
        revisionHistoryLimit: 10,
      },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    },
    'created',
    r,
  );
  const five = await post(ds('d5', {}, { annotations: { [TG]: '5' } }));
  assert.is((five.json as any).metadata.annotations[TG], '5', show(five));
  const bad = await post(ds('dx', {}, { annotations: { [TG]: 'x' } }));
  assert.is(bad.status, 400, show(bad));
  assert.is((bad.json as any).message, 'DaemonSet in version "v1" cannot be handled as a DaemonSet: strconv.ParseInt: parsing "x": invalid syntax');
});

test('ValidateDaemonSet messages (surge rules); nothing stored', async () => {
  const { selector: _s, ...noSelector } = ds('d2').spec;
  const a = await post({
    ...ds('d2'),
    spec: {
      ...noSelector,
      minReadySeconds: -1,
      revisionHistoryLimit: -1,
      template: { metadata: { labels: { a: 'b' } }, spec: { restartPolicy: 'OnFailure', activeDeadlineSeconds: 1, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'pd', gcePersistentDisk: { pdName: 'x' } }] } },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%', maxSurge: '200%' } },
    },
  });
  same(
    body(a, S.names),
    invalidDs('d2', [
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"a":"b"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.template.spec.volumes[0].gcePersistentDisk.readOnly', 'Invalid value: false: must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'],
      ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "OnFailure": supported values: "Always"'],
      ['FieldValueForbidden', 'spec.template.spec.activeDeadlineSeconds', 'Forbidden: activeDeadlineSeconds in DaemonSet is not Supported'],
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.updateStrategy.rollingUpdate.maxSurge', 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"200%"}: must not be greater than 100%'],
      ['FieldValueInvalid', 'spec.updateStrategy.rollingUpdate.maxSurge', 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"200%"}: may not be set when maxUnavailable is non-zero'],
      ['FieldValueInvalid', 'spec.revisionHistoryLimit', 'Invalid value: -1: must be greater than or equal to 0'],
    ]),
    'many',
    a,
  );
  const b = await post(ds('d3', { selector: {}, template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }));
  same(
    body(b, S.names),
    invalidDs('d3', [
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for daemonset'],
      ['FieldValueRequired', 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'Required value: cannot be 0 when maxSurge is 0'],
    ]),
    'empty selector, 0/0',
    b,
  );
  const c = await post(ds('d4', { updateStrategy: { type: 'Foo', rollingUpdate: { maxSurge: 1 } } }));
  same(
    body(c, S.names),
    invalidDs('d4', [['FieldValueNotSupported', 'spec.updateStrategy', 'Unsupported value: apps.DaemonSetUpdateStrategy{Type:"Foo", RollingUpdate:(*apps.RollingUpdateDaemonSet)(0xPTR)}: supported values: "RollingUpdate", "OnDelete"']]),
    'unknown strategy',
    c,
  );
  for (const n of ['d2', 'd3', 'd4', 'dx']) assert.is((await S.t.client.request('GET', `${S.C}/${n}`)).status, 404, n);
});

test('update: template generation, generation, spec errors twice, selector immutable; /status; no /scale', async () => {
  const c = await post(ds('u'));
  assert.is(c.status, 201, show(c));
  const same1 = await S.t.client.request('PATCH', `${S.C}/u`, { body: { metadata: { annotations: { [TG]: '7' } }, spec: { minReadySeconds: 3 } }, contentType: MERGE });
  assert.is(same1.status, 200, show(same1));
  assert.equal([(same1.json as any).metadata.generation, (same1.json as any).metadata.annotations[TG]], [2, '1'], 'spec change: generation 2, template generation kept');
  const tpl = await S.t.client.request('PATCH', `${S.C}/u`, { body: { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:2' }] } } } }, contentType: MERGE });
  assert.equal([(tpl.json as any).metadata.generation, (tpl.json as any).metadata.annotations[TG]], [3, '2'], 'template change: both incremented');
  const bad = await S.t.client.request('PATCH', `${S.C}/u`, { body: { spec: { minReadySeconds: -1, selector: { matchLabels: { a: 'u', b: 'c' } } } }, contentType: MERGE });
  same(
    body(bad, S.names),
    invalidDs('u', [
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"a":"u"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"a":"u"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"u", "b":"c"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    ]),
    'update errors',
    bad,
  );
  const st = await S.t.client.request('PATCH', `${S.C}/u/status`, { body: { metadata: { annotations: { [TG]: '9' } }, spec: { minReadySeconds: 9 }, status: { desiredNumberScheduled: 2, currentNumberScheduled: 1, numberReady: 1, collisionCount: 2 } }, contentType: MERGE });
  assert.is(st.status, 200, show(st));
  assert.equal([(st.json as any).spec.minReadySeconds, (st.json as any).metadata.annotations[TG]], [3, '2'], 'spec and template generation kept');
  assert.equal((st.json as any).status, { currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 1, collisionCount: 2 });
  const sbad = await S.t.client.request('PATCH', `${S.C}/u/status`, { body: { status: { numberReady: -1, collisionCount: 1 } }, contentType: MERGE });
  same(
    body(sbad, S.names),
    invalidDs('u', [
      ['FieldValueInvalid', 'status.numberReady', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.collisionCount', 'Invalid value: 1: cannot be decremented'],
    ]),
    'status validation',
    sbad,
  );
  const sc = await S.t.client.request('GET', `${S.C}/u/scale`);
  assert.is(sc.status, 404, show(sc));
});

test('Table (printDaemonSet) and Protobuf', async () => {
  await post(ds('tb', { template: { metadata: { labels: { a: 'tb' } }, spec: { nodeSelector: { z: '1', b: '2' }, containers: [{ name: 'c', image: 'nginx' }] } } }));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtb`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Desired', 'integer', '', 0],
    ['Current', 'integer', '', 0],
    ['Ready', 'integer', '', 0],
    ['Up-to-date', 'integer', '', 0],
    ['Available', 'integer', '', 0],
    ['Node Selector', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['Containers', 'string', '', 1],
    ['Images', 'string', '', 1],
    ['Selector', 'string', '', 1],
  ]);
  assert.equal(tb.rows, [['tb', 0, 0, 0, 0, 0, 'b=2,z=1', 'c', 'nginx', 'a=tb']]);
  await protobufRoundTrip(S.t, `${S.C}/tb`);
});

test.run();
