import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FeatureGates, FeatureGateError } from './gates.ts';

test('1.24 defaults', () => {
  const g = new FeatureGates();
  assert.is(g.enabled('ServerSideFieldValidation'), false);
  assert.is(g.enabled('AnyVolumeDataSource'), true);
  assert.is(g.enabled('RecoverVolumeExpansionFailure'), false);
  assert.is(g.enabled('CSIStorageCapacity'), true);
});

test('--feature-gates parsing as component-base', () => {
  const g = new FeatureGates('ServerSideFieldValidation=true, AnyVolumeDataSource=false,');
  assert.is(g.enabled('ServerSideFieldValidation'), true);
  assert.is(g.enabled('AnyVolumeDataSource'), false);
  assert.is(new FeatureGates('CSIStorageCapacity=true').enabled('CSIStorageCapacity'), true);
  const err = (spec: string): string => {
    try {
      new FeatureGates(spec);
    } catch (e) {
      assert.instance(e, FeatureGateError);
      return (e as Error).message;
    }
    return '';
  };
  assert.is(err('Bogus=true'), 'unrecognized feature gate: Bogus');
  assert.is(err('CSIStorageCapacity=false'), 'cannot set feature gate CSIStorageCapacity to false, feature is locked to true');
  assert.is(err('AnyVolumeDataSource=maybe'), 'invalid value of AnyVolumeDataSource=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax');
  assert.is(err('AnyVolumeDataSource'), 'missing bool value for AnyVolumeDataSource');
});

test.run();
