import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from './testing.ts';
import { limitRangeKind } from './limitrange.ts';

const S = limitRangeKind.strategy;
const lr = (limits: unknown[]): KubeObject => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l', namespace: 'default' }, spec: { limits } }) as unknown as KubeObject;

test('defaults: Container default from max, defaultRequest from default then min; milli round-up; Pod items untouched', () => {
  const o = lr([{ type: 'Container', min: { memory: '1Mi' }, max: { cpu: '2' }, default: { memory: '100u' } }, { type: 'Pod', max: { cpu: '1' } }]);
  S.defaults!(o);
  assert.equal((o as any).spec.limits, [
    { type: 'Container', min: { memory: '1Mi' }, max: { cpu: '2' }, default: { memory: '1m', cpu: '2' }, defaultRequest: { memory: '1m', cpu: '2' } },
    { type: 'Pod', max: { cpu: '1' } },
  ]);
});

test('validation: bounds, ratios, overcommit, types', () => {
  check('min > max', S.validate(lr([{ type: 'Pod', min: { cpu: '2' }, max: { cpu: '1' } }])), [{ type: 'FieldValueInvalid', field: 'spec.limits[0].min[cpu]', msg: 'min value 2 is greater than max value 1' }]);
  check('ratio', S.validate(lr([{ type: 'Pod', min: { cpu: '1' }, max: { cpu: '3' }, maxLimitRequestRatio: { cpu: '4' } }])), [
    { type: 'FieldValueInvalid', field: 'spec.limits[0].maxLimitRequestRatio[cpu]', msg: 'ratio 4 is greater than max/min = 3.000000' },
  ]);
  check('hugepages not overcommitted', S.validate(lr([{ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }])), [
    { type: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[hugepages-2Mi]', msg: 'default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi' },
  ]);
  check('qualified type', S.validate(lr([{ type: 'example.com/thing', max: { 'example.com/x': '1' } }])), []);
});

test.run();
