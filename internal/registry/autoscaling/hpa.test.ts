/**
 * HorizontalPodAutoscaler conversions, defaults, validation and printer (the HTTP answers are
 * test/fidelity/autoscaling-hpa.test.ts's, compared with the reference).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, convertTo, internalToV1, toInternal, v1ToInternal } from './hpa-convert.ts';
import { defaultHPA, formatHPAMetrics, hpaKind, hpaTable, hpaV2beta1Kind, validateHPASpec } from './hpa.ts';

const ref = { kind: 'Deployment', name: 'web' };
const cpu = (u: number) => ({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: u } } });
const pods = { type: 'Pods', pods: { metric: { name: 'packets' }, target: { type: 'AverageValue', averageValue: '1k' } } };
const hpa = (version: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: `autoscaling/${version}`, kind: 'HorizontalPodAutoscaler', metadata: { name: 'h', namespace: 'n', ...extra }, spec, status: { currentReplicas: 0, desiredReplicas: 0 } }) as KubeObject;

test('internal → v1: CPU utilization is the field, other metrics and behavior go to annotations', () => {
  const v1 = internalToV1(hpa('v2', { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, metrics: [cpu(50), pods], behavior: { scaleUp: { policies: [{ type: 'Pods', value: 1, periodSeconds: 5 }] } } }));
  assert.is((v1.spec as any).targetCPUUtilizationPercentage, 50);
  const ann = v1.metadata.annotations!;
  assert.is(ann[METRIC_SPECS_ANNOTATION], '[{"type":"Pods","pods":{"metricName":"packets","targetAverageValue":"1k"}}]');
  assert.is(ann[BEHAVIOR_ANNOTATION], '{"ScaleUp":{"StabilizationWindowSeconds":null,"SelectPolicy":null,"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":5}]},"ScaleDown":null}');
  assert.not.ok(METRIC_STATUSES_ANNOTATION in ann);
  assert.not.ok(CONDITIONS_ANNOTATION in ann);
});

test('v1 → internal: annotations read back, the CPU metric last, then dropped', () => {
  const v1 = internalToV1(hpa('v2', { scaleTargetRef: ref, maxReplicas: 3, metrics: [cpu(50), pods] }));
  const i = v1ToInternal(v1);
  assert.equal((i.spec as any).metrics, [pods, cpu(50)]);
  assert.is(i.metadata.annotations, undefined);
});

test('v1 → internal: no metric at all is the 80% CPU default; an unparsable annotation is ignored', () => {
  const i = v1ToInternal(hpa('v1', { scaleTargetRef: ref, maxReplicas: 3 }, { annotations: { [METRIC_SPECS_ANNOTATION]: '{not json', keep: 'x' } }));
  assert.equal((i.spec as any).metrics, [cpu(80)]);
  assert.equal(i.metadata.annotations, { keep: 'x' });
  const wrongType = v1ToInternal(hpa('v1', { scaleTargetRef: ref, maxReplicas: 3 }, { annotations: { [BEHAVIOR_ANNOTATION]: '{"ScaleUp":{"StabilizationWindowSeconds":"ten"}}' } }));
  assert.is((wrongType.spec as any).behavior, undefined);
});

test('behavior annotation: Go field names matched case-insensitively, as encoding/json does', () => {
  const i = v1ToInternal(hpa('v1', { scaleTargetRef: ref, maxReplicas: 3 }, { annotations: { [BEHAVIOR_ANNOTATION]: '{"scaleDown":{"selectPolicy":"Min","policies":null}}' } }));
  assert.equal((i.spec as any).behavior, { scaleDown: { selectPolicy: 'Min' } });
  const empty = v1ToInternal(hpa('v1', { scaleTargetRef: ref, maxReplicas: 3 }, { annotations: { [BEHAVIOR_ANNOTATION]: '{}' } }));
  assert.is((empty.spec as any).behavior, undefined);
});

test('v2beta1 ⇄ internal: targetAverageValue / targetAverageUtilization; an Object value becomes "0" without one', () => {
  const beta = hpa('v2beta1', {
    scaleTargetRef: ref,
    maxReplicas: 3,
    metrics: [
      { type: 'Resource', resource: { name: 'memory', targetAverageValue: '1Gi' } },
      { type: 'Object', object: { target: { kind: 'Service', name: 's' }, metricName: 'm', targetValue: '2' } },
    ],
  });
  const v2 = convertTo(beta, 'v2');
  assert.equal((v2.spec as any).metrics, [
    { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '1Gi' } } },
    { type: 'Object', object: { describedObject: { kind: 'Service', name: 's' }, target: { type: 'Value', value: '2' }, metric: { name: 'm' } } },
  ]);
  const avg = hpa('v2', { scaleTargetRef: ref, maxReplicas: 3, metrics: [{ type: 'Object', object: { describedObject: { kind: 'S', name: 's' }, metric: { name: 'm' }, target: { type: 'AverageValue', averageValue: '3' } } }] });
  const back = convertTo(convertTo(avg, 'v2beta1'), 'v2');
  assert.equal((back.spec as any).metrics[0].object.target, { type: 'AverageValue', value: '0', averageValue: '3' });
});

test('status: current metrics and conditions through v1 annotations, CPU utilization as the field', () => {
  const i = hpa('v2', { scaleTargetRef: ref, maxReplicas: 3, metrics: [cpu(50)] });
  i.status = {
    currentReplicas: 1,
    desiredReplicas: 2,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '100m', averageUtilization: 40 } } }],
    conditions: [{ type: 'AbleToScale', status: 'True', reason: 'r' }],
  };
  const v1 = internalToV1(i);
  assert.is((v1.status as any).currentCPUUtilizationPercentage, 40);
  assert.is(v1.metadata.annotations![CONDITIONS_ANNOTATION], '[{"type":"AbleToScale","status":"True","lastTransitionTime":null,"reason":"r"}]');
  assert.equal((convertTo(v1, 'v2').status as any).currentMetrics, (i.status as any).currentMetrics);
});

test('conversions round-trip through storage for every version', () => {
  for (const v of ['v2', 'v2beta2']) {
    const o = convertTo(hpa(v, { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 3, metrics: [pods, cpu(50)], behavior: { scaleUp: { selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 5 }] } } }), v);
    assert.equal(convertTo(internalToV1(toInternal(o)), v), o, v);
  }
});

test('defaults per version: minReplicas everywhere, the CPU metric and behavior rules in v2/v2beta2', () => {
  const v1 = hpa('v1', { scaleTargetRef: ref, maxReplicas: 3 });
  defaultHPA(v1, 'v1');
  assert.equal(v1.spec, { scaleTargetRef: ref, maxReplicas: 3, minReplicas: 1 });
  const beta = hpa('v2beta1', { scaleTargetRef: ref, maxReplicas: 3 });
  defaultHPA(beta, 'v2beta1');
  assert.equal((beta.spec as any).metrics, [{ type: 'Resource', resource: { name: 'cpu', targetAverageUtilization: 80 } }]);
  const v2 = hpa('v2', { scaleTargetRef: ref, maxReplicas: 3, behavior: { scaleDown: { stabilizationWindowSeconds: 5 } } });
  defaultHPA(v2, 'v2');
  assert.equal((v2.spec as any).behavior, {
    scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
    scaleDown: { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }], stabilizationWindowSeconds: 5 },
  });
});

test('validation: kube messages on the internal object', () => {
  const errs = validateHPASpec(hpa('v2', { scaleTargetRef: { kind: '', name: 'a/b' }, minReplicas: 0, maxReplicas: 0, metrics: [{ type: 'Pods' }] }), 1);
  assert.equal(
    errs.map((e) => `${e.type} ${e.field}: ${e.detail}`),
    [
      'FieldValueInvalid spec.minReplicas: must be greater than or equal to 1',
      'FieldValueInvalid spec.maxReplicas: must be greater than 0',
      'FieldValueRequired spec.scaleTargetRef.kind: ',
      "FieldValueInvalid spec.scaleTargetRef.name: may not contain '/'",
      'FieldValueRequired spec.metrics[0].pods: must populate information for the given metric source',
      'FieldValueForbidden spec.metrics: must specify at least one Object or External metric to support scaling to zero replicas',
    ],
  );
  // A v1 object is validated as its internal form (its CPU target is metrics[0]).
  const v1errs = hpaKind.strategy.validate(hpa('v1', { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 2, targetCPUUtilizationPercentage: 0 }));
  assert.equal(v1errs.map((e) => e.field), ['spec.metrics[0].resource.target.averageUtilization']);
});

test('printer: targets as formatHPAMetrics, at most two then "+ N more..."', () => {
  assert.is(formatHPAMetrics([], []), '<none>');
  assert.is(formatHPAMetrics([cpu(50), pods, cpu(70)], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 20 } } }]), '20%/50%, <unknown>/1k + 1 more...');
  const beta = hpa('v2beta1', { scaleTargetRef: ref, minReplicas: 2, maxReplicas: 4, metrics: [{ type: 'External', external: { metricName: 'q', targetAverageValue: '30' } }] }, { creationTimestamp: '2024-01-01T00:00:00Z' });
  assert.equal(hpaTable.cells(beta), ['h', 'Deployment/web', '<unknown>/30 (avg)', '2', 4, 0, '2024-01-01T00:00:00Z']);
  assert.equal(hpaV2beta1Kind.table!.cells(beta), hpaTable.cells(beta));
});

test.run();
