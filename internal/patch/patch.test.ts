import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applyPatch, mergePatch, patchTypeOf } from './patch.ts';
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

/** The Status an ApiError carries, or undefined when `f` does not throw. */
function status(f: () => unknown): { code: number; message: string } | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.status.code ?? 0, message: e.status.message ?? '' };
    throw e;
  }
  return undefined;
}
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1', b: '2' } };
const apply = (type: 'merge' | 'json', patch: string): unknown => applyPatch(type, cm, Buffer.from(patch));

test('merge patch (RFC 7386): null deletes, objects merge, the rest replaces; unusable patches as kube answers them', () => {
  assert.equal(mergePatch({ a: { b: 1, c: 2 }, l: [1] }, { a: { b: null, d: 3 }, l: [2] }), { a: { c: 2, d: 3 }, l: [2] });
  assert.equal((apply('merge', '{"data":{"a":null,"c":"3"}}') as any).data, { b: '2', c: '3' });
  assert.equal(status(() => apply('merge', '"x"')), { code: 400, message: 'Invalid JSON Patch' });
  assert.equal(status(() => apply('merge', '{')), { code: 400, message: 'Invalid JSON Patch' });
  assert.is(status(() => apply('merge', '[1]'))?.code, 422);
});

test('JSON patch (RFC 6902): ops and test ops; a patch that does not apply is a 422, a malformed one a 400', () => {
  assert.equal((apply('json', '[{"op":"test","path":"/data/a","value":"1"},{"op":"replace","path":"/data/a","value":"x"},{"op":"remove","path":"/data/b"}]') as any).data, { a: 'x' });
  assert.equal(status(() => apply('json', '[{"op":"test","path":"/data/a","value":"2"}]')), { code: 422, message: 'the server rejected our request due to an error in our request' });
  assert.equal(status(() => apply('json', '{}')), { code: 400, message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' });
  assert.equal(status(() => apply('json', '[1]')), { code: 400, message: 'json: cannot unmarshal number into Go value of type jsonpatch.Operation' });
  assert.is(cm.data.b, '2', 'the current object is left alone');
});

test('patch types from the content type; anything else is refused (415)', () => {
  assert.is(patchTypeOf('application/merge-patch+json; charset=utf-8'), 'merge');
  assert.is(patchTypeOf('application/json-patch+json'), 'json');
  assert.is(patchTypeOf('application/strategic-merge-patch+json'), 'strategic');
  assert.is(patchTypeOf('application/apply-patch+yaml'), 'apply');
  assert.is(status(() => patchTypeOf('application/json'))?.code, 415);
});

test.run();
