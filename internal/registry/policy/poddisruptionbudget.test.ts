import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { PDB_V1BETA1_LABEL, fromV1beta1, podDisruptionBudgetTable, setDisruptionAllowedCondition, toV1beta1, validatePodDisruptionBudget } from './poddisruptionbudget.ts';

const pdb = (spec: Record<string, unknown>, apiVersion = 'policy/v1'): KubeObject => ({ apiVersion, kind: 'PodDisruptionBudget', metadata: { name: 'p', namespace: 'ns' }, spec });
const exists = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'Exists' }] };
const doesNotExist = { matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator: 'DoesNotExist' }] };

test('v1beta1 ⇄ stored form: the empty selector difference, both ways, round trips', () => {
  assert.equal(fromV1beta1(pdb({ selector: {} }, 'policy/v1beta1')).spec, { selector: exists });
  assert.equal(fromV1beta1(pdb({ selector: { matchLabels: {} } }, 'policy/v1beta1')).spec, { selector: exists });
  assert.equal(fromV1beta1(pdb({ selector: doesNotExist }, 'policy/v1beta1')).spec, { selector: {} });
  assert.equal(fromV1beta1(pdb({ selector: { matchLabels: { a: 'b' }, ...exists } }, 'policy/v1beta1')).spec, { selector: { matchLabels: { a: 'b' } } });
  assert.equal(fromV1beta1(pdb({}, 'policy/v1beta1')).spec, {});
  assert.equal(toV1beta1(pdb({ selector: exists })).spec, { selector: {} });
  assert.equal(toV1beta1(pdb({ selector: {} })).spec, { selector: doesNotExist });
  for (const spec of [{ selector: {} }, { selector: doesNotExist }, { selector: { matchLabels: { a: 'b' } } }, {}]) {
    const served = pdb(spec, 'policy/v1beta1');
    assert.equal(toV1beta1(fromV1beta1(served)), served, JSON.stringify(spec));
  }
  assert.is(fromV1beta1(toV1beta1(pdb({ selector: exists }))).apiVersion, 'policy/v1');
});

test('validation: both counts set, percentages, selector', () => {
  const errs = validatePodDisruptionBudget(pdb({ minAvailable: '101%', maxUnavailable: 1 }));
  assert.equal(
    errs.map((e) => [e.field, e.detail]),
    [
      ['spec', 'minAvailable and maxUnavailable cannot be both set'],
      ['spec.minAvailable', 'must not be greater than 100%'],
    ],
  );
  assert.equal(validatePodDisruptionBudget(pdb({ minAvailable: 0, selector: {} })), []);
});

test('DisruptionAllowed condition: added, flipped with a new transition time, kept otherwise', () => {
  const status: Record<string, unknown> & { conditions?: Record<string, unknown>[] } = { observedGeneration: 2, disruptionsAllowed: 0 };
  setDisruptionAllowedCondition(status, 'T1');
  assert.equal(status.conditions, [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods', message: '', observedGeneration: 2, lastTransitionTime: 'T1' }]);
  setDisruptionAllowedCondition(status, 'T2');
  assert.is(status.conditions![0]!.lastTransitionTime, 'T1');
  status.disruptionsAllowed = 1;
  setDisruptionAllowedCondition(status, 'T3');
  const c = status.conditions![0]!;
  assert.equal([c.status, c.reason, c.lastTransitionTime], ['True', 'SufficientPods', 'T3']);
});

test('Table cells: N/A for an absent count', () => {
  const cells = podDisruptionBudgetTable.cells({ ...pdb({ minAvailable: '50%' }), status: { disruptionsAllowed: 2 } });
  assert.equal(cells.slice(0, 4), ['p', '50%', 'N/A', 2]);
});

test.run();
