import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { serviceAccountsTrigger, serviceAccountsToCreate, serviceAccountFor } from './service-accounts.ts';

const change = (type: Change['type'], resource: string, namespace: string, name: string, group = ''): Change => ({
  offset: 1,
  type,
  key: { group, resource, namespace, name },
  object: Buffer.from('{}'),
  time: 0,
});

const triggerCases: [string, Change, string | undefined][] = [
  ['namespace added', change('ADDED', 'namespaces', '', 'a'), 'a'],
  ['namespace updated (any phase: kube queues every update)', change('MODIFIED', 'namespaces', '', 'a'), 'a'],
  ['namespace deleted', change('DELETED', 'namespaces', '', 'a'), undefined],
  ['service account deleted', change('DELETED', 'serviceaccounts', 'a', 'default'), 'a'],
  ['another service account deleted', change('DELETED', 'serviceaccounts', 'a', 'builder'), 'a'],
  ['service account added', change('ADDED', 'serviceaccounts', 'a', 'default'), undefined],
  ['service account updated', change('MODIFIED', 'serviceaccounts', 'a', 'default'), undefined],
  ['configmap deleted', change('DELETED', 'configmaps', 'a', 'default'), undefined],
  ['same resource name in another group', change('DELETED', 'serviceaccounts', 'a', 'default', 'example.com'), undefined],
];
triggerCases.forEach(([label, c, want], i) => {
  test(`trigger ${i}: ${label}`, () => assert.is(serviceAccountsTrigger(c), want));
});

const ns = (phase: string | undefined): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' }, status: phase ? { phase } : {} });

const decisionCases: [string, KubeObject | null, string[], string[]][] = [
  ['active namespace without default', ns('Active'), [], ['default']],
  ['active namespace with default', ns('Active'), ['default'], []],
  ['other accounts do not count', ns('Active'), ['builder'], ['default']],
  ['terminating namespace: never', ns('Terminating'), [], []],
  ['namespace without a phase: not Active', ns(undefined), [], []],
  ['namespace gone', null, [], []],
];
decisionCases.forEach(([label, namespace, present, want], i) => {
  test(`decision ${i}: ${label}`, () => assert.equal(serviceAccountsToCreate(namespace, (n) => present.includes(n)), want));
});

test('several accounts to ensure, in order', () => {
  assert.equal(serviceAccountsToCreate(ns('Active'), (n) => n === 'b', ['a', 'b', 'c']), ['a', 'c']);
});

test('the created object is a bare ServiceAccount named in the namespace', () => {
  assert.equal(serviceAccountFor('default', 'a'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'a' } });
});

test.run();
