import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyPatch } from './patch.ts';
import { ApiError } from '../api/errors.ts';

/**
 * applyPatch('strategic', …) on stored objects: the kind's schema decides (Service ports merge by
 * `port`, PVC status.conditions by `type`, finalizers as a set, other lists replaced). Results as
 * kube-apiserver 1.24.17 gives them (strategic-merge.test.ts covers the algorithm in depth).
 */
const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', finalizers: ['a'] }, spec: { ports: [{ port: 80, name: 'http' }, { port: 53, name: 'dns' }, { port: 8080, name: 'x' }] } };
const smp = (target: any, patch: unknown): any => applyPatch('strategic', target, Buffer.from(JSON.stringify(patch)));

test('keyed lists merge by the schema merge key, with $patch delete and $setElementOrder', () => {
  const r = smp(svc, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 80 }, { port: 8080 }], ports: [{ port: 443, name: 'https' }, { port: 53, $patch: 'delete' }] } });
  assert.equal(r.spec.ports, [{ port: 443, name: 'https' }, { port: 80, name: 'http' }, { port: 8080, name: 'x' }]);
  assert.equal(smp(r, { spec: { '$setElementOrder/ports': [{ port: 8080 }, { port: 443 }] } }).spec.ports.map((p: any) => p.port), [80, 8080, 443]);
  assert.equal(smp(svc, { spec: { ports: [{ port: 80, name: 'web' }] } }).spec.ports, [{ port: 80, name: 'web' }, { port: 53, name: 'dns' }, { port: 8080, name: 'x' }]);
  assert.equal(smp(svc, { spec: { ports: [{ $patch: 'replace' }, { port: 1 }] } }).spec.ports, [{ port: 1 }]);
});

test('merge-strategy scalar lists are sets (patch items first); others are replaced', () => {
  assert.equal(smp(svc, { metadata: { finalizers: ['b', 'a'] } }).metadata.finalizers, ['b', 'a']);
  assert.equal(smp(svc, { metadata: { finalizers: ['b'] } }).metadata.finalizers, ['b', 'a']);
  assert.equal(smp(svc, { spec: { externalIPs: ['1.2.3.4'] } }).spec.externalIPs, ['1.2.3.4']);
  const pvc = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' }, spec: { accessModes: ['ReadWriteOnce'] }, status: { conditions: [{ type: 'A', status: 'True', reason: 'r' }] } };
  const r = smp(pvc, { spec: { accessModes: ['ReadOnlyMany'] }, status: { conditions: [{ type: 'A', status: 'False' }, { type: 'B', status: 'True' }] } });
  assert.equal(r.spec.accessModes, ['ReadOnlyMany']);
  assert.equal(r.status.conditions, [{ type: 'A', status: 'False', reason: 'r' }, { type: 'B', status: 'True' }]);
});

test('without a known schema maps merge and lists are replaced (strategicpatch without metadata)', () => {
  const cr = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { finalizers: ['a'], labels: { x: '1' } }, spec: { items: [{ name: 'x' }] } };
  const r = smp(cr, { metadata: { finalizers: ['b'], labels: { y: '2' } }, spec: { items: [{ name: 'y' }] } });
  assert.equal([r.metadata, r.spec.items], [{ finalizers: ['b'], labels: { x: '1', y: '2' } }, [{ name: 'y' }]]);
});

test('merge errors become kube status codes', () => {
  const code = (patch: unknown): number => {
    try {
      smp(svc, patch);
    } catch (e) {
      if (e instanceof ApiError) return e.status.code;
      throw e;
    }
    return 200;
  };
  assert.is(code({ metadata: { $retainKeys: 'x' } }), 400);
  assert.is(code({ spec: { ports: [{ name: 'no-port' }] } }), 500);
  assert.is(code({ spec: { $patch: 'explode' } }), 500);
});

test.run();
