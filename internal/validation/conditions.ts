/**
 * metav1 validation of `[]metav1.Condition` (k8s.io/apimachinery/pkg/apis/meta/v1/validation
 * ValidateConditions / ValidateCondition, 1.24): a type is a qualified name and unique, status one
 * of True/False/Unknown, observedGeneration not negative, lastTransitionTime and reason set, the
 * reason's format and length, the message's length.
 */
import { type FieldError, FieldPath, duplicate, invalid, notSupported, required, tooLong } from '../api/field-errors.ts';
import { validateLabelName } from './label-selector.ts';
import { regexError } from './names.ts';
import { isObj } from '../gocompat/json.ts';

const MAX_REASON_LEN = 1024;
const MAX_MESSAGE_LEN = 32 * 1024;
const REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON_RE = new RegExp(`^${REASON_FMT}$`);
const REASON_MSG = "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const STATUSES = ['False', 'True', 'Unknown'];

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** ValidateCondition. */
function validateCondition(c: Record<string, unknown>, p: FieldPath): FieldError[] {
  const errs = validateLabelName(str(c.type), p.child('type'));
  const status = str(c.status);
  if (!STATUSES.includes(status)) errs.push(notSupported(p.child('status'), status, STATUSES));
  if (typeof c.observedGeneration === 'number' && c.observedGeneration < 0) errs.push(invalid(p.child('observedGeneration'), c.observedGeneration, 'must be greater than or equal to zero'));
  if (!str(c.lastTransitionTime)) errs.push(required(p.child('lastTransitionTime'), 'must be set'));
  const reason = str(c.reason);
  if (!reason) errs.push(required(p.child('reason'), 'must be set'));
  else {
    if (!REASON_RE.test(reason)) errs.push(invalid(p.child('reason'), reason, regexError(REASON_MSG, REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
    if (bytes(reason) > MAX_REASON_LEN) errs.push(tooLong(p.child('reason'), reason, MAX_REASON_LEN));
  }
  if (bytes(str(c.message)) > MAX_MESSAGE_LEN) errs.push(tooLong(p.child('message'), str(c.message), MAX_MESSAGE_LEN));
  return errs;
}

/** ValidateConditions: each condition, and a type seen before is a Duplicate. */
export function validateConditions(conditions: unknown, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (Array.isArray(conditions) ? conditions : []).forEach((raw, i) => {
    const c = isObj(raw) ? raw : {};
    const type = str(c.type);
    if (seen.has(type)) errs.push(duplicate(p.index(i).child('type'), type));
    seen.add(type);
    errs.push(...validateCondition(c, p.index(i)));
  });
  return errs;
}
