import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want } from './testing.ts';
import { eventKind, fromCoreV1, toCoreV1 } from './event.ts';
import { eventsEventKind } from '../events/event.ts';
import { ApiError } from '../../api/errors.ts';

const meta = { name: 'e', namespace: 'ns', uid: 'u', resourceVersion: '5' };
const full: KubeObject = {
  kind: 'Event',
  apiVersion: 'v1',
  metadata: meta,
  involvedObject: { kind: 'Pod', namespace: 'ns', name: 'p', uid: 'pu', apiVersion: 'v1', resourceVersion: '3', fieldPath: 'spec.containers{c}' },
  reason: 'Pulled',
  message: 'pulled image',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-11-23T10:00:00Z',
  lastTimestamp: '2026-11-23T11:00:00Z',
  count: 3,
  type: 'Normal',
  eventTime: '2026-11-23T10:00:00.000001Z',
  series: { count: 2, lastObservedTime: '2026-11-23T11:00:00.500000Z' },
  action: 'Pull',
  related: { kind: 'Node', name: 'node-1' },
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

test('conversion: core/v1 → events.k8s.io/v1 → core/v1 is the identity, field by field', () => {
  const v1 = fromCoreV1(full);
  assert.equal(Object.keys(v1), ['kind', 'apiVersion', 'metadata', 'eventTime', 'series', 'reportingController', 'reportingInstance', 'action', 'reason', 'regarding', 'related', 'note', 'type', 'deprecatedSource', 'deprecatedFirstTimestamp', 'deprecatedLastTimestamp', 'deprecatedCount']);
  assert.is(v1.note, 'pulled image');
  assert.equal(v1.regarding, full.involvedObject);
  assert.is(v1.deprecatedCount, 3);
  assert.is(v1.reportingController, 'kubelet');
  const back = toCoreV1(v1);
  assert.equal(back, full);
  assert.equal(Object.keys(back), Object.keys(full));
  assert.is(back.metadata, full.metadata, 'metadata is carried, not rebuilt');
});

test('conversion: Go zero values (null times, {} structs, omitted empties) in both shapes', () => {
  const bare = fromCoreV1({ kind: 'Event', apiVersion: 'v1', metadata: meta });
  assert.equal(bare, { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: meta, eventTime: null, regarding: {}, deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null });
  assert.equal(toCoreV1(bare), { kind: 'Event', apiVersion: 'v1', metadata: meta, involvedObject: {}, source: {}, firstTimestamp: null, lastTimestamp: null, eventTime: null, reportingComponent: '', reportingInstance: '' });
});

test('defaults decode like Go: bad types are 400 with the Go struct path, times become canonical UTC', () => {
  const obj: KubeObject = { kind: 'Event', apiVersion: 'v1', metadata: meta, eventTime: '2026-11-23T12:00:00.123456+01:00', firstTimestamp: '2026-11-23T12:00:00.9+01:00', bogus: 1 };
  eventKind.strategy.defaults!(obj);
  assert.is(obj.eventTime, '2026-11-23T11:00:00.123456Z');
  assert.is(obj.firstTimestamp, '2026-11-23T11:00:00Z');
  assert.is(obj.bogus, undefined, 'unknown fields are dropped');
  const cases: [KubeObject, string][] = [
    [{ kind: 'Event', apiVersion: 'v1', metadata: meta, involvedObject: { name: 5 } }, 'json: cannot unmarshal number into Go struct field ObjectReference.involvedObject.name of type string'],
    [{ kind: 'Event', apiVersion: 'v1', metadata: meta, count: 'x' }, 'json: cannot unmarshal string into Go struct field Event.count of type int32'],
    [{ kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: meta, deprecatedCount: 'x' }, 'json: cannot unmarshal string into Go struct field Event.deprecatedCount of type int32'],
  ];
  cases.forEach(([o, msg], i) => {
    const kind = o.apiVersion === 'v1' ? eventKind : eventsEventKind;
    try {
      kind.strategy.defaults!(o);
      assert.unreachable(`case ${i}`);
    } catch (e) {
      assert.ok(e instanceof ApiError, `case ${i}`);
      assert.is((e as ApiError).status.message, `Event in version "v1" cannot be handled as a Event: ${msg}`, `case ${i}`);
    }
  });
});

const v1Event = (fields: Record<string, unknown> = {}): KubeObject => ({
  kind: 'Event',
  apiVersion: 'events.k8s.io/v1',
  metadata: { name: 'e', namespace: 'ns' },
  eventTime: '2026-11-23T11:00:00.000000Z',
  reportingController: 'example.com/c',
  reportingInstance: 'i',
  action: 'A',
  reason: 'R',
  regarding: { kind: 'Pod', name: 'p', namespace: 'ns' },
  type: 'Normal',
  ...fields,
});

test('validation per request version', () => {
  const cases: { name: string; kind: typeof eventKind; obj: KubeObject; want: Want[] }[] = [
    { name: 'valid events.k8s.io', kind: eventsEventKind, obj: v1Event(), want: [] },
    { name: 'kube-system may omit regarding.namespace', kind: eventsEventKind, obj: v1Event({ metadata: { name: 'e', namespace: 'kube-system' }, regarding: { kind: 'Node', name: 'n' } }), want: [] },
    { name: 'long action', kind: eventsEventKind, obj: v1Event({ action: 'a'.repeat(129) }), want: [{ type: 'FieldValueInvalid', field: 'action', msg: 'can have at most 128 characters' }] },
    { name: 'long instance', kind: eventsEventKind, obj: v1Event({ reportingInstance: 'i'.repeat(129) }), want: [{ type: 'FieldValueInvalid', field: 'reportingInstance', msg: 'can have at most 128 characters' }] },
    { name: 'series ok', kind: eventsEventKind, obj: v1Event({ series: { count: 2, lastObservedTime: '2026-11-23T11:00:00.000000Z' } }), want: [] },
    { name: 'core: default namespace needs no involvedObject.namespace', kind: eventKind, obj: { kind: 'Event', apiVersion: 'v1', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: 'Node', name: 'n' } }, want: [] },
    { name: 'core: mismatch', kind: eventKind, obj: { kind: 'Event', apiVersion: 'v1', metadata: { name: 'e', namespace: 'ns' }, involvedObject: { namespace: 'x' } }, want: [{ type: 'FieldValueInvalid', field: 'involvedObject.namespace', msg: 'does not match event.namespace' }] },
  ];
  for (const c of cases) {
    c.kind.strategy.defaults!(c.obj);
    check(c.name, c.kind.strategy.validate(c.obj), c.want);
  }
});

test('update through events.k8s.io/v1: immutable fields; core/v1: legacy rules only', () => {
  const old = v1Event();
  eventsEventKind.strategy.defaults!(old);
  const changed = v1Event({ note: 'new', regarding: { kind: 'Pod', name: 'q', namespace: 'ns' } });
  eventsEventKind.strategy.defaults!(changed);
  check('events.k8s.io', eventsEventKind.strategy.validateUpdate(changed, old), [
    { type: 'FieldValueInvalid', field: 'involvedObject', msg: 'core.ObjectReference{Kind:"Pod", Namespace:"ns", Name:"q", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable' },
    { type: 'FieldValueInvalid', field: 'message', msg: '"new": field is immutable' },
  ]);
  check('core', eventKind.strategy.validateUpdate(toCoreV1(changed), toCoreV1(old)), []);
});

test('field selectors and table cells', () => {
  const o = structuredClone(full);
  const f = eventKind.fieldSelectors!;
  assert.is(f['involvedObject.fieldPath']!(o), 'spec.containers{c}');
  assert.is(f.source!(o), 'kubelet');
  assert.is(f.source!({ ...o, source: {} }), 'kubelet', 'source falls back to reportingComponent');
  const v = eventsEventKind.fieldSelectors!;
  assert.equal(Object.keys(v).sort(), ['reason', 'regarding.apiVersion', 'regarding.fieldPath', 'regarding.kind', 'regarding.name', 'regarding.namespace', 'regarding.resourceVersion', 'regarding.uid', 'reportingController', 'type']);
  assert.is(v['regarding.uid']!(fromCoreV1(o)), 'pu');
  const cells = eventKind.table!.cells(o);
  assert.equal(cells.slice(1), ['Normal', 'Pulled', 'pod/p', 'spec.containers{c}', 'kubelet, node-1', 'pulled image', cells[7], 2, 'e']);
  assert.equal(eventsEventKind.table!.cells(fromCoreV1(o)).slice(1, 7), cells.slice(1, 7));
});

test('descriptors', () => {
  assert.equal([eventKind.group, eventKind.resource, eventKind.shortNames, eventKind.deleteReturns], ['', 'events', ['ev'], 'Status']);
  assert.is(eventKind.strategy.allowCreateOnUpdate, true);
  assert.is(eventKind.strategy.defaultGarbageCollectionPolicy, 'Unsupported');
  assert.equal([eventsEventKind.group, eventsEventKind.storedAs?.group, eventsEventKind.storedAs?.resource], ['events.k8s.io', '', 'events']);
});

test.run();
