/**
 * ReplicationController (core/v1) as kube-apiserver 1.24 serves it: selector, labels and replicas
 * defaulted from the template, the template's PodSpec defaults, status reset on create and kept
 * on update, generation bumped on spec changes, `/status` keeping spec, ValidateReplicationController's
 * messages (each spec error twice on update, as kube), the `status.replicas` field selector,
 * v1 deletes orphaning by default, the Table (printReplicationController), Protobuf, `/scale`
 * (autoscaling/v1 Scale, the selector as labels.SelectorFromSet's text) and its discovery entry.
 * No controller runs here: nothing creates Pods.
 *
 *   node --import tsx test/run.ts test/fidelity/replicationcontrollers.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/replicationcontrollers.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const S = namespacedSuite(test, 'rc', 'replicationcontrollers');

const rc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec });
const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec } });
const post = (b: unknown) => S.t.client.request('POST', S.C, { body: b });
const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });

const invalid = (name: string, causes: Cause[]) => invalidStatus('ReplicationController', name, causes, '');

test('create: selector, labels and replicas from the template; status {replicas: 0}; generation 1', async () => {
  const r = await post(rc('rc1', { template: template({ app: 'a' }), status: { replicas: 5 } }));
  assert.is(r.status, 201, show(r));
  const g = await S.t.client.request('GET', `${S.C}/rc1`);
  same(
    body(g, S.names),
    {
      kind: 'ReplicationController',
      apiVersion: 'v1',
      metadata: { name: 'rc1', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', labels: { app: 'a' } },
      spec: {
        replicas: 1,
        selector: { app: 'a' },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'a' } },
          spec: {
            containers: [{ name: 'c', image: 'nginx', resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }],
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 30,
            dnsPolicy: 'ClusterFirst',
            securityContext: {},
            schedulerName: 'default-scheduler',
          },
        },
      },
      status: { replicas: 0 },
    },
    'get',
    g,
  );
});

test('create: ValidateReplicationController messages, nothing stored', async () => {
  const r = await post(rc('bad', { replicas: -1, minReadySeconds: -2, selector: { app: 'b' }, template: template({ app: 'a' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }) }));
  same(
    body(r, S.names),
    invalid('bad', [
      ['FieldValueInvalid', 'spec.minReadySeconds', 'Invalid value: -2: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.template.metadata.labels', 'Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`'],
      ['FieldValueNotSupported', 'spec.template.spec.restartPolicy', 'Unsupported value: "Never": supported values: "Always"'],
      ['FieldValueForbidden', 'spec.template.spec.activeDeadlineSeconds', 'Forbidden: activeDeadlineSeconds in ReplicationController is not Supported'],
    ]),
    'invalid',
    r,
  );
  const nt = await post(rc('nt', {}));
  same(
    body(nt, S.names),
    invalid('nt', [
      ['FieldValueRequired', 'spec.selector', 'Required value'],
      ['FieldValueRequired', 'spec.template', 'Required value'],
    ]),
    'no template',
    nt,
  );
  for (const n of ['bad', 'nt']) assert.is((await S.t.client.request('GET', `${S.C}/${n}`)).status, 404, `${n}: nothing stored`);
});

test('update: status kept, generation on spec change, spec errors listed twice; /status writes status only', async () => {
  const l = await merge(`${S.C}/rc1`, { metadata: { labels: { x: 'y' } }, status: { replicas: 3 } });
  assert.is(l.status, 200, show(l));
  assert.is((l.json as any).metadata.generation, 1, 'metadata change: same generation');
  assert.equal((l.json as any).status, { replicas: 0 }, 'status kept');
  const u = await merge(`${S.C}/rc1`, { spec: { replicas: 3 } });
  assert.is((u.json as any).metadata.generation, 2, show(u));
  const bad = await merge(`${S.C}/rc1`, { spec: { replicas: -1 } });
  same(
    body(bad, S.names),
    invalid('rc1', [
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
      ['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0'],
    ]),
    'update errors twice',
    bad,
  );
  const st = await merge(`${S.C}/rc1/status`, { spec: { replicas: 9 }, status: { replicas: 3, readyReplicas: 2, availableReplicas: 1 } });
  assert.is(st.status, 200, show(st));
  assert.equal((st.json as any).status, { replicas: 3, readyReplicas: 2, availableReplicas: 1 });
  assert.is((st.json as any).spec.replicas, 3, '/status keeps spec');
  const sbad = await merge(`${S.C}/rc1/status`, { status: { replicas: 1, readyReplicas: 2, availableReplicas: 1 } });
  same(body(sbad, S.names), invalid('rc1', [['FieldValueInvalid', 'status.readyReplicas', 'Invalid value: 2: cannot be greater than status.replicas']]), 'status validated', sbad);
});

test('status.replicas field selector; Table as printReplicationController; Protobuf', async () => {
  const sel = await S.t.client.request('GET', `${S.C}?fieldSelector=status.replicas%3D3`);
  assert.equal((sel.json as any).items.map((i: any) => i.metadata.name), ['rc1'], show(sel));
  const none = await S.t.client.request('GET', `${S.C}?fieldSelector=status.replicas%3D0`);
  assert.equal((none.json as any).items, [], show(none));
  const tb = await table(S.t, `${S.C}/rc1`);
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
  assert.is(tb.descriptions[1], 'Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller');
  assert.equal(tb.rows, [['rc1', 3, 3, 2, 'c', 'nginx', 'app=a']]);
  await protobufRoundTrip(S.t, `${S.C}/rc1`);
});

test('delete: v1 orphans by default (the orphan finalizer), a Status-less answer of the object', async () => {
  const c = await post(rc('del', { template: template({ app: 'd' }) }));
  assert.is(c.status, 201, show(c));
  const d = await S.t.client.request('DELETE', `${S.C}/del`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'ReplicationController', show(d));
  assert.equal((d.json as any).metadata.finalizers, ['orphan'], show(d));
});

test('/scale: autoscaling/v1 Scale get, update, merge patch, ValidateScale, stale resourceVersion; the RC follows; discovery', async () => {
  const c = await post(rc('sc', { replicas: 2, selector: { tier: 'x', app: 's' }, template: template({ app: 's', tier: 'x' }) }));
  assert.is(c.status, 201, show(c));
  const scale = (replicas: number | undefined) => ({
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'sc', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
    spec: replicas ? { replicas } : {},
    status: { replicas: 0, selector: 'app=s,tier=x' },
  });
  const g = await S.t.client.request('GET', `${S.C}/sc/scale`);
  same(body(g, S.names), scale(2), 'get scale', g);
  const cur = g.json as any;
  const u = await S.t.client.request('PUT', `${S.C}/sc/scale`, { body: { ...cur, spec: { replicas: 3 } } });
  same(body(u, S.names), scale(3), 'put scale', u);
  const r = await S.t.client.request('GET', `${S.C}/sc`);
  assert.is((r.json as any).spec.replicas, 3, show(r));
  assert.is((r.json as any).metadata.generation, 2, 'a scale bumps generation');
  const p = await merge(`${S.C}/sc/scale`, { spec: { replicas: 0 } });
  same(body(p, S.names), scale(undefined), 'patch to 0', p);
  const neg = await merge(`${S.C}/sc/scale`, { spec: { replicas: -1 } });
  same(body(neg, S.names), invalidStatus('Scale', 'sc', [['FieldValueInvalid', 'spec.replicas', 'Invalid value: -1: must be greater than or equal to 0']], 'autoscaling'), 'negative', neg);
  const stale = await S.t.client.request('PUT', `${S.C}/sc/scale`, { body: { ...cur, spec: { replicas: 4 } } });
  assert.is(stale.status, 409, show(stale));
  assert.is((stale.json as any).message, 'Operation cannot be fulfilled on replicationcontrollers "sc": the object has been modified; please apply your changes to the latest version and try again');
  const missing = await S.t.client.request('GET', `${S.C}/nope/scale`);
  assert.is(missing.status, 404, show(missing));
  assert.is((missing.json as any).message, 'replicationcontrollers/scale.autoscaling "nope" not found');
  const disc = await S.t.client.request('GET', '/api/v1');
  const entry = (disc.json as any).resources.find((x: any) => x.name === 'replicationcontrollers/scale');
  assert.equal(entry, { name: 'replicationcontrollers/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] }, show(disc));
});

test.run();
