/**
 * Validation pieces the storage.k8s.io kinds share, ported from Kubernetes 1.24.17:
 * pkg/apis/core/validation (ValidateCSIDriverName, ValidateTopologySelectorTerm),
 * apimachinery's metav1 validation (ValidateLabelSelector) and apiequality.Semantic, plus Go's
 * `%#v` of the few structs kube echoes in "field is immutable" messages.
 */
import type { KubeObject, ObjectMeta } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, invalid, required, tooLong } from '../../api/field-errors.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../../validation/names.ts';
import { isObj } from '../../gocompat/json.ts';
import { goQuote } from '../../gocompat/quote.ts';

/** A JSON object (not null, not an array). */
/** A string field ('' when absent or not a string). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** An array field ([] when absent). */
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** An object field ({} when absent). */
export const obj = (v: unknown): Record<string, unknown> => (isObj(v) ? v : {});
/** Go's len() of a string: UTF-8 bytes. */
export const byteLen = (s: string): number => Buffer.byteLength(s, 'utf8');

/** The spec of an object ({} if absent; a new {} is attached so defaulting can write to it). */
export function specOf(o: KubeObject): Record<string, unknown> {
  if (!isObj(o.spec)) o.spec = {};
  return o.spec as Record<string, unknown>;
}

/** The ObjectMeta fields metav1.ResetObjectMetaForStatus takes from the stored object. */
const STATUS_RESET_FIELDS: (keyof ObjectMeta)[] = ['deletionTimestamp', 'generation', 'selfLink', 'labels', 'annotations', 'finalizers', 'ownerReferences'];

/**
 * metav1.ResetObjectMetaForStatus: a status write cannot change these metadata fields (their
 * stored values win); managedFields stay the request's.
 */
export function resetObjectMetaForStatus(meta: ObjectMeta, existing: ObjectMeta): void {
  const m = meta as Record<string, unknown>;
  const e = existing as Record<string, unknown>;
  for (const f of STATUS_RESET_FIELDS) {
    if (e[f] === undefined) delete m[f];
    else m[f] = structuredClone(e[f]);
  }
}

/** ValidateQualifiedName: one Invalid per message of IsQualifiedName. */
export function validateQualifiedName(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => invalid(path, value, msg));
}

/** core validation.ValidateCSIDriverName (VolumeAttachment attacher, CSINode driver names). */
export function validateCSIDriverName(name: string, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(required(path, ''));
  if (byteLen(name) > 63) errs.push(tooLong(path, name, 63));
  for (const msg of isDNS1123Subdomain(name.toLowerCase())) errs.push(invalid(path, name, msg));
  return errs;
}

export { validateLabelSelector } from '../../validation/label-selector.ts';

/**
 * core validation.ValidateTopologySelectorTerm: values required and unique per requirement,
 * keys label names and unique in the term. Returns the term as key → sorted values, which the
 * caller compares across terms.
 */
export function validateTopologySelectorTerm(term: unknown, path: FieldPath): { exprs: Map<string, string[]>; errs: FieldError[] } {
  const errs: FieldError[] = [];
  const exprs = new Map<string, string[]>();
  const exprPath = path.child('matchLabelExpressions');
  arr(obj(term).matchLabelExpressions).forEach((req, i) => {
    const p = exprPath.index(i);
    const r = obj(req);
    const values = arr(r.values).map(str);
    const seen = new Set<string>();
    if (values.length === 0) errs.push(required(p.child('values'), ''));
    values.forEach((v, j) => {
      if (seen.has(v)) errs.push(duplicate(p.child('values').index(j), v));
      seen.add(v);
    });
    const key = str(r.key);
    errs.push(...validateQualifiedName(key, p.child('key')));
    if (exprs.has(key)) errs.push(duplicate(p.child('key'), key));
    exprs.set(key, [...seen].sort());
  });
  return { exprs, errs };
}

// ---------------------------------------------------------------------------------------------
// Go's %#v of the values kube echoes in "field is immutable" messages

/**
 * What `%#v` prints for a non-nil pointer: its address, which differs on every request in kube
 * (clients cannot rely on it; tests normalize it). This server prints a fixed one.
 */
export const GO_POINTER = '0xc000000000';

/** %#v of a string (Go's %q: JSON escaping agrees for the printable text of object fields). */

/** %#v of a []string: `[]string(nil)` for absent, `[]string{"a", "b"}` otherwise. */
export function goStrings(v: unknown, type = '[]string'): string {
  if (!Array.isArray(v)) return `${type}(nil)`;
  return `${type}{${v.map((x) => goQuote(str(x))).join(', ')}}`;
}

/** %#v of a map[string]string: keys sorted, `map[string]string(nil)` for absent. */
export function goStringMap(v: unknown): string {
  if (!isObj(v)) return 'map[string]string(nil)';
  const keys = Object.keys(v).sort();
  return `map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(str(v[k]))}`).join(', ')}}`;
}

/** A nil pointer in a field.Error value: Go prints the string "null" (quoted, as strings are). */
export const GO_NIL = 'null';

/** %#v of a pointer field: `(*T)(nil)` or `(*T)(0x…)`. */
export const goPtr = (present: boolean, type: string): string => `(*${type})(${present ? GO_POINTER : 'nil'})`;

/** %#v of a metav1.LabelSelector value (the Elem of a non-nil *LabelSelector). */
export function goLabelSelector(sel: Record<string, unknown>): GoValue {
  const exprs = Array.isArray(sel.matchExpressions)
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
        .map((e) => {
          const r = obj(e);
          return `v1.LabelSelectorRequirement{Key:${goQuote(str(r.key))}, Operator:${goQuote(str(r.operator))}, Values:${goStrings(r.values)}}`;
        })
        .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoValue(`v1.LabelSelector{MatchLabels:${goStringMap(sel.matchLabels)}, MatchExpressions:${exprs}}`);
}
