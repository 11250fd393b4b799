/**
 * Event (events.k8s.io/v1): a view of the Events stored in their core/v1 form (see
 * internal/registry/core/event.ts for the storage decision and the conversion). Validation is
 * kube's strict events.k8s.io rules; field selectors are kube's events.k8s.io/v1 field labels
 * (pkg/apis/events/v1/conversion.go AddFieldLabelConversionsForEvent), each answering what its
 * core/v1 counterpart answers.
 */
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor } from '../rest/strategy.ts';
import { coreEventFields, decodeEvent, eventStrategy, eventTable, fromCoreV1, toCoreV1, v1beta1FromCoreV1 } from '../core/event.ts';

/** events.k8s.io/v1 field label → the core/v1 selectable field it maps to. */
const FIELD_LABELS: Record<string, string> = {
  reason: 'reason',
  'regarding.kind': 'involvedObject.kind',
  'regarding.namespace': 'involvedObject.namespace',
  'regarding.name': 'involvedObject.name',
  'regarding.uid': 'involvedObject.uid',
  'regarding.apiVersion': 'involvedObject.apiVersion',
  'regarding.resourceVersion': 'involvedObject.resourceVersion',
  'regarding.fieldPath': 'involvedObject.fieldPath',
  reportingController: 'reportingComponent',
  type: 'type',
};

const selector = (coreField: string) => (obj: KubeObject): string => coreEventFields(decodeEvent(obj, 'events.k8s.io/v1'))[coreField] ?? '';

export const eventsEventKind: KindDescriptor = {
  group: 'events.k8s.io',
  versions: ['v1'],
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  strategy: eventStrategy('events.k8s.io/v1'),
  table: eventTable('events.k8s.io/v1'),
  fieldSelectors: Object.fromEntries(Object.entries(FIELD_LABELS).map(([label, core]) => [label, selector(core)])),
  deleteReturns: 'Status',
  storedAs: { group: '', version: 'v1', kind: 'Event', resource: 'events', fromStorage: fromCoreV1, toStorage: toCoreV1 },
};

/**
 * events.k8s.io/v1beta1 Event (still served by 1.24, deprecated): the v1 shape under another
 * apiVersion, kube's legacy validation only (ValidateEventCreate treats v1beta1 like core/v1).
 */
export const eventsV1beta1EventKind: KindDescriptor = {
  ...eventsEventKind,
  versions: ['v1beta1'],
  strategy: eventStrategy('events.k8s.io/v1beta1'),
  table: eventTable('events.k8s.io/v1beta1'),
  fieldSelectors: Object.fromEntries(Object.entries(FIELD_LABELS).map(([label, core]) => [label, (obj: KubeObject) => coreEventFields(decodeEvent(obj, 'events.k8s.io/v1beta1'))[core] ?? ''])),
  deprecationWarning: 'events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+',
  removedRelease: '1.25',
  storedAs: { group: '', version: 'v1', kind: 'Event', resource: 'events', fromStorage: v1beta1FromCoreV1, toStorage: toCoreV1 },
};
