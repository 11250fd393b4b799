/**
 * Event (core/v1), after pkg/registry/core/event (strategy, storage) and
 * pkg/apis/core/validation/events.go (Kubernetes 1.24).
 *
 * Storage: every Event — whichever API version wrote it — is stored once, in its core/v1 form,
 * under the core `events` resource (kube: one etcd prefix /registry/events, both REST storages
 * are eventstore.NewREST). events.k8s.io/v1 (internal/registry/events/event.ts) is a view of those
 * objects through `fromCoreV1`/`toCoreV1`, kube's conversion through the internal type
 * (pkg/apis/events/v1/conversion.go): regarding ↔ involvedObject, note ↔ message, deprecatedSource ↔
 * source, deprecatedFirstTimestamp/LastTimestamp/Count ↔ firstTimestamp/lastTimestamp/count,
 * reportingController ↔ reportingComponent; the other fields keep their names. Both directions
 * rebuild the object field by field in Go's struct order with Go's omitempty rules, so the output is
 * deterministic and a round trip through either version is the identity.
 *
 * Validation depends on the API version of the request, as kube's (ValidateEventCreate takes the
 * request's group version): core/v1 gets the legacy rules only; events.k8s.io/v1 adds the strict
 * ones. Both run on the core/v1 form, so field paths use core names (`message`, `source`) exactly
 * as kube's, which validates the internal object.
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, invalid, required } from '../../api/field-errors.ts';
import { badRequest } from '../../api/errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { isDNS1123Subdomain, isQualifiedName, nameIsDNSSubdomain } from '../../validation/names.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/objectmeta.ts';
import { parseGoTime } from '../../gocompat/time.ts';
import { humanDuration } from '../rest/human-duration.ts';

import { isObj } from '../../gocompat/json.ts';
import { jsonEqual } from '../../gocompat/equal.ts';

export const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
export const ACTION_LENGTH_LIMIT = 128;
export const REASON_LENGTH_LIMIT = 128;
export const NOTE_LENGTH_LIMIT = 1024;

/** Which API a write came through: validation differs (see module comment). */
export type EventApi = 'v1' | 'events.k8s.io/v1' | 'events.k8s.io/v1beta1';

/** kube: only writes through events.k8s.io/v1 (and later) get the strict rules. */
const legacyOnly = (api: EventApi): boolean => api !== 'events.k8s.io/v1';

type Obj = Record<string, unknown>;
const byteLen = (s: string): number => Buffer.byteLength(s, 'utf8');

// ---------------------------------------------------------------------------------------------
// decoding: Go's JSON decoder on the Event types (wrong types → 400, times parsed and canonical)

/** 400 as kube's decoder answers (the message names the core version whatever the request's). */
const decodeError = (detail: string): Error => badRequest(`Event in version "v1" cannot be handled as a Event: ${detail}`);

const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/** Field reader that checks Go types; `struct` names the Go struct in error texts. */
class Decoder {
  constructor(private readonly src: Obj, private readonly struct: string, private readonly path: string) {}
  private fail(field: string, v: unknown, goType: string): never {
    throw decodeError(`json: cannot unmarshal ${jsonType(v)} into Go struct field ${this.struct}.${this.path}${field} of type ${goType}`);
  }
  str(field: string): string {
    const v = this.src[field];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(field, v, 'string');
    return v;
  }
  int32(field: string): number {
    const v = this.src[field];
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number') this.fail(field, v, 'int32');
    if (!Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) throw decodeError(`json: cannot unmarshal number ${v} into Go struct field ${this.struct}.${this.path}${field} of type int32`);
    return v;
  }
  /** A struct-typed field: its decoder, or null when absent/null. */
  sub(field: string, struct: string): Decoder | null {
    const v = this.src[field];
    if (v === undefined || v === null) return null;
    if (!isObj(v)) this.fail(field, v, goTypeName(struct));
    return new Decoder(v, struct, `${this.path}${field}.`);
  }
  /** metav1.Time (micro = false) or metav1.MicroTime: canonical text, or null when zero. */
  time(field: string, micro: boolean): string | null {
    const v = this.src[field];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') this.fail(field, v, micro ? 'v1.MicroTime' : 'v1.Time');
    const r = parseGoTime(v, micro);
    if (!r.ok) throw decodeError(r.error);
    return r.canonical;
  }
}
const goTypeName = (struct: string): string => (struct === 'EventSeries' ? 'v1.EventSeries' : struct === 'EventSource' ? 'v1.EventSource' : 'v1.ObjectReference');

/** The Go-side content of an Event, independent of the API version's field names. */
export interface EventFields {
  involvedObject: Obj;
  reason: string;
  message: string;
  source: { component: string; host: string };
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  count: number;
  type: string;
  eventTime: string | null;
  series: { count: number; lastObservedTime: string | null } | null;
  action: string;
  related: Obj | null;
  reportingController: string;
  reportingInstance: string;
}

function decodeObjectReference(d: Decoder | null): Obj {
  const out: Obj = {};
  if (!d) return out;
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    const v = d.str(f);
    if (v) out[f] = v;
  }
  return out;
}

/** Read an Event in either version's JSON (names per `api`) into EventFields; 400 on bad types. */
export function decodeEvent(obj: KubeObject, api: EventApi): EventFields {
  const core = api === 'v1';
  const d = new Decoder(obj as Obj, 'Event', '');
  const n = core
    ? { involvedObject: 'involvedObject', message: 'message', source: 'source', first: 'firstTimestamp', last: 'lastTimestamp', count: 'count', controller: 'reportingComponent' }
    : { involvedObject: 'regarding', message: 'note', source: 'deprecatedSource', first: 'deprecatedFirstTimestamp', last: 'deprecatedLastTimestamp', count: 'deprecatedCount', controller: 'reportingController' };
  const src = d.sub(n.source, 'EventSource');
  const series = d.sub('series', 'EventSeries');
  const related = d.sub('related', 'ObjectReference');
  return {
    involvedObject: decodeObjectReference(d.sub(n.involvedObject, 'ObjectReference')),
    reason: d.str('reason'),
    message: d.str(n.message),
    source: { component: src?.str('component') ?? '', host: src?.str('host') ?? '' },
    firstTimestamp: d.time(n.first, false),
    lastTimestamp: d.time(n.last, false),
    count: d.int32(n.count),
    type: d.str('type'),
    eventTime: d.time('eventTime', true),
    series: series ? { count: series.int32('count'), lastObservedTime: series.time('lastObservedTime', true) } : null,
    action: d.str('action'),
    related: related ? decodeObjectReference(related) : null,
    reportingController: d.str(n.controller),
    reportingInstance: d.str('reportingInstance'),
  };
}

const sourceJson = (s: EventFields['source']): Obj => {
  const o: Obj = {};
  if (s.component) o.component = s.component;
  if (s.host) o.host = s.host;
  return o;
};

/** EventFields → core/v1 JSON, in Go's field order with Go's omitempty rules. */
export function encodeCoreV1(meta: KubeObject['metadata'], e: EventFields): KubeObject {
  const o: KubeObject = { kind: 'Event', apiVersion: 'v1', metadata: meta, involvedObject: { ...e.involvedObject } };
  if (e.reason) o.reason = e.reason;
  if (e.message) o.message = e.message;
  o.source = sourceJson(e.source);
  o.firstTimestamp = e.firstTimestamp;
  o.lastTimestamp = e.lastTimestamp;
  if (e.count) o.count = e.count;
  if (e.type) o.type = e.type;
  o.eventTime = e.eventTime;
  if (e.series) {
    const s: Obj = {};
    if (e.series.count) s.count = e.series.count;
    s.lastObservedTime = e.series.lastObservedTime;
    o.series = s;
  }
  if (e.action) o.action = e.action;
  if (e.related) o.related = { ...e.related };
  o.reportingComponent = e.reportingController;
  o.reportingInstance = e.reportingInstance;
  return o;
}

/**
 * EventFields → events.k8s.io/v1 JSON (or v1beta1, the same shape), in Go's field order with Go's
 * omitempty rules.
 */
export function encodeEventsV1(meta: KubeObject['metadata'], e: EventFields, apiVersion = 'events.k8s.io/v1'): KubeObject {
  const o: KubeObject = { kind: 'Event', apiVersion, metadata: meta, eventTime: e.eventTime };
  if (e.series) o.series = { count: e.series.count, lastObservedTime: e.series.lastObservedTime };
  if (e.reportingController) o.reportingController = e.reportingController;
  if (e.reportingInstance) o.reportingInstance = e.reportingInstance;
  if (e.action) o.action = e.action;
  if (e.reason) o.reason = e.reason;
  o.regarding = { ...e.involvedObject };
  if (e.related) o.related = { ...e.related };
  if (e.message) o.note = e.message;
  if (e.type) o.type = e.type;
  o.deprecatedSource = sourceJson(e.source);
  o.deprecatedFirstTimestamp = e.firstTimestamp;
  o.deprecatedLastTimestamp = e.lastTimestamp;
  if (e.count) o.deprecatedCount = e.count;
  return o;
}

/** core/v1 → events.k8s.io/v1 (the StorageView read side). */
export const fromCoreV1 = (stored: KubeObject): KubeObject => encodeEventsV1(stored.metadata, decodeEvent(stored, 'v1'));
/** events.k8s.io/v1 → core/v1 (the StorageView write side). */
export const toCoreV1 = (served: KubeObject): KubeObject => encodeCoreV1(served.metadata, decodeEvent(served, 'events.k8s.io/v1'));
/** core/v1 → events.k8s.io/v1beta1. */
export const v1beta1FromCoreV1 = (stored: KubeObject): KubeObject => encodeEventsV1(stored.metadata, decodeEvent(stored, 'v1'), 'events.k8s.io/v1beta1');

// ---------------------------------------------------------------------------------------------
// validation (pkg/apis/core/validation/events.go), on EventFields + the event's namespace

const p = (...parts: string[]): FieldPath => new FieldPath(parts.join('.'));

/** legacyValidateEvent: the rules every Event write passes. */
function legacyValidate(e: EventFields, namespace: string): FieldError[] {
  const errs: FieldError[] = [];
  const involvedNs = String(e.involvedObject.namespace ?? '');
  const nsMismatch = (): FieldError => invalid(p('involvedObject', 'namespace'), involvedNs, 'does not match event.namespace');
  if (!e.eventTime) {
    if (!involvedNs) {
      if (namespace !== '' && namespace !== 'default') errs.push(nsMismatch());
    } else if (namespace !== involvedNs) errs.push(nsMismatch());
  } else {
    if (!involvedNs && namespace !== 'default' && namespace !== 'kube-system') errs.push(nsMismatch());
    if (!e.reportingController) errs.push(required(p('reportingController')));
    for (const msg of isQualifiedName(e.reportingController)) errs.push(invalid(p('reportingController'), e.reportingController, msg));
    if (!e.reportingInstance) errs.push(required(p('reportingInstance')));
    if (byteLen(e.reportingInstance) > REPORTING_INSTANCE_LENGTH_LIMIT) errs.push(invalid(p('reportingInstance'), '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    if (!e.action) errs.push(required(p('action')));
    if (byteLen(e.action) > ACTION_LENGTH_LIMIT) errs.push(invalid(p('action'), '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    if (!e.reason) errs.push(required(p('reason')));
    if (byteLen(e.reason) > REASON_LENGTH_LIMIT) errs.push(invalid(p('reason'), '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (byteLen(e.message) > NOTE_LENGTH_LIMIT) errs.push(invalid(p('message'), '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(invalid(p('namespace'), namespace, msg));
  return errs;
}

function validateSeries(e: EventFields): FieldError[] {
  const errs: FieldError[] = [];
  if (e.series) {
    if (e.series.count < 2) errs.push(invalid(p('series.count'), '', 'should be at least 2'));
    if (!e.series.lastObservedTime) errs.push(required(p('series.lastObservedTime')));
  }
  return errs;
}

/** ValidateEventCreate for a write through `api` (ObjectMeta is validated by the store as well). */
export function validateEventCreate(obj: KubeObject, e: EventFields, api: EventApi): FieldError[] {
  const ns = obj.metadata.namespace ?? '';
  const errs = legacyValidate(e, ns);
  if (legacyOnly(api)) return errs;
  // kube validates ObjectMeta here and again in the generic create path: errors appear twice.
  errs.push(...validateObjectMeta(obj.metadata, true, nameIsDNSSubdomain));
  errs.push(...validateSeries(e));
  if (!e.eventTime) errs.push(required(p('eventTime')));
  if (e.type !== 'Normal' && e.type !== 'Warning') errs.push(invalid(p('type'), '', `has invalid value: ${e.type}`));
  if (e.firstTimestamp) errs.push(invalid(p('firstTimestamp'), '', 'needs to be unset'));
  if (e.lastTimestamp) errs.push(invalid(p('lastTimestamp'), '', 'needs to be unset'));
  if (e.count !== 0) errs.push(invalid(p('count'), '', 'needs to be unset'));
  if (e.source.component || e.source.host) errs.push(invalid(p('source'), '', 'needs to be unset'));
  return errs;
}

/** Go's %#v-ish rendering of an ObjectReference for "field is immutable" messages. */
const goRef = (r: Obj | null): GoValue =>
  new GoValue(
    r === null
      ? '(*core.ObjectReference)(nil)'
      : `core.ObjectReference{Kind:${JSON.stringify(r.kind ?? '')}, Namespace:${JSON.stringify(r.namespace ?? '')}, Name:${JSON.stringify(r.name ?? '')}, UID:${JSON.stringify(r.uid ?? '')}, APIVersion:${JSON.stringify(r.apiVersion ?? '')}, ResourceVersion:${JSON.stringify(r.resourceVersion ?? '')}, FieldPath:${JSON.stringify(r.fieldPath ?? '')}}`,
  );

/** ValidateEventUpdate for a write through `api`. */
export function validateEventUpdate(newObj: KubeObject, n: EventFields, oldObj: KubeObject, o: EventFields, api: EventApi): FieldError[] {
  const errs = legacyValidate(n, newObj.metadata.namespace ?? '');
  if (legacyOnly(api)) return errs;
  errs.push(...validateObjectMetaUpdate(newObj.metadata, oldObj.metadata));
  if (!jsonEqual(n.series, o.series)) errs.push(...validateSeries(n));
  const immutable = (path: string, a: unknown, b: unknown, shown: unknown = a): void => {
    if (!jsonEqual(a, b)) errs.push(invalid(p(path), shown, 'field is immutable'));
  };
  immutable('involvedObject', n.involvedObject, o.involvedObject, goRef(n.involvedObject));
  immutable('reason', n.reason, o.reason);
  immutable('message', n.message, o.message);
  immutable('source', n.source, o.source, new GoValue(`core.EventSource{Component:${JSON.stringify(n.source.component)}, Host:${JSON.stringify(n.source.host)}}`));
  immutable('firstTimestamp', n.firstTimestamp, o.firstTimestamp);
  immutable('lastTimestamp', n.lastTimestamp, o.lastTimestamp);
  immutable('count', n.count, o.count);
  immutable('reason', n.reason, o.reason);
  immutable('type', n.type, o.type);
  immutable('eventTime', n.eventTime, o.eventTime);
  immutable('action', n.action, o.action);
  immutable('related', n.related, o.related, goRef(n.related));
  immutable('reportingController', n.reportingController, o.reportingController);
  immutable('reportingInstance', n.reportingInstance, o.reportingInstance);
  return errs;
}

// ---------------------------------------------------------------------------------------------
// strategy, table, field selectors (shared by both versions through `api`)

/**
 * The Event strategy for writes through `api`; objects arrive in that API's shape. Decoding
 * (types, times) runs in `defaults`, so a malformed body is a 400 before validation.
 */
export function eventStrategy(api: EventApi): Strategy {
  const encode = (meta: KubeObject['metadata'], e: EventFields): KubeObject => (api === 'v1' ? encodeCoreV1(meta, e) : encodeEventsV1(meta, e, api));
  return {
    allowCreateOnUpdate: true,
    allowUnconditionalUpdate: true,
    // rest.Unsupported: DELETE never adds orphan/foreground finalizers to an Event.
    defaultGarbageCollectionPolicy: 'Unsupported',
    defaults(obj) {
      const canonical = encode(obj.metadata, decodeEvent(obj, api));
      for (const k of Object.keys(obj)) delete obj[k];
      Object.assign(obj, canonical);
    },
    validate: (obj) => validateEventCreate(obj, decodeEvent(obj, api), api),
    validateUpdate: (n, o) => validateEventUpdate(n, decodeEvent(n, api), o, decodeEvent(o, api), api),
  };
}

const since = (t: string | null): string => (t ? humanDuration(Date.now() - Date.parse(t)) : '<unknown>');

/** printEvent's cells (Wide, as kube-apiserver renders Tables), from EventFields. */
export function eventCells(obj: KubeObject, e: EventFields): unknown[] {
  const first = e.firstTimestamp ? since(e.firstTimestamp) : since(e.eventTime);
  let last = e.lastTimestamp ? since(e.lastTimestamp) : first;
  let count = e.count;
  if (e.series) {
    last = since(e.series.lastObservedTime);
    count = e.series.count;
  } else if (count === 0) count = 1; // singleton events carry no count in the new API
  const kind = String(e.involvedObject.kind ?? '').toLowerCase();
  const target = e.involvedObject.name ? `${kind}/${String(e.involvedObject.name)}` : kind;
  const component = e.source.component || e.reportingController;
  const instance = e.source.host || e.reportingInstance;
  const source = instance ? `${component}, ${instance}` : component;
  return [last, e.type, e.reason, target, String(e.involvedObject.fieldPath ?? ''), source, e.message.trim(), first, count, obj.metadata.name ?? ''];
}

/** Column descriptions are kube's (the core/v1 Event swagger docs). */
export function eventTable(api: EventApi): TableConvertor {
  return {
    columns: [
      { name: 'Last Seen', type: 'string', description: 'The time at which the most recent occurrence of this event was recorded.', priority: 0 },
      { name: 'Type', type: 'string', description: 'Type of this event (Normal, Warning), new types could be added in the future', priority: 0 },
      { name: 'Reason', type: 'string', description: "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", priority: 0 },
      { name: 'Object', type: 'string', description: 'The object that this event is about.', priority: 0 },
      {
        name: 'Subobject',
        type: 'string',
        description:
          'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
        priority: 1,
      },
      { name: 'Source', type: 'string', description: 'The component reporting this event. Should be a short machine understandable string.', priority: 1 },
      { name: 'Message', type: 'string', description: 'A human-readable description of the status of this operation.', priority: 0 },
      { name: 'First Seen', type: 'string', description: 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', priority: 1 },
      { name: 'Count', type: 'string', description: 'The number of times this event has occurred.', priority: 1 },
      {
        name: 'Name',
        type: 'string',
        format: 'name',
        description:
          'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names',
        priority: 1,
      },
    ],
    cells: (obj) => eventCells(obj, decodeEvent(obj, api)),
  };
}

/** ToSelectableFields (core/v1 names), computed from EventFields. */
export function coreEventFields(e: EventFields): Record<string, string> {
  const ref = (f: string): string => String(e.involvedObject[f] ?? '');
  return {
    'involvedObject.kind': ref('kind'),
    'involvedObject.namespace': ref('namespace'),
    'involvedObject.name': ref('name'),
    'involvedObject.uid': ref('uid'),
    'involvedObject.apiVersion': ref('apiVersion'),
    'involvedObject.resourceVersion': ref('resourceVersion'),
    'involvedObject.fieldPath': ref('fieldPath'),
    reason: e.reason,
    reportingComponent: e.reportingController,
    source: e.source.component || e.reportingController,
    type: e.type,
  };
}

const coreSelector = (field: string) => (obj: KubeObject): string => coreEventFields(decodeEvent(obj, 'v1'))[field] ?? '';

export const eventKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'events',
  singular: 'event',
  kind: 'Event',
  listKind: 'EventList',
  namespaced: true,
  shortNames: ['ev'],
  strategy: eventStrategy('v1'),
  table: eventTable('v1'),
  fieldSelectors: Object.fromEntries(
    ['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type'].map((f) => [f, coreSelector(f)]),
  ),
  deleteReturns: 'Status',
};
