/**
 * Validation of a custom resource against its version's openAPIV3Schema, as kube-apiserver 1.24
 * does it: kube-openapi's SchemaValidator (a go-openapi port) walks the object, and
 * apiextensions-apiserver's ValidateCustomResource turns each of its errors into a field error
 * (Required, NotSupported for enum, TooLong for maxLength, TooMany for maxItems/maxProperties,
 * TypeInvalid for types and formats, Invalid with the validator's text otherwise; the errors of
 * oneOf/anyOf/allOf/not have no field: `<nil>: Invalid value: "": "spec.x" must validate …`).
 *
 * Per node the checks run in go-openapi's order: type, allOf/oneOf/anyOf/not, string, format,
 * number, array, enum, object. Within an object kube iterates a Go map, so the order of errors
 * of sibling properties varies from run to run there; here it is the schema's property order.
 */
import { FieldPath, GoValue, type FieldError } from '../api/field-errors.ts';
import { goQuote } from '../gocompat/quote.ts';
import { isObj } from '../gocompat/json.ts';
import { jsonEqual } from '../gocompat/equal.ts';
import { checkFormat, supportedFormat } from './formats.ts';
import { goRegExp } from './go-regexp.ts';
import { goFloat, goNumber, goSharpV, goV, type JSONSchemaProps } from './types.ts';

/** One error of the go-openapi validator, before ValidateCustomResource maps it to a field error. */
type OpenAPIError =
  | { code: 'required'; name: string; message: string }
  | { code: 'enum'; name: string; value: unknown; values: unknown[]; message: string }
  | { code: 'tooLong'; name: string; value: unknown; max: number; message: string }
  | { code: 'tooMany'; name: string; value: number; max: number; message: string }
  | { code: 'type'; name: string; value: unknown; message: string }
  | { code: 'invalid'; name: string; value: unknown; message: string }
  | { code: 'composite'; message: string };

/** A go-openapi Result: errors (deduplicated by text) and the count of checks that matched. */
class Result {
  errors: OpenAPIError[] = [];
  matchCount = 0;
  add(...errs: OpenAPIError[]): this {
    for (const e of errs) if (!this.errors.some((x) => x.message === e.message)) this.errors.push(e);
    return this;
  }
  merge(other: Result | undefined): this {
    if (other) {
      this.add(...other.errors);
      this.matchCount += other.matchCount;
    }
    return this;
  }
  get valid(): boolean {
    return this.errors.length === 0;
  }
}

const IN = 'body';
const typeOf = (v: unknown): string =>
  typeof v === 'boolean' ? 'boolean' : typeof v === 'string' ? 'string' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : Array.isArray(v) ? 'array' : 'object';
const child = (path: string, name: string): string => (path ? `${path}.${name}` : name);
const num = (n: number): GoValue => new GoValue(goNumber(n));

/** The types a node accepts: x-kubernetes-int-or-string means integer or string. */
const typesOf = (s: JSONSchemaProps): string[] => (s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : s.type ? [s.type] : []);

function invalidType(path: string, expected: string, value: unknown): OpenAPIError {
  const message = typeof value === 'string' ? `${path} in ${IN} must be of type ${expected}: ${goQuote(value)}` : `${path} in ${IN} must be of type ${expected}`;
  return { code: 'type', name: path, value, message };
}

function validateType(s: JSONSchemaProps, path: string, data: unknown): Result {
  const r = new Result();
  r.matchCount++;
  const types = typesOf(s);
  const format = supportedFormat(s.format) ?? '';
  if (data === null) {
    if (types.length > 0 && !types.includes('null') && !s.nullable) r.add(invalidType(path, types.join(','), 'null'));
    return r;
  }
  const t = typeOf(data);
  const isFloatInt = t === 'integer' && types.includes('integer');
  const isIntFloat = t === 'integer' && types.includes('number');
  const schType = t === 'integer' && !Number.isInteger(data) ? 'number' : t;
  if (format && t !== 'string' && t !== 'array' && !(types.includes(schType) || isFloatInt || isIntFloat)) {
    // A non-string against a format: kube names the format and the value's Go number format
    // (int64, float64) or "" for other kinds.
    const goFormat = schType === 'integer' ? 'int64' : schType === 'number' ? 'float64' : '';
    r.add(invalidType(path, s.format!, goFormat));
    return r;
  }
  if (!(types.includes('number') || types.includes('integer')) && format && (t === 'string' || t === 'array')) return r;
  if (!(types.includes(schType) || isFloatInt || isIntFloat)) r.add(invalidType(path, types.join(','), schType));
  return r;
}

function validateString(s: JSONSchemaProps, path: string, data: string): OpenAPIError | undefined {
  const runes = [...data].length;
  if (s.maxLength !== undefined && runes > s.maxLength) return { code: 'tooLong', name: path, value: data, max: s.maxLength, message: `${path} in ${IN} should be at most ${s.maxLength} chars long` };
  if (s.minLength !== undefined && runes < s.minLength) return { code: 'invalid', name: path, value: data, message: `${path} in ${IN} should be at least ${s.minLength} chars long` };
  if (s.pattern && !goRegExp(s.pattern).test(data)) return { code: 'invalid', name: path, value: data, message: `${path} in ${IN} should match '${s.pattern}'` };
  return undefined;
}

/**
 * numberValidator: a whole number (int64 in Go) is checked against bounds and factor truncated to
 * int64 and printed as integers; other numbers against the float64 bounds.
 */
function validateNumber(s: JSONSchemaProps, path: string, data: number): Result {
  const r = new Result();
  if (s.multipleOf === undefined && s.minimum === undefined && s.maximum === undefined) {
    r.matchCount++;
    return r;
  }
  const isInt = Number.isInteger(data);
  const bound = (b: number): number => (isInt ? Math.trunc(b) : b);
  const show = (b: number): string => (isInt ? goNumber(Math.trunc(b)) : goFloat(b));
  const fail = (message: string): void => void r.add({ code: 'invalid', name: path, value: data, message });
  if (s.multipleOf !== undefined) {
    const f = bound(s.multipleOf);
    if (isInt && f !== 0) {
      if (data % f !== 0) fail(`${path} in ${IN} should be a multiple of ${show(s.multipleOf)}`);
    } else if (!isInt && f <= 0) {
      fail(`factor MultipleOf declared for ${path} must be positive: ${goFloat(f)}`);
    } else if (!isInt) {
      const mult = f < 1 ? (1 / f) * data : data / f;
      if (Math.abs(mult - Math.round(mult)) > 1e-9 * Math.max(1, Math.abs(mult))) fail(`${path} in ${IN} should be a multiple of ${goFloat(f)}`);
    }
  }
  if (s.minimum !== undefined) {
    const min = bound(s.minimum);
    if (s.exclusiveMinimum ? data <= min : data < min) fail(`${path} in ${IN} should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${show(s.minimum)}`);
  }
  if (s.maximum !== undefined) {
    const max = bound(s.maximum);
    if (s.exclusiveMaximum ? data >= max : data > max) fail(`${path} in ${IN} should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${show(s.maximum)}`);
  }
  r.matchCount++;
  return r;
}

function validateSlice(s: JSONSchemaProps, path: string, data: unknown[]): Result {
  const r = new Result();
  if (isObj(s.items)) {
    const items = s.items as JSONSchemaProps;
    data.forEach((v, i) => r.merge(validateNode(items, `${path}[${i}]`, v)));
  } else if (Array.isArray(s.items)) {
    s.items.forEach((sch, i) => i < data.length && r.merge(validateNode(sch, `${path}[${i}]`, data[i])));
  }
  if (s.minItems !== undefined && data.length < s.minItems) r.add({ code: 'invalid', name: path, value: data.length, message: `${path} in ${IN} should have at least ${s.minItems} items` });
  if (s.maxItems !== undefined && data.length > s.maxItems) r.add({ code: 'tooMany', name: path, value: data.length, max: s.maxItems, message: `${path} in ${IN} should have at most ${s.maxItems} items` });
  if (s.uniqueItems && data.some((v, i) => data.slice(0, i).some((w) => jsonEqual(v, w)))) r.add({ code: 'invalid', name: path, value: data, message: `${path} in ${IN} shouldn't contain duplicates` });
  r.matchCount++;
  return r;
}

function validateEnum(s: JSONSchemaProps, path: string, data: unknown): OpenAPIError | undefined {
  if (!s.enum || s.enum.length === 0) return undefined;
  if (s.enum.some((e) => e !== null && jsonEqual(e, data))) return undefined;
  return { code: 'enum', name: path, value: data, values: s.enum, message: `${path} in ${IN} should be one of ${goV(s.enum)}` };
}

function validateObject(s: JSONSchemaProps, path: string, data: Record<string, unknown>): Result {
  const keys = Object.keys(data);
  if (s.minProperties !== undefined && keys.length < s.minProperties) return new Result().add({ code: 'invalid', name: path, value: keys.length, message: `${path} in ${IN} should have at least ${s.minProperties} properties` });
  if (s.maxProperties !== undefined && keys.length > s.maxProperties) return new Result().add({ code: 'tooMany', name: path, value: keys.length, max: s.maxProperties, message: `${path} in ${IN} should have at most ${s.maxProperties} properties` });
  const r = new Result();
  const props = s.properties ?? {};
  const patterns = s.patternProperties ? Object.entries(s.patternProperties) : [];
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(props, k);
  if (patterns.length === 0 && s.additionalProperties !== false && !isObj(s.additionalProperties)) {
    // Neither pattern nor additional properties: only the named properties are validated.
  } else if (s.additionalProperties === false) {
    for (const k of keys) {
      if (!has(k) && !patterns.some(([p]) => goRegExp(p).test(k))) r.add({ code: 'invalid', name: path, value: undefined, message: `${path}.${k} in ${IN} is a forbidden property` });
    }
  } else {
    for (const k of keys) {
      const matched = patterns.filter(([p]) => goRegExp(p).test(k));
      for (const [, sch] of matched) r.merge(validateNode(sch, `${path}.${k}`, data[k]));
      if (!has(k) && matched.length === 0 && isObj(s.additionalProperties)) {
        r.merge(validateNode(s.additionalProperties as JSONSchemaProps, `${path}.${k}`, data[k]));
      }
    }
  }
  for (const [name, sch] of Object.entries(props)) {
    if (Object.prototype.hasOwnProperty.call(data, name)) r.merge(validateNode(sch, child(path, name), data[name]));
  }
  for (const k of s.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(data, k)) r.add({ code: 'required', name: `${path}.${k}`, message: `${path}.${k} in ${IN} is required` });
  }
  return r;
}

function validateComposition(s: JSONSchemaProps, path: string, data: unknown): Result {
  const main = new Result();
  if (s.anyOf?.length) {
    let best: Result | undefined;
    let first: Result | undefined;
    for (const sch of s.anyOf) {
      const r = validateNode(sch, path, data);
      if (r.valid) {
        best = undefined;
        first = r;
        break;
      }
      if (!best || r.matchCount > best.matchCount) best = r;
    }
    if (!first) main.add({ code: 'composite', message: `${goQuote(path)} must validate at least one schema (anyOf)` });
    main.merge(best ?? first);
  }
  if (s.oneOf?.length) {
    let best: Result | undefined;
    let first: Result | undefined;
    let validated = 0;
    for (const sch of s.oneOf) {
      const r = validateNode(sch, path, data);
      if (r.valid) {
        validated++;
        best = undefined;
        first ??= r;
        continue;
      }
      if (validated === 0 && (!best || r.matchCount > best.matchCount)) best = r;
    }
    if (validated !== 1) {
      const more = validated === 0 ? 'Found none valid' : `Found ${validated} valid alternatives`;
      main.add({ code: 'composite', message: `${goQuote(path)} must validate one and only one schema (oneOf). ${more}` });
      main.merge(best);
    } else main.merge(first);
  }
  if (s.allOf?.length) {
    let validated = 0;
    for (const sch of s.allOf) {
      const r = validateNode(sch, path, data);
      if (r.valid) validated++;
      main.merge(r);
    }
    if (validated !== s.allOf.length) {
      main.add({ code: 'composite', message: `${goQuote(path)} must validate all the schemas (allOf)${validated === 0 ? '. None validated' : ''}` });
    }
  }
  if (s.not && validateNode(s.not, path, data).valid) main.add({ code: 'composite', message: `${goQuote(path)} must not validate the schema (not)` });
  main.matchCount++;
  return main;
}

/** go-openapi SchemaValidator.Validate of one node. */
function validateNode(s: JSONSchemaProps, path: string, data: unknown): Result {
  const r = new Result();
  const hasType = typesOf(s).length > 0 || !!supportedFormat(s.format);
  if (data === null || data === undefined) {
    if (hasType) r.merge(validateType(s, path, null));
    const e = validateEnum(s, path, null);
    if (e) r.add(e);
    return r;
  }
  if (hasType) applied(r, validateType(s, path, data));
  // The composition validator always applies; without allOf/anyOf/oneOf/not it only counts a match.
  if (s.allOf || s.anyOf || s.oneOf || s.not) applied(r, validateComposition(s, path, data));
  else r.matchCount += 2;
  if (typeof data === 'string') {
    applied(r, validateString(s, path, data));
    const format = supportedFormat(s.format);
    if (format) applied(r, checkFormat(format, data) ? undefined : invalidType(path, s.format!, data));
  }
  if (typeof data === 'number') applied(r, validateNumber(s, path, data));
  if (Array.isArray(data)) applied(r, validateSlice(s, path, data));
  applied(r, validateEnum(s, path, data));
  if (isObj(data)) applied(r, validateObject(s, path, data));
  r.matchCount++;
  return r;
}

/** One validator's outcome merged into its node's result (go-openapi: Merge, then Inc). */
function applied(r: Result, x: Result | OpenAPIError | undefined): void {
  if (x instanceof Result) r.merge(x);
  else if (x) r.add(x);
  r.matchCount++;
}

/** field.TooLongMaxLength's detail (apimachinery 1.24). */
const tooLongDetail = (max: number): string => (max >= 0 ? `may not be longer than ${max}` : 'value is too long');

/** A value as field.Error prints it: strings quoted, numbers as Go prints them, the rest as %#v. */
const badValue = (v: unknown): unknown => (typeof v === 'string' || typeof v === 'boolean' ? v : typeof v === 'number' ? num(v) : v === undefined ? '' : new GoValue(goSharpV(v)));

function toFieldError(e: OpenAPIError, base: FieldPath | undefined): FieldError {
  if (e.code === 'composite') return { type: 'FieldValueInvalid', field: base ? String(base) : '<nil>', value: '', detail: e.message };
  const name = e.name.replace(/^\./, '');
  const field = String(name && e.name !== '.' ? (base ?? new FieldPath()).child(name) : (base ?? '<nil>'));
  switch (e.code) {
    case 'required':
      return { type: 'FieldValueRequired', field, detail: '' };
    case 'enum': {
      const values = e.values.map((v) => goQuote(typeof v === 'string' ? v : JSON.stringify(v)));
      return { type: 'FieldValueNotSupported', field, value: badValue(e.value), detail: `supported values: ${values.join(', ')}` };
    }
    case 'tooLong':
      return { type: 'FieldValueTooLong', field, value: e.value, detail: tooLongDetail(e.max) };
    case 'tooMany':
      return { type: 'FieldValueTooMany', field, value: e.value, detail: `must have at most ${e.max} items` };
    case 'type':
      return { type: 'FieldValueTypeInvalid', field, value: badValue(e.value), detail: e.message };
    default:
      return { type: 'FieldValueInvalid', field, value: badValue(e.value), detail: e.message };
  }
}

/**
 * Validates a custom resource (the whole object, metadata included) against its version's
 * openAPIV3Schema; returns kube's field errors in the validator's order (empty when valid).
 * `base` prefixes every field (none for a custom resource: paths start at its top level).
 * Pure: does not change `obj`.
 */
export function validateAgainstSchema(schema: JSONSchemaProps | undefined, obj: unknown, base?: FieldPath): FieldError[] {
  if (!schema) return [];
  if (validator(schema)(obj)) return [];
  return validateNode(schema, '', obj).errors.map((e) => toFieldError(e, base));
}

/** Whether `obj` validates against `schema` (no errors), by the compiled check. */
export const schemaAccepts = (schema: JSONSchemaProps, obj: unknown): boolean => validator(schema)(obj);

/** The same verdict from the full validator, bypassing the compiled check (a test compares them). */
export const schemaAcceptsUncompiled = (schema: JSONSchemaProps, obj: unknown): boolean => validateNode(schema, '', obj).valid;

// ---------------------------------------------------------------------------------------------
// The fast path: a schema compiled once into a check that only says valid or not

type Check = (data: unknown) => boolean;
const compiled = new WeakMap<JSONSchemaProps, Check>();

/**
 * The schema node compiled into a yes/no check (once per node): true exactly when validateNode
 * finds no error, without building paths, results or messages. What it does not compile
 * (composition, patternProperties, multipleOf, uniqueItems, tuple items, nulls, a pattern that
 * does not compile) it asks validateNode itself. An object that fails is validated again by
 * validateNode for kube's errors; a valid one (nearly every request) costs only this.
 */
function validator(s: JSONSchemaProps): Check {
  let check = compiled.get(s);
  if (!check) compiled.set(s, (check = compile(s)));
  return check;
}

function compile(s: JSONSchemaProps): Check {
  const slow: Check = (data) => validateNode(s, '', data).valid;
  if (s.allOf || s.anyOf || s.oneOf || s.not || s.patternProperties || s.multipleOf !== undefined || s.uniqueItems || Array.isArray(s.items)) return slow;
  let rx: RegExp | undefined;
  try {
    rx = s.pattern ? goRegExp(s.pattern) : undefined;
  } catch {
    return slow;
  }
  const types = typesOf(s);
  const format = supportedFormat(s.format);
  const hasType = types.length > 0 || !!format;
  const hasNumberType = types.includes('number') || types.includes('integer');
  const { maxLength, minLength, minimum, maximum, minItems, maxItems, minProperties, maxProperties } = s;
  const enumValues = s.enum?.length ? s.enum : undefined;
  const enumScalars = enumValues && new Set(enumValues.filter((e) => e !== null && typeof e !== 'object'));
  // the children compiled now (a schema is a finite tree)
  const items = isObj(s.items) ? validator(s.items as JSONSchemaProps) : undefined;
  const props = isObj(s.properties) ? Object.entries(s.properties).map(([k, p]) => [k, validator(p)] as const) : [];
  const propNames = new Set(props.map(([k]) => k));
  const closed = s.additionalProperties === false;
  const additional = isObj(s.additionalProperties) ? validator(s.additionalProperties as JSONSchemaProps) : undefined;
  const required = s.required ?? [];
  const has = Object.prototype.hasOwnProperty;
  // validateType's decision for a value that is not null
  const typeOk = (data: unknown): boolean => {
    const t = typeOf(data);
    const fits = types.includes(t) || (t === 'integer' && hasNumberType);
    if (format && t !== 'string' && t !== 'array' && !fits) return false;
    if (!hasNumberType && format && (t === 'string' || t === 'array')) return true;
    return fits;
  };
  return (data) => {
    if (data === null || data === undefined) return slow(data);
    if (hasType && !typeOk(data)) return false;
    if (typeof data === 'string') {
      // code points, counted only when the UTF-16 length leaves the bound in doubt
      if (maxLength !== undefined && data.length > maxLength && [...data].length > maxLength) return false;
      if (minLength !== undefined && data.length < 2 * minLength && [...data].length < minLength) return false;
      if (rx && !rx.test(data)) return false;
      if (format && !checkFormat(format, data)) return false;
    } else if (typeof data === 'number') {
      const isInt = Number.isInteger(data);
      if (minimum !== undefined) {
        const min = isInt ? Math.trunc(minimum) : minimum;
        if (s.exclusiveMinimum ? data <= min : data < min) return false;
      }
      if (maximum !== undefined) {
        const max = isInt ? Math.trunc(maximum) : maximum;
        if (s.exclusiveMaximum ? data >= max : data > max) return false;
      }
    } else if (Array.isArray(data)) {
      if (items) for (const v of data) if (!items(v)) return false;
      if (minItems !== undefined && data.length < minItems) return false;
      if (maxItems !== undefined && data.length > maxItems) return false;
    }
    if (enumValues) {
      const found = typeof data === 'object' ? enumValues.some((e) => e !== null && jsonEqual(e, data)) : enumScalars!.has(data);
      if (!found) return false;
    }
    if (isObj(data)) {
      if (minProperties !== undefined || maxProperties !== undefined) {
        const n = Object.keys(data).length;
        if ((minProperties !== undefined && n < minProperties) || (maxProperties !== undefined && n > maxProperties)) return false;
      }
      if (closed || additional) {
        for (const k in data) {
          if (!has.call(data, k) || propNames.has(k)) continue;
          if (closed || !additional!(data[k])) return false;
        }
      }
      for (const [name, check] of props) if (has.call(data, name) && !check(data[name])) return false;
      for (const k of required) if (!has.call(data, k)) return false;
    }
    return true;
  };
}
