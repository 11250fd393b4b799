import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { bootstrapFlowSchema, bootstrapPriorityLevel } from '../../flowcontrol/objects.ts';
import { check } from '../core/testing.ts';
import { flowSchemaKind, flowSchemaTable, flowSchemaV1beta1Kind, matchingOrder } from './flowschema.ts';
import { priorityLevelKind, priorityLevelTable } from './prioritylevelconfiguration.ts';
import { goFlowSchemaSpec, semanticEqual, statusStrategy } from './helpers.ts';

const FS = flowSchemaKind.strategy;
const PL = priorityLevelKind.strategy;
const fs = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'FlowSchema', metadata: { name, creationTimestamp: '2024-01-01T00:00:00Z' }, spec });
const pl = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', kind: 'PriorityLevelConfiguration', metadata: { name, creationTimestamp: '2024-01-01T00:00:00Z' }, spec });

test('descriptors: v1beta2 preferred, stored as v1beta1 (discovery), v1beta1 a deprecated view', () => {
  assert.is(flowSchemaKind.storageVersion, 'v1beta1');
  assert.is(flowSchemaV1beta1Kind.deprecationWarning, 'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema is deprecated in v1.23+, unavailable in v1.26+; use flowcontrol.apiserver.k8s.io/v1beta2 FlowSchema');
  assert.is(flowSchemaV1beta1Kind.storedAs?.fromStorage(fs('a', {})).apiVersion, 'flowcontrol.apiserver.k8s.io/v1beta1');
  assert.is(FS.allowCreateOnUpdate, false);
});

test('defaults: matchingPrecedence 1000; shares 30 and queuing 64/8/50', () => {
  const f = fs('a', {});
  FS.defaults!(f);
  assert.equal(f.spec, { matchingPrecedence: 1000 });
  const p = pl('a', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 7 } } } });
  PL.defaults!(p);
  assert.equal(p.spec, { type: 'Limited', limited: { assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 7, handSize: 8, queueLengthLimit: 50 } } } });
});

test('validate: the bootstrap objects are valid; mandatory specs fixed; Go %#v of a spec', () => {
  for (const n of ['exempt', 'catch-all', 'probes', 'system-nodes']) check(n, FS.validate(bootstrapFlowSchema(n)), []);
  for (const n of ['exempt', 'catch-all', 'workload-low']) check(n, PL.validate(bootstrapPriorityLevel(n)), []);
  const changed = bootstrapFlowSchema('exempt');
  (changed.spec as any).matchingPrecedence = 2;
  check('exempt', FS.validate(changed), [{ type: 'FieldValueInvalid', field: 'spec' }]);
  assert.ok(goFlowSchemaSpec(changed.spec as any).startsWith('flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:"exempt"}, MatchingPrecedence:2, DistinguisherMethod:(*flowcontrol.FlowDistinguisherMethod)(nil), Rules:[]flowcontrol.PolicyRulesWithSubjects{'));
  check('exempt type', PL.validate(pl('other', { type: 'Exempt' })), [{ type: 'FieldValueInvalid', field: 'spec.type' }]);
  check('entropy', PL.validate(pl('q', { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1000, handSize: 20, queueLengthLimit: 1 } } } })), [{ type: 'FieldValueInvalid', field: 'spec.limited.limitResponse.queuing.handSize' }]);
});

test('semanticEqual: zero values equal absent ones, nil slices empty ones; set objects differ from absent', () => {
  assert.ok(semanticEqual({ a: 0, b: '', c: false, d: [] }, {}));
  assert.ok(semanticEqual({ rules: [{ resourceRules: [] }] }, { rules: [{}] }));
  assert.not.ok(semanticEqual({ distinguisherMethod: {} }, {}));
  assert.not.ok(semanticEqual({ x: [1] }, { x: [2] }));
});

test('/status keeps spec and metadata (not managedFields)', () => {
  const old = fs('a', { matchingPrecedence: 5 });
  old.metadata.labels = { a: 'b' };
  const n: KubeObject = { ...fs('a', { matchingPrecedence: 6 }), status: { conditions: [] } };
  n.metadata.labels = { a: 'c' };
  n.metadata.managedFields = [{ manager: 'm' }];
  statusStrategy.prepareForUpdate(n, old);
  assert.equal(n.spec, { matchingPrecedence: 5 });
  assert.equal(n.metadata.labels, { a: 'b' });
  assert.equal(n.metadata.managedFields, [{ manager: 'm' }]);
});

test('tables: FlowSchema cells and matching order; priority level cells', () => {
  const a = { ...fs('b', { priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 7, distinguisherMethod: { type: 'ByUser' } }), status: { conditions: [{ type: 'Dangling', status: 'True' }] } };
  assert.equal(flowSchemaTable.cells(a), ['b', 'p', 7, 'ByUser', '2024-01-01T00:00:00Z', 'True']);
  assert.equal(flowSchemaTable.cells(fs('c', {})), ['c', '', 0, '<none>', '2024-01-01T00:00:00Z', '?']);
  const sorted = flowSchemaTable.sortRows!([fs('z', { matchingPrecedence: 1 }), fs('b', { matchingPrecedence: 2 }), fs('a', { matchingPrecedence: 2 })]);
  assert.equal(sorted.map((o) => o.metadata.name), ['z', 'a', 'b']);
  assert.is(matchingOrder(fs('a', { matchingPrecedence: 2 }), fs('a', { matchingPrecedence: 2 })), 0);
  assert.equal(priorityLevelTable.cells(bootstrapPriorityLevel('exempt')).slice(0, 6), ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>']);
  assert.equal(priorityLevelTable.cells(bootstrapPriorityLevel('leader-election')).slice(0, 6), ['leader-election', 'Limited', 10, 16, 4, 50]);
});

test.run();
