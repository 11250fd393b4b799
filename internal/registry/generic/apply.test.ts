import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ManagedFieldsEntry } from '../../api/types.ts';
import { ApiError } from '../../api/errors.ts';
import { configMapKind } from '../core/index.ts';
import { FieldManager } from './managed-fields.ts';
import { serverSideApply, LAST_APPLIED } from './apply.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:00:05Z');
const fm = new FieldManager(configMapKind);
const cfg = (data?: Record<string, string>, meta: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', ...meta }, ...(data ? { data } : {}) });
const live = (data: Record<string, string> | undefined, mf: ManagedFieldsEntry[] | undefined, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'd', uid: 'u', resourceVersion: '5', managedFields: mf, ...meta },
  ...(data ? { data } : {}),
});
const entry = (manager: string, fieldsV1: Record<string, unknown>, operation: 'Apply' | 'Update' = 'Apply', time = '2026-01-01T00:00:00Z'): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: 'v1',
  time,
  fieldsType: 'FieldsV1',
  fieldsV1,
});
const fail = (f: () => unknown): ApiError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected an ApiError');
};

test('the ownership table, row by row (pure field-manager level)', () => {
  const a = [entry('A', { 'f:data': { 'f:k': {} } })];
  const rows: Array<{ name: string; live: KubeObject; patch: Record<string, unknown>; manager: string; force?: boolean; data?: Record<string, string>; mf?: ManagedFieldsEntry[]; conflict?: string }> = [
    { name: 'B applies a different value: conflict', live: live({ k: '1' }, a), patch: cfg({ k: '2' }), manager: 'B', conflict: 'Apply failed with 1 conflict: conflict with "A": .data.k' },
    { name: 'B forces: owned by B alone', live: live({ k: '1' }, a), patch: cfg({ k: '2' }), manager: 'B', force: true, data: { k: '2' }, mf: [entry('B', { 'f:data': { 'f:k': {} } }, 'Apply', '2026-01-01T00:00:05Z')] },
    { name: 'B applies the same value: shared', live: live({ k: '1' }, a), patch: cfg({ k: '1' }), manager: 'B', data: { k: '1' }, mf: [a[0], entry('B', { 'f:data': { 'f:k': {} } }, 'Apply', '2026-01-01T00:00:05Z')] },
    { name: 'A omits its field, nobody else: removed, entry gone', live: live({ k: '1' }, a), patch: cfg(), manager: 'A', data: undefined, mf: undefined },
    {
      name: 'A omits a shared field: kept, A gives it up',
      live: live({ k: '1' }, [a[0], entry('B', { 'f:data': { 'f:k': {} } })]),
      patch: cfg(),
      manager: 'A',
      data: { k: '1' },
      mf: [entry('B', { 'f:data': { 'f:k': {} } })],
    },
    { name: 'Update owner named with its version', live: live({ k: '1' }, [entry('U', { 'f:data': { 'f:k': {} } }, 'Update')]), patch: cfg({ k: '2' }), manager: 'B', conflict: 'Apply failed with 1 conflict: conflict with "U" using v1: .data.k' },
  ];
  for (const r of rows) {
    if (r.conflict) {
      const e = fail(() => serverSideApply(fm, { live: r.live, patch: r.patch, manager: r.manager, force: Boolean(r.force), now: T1 }));
      assert.is(e.code, 409, r.name);
      assert.is(e.status.message, r.conflict, r.name);
      continue;
    }
    const out = serverSideApply(fm, { live: r.live, patch: r.patch, manager: r.manager, force: Boolean(r.force), now: T1 });
    assert.equal(out.object.data ?? undefined, r.data, r.name);
    assert.equal(out.managedFields, r.mf, r.name);
  }
});

test('no change: no new time; create: the applier owns exactly the applied fields', () => {
  const mine = [entry('A', { 'f:data': { 'f:k': {} } })];
  const same = serverSideApply(fm, { live: live({ k: '1' }, mine), patch: cfg({ k: '1' }), manager: 'A', force: false, now: T1 });
  assert.equal(same.managedFields, mine);
  const created = serverSideApply(fm, { live: null, patch: cfg({ k: '1' }, { labels: { l: 'v' } }), manager: 'A', force: false, now: T0 });
  assert.equal(created.managedFields, [entry('A', { 'f:data': { 'f:k': {} }, 'f:metadata': { 'f:labels': { 'f:l': {} } } })]);
});

test('kubectl over a client-side apply: conflicts on last-applied values are forced, the annotation is rewritten', () => {
  const last = '{"apiVersion":"v1","data":{"k":"1"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"c","namespace":"d"}}\n';
  const csa = [entry('kubectl-client-side-apply', { 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} } } }, 'Update')];
  const l = live({ k: '1' }, csa, { annotations: { [LAST_APPLIED]: last } });
  assert.is(fail(() => serverSideApply(fm, { live: l, patch: cfg({ k: '2' }), manager: 'other', force: false, now: T1 })).code, 409);
  const out = serverSideApply(fm, { live: l, patch: cfg({ k: '2' }), manager: 'kubectl', force: false, now: T1 });
  assert.equal(out.object.data, { k: '2' });
  assert.is((out.object.metadata.annotations as Record<string, string>)[LAST_APPLIED], '{"apiVersion":"v1","data":{"k":"2"},"kind":"ConfigMap","metadata":{"name":"c"}}\n');
});

test('bad applied objects: 400 for version and managedFields, 500 (no reason) for the typed object', () => {
  const bad = (patch: Record<string, unknown>): [number, string | undefined, string | undefined] => {
    const e = fail(() => serverSideApply(fm, { live: null, patch, manager: 'm', force: false, now: T0 }));
    return [e.code, e.status.reason, e.status.message];
  };
  assert.equal(bad({ ...cfg(), apiVersion: 'v2' }), [400, 'BadRequest', 'Incorrect version specified in apply patch. Specified patch version: v2, expected: v1']);
  assert.equal(bad(cfg(undefined, { managedFields: [] })), [400, 'BadRequest', 'metadata.managedFields must be nil']);
  assert.equal(bad({ ...cfg(), spec: {} }), [500, undefined, 'failed to create typed patch object (/c; /v1, Kind=ConfigMap): .spec: field not declared in schema']);
  assert.equal(bad({ apiVersion: 'v1', metadata: { name: 'c' } }), [500, undefined, 'failed to create typed patch object (/c; /v1, Kind=): no corresponding type for /v1, Kind=']);
});

test.run();
