import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compareKubeAwareVersions, sortedByGroupAndVersion } from './priorities.ts';

test('kube-aware version order: GA > beta > alpha > other; then major, minor; others by reverse name', () => {
  const versions = ['v1alpha1', 'foo', 'v2', 'v1', 'v1beta2', 'v11alpha2', 'v1beta1', 'v12alpha1', 'bar', 'v10beta3', 'v3beta1', 'v10'];
  // The example of k8s.io/apimachinery/pkg/version/helpers.go's doc comment.
  assert.equal([...versions].sort((a, b) => compareKubeAwareVersions(b, a)), ['v10', 'v2', 'v1', 'v10beta3', 'v3beta1', 'v1beta2', 'v1beta1', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});

test('SortedByGroupAndVersion: groups by groupPriorityMinimum then name, versions by versionPriority then version', () => {
  const s = (name: string, groupPriorityMinimum: number, versionPriority: number) => {
    const [version, ...g] = name.split('.');
    return { name, group: g.join('.'), version: version!, groupPriorityMinimum, versionPriority };
  };
  const out = sortedByGroupAndVersion([s('v1.b.io', 100, 10), s('v1.a.io', 100, 10), s('v2beta1.a.io', 100, 10), s('v1alpha1.a.io', 100, 20), s('v1.c.io', 2000, 1), s('v1beta1.b.io', 1500, 5)]);
  assert.equal(out.map((g) => g.map((e) => e.name)), [['v1.c.io'], ['v1.b.io', 'v1beta1.b.io'], ['v1alpha1.a.io', 'v1.a.io', 'v2beta1.a.io']]);
});

test.run();
