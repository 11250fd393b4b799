import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { replicaSetKind, replicaSetTable } from './replicaset.ts';
import { statefulSetKind, statefulSetTable } from './statefulset.ts';
import { TEMPLATE_GENERATION_ANNOTATION, daemonSetKind, daemonSetTable } from './daemonset.ts';
import { controllerRevisionKind, controllerRevisionTable } from './controllerrevision.ts';

const obj = (kind: string, fields: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'apps/v1', kind, metadata: { name: 'o', namespace: 'ns', creationTimestamp: '2024-01-01T00:00:00Z', ...meta }, ...fields }) as KubeObject;
const template = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

test('ReplicaSet: replicas default, status {replicas: 0} on create, the Table', () => {
  const rs = obj('ReplicaSet', { spec: { selector: { matchLabels: { a: 'b' } }, template: structuredClone(template) } });
  replicaSetKind.strategy.defaults!(rs);
  replicaSetKind.strategy.prepareForCreate!(rs);
  assert.equal([(rs.spec as any).replicas, rs.status], [1, { replicas: 0 }]);
  check('valid', replicaSetKind.strategy.validate(rs), []);
  assert.equal(replicaSetTable.cells(obj('ReplicaSet', { spec: { replicas: 2, selector: {}, template }, status: { replicas: 1, readyReplicas: 1 } })), ['o', 2, 1, 1, '2024-01-01T00:00:00Z', 'c', 'nginx', '<none>']);
});

test('StatefulSet: defaults, gated fields dropped, spec fields other than the allowed ones immutable', () => {
  const s = obj('StatefulSet', { spec: { serviceName: 's', selector: { matchLabels: { a: 'b' } }, template: structuredClone(template), persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete' }, updateStrategy: { rollingUpdate: { maxUnavailable: 2 } } } });
  statefulSetKind.strategy.defaults!(s);
  statefulSetKind.strategy.prepareForCreate!(s);
  const spec = s.spec as any;
  assert.equal([spec.podManagementPolicy, spec.updateStrategy, spec.replicas, spec.revisionHistoryLimit, spec.persistentVolumeClaimRetentionPolicy], ['OrderedReady', { rollingUpdate: { partition: 0 }, type: 'RollingUpdate' }, 1, 10, undefined]);
  const changed = structuredClone(s);
  (changed.spec as any).serviceName = 'other';
  check('serviceName', statefulSetKind.strategy.validateUpdate(changed, s), [{ type: 'FieldValueForbidden', field: 'spec', msg: "updates to statefulset spec for fields other than 'replicas'" }]);
  assert.equal(statefulSetTable.cells(obj('StatefulSet', { spec: { replicas: 3, template }, status: { readyReplicas: 2 } })), ['o', '2/3', '2024-01-01T00:00:00Z', 'c', 'nginx']);
});

test('DaemonSet: template generation annotation, surge rules, the Table', () => {
  const d = obj('DaemonSet', { spec: { selector: { matchLabels: { a: 'b' } }, template: structuredClone(template) } });
  daemonSetKind.strategy.defaults!(d);
  daemonSetKind.strategy.prepareForCreate!(d);
  assert.is(d.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
  assert.equal((d.spec as any).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  const next = structuredClone(d);
  (next.spec as any).template.spec.containers[0].image = 'nginx:2';
  daemonSetKind.strategy.prepareForUpdate!(next, d);
  assert.is(next.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');
  const surge = structuredClone(d);
  (surge.spec as any).updateStrategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 1 };
  check('both', daemonSetKind.strategy.validate(surge), [{ type: 'FieldValueInvalid', field: 'spec.updateStrategy.rollingUpdate.maxSurge', msg: 'may not be set when maxUnavailable is non-zero' }]);
  assert.throws(() => daemonSetKind.strategy.defaults!(obj('DaemonSet', { spec: {} }, { annotations: { [TEMPLATE_GENERATION_ANNOTATION]: 'x' } })), /strconv.ParseInt: parsing "x": invalid syntax/);
  assert.equal(daemonSetTable.cells(obj('DaemonSet', { spec: { selector: { matchLabels: { a: 'b' } }, template: { spec: { nodeSelector: { z: '1', b: '2' }, containers: [] } } }, status: { desiredNumberScheduled: 3 } })), ['o', 3, 0, 0, 0, 0, 'b=2,z=1', '2024-01-01T00:00:00Z', '', '', 'a=b']);
});

test('ControllerRevision: data required and immutable, the controller column', () => {
  check('no data', controllerRevisionKind.strategy.validate(obj('ControllerRevision', { revision: -1 })), [
    { type: 'FieldValueRequired', field: 'data', msg: 'data is mandatory' },
    { type: 'FieldValueInvalid', field: 'revision' },
  ]);
  const old = obj('ControllerRevision', { data: { x: 1 }, revision: 1 });
  check('immutable', controllerRevisionKind.strategy.validateUpdate(obj('ControllerRevision', { data: { x: 2 }, revision: 1 }), old), [
    { type: 'FieldValueInvalid', field: 'data', msg: 'Raw:[]uint8{0x7b, 0x22, 0x78, 0x22, 0x3a, 0x32, 0x7d}, ContentEncoding:"", ContentType:"application/json"}: field is immutable' },
  ]);
  const owned = obj('ControllerRevision', { revision: 7 }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'u', controller: true }] });
  assert.equal(controllerRevisionTable.cells(owned), ['o', 'daemonset.apps/ds', 7, '2024-01-01T00:00:00Z']);
});

test.run();
