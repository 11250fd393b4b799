import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import { DELETION_TIMEOUT_MS, budgetStatus, scaledValue } from './disruption.ts';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const pod = (name: string, ready = true): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, uid: `uid-${name}`, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] },
  status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
const pdb = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'b', generation: 1 }, spec, status });
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Status = Record<string, any> | undefined;

test('scaledValue rounds percentages up', () => {
  assert.equal([scaledValue(2, 10), scaledValue('25%', 10), scaledValue('1%', 0)], [2, 3, 0]);
});

test('minAvailable (integer): matched Pods expected; unready and recently disrupted Pods not healthy', () => {
  const disruptedAt = new Date(NOW - DELETION_TIMEOUT_MS / 2).toISOString().replace(/\.\d+Z$/, 'Z');
  const { status, recheckAt } = budgetStatus({ pdb: pdb({ minAvailable: 1 }, { disruptedPods: { p3: disruptedAt } }), pods: [pod('p1'), pod('p2', false), pod('p3')], scaleOf: () => undefined, now: NOW });
  const s = status as Status;
  assert.equal([s?.expectedPods, s?.desiredHealthy, s?.currentHealthy, s?.disruptionsAllowed, s?.observedGeneration], [3, 1, 1, 0, 1]);
  assert.equal(s?.disruptedPods, { p3: disruptedAt });
  assert.is(recheckAt, Date.parse(disruptedAt) + DELETION_TIMEOUT_MS);
});

test('maxUnavailable percentage of the controller scale; a current status: nothing to write', () => {
  const inputs = { pods: [pod('p1'), pod('p2'), pod('p3')], scaleOf: () => ({ uid: 'rs-uid', scale: 4 }), now: NOW };
  const first = budgetStatus({ ...inputs, pdb: pdb({ maxUnavailable: '50%' }) }).status as Status;
  assert.equal([first?.expectedPods, first?.desiredHealthy, first?.disruptionsAllowed], [4, 2, 1]);
  assert.is(budgetStatus({ ...inputs, pdb: pdb({ maxUnavailable: '50%' }, first) }).status, undefined);
});

test('failSafe: a Pod whose controller is not found', () => {
  const s = budgetStatus({ pdb: pdb({ minAvailable: '50%' }, { disruptionsAllowed: 3 }), pods: [pod('p1')], scaleOf: () => undefined, now: NOW }).status as Status;
  assert.is(s?.disruptionsAllowed, 0);
  assert.equal(
    s?.conditions.map((c: Record<string, unknown>) => [c.status, c.reason, c.message]),
    [['False', 'SyncFailed', 'found no controllers for pod "p1"']],
  );
});

test.run();
