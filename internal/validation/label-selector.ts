/**
 * metav1 validation of LabelSelectors (k8s.io/apimachinery/pkg/apis/meta/v1/validation,
 * ValidateLabelSelector and ValidateLabelName): one implementation for every kind that holds one
 * (Pod affinity and spread constraints, PVC and PV specs, CSIStorageCapacity, ClusterRole
 * aggregation rules).
 */
import { type FieldError, FieldPath, forbidden, invalid, required } from '../api/field-errors.ts';
import { isQualifiedName } from './names.ts';
import { validateLabels } from './objectmeta.ts';
import { isObj } from '../gocompat/json.ts';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** ValidateLabelName: one Invalid per message of IsQualifiedName. */
export function validateLabelName(name: string, p: FieldPath): FieldError[] {
  return isQualifiedName(name).map((m) => invalid(p, name, m));
}

/** ValidateLabelSelector (a nil selector has nothing to check). */
export function validateLabelSelector(sel: unknown, p: FieldPath): FieldError[] {
  if (!isObj(sel)) return [];
  const errs = validateLabels(sel.matchLabels, p.child('matchLabels'));
  list(sel.matchExpressions).forEach((e, i) => {
    const ep = p.child('matchExpressions').index(i);
    const expr = isObj(e) ? e : {};
    const op = str(expr.operator);
    const values = list(expr.values);
    switch (op) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(ep.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(ep.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalid(ep.child('operator'), op, 'not a valid selector operator'));
    }
    errs.push(...validateLabelName(str(expr.key), ep.child('key')));
  });
  return errs;
}
