/**
 * The metadata rules of embedded resources (`x-kubernetes-embedded-resource: true`), as
 * apiextensions-apiserver's schema/objectmeta applies them: on decode the metadata of each
 * embedded object is coerced to an ObjectMeta (unknown fields dropped, a wrongly typed field is
 * a 400), and on validation apiVersion and kind must be set, and the metadata must be valid
 * ObjectMeta (names only need to be path segments).
 */
import { FieldPath, GoValue, fieldErrorMessage, invalid, required, type FieldError } from '../api/field-errors.ts';
import { isObj, type Obj } from '../gocompat/json.ts';
import { isDNS1035Label, nameIsPathSegment } from '../validation/names.ts';
import { validateObjectMeta } from '../validation/objectmeta.ts';
import { goSharpV, propertyOf, type JSONSchemaProps } from './types.ts';
import { schemaFacts } from './schema-facts.ts';

/** ObjectMeta's JSON fields and the Go type each decodes into (for the unmarshal error text). */
const OBJECT_META: Record<string, 'string' | 'int64' | 'map[string]string' | '[]string' | 'object' | 'array'> = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'string',
  deletionTimestamp: 'string',
  deletionGracePeriodSeconds: 'int64',
  labels: 'map[string]string',
  annotations: 'map[string]string',
  ownerReferences: 'array',
  finalizers: '[]string',
  managedFields: 'array',
  clusterName: 'string',
};

const jsonType = (v: unknown): string =>
  typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : Array.isArray(v) ? 'array' : 'object';

/** The json.Unmarshal error of a metadata field of the wrong type, or undefined when it fits. */
function unmarshalError(field: string, v: unknown): string | undefined {
  if (v === null) return undefined;
  const t = OBJECT_META[field];
  const fail = (goType: string, at = `ObjectMeta.${field}`): string => `json: cannot unmarshal ${jsonType(v)} into Go struct field ${at} of type ${goType}`;
  switch (t) {
    case 'string':
      return typeof v === 'string' ? undefined : fail('string');
    case 'int64':
      return typeof v === 'number' && Number.isInteger(v) ? undefined : fail('int64');
    case 'map[string]string':
      if (!isObj(v)) return fail('map[string]string');
      for (const x of Object.values(v)) if (x !== null && typeof x !== 'string') return `json: cannot unmarshal ${jsonType(x)} into Go struct field ObjectMeta.${field} of type string`;
      return undefined;
    case '[]string':
      if (!Array.isArray(v)) return fail('[]string');
      for (const x of v) if (x !== null && typeof x !== 'string') return `json: cannot unmarshal ${jsonType(x)} into Go struct field ObjectMeta.${field} of type string`;
      return undefined;
    case 'array':
      return Array.isArray(v) ? undefined : fail(`[]v1.${field === 'ownerReferences' ? 'OwnerReference' : 'ManagedFieldsEntry'}`);
    default:
      return undefined;
  }
}

/**
 * An error that makes kube answer 400 `<Kind> in version "<v>" cannot be handled as a <Kind>:
 * <detail>` (metadata of the wrong shape on decode). `fieldError` is set for embedded resources;
 * the object's own metadata gives json's bare text.
 */
export class CoerceError extends Error {
  readonly detail: string;
  constructor(readonly fieldError: FieldError | undefined, text?: string) {
    super(fieldError ? fieldErrorMessage(fieldError) : (text ?? ''));
    this.detail = this.message;
  }
}

/**
 * Coerces the custom resource's own metadata (schemaobjectmeta.GetObjectMeta/SetObjectMeta):
 * unknown fields dropped; a field of the wrong type throws CoerceError with json's text, or is
 * dropped with `dropInvalid` (objects read from storage). Mutates `obj`.
 */
export function coerceObjectMeta(obj: Record<string, unknown>, dropInvalid = false): boolean {
  if (!('metadata' in obj)) return false;
  try {
    const before = obj.metadata;
    const meta = coerceMeta(before, METADATA, dropInvalid);
    if (meta) obj.metadata = meta;
    else delete obj.metadata;
    return meta !== before;
  } catch (e) {
    if (e instanceof CoerceError && e.fieldError) throw new CoerceError(undefined, e.fieldError.detail);
    throw e;
  }
}

const METADATA = new FieldPath('metadata');

/** A metadata value kept as it is: an ObjectMeta field with no null, zero generation or empty string. */
const keptAsIs = (k: string, v: unknown): boolean => v !== null && !(k === 'generation' && v === 0) && !(typeof v === 'string' && v === '') && unmarshalError(k, v) === undefined;

/**
 * Coerces one metadata map to what ObjectMeta keeps: unknown fields and nulls dropped; a field of
 * the wrong type throws, or is dropped with `dropInvalid` (objects read from storage). A map
 * that needs no change comes back as it is (the same object).
 */
function coerceMeta(meta: unknown, path: FieldPath, dropInvalid: boolean): Obj | undefined {
  if (meta === null || meta === undefined) return undefined;
  if (!isObj(meta)) {
    if (dropInvalid) return {};
    throw new CoerceError(invalid(path, new GoValue(goSharpV(meta)), `json: cannot unmarshal ${jsonType(meta)} into Go value of type v1.ObjectMeta`));
  }
  let asIs = true;
  for (const k in meta) {
    if (!(k in OBJECT_META) || !keptAsIs(k, meta[k])) {
      asIs = false;
      break;
    }
  }
  if (asIs) return meta;
  const out: Obj = {};
  for (const [k, v] of Object.entries(meta)) {
    if (!(k in OBJECT_META)) continue;
    const err = unmarshalError(k, v);
    if (err && dropInvalid) continue;
    if (err) throw new CoerceError(invalid(path, new GoValue(goSharpV(meta)), err));
    if (v !== null && !(k === 'generation' && v === 0) && !(typeof v === 'string' && v === '')) out[k] = v;
  }
  return out;
}

/**
 * Coerces the metadata of every embedded resource in `obj` (the custom resource's own metadata
 * is the store's business unless `resourceRoot`: then `obj` itself is coerced as an embedded one).
 * `base` prefixes the fields of errors; `dropInvalid` drops wrongly typed fields instead of throwing
 * (kube's decoder of stored objects). Mutates `obj`; throws CoerceError for a metadata field of the wrong
 * type (kube: 400 `<Kind> in version "<v>" cannot be handled as a <Kind>: <field error>`).
 */
export function coerceEmbedded(obj: unknown, schema: JSONSchemaProps | undefined, base = new FieldPath(), resourceRoot = false, dropInvalid = false): boolean {
  if (!schema) return false;
  const s = resourceRoot ? { ...schema, 'x-kubernetes-embedded-resource': true } : schema;
  if (!schemaFacts(s).hasEmbedded) return false;
  coerceNode(obj, s, base, dropInvalid);
  // Something may have changed (an embedded resource's fields were looked at).
  return true;
}

function coerceNode(x: unknown, s: JSONSchemaProps | undefined, path: FieldPath, dropInvalid: boolean): void {
  if (!s || !schemaFacts(s).hasEmbedded) return; // no embedded resource below: nothing to coerce
  if (isObj(x)) {
    if (s['x-kubernetes-embedded-resource']) {
      for (const k of ['apiVersion', 'kind']) {
        if (!(k in x) || typeof x[k] === 'string') continue;
        if (dropInvalid) delete x[k];
        else throw new CoerceError(invalid(path.child(k), new GoValue(goSharpV(x[k])), 'must be a string'));
      }
      if ('metadata' in x) {
        const meta = coerceMeta(x.metadata, path.child('metadata'), dropInvalid);
        if (meta) x.metadata = meta;
      }
    }
  }
  for (const [v, sub, p] of children(x, s, path)) coerceNode(v, sub, p, dropInvalid);
}

/**
 * The members of a map or list with their schemas and paths (a property's, else
 * additionalProperties', `[key]`; an item's, `[i]`): where objectmeta's walks descend.
 */
function children(x: unknown, s: JSONSchemaProps, path: FieldPath): [unknown, JSONSchemaProps, FieldPath][] {
  const out: [unknown, JSONSchemaProps, FieldPath][] = [];
  if (isObj(x)) {
    for (const [k, v] of Object.entries(x)) {
      const prop = propertyOf(s, k);
      if (prop) out.push([v, prop, path.child(k)]);
      else if (isObj(s.additionalProperties)) out.push([v, s.additionalProperties as JSONSchemaProps, path.key(k)]);
    }
  } else if (Array.isArray(x) && isObj(s.items)) {
    x.forEach((v, i) => out.push([v, s.items as JSONSchemaProps, path.index(i)]));
  }
  return out;
}

/** schema.ParseGroupVersion's error, or undefined. */
function groupVersionError(gv: string): string | undefined {
  return gv.split('/').length > 2 ? `unexpected GroupVersion string: ${gv}` : undefined;
}

/**
 * Validates the embedded resources in `obj` (objectmeta.Validate): below the top level of a
 * custom resource, or `obj` itself too when `resourceRoot` (a default of an embedded node).
 */
export function validateEmbedded(obj: unknown, schema: JSONSchemaProps | undefined, base = new FieldPath(), resourceRoot = false): FieldError[] {
  const errs: FieldError[] = [];
  if (schema) walk(obj, resourceRoot ? { ...schema, 'x-kubernetes-embedded-resource': true } : schema, base, errs);
  return errs;
}

function walk(x: unknown, s: JSONSchemaProps | undefined, path: FieldPath, errs: FieldError[]): void {
  if (!s || !schemaFacts(s).hasEmbedded) return; // no embedded resource below: nothing to check
  if (isObj(x) && s['x-kubernetes-embedded-resource']) errs.push(...validateEmbeddedResource(x, path));
  for (const [v, sub, p] of children(x, s, path)) walk(v, sub, p, errs);
}

function validateEmbeddedResource(x: Obj, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!('apiVersion' in x)) errs.push(required(path.child('apiVersion'), 'must not be empty'));
  if (!('kind' in x)) errs.push(required(path.child('kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      const p = path.child(k);
      if (typeof v !== 'string') errs.push(invalid(p, new GoValue(goSharpV(v)), 'must be a string'));
      else if (v === '') errs.push(invalid(p, v, 'must not be empty'));
      else {
        const e = groupVersionError(v);
        if (e) errs.push(invalid(p, v, e));
      }
    } else if (k === 'kind') {
      const p = path.child(k);
      if (typeof v !== 'string') errs.push(invalid(p, new GoValue(goSharpV(v)), 'must be a string'));
      else if (v === '') errs.push(invalid(p, v, 'must not be empty'));
      else {
        const e = isDNS1035Label(v.toLowerCase());
        if (e.length) errs.push(invalid(p, v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
      }
    } else if (k === 'metadata' && isObj(v)) {
      const meta: Obj = { ...v };
      if (!meta.name) meta.name = 'fakename';
      const namespaced = typeof meta.namespace === 'string' && meta.namespace.length > 0;
      errs.push(...validateObjectMeta(meta, namespaced, nameIsPathSegment, path.child('metadata'), { kubeFinalizers: false }));
    }
  }
  return errs;
}
