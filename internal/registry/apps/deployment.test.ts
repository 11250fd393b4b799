import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { deploymentKind, deploymentTable } from './deployment.ts';
import { appsScaleView } from './scale.ts';

const S = deploymentKind.strategy;
const deployment = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z' }, spec, ...(status ? { status } : {}) }) as KubeObject;
const template = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } });
const valid = () => deployment({ selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) });

test('defaults: SetDefaults_Deployment and the template pod defaults without SetDefaults_Pod', () => {
  const d = valid();
  S.defaults!(d);
  const spec = d.spec as any;
  assert.equal([spec.replicas, spec.strategy, spec.revisionHistoryLimit, spec.progressDeadlineSeconds], [1, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, 10, 600]);
  assert.equal([spec.template.spec.restartPolicy, spec.template.spec.dnsPolicy, spec.template.spec.containers[0].imagePullPolicy], ['Always', 'ClusterFirst', 'IfNotPresent']);
  assert.is(spec.template.spec.enableServiceLinks, undefined);
  const r = deployment({ strategy: { type: 'Recreate' }, replicas: 0 });
  S.defaults!(r);
  assert.equal([(r.spec as any).strategy, (r.spec as any).replicas], [{ type: 'Recreate' }, 0]);
});

test('validate: kube messages for replicas, selector, template, strategy and deadlines', () => {
  const d = valid();
  S.defaults!(d);
  check('valid', S.validate(d), []);
  const bad = deployment({ replicas: -1, selector: { matchLabels: { a: 'x' } }, template: template({ a: 'y' }), strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } }, minReadySeconds: 700 });
  S.defaults!(bad);
  check('bad', S.validate(bad), [
    { type: 'FieldValueInvalid', field: 'spec.replicas', msg: 'Invalid value: -1: must be greater than or equal to 0' },
    { type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', msg: 'map[string]string{"a":"y"}: `selector` does not match template `labels`' },
    { type: 'FieldValueInvalid', field: 'spec.strategy.rollingUpdate.maxUnavailable', msg: 'intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}: may not be 0 when `maxSurge` is 0' },
    { type: 'FieldValueInvalid', field: 'spec.progressDeadlineSeconds', msg: 'Invalid value: 600: must be greater than minReadySeconds' },
  ]);
  const none = deployment({ template: template({}), strategy: { type: 'Recreate' } });
  S.defaults!(none);
  check('no selector', S.validate(none), [
    { type: 'FieldValueRequired', field: 'spec.selector' },
    { type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', msg: 'map[string]string{}: `selector` does not match template `labels`' },
  ]);
});

test('prepare: status reset on create; an update keeps status and bumps generation for annotations', () => {
  const d = deployment({}, { replicas: 3 });
  S.prepareForCreate!(d);
  assert.equal(d.status, {});
  const old = { ...valid(), metadata: { ...valid().metadata, generation: 4 }, status: { replicas: 2 } } as KubeObject;
  const next = { ...valid(), metadata: { ...valid().metadata, generation: 4, annotations: { a: 'b' } }, status: { replicas: 9 } } as KubeObject;
  S.prepareForUpdate!(next, old);
  assert.equal([next.status, next.metadata.generation], [{ replicas: 2 }, 5]);
});

test('validateUpdate: the selector compared as Go values (key order aside), annotations likewise for generation', () => {
  const old = deployment({ replicas: 1, selector: { matchLabels: { a: 'b', c: 'd' } }, template: template({ a: 'b', c: 'd' }) });
  S.defaults!(old);
  const next = structuredClone(old);
  (next.spec as any).selector = { matchLabels: { c: 'd', a: 'b' } };
  check('reordered', S.validateUpdate(next, old), []);
  (next.spec as any).selector = { matchLabels: { a: 'b' } };
  check('changed', S.validateUpdate(next, old), [{ type: 'FieldValueInvalid', field: 'spec.selector', msg: 'field is immutable' }]);
  const a = { ...old, metadata: { ...old.metadata, generation: 2, annotations: { x: '1', y: '2' } } } as KubeObject;
  const b = { ...old, metadata: { ...old.metadata, generation: 2, annotations: { y: '2', x: '1' } } } as KubeObject;
  S.prepareForUpdate!(b, a);
  assert.is(b.metadata.generation, 2);
});

test('table and scale view: printDeployment cells, Scale from the Deployment', () => {
  const d = deployment({ replicas: 3, selector: { matchLabels: { a: 'b' } }, template: template({ a: 'b' }) }, { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 });
  assert.equal(deploymentTable.cells(d), ['d', '1/3', 2, 1, '2024-01-01T00:00:00Z', 'c', 'nginx:1', 'a=b']);
  const sc = appsScaleView.read(d) as any;
  assert.equal([sc.kind, sc.apiVersion, sc.spec, sc.status], ['Scale', 'autoscaling/v1', { replicas: 3 }, { replicas: 0, selector: 'a=b' }]);
  const written = appsScaleView.write({ ...sc, spec: { replicas: 5 } }, structuredClone(d)) as any;
  assert.is(written.spec.replicas, 5);
  assert.throws(() => appsScaleView.write({ ...sc, spec: { replicas: -1 } }, structuredClone(d)), /Scale.autoscaling "d" is invalid: spec.replicas: Invalid value: -1/);
});

test.run();
