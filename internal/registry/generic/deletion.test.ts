/** The pure DELETE rules of deletion.ts, table-driven (cases after kube's store_test.go). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GarbageCollectionPolicy } from '../rest/strategy.ts';
import { deletionFinalizers, gracefulDeletion, lifecycleDeletionFinalizers, markAsDeleting, type PropagationOptions } from './deletion.ts';
import type { KubeObject, ObjectMeta } from '../../api/types.ts';

const F = 'foregroundDeletion';
const O = 'orphan';
const X = 'example.com/x';

interface Case {
  name: string;
  policy?: GarbageCollectionPolicy;
  finalizers?: string[];
  opts: PropagationOptions;
  /** undefined: unchanged. */
  want?: string[];
}

const cases: Case[] = [
  { name: 'no options, no finalizers', opts: {}, want: undefined },
  { name: 'Foreground', opts: { propagationPolicy: 'Foreground' }, want: [F] },
  { name: 'Orphan', opts: { propagationPolicy: 'Orphan' }, want: [O] },
  { name: 'Background', opts: { propagationPolicy: 'Background' }, want: undefined },
  { name: 'orphanDependents true', opts: { orphanDependents: true }, want: [O] },
  { name: 'orphanDependents false is not foreground', opts: { orphanDependents: false }, want: undefined },
  { name: 'other finalizers keep their order, GC ones go last', finalizers: [X], opts: { propagationPolicy: 'Foreground' }, want: [X, F] },
  { name: 'Orphan replaces foreground', finalizers: [X, F], opts: { propagationPolicy: 'Orphan' }, want: [X, O] },
  { name: 'Background drops both', finalizers: [O, X], opts: { propagationPolicy: 'Background' }, want: [X] },
  { name: 'no options keep an existing GC finalizer', finalizers: [F], opts: {}, want: undefined },
  { name: 'orphanDependents false drops orphan', finalizers: [O], opts: { orphanDependents: false }, want: [] },
  { name: 'default policy OrphanDependents', policy: 'OrphanDependents', opts: {}, want: [O] },
  { name: 'default OrphanDependents yields to an existing foreground finalizer', policy: 'OrphanDependents', finalizers: [F], opts: {}, want: undefined },
  { name: 'default OrphanDependents yields to Background', policy: 'OrphanDependents', opts: { propagationPolicy: 'Background' }, want: undefined },
  { name: 'Unsupported: options ignored', policy: 'Unsupported', opts: { propagationPolicy: 'Foreground' }, want: undefined },
  { name: 'Unsupported: existing GC finalizers removed', policy: 'Unsupported', finalizers: [X, O], opts: {}, want: [X] },
];

cases.forEach((c, i) => {
  test(`deletionFinalizers case ${i}: ${c.name}`, () => {
    const got = deletionFinalizers(c.policy, { finalizers: c.finalizers }, c.opts);
    if (c.want === undefined) assert.is(got.changed, false, `case ${i}: unchanged`);
    else {
      assert.is(got.changed, true, `case ${i}: changed`);
      assert.equal(got.finalizers, c.want, `case ${i}`);
    }
  });
});

test('lifecycle (Namespace) rule: options alone decide; orphanDependents=false means foreground', () => {
  assert.equal(lifecycleDeletionFinalizers({}, { orphanDependents: false }), [F]);
  assert.equal(lifecycleDeletionFinalizers({}, { orphanDependents: true }), [O]);
  assert.equal(lifecycleDeletionFinalizers({ finalizers: [F] }, { propagationPolicy: 'Background' }), []);
  assert.is(lifecycleDeletionFinalizers({ finalizers: [O] }, {}), undefined);
  assert.is(lifecycleDeletionFinalizers({}, {}), undefined);
});

test('markAsDeleting: generation bumped once, deletionTimestamp kept unless later than now, grace 0', () => {
  const m = { generation: 3 } as { generation: number; deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
  markAsDeleting(m, '2026-01-01T00:00:00Z');
  assert.equal(m, { generation: 4, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
  markAsDeleting(m, '2026-01-02T00:00:00Z');
  assert.equal(m, { generation: 4, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
  const later = { deletionTimestamp: '2026-05-01T00:00:00Z', deletionGracePeriodSeconds: 30 };
  markAsDeleting(later, '2026-01-01T00:00:00Z');
  assert.equal(later, { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
});

test('gracefulDeletion (rest.BeforeDelete with a graceful strategy)', () => {
  const now = new Date('2026-01-01T00:00:00.500Z');
  const check = (_o: KubeObject, g: number | undefined): number => g ?? 30;
  type Case = [name: string, meta: ObjectMeta, requested: number | undefined, result: boolean | 'pending', after: ObjectMeta];
  const cases: Case[] = [
    ['first delete: the strategy period', {}, undefined, true, { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }],
    ['first delete: the request period', {}, 5, true, { deletionTimestamp: '2026-01-01T00:00:05Z', deletionGracePeriodSeconds: 5 }],
    ['negative request: 1', {}, -4, true, { deletionTimestamp: '2026-01-01T00:00:01Z', deletionGracePeriodSeconds: 1 }],
    ['generation bumped', { generation: 2 }, 0, true, { generation: 3, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }],
    ['deleting, no period given: pending', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }, undefined, 'pending', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }],
    ['deleting, longer period: pending', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }, 60, 'pending', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }],
    ['deleting, shorter period: moved earlier', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 }, 10, true, { deletionTimestamp: '2026-01-01T00:00:10Z', deletionGracePeriodSeconds: 10 }],
    ['deleting with period 0: not graceful', { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }, 0, false, { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 }],
  ];
  for (const [name, meta, requested, result, after] of cases) {
    const m = structuredClone(meta);
    assert.is(gracefulDeletion(check, { metadata: meta } as KubeObject, m, requested, now), result, name);
    assert.equal(m, after, name);
  }
});

test.run();
