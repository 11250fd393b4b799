import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check } from '../core/testing.ts';
import { defaultNetworkPolicy, formatLabelSelector, networkPolicyKind } from './networkpolicy.ts';

const np = (spec?: Record<string, unknown>): KubeObject => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'n', namespace: 'ns' }, ...(spec ? { spec } : {}) });

test('defaults: policyTypes Ingress (+ Egress with egress rules), port protocol TCP', () => {
  const a = np();
  defaultNetworkPolicy(a);
  assert.equal(a.spec, { policyTypes: ['Ingress'] });
  const b = np({ egress: [{ ports: [{ port: 1 }, { protocol: 'UDP' }] }], policyTypes: ['Egress'] });
  defaultNetworkPolicy(b);
  assert.equal(b.spec, { egress: [{ ports: [{ port: 1, protocol: 'TCP' }, { protocol: 'UDP' }] }], policyTypes: ['Egress'] });
  const c = np({ egress: [{}] });
  defaultNetworkPolicy(c);
  assert.equal((c.spec as any).policyTypes, ['Ingress', 'Egress']);
});

test('validate: an IPv6 except inside an IPv4 cidr is not a subset; update repeats spec errors', () => {
  const S = networkPolicyKind.strategy;
  check('family', S.validate(np({ podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['::/64'] } }] }] })), [{ type: 'FieldValueInvalid', field: 'spec.ingress[0].from[0].ipBlock.except[0]', msg: 'strict subset' }]);
  const bad = np({ podSelector: {}, policyTypes: ['X'] });
  assert.is(S.validateUpdate(bad, bad).length, 2);
});

test('formatLabelSelector: sorted by key, operators as labels.Selector prints them', () => {
  assert.is(formatLabelSelector({}), '<none>');
  assert.is(formatLabelSelector({ matchLabels: { b: '1', a: '2' }, matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['z', 'y'] }, { key: 'a0', operator: 'Exists' }] }), 'a=2,a0,b=1,c notin (y,z)');
  assert.is(formatLabelSelector({ matchExpressions: [{ key: 'x', operator: 'Bad' }] }), '<error>');
});

test.run();
