/**
 * Field-level validation errors, shaped after k8s.io/apimachinery/pkg/util/validation/field.
 * Validators are pure functions that return FieldError[]; the store turns a non-empty list into
 * one 422 Invalid Status with one cause per error.
 */

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotFound'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  /** JSON-ish path, e.g. `metadata.labels`, `data[foo.bar]`, `spec.finalizers[0]`. */
  field: string;
  /** Human message without the field prefix. */
  detail: string;
  /** The offending value, echoed in the message as Kubernetes does (omitted for Required). */
  value?: unknown;
}

/** Path builder so validators write `path.child('data').key(k)` and get `data[k]`. */
export class FieldPath {
  constructor(private readonly text: string = '') {}
  child(name: string): FieldPath {
    return new FieldPath(this.text ? `${this.text}.${name}` : name);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

/** A value already in Go's printed form (e.g. a %#v struct), echoed verbatim in messages. */
export class GoValue {
  constructor(readonly text: string) {}
}

/** Go's %#v of []string is `[]string{"a", "b"}` (e.g. Service spec.clusterIPs errors). */
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
const fmt = (v: unknown): string =>
  v instanceof GoValue ? v.text : typeof v === 'string' ? JSON.stringify(v) : isStringList(v) ? `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}` : JSON.stringify(v) ?? String(v);

export const required = (p: FieldPath, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: String(p), detail });
export const invalid = (p: FieldPath, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field: String(p), detail, value });
export const forbidden = (p: FieldPath, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: String(p), detail });
export const notSupported = (p: FieldPath, value: unknown, valid: string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field: String(p),
  value,
  detail: `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
export const internalError = (p: FieldPath, detail: string): FieldError => ({ type: 'InternalError', field: String(p), detail });
export const notFoundValue = (p: FieldPath, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: String(p), value, detail: '' });
export const duplicate = (p: FieldPath, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: String(p), value, detail: '' });
export const tooLong = (p: FieldPath, value: unknown, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field: String(p),
  value,
  detail: `must have at most ${max} bytes`,
});
export const tooMany = (p: FieldPath, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: String(p),
  value: actual,
  detail: `must have at most ${max} items`,
});

/** The message Kubernetes prints for one field error: `data[a]: Invalid value: "x": detail`. */
export function fieldErrorMessage(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * The message without its field (field.Error.ErrorBody): what a Status cause carries in
 * `message`, beside the field in `field`.
 */
export function fieldErrorBody(e: FieldError): string {
  switch (e.type) {
    case 'FieldValueRequired':
      return `Required value${e.detail ? `: ${e.detail}` : ''}`;
    case 'FieldValueForbidden':
      return `Forbidden: ${e.detail}`;
    // Go appends a detail to every type's body (validateNodeTaints' Duplicate has one).
    case 'FieldValueDuplicate':
      return `Duplicate value: ${fmt(e.value)}${e.detail ? `: ${e.detail}` : ''}`;
    case 'FieldValueNotFound':
      return `Not found: ${fmt(e.value)}${e.detail ? `: ${e.detail}` : ''}`;
    case 'InternalError':
      return `Internal error: ${e.detail}`;
    case 'FieldValueNotSupported':
      return `Unsupported value: ${fmt(e.value)}: ${e.detail}`;
    case 'FieldValueTooLong':
      return `Too long: ${e.detail}`;
    case 'FieldValueTooMany':
      return `Too many: ${fmt(e.value)}: ${e.detail}`;
    default:
      return `Invalid value: ${fmt(e.value)}${e.detail ? `: ${e.detail}` : ''}`;
  }
}
