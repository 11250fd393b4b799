import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import { podUsesPVC } from './storage-protection.ts';
import { storageObjectInUseProtection, claimClass } from '../admission/storage.ts';
import { persistentVolumeKind, persistentVolumeClaimKind, configMapKind } from '../registry/core/index.ts';

const claim = (name: string, owner?: string): KubeObject => ({
  metadata: { name, namespace: 'ns', ...(owner ? { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: owner, controller: true }] } : {}) },
});
const pod = (spec: Record<string, unknown>, meta: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'p', namespace: 'ns', uid: 'u1', ...meta }, spec });

test('podUsesPVC: scheduled Pods with a claim volume; ephemeral claims the Pod controls, unless shut down', () => {
  const vols = [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }, { name: 'e', ephemeral: { volumeClaimTemplate: { spec: {} } } }];
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }), claim('data')), true);
  assert.is(podUsesPVC(pod({ volumes: vols }), claim('data')), false, 'unscheduled');
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }), claim('other')), false);
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }), claim('p-e', 'u1')), true);
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }), claim('p-e', 'someone-else')), false, 'not owned by the pod');
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }, { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }), claim('p-e', 'u1')), false, 'shut down');
  // A shut-down Pod still counts for a plain claim volume (as kube's controller).
  assert.is(podUsesPVC(pod({ nodeName: 'n1', volumes: vols }, { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }), claim('data')), true);
});

test('StorageObjectInUseProtection: finalizer on create of PV and PVC only, once', async () => {
  const p = storageObjectInUseProtection();
  const attrs = (kind: typeof persistentVolumeKind, operation: 'CREATE' | 'UPDATE', obj: KubeObject, subresource = '') => ({
    operation,
    kind,
    subresource,
    namespace: '',
    name: obj.metadata.name ?? '',
    object: obj,
    oldObject: null,
    user: { username: 'u', groups: [] },
    dryRun: false,
  });
  const pv: KubeObject = { metadata: { name: 'a', finalizers: ['x'] } };
  await p.admit(attrs(persistentVolumeKind, 'CREATE', pv));
  await p.admit(attrs(persistentVolumeKind, 'CREATE', pv));
  assert.equal(pv.metadata.finalizers, ['x', 'kubernetes.io/pv-protection']);
  const pvc: KubeObject = { metadata: { name: 'b' } };
  await p.admit(attrs(persistentVolumeClaimKind, 'CREATE', pvc));
  assert.equal(pvc.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const upd: KubeObject = { metadata: { name: 'c' } };
  await p.admit(attrs(persistentVolumeClaimKind, 'UPDATE', upd));
  await p.admit(attrs(persistentVolumeClaimKind, 'CREATE', upd, 'status'));
  await p.admit(attrs(configMapKind, 'CREATE', upd));
  assert.is(upd.metadata.finalizers, undefined);
});

test('claimClass: the beta annotation wins over spec.storageClassName', () => {
  assert.is(claimClass({ metadata: {}, spec: { storageClassName: 'a' } }), 'a');
  assert.is(claimClass({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'b' } }, spec: { storageClassName: 'a' } }), 'b');
  assert.is(claimClass({ metadata: {}, spec: {} }), '');
});

test.run();
