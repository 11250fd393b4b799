/**
 * The schema of a custom resource as a CRD carries it (apiextensions.k8s.io/v1 JSONSchemaProps,
 * in its JSON form: `spec.versions[i].schema.openAPIV3Schema`), and the Go printing of decoded
 * JSON values that kube's messages use.
 */
import { goQuote } from '../gocompat/quote.ts';
import { isObj } from '../gocompat/json.ts';

/** One node of an openAPIV3Schema (only the fields kube reads; unknown keys are ignored). */
export interface JSONSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  additionalItems?: JSONSchemaProps | boolean;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  definitions?: Record<string, JSONSchemaProps>;
  $ref?: string;
  $schema?: string;
  id?: string;
  externalDocs?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

/** A schema's property by name: own properties only (`constructor`, `__proto__` are field names too). */
export const propertyOf = (s: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined =>
  s?.properties && Object.prototype.hasOwnProperty.call(s.properties, name) ? s.properties[name] : undefined;

/**
 * Go's `%v` of a float64 (strconv.FormatFloat(f, 'g', -1, 64)): the shortest digits, in exponent
 * form when the decimal exponent is below -4 or at least 6 (the shortest precision's threshold).
 *   goFloat(1e6) → "1e+06"    goFloat(123456) → "123456"    goFloat(0.5) → "0.5"    goFloat(1e-5) → "1e-05"
 */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mant, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  const eprec = 6;
  if (exp < -4 || exp >= eprec) {
    const e = Math.abs(exp);
    return `${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return String(f);
}

/**
 * `%v` of a decoded JSON number: whole numbers decode to int64 in kube's unstructured JSON
 * (printed as integers), the rest to float64.
 */
export const goNumber = (n: number): string => (Number.isInteger(n) && Math.abs(n) < 2 ** 63 ? BigInt(n).toString() : goFloat(n));

/** Go's `%#v` of a decoded JSON value (interface{}): maps with sorted keys, slices, quoted strings. */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  if (isObj(v)) return `map[string]interface {}{${Object.keys(v).sort().map((k) => `${goQuote(k)}:${goSharpV(v[k])}`).join(', ')}}`;
  return String(v);
}

/** Go's `%v` of a decoded JSON value: `map[a:1 b:x]`, `[1 2]`, strings bare. */
export function goV(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return goNumber(v);
  if (Array.isArray(v)) return `[${v.map(goV).join(' ')}]`;
  if (isObj(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goV(v[k])}`).join(' ')}]`;
  return String(v);
}
