import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import { add, evaluatorFor, formatQuantity, formatResourceList, parseQuantity, parseResourceList, podUsage, subtractNonNegative } from './resource-quota-usage.ts';

const sum = (...lists: Record<string, string>[]) => formatResourceList(lists.map(parseResourceList).reduce((a, b) => add(a, b), {}));

test('Quantity.Add: a zero receiver takes the other format; the receiver format otherwise', () => {
  assert.equal(sum({ m: '0' }, { m: '1Gi' }), { m: '1Gi' });
  assert.equal(sum({ m: '600Mi' }, { m: '100Mi' }), { m: '700Mi' });
  assert.equal(sum({ m: '1G' }, { m: '1Gi' }), { m: '2073741824' });
  assert.equal(sum({ c: '300m' }, { c: '300m' }, { c: '400m' }), { c: '1' });
  assert.equal(sum({ m: '1536Mi' }, { m: '0' }), { m: '1536Mi' });
  assert.is(formatQuantity(parseQuantity('1e3')), '1e3');
  assert.is(formatQuantity({ nanos: 1536n * 1_000_000_000n, format: 'BinarySI' }), '1536');
  assert.is(formatQuantity({ nanos: 500n, format: 'BinarySI' }), '500n');
});

test('SubtractWithNonNegativeResult keeps every name, never below zero', () => {
  const d = subtractNonNegative(parseResourceList({ a: '1', b: '2' }), parseResourceList({ b: '3', c: '1' }));
  assert.equal(formatResourceList(d), { a: '1', b: '0', c: '0' });
});

const pod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec, status }) as KubeObject;

test('PodUsageFunc: containers summed, init containers by max, overhead added to requests and limits; terminal pods count only count/pods', () => {
  const spec = {
    containers: [
      { name: 'a', resources: { requests: { cpu: '100m', memory: '1Gi' }, limits: { memory: '2Gi' } } },
      { name: 'b', resources: { requests: { cpu: '200m', 'example.com/gpu': '1' } } },
    ],
    initContainers: [{ name: 'i', resources: { requests: { cpu: '500m' } } }],
    overhead: { cpu: '10m' },
  };
  assert.equal(formatResourceList(podUsage(pod(spec), Date.now())), {
    'count/pods': '1',
    cpu: '510m',
    'limits.cpu': '10m',
    'limits.memory': '2Gi',
    memory: '1Gi',
    pods: '1',
    'requests.cpu': '510m',
    'requests.example.com/gpu': '1',
    'requests.memory': '1Gi',
  });
  assert.equal(formatResourceList(podUsage(pod(spec, { phase: 'Succeeded' }), Date.now())), { 'count/pods': '1' });
});

test('evaluators: which quota names each tracks', () => {
  const names = ['pods', 'count/pods', 'requests.cpu', 'services', 'services.nodeports', 'configmaps', 'count/configmaps', 'requests.storage', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims', 'count/deployments.apps', 'requests.hugepages-2Mi'];
  assert.equal(evaluatorFor('', 'pods').matchingResources(names), ['pods', 'count/pods', 'requests.cpu', 'requests.hugepages-2Mi']);
  assert.equal(evaluatorFor('', 'services').matchingResources(names), ['services', 'services.nodeports']);
  assert.equal(evaluatorFor('', 'configmaps').matchingResources(names), ['configmaps', 'count/configmaps']);
  assert.equal(evaluatorFor('', 'persistentvolumeclaims').matchingResources(names), ['requests.storage', 'gold.storageclass.storage.k8s.io/persistentvolumeclaims']);
  assert.equal(evaluatorFor('apps', 'deployments').matchingResources(names), ['count/deployments.apps']);
});

test.run();
