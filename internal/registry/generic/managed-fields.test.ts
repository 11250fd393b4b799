import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject, ManagedFieldsEntry } from '../../api/types.ts';
import { configMapKind, namespaceKind, secretKind } from '../core/index.ts';
import { FieldManager, decodeManaged, defaultManager, encodeManaged, managerId } from './managed-fields.ts';

const T0 = new Date('2026-01-01T00:00:00Z');
const T1 = new Date('2026-01-01T00:00:05Z');
const cm = (fields: Partial<KubeObject> = {}, meta: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd', ...meta }, ...fields });
const stored = (o: KubeObject, mf: ManagedFieldsEntry[] | undefined): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: 'u', managedFields: mf } });
const entry = (manager: string, fieldsV1: Record<string, unknown>, time = '2026-01-01T00:00:00Z', extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time,
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});

test('create: the creator owns what it set, not server metadata', () => {
  const fm = new FieldManager(configMapKind);
  const mf = fm.update(cm({ data: { a: '1' } }, { labels: { x: 'y' }, generateName: 'g-', uid: 'ignored' }), null, 'me', T0);
  assert.equal(mf, [entry('me', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:x': {} } } })]);
});

test('create: defaults and the decoded form count (Secret type, stringData folded into data)', () => {
  const fm = new FieldManager(secretKind);
  const mf = fm.update({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: 'v' } }, null, 'me', T0);
  assert.equal(mf, [entry('me', { 'f:data': { '.': {}, 'f:k': {} }, 'f:type': {} })]);
});

test('update: other managers lose changed and removed fields; the writer loses removed ones', () => {
  const fm = new FieldManager(configMapKind);
  const live = stored(cm({ data: { a: '1', b: '2' } }), [entry('one', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } })]);
  const mf = fm.update(cm({ data: { a: 'changed' } }), live, 'two', T1);
  assert.equal(mf, [entry('one', { 'f:data': {} }), entry('two', { 'f:data': { 'f:a': {} } }, '2026-01-01T00:00:05Z')]);
});

test('update: an unchanged field set keeps its time; a no-op adds no entry', () => {
  const fm = new FieldManager(configMapKind);
  const live = stored(cm({ data: { a: '1' } }), [entry('one', { 'f:data': { '.': {}, 'f:a': {} } })]);
  assert.equal(fm.update(cm({ data: { a: '2' } }), live, 'one', T1), live.metadata.managedFields);
  assert.equal(fm.update(cm({ data: { a: '1' } }), live, 'other', T1), live.metadata.managedFields);
});

test('update: an untracked object stays untracked; [{}] and [] reset', () => {
  const fm = new FieldManager(configMapKind);
  const live = stored(cm({ data: { a: '1' } }), undefined);
  assert.is(fm.update(cm({ data: { a: '2' } }), live, 'one', T1), undefined);
  const tracked = stored(cm({ data: { a: '1' } }), [entry('one', { 'f:data': { '.': {}, 'f:a': {} } })]);
  assert.is(fm.update(cm({ data: { a: '2' } }, { managedFields: [{}] }), tracked, 'one', T1), undefined);
  assert.is(fm.update(cm({ data: { a: '2' } }, { managedFields: [] }), tracked, 'one', T1), undefined);
  // Invalid entries in the request fall back to the live ones.
  const bad = [{ manager: 'x', operation: 'Nope', apiVersion: 'v1', fieldsType: 'FieldsV1' }] as unknown as ManagedFieldsEntry[];
  assert.equal(fm.update(cm({ data: { a: '1' } }, { managedFields: bad }), tracked, 'one', T1), tracked.metadata.managedFields);
});

test('subresources: separate entries; status on the main resource is owned by nobody', () => {
  const fm = new FieldManager(namespaceKind);
  const ns = (status: string, labels?: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', labels }, spec: { finalizers: ['kubernetes'] }, status: { phase: status } });
  const live = stored(ns('Active', { 'kubernetes.io/metadata.name': 'n' }), [entry('c', { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } })]);
  assert.equal(fm.update(ns('Terminating'), live, 'main', T1), live.metadata.managedFields);
  const viaStatus = fm.update(ns('Terminating'), live, 'st', T1, 'status');
  assert.equal(viaStatus![1], entry('st', { 'f:status': { 'f:phase': {} } }, '2026-01-01T00:00:05Z', { subresource: 'status' }));
});

test('a strategy may declare its reset fields', () => {
  const kind = { ...configMapKind, strategy: { ...configMapKind.strategy, resetFields: ['metadata.annotations'] } };
  const fm = new FieldManager(kind);
  const mf = fm.update(cm({ data: { a: '1' } }, { annotations: { x: 'y' } }), null, 'me', T0);
  assert.equal(mf, [entry('me', { 'f:data': { '.': {}, 'f:a': {} } })]);
});

test('more than ten Update entries: the oldest merge into ancient-changes', () => {
  const fm = new FieldManager(configMapKind);
  const mf: ManagedFieldsEntry[] = [];
  const data: Record<string, string> = {};
  for (let i = 0; i < 10; i++) {
    data[`k${i}`] = 'v';
    mf.push(entry(`m${i}`, { 'f:data': { [`f:k${i}`]: {} } }, new Date(T0.getTime() + i * 1000).toISOString().replace('.000', '')));
  }
  const out = fm.update(cm({ data: { ...data, k10: 'v' } }), stored(cm({ data }), mf), 'm10', new Date(T0.getTime() + 60_000))!;
  assert.is(out.length, 10);
  const ancient = out.find((e) => e.manager === 'ancient-changes')!;
  assert.equal(ancient.fieldsV1, { 'f:data': { 'f:k0': {}, 'f:k1': {} } });
  assert.is(ancient.time, '2026-01-01T00:00:01Z');
  assert.is(out[0].manager, 'ancient-changes');
});

test('encoding order: operation, time (seconds), manager, apiVersion, subresource', () => {
  const m = decodeManaged([
    entry('b', { 'f:a': {} }, '2026-01-01T00:00:01Z'),
    entry('a', { 'f:a': {} }, '2026-01-01T00:00:01Z'),
    entry('z', { 'f:a': {} }, '2026-01-01T00:00:00Z'),
    entry('y', { 'f:a': {} }, '2026-01-01T00:00:09Z', { operation: 'Apply' }),
    entry('a', { 'f:a': {} }, '2026-01-01T00:00:01Z', { subresource: 'status' }),
  ]);
  assert.equal(encodeManaged(m)!.map((e) => `${e.operation}/${e.manager}/${e.subresource ?? ''}`), ['Apply/y/', 'Update/z/', 'Update/a/', 'Update/a/status', 'Update/b/']);
  assert.is(managerId({ manager: 'y', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"y","operation":"Apply"}');
});

test('default manager from the User-Agent', () => {
  assert.is(defaultManager('kubectl/v1.32.0 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.is(defaultManager('Mozilla/5.0'), 'Mozilla');
  assert.is(defaultManager(''), 'unknown');
  assert.is(defaultManager(undefined), 'unknown');
  assert.is(defaultManager('a\u0007b/1'), 'ab');
  assert.is(defaultManager('x'.repeat(300)).length, 128);
});

test.run();
