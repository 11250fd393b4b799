import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { fieldErrorMessage } from '../../api/field-errors.ts';
import { crdStrategy, crdStatusStrategy, validateCRDSpec } from './crd.ts';

const crd = (plural: string, kind: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: { group: 'example.com', names: { plural, kind }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }], ...extra },
});

test('defaults (singular, listKind, conversion) and create: status reset, generation 1, storedVersions', () => {
  const o = crd('widgets', 'Widget');
  o.status = { acceptedNames: { plural: 'x' }, conditions: [{ type: 'Established', status: 'True' }] };
  crdStrategy.defaults!(o);
  crdStrategy.prepareForCreate!(o);
  assert.equal((o.spec as any).names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
  assert.equal((o.spec as any).conversion, { strategy: 'None' });
  assert.equal(o.status, { storedVersions: ['v1'] });
  assert.is(o.metadata.generation, 1);
  assert.equal(crdStrategy.validate(o), []);
});

test('update: status kept, generation counts spec changes, a new storage version is appended to storedVersions', () => {
  const old = crd('widgets', 'Widget');
  old.metadata.generation = 3;
  old.status = { storedVersions: ['v1'], conditions: [] };
  const n = structuredClone(old);
  (n.spec as any).versions = [{ name: 'v1', served: true, storage: false }, { name: 'v2', served: true, storage: true }];
  n.status = {};
  crdStrategy.prepareForUpdate!(n, old);
  assert.is(n.metadata.generation, 4);
  assert.equal(n.status, { storedVersions: ['v1', 'v2'], conditions: [] });
  const same = structuredClone(old);
  crdStrategy.prepareForUpdate!(same, old);
  assert.is(same.metadata.generation, 3);
});

test('status writes keep the spec (metadata changes: kube resets it against itself)', () => {
  const old = crd('widgets', 'Widget');
  old.metadata.labels = { a: 'b' };
  const n = structuredClone(old);
  (n.spec as any).scope = 'Cluster';
  n.metadata.labels = { c: 'd' };
  n.metadata.finalizers = ['x/y'];
  crdStatusStrategy.prepareForUpdate(n, old);
  assert.is((n.spec as any).scope, 'Namespaced');
  assert.equal(n.metadata.labels, { c: 'd' });
  assert.equal(n.metadata.finalizers, ['x/y']);
});

test('a schema shared by every version is checked once, at spec.validation', () => {
  const bad = { openAPIV3Schema: { type: 'string' } };
  const two = crd('widgets', 'Widget', { versions: [{ name: 'v1', served: true, storage: true, schema: bad }, { name: 'v2', served: true, storage: false, schema: bad }] });
  crdStrategy.defaults!(two);
  assert.equal(validateCRDSpec(two).map(fieldErrorMessage), ['spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root']);
});

test('x-kubernetes-validations: dropped on create and on an update, kept when the stored CRD has some (kube 1.24, gate off)', () => {
  const rules = [{ rule: 'self > 0' }];
  const schema = () => ({ openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': rules, properties: { a: { type: 'integer', 'x-kubernetes-validations': rules } }, allOf: [{ 'x-kubernetes-validations': rules }] } });
  const o = crd('widgets', 'Widget', { versions: [{ name: 'v1', served: true, storage: true, schema: schema() }] });
  crdStrategy.prepareForCreate!(o);
  // allOf is not walked (kube's dropXValidationsField): the structural check refuses it there.
  assert.equal((o.spec as any).versions[0].schema, { openAPIV3Schema: { type: 'object', properties: { a: { type: 'integer' } }, allOf: [{ 'x-kubernetes-validations': rules }] } });
  const old = crd('widgets', 'Widget');
  const n = crd('widgets', 'Widget', { versions: [{ name: 'v1', served: true, storage: true, schema: schema() }] });
  crdStrategy.prepareForUpdate!(n, old);
  assert.is((n.spec as any).versions[0].schema.openAPIV3Schema['x-kubernetes-validations'], undefined);
  // A CRD stored with rules (written while the gate was on) keeps new ones.
  const had = crd('widgets', 'Widget', { versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', not: { 'x-kubernetes-validations': rules } } } }] });
  const kept = crd('widgets', 'Widget', { versions: [{ name: 'v1', served: true, storage: true, schema: schema() }] });
  crdStrategy.prepareForUpdate!(kept, had);
  assert.equal((kept.spec as any).versions[0].schema, schema());
});

test.run();
