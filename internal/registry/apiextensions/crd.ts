/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1, cluster-scoped, with `/status`), after
 * apiextensions-apiserver 1.24.17: pkg/registry/customresourcedefinition/strategy.go (status
 * reset on create/update, generation, storedVersions) and pkg/apis/apiextensions/validation
 * (names, scope, versions, conversion; the schema through internal/apiextensions'
 * validateCRDSchema). v1beta1 is not served (removed in 1.22), as 1.24 answers it: 404.
 *
 * kube validates the internal form: v1 → internal conversion moves a schema (subresources,
 * printer columns) that every version shares to the spec's top level, so the errors of such a
 * schema name `spec.validation.openAPIV3Schema` and are reported once. The conditions and
 * acceptedNames are the controllers' (internal/controllers/crd-*.ts).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import { goQuote } from '../../gocompat/quote.ts';
import { FIELD_IMMUTABLE } from '../../validation/objectmeta.ts';
import { isDNS1035Label, isDNS1123Subdomain } from '../../validation/names.ts';
import { isObj } from '../../gocompat/json.ts';
import { semanticEqual } from '../../gocompat/equal.ts';
import { validateCRDSchema } from '../../apiextensions/structural.ts';
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import type { KindDescriptor, StatusStrategy, Strategy } from '../rest/strategy.ts';
import { validateReviewVersions, validateWebhookService, validateWebhookURL } from '../admissionregistration/validation.ts';
import { GO_POINTER, arr, goPtr, goStrings, obj, str } from '../storage/helpers.ts';

export const CRD_GROUP = 'apiextensions.k8s.io';
/** The finalizer kube's apiextensions-apiserver puts on every CRD: its custom resources go first. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

const spec = (o: KubeObject): Record<string, unknown> => obj(o.spec);
const names = (o: KubeObject): Record<string, unknown> => obj(spec(o).names);
const versions = (o: KubeObject): Record<string, unknown>[] => arr(spec(o).versions).map(obj);

/** v1 SetDefaults_CustomResourceDefinition(Spec): singular, listKind, conversion, storedVersions. */
function defaults(o: KubeObject): void {
  if (!isObj(o.spec)) return;
  const s = o.spec;
  if (isObj(s.names)) {
    const n = s.names;
    if (!str(n.singular) && typeof n.kind === 'string') n.singular = n.kind.toLowerCase();
    if (!str(n.listKind) && str(n.kind)) n.listKind = `${str(n.kind)}List`;
  }
  if (!isObj(s.conversion)) s.conversion = { strategy: 'None' };
  else if (isObj(s.conversion.webhook) && isObj(obj(s.conversion.webhook).clientConfig)) {
    const svc = obj(obj(s.conversion.webhook).clientConfig).service;
    if (isObj(svc) && svc.port === undefined) svc.port = 443;
  }
}

/**
 * dropDisabledFields: 1.24's CustomResourceValidationExpressions gate is alpha and off, so the
 * `x-kubernetes-validations` (CEL rules) of a new CRD's schemas are dropped, where kube's
 * dropXValidationsField walks: properties, additionalProperties, items and dependencies (those
 * under allOf/anyOf/oneOf/not stay, and the structural check refuses them). An update keeps them
 * when the stored CRD has some anywhere (SchemaHas). This server has no CEL: turning the gate on
 * changes nothing here.
 */
function dropXValidations(s: unknown): void {
  if (!isObj(s)) return;
  delete s['x-kubernetes-validations'];
  dropXValidations(s.additionalProperties);
  if (isObj(s.properties)) for (const p of Object.values(s.properties)) dropXValidations(p);
  if (Array.isArray(s.items)) s.items.forEach(dropXValidations);
  else dropXValidations(s.items);
  if (isObj(s.dependencies)) for (const d of Object.values(s.dependencies)) dropXValidations(d);
}

/** SchemaHas(x-kubernetes-validations set): every subschema, including allOf/anyOf/oneOf/not and definitions. */
function hasXValidations(s: unknown): boolean {
  if (!isObj(s)) return false;
  if (s['x-kubernetes-validations'] !== undefined && s['x-kubernetes-validations'] !== null) return true;
  const many = (v: unknown): boolean => (Array.isArray(v) ? v.some(hasXValidations) : isObj(v) && Object.values(v).some(hasXValidations));
  return (
    (Array.isArray(s.items) ? many(s.items) : hasXValidations(s.items)) ||
    many(s.allOf) || many(s.anyOf) || many(s.oneOf) || hasXValidations(s.not) ||
    many(s.properties) || hasXValidations(s.additionalProperties) || many(s.patternProperties) ||
    hasXValidations(s.additionalItems) || many(s.definitions) || many(s.dependencies)
  );
}

const schemasOf = (o: KubeObject): unknown[] => versions(o).map((v) => obj(v.schema).openAPIV3Schema);

function dropDisabledFields(n: KubeObject, old?: KubeObject): void {
  if (old && schemasOf(old).some(hasXValidations)) return;
  for (const s of schemasOf(n)) dropXValidations(s);
}

/** The version marked as storage, if exactly one is (the first otherwise). */
export function storageVersionOf(o: KubeObject): string | undefined {
  return str(versions(o).find((v) => v.storage === true)?.name) || undefined;
}

/** The strategy appends the storage version to status.storedVersions when it is not there. */
function addStoredVersion(o: KubeObject): void {
  const v = storageVersionOf(o);
  if (!v) return;
  const status = obj(o.status);
  const stored = arr(status.storedVersions).map(str);
  if (!stored.includes(v)) o.status = { ...status, storedVersions: [...stored, v] };
}

/** The per-version field (schema, subresources, additionalPrinterColumns) when all versions share it. */
function shared(o: KubeObject, field: string): { identical: boolean; value: unknown } {
  const vs = versions(o);
  if (vs.length === 0) return { identical: false, value: undefined };
  const value = vs[0][field];
  return { identical: vs.every((v) => semanticEqual(v[field], value)), value };
}

/**
 * Go's %#v of an internal CustomResourceDefinitionVersion, as kube prints it in messages: a field
 * that every version shares was moved to the spec's top level (nil here); a pointer prints as an
 * address (GO_POINTER; kube's differs per run).
 */
function goVersion(v: Record<string, unknown>, moved: { schema: boolean; subresources: boolean; columns: boolean }): string {
  const ptr = (field: string, type: string, isMoved: boolean): string => goPtr(!isMoved && v[field] !== undefined && v[field] !== null, type);
  const w = typeof v.deprecationWarning === 'string' ? GO_POINTER : 'nil';
  const cols = !moved.columns && Array.isArray(v.additionalPrinterColumns) && v.additionalPrinterColumns.length ? '[]apiextensions.CustomResourceColumnDefinition{…}' : '[]apiextensions.CustomResourceColumnDefinition(nil)';
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(str(v.name))}, Served:${v.served === true}, Storage:${v.storage === true}, Deprecated:${v.deprecated === true}, ` +
    `DeprecationWarning:(*string)(${w}), Schema:${ptr('schema', 'apiextensions.CustomResourceValidation', moved.schema)}, Subresources:${ptr('subresources', 'apiextensions.CustomResourceSubresources', moved.subresources)}, AdditionalPrinterColumns:${cols}}`
  );
}

/** What v1 → internal conversion moved to the top level (every version has the same value). */
const movedFields = (o: KubeObject) => ({ schema: shared(o, 'schema').identical, subresources: shared(o, 'subresources').identical, columns: shared(o, 'additionalPrinterColumns').identical });

const goVersions = (o: KubeObject): GoValue => {
  const moved = movedFields(o);
  return new GoValue(`[]apiextensions.CustomResourceDefinitionVersion{${versions(o).map((v) => goVersion(v, moved)).join(', ')}}`);
};

const hasStatus = (sub: unknown): boolean => isObj(sub) && isObj(sub.status);

function validateDeprecationWarning(v: Record<string, unknown>, p: FieldPath): FieldError[] {
  const w = v.deprecationWarning;
  if (w === undefined || w === null) return [];
  const at = p.child('deprecationWarning');
  if (v.deprecated !== true) return [invalid(at, w, 'can only be set for deprecated versions')];
  const text = str(w);
  const errs: FieldError[] = [];
  if (Buffer.byteLength(text, 'utf8') > 256) errs.push(invalid(at, text, 'must be <= 256 characters long'));
  if (text.length === 0) errs.push(invalid(at, text, 'must not be an empty string'));
  let index = 0;
  for (const ch of text) {
    if (/\p{Cc}/u.test(ch)) {
      errs.push(invalid(at, text, `must only contain printable UTF-8 characters; control character found at index ${index}`));
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      errs.push(invalid(at, text, `must only contain printable UTF-8 characters; non-printable character found at index ${index}`));
      break;
    }
    index += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

function validateSchema(schema: unknown, p: FieldPath, statusEnabled: boolean): FieldError[] {
  if (!isObj(schema) || !isObj(schema.openAPIV3Schema)) return [];
  return validateCRDSchema(schema.openAPIV3Schema as JSONSchemaProps, p.child('openAPIV3Schema'), { statusSubresource: statusEnabled });
}

/** ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
export function validateNames(n: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const dns = (field: string, value: string, prefix = ''): void => {
    const e = isDNS1035Label(prefix ? value.toLowerCase() : value);
    if (value.length > 0 && e.length) errs.push(invalid(p.child(field), value, prefix + e.join(',')));
  };
  const mixed = 'may have mixed case, but should otherwise match: ';
  dns('plural', str(n.plural));
  dns('singular', str(n.singular));
  dns('kind', str(n.kind), mixed);
  dns('listKind', str(n.listKind), mixed);
  arr(n.shortNames).forEach((s, i) => {
    const e = isDNS1035Label(str(s));
    if (e.length) errs.push(invalid(p.child('shortNames').index(i), str(s), e.join(',')));
  });
  if (str(n.kind) && n.kind === n.listKind) errs.push(invalid(p.child('listKind'), str(n.listKind), 'kind and listKind may not be the same'));
  arr(n.categories).forEach((s, i) => {
    const e = isDNS1035Label(str(s));
    if (e.length) errs.push(invalid(p.child('categories').index(i), str(s), e.join(',')));
  });
  return errs;
}

/** validateCustomResourceConversion on the internal form (v1's webhook.* are its fields). */
function validateConversion(c: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const strategy = str(c.strategy);
  if (!strategy) errs.push(required(p.child('strategy'), ''));
  else if (strategy !== 'None' && strategy !== 'Webhook') errs.push(notSupported(p.child('strategy'), strategy, ['None', 'Webhook']));
  const webhook = isObj(c.webhook) ? c.webhook : undefined;
  const cc = webhook && isObj(webhook.clientConfig) ? webhook.clientConfig : undefined;
  const reviewVersions = webhook && Array.isArray(webhook.conversionReviewVersions) ? webhook.conversionReviewVersions.map(str) : [];
  if (strategy === 'Webhook') {
    const ccp = p.child('webhookClientConfig');
    if (!cc) errs.push(required(ccp, 'required when strategy is set to Webhook'));
    else if ((cc.url === undefined) === (cc.service === undefined)) errs.push(required(ccp, 'exactly one of url or service is required'));
    else if (cc.url !== undefined) errs.push(...validateWebhookURL(ccp.child('url'), str(cc.url)));
    else {
      const s = obj(cc.service);
      // kube passes (name, namespace) where the function takes (namespace, name): a missing
      // namespace is reported as "service name is required", kept as kube answers.
      errs.push(...validateWebhookService(ccp.child('service'), str(s.name), str(s.namespace), typeof s.path === 'string' ? s.path : undefined, typeof s.port === 'number' ? s.port : 0));
    }
    const rp = p.child('conversionReviewVersions');
    errs.push(...(reviewVersions.length < 1 ? [required(rp, '')] : validateReviewVersions(reviewVersions, true, rp)));
  } else {
    if (cc) errs.push(forbidden(p.child('webhookClientConfig'), 'should not be set when strategy is not set to Webhook'));
    if (reviewVersions.length) errs.push(forbidden(p.child('conversionReviewVersions'), 'should not be set when strategy is not set to Webhook'));
  }
  return errs;
}

/** validateCustomResourceDefinitionSpec, on the v1 object read as kube's internal form. */
export function validateCRDSpec(o: KubeObject): FieldError[] {
  const p = new FieldPath('spec');
  const s = spec(o);
  const errs: FieldError[] = [];
  const group = str(s.group);
  if (!group) errs.push(required(p.child('group'), ''));
  else if (isDNS1123Subdomain(group).length) errs.push(invalid(p.child('group'), group, isDNS1123Subdomain(group).join(',')));
  else if (group.split('.').length < 2) errs.push(invalid(p.child('group'), group, 'should be a domain with at least one dot'));

  const scope = str(s.scope);
  if (!scope) errs.push(required(p.child('scope'), ''));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') errs.push(notSupported(p.child('scope'), scope, ['Cluster', 'Namespaced']));

  const vs = versions(o);
  const schema = shared(o, 'schema');
  const topSchema = schema.identical ? schema.value : undefined;
  const subresources = shared(o, 'subresources');
  const anyStatus = subresources.identical ? hasStatus(subresources.value) : vs.some((v) => hasStatus(v.subresources));
  if (!isObj(topSchema) || !isObj(topSchema.openAPIV3Schema)) {
    vs.forEach((v, i) => {
      if (!isObj(v.schema) || !isObj(v.schema.openAPIV3Schema)) errs.push(required(p.child('versions').index(i).child('schema').child('openAPIV3Schema'), 'schemas are required'));
    });
  }
  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  vs.forEach((v, i) => {
    const vp = p.child('versions').index(i);
    if (v.storage === true) storageCount++;
    const name = str(v.name);
    if (seen.has(name)) unique = false;
    seen.add(name);
    const e = isDNS1035Label(name);
    if (e.length) errs.push(invalid(vp.child('name'), name, e.join(',')));
    errs.push(...validateDeprecationWarning(v, vp));
    if (!schema.identical) errs.push(...validateSchema(v.schema, vp.child('schema'), subresources.identical ? anyStatus : hasStatus(v.subresources)));
  });
  if (!unique) errs.push(invalid(p.child('versions'), goVersions(o), 'must contain unique version names'));
  if (storageCount !== 1) errs.push(invalid(p.child('versions'), goVersions(o), 'must have exactly one version marked as storage version'));
  // The internal spec.version is versions[0].name (conversion), checked again.
  const first = vs.length ? str(vs[0]!.name) : '';
  if (first && isDNS1035Label(first).length) errs.push(invalid(p.child('version'), first, isDNS1035Label(first).join(',')));

  const n = names(o);
  for (const f of ['plural', 'singular', 'kind', 'listKind']) if (!str(n[f])) errs.push(required(p.child('names').child(f), ''));
  errs.push(...validateNames(n, p.child('names')));
  if (schema.identical) errs.push(...validateSchema(topSchema, p.child('validation'), anyStatus));
  if (isObj(s.conversion)) {
    const c = s.conversion;
    if (str(c.strategy) !== 'None' && s.preserveUnknownFields === true) errs.push(invalid(p.child('conversion').child('strategy'), str(c.strategy), 'must be None if spec.preserveUnknownFields is true'));
    errs.push(...validateConversion(c, p.child('conversion')));
  }
  return errs;
}

/** ValidateCustomResourceDefinitionStoredVersions. */
function validateStoredVersions(o: KubeObject): FieldError[] {
  const p = new FieldPath('status').child('storedVersions');
  const stored = arr(obj(o.status).storedVersions).map(str);
  if (stored.length === 0) return [invalid(p, new GoValue(goStrings(obj(o.status).storedVersions)), 'must have at least one stored version')];
  const errs: FieldError[] = [];
  const left = new Map(stored.map((v, i) => [v, i]));
  for (const v of versions(o)) {
    const name = str(v.name);
    if (v.storage === true && !left.has(name)) errs.push(invalid(p, new GoValue(goVersion(v, movedFields(o))), `must have the storage version ${name}`));
    left.delete(name);
  }
  for (const [v, i] of left) errs.push(invalid(p.index(i), v, 'must appear in spec.versions'));
  return errs;
}

/** The object's name must be `<plural>.<group>` (kube's name function adds it to the DNS check). */
function validateName(o: KubeObject): FieldError[] {
  const name = o.metadata.name ?? '';
  if (!name || name === `${str(names(o).plural)}.${str(spec(o).group)}`) return [];
  return [invalid(new FieldPath('metadata').child('name'), name, 'must be spec.names.plural+"."+spec.group')];
}

const APPROVAL = 'api-approved.kubernetes.io';

/** GetAPIApprovalState: the state of the approval annotation and kube's reason. */
function approvalState(o: KubeObject | undefined): { state: 'invalid' | 'approved' | 'bypassed' | 'missing'; reason: string } {
  const a = str(o?.metadata.annotations?.[APPROVAL]);
  if (!a) return { state: 'missing', reason: `protected groups must have approval annotation "${APPROVAL}", see https://github.com/kubernetes/enhancements/pull/1111` };
  if (a.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: ${goQuote(a)}` };
  let url: URL | undefined;
  try {
    url = new URL(a);
  } catch {
    url = undefined;
  }
  if (url && url.host && url.protocol) return { state: 'approved', reason: `approved in ${a}` };
  return { state: 'invalid', reason: `protected groups must have approval annotation "${APPROVAL}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111` };
}

/** validateAPIApproval: a group under k8s.io or kubernetes.io needs the approval annotation. */
function validateAPIApproval(o: KubeObject, old?: KubeObject): FieldError[] {
  const group = str(spec(o).group);
  const protectedGroup = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const now = approvalState(o);
  if (old && approvalState(old).state === now.state) return [];
  const p = new FieldPath('metadata').child('annotations').key(APPROVAL);
  if (now.state === 'missing') return [required(p, now.reason)];
  if (now.state === 'invalid') return [invalid(p, str(o.metadata.annotations?.[APPROVAL]), now.reason)];
  return [];
}

/** validatePreserveUnknownFields: v1 no longer allows spec.preserveUnknownFields true (unless it was). */
function validatePreserveUnknownFields(o: KubeObject, old?: KubeObject): FieldError[] {
  if (old && spec(old).preserveUnknownFields === true) return [];
  if (spec(o).preserveUnknownFields !== true) return [];
  return [invalid(new FieldPath('spec').child('preserveUnknownFields'), true, 'cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead')];
}

/** Spec, status.acceptedNames, storedVersions, API approval, preserveUnknownFields (ValidateCustomResourceDefinition after ObjectMeta). */
const validateCRDBody = (o: KubeObject, old?: KubeObject): FieldError[] => [
  ...validateCRDSpec(o),
  ...validateNames(obj(obj(o.status).acceptedNames), new FieldPath('status').child('acceptedNames')),
  ...validateStoredVersions(o),
  ...validateAPIApproval(o, old),
  ...validatePreserveUnknownFields(o, old),
];

/** On create only, the name must be `<plural>.<group>` (an update checks ObjectMeta's update rules, not the name). */
const validateCRD = (o: KubeObject): FieldError[] => [...validateName(o), ...validateCRDBody(o)];

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/** SetCRDCondition: the transition time changes only with the status (`now`: RFC 3339). */
export function setCondition(o: KubeObject, c: CRDCondition, now: string): void {
  const status = obj(o.status);
  const conditions = arr(status.conditions).map(obj);
  const old = conditions.find((x) => x.type === c.type);
  if (!old) conditions.push({ type: c.type, status: c.status, lastTransitionTime: now, reason: c.reason, message: c.message });
  else {
    if (old.status !== c.status || !old.lastTransitionTime) old.lastTransitionTime = now;
    Object.assign(old, { status: c.status, reason: c.reason, message: c.message });
  }
  o.status = { ...status, conditions };
}

/** The condition of that type, if any. */
export const conditionOf = (o: KubeObject, type: string): Record<string, unknown> | undefined => arr(obj(o.status).conditions).map(obj).find((c) => c.type === type);

export const established = (o: KubeObject): boolean => conditionOf(o, 'Established')?.status === 'True';

function validateCRDUpdate(n: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCRDBody(n, old);
  const p = new FieldPath('spec');
  // Appended after the spec's own errors (validateCustomResourceDefinitionSpecUpdate), before status ones.
  const at = errs.findIndex((e) => e.field.startsWith('status.'));
  const extra: FieldError[] = [];
  const push = (path: FieldPath, a: unknown, b: unknown): void => {
    if (!semanticEqual(a, b)) extra.push(invalid(path, a, FIELD_IMMUTABLE));
  };
  if (established(old)) {
    push(p.child('scope'), str(spec(n).scope), str(spec(old).scope));
    push(p.child('names').child('kind'), str(names(n).kind), str(names(old).kind));
  }
  push(p.child('group'), str(spec(n).group), str(spec(old).group));
  push(p.child('names').child('plural'), str(names(n).plural), str(names(old).plural));
  if (at < 0) return [...errs, ...extra];
  return [...errs.slice(0, at), ...extra, ...errs.slice(at)];
}

/** pkg/registry/customresourcedefinition strategy: status is the controllers', generation counts spec changes. */
export const crdStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaults,
  prepareForCreate(o) {
    o.status = {};
    dropDisabledFields(o);
    o.metadata.generation = 1;
    addStoredVersion(o);
  },
  prepareForUpdate(n, old) {
    if (old.status === undefined) delete n.status;
    else n.status = structuredClone(old.status);
    n.metadata.generation = (old.metadata.generation ?? 0) + (semanticEqual(n.spec, old.spec) ? 0 : 1);
    addStoredVersion(n);
    // After the generation (kube's order): an update adding only CEL rules still counts as a spec change.
    dropDisabledFields(n, old);
  },
  validate: validateCRD,
  validateUpdate: validateCRDUpdate,
  /** The REST's Delete: mark, add the cleanup finalizer and the Terminating condition (the finalizer controller does the rest). */
  beginDelete(o) {
    const finalizers = o.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) o.metadata.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
    setCondition(o, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, o.metadata.deletionTimestamp ?? '');
  },
};

/**
 * The status strategy: the spec stays as stored. kube 1.24 means to reset metadata too, but calls
 * ResetObjectMetaForStatus with the new object on both sides (a no-op), so labels, annotations and
 * finalizers do change through /status (the finalizing controller drops its finalizer that way).
 */
export const crdStatusStrategy: StatusStrategy = {
  prepareForUpdate(n, old) {
    n.spec = structuredClone(old.spec);
  },
  validateUpdate: (n) => validateNames(obj(obj(n.status).acceptedNames), new FieldPath('status').child('acceptedNames')),
};

export const crdKind: KindDescriptor = {
  group: CRD_GROUP,
  versions: ['v1'],
  resource: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  strategy: crdStrategy,
  subresources: [{ name: 'status', verbs: ['get', 'update', 'patch'], strategy: crdStatusStrategy }],
  deleteReturns: 'Object',
  apimachineryFinalizers: true,
  hasGeneration: true,
  // apiextensions-apiserver 1.24 still encodes CRDs in etcd as v1beta1 (discovery's storageVersionHash).
  storageVersion: 'v1beta1',
};
