/**
 * HorizontalPodAutoscaler with the alpha gates kube 1.24 has for it turned on
 * (`--feature-gates=HPAContainerMetrics=true,HPAScaleToZero=true`): ContainerResource metrics
 * kept and validated (through v1's annotation with their container, through v2beta1 without it,
 * as kube's conversion forgets it), minReplicas 0 with an Object or External metric. Every answer
 * is compared with test/fidelity/golden/autoscaling-hpa-gates.json, recorded from a reference
 * started with the same gates:
 *
 *   EXTRA_APISERVER_FLAGS=--feature-gates=HPAContainerMetrics=true,HPAScaleToZero=true ../shared/reference/start.sh /tmp/ref-gates 16444
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref-gates/kubeconfig node --import tsx test/run.ts test/fidelity/autoscaling-hpa-gates.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FeatureGates } from '../../internal/features/gates.ts';
import type { HttpResult } from '../harness.ts';
import { startTarget, type Target } from '../target.ts';
import { checkGolden, masked } from './autoscaling-helpers.ts';

const GOLDEN = new URL('./golden/autoscaling-hpa-gates.json', import.meta.url);
let t: Target;
let ns = '';
const got: Record<string, string> = {};
const path = (v: string, name = ''): string => `/apis/autoscaling/${v}/namespaces/${ns}/horizontalpodautoscalers${name ? `/${name}` : ''}`;
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
const hpa = (v: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: `autoscaling/${v}`, kind: 'HorizontalPodAutoscaler', metadata: { name }, spec: { scaleTargetRef: ref, ...spec } });

function record(label: string, r: HttpResult): HttpResult {
  got[label] = masked(r, ns);
  return r;
}

test.before(async () => {
  t = await startTarget({ featureGates: new FeatureGates('HPAContainerMetrics=true,HPAScaleToZero=true') });
  ns = await t.createNamespace('hpagates');
});
test.after(async () => {
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('ContainerResource metrics are kept, and read in every version', async () => {
  const metrics = [
    { type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', target: { type: 'Utilization', averageUtilization: 60 } } },
    { type: 'ContainerResource', containerResource: { name: 'memory', container: 'sidecar', target: { type: 'AverageValue', averageValue: '100Mi' } } },
  ];
  const c = record('create container metrics', await t.client.request('POST', path('v2'), { body: hpa('v2', 'container', { maxReplicas: 4, metrics }) }));
  assert.is(c.status, 201);
  for (const v of ['v1', 'v2beta1', 'v2beta2']) record(`container as ${v}`, await t.client.request('GET', path(v, 'container')));
  record('table', await t.client.request('GET', path('v2', 'container'), { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } }));
  record(
    'create container metrics v2beta1',
    await t.client.request('POST', path('v2beta1'), { body: hpa('v2beta1', 'beta', { maxReplicas: 4, metrics: [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'app', targetAverageUtilization: 60 } }] }) }),
  );
});

test('validation of ContainerResource sources and of scaling to zero', async () => {
  const cases: [string, Record<string, unknown>][] = [
    [
      'container sources',
      {
        maxReplicas: 3,
        metrics: [
          { type: 'ContainerResource', containerResource: { name: '', container: '', target: { type: 'Utilization' } } },
          { type: 'ContainerResource', containerResource: { name: 'pods', container: 'Bad_Name', target: { type: 'AverageValue', averageValue: '1', averageUtilization: 5 } } },
          { type: 'ContainerResource', containerResource: { name: 'example.com/gpu', container: 'c', target: { type: 'Utilization', averageUtilization: 5 } } },
          { type: 'ContainerResource' },
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 5 } }, containerResource: { name: 'cpu', container: 'c', target: { type: 'Utilization', averageUtilization: 5 } } },
        ],
      },
    ],
    ['zero without object metric', { minReplicas: 0, maxReplicas: 3 }],
  ];
  for (const [label, spec] of cases) record(`invalid ${label}`, await t.client.request('POST', path('v2'), { body: hpa('v2', 'bad', spec) }));
  const zero = record(
    'create zero with external',
    await t.client.request('POST', path('v2'), { body: hpa('v2', 'zero', { minReplicas: 0, maxReplicas: 3, metrics: [{ type: 'External', external: { metric: { name: 'q' }, target: { type: 'Value', value: '1' } } }] }) }),
  );
  assert.is(zero.status, 201);
  record('zero as v1', await t.client.request('GET', path('v1', 'zero')));
});

test('every answer equals the reference\'s (golden file)', () => checkGolden(GOLDEN, got, t.reference));

test.run();
