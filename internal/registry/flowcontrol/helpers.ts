/**
 * What FlowSchema and PriorityLevelConfiguration share (kube 1.24 pkg/apis/flowcontrol/validation,
 * pkg/registry/flowcontrol/*): the status subresource's strategy, Go's `%#v` of the internal specs
 * (the mandatory objects' "must equal the fixed value" message prints them), the semantic equality
 * that message is about, and v1beta1 as a deprecated view of the v1beta2 storage.
 */
import type { KubeObject } from '../../api/types.ts';
import type { FieldError } from '../../api/field-errors.ts';
import { FieldPath, GoValue, duplicate, invalid, required } from '../../api/field-errors.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { isObj } from '../../gocompat/json.ts';
import type { KindDescriptor, StatusStrategy, Strategy } from '../rest/strategy.ts';
import descriptions from '../../schema/generated/descriptions/flowcontrol_v1beta2.json' with { type: 'json' };
import type { ResetFieldsStrategy } from '../generic/managed-fields.ts';

export const GROUP = 'flowcontrol.apiserver.k8s.io';

export type Json = Record<string, unknown>;
export const obj = (v: unknown): Json => (isObj(v) ? v : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
export const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

/** A fake address: kube prints the heap address of a non-nil pointer (tests mask it). */
const PTR = '0xc000000000';
const ptr = (type: string, v: unknown, fmt: () => string = () => ''): string => (v === undefined || v === null ? `(*flowcontrol.${type})(nil)` : fmt() || `(*flowcontrol.${type})(${PTR})`);
const strSlice = (v: unknown): string => (Array.isArray(v) ? `[]string{${v.map((x) => goQuote(str(x))).join(', ')}}` : '[]string(nil)');
const slice = (type: string, v: unknown, each: (x: Json) => string): string =>
  Array.isArray(v) ? `[]flowcontrol.${type}{${v.map((x) => each(obj(x))).join(', ')}}` : `[]flowcontrol.${type}(nil)`;

function goSubject(s: Json): string {
  return `flowcontrol.Subject{Kind:${goQuote(str(s.kind))}, User:${ptr('UserSubject', s.user)}, Group:${ptr('GroupSubject', s.group)}, ServiceAccount:${ptr('ServiceAccountSubject', s.serviceAccount)}}`;
}

function goRule(r: Json): string {
  const rr = slice('ResourcePolicyRule', r.resourceRules, (x) => `flowcontrol.ResourcePolicyRule{Verbs:${strSlice(x.verbs)}, APIGroups:${strSlice(x.apiGroups)}, Resources:${strSlice(x.resources)}, ClusterScope:${x.clusterScope === true}, Namespaces:${strSlice(x.namespaces)}}`);
  const nr = slice('NonResourcePolicyRule', r.nonResourceRules, (x) => `flowcontrol.NonResourcePolicyRule{Verbs:${strSlice(x.verbs)}, NonResourceURLs:${strSlice(x.nonResourceURLs)}}`);
  return `flowcontrol.PolicyRulesWithSubjects{Subjects:${slice('Subject', r.subjects, goSubject)}, ResourceRules:${rr}, NonResourceRules:${nr}}`;
}

/** `%#v` of a flowcontrol.FlowSchemaSpec. */
export function goFlowSchemaSpec(spec: Json): string {
  return (
    `flowcontrol.FlowSchemaSpec{PriorityLevelConfiguration:flowcontrol.PriorityLevelConfigurationReference{Name:${goQuote(str(obj(spec.priorityLevelConfiguration).name))}}, ` +
    `MatchingPrecedence:${int(spec.matchingPrecedence)}, DistinguisherMethod:${ptr('FlowDistinguisherMethod', spec.distinguisherMethod)}, Rules:${slice('PolicyRulesWithSubjects', spec.rules, goRule)}}`
  );
}

/** `%#v` of a flowcontrol.PriorityLevelConfigurationSpec. */
export function goPriorityLevelSpec(spec: Json): string {
  return `flowcontrol.PriorityLevelConfigurationSpec{Type:${goQuote(str(spec.type))}, Limited:${ptr('LimitedPriorityLevelConfiguration', spec.limited)}}`;
}

/**
 * apiequality.Semantic.DeepEqual of two specs as JSON: a field left out equals its zero value
 * (Go has no absent ints, strings or bools) and a nil slice equals an empty one; an object stays
 * (a set pointer differs from a nil one).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => canonical(x) ?? null);
  if (isObj(v)) {
    const out: Json = {};
    for (const k of Object.keys(v).sort()) {
      const c = canonical(v[k]);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return v === '' || v === 0 || v === false || v === null ? undefined : v;
}

/** A v1beta2 field's description (the printers' column descriptions). */
export const doc = (type: string, field: string): string => (descriptions as Record<string, Record<string, string>>)[`io.k8s.api.flowcontrol.v1beta2.${type}`]?.[field] ?? '';

/**
 * Validate<Kind> minus ObjectMeta (the store's): the spec, a mandatory object's fixed spec (its
 * `%#v` in the message), the status.
 */
export function validateObject(o: KubeObject, mandatory: Map<string, unknown>, validateSpec: (name: string, spec: Json, p: FieldPath) => FieldError[], goSpec: (spec: Json) => string): FieldError[] {
  const name = o.metadata.name ?? '';
  const spec = obj(o.spec);
  const p = new FieldPath('spec');
  const errs = validateSpec(name, spec, p);
  const fixed = mandatory.get(name);
  if (fixed && !semanticEqual(spec, fixed)) errs.push(invalid(p, new GoValue(goSpec(spec)), `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(o));
  return errs;
}

/** Validate<Kind>Status: no two conditions of one type, each with a type. */
export function validateConditions(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  const p = new FieldPath('status').child('conditions');
  arr(obj(o.status).conditions).forEach((c, i) => {
    const type = str(obj(c).type);
    if (seen.has(type)) errs.push(duplicate(p.index(i).child('type'), type));
    seen.add(type);
    if (type === '') errs.push(required(p.index(i).child('type'), 'must not be empty'));
  });
  return errs;
}

/**
 * The strategy of both kinds (pkg/registry/flowcontrol/*): PUT does not create, updates need no
 * resourceVersion, status is cleared on create and kept on update, an update is validated as a create.
 */
export function flowcontrolStrategy(defaults: (o: KubeObject) => void, validate: (o: KubeObject) => FieldError[]): Strategy & ResetFieldsStrategy {
  return {
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    resetFields: ['status'],
    defaults,
    prepareForCreate(o) {
      o.status = {};
    },
    prepareForUpdate(n, o) {
      n.status = o.status === undefined ? {} : structuredClone(o.status);
    },
    validate,
    validateUpdate: (n) => validate(n),
  };
}

/**
 * The /status strategy of both kinds: the stored object's metadata (but managedFields) and spec
 * win; the status is validated.
 */
export const statusStrategy: StatusStrategy & ResetFieldsStrategy = {
  resetFields: ['metadata', 'spec'],
  prepareForUpdate(n, o) {
    const { managedFields, resourceVersion } = n.metadata;
    n.metadata = { ...structuredClone(o.metadata), resourceVersion };
    if (managedFields === undefined) delete n.metadata.managedFields;
    else n.metadata.managedFields = managedFields;
    if (o.spec === undefined) delete n.spec;
    else n.spec = structuredClone(o.spec);
  },
  validateUpdate: (n) => validateConditions(n),
};

/** The v1beta2 object in v1beta1 form: the two versions have the same fields. */
const withApiVersion = (apiVersion: string) => (o: KubeObject): KubeObject => ({ ...o, apiVersion });

/** flowcontrol.apiserver.k8s.io/v1beta1 of a v1beta2 kind: deprecated in 1.23, kube's Warning. */
export function v1beta1View(kind: KindDescriptor): KindDescriptor {
  return {
    ...kind,
    versions: ['v1beta1'],
    deprecationWarning: `${GROUP}/v1beta1 ${kind.kind} is deprecated in v1.23+, unavailable in v1.26+; use ${GROUP}/v1beta2 ${kind.kind}`,
    removedRelease: '1.26',
    storedAs: { group: GROUP, version: 'v1beta2', kind: kind.kind, resource: kind.resource, fromStorage: withApiVersion(`${GROUP}/v1beta1`), toStorage: withApiVersion(`${GROUP}/v1beta2`) },
  };
}
