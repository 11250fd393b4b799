/**
 * StatefulSet (apps/v1) as kube-apiserver 1.24 serves it: defaults (OrderedReady, RollingUpdate
 * with partition 0, the template's pod defaults, claim templates defaulted and written with
 * apiVersion/kind), fields of disabled gates dropped (maxUnavailable,
 * persistentVolumeClaimRetentionPolicy), ValidateStatefulSet's messages (no pod spec validation in
 * 1.24), the update rule (only replicas, template, updateStrategy, minReadySeconds and the PVC
 * policy may change), `/status`, `/scale`, the Table (printStatefulSet) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/apps-statefulsets.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-apps/kubeconfig node --import tsx test/run.ts test/fidelity/apps-statefulsets.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE, appsSuite, defaultedContainer, defaultedTemplate } from './apps-helpers.ts';
import { show } from '../assertions.ts';
import { body, getProtobuf, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';
import { decodeProtobuf, encodeProtobuf } from '../../internal/http/protobuf.ts';
import { canonicalObject } from '../../internal/decode/body.ts';


const S = appsSuite('statefulsets', 'sts');

const sts = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: { serviceName: name, selector: { matchLabels: { a: name } }, template: { metadata: { labels: { a: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
});
const post = (b: unknown) => S.post(b);
const invalidSts = (name: string, causes: Cause[]) => invalidStatus('StatefulSet', name, causes, 'apps');

test('create: defaults, claim templates, gated fields dropped, status reset', async () => {
  const r = await post(
    sts('s1', {
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' },
      updateStrategy: { rollingUpdate: { maxUnavailable: 2 } },
    }),
  );
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    {
      kind: 'StatefulSet',
      apiVersion: 'apps/v1',
      metadata: { name: 's1', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: 's1' } },
        template: defaultedTemplate({ a: 's1' }, [defaultedContainer('c', 'nginx')]),
        volumeClaimTemplates: [
          {
            kind: 'PersistentVolumeClaim',
            apiVersion: 'v1',
            metadata: { name: 'data', creationTimestamp: null },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
            status: { phase: 'Pending' },
          },
        ],
        serviceName: 's1',
        podManagementPolicy: 'OrderedReady',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        revisionHistoryLimit: 10,
      },
      status: { replicas: 0, availableReplicas: 0 },
    },
    'created',
    r,
  );
});

test('ValidateStatefulSet messages; nothing stored', async () => {
  const a = await post(sts('s2', { podManagementPolicy: 'Foo', replicas: -1, minReadySeconds: -2, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'c' } }, spec: { restartPolicy: 'Never', activeDeadlineSeconds: 3, containers: [{ name: 'C', image: '' }] } }, updateStrategy: { type: 'Foo' } }));
  same(
    body(a, S.names),
    invalidSts('s2', [
      ['FieldValueInvalid', 'spec.podManagementPolicy', 'Invalid value: "Foo": must be \'OrderedReady\' or \'Parallel\''],
      ['FieldValueInvalid', 'spec.updateStrategy', 'Invalid value: apps.StatefulSetUpdateStrategy{Type:"Foo", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}: must be \'RollingUpdate\' or \'OnDelete\''],
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -2: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"a":"c"}: `selector` does not match template `labels`'],
      ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"'],
      ['FieldValueForbidden', 'spec.template.spec.activeDeadlineSeconds', 'Forbidden: activeDeadlineSeconds in StatefulSet is not Supported'],
    ]),
    'many',
    a,
  );
  const b = await post(sts('s3', { selector: {}, template: { spec: { containers: [] } }, updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: -1 } } }));
  same(
    body(b, S.names),
    invalidSts('s3', [
      ['FieldValueInvalid', 'spec.updateStrategy.rollingUpdate', "Invalid value: apps.RollingUpdateStatefulSetStrategy{Partition:-1, MaxUnavailable:(*intstr.IntOrString)(nil)}: only allowed for updateStrategy 'RollingUpdate'"],
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for statefulset'],
    ]),
    'OnDelete with rollingUpdate, empty selector',
    b,
  );
  const { selector: _s, ...noSelector } = sts('s4', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } }).spec;
  const c = await post({ ...sts('s4'), spec: noSelector });
  same(
    body(c, S.names),
    invalidSts('s4', [
      ['FieldValueInvalid', 'spec.updateStrategy.rollingUpdate.partition', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueRequired', 'spec.selector', 'Required value'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"a":"s4"}: `selector` does not match template `labels`'],
    ]),
    'no selector',
    c,
  );
  const d = await post(sts('s5', { selector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } }));
  same(
    body(d, S.names),
    invalidSts('s5', [
      ['FieldValueInvalid', 'spec.selector.matchExpressions[0].operator', 'Invalid value: "Bad": not a valid selector operator'],
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"a", Operator:"Bad", Values:[]string(nil)}}}'],
    ]),
    'bad selector',
    d,
  );
  for (const n of ['s2', 's3', 's4', 's5']) assert.is((await S.t.client.request('GET', `${S.C}/${n}`)).status, 404, n);
});

test('update: only replicas, template, updateStrategy, minReadySeconds may change; generation; /status; /scale', async () => {
  const c = await post(sts('u', { volumeClaimTemplates: [{ metadata: { name: 'd' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }));
  assert.is(c.status, 201, show(c));
  const ok = await S.t.client.request('PATCH', `${S.C}/u`, { body: { spec: { replicas: 3, minReadySeconds: 5, updateStrategy: { type: 'OnDelete', rollingUpdate: null } } }, contentType: MERGE });
  assert.is(ok.status, 200, show(ok));
  assert.is((ok.json as any).metadata.generation, 2);
  const bad = await S.t.client.request('PATCH', `${S.C}/u`, { body: { spec: { serviceName: 'other', revisionHistoryLimit: 3 } }, contentType: MERGE });
  same(
    body(bad, S.names),
    invalidSts('u', [['FieldValueForbidden', 'spec', "Forbidden: updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"]]),
    'forbidden spec update',
    bad,
  );
  const cur = ok.json as any;
  const st = await S.t.client.request('PUT', `${S.C}/u/status`, { body: { ...cur, spec: { ...cur.spec, replicas: 1 }, status: { replicas: 3, readyReplicas: 2, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 2, observedGeneration: 2, collisionCount: 1 } } });
  assert.is(st.status, 200, show(st));
  assert.is((st.json as any).spec.replicas, 3, 'spec kept');
  const sbad = await S.t.client.request('PATCH', `${S.C}/u/status`, { body: { status: { readyReplicas: 4, availableReplicas: 3, collisionCount: 0 } }, contentType: MERGE });
  same(
    body(sbad, S.names),
    invalidSts('u', [
      ['FieldValueInvalid', 'status.readyReplicas', 'Invalid value: 4: cannot be greater than status.replicas'],
      ['FieldValueInvalid', 'status.collisionCount', 'Invalid value: 0: cannot be decremented'],
    ]),
    'status validation',
    sbad,
  );
  const sc = await S.t.client.request('GET', `${S.C}/u/scale`);
  same(body(sc, S.names), { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'u', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' }, spec: { replicas: 3 }, status: { replicas: 3, selector: 'a=u' } }, 'scale', sc);
  const up = await S.t.client.request('PUT', `${S.C}/u/scale`, { body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'u' }, spec: { replicas: 1 } } });
  assert.is(up.status, 200, show(up));
  assert.is((await S.t.client.request('GET', `${S.C}/u`)).json.spec.replicas, 1);
});

test('Table (printStatefulSet) and Protobuf', async () => {
  await post(sts('tb', { replicas: 2 }));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtb`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Ready', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['Containers', 'string', '', 1],
    ['Images', 'string', '', 1],
  ]);
  assert.equal(tb.rows, [['tb', '0/2', 'c', 'nginx']]);
  await protobufRoundTrip(S.t, `${S.C}/tb`);
  // A claim template's TypeMeta is not in the Protobuf message (only the v1 JSON conversion adds it).
  const json = (await S.t.client.request('GET', `${S.C}/u`)).json as any;
  const bytes = await getProtobuf(S.t, `${S.C}/u`);
  const decoded = canonicalObject(decodeProtobuf(bytes).object, { group: 'apps', version: 'v1', kind: 'StatefulSet' }) as any;
  assert.equal(decoded.spec.volumeClaimTemplates, json.spec.volumeClaimTemplates.map(({ kind: _k, apiVersion: _a, ...rest }: any) => rest));
  decoded.spec.volumeClaimTemplates = json.spec.volumeClaimTemplates;
  assert.equal(decoded, json, 'the rest decodes to the JSON');
  assert.ok(encodeProtobuf(json).equals(bytes), 'the JSON re-encodes to the same bytes');
});

test.run();
