import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FieldPath, fieldErrorMessage } from '../../../api/field-errors.ts';
import {
  ENV_DOWNWARD_API_FIELD_PATHS,
  CONTAINER_RESOURCE_FIELD_PATHS,
  compareQuantities,
  quantityIntValue,
  roundUpToMilli,
  validateContainerResourceFieldSelector,
  validateObjectFieldSelector,
  validatePositiveQuantityValue,
  cleanPath,
} from './index.ts';

const P = new FieldPath('spec.containers[0].env[0].valueFrom.fieldRef');
const msgs = (e: ReturnType<typeof validateObjectFieldSelector>): string[] => e.map(fieldErrorMessage);

test('validateObjectFieldSelector with the env field set', () => {
  assert.equal(msgs(validateObjectFieldSelector({ apiVersion: 'v1', fieldPath: 'status.podIP' }, ENV_DOWNWARD_API_FIELD_PATHS, P)), []);
  // spec.host converts to spec.nodeName
  assert.equal(msgs(validateObjectFieldSelector({ apiVersion: 'v1', fieldPath: 'spec.host' }, ENV_DOWNWARD_API_FIELD_PATHS, P)), []);
  assert.equal(msgs(validateObjectFieldSelector({ fieldPath: 'x' }, ENV_DOWNWARD_API_FIELD_PATHS, P)), [`${P}.apiVersion: Required value`]);
  assert.equal(msgs(validateObjectFieldSelector({ apiVersion: 'v1', fieldPath: 'metadata.labels' }, ENV_DOWNWARD_API_FIELD_PATHS, P)), [
    `${P}.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.podIP", "status.podIPs"`,
  ]);
  assert.equal(msgs(validateObjectFieldSelector({ apiVersion: 'v1', fieldPath: "metadata.annotations['A_b']" }, ENV_DOWNWARD_API_FIELD_PATHS, P)), []);
});

test('validateContainerResourceFieldSelector for env (containerName optional)', () => {
  const R = new FieldPath('r');
  assert.equal(validateContainerResourceFieldSelector({ resource: 'limits.memory', divisor: '1Mi' }, CONTAINER_RESOURCE_FIELD_PATHS, undefined, R, false), []);
  assert.equal(validateContainerResourceFieldSelector({ resource: 'limits.memory', divisor: '0' }, CONTAINER_RESOURCE_FIELD_PATHS, undefined, R, false), []);
  assert.equal(msgs(validateContainerResourceFieldSelector({}, CONTAINER_RESOURCE_FIELD_PATHS, undefined, R, false)), ['r.resource: Required value']);
  assert.equal(msgs(validateContainerResourceFieldSelector({ resource: 'requests.ephemeral-storage', divisor: '2' }, CONTAINER_RESOURCE_FIELD_PATHS, undefined, R, false)), [
    `r.divisor: Invalid value: "requests.ephemeral-storage": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource`,
  ]);
});

test('quantity helpers', () => {
  assert.is(compareQuantities('1Gi', '1024Mi'), 0);
  assert.is(compareQuantities('1G', '1Gi'), -1);
  assert.is(compareQuantities('1500m', '1'), 1);
  assert.is(quantityIntValue('1500m'), 2n);
  assert.is(quantityIntValue('-1500m'), -2n);
  assert.is(roundUpToMilli('1n'), '1m');
  assert.is(roundUpToMilli('1000100u'), '1001m');
  assert.is(roundUpToMilli('5Gi'), '5Gi');
  assert.equal(validatePositiveQuantityValue('0', new FieldPath('x')).map(fieldErrorMessage), ['x: Invalid value: "0": must be greater than zero']);
});

test('cleanPath is Go path.Clean', () => {
  for (const [i, o] of [['/', '/'], ['//', '/'], ['/a/..', '/'], ['/..', '/'], ['a/../..', '..'], ['', '.'], ['/x/./y/', '/x/y']]) assert.is(cleanPath(i!), o);
});

test.run();
