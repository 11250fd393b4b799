/**
 * HorizontalPodAutoscaler in autoscaling/v1, v2, v2beta1 and v2beta2 as kube-apiserver 1.24
 * serves it: one object created in each version (defaults, the status reset), then read in every
 * version (the conversions: v1's round-trip annotations, v2beta1's targetAverageValue /
 * targetAverageUtilization and behavior annotation, the CPU metric moved last, the 80% default);
 * status written through /status in v2 and v2beta1 and read back everywhere (current metrics and
 * conditions through v1's annotations); updates in v1 keeping what only v2 holds; validation
 * Status bodies; deprecation Warnings; list, Table, Protobuf, watch and delete.
 *
 * Every answer (status code, Warning header, body bytes with uid, resourceVersion, times and the
 * namespace masked) is compared with test/fidelity/golden/autoscaling-hpa.json, recorded from the
 * reference; the suite checks the reference against the file too. Regenerate it with:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/autoscaling-hpa.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { getProtobuf, protobufRoundTrip, watchEvents } from './storage-helpers.ts';
import { checkGolden, masked } from './autoscaling-helpers.ts';

const GOLDEN = new URL('./golden/autoscaling-hpa.json', import.meta.url);
const VERSIONS = ['v1', 'v2', 'v2beta1', 'v2beta2'] as const;
type Version = (typeof VERSIONS)[number];
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

let t: Target;
let ns = '';
const got: Record<string, string> = {};

const path = (v: string, name = '', sub = ''): string => `/apis/autoscaling/${v}/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;

function record(label: string, r: HttpResult): HttpResult {
  assert.not.ok(label in got, `duplicate label ${label}`);
  got[label] = masked(r, ns);
  return r;
}

const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const selector = { matchLabels: { tier: 'front' } };

/** A rich object of each version (what each can say), and a bare one (defaults only). */
const MANIFESTS: Record<Version, (name: string) => Record<string, unknown>> = {
  v1: (name) => ({
    metadata: {
      name,
      labels: { app: 'web' },
      annotations: {
        note: 'kept',
        'autoscaling.alpha.kubernetes.io/metrics': JSON.stringify([
          { type: 'Pods', pods: { metricName: 'packets', targetAverageValue: '1000m', selector } },
          { type: 'External', external: { metricName: 'queue', targetValue: '30' } },
        ]),
        'autoscaling.alpha.kubernetes.io/behavior': '{"ScaleDown":{"StabilizationWindowSeconds":60,"Policies":[{"Type":"Pods","Value":2,"PeriodSeconds":30}]}}',
        'autoscaling.alpha.kubernetes.io/conditions': '[{"type":"AbleToScale","status":"True"}]',
      },
    },
    spec: { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 8, targetCPUUtilizationPercentage: 60 },
    status: { currentReplicas: 3, desiredReplicas: 3 },
  }),
  v2: (name) => ({
    metadata: { name, annotations: { note: 'kept' } },
    spec: {
      scaleTargetRef: ref,
      maxReplicas: 10,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        { type: 'Pods', pods: { metric: { name: 'packets', selector }, target: { type: 'AverageValue', averageValue: '1k' } } },
        { type: 'Object', object: { describedObject: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', name: 'main' }, metric: { name: 'rps' }, target: { type: 'Value', value: '10k' } } },
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } } },
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: 300, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
    },
  }),
  v2beta1: (name) => ({
    metadata: { name, annotations: { 'autoscaling.alpha.kubernetes.io/behavior': '{"ScaleUp":{"SelectPolicy":"Min","Policies":[{"Type":"Percent","Value":50,"PeriodSeconds":60}]}}' } },
    spec: {
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Object', object: { target: { kind: 'Service', name: 'svc' }, metricName: 'hits', targetValue: '2', averageValue: '500m' } },
        { type: 'Resource', resource: { name: 'memory', targetAverageValue: '1Gi' } },
        { type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 70 } },
      ],
    },
  }),
  v2beta2: (name) => ({
    metadata: { name },
    spec: {
      scaleTargetRef: ref,
      minReplicas: 3,
      maxReplicas: 4,
      metrics: [{ type: 'External', external: { metric: { name: 'lag', selector }, target: { type: 'Value', value: '100' } } }],
      behavior: { scaleUp: { stabilizationWindowSeconds: 10 } },
    },
  }),
};

const hpa = (v: string, fields: Record<string, unknown>) => ({ apiVersion: `autoscaling/${v}`, kind: 'HorizontalPodAutoscaler', ...fields });

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('hpa');
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('create in each version (rich and bare), read in every version', async () => {
  for (const v of VERSIONS) {
    const rich = `${v}-rich`;
    const r = record(`create ${rich}`, await t.client.request('POST', path(v), { body: hpa(v, MANIFESTS[v](rich)) }));
    assert.is(r.status, 201, show(r));
    const bare = `${v}-bare`;
    const b = record(`create ${bare}`, await t.client.request('POST', path(v), { body: hpa(v, { metadata: { name: bare }, spec: { scaleTargetRef: ref, maxReplicas: 2 } }) }));
    assert.is(b.status, 201, show(b));
  }
  for (const v of VERSIONS) for (const kind of ['rich', 'bare']) for (const rv of VERSIONS) record(`get ${v}-${kind} as ${rv}`, await t.client.request('GET', path(rv, `${v}-${kind}`)));
  // A dry run answers what the write would store, read back (kube's dry-run storage encodes it).
  for (const v of VERSIONS) record(`dry-run create ${v}`, await t.client.request('POST', `${path(v)}?dryRun=All`, { body: hpa(v, MANIFESTS[v]('dry')) }));
  record('dry-run update v2', await t.client.request('PATCH', `${path('v2', 'v2-rich')}?dryRun=All`, { body: { spec: { minReplicas: 3 } }, contentType: 'application/merge-patch+json' }));
});

test('status through /status in v2 and v2beta1, read in every version', async () => {
  const cur = (await t.client.request('GET', path('v2', 'v2-rich'))).json;
  const status = {
    observedGeneration: 1,
    lastScaleTime: '2024-01-02T03:04:05Z',
    currentReplicas: 4,
    desiredReplicas: 5,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '250m', averageUtilization: 65 } } },
      { type: 'Pods', pods: { metric: { name: 'packets' }, current: { averageValue: '900' } } },
      { type: 'Object', object: { metric: { name: 'rps' }, current: { value: '12k' }, describedObject: { kind: 'Ingress', name: 'main' } } },
    ],
    conditions: [
      { type: 'AbleToScale', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z', reason: 'ReadyForNewScale', message: 'ok <now>' },
      { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric' },
    ],
  };
  // A status write cannot change spec (the stored one stays).
  const spec = { ...cur.spec, maxReplicas: 99 };
  record('status v2 put', await t.client.request('PUT', path('v2', 'v2-rich', 'status'), { body: { ...cur, spec, status } }));
  for (const rv of VERSIONS) record(`status v2-rich as ${rv}`, await t.client.request('GET', path(rv, 'v2-rich', 'status')));
  const beta = (await t.client.request('GET', path('v2beta1', 'v2beta1-rich'))).json;
  const betaStatus = {
    currentReplicas: 1,
    desiredReplicas: 2,
    currentMetrics: [
      { type: 'External', external: { metricName: 'queue', currentValue: '7', currentAverageValue: '3500m' } },
      { type: 'Resource', resource: { name: 'cpu', currentAverageUtilization: 20, currentAverageValue: '100m' } },
    ],
    conditions: [{ type: 'ScalingLimited', status: 'True', lastTransitionTime: '2024-01-02T03:04:05Z' }],
  };
  record('status v2beta1 put', await t.client.request('PUT', path('v2beta1', 'v2beta1-rich', 'status'), { body: { ...beta, status: betaStatus } }));
  for (const rv of VERSIONS) record(`status v2beta1-rich as ${rv}`, await t.client.request('GET', path(rv, 'v2beta1-rich')));
  record('status v1 merge patch', await t.client.request('PATCH', path('v1', 'v2beta1-rich', 'status'), { body: { status: { currentReplicas: 2, currentCPUUtilizationPercentage: 33 } }, contentType: 'application/merge-patch+json' }));
  record('status v1 patched as v2', await t.client.request('GET', path('v2', 'v2beta1-rich')));
  record('status negative', await t.client.request('PATCH', path('v2', 'v2-bare', 'status'), { body: { status: { currentReplicas: -1, desiredReplicas: -2 } }, contentType: 'application/merge-patch+json' }));
});

test('updates: v1 keeps what only v2 holds; a v2 object updated in v2beta1 and v2beta2', async () => {
  record('v1 patch maxReplicas', await t.client.request('PATCH', path('v1', 'v2-rich'), { body: { spec: { maxReplicas: 12 } }, contentType: 'application/merge-patch+json' }));
  record('v1 patched as v2', await t.client.request('GET', path('v2', 'v2-rich')));
  // Dropping v1's metrics annotation drops those metrics.
  record(
    'v1 drop metrics annotation',
    await t.client.request('PATCH', path('v1', 'v2-rich'), { body: { metadata: { annotations: { 'autoscaling.alpha.kubernetes.io/metrics': null } } }, contentType: 'application/merge-patch+json' }),
  );
  record('v1 dropped as v2', await t.client.request('GET', path('v2', 'v2-rich')));
  record('v2beta2 behavior patch', await t.client.request('PATCH', path('v2beta2', 'v1-rich'), { body: { spec: { behavior: { scaleUp: { selectPolicy: 'Disabled' } } } }, contentType: 'application/merge-patch+json' }));
  record('v2beta1 put of v2beta2-rich', await t.client.request('PUT', path('v2beta1', 'v2beta2-rich'), { body: { ...(await t.client.request('GET', path('v2beta1', 'v2beta2-rich'))).json, spec: { scaleTargetRef: ref, maxReplicas: 6 } } }));
  record('v2beta1 put as v2', await t.client.request('GET', path('v2', 'v2beta2-rich')));
  record('v2 strategic patch', await t.client.request('PATCH', path('v2', 'v2beta2-rich'), { body: { spec: { minReplicas: 2 } }, contentType: 'application/strategic-merge-patch+json' }));
  record('v2 update minReplicas 0', await t.client.request('PATCH', path('v2', 'v2beta2-rich'), { body: { spec: { minReplicas: 0 } }, contentType: 'application/merge-patch+json' }));
});

test('edge cases: unparsable annotations, ContainerResource (gate off), selectors, external and container statuses', async () => {
  const v1 = (name: string, annotations: Record<string, string>) =>
    t.client.request('POST', path('v1'), { body: hpa('v1', { metadata: { name, annotations }, spec: { scaleTargetRef: ref, maxReplicas: 3 } }) });
  record('v1 unparsable annotations', await v1('unparsable', {
    'autoscaling.alpha.kubernetes.io/metrics': '{"type":"Pods"}',
    'autoscaling.alpha.kubernetes.io/behavior': '[1]',
    'autoscaling.alpha.kubernetes.io/current-metrics': 'null',
  }));
  record('v1 unparsable as v2', await t.client.request('GET', path('v2', 'unparsable')));
  record('v1 empty metrics annotation', await v1('emptymetrics', { 'autoscaling.alpha.kubernetes.io/metrics': '[]', 'autoscaling.alpha.kubernetes.io/behavior': '{"ScaleUp":null}' }));
  record(
    'v2beta1 container resource',
    await t.client.request('POST', path('v2beta1'), {
      body: hpa('v2beta1', { metadata: { name: 'container' }, spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', targetAverageUtilization: 50 } }] } }),
    }),
  );
  const ext = {
    type: 'External',
    external: { metric: { name: 'queue', selector: { matchExpressions: [{ key: 'q', operator: 'In', values: ['a', 'b'] }] } }, target: { type: 'Value', value: '5' } },
  };
  const c = await t.client.request('POST', path('v2'), { body: hpa('v2', { metadata: { name: 'ext' }, spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [ext] } }) });
  record('v2 external selector', c);
  const status = {
    currentReplicas: 1,
    desiredReplicas: 1,
    currentMetrics: [
      { type: 'External', external: { metric: { name: 'queue' }, current: { averageValue: '2' } } },
      { type: 'ContainerResource', containerResource: { name: 'memory', container: 'app', current: { averageValue: '10Mi' } } },
      { type: 'Resource', resource: { name: 'cpu', current: { averageValue: '1' } } },
    ],
  };
  record('v2 status external and container', await t.client.request('PUT', path('v2', 'ext', 'status'), { body: { ...c.json, status } }));
  for (const rv of ['v1', 'v2beta1']) record(`ext as ${rv}`, await t.client.request('GET', path(rv, 'ext')));
});

test('validation: kube messages (internal field paths whatever the version)', async () => {
  const cases: [string, Version, Record<string, unknown>][] = [
    ['empty', 'v2', { spec: {} }],
    ['v1 bounds', 'v1', { spec: { scaleTargetRef: { kind: 'a/b', name: '..' }, minReplicas: 5, maxReplicas: 3, targetCPUUtilizationPercentage: 0 } }],
    [
      'v2 metrics',
      'v2',
      {
        spec: {
          scaleTargetRef: ref,
          minReplicas: 0,
          maxReplicas: 3,
          metrics: [
            { type: 'Object', object: { describedObject: { kind: '', name: 'x' }, metric: { name: '' }, target: { type: 'Bogus', value: '-1' } } },
            { type: 'Pods', pods: { metric: { name: 'a%b' }, target: { type: 'AverageValue' } } },
            { type: 'Resource', resource: { name: '', target: { type: 'Utilization', averageUtilization: 0, averageValue: '0' } } },
            { type: 'External', external: { metric: { name: 'e' }, target: { type: 'Value', value: '1', averageValue: '2' } } },
            { type: 'External', external: { metric: { name: 'e' }, target: { type: 'Value' } } },
            { type: 'Foo' },
            { type: '' },
            { type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } }, pods: { metric: { name: 'p' }, target: { type: 'AverageValue', averageValue: '1' } } },
            { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'c', target: { type: 'Utilization', averageUtilization: 5 } } },
            { type: 'Resource' },
          ],
        },
      },
    ],
    [
      'v2 behavior',
      'v2',
      {
        spec: {
          scaleTargetRef: ref,
          maxReplicas: 3,
          behavior: {
            scaleUp: { stabilizationWindowSeconds: -1, selectPolicy: 'Sometimes', policies: [{ type: 'Nodes', value: 0, periodSeconds: 1801 }, { type: 'Pods', value: 1, periodSeconds: 0 }] },
            scaleDown: { stabilizationWindowSeconds: 3601, policies: [] },
          },
        },
      },
    ],
    ['v2beta1 metrics', 'v2beta1', { spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Pods', pods: { metricName: 'p', targetAverageValue: '0' } }, { type: 'Resource', resource: { name: 'cpu' } }, { type: 'External', external: { metricName: 'x' } }] } }],
    ['v2beta2 metrics', 'v2beta2', { spec: { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Object', object: { describedObject: { kind: 'S', name: 's' }, metric: { name: 'm' }, target: { type: 'AverageValue' } } }] } }],
  ];
  for (const [label, v, fields] of cases) {
    const { metadata, ...rest } = fields as { metadata?: Record<string, unknown> };
    record(`invalid ${label}`, await t.client.request('POST', path(v), { body: hpa(v, { metadata: { name: 'bad', ...metadata }, ...rest }) }));
  }
});

test('server-side apply in v2 and v1: ownership and conflicts across versions', async () => {
  const apply = (v: string, manager: string, body: Record<string, unknown>, force = false) =>
    t.client.request('PATCH', `${path(v, 'ssa')}?fieldManager=${manager}${force ? '&force=true' : ''}`, { body: hpa(v, { metadata: { name: 'ssa' }, ...body }), contentType: 'application/apply-patch+yaml' });
  record('ssa v2 create', await apply('v2', 'alpha', { spec: { scaleTargetRef: ref, maxReplicas: 4, metrics: [MANIFESTS.v2('x').spec && (MANIFESTS.v2('x').spec as any).metrics[1]] } }));
  record('ssa v1 conflict', await apply('v1', 'beta', { spec: { scaleTargetRef: ref, maxReplicas: 6 } }));
  record('ssa v1 force', await apply('v1', 'beta', { spec: { scaleTargetRef: ref, maxReplicas: 6, targetCPUUtilizationPercentage: 40 } }, true));
  record('ssa as v2', await t.client.request('GET', path('v2', 'ssa')));
  record('ssa v2 again', await apply('v2', 'alpha', { spec: { scaleTargetRef: ref, maxReplicas: 4, minReplicas: 2 } }));
});

test('list in every version, Table, Protobuf, watch, delete', async () => {
  for (const v of VERSIONS) record(`list ${v}`, await t.client.request('GET', `${path(v)}?labelSelector=app%3Dweb`));
  for (const v of VERSIONS) record(`table ${v}`, await t.client.request('GET', path(v), { headers: { accept: TABLE } }));
  for (const v of VERSIONS) await protobufRoundTrip(t, path(v, 'v2-rich'));
  // The v1 Protobuf of an object made in v2 carries the annotations, the v2 one the metrics.
  const pb1 = (await getProtobuf(t, path('v1', 'v2-rich'))).toString('latin1');
  assert.ok(pb1.includes('autoscaling.alpha.kubernetes.io/behavior'), 'v1 protobuf holds the behavior annotation');
  const pb2 = (await getProtobuf(t, path('v2', 'v2-rich'))).toString('latin1');
  assert.not.ok(pb2.includes('autoscaling.alpha.kubernetes.io/'), 'v2 protobuf has no round-trip annotation');
  const c = await t.client.request('POST', path('v2beta2'), { body: hpa('v2beta2', { metadata: { name: 'watched' }, spec: { scaleTargetRef: ref, maxReplicas: 2 } }) });
  assert.is(c.status, 201, show(c));
  const d = record('delete v2beta2', await t.client.request('DELETE', path('v2beta2', 'watched')));
  assert.is(d.status, 200, show(d));
  const rv = (c.json as any).metadata.resourceVersion;
  const events = await watchEvents(t, path('v1'), rv);
  assert.equal(events, [['DELETED', 'watched']]);
  // The event's object in the watch's version.
  for (const v of ['v2beta1', 'v1']) record(`watch ${v}`, await t.client.request('GET', `${path(v)}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`));
  record('get deleted', await t.client.request('GET', path('v2', 'watched')));
});

test('every answer equals the reference\'s (golden file)', () => checkGolden(GOLDEN, got, t.reference));

test.run();
