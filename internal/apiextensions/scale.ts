/**
 * The scale subresource's rules on a custom resource (apiextensions-apiserver customresource
 * validator): the value at specReplicasPath (on create and update) and at statusReplicasPath
 * (also on /status updates) must be absent or an int64 in [0, 2^31-1], and the value at
 * labelSelectorPath absent or a string. Errors name the path as the CRD writes it
 * (`.spec.replicas`), with unstructured's accessor errors.
 */
import { FieldPath, GoValue, invalid, type FieldError } from '../api/field-errors.ts';
import { isObj } from '../gocompat/json.ts';
import { goV } from './types.ts';

/** spec.versions[i].subresources.scale of a CRD. */
export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

const MAX_INT32 = 2147483647;

/** Go's %T of a decoded JSON value. */
const goType = (v: unknown): string =>
  typeof v === 'string' ? 'string' : typeof v === 'boolean' ? 'bool' : typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64') : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';

/** unstructured.NestedFieldNoCopy + the type check of NestedInt64/NestedString. */
function nested(obj: unknown, path: string, want: 'int64' | 'string'): { value?: unknown; error?: string } {
  const fields = path.replace(/^\./, '').split('.');
  let val: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (val === null || val === undefined) return {};
    if (!isObj(val)) return { error: `.${fields.slice(0, i + 1).join('.')} accessor error: ${goV(val)} is of the type ${goType(val)}, expected map[string]interface{}` };
    if (!Object.prototype.hasOwnProperty.call(val, fields[i])) return {};
    val = val[fields[i]];
  }
  if (val === null || val === undefined) return want === 'int64' ? { error: `.${fields.join('.')} accessor error: <nil> is of the type <nil>, expected int64` } : { error: `.${fields.join('.')} accessor error: <nil> is of the type <nil>, expected string` };
  if (goType(val) !== want) return { error: `.${fields.join('.')} accessor error: ${goV(val)} is of the type ${goType(val)}, expected ${want}` };
  return { value: val };
}

function replicas(obj: unknown, path: string): FieldError[] {
  const p = new FieldPath(path);
  const { value, error } = nested(obj, path, 'int64');
  if (error) return [invalid(p, new GoValue('0'), error)];
  const n = typeof value === 'number' ? value : 0;
  if (n < 0) return [invalid(p, new GoValue(String(n)), 'should be a non-negative integer')];
  if (n > MAX_INT32) return [invalid(p, new GoValue(String(n)), `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** ValidateScaleSpec: the spec replicas (create and update of the main resource). */
export const validateScaleSpec = (obj: unknown, scale: ScaleSubresource | undefined): FieldError[] => (scale ? replicas(obj, scale.specReplicasPath) : []);

/** ValidateScaleStatus: the status replicas and the label selector (every write). */
export function validateScaleStatus(obj: unknown, scale: ScaleSubresource | undefined): FieldError[] {
  if (!scale) return [];
  const errs = replicas(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    const { error } = nested(obj, scale.labelSelectorPath, 'string');
    if (error) errs.push(invalid(new FieldPath(scale.labelSelectorPath), '', error));
  }
  return errs;
}
