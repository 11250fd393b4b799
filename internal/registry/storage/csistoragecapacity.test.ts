import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { csiStorageCapacityKind } from './csistoragecapacity.ts';

const S = csiStorageCapacityKind.strategy;
const cap = (fields: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIStorageCapacity',
  metadata: { name: 'c', namespace: 'ns', ...meta },
  storageClassName: 'fast',
  ...structuredClone(fields),
});
const SUBDOMAIN = 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters';

test('descriptor: namespaced, stored as v1beta1, delete answers a Status, default Table', () => {
  assert.equal([csiStorageCapacityKind.resource, csiStorageCapacityKind.kind, csiStorageCapacityKind.namespaced], ['csistoragecapacities', 'CSIStorageCapacity', true]);
  assert.is(csiStorageCapacityKind.storageVersion, 'v1beta1');
  assert.is(csiStorageCapacityKind.deleteReturns, 'Status');
  assert.is(csiStorageCapacityKind.table, undefined);
  assert.is(S.allowUnconditionalUpdate, false);
});

test('validate: every error twice (metadata included between the two copies)', () => {
  check('valid', S.validate(cap({ capacity: '1Gi', maximumVolumeSize: '-1', nodeTopology: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] } })), []);
  check('zero capacity', S.validate(cap({ capacity: '0' })), []);
  const one = [
    { type: 'FieldValueInvalid' as const, field: 'nodeTopology.matchLabels', msg: 'Invalid value: "a b": name part' },
    { type: 'FieldValueInvalid' as const, field: 'nodeTopology.matchLabels', msg: 'Invalid value: "-x": a valid label must be' },
    { type: 'FieldValueRequired' as const, field: 'nodeTopology.matchExpressions[0].values', msg: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
    { type: 'FieldValueInvalid' as const, field: 'nodeTopology.matchExpressions[0].key', msg: 'Invalid value: "": name part must be non-empty' },
    { type: 'FieldValueInvalid' as const, field: 'nodeTopology.matchExpressions[0].key' },
    { type: 'FieldValueForbidden' as const, field: 'nodeTopology.matchExpressions[1].values', msg: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" },
    { type: 'FieldValueInvalid' as const, field: 'nodeTopology.matchExpressions[2].operator', msg: 'Invalid value: "Near": not a valid selector operator' },
    { type: 'FieldValueInvalid' as const, field: 'storageClassName', msg: `Invalid value: "Bad": ${SUBDOMAIN}` },
    { type: 'FieldValueInvalid' as const, field: 'capacity', msg: 'capacity: Invalid value: "-1Gi": must be greater than or equal to 0' },
  ];
  const bad = cap({
    storageClassName: 'Bad',
    capacity: '-1Gi',
    nodeTopology: { matchLabels: { 'a b': 'x', y: '-x' }, matchExpressions: [{ key: '', operator: 'In' }, { key: 'k', operator: 'DoesNotExist', values: ['v'] }, { key: 'k', operator: 'Near' }] },
  });
  check('all', S.validate(bad), [...one, ...one]);
  check('metadata between', S.validate(cap({ storageClassName: '' }, { labels: { 'a b': 'x' } })), [
    { type: 'FieldValueInvalid', field: 'storageClassName', msg: `Invalid value: "": ${SUBDOMAIN}` },
    { type: 'FieldValueInvalid', field: 'metadata.labels' },
    { type: 'FieldValueInvalid', field: 'storageClassName' },
  ]);
});

test('validateUpdate: storageClassName and nodeTopology immutable, validated once', () => {
  const old = cap({ nodeTopology: { matchLabels: { a: 'b' } }, capacity: '1Gi' });
  check('capacity changes', S.validateUpdate(cap({ nodeTopology: { matchLabels: { a: 'b' } }, capacity: '2Gi', maximumVolumeSize: '1Gi' }), old), []);
  check('[] expressions equal absent ones', S.validateUpdate(cap({ nodeTopology: { matchLabels: { a: 'b' }, matchExpressions: [] } }), old), []);
  check('both changed', S.validateUpdate(cap({ storageClassName: 'slow', nodeTopology: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } }), old), [
    {
      type: 'FieldValueInvalid',
      field: 'nodeTopology',
      msg: 'nodeTopology: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"k", Operator:"Exists", Values:[]string(nil)}}}: field is immutable',
    },
    { type: 'FieldValueInvalid', field: 'storageClassName', msg: 'storageClassName: Invalid value: "slow": field is immutable' },
  ]);
  check('topology removed', S.validateUpdate(cap(), old), [{ type: 'FieldValueInvalid', field: 'nodeTopology', msg: 'Invalid value: "null": field is immutable' }]);
  check('labels printed sorted', S.validateUpdate(cap({ nodeTopology: { matchLabels: { b: '2', a: '1' } } }), old), [
    { type: 'FieldValueInvalid', field: 'nodeTopology', msg: 'map[string]string{"a":"1", "b":"2"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}' },
  ]);
  check('new object validated', S.validateUpdate(cap({ nodeTopology: { matchLabels: { a: 'b' } }, capacity: '-1' }), old), [{ type: 'FieldValueInvalid', field: 'capacity' }]);
});

test.run();
