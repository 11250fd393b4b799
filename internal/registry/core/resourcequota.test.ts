import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from './testing.ts';
import { resourceQuotaKind, resourceQuotaTable } from './resourcequota.ts';

const S = resourceQuotaKind.strategy;
const rq = (spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default' }, spec, ...(status ? { status } : {}) }) as unknown as KubeObject;

test('defaults round sub-milli quantities up; create drops status, update keeps the stored one', () => {
  const o = rq({ hard: { cpu: '100u' } }, { used: { cpu: '1n' } });
  S.defaults!(o);
  assert.equal((o as any).spec.hard, { cpu: '1m' });
  assert.equal((o as any).status.used, { cpu: '1m' });
  S.prepareForCreate!(o);
  assert.equal(o.status, {});
  const next = rq({ hard: { cpu: '2' } }, { used: { cpu: '5' } });
  S.prepareForUpdate!(next, rq({}, { used: { cpu: '1' } }));
  assert.equal(next.status, { used: { cpu: '1' } });
});

test('validation: names, integers, negatives, scopes; scopes immutable', () => {
  check('names', S.validate(rq({ hard: { foo: '1', 'example.com/x': '1' } })), [
    { type: 'FieldValueInvalid', field: 'spec.hard[foo]', msg: 'must be a standard resource type or fully qualified' },
    { type: 'FieldValueInvalid', field: 'spec.hard[foo]', msg: 'must be a standard resource for quota' },
  ]);
  check('integer', S.validate(rq({ hard: { pods: '1500m', cpu: '-1' } })), [
    { type: 'FieldValueInvalid', field: 'spec.hard[cpu]', msg: 'must be greater than or equal to 0' },
    { type: 'FieldValueInvalid', field: 'spec.hard[pods]', msg: 'must be an integer' },
  ]);
  check('scopes', S.validate(rq({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] })), [{ type: 'FieldValueInvalid', field: 'spec.scopes', msg: 'conflicting scopes' }]);
  check('immutable', S.validateUpdate(rq({ scopes: ['BestEffort'] }), rq({})), [{ type: 'FieldValueInvalid', field: 'spec.scopes', msg: 'field is immutable' }]);
});

test('Table cells: used/hard per status.hard entry, limits.* in the Limit column', () => {
  const o = rq({}, { hard: { pods: '10', 'limits.cpu': '2' }, used: { 'limits.cpu': '500m' } });
  assert.equal(resourceQuotaTable.cells(o).slice(2), ['pods: 0/10', 'limits.cpu: 500m/2']);
});

test.run();
