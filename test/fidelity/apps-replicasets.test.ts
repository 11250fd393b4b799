/**
 * ReplicaSet (apps/v1) as kube-apiserver 1.24 serves it: defaults (replicas 1, the template's pod
 * defaults), status reset to {replicas: 0}, ValidateReplicaSet's messages (an update lists spec
 * errors twice, as ValidateReplicaSetUpdate repeats the spec checks), the selector immutable,
 * `/status`, `/scale`, no `status.replicas` field selector in apps/v1, the Table (printReplicaSet) and
 * Protobuf. No controller runs: no Pods appear.
 *
 *   node --import tsx test/run.ts test/fidelity/apps-replicasets.test.ts
 *   TEST_KUBECONFIG=/tmp/ref-apps/kubeconfig node --import tsx test/run.ts test/fidelity/apps-replicasets.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MERGE, appsSuite, defaultedContainer, defaultedTemplate } from './apps-helpers.ts';
import { show } from '../assertions.ts';
import { body, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';


const S = appsSuite('replicasets', 'rs');

const rs = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } }, ...spec },
});
const post = (b: unknown) => S.post(b);
const invalidRS = (name: string, causes: Cause[]) => invalidStatus('ReplicaSet', name, causes, 'apps');

test('create: replicas 1, template defaults, status {replicas: 0}, generation 1', async () => {
  const r = await post({ ...rs('one'), status: { replicas: 3 } });
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    {
      kind: 'ReplicaSet',
      apiVersion: 'apps/v1',
      metadata: { name: 'one', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'one' } },
        template: defaultedTemplate({ app: 'one' }, [defaultedContainer('c', 'nginx:1.25', 'IfNotPresent')]),
      },
      status: { replicas: 0 },
    },
    'created',
    r,
  );
});

test('validation on create and update (spec errors twice), selector immutable; nothing stored', async () => {
  const bad = await post(rs('bad', { replicas: 2, minReadySeconds: -1, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'bad' } }, spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'pd', gcePersistentDisk: { pdName: 'disk' } }] } } }));
  same(
    body(bad, S.names),
    invalidRS('bad', [
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"bad"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.template.spec.volumes[0].gcePersistentDisk.readOnly', 'Invalid value: false: must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'],
    ]),
    'create',
    bad,
  );
  assert.is((await S.t.client.request('GET', `${S.C}/bad`)).status, 404);
  const c = await post(rs('upd'));
  assert.is(c.status, 201, show(c));
  const u = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { spec: { replicas: -2, selector: { matchLabels: { app: 'upd', x: 'y' } } } }, contentType: MERGE });
  same(
    body(u, S.names),
    invalidRS('upd', [
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -2: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"upd"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -2: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"upd"}: `selector` does not match template `labels`'],
      ['FieldValueInvalid', 'spec.selector', 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"upd", "x":"y"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable'],
    ]),
    'update',
    u,
  );
  const a = await S.t.client.request('PATCH', `${S.C}/upd`, { body: { metadata: { annotations: { a: 'b' } } }, contentType: MERGE });
  assert.is((a.json as any).metadata.generation, 1, 'annotations do not bump a ReplicaSet generation');
});

test('/status keeps spec, ValidateReplicaSetStatus; /scale; status.replicas field selector', async () => {
  const c = await post(rs('st', { replicas: 3 }));
  const cur = c.json as any;
  const u = await S.t.client.request('PUT', `${S.C}/st/status`, { body: { ...cur, metadata: { ...cur.metadata, labels: { l: 'v' } }, spec: { ...cur.spec, replicas: 9 }, status: { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 1 } } });
  assert.is(u.status, 200, show(u));
  assert.is((u.json as any).spec.replicas, 3);
  assert.equal((u.json as any).metadata.labels, { l: 'v' }, 'a ReplicaSet status write may change labels');
  assert.equal((u.json as any).status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 1 });
  const bad = await S.t.client.request('PATCH', `${S.C}/st/status`, { body: { status: { fullyLabeledReplicas: 4, availableReplicas: 3, observedGeneration: -1 } }, contentType: MERGE });
  same(
    body(bad, S.names),
    invalidRS('st', [
      ['FieldValueInvalid', 'status.observedGeneration', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'status.fullyLabeledReplicas', 'Invalid value: 4: cannot be greater than status.replicas'],
      ['FieldValueInvalid', 'status.availableReplicas', 'Invalid value: 3: cannot be greater than readyReplicas'],
    ]),
    'status validation',
    bad,
  );
  const sc = await S.t.client.request('PATCH', `${S.C}/st/scale`, { body: { spec: { replicas: 5 } }, contentType: MERGE });
  assert.is(sc.status, 200, show(sc));
  same(body(sc, S.names), { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'st', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' }, spec: { replicas: 5 }, status: { replicas: 3, selector: 'app=st' } }, 'scale', sc);
  // apps/v1 has no field label conversion: only metadata's fields select (the internal status.replicas is unreachable).
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=status.replicas%3D3`);
  assert.is(l.status, 400, show(l));
  assert.is((l.json as any).message, '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"');
});

test('Table (printReplicaSet) and Protobuf', async () => {
  await post(rs('tb', { replicas: 2 }));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtb`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Desired', 'integer', '', 0],
    ['Current', 'integer', '', 0],
    ['Ready', 'integer', '', 0],
    ['Age', 'string', '', 0],
    ['Containers', 'string', '', 1],
    ['Images', 'string', '', 1],
    ['Selector', 'string', '', 1],
  ]);
  assert.equal(tb.rows, [['tb', 2, 0, 0, 'c', 'nginx:1.25', 'app=tb']]);
  await protobufRoundTrip(S.t, `${S.C}/tb`);
});

test.run();
