import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kindSchema, strategicMergePatch } from './patch.ts';

/** Results recorded from kube-apiserver 1.24.17 (Service ports merge by `port`, PVC conditions by `type`). */
const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', finalizers: ['a'] }, spec: { ports: [{ port: 80, name: 'http' }, { port: 53, name: 'dns' }, { port: 8080, name: 'x' }] } };
const smp = (target: any, patch: unknown): any => strategicMergePatch(target, patch, '', kindSchema(target));

test('keyed lists merge by the schema merge key, with $patch delete and $setElementOrder', () => {
  const r = smp(svc, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }, { port: 8080 }], ports: [{ port: 443, name: 'https' }, { port: 53, $patch: 'delete' }] } });
  assert.equal(r.spec.ports, [{ port: 443, name: 'https' }, { port: 80, name: 'http' }, { port: 8080, name: 'x' }]);
  assert.equal(smp(r, { spec: { '$setElementOrder/ports': [{ port: 8080 }, { port: 443 }] } }).spec.ports.map((p: any) => p.port), [80, 8080, 443]);
  assert.equal(smp(svc, { spec: { ports: [{ port: 80, name: 'web' }] } }).spec.ports, [{ port: 80, name: 'web' }, { port: 53, name: 'dns' }, { port: 8080, name: 'x' }]);
  assert.equal(smp(svc, { spec: { ports: [{ $patch: 'replace' }, { port: 1 }] } }).spec.ports, [{ port: 1 }]);
});

test('merge-strategy scalar lists are sets; others are replaced', () => {
  assert.equal(smp(svc, { metadata: { finalizers: ['b', 'a'] } }).metadata.finalizers, ['a', 'b']);
  assert.equal(smp(svc, { spec: { externalIPs: ['1.2.3.4'] } }).spec.externalIPs, ['1.2.3.4']);
  const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] }, status: { conditions: [{ type: 'A', status: 'True', reason: 'r' }] } };
  const r = smp(pvc, { spec: { accessModes: ['ReadOnlyMany'] }, status: { conditions: [{ type: 'A', status: 'False' }, { type: 'B', status: 'True' }] } });
  assert.equal(r.spec.accessModes, ['ReadOnlyMany']);
  assert.equal(r.status.conditions, [{ type: 'A', status: 'False', reason: 'r' }, { type: 'B', status: 'True' }]);
});

test('without a known schema only metadata.finalizers merges', () => {
  const cr = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { finalizers: ['a'] }, spec: { items: [{ name: 'x' }] } };
  const r = smp(cr, { metadata: { finalizers: ['b'] }, spec: { items: [{ name: 'y' }] } });
  assert.equal([r.metadata.finalizers, r.spec.items], [['a', 'b'], [{ name: 'y' }]]);
});

test.run();
