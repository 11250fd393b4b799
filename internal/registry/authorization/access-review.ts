/**
 * authorization.k8s.io/v1 SelfSubjectAccessReview, SubjectAccessReview and
 * LocalSubjectAccessReview: virtual create-only kinds (pkg/registry/authorization/*), answered
 * by the server's authorizer and never stored. Each create decodes the spec the way Go's JSON
 * decoder sees the v1 types (wrong types → 400, unknown fields dropped, fields re-emitted in Go
 * struct order), validates it as pkg/apis/authorization/validation does (422 with an empty kind
 * and name: kube's REST.Create passes the internal object's cleared TypeMeta) and echoes the
 * object with its status.
 */
import type { KubeObject, UserInfo } from '../../api/types.ts';
import { badRequest, invalid } from '../../api/errors.ts';
import { FieldPath, GoValue, invalid as invalidField, type FieldError } from '../../api/field-errors.ts';
import type { AuthorizationAttributes, Authorizer } from '../../auth/authz.ts';
import type { KindDescriptor, VirtualCreateContext, VirtualDeps, VirtualKind } from '../rest/strategy.ts';
import { isObj } from '../../gocompat/json.ts';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';

type Obj = Record<string, unknown>;
const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/** Go's JSON decoder over one struct of the request body; `kind` names the kind in its 400s. */
export class Decoder {
  constructor(private readonly kind: string, private readonly src: Obj, private readonly struct: string, private readonly path: string) {}

  private fail(field: string, v: unknown, goType: string): never {
    throw badRequest(`${this.kind} in version "v1" cannot be handled as a ${this.kind}: json: cannot unmarshal ${jsonType(v)} into Go struct field ${this.struct}.${this.path}${field} of type ${goType}`);
  }

  str(field: string): string {
    const v = this.src[field];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') this.fail(field, v, 'string');
    return v;
  }

  strings(field: string): string[] {
    const v = this.src[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(field, v, '[]string');
    return v.map((x) => {
      if (typeof x !== 'string') this.fail(field, x, 'string');
      return x;
    });
  }

  /** map[string]ExtraValue: a null value stays null (a nil slice), as Go echoes it. */
  extra(field: string): Record<string, string[] | null> | undefined {
    const v = this.src[field];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) this.fail(field, v, 'map[string]v1.ExtraValue');
    const out: Record<string, string[] | null> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === null) out[k] = null;
      else if (!Array.isArray(x) || x.some((s) => typeof s !== 'string')) this.fail(field, Array.isArray(x) ? x.find((s) => typeof s !== 'string') : x, Array.isArray(x) ? 'string' : 'v1.ExtraValue');
      else out[k] = x as string[];
    }
    return out;
  }

  sub(field: string, struct: string): Decoder | null {
    const v = this.src[field];
    if (v === undefined || v === null) return null;
    if (!isObj(v)) this.fail(field, v, `v1.${struct}`);
    return new Decoder(this.kind, v, struct, `${this.path}${field}.`);
  }
}

/** v1.ResourceAttributes, Go field order, empty strings left out (omitempty). */
interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

/** v1.NonResourceAttributes. */
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}

/** The spec of any of the three kinds (the self kind has only the two attribute fields). */
interface ReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  extra?: Record<string, string[] | null>;
  uid?: string;
}

/** Keep the non-empty string fields, in the order given (Go's omitempty on strings). */
function nonEmpty<T extends object>(d: Decoder, fields: Array<keyof T & string>): T {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = d.str(f);
    if (v) out[f] = v;
  }
  return out as T;
}

function decodeSpec(kind: string, body: unknown, withSubject: boolean): ReviewSpec {
  if (body === undefined || body === null) return {};
  const specStruct = withSubject ? 'SubjectAccessReviewSpec' : 'SelfSubjectAccessReviewSpec';
  if (!isObj(body)) throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType(body)} into Go struct field ${kind}.spec of type v1.${specStruct}`);
  // Go names the struct that holds the field, with the field's whole path.
  const d = new Decoder(kind, body, specStruct, 'spec.');
  const spec: ReviewSpec = {};
  const ra = d.sub('resourceAttributes', 'ResourceAttributes');
  if (ra) spec.resourceAttributes = nonEmpty<ResourceAttributes>(ra, ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name']);
  const nra = d.sub('nonResourceAttributes', 'NonResourceAttributes');
  if (nra) spec.nonResourceAttributes = nonEmpty<NonResourceAttributes>(nra, ['path', 'verb']);
  if (!withSubject) return spec;
  const user = d.str('user');
  if (user) spec.user = user;
  const groups = d.strings('groups');
  if (groups.length) spec.groups = groups;
  const extra = d.extra('extra');
  if (extra && Object.keys(extra).length) spec.extra = extra;
  const uid = d.str('uid');
  if (uid) spec.uid = uid;
  return spec;
}

/** Go's %#v of the internal NonResourceAttributes (the value in validation messages). */
const goNonResource = (n: NonResourceAttributes): GoValue => new GoValue(`authorization.NonResourceAttributes{Path:${JSON.stringify(n.path ?? '')}, Verb:${JSON.stringify(n.verb ?? '')}}`);

/** ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec. */
function validateSpec(spec: ReviewSpec, withSubject: boolean): FieldError[] {
  const p = new FieldPath('spec');
  const errs: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) errs.push(invalidField(p.child('nonResourceAttributes'), goNonResource(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  // kube prints the (nil) nonResourceAttributes pointer here, which reads "null".
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) errs.push(invalidField(p.child('resourceAttributes'), 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (withSubject && !spec.user && !spec.groups?.length) errs.push(invalidField(p.child('user'), spec.user ?? '', 'at least one of user or group must be specified'));
  return errs;
}

const GO_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** time.Time's GoString for an RFC 3339 text (the zero time when absent). */
function goTime(v: unknown): string {
  const d = typeof v === 'string' ? new Date(v) : null;
  if (!d || Number.isNaN(d.getTime())) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  return `time.Date(${d.getUTCFullYear()}, time.${GO_MONTHS[d.getUTCMonth()]}, ${d.getUTCDate()}, ${d.getUTCHours()}, ${d.getUTCMinutes()}, ${d.getUTCSeconds()}, ${d.getUTCMilliseconds() * 1e6}, time.UTC)`;
}

const goStringMap = (v: unknown): string => {
  if (!isObj(v)) return 'map[string]string(nil)';
  const keys = Object.keys(v).sort();
  return `map[string]string{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(String(v[k]))}`).join(', ')}}`;
};

/**
 * Go's %#v of the request's v1.ObjectMeta, the value of the "must be empty" error. The FieldsV1
 * pointers print as addresses on kube, so that part of the text cannot match it exactly.
 */
function goObjectMeta(m: Obj): GoValue {
  const s = (f: string): string => JSON.stringify(typeof m[f] === 'string' ? m[f] : '');
  const list = (f: string, type: string, item: (x: Obj) => string): string =>
    Array.isArray(m[f]) && (m[f] as unknown[]).length ? `[]${type}{${(m[f] as unknown[]).map((x) => item(isObj(x) ? x : {})).join(', ')}}` : `[]${type}(nil)`;
  const str = (x: Obj, f: string): string => JSON.stringify(typeof x[f] === 'string' ? x[f] : '');
  const owner = (x: Obj): string =>
    `v1.OwnerReference{APIVersion:${str(x, 'apiVersion')}, Kind:${str(x, 'kind')}, Name:${str(x, 'name')}, UID:${str(x, 'uid')}, Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}`;
  const managed = (x: Obj): string =>
    `v1.ManagedFieldsEntry{Manager:${str(x, 'manager')}, Operation:${str(x, 'operation')}, APIVersion:${str(x, 'apiVersion')}, Time:${goTime(x.time)}, FieldsType:${str(x, 'fieldsType')}, FieldsV1:(*v1.FieldsV1)(0xc000000000), Subresource:${str(x, 'subresource')}}`;
  const finalizers = Array.isArray(m.finalizers) && m.finalizers.length ? `[]string{${m.finalizers.map((x) => JSON.stringify(String(x))).join(', ')}}` : '[]string(nil)';
  const deletion = m.deletionTimestamp ? goTime(m.deletionTimestamp) : '<nil>';
  const grace = typeof m.deletionGracePeriodSeconds === 'number' ? `(*int64)(0xc000000000)` : '(*int64)(nil)';
  return new GoValue(
    `v1.ObjectMeta{Name:${s('name')}, GenerateName:${s('generateName')}, Namespace:${s('namespace')}, SelfLink:${s('selfLink')}, UID:${s('uid')}, ResourceVersion:${s('resourceVersion')}, ` +
      `Generation:${typeof m.generation === 'number' ? m.generation : 0}, CreationTimestamp:${goTime(m.creationTimestamp)}, DeletionTimestamp:${deletion}, DeletionGracePeriodSeconds:${grace}, ` +
      `Labels:${goStringMap(m.labels)}, Annotations:${goStringMap(m.annotations)}, OwnerReferences:${list('ownerReferences', 'v1.OwnerReference', owner)}, Finalizers:${finalizers}, ` +
      `ZZZ_DeprecatedClusterName:${s('clusterName')}, ManagedFields:${list('managedFields', 'v1.ManagedFieldsEntry', managed)}}`,
  );
}

/** Go's zero value test as apiequality.Semantic sees JSON (nil and empty slices/maps are equal). */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isObj(v)) return Object.keys(v).length === 0;
  return false;
}

/** The "metadata must be empty" rule (managedFields, and the local kind's namespace, excepted). */
function validateMeta(meta: Obj, allowNamespace: boolean): FieldError[] {
  const set = Object.entries(meta).filter(([k, v]) => k !== 'managedFields' && !(allowNamespace && k === 'namespace') && !isZero(v));
  if (!set.length) return [];
  return [invalidField(new FieldPath('metadata'), goObjectMeta(meta), allowNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

/** The authorizer's attributes for a spec, checked as `user`. */
function attributesOf(spec: ReviewSpec, user: UserInfo): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  const base = { user, group: '', version: '', resource: '', subresource: '', namespace: '', name: '', path: '' };
  if (ra) return { ...base, isResourceRequest: true, verb: ra.verb ?? '', group: ra.group ?? '', version: ra.version ?? '', resource: ra.resource ?? '', subresource: ra.subresource ?? '', namespace: ra.namespace ?? '', name: ra.name ?? '' };
  const nra = spec.nonResourceAttributes ?? {};
  return { ...base, isResourceRequest: false, verb: nra.verb ?? '', path: nra.path ?? '' };
}

/** How one of the three kinds picks the subject and checks its spec. */
interface ReviewVariant {
  kind: string;
  /** The spec names the subject (SubjectAccessReviewSpec) rather than the requester. */
  withSubject: boolean;
  /** Extra rules of the namespaced kind, after the common ones. */
  validate?(obj: KubeObject, spec: ReviewSpec): FieldError[];
}

/** The subject of a spec that names one (user.DefaultInfo: no system:authenticated is added). */
function subjectOf(spec: ReviewSpec): UserInfo {
  const u: UserInfo = { username: spec.user ?? '', groups: spec.groups ?? [] };
  if (spec.uid) u.uid = spec.uid;
  if (spec.extra) u.extra = Object.fromEntries(Object.entries(spec.extra).map(([k, v]) => [k, v ?? []]));
  return u;
}

function reviewer(variant: ReviewVariant, authorizer: Authorizer): VirtualKind {
  return {
    async create(ctx: VirtualCreateContext, obj: KubeObject): Promise<KubeObject> {
      const spec = decodeSpec(variant.kind, obj.spec, variant.withSubject);
      const meta = obj.metadata as Obj;
      const errs = [...validateSpec(spec, variant.withSubject), ...validateMeta(meta, variant.validate !== undefined), ...(variant.validate?.(obj, spec) ?? [])];
      if (errs.length) throw invalid('', AUTHORIZATION_GROUP, '', errs);
      const d = await authorizer.authorize(attributesOf(spec, variant.withSubject ? subjectOf(spec) : ctx.user));
      const status: Obj = { allowed: d.allowed };
      if (d.denied) status.denied = true;
      if (d.reason) status.reason = d.reason;
      if (d.evaluationError) status.evaluationError = d.evaluationError;
      // ObjectMeta in Go order: only namespace and managedFields can be set once validation
      // passed; creationTimestamp is a zero metav1.Time, which kube writes as null.
      const outMeta: Obj = {};
      if (meta.namespace) outMeta.namespace = meta.namespace;
      outMeta.creationTimestamp = null;
      if (meta.managedFields) outMeta.managedFields = meta.managedFields;
      return { kind: obj.kind, apiVersion: obj.apiVersion, metadata: outMeta, spec, status } as KubeObject;
    },
  };
}

/** The descriptor of a virtual (create-only) authorization.k8s.io/v1 kind. */
export function reviewKind(kind: string, resource: string, namespaced: boolean, virtual: (deps: VirtualDeps) => VirtualKind): KindDescriptor {
  return {
    group: AUTHORIZATION_GROUP,
    versions: ['v1'],
    resource,
    singular: kind.toLowerCase(),
    kind,
    // There is no list type: the kind is never listed.
    listKind: '',
    namespaced,
    shortNames: [],
    verbs: ['create'],
    // Never called (the virtual create validates), but every kind has a strategy.
    strategy: { allowCreateOnUpdate: false, allowUnconditionalUpdate: false, validate: () => [], validateUpdate: () => [] },
    deleteReturns: 'Object',
    virtual,
  };
}

/** An access-review kind: decoded, validated and answered by `reviewer`. */
const accessReviewKind = (variant: ReviewVariant, resource: string, namespaced: boolean): KindDescriptor =>
  reviewKind(variant.kind, resource, namespaced, (deps) => reviewer(variant, deps.authorizer));

/** LocalSubjectAccessReview: a SubjectAccessReview limited to its namespace. */
export const localSubjectAccessReviewKind = accessReviewKind(
  {
    kind: 'LocalSubjectAccessReview',
    withSubject: true,
    validate(obj, spec) {
      const errs: FieldError[] = [];
      const ns = (obj.metadata.namespace as string | undefined) ?? '';
      if (spec.resourceAttributes && (spec.resourceAttributes.namespace ?? '') !== ns) {
        errs.push(invalidField(new FieldPath('spec.resourceAttributes.namespace'), spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
      }
      if (spec.nonResourceAttributes) errs.push(invalidField(new FieldPath('spec.nonResourceAttributes'), goNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
      return errs;
    },
  },
  'localsubjectaccessreviews',
  true,
);

/** SelfSubjectAccessReview: may the requester do this? */
export const selfSubjectAccessReviewKind = accessReviewKind({ kind: 'SelfSubjectAccessReview', withSubject: false }, 'selfsubjectaccessreviews', false);

/** SubjectAccessReview: may the named user / groups do this? */
export const subjectAccessReviewKind = accessReviewKind({ kind: 'SubjectAccessReview', withSubject: true }, 'subjectaccessreviews', false);
