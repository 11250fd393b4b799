/**
 * ValidateNodeSpecificAnnotations (pkg/apis/core/validation, Kubernetes 1.24): a Node's
 * `scheduler.alpha.kubernetes.io/taints` annotation must be JSON of []core.Taint whose taints pass
 * validateNodeTaints, and `scheduler.alpha.kubernetes.io/preferAvoidPods` JSON of v1.AvoidPods
 * whose entries name a controller. A value that does not unmarshal is refused with
 * encoding/json's error (syntax errors, `cannot unmarshal … into Go … of type …`, metav1.Time's
 * time.Parse error), as kube's helper reports it.
 */
import { type FieldError, FieldPath, invalid, required } from '../../api/field-errors.ts';
import { GoSyntaxError, parseJson } from '../../decode/json-parse.ts';
import { parseGoTime } from '../../gocompat/time.ts';
import { type J, list, obj } from './pod-util.ts';

export const TAINTS_ANNOTATION = 'scheduler.alpha.kubernetes.io/taints';
export const PREFER_AVOID_PODS_ANNOTATION = 'scheduler.alpha.kubernetes.io/preferAvoidPods';

/** The Go types these annotations unmarshal into, as encoding/json names them in its errors. */
type GoType =
  | { k: 'scalar'; name: string; json: 'string' | 'boolean' }
  | { k: 'time' }
  | { k: 'struct'; name: string; fields: Record<string, GoType> }
  | { k: 'slice'; name: string; elem: GoType }
  | { k: 'ptr'; elem: GoType };

const str = (name = 'string'): GoType => ({ k: 'scalar', name, json: 'string' });
// core.Taint is the internal type, without json tags: encoding/json names its fields as Go does.
const TAINT: GoType = { k: 'struct', name: 'core.Taint', fields: { Key: str(), Value: str(), Effect: str('core.TaintEffect'), TimeAdded: { k: 'ptr', elem: { k: 'time' } } } };
const OWNER_REFERENCE: GoType = {
  k: 'struct',
  name: 'v1.OwnerReference',
  fields: { apiVersion: str(), kind: str(), name: str(), uid: str('types.UID'), controller: { k: 'ptr', elem: { k: 'scalar', name: 'bool', json: 'boolean' } }, blockOwnerDeletion: { k: 'ptr', elem: { k: 'scalar', name: 'bool', json: 'boolean' } } },
};
const AVOID_PODS: GoType = {
  k: 'struct',
  name: 'v1.AvoidPods',
  fields: {
    preferAvoidPods: {
      k: 'slice',
      name: '[]v1.PreferAvoidPodsEntry',
      elem: {
        k: 'struct',
        name: 'v1.PreferAvoidPodsEntry',
        fields: { podSignature: { k: 'struct', name: 'v1.PodSignature', fields: { podController: { k: 'ptr', elem: OWNER_REFERENCE } } }, evictionTime: { k: 'time' }, reason: str(), message: str() },
      },
    },
  },
};
const TAINTS: GoType = { k: 'slice', name: '[]core.Taint', elem: TAINT };

const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'object');
const shortName = (t: GoType): string => (t.k === 'struct' ? t.name.slice(t.name.indexOf('.') + 1) : '');

/**
 * json.Unmarshal of `v` into `t`: the first error's text, or undefined. `ctx`: the innermost
 * struct and the field path inside it, for `Go struct field S.a.b` (none at the top).
 */
function unmarshalError(v: unknown, t: GoType, ctx?: { struct: string; path: string[] }): string | undefined {
  if (v === null) return undefined; // null leaves any Go value alone
  if (t.k === 'ptr') return unmarshalError(v, t.elem, ctx);
  const where = (goType: string): string =>
    `json: cannot unmarshal ${jsonType(v)} into Go ${ctx && ctx.path.length ? `struct field ${ctx.struct}.${ctx.path.join('.')}` : 'value'} of type ${goType}`;
  if (t.k === 'time') {
    // metav1.Time.UnmarshalJSON: a string parsed as RFC 3339 (its own errors, no field context).
    if (typeof v !== 'string') return `json: cannot unmarshal ${jsonType(v)} into Go value of type string`;
    const r = parseGoTime(v, false);
    return r.ok ? undefined : r.error;
  }
  if (t.k === 'scalar') return typeof v === t.json ? undefined : where(t.name);
  if (t.k === 'slice') {
    if (!Array.isArray(v)) return where(t.name);
    for (const e of v) {
      const err = unmarshalError(e, t.elem, ctx);
      if (err) return err;
    }
    return undefined;
  }
  if (typeof v !== 'object' || Array.isArray(v)) return where(t.name);
  for (const [k, fv] of Object.entries(v as J)) {
    // encoding/json matches field names case-insensitively; unknown ones are ignored.
    const name = Object.keys(t.fields).find((f) => f.toLowerCase() === k.toLowerCase());
    if (!name) continue;
    const err = unmarshalError(fv, t.fields[name]!, { struct: shortName(t), path: [...(ctx?.path ?? []), name] });
    if (err) return err;
  }
  return undefined;
}

/** The value unmarshalled into `t`, keys as the Go fields name them; or the error's text. */
function unmarshal(text: string, t: GoType): { value: unknown } | { error: string } {
  let value: unknown;
  try {
    value = parseJson(text).value;
  } catch (e) {
    if (e instanceof GoSyntaxError) return { error: e.message };
    throw e;
  }
  const error = unmarshalError(value, t);
  return error ? { error } : { value: canonicalKeys(value, t) };
}

/** Keys matched case-insensitively renamed to the field's JSON name (a Go name lower-cased first, as the v1 type's tag). */
function canonicalKeys(v: unknown, t: GoType): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (t.k === 'ptr') return canonicalKeys(v, t.elem);
  if (t.k === 'slice') return (v as unknown[]).map((e) => canonicalKeys(e, t.elem));
  if (t.k !== 'struct') return v;
  const out: J = {};
  for (const [k, fv] of Object.entries(v as J)) {
    const name = Object.keys(t.fields).find((f) => f.toLowerCase() === k.toLowerCase());
    if (name) out[name[0]!.toLowerCase() + name.slice(1)] = canonicalKeys(fv, t.fields[name]!);
  }
  return out;
}

/** ValidateNodeSpecificAnnotations; `validateTaints` is validateNodeTaints. */
export function validateNodeAnnotations(annotations: Record<string, string> | undefined, validateTaints: (taints: J[], p: FieldPath) => FieldError[]): FieldError[] {
  const a = annotations ?? {};
  const p = new FieldPath('metadata').child('annotations');
  const errs: FieldError[] = [];
  if (a[TAINTS_ANNOTATION]) {
    const r = unmarshal(a[TAINTS_ANNOTATION], TAINTS);
    if ('error' in r) errs.push(invalid(p, TAINTS_ANNOTATION, r.error));
    else {
      const taints = list(r.value).map((t) => t ?? {});
      if (taints.length) errs.push(...validateTaints(taints, p.child(TAINTS_ANNOTATION)));
    }
  }
  if (a[PREFER_AVOID_PODS_ANNOTATION]) {
    const r = unmarshal(a[PREFER_AVOID_PODS_ANNOTATION], AVOID_PODS);
    if ('error' in r) errs.push(invalid(p.child('AvoidPods'), PREFER_AVOID_PODS_ANNOTATION, r.error));
    else {
      list(obj(r.value)?.preferAvoidPods).forEach((entry, i) => {
        const ep = p.child(PREFER_AVOID_PODS_ANNOTATION).index(i).child('PodSignature');
        const controller = obj(obj(obj(entry)?.podSignature)?.podController);
        if (!controller) errs.push(required(ep, ''));
        // kube dereferences `controller` unchecked (a nil one fails the request with a panic);
        // absent counts as false here.
        else if (controller.controller !== true) errs.push(invalid(ep.child('PodController').child('Controller'), false, 'must point to a controller'));
      });
    }
  }
  return errs;
}
