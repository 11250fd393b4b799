/**
 * The namespace controller's status conditions (kube's namespaceConditionUpdater), without a
 * server: what a pass writes for what it found, and when it writes nothing.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextConditions, type ContentTotals, type NamespaceCondition } from './namespace.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:01:00Z');
const totals = (remaining: [string, number][] = [], finalizers: [string, number][] = [], failures: string[] = []): ContentTotals => ({
  remaining: new Map(remaining),
  finalizers: new Map(finalizers),
  failures,
});
const OK: [string, string, string][] = [
  ['NamespaceDeletionDiscoveryFailure', 'ResourcesDiscovered', 'All resources successfully discovered'],
  ['NamespaceDeletionGroupVersionParsingFailure', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
  ['NamespaceDeletionContentFailure', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
  ['NamespaceContentRemaining', 'ContentRemoved', 'All content successfully removed'],
  ['NamespaceFinalizersRemaining', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'],
];
const ok = (at: Date): NamespaceCondition[] =>
  OK.map(([type, reason, message]) => ({ type, status: 'False', lastTransitionTime: at.toISOString().replace('.000Z', 'Z'), reason, message }));

test('first pass with nothing left: the five conditions in their "ok" form, in kube order', () => {
  assert.equal(nextConditions([], totals(), T0), ok(T0));
});

test('content and finalizers remaining: sorted summaries; unchanged input writes nothing', () => {
  const found = totals([['secrets.', 2], ['configmaps.', 1]], [['example.com/b', 1], ['example.com/a', 2]]);
  const got = nextConditions(ok(T0), found, T1)!;
  assert.equal(got.slice(0, 3), ok(T0).slice(0, 3), 'untouched conditions keep their time');
  assert.equal(got[3], { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: '2026-01-01T00:01:00Z', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances, secrets. has 2 resource instances' });
  assert.equal(got[4], {
    type: 'NamespaceFinalizersRemaining',
    status: 'True',
    lastTransitionTime: '2026-01-01T00:01:00Z',
    reason: 'SomeFinalizersRemain',
    message: 'Some content in the namespace has finalizers remaining: example.com/a in 2 resource instances, example.com/b in 1 resource instances',
  });
  assert.is(nextConditions(got, found, T1), null, 'same findings: no update');
  const back = nextConditions(got, totals(), T1)!;
  assert.equal(back, ok(T0).slice(0, 3).concat(ok(T1).slice(3)), 'flipped back to ok: new transition time');
});

test('failed deletions: one ContentFailure condition listing them sorted', () => {
  const got = nextConditions([], totals([], [], ['b failed', 'a failed']), T0)!;
  assert.equal(got[2], { type: 'NamespaceDeletionContentFailure', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'ContentDeletionFailed', message: 'Failed to delete all resource types, 2 remaining: a failed, b failed' });
});

test.run();
