import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bootstrapFlowSchema, bootstrapPriorityLevel } from '../flowcontrol/objects.ts';
import { danglingCondition, ensureUpdate, parseBool } from './apf-configuration.ts';

const stored = (o: any, fields: { generation?: number; annotation?: string | null; spec?: unknown }) => {
  const out = structuredClone(o);
  out.metadata.generation = fields.generation ?? 1;
  if (fields.annotation === null) delete out.metadata.annotations;
  else if (fields.annotation !== undefined) out.metadata.annotations = { 'apf.kubernetes.io/autoupdate-spec': fields.annotation };
  if (fields.spec !== undefined) out.spec = fields.spec;
  return out;
};

test('parseBool is strconv.ParseBool', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.is(parseBool(t), true);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.is(parseBool(f), false);
  for (const x of ['yes', '', 'tRUE', undefined]) assert.is(parseBool(x), undefined);
});

test('ensureUpdate: mandatory always restored; suggested by annotation, else generation 1', () => {
  const boot = bootstrapPriorityLevel('workload-low');
  const changed = { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Reject' } } };
  assert.is(ensureUpdate(stored(boot, {}), boot, false), null);
  assert.equal(ensureUpdate(stored(boot, { spec: changed }), boot, false)?.spec, boot.spec);
  assert.is(ensureUpdate(stored(boot, { spec: changed, annotation: 'false' }), boot, false), null);
  // No (parsable) annotation: auto-update while generation is 1, and the annotation says so.
  const g1 = ensureUpdate(stored(boot, { spec: changed, annotation: null }), boot, false)!;
  assert.equal([g1.spec, g1.metadata.annotations], [boot.spec, { 'apf.kubernetes.io/autoupdate-spec': 'true' }]);
  const g2 = ensureUpdate(stored(boot, { spec: changed, annotation: 'maybe', generation: 2 }), boot, false)!;
  assert.equal([g2.spec, g2.metadata.annotations], [changed, { 'apf.kubernetes.io/autoupdate-spec': 'false' }]);
  // Mandatory: "false" is overridden (annotation and spec).
  const ex = bootstrapFlowSchema('exempt');
  const m = ensureUpdate(stored(ex, { annotation: 'false' }), ex, true)!;
  assert.equal(m.metadata.annotations, { 'apf.kubernetes.io/autoupdate-spec': 'true' });
});

test('danglingCondition: kube\'s reasons and messages', () => {
  assert.equal(danglingCondition('x', true), { type: 'Dangling', status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "x" and it exists' });
  assert.equal(danglingCondition('x', false), { type: 'Dangling', status: 'True', reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "x" but there is no such object' });
});

test.run();
