/**
 * The checks kube-apiserver 1.24 runs on a CRD version's `schema.openAPIV3Schema` when a CRD is
 * created (apiextensions validation: ValidateCustomResourceDefinitionOpenAPISchema, then, when
 * nothing unsupported was found, the structural-schema rules of apiserver/schema (invariants and
 * completeness, sorted by their text), then the defaults: each must survive pruning, be valid
 * metadata where it applies, and validate against its schema).
 *
 * Not covered: CEL rules (`x-kubernetes-validations` are not compiled or costed) and the
 * relaxations kube grants an update of a CRD whose stored schema already broke a rule (every
 * option below is as for a create).
 */
import { FieldPath, GoValue, forbidden, invalid, notSupported, required, type FieldError } from '../api/field-errors.ts';
import { fieldErrorMessage } from '../api/field-errors.ts';
import { isObj } from '../gocompat/json.ts';
import { jsonEqual } from '../gocompat/equal.ts';
import { CoerceError, coerceEmbedded, validateEmbedded } from './embedded.ts';
import { prune } from './prune.ts';
import { goRegexpError } from './go-regexp.ts';
import { ALLOWED_AT_ROOT_WITH_STATUS, firstForbiddenAtRoot, goSchemaStruct } from './go-schema.ts';
import { goSharpV, propertyOf, type JSONSchemaProps } from './types.ts';
import { validateAgainstSchema } from './validate.ts';

/** What kube requires of the schema (all true for a create in 1.24's v1). */
export interface SchemaCheckOptions {
  /** The version has the status subresource: only some fields are allowed at the root. */
  statusSubresource?: boolean;
}

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);
const has = (o: object | undefined, k: string): boolean => !!o && Object.prototype.hasOwnProperty.call(o, k);
const nonEmpty = (o: object | undefined): boolean => !!o && Object.keys(o).length > 0;
const itemsSchema = (s: JSONSchemaProps): JSONSchemaProps | undefined => (isObj(s.items) ? (s.items as JSONSchemaProps) : undefined);

/** The spec standard validator's state (specStandardValidatorV3): may this node carry a default? */
interface Ssv {
  allowDefaults: boolean;
  reason: string;
  insideResourceMeta: boolean;
}

function validateStandard(s: JSONSchemaProps, p: FieldPath, v: Ssv): FieldError[] {
  const errs: FieldError[] = [];
  if (s.type && !OPENAPI_V3_TYPES.includes(s.type)) errs.push(notSupported(p.child('type'), s.type, OPENAPI_V3_TYPES));
  if (s.default !== undefined && !v.allowDefaults) errs.push(forbidden(p.child('default'), `must not be set${v.reason ? ` ${v.reason}` : ''}`));
  if (s.id) errs.push(forbidden(p.child('id'), 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (nonEmpty(s.patternProperties)) errs.push(forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  if (nonEmpty(s.definitions)) errs.push(forbidden(p.child('definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined) errs.push(forbidden(p.child('dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(p.child('$ref'), '$ref is not supported'));
  if (s.type === 'null') errs.push(forbidden(p.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(forbidden(p.child('items'), 'items must be a schema object and not an array'));
  if (v.insideResourceMeta && s['x-kubernetes-embedded-resource']) errs.push(forbidden(p.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  return errs;
}

/** ValidateCustomResourceDefinitionOpenAPISchema: the per-node rules, recursively. */
function validateOpenAPISchema(s: JSONSchemaProps | undefined, p: FieldPath, v: Ssv, isRoot: boolean): FieldError[] {
  if (!s) return [];
  const errs = validateStandard(s, p, v);
  if (s.uniqueItems === true) errs.push(forbidden(p.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.additionalProperties !== undefined) {
    if (nonEmpty(s.properties) && (s.additionalProperties === false || isObj(s.additionalProperties))) {
      errs.push(forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    const sub = v.insideResourceMeta ? { ...v, allowDefaults: false, reason: 'inside additionalProperties applying to object metadata' } : v;
    if (isObj(s.additionalProperties)) errs.push(...validateOpenAPISchema(s.additionalProperties as JSONSchemaProps, p.child('additionalProperties'), sub, false));
  }
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    let sub = v;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, reason: `in top-level ${name}` };
    }
    errs.push(...validateOpenAPISchema(prop, p.child('properties').key(name), sub, false));
  }
  for (const k of ['allOf', 'oneOf', 'anyOf'] as const) s[k]?.forEach((x, i) => errs.push(...validateOpenAPISchema(x, p.child(k).index(i), v, false)));
  if (s.not) errs.push(...validateOpenAPISchema(s.not, p.child('not'), v, false));
  for (const [name, d] of Object.entries(s.definitions ?? {})) errs.push(...validateOpenAPISchema(d, p.child('definitions').key(name), v, false));
  if (isObj(s.items)) errs.push(...validateOpenAPISchema(s.items as JSONSchemaProps, p.child('items'), v, false));
  else if (Array.isArray(s.items)) s.items.forEach((x, i) => errs.push(...validateOpenAPISchema(x, p.child('items').index(i), v, false)));
  for (const [name, d] of Object.entries(s.dependencies ?? {})) if (!Array.isArray(d)) errs.push(...validateOpenAPISchema(d, p.child('dependencies').key(name), v, false));

  if (s['x-kubernetes-preserve-unknown-fields'] === false) errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type'), 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(p.child('type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(p.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const items = itemsSchema(s);
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) errs.push(required(p.child('type'), 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(p.child('type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    const msg = 'must be atomic as item of a list with x-kubernetes-list-type=set';
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalid(p.child('items').child('x-kubernetes-list-type'), items['x-kubernetes-list-type'], msg));
    } else if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      // kube prints the item's list type here (a nil pointer: "null").
      errs.push(invalid(p.child('items').child('x-kubernetes-map-type'), items['x-kubernetes-list-type'] ?? 'null', msg));
    }
  }
  if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType)) errs.push(notSupported(p.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  const mapKeys = s['x-kubernetes-list-map-keys'] ?? [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(required(p.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(p.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') errs.push(...validateListMapSchema(s, p, mapKeys));
  errs.push(...validateMapListKeysMapSet(s, p));
  return errs;
}

const goStrings = (xs: string[]): GoValue => new GoValue(`[]string{${xs.map((x) => JSON.stringify(x)).join(', ')}}`);

function validateListMapSchema(s: JSONSchemaProps, p: FieldPath, mapKeys: string[]): FieldError[] {
  const errs: FieldError[] = [];
  const items = itemsSchema(s);
  if (mapKeys.length === 0) errs.push(required(p.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
  if (s.items === undefined) errs.push(required(p.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
  if (s.items !== undefined && !items) errs.push(invalid(p.child('items'), new GoValue(goSharpV(s.items)), 'must only have a single schema if x-kubernetes-list-type is map'));
  if (items && items.type !== 'object') errs.push(invalid(p.child('items').child('type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
  if (items && items.type === 'object') {
    const seen = new Set<string>();
    for (const k of mapKeys) {
      const prop = propertyOf(items, k);
      if (prop) {
        if (prop.type === 'array' || prop.type === 'object') {
          errs.push(invalid(p.child('items').child('properties').key(k).child('type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        }
      } else errs.push(invalid(p.child('x-kubernetes-list-map-keys'), goStrings(mapKeys), 'entries must all be names of item properties'));
      if (seen.has(k)) errs.push(invalid(p.child('x-kubernetes-list-map-keys'), goStrings(mapKeys), 'must not contain duplicate entries'));
      seen.add(k);
    }
  }
  return errs;
}

function validateMapListKeysMapSet(s: JSONSchemaProps, p: FieldPath): FieldError[] {
  const items = itemsSchema(s);
  const listType = s['x-kubernetes-list-type'];
  if (!items || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (items.nullable) errs.push(forbidden(p.child('items').child('nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
  if (listType === 'map') {
    for (const k of s['x-kubernetes-list-map-keys'] ?? []) {
      const prop = propertyOf(items, k);
      if (!prop) continue;
      const kp = p.child('items').child('properties').key(k);
      if (!(items.required ?? []).includes(k) && prop.default === undefined) {
        errs.push(required(kp.child('default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (prop.nullable) errs.push(forbidden(kp.child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  return errs;
}

// ------------------------------------------------------------------ structural invariants

type Level = 'root' | 'item' | 'field';

/** The generic parts a node inside allOf/anyOf/oneOf/not may not carry, with kube's wording. */
const FORBIDDEN_GENERICS: [keyof JSONSchemaProps, string][] = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

/** Whether a forbidden generic is set in kube's sense (non-empty string/list, true, non-nil). */
function isSet(s: JSONSchemaProps, k: keyof JSONSchemaProps): boolean {
  const v = s[k];
  if (v === undefined || v === null || v === false || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}

const isIntOrStringAnyOf = (anyOf: JSONSchemaProps[] | undefined): boolean =>
  anyOf?.length === 2 && jsonEqual(anyOf[0], { type: 'integer' }) && jsonEqual(anyOf[1], { type: 'string' });

function validateValueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf) s.anyOf?.forEach((x, i) => errs.push(...validateNested(x, false, p.child('anyOf').index(i))));
  s.allOf?.forEach((x, i) => errs.push(...validateNested(x, skipFirstAllOfAnyOf && i === 0, p.child('allOf').index(i))));
  s.oneOf?.forEach((x, i) => errs.push(...validateNested(x, false, p.child('oneOf').index(i))));
  if (s.not) errs.push(...validateNested(s.not, false, p.child('not')));
  const patternError = s.pattern ? goRegexpError(s.pattern) : undefined;
  if (patternError) errs.push(invalid(p.child('pattern'), s.pattern, `must be a valid regular expression, but isn't: ${patternError}`));
  return errs;
}

function validateNested(s: JSONSchemaProps, skipAnyOf: boolean, p: FieldPath): FieldError[] {
  const errs = validateValueValidation(s, skipAnyOf, false, p);
  if (isObj(s.items)) errs.push(...validateNested(s.items as JSONSchemaProps, false, p.child('items')));
  for (const [k, x] of Object.entries(s.properties ?? {})) errs.push(...validateNested(x, false, p.child('properties').key(k)));
  for (const [k, msg] of FORBIDDEN_GENERICS) if (isSet(s, k)) errs.push(forbidden(p.child(k), msg));
  if (has(s.properties, 'metadata')) errs.push(forbidden(p.child('properties').key('metadata'), 'must not be specified in a nested context'));
  return errs;
}

/** Keys of a root `metadata` schema that make it more than name/generateName (kube: Forbidden). */
function metadataTooRich(m: JSONSchemaProps): boolean {
  const props = Object.keys(m.properties ?? {});
  const onlyNames = props.length > 0 && props.every((k) => k === 'name' || k === 'generateName');
  return Object.keys(m).some((k) => !['type', 'default', 'properties'].includes(k) || (k === 'properties' && !onlyNames && props.length > 0));
}

function validateInvariants(s: JSONSchemaProps | undefined, lvl: Level, p: FieldPath): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const items = itemsSchema(s);
  if (s.type === 'array' && !items) errs.push(required(p.child('items'), 'must be specified'));
  errs.push(...validateInvariants(items, 'item', p.child('items')));
  for (const [k, x] of Object.entries(s.properties ?? {})) errs.push(...validateInvariants(x, 'field', p.child('properties').key(k)));
  if (s.additionalProperties !== undefined && s.additionalProperties !== null) {
    if (lvl === 'root') errs.push(forbidden(p.child('additionalProperties'), 'must not be used at the root'));
    if (isObj(s.additionalProperties)) errs.push(...validateInvariants(s.additionalProperties as JSONSchemaProps, 'field', p.child('additionalProperties')));
  }
  const intOrString = !!s['x-kubernetes-int-or-string'];
  const preserve = !!s['x-kubernetes-preserve-unknown-fields'];
  const embedded = !!s['x-kubernetes-embedded-resource'];
  if (intOrString && preserve) errs.push(invalid(p.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(invalid(p.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  errs.push(...validateValueValidation(s, isIntOrStringAnyOf(s.anyOf), isIntOrStringAnyOf(s.allOf?.[0]?.anyOf), p));

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && s.type !== 'object') {
    if (!s.type) errs.push(required(p.child('type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(invalid(p.child('type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !intOrString && !preserve) {
    const where = { root: 'at the root', item: 'for specified array items', field: 'for specified object fields' }[lvl];
    errs.push(required(p.child('type'), `must not be empty ${where}`));
  }
  if (embedded && s.additionalProperties !== undefined) errs.push(forbidden(p.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && s.type && s.type !== 'object') errs.push(invalid(p.child('type'), s.type, 'must be object at the root'));
  for (const k of ['kind', 'apiVersion']) {
    const x = propertyOf(s, k);
    if (x && checkMetadata && x.type !== 'string') errs.push(invalid(p.child('properties').key(k).child('type'), x.type ?? '', 'must be string'));
  }
  const meta = s.properties?.metadata;
  if (meta) {
    const mp = p.child('properties').key('metadata');
    if (checkMetadata && meta.type !== 'object') errs.push(invalid(mp.child('type'), meta.type ?? '', 'must be object'));
    if (lvl === 'root' && metadataTooRich(meta)) errs.push(forbidden(mp, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  if (embedded && !preserve && !nonEmpty(s.properties)) {
    errs.push(required(p.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return errs;
}

/** Completeness (kube checks the root node's value validations only): what they name must exist. */
function validateCompleteness(s: JSONSchemaProps, p: FieldPath): FieldError[] {
  return valueCompleteness(s, s, p, p);
}
function valueCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sp: FieldPath, vp: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (v.not) errs.push(...nestedCompleteness(v.not, s, sp, vp.child('not')));
  for (const k of ['allOf', 'anyOf', 'oneOf'] as const) v[k]?.forEach((x, i) => errs.push(...nestedCompleteness(x, s, sp, vp.child(k).index(i))));
  return errs;
}
function nestedCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sp: FieldPath, vp: FieldPath): FieldError[] {
  if (!s) return [required(sp, `because it is defined in ${vp}`)];
  const errs = valueCompleteness(v, s, sp, vp);
  if (isObj(v.items)) errs.push(...nestedCompleteness(v.items as JSONSchemaProps, itemsSchema(s), sp.child('items'), vp.child('items')));
  for (const [k, x] of Object.entries(v.properties ?? {})) {
    const sFld = propertyOf(s, k);
    if (!sFld) errs.push(required(sp.child('properties').key(k), `because it is defined in ${vp.child('properties').key(k)}`));
    else errs.push(...nestedCompleteness(x, sFld, sp.child('properties').key(k), vp.child('properties').key(k)));
  }
  return errs;
}

/** ValidateStructural: invariants and completeness, sorted by their text as kube sorts them. */
function validateStructural(s: JSONSchemaProps, p: FieldPath): FieldError[] {
  const errs = [...validateInvariants(s, 'root', p), ...validateCompleteness(s, p)];
  return errs.sort((a, b) => (fieldErrorMessage(a) < fieldErrorMessage(b) ? -1 : fieldErrorMessage(a) > fieldErrorMessage(b) ? 1 : 0));
}

// ------------------------------------------------------------------ defaults

/** ValidateDefaults: each default survives pruning, is valid (embedded) metadata and validates. */
function validateDefaults(s: JSONSchemaProps | undefined, p: FieldPath, embeddedRoot: boolean, insideMeta: boolean): FieldError[] {
  if (!s) return [];
  const errs: FieldError[] = [];
  const embedded = embeddedRoot || !!s['x-kubernetes-embedded-resource'];
  if (embedded) insideMeta = false;
  if (s.default !== undefined && !insideMeta) {
    const dp = p.child('default');
    const copy = structuredClone(s.default);
    prune(copy, s, embedded);
    if (!jsonEqual(copy, s.default)) errs.push(invalid(dp, new GoValue(goSharpV(s.default)), 'must not have unknown fields'));
    let metaErrs: FieldError[] = [];
    try {
      coerceEmbedded(structuredClone(s.default), s, dp, embedded);
      metaErrs = validateEmbedded(s.default, s, dp, embedded);
    } catch (e) {
      if (!(e instanceof CoerceError) || !e.fieldError) throw e;
      metaErrs = [e.fieldError];
    }
    if (metaErrs.length > 0) errs.push(...metaErrs);
    else errs.push(...validateAgainstSchema(s, s.default, dp));
  }
  errs.push(...validateDefaults(itemsSchema(s), p.child('items'), false, insideMeta));
  for (const [k, x] of Object.entries(s.properties ?? {})) {
    const subInside = insideMeta || (embedded && META_FIELDS.has(k));
    errs.push(...validateDefaults(x, p.child('properties').key(k), false, subInside));
  }
  return errs;
}

/** NewStructural's refusal of the schema (an unsupported field anywhere it looks), or undefined. */
function unsupported(s: JSONSchemaProps | undefined): string | undefined {
  if (!s) return undefined;
  const what = s.id ? 'id' : s.$schema ? 'schema' : s.$ref ? '$ref' : nonEmpty(s.patternProperties) ? 'patternProperties' : nonEmpty(s.dependencies) ? 'dependencies' : s.additionalItems !== undefined ? 'additionalItems' : nonEmpty(s.definitions) ? 'definitions' : undefined;
  if (what) return `OpenAPIV3Schema '${what}' is not supported`;
  if (Array.isArray(s.items)) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  const kids: (JSONSchemaProps | undefined)[] = [
    ...Object.values(s.properties ?? {}),
    isObj(s.additionalProperties) ? (s.additionalProperties as JSONSchemaProps) : undefined,
    itemsSchema(s),
    ...(s.allOf ?? []),
    ...(s.anyOf ?? []),
    ...(s.oneOf ?? []),
    s.not,
  ];
  for (const k of kids) {
    const e = unsupported(k);
    if (e) return e;
  }
  return undefined;
}

/**
 * Validates one version's openAPIV3Schema as kube does when a CRD is created. `path` is the
 * schema's own field path (kube 1.24 reports `spec.validation.openAPIV3Schema` for a CRD whose
 * versions share one schema, `spec.versions[i].schema.openAPIV3Schema` otherwise). Pure.
 */
export function validateCRDSchema(schema: JSONSchemaProps, path: FieldPath, opts: SchemaCheckOptions = {}): FieldError[] {
  const errs: FieldError[] = [];
  if (opts.statusSubresource) {
    const bad = firstForbiddenAtRoot(schema);
    if (bad === 'Type') errs.push(invalid(path.child('type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
    else if (bad) {
      const allowed = `only [${ALLOWED_AT_ROOT_WITH_STATUS.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`;
      errs.push(invalid(path, new GoValue(goSchemaStruct(schema)), allowed));
    }
  }
  if (schema.nullable) errs.push(forbidden(path.child('nullable'), 'nullable cannot be true at the root'));
  errs.push(...validateOpenAPISchema(schema, path, { allowDefaults: true, reason: '', insideResourceMeta: false }, true));
  const refused = unsupported(schema);
  if (refused) {
    if (errs.length === 0) errs.push(invalid(path, '', refused));
    return errs;
  }
  const structural = validateStructural(schema, path);
  if (structural.length > 0) return [...errs, ...structural];
  return [...errs, ...validateDefaults(schema, path, true, false)];
}
