/**
 * Small helpers the volume validators share: reading the decoded JSON the way Go sees the typed
 * struct (absent/null pointer = nil, absent string = ""), Go's path/net helpers, and the file-mode
 * and path rules of pkg/apis/core/validation (Kubernetes 1.24).
 */
import { type FieldError, FieldPath, invalid } from '../../../api/field-errors.ts';
import { isObj } from '../../../gocompat/json.ts';

/** A JSON object (a Go struct or map after decoding). */
export type Obj = Record<string, unknown>;

/** Is `v` a JSON object? */

/** A pointer/struct field: the object, or undefined when absent or null (Go nil). */
export const objAt = (o: unknown, k: string): Obj | undefined => {
  if (!isObj(o)) return undefined;
  const v = o[k];
  return isObj(v) ? v : undefined;
};

/** Is the pointer field set (present and not null)? A non-object value still counts as set. */
export const isSet = (o: unknown, k: string): boolean => isObj(o) && o[k] !== undefined && o[k] !== null;

/** A string field as Go reads it: "" when absent. */
export const strAt = (o: unknown, k: string): string => {
  if (!isObj(o)) return '';
  const v = o[k];
  return typeof v === 'string' ? v : '';
};

/** A *string field: undefined when nil. */
export const optStrAt = (o: unknown, k: string): string | undefined => {
  if (!isObj(o)) return undefined;
  const v = o[k];
  return typeof v === 'string' ? v : undefined;
};

/** A number field: undefined when absent/null. */
export const numAt = (o: unknown, k: string): number | undefined => {
  if (!isObj(o)) return undefined;
  const v = o[k];
  return typeof v === 'number' ? v : undefined;
};

/** A list field (nil → []). */
export const listAt = (o: unknown, k: string): unknown[] => {
  if (!isObj(o)) return [];
  const v = o[k];
  return Array.isArray(v) ? v : [];
};

/** A map field (nil → {}). */
export const mapAt = (o: unknown, k: string): Obj => objAt(o, k) ?? {};

/** `fldPath.Child("a", "b")`. */
export const childPath = (p: FieldPath, ...names: string[]): FieldPath => names.reduce((q, n) => q.child(n), p);

/** The file-mode message of validation.go (fileModeErrorMsg). */
export const FILE_MODE_ERROR_MSG = 'must be a number between 0 and 0777 (octal), both inclusive';

/** `mode != nil && (mode > 0777 || mode < 0)` → Invalid. */
export function validateFileMode(mode: number | undefined, p: FieldPath): FieldError[] {
  return mode !== undefined && (mode > 0o777 || mode < 0) ? [invalid(p, mode, FILE_MODE_ERROR_MSG)] : [];
}

/** path.IsAbs. */
export const isAbsPath = (p: string): boolean => p.startsWith('/');

/** Go's path.Clean. */
export function cleanPath(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const s = out.join('/');
  if (rooted) return `/${s}`;
  return s === '' ? '.' : s;
}

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(target: string, p: FieldPath): FieldError[] {
  return target.split('/').includes('..') ? [invalid(p, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative and no `..` element. */
export function validateLocalDescendingPath(target: string, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (isAbsPath(target)) errs.push(invalid(p, target, 'must be a relative path'));
  errs.push(...validatePathNoBacksteps(target, p));
  return errs;
}

/** validateLocalNonReservedPath: relative, no `..` element, does not start with `..`. */
export function validateLocalNonReservedPath(target: string, p: FieldPath): FieldError[] {
  const errs = validateLocalDescendingPath(target, p);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(invalid(p, target, "must not start with '..'"));
  return errs;
}

/** net.SplitHostPort succeeds? */
export function splitHostPortOK(hostport: string): boolean {
  const i = hostport.lastIndexOf(':');
  if (i < 0) return false;
  let j = 0;
  let k = 0;
  if (hostport[0] === '[') {
    const end = hostport.indexOf(']');
    if (end < 0) return false;
    if (end + 1 === hostport.length) return false;
    if (end + 1 !== i) return false;
    j = 1;
    k = end + 1;
  } else if (hostport.slice(0, i).includes(':')) return false;
  if (hostport.slice(j).includes('[')) return false;
  if (hostport.slice(k).includes(']')) return false;
  return true;
}

/** Go's strings.ToLower for ASCII-dominated input (what the validators need). */
export const lower = (s: string): string => s.toLowerCase();

/** sets.NewString(...).List(): sorted. */
export const sortedList = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();

export { FieldPath };
