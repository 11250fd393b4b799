/**
 * Options of the write verbs (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions), read and
 * validated the way kube-apiserver 1.24's handlers do it (k8s.io/apiserver pkg/endpoints/handlers
 * create.go, update.go, patch.go, delete.go; validation in k8s.io/apimachinery
 * pkg/apis/meta/v1/validation):
 *
 * - Create/Update/Patch options come from the query only: `dryRun` (every value), `fieldManager`,
 *   `fieldValidation` (first value), `force` (patch). Invalid values → 422 Invalid on
 *   `<Kind>Options.meta.k8s.io`.
 * - DeleteOptions come from the body when there is one (JSON, YAML or Protobuf, any apiVersion with
 *   kind DeleteOptions) and then the query is NOT read at all; without a body they come from the
 *   query. Decode failures are kube's 500s (its decoder errors are not API errors), query
 *   conversion failures 400, validation failures 422 on `DeleteOptions.meta.k8s.io`.
 *
 * Everything here is pure: (query, body bytes) → options or a thrown ApiError.
 */
import YAML from 'yaml';
import { ApiError, badRequest, failure, unsupportedMediaType } from '../api/errors.ts';
import type { StatusCause } from '../api/types.ts';
import type { FieldErrorType } from '../api/field-errors.ts';
import type { DeleteOptions } from '../registry/generic/store.ts';
import { PROTOBUF, decodeProtobuf } from './protobuf.ts';
import { bodyMediaType } from './negotiation.ts';
import { goSyntaxError, jsonDepthError, yamlDepthError } from '../decode/json-parse.ts';
import { goQuote, goStringSlice, isPrint } from '../gocompat/quote.ts';

/** The only dryRun value kube accepts (metav1.DryRunAll). */
const DRY_RUN_ALL = 'All';
/** validation.FieldManagerMaxLength. */
const FIELD_MANAGER_MAX_LENGTH = 128;
/** sets.NewString("", Ignore, Warn, Strict).List(): sorted, as kube prints them. */
const FIELD_VALIDATION_VALUES = ['', 'Ignore', 'Strict', 'Warn'];
const PROPAGATION_POLICIES = ['Foreground', 'Background', 'Orphan'];

/** Options of create, update and patch after validation. */
export interface WriteOptions {
  dryRun: boolean;
  /** '' when the client sent none (the caller derives one from the User-Agent). */
  fieldManager: string;
  fieldValidation: string;
}

/** DeleteOptions after decoding and validation; `dryRun` is true for `dryRun: ["All"]`. */
export interface ParsedDeleteOptions {
  dryRun: boolean;
  options: DeleteOptions;
}

/** One option error, in field.Error's terms: `body` is ErrorBody() (the message without the field). */
interface OptionError {
  type: FieldErrorType;
  field: string;
  body: string;
}

// ---------------------------------------------------------------- Go formatting

const notSupported = (field: string, shown: string, valid: string[]): OptionError => ({
  type: 'FieldValueNotSupported',
  field,
  body: `Unsupported value: ${shown}: supported values: ${valid.map((v) => goQuote(v)).join(', ')}`,
});

/**
 * 422 Invalid for a request's options, as errors.NewInvalid(GroupKind{meta.k8s.io, kind}, "", errs)
 * prints it: no name, one cause per error whose message leaves the field out.
 */
function invalidOptions(kind: string, errs: OptionError[]): ApiError {
  const full = errs.map((e) => `${e.field}: ${e.body}`);
  const joined = full.length === 1 ? full[0] : `[${full.join(', ')}]`;
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: e.body, field: e.field }));
  return new ApiError(failure(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${joined}`, { group: 'meta.k8s.io', kind, causes }));
}

/** A decoder error: kube hands a plain Go error to the response writer, so 500 with no reason. */
const decodeFailure = (message: string): ApiError => new ApiError(failure(500, undefined, message));

// ---------------------------------------------------------------- validation (pure)

/** ValidateDryRun: every value must be "All". */
function validateDryRun(values: string[]): OptionError[] {
  return values.every((v) => v === DRY_RUN_ALL) ? [] : [notSupported('dryRun', goStringSlice(values), [DRY_RUN_ALL])];
}

/** ValidateFieldManager: at most 128 bytes, printable characters only (one error per bad character). */
function validateFieldManager(fm: string): OptionError[] {
  const errs: OptionError[] = [];
  if (Buffer.byteLength(fm, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({ type: 'FieldValueTooLong', field: 'fieldManager', body: `Too long: must have at most ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  let pos = 0; // Go ranges over a string by byte offset
  for (const ch of fm) {
    if (!isPrint(ch)) {
      const cp = ch.codePointAt(0)!;
      errs.push({ type: 'FieldValueInvalid', field: 'fieldManager', body: `Invalid value: ${goQuote(fm)}: invalid character U+${cp.toString(16).padStart(4, '0').toUpperCase()} (at position ${pos})` });
    }
    pos += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

function validateFieldValidation(v: string): OptionError[] {
  return FIELD_VALIDATION_VALUES.includes(v) ? [] : [notSupported('fieldValidation', goQuote(v), FIELD_VALIDATION_VALUES)];
}

/** ValidateDeleteOptions (orphanDependents with propagationPolicy, the policy's value, dryRun). */
export function validateDeleteOptions(o: DeleteOptions, dryRun: string[]): OptionError[] {
  const errs: OptionError[] = [];
  const policy = o.propagationPolicy;
  if (o.orphanDependents !== undefined && policy !== undefined) {
    errs.push({ type: 'FieldValueInvalid', field: 'propagationPolicy', body: `Invalid value: ${goQuote(policy)}: orphanDependents and deletionPropagation cannot be both set` });
  }
  if (policy !== undefined && !PROPAGATION_POLICIES.includes(policy)) {
    errs.push(notSupported('propagationPolicy', goQuote(policy), [...PROPAGATION_POLICIES, 'nil']));
  }
  errs.push(...validateDryRun(dryRun));
  return errs;
}

// ---------------------------------------------------------------- create / update / patch

/** The query's value for a string option: its first value, '' when absent (Convert_Slice_string_To_string). */
const first = (q: URLSearchParams, name: string): string => q.get(name) ?? '';

function writeOptions(q: URLSearchParams, kind: string, extra: OptionError[]): WriteOptions {
  const dryRun = q.getAll('dryRun');
  const fieldManager = first(q, 'fieldManager');
  const fieldValidation = first(q, 'fieldValidation');
  const errs = [...extra, ...validateFieldManager(fieldManager), ...validateDryRun(dryRun), ...validateFieldValidation(fieldValidation)];
  if (errs.length) throw invalidOptions(kind, errs);
  return { dryRun: dryRun.length > 0, fieldManager, fieldValidation };
}

/** CreateOptions of a POST (query only); 422 CreateOptions.meta.k8s.io when invalid. */
export const createOptions = (q: URLSearchParams): WriteOptions => writeOptions(q, 'CreateOptions', []);

/** UpdateOptions of a PUT (query only); 422 UpdateOptions.meta.k8s.io when invalid. */
export const updateOptions = (q: URLSearchParams): WriteOptions => writeOptions(q, 'UpdateOptions', []);

/**
 * PatchOptions of a PATCH (query only); 422 PatchOptions.meta.k8s.io when invalid. `force` is only
 * for apply patches; apply needs a fieldManager (ValidatePatchOptions checks those first).
 */
export function patchOptions(q: URLSearchParams, apply: boolean): WriteOptions {
  const pre: OptionError[] = [];
  if (!apply && q.has('force')) pre.push({ type: 'FieldValueForbidden', field: 'force', body: 'Forbidden: may not be specified for non-apply patch' });
  if (apply && !first(q, 'fieldManager')) pre.push({ type: 'FieldValueRequired', field: 'fieldManager', body: 'Required value: is required for apply patch' });
  return writeOptions(q, 'PatchOptions', pre);
}

// ---------------------------------------------------------------- DeleteOptions

type Json = Record<string, unknown>;

const jsonType = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v);

/** encoding/json's UnmarshalTypeError text (a number that does not fit an int64 prints itself). */
const typeError = (v: unknown, struct: string, path: string, goType: string): string => {
  const what = typeof v === 'number' && goType === 'int64' ? `number ${String(v)}` : jsonType(v);
  return `json: cannot unmarshal ${what} into Go struct field ${struct}.${path} of type ${goType}`;
};

/** Kinds registered for every version in kube's meta scheme, and those of meta.k8s.io/v1 (v1beta1). */
const UNVERSIONED_KINDS = ['DeleteOptions', 'CreateOptions', 'UpdateOptions', 'Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList'];
const META_V1_KINDS = ['WatchEvent', 'ListOptions', 'GetOptions', 'PatchOptions', 'Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList'];
const META_V1BETA1_KINDS = ['Table', 'TableOptions', 'PartialObjectMetadata', 'PartialObjectMetadataList'];

/**
 * Check the body's apiVersion/kind as the meta scheme decoder does: DeleteOptions decodes from any
 * group version (it is unversioned there); other meta kinds decode but do not convert; anything
 * else is not registered.
 */
function checkDeleteOptionsKind(apiVersion: string, kind: string): void {
  if (apiVersion.split('/').length > 2) throw decodeFailure(`unexpected GroupVersion string: ${apiVersion}`);
  const av = apiVersion || 'meta.k8s.io/v1';
  const k = kind || 'DeleteOptions';
  if (k === 'DeleteOptions') return;
  const known = UNVERSIONED_KINDS.includes(k) || (av === 'meta.k8s.io/v1' && META_V1_KINDS.includes(k)) || (av === 'meta.k8s.io/v1beta1' && META_V1BETA1_KINDS.includes(k));
  if (known) throw decodeFailure(`converting (${av === 'meta.k8s.io/v1beta1' && !UNVERSIONED_KINDS.includes(k) ? 'v1beta1' : 'v1'}.${k}) to (v1.DeleteOptions): unknown conversion`);
  throw decodeFailure(`no kind ${JSON.stringify(k)} is registered for version ${JSON.stringify(av)} in scheme "pkg/runtime/scheme.go:100"`);
}

/**
 * metav1.DeleteOptions from a decoded JSON value, with encoding/json's type checks (first type
 * error in document order; null leaves a field unset; unknown fields are ignored).
 */
function deleteOptionsFromJson(v: unknown): { options: DeleteOptions; dryRun: string[] } {
  if (v === null) v = {}; // encoding/json: null into a struct is a no-op
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw decodeFailure(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(v)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    );
  }
  const body = v as Json;
  for (const f of ['apiVersion', 'kind']) {
    const x = body[f];
    if (x !== undefined && x !== null && typeof x !== 'string') {
      throw decodeFailure(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonType(x)} into Go struct field .${f} of type string`);
    }
  }
  checkDeleteOptionsKind(String(body.apiVersion ?? ''), String(body.kind ?? ''));
  const options: DeleteOptions = {};
  let dryRun: string[] = [];
  let firstError: string | undefined;
  const fail = (msg: string): void => {
    firstError ??= msg;
  };
  for (const [key, x] of Object.entries(body)) {
    if (x === null || x === undefined) continue;
    switch (key) {
      case 'gracePeriodSeconds':
        if (typeof x !== 'number' || !Number.isSafeInteger(x)) fail(typeError(x, 'DeleteOptions', key, 'int64'));
        else options.gracePeriodSeconds = x;
        break;
      case 'orphanDependents':
        if (typeof x !== 'boolean') fail(typeError(x, 'DeleteOptions', key, 'bool'));
        else options.orphanDependents = x;
        break;
      case 'propagationPolicy':
        if (typeof x !== 'string') fail(typeError(x, 'DeleteOptions', key, 'v1.DeletionPropagation'));
        else options.propagationPolicy = x;
        break;
      case 'dryRun':
        if (!Array.isArray(x)) fail(typeError(x, 'DeleteOptions', key, '[]string'));
        else {
          const bad = x.find((e) => e !== null && typeof e !== 'string');
          if (bad !== undefined) fail(typeError(bad, 'DeleteOptions', key, 'string'));
          else dryRun = x.map((e) => (e === null ? '' : String(e)));
        }
        break;
      case 'preconditions': {
        if (typeof x !== 'object' || Array.isArray(x)) {
          fail(typeError(x, 'DeleteOptions', key, 'v1.Preconditions'));
          break;
        }
        const pre: NonNullable<DeleteOptions['preconditions']> = {};
        for (const [pk, pv] of Object.entries(x as Json)) {
          if (pv === null || (pk !== 'uid' && pk !== 'resourceVersion')) continue;
          if (typeof pv !== 'string') fail(typeError(pv, 'Preconditions', `preconditions.${pk}`, pk === 'uid' ? 'types.UID' : 'string'));
          else pre[pk] = pv;
        }
        options.preconditions = pre;
        break;
      }
    }
  }
  if (firstError) throw decodeFailure(firstError);
  return { options, dryRun };
}

/** Decode a DeleteOptions body by Content-Type (JSON default, YAML, Protobuf). */
function decodeDeleteOptionsBody(contentType: string | undefined, raw: Buffer): { options: DeleteOptions; dryRun: string[] } {
  const ct = bodyMediaType(contentType);
  if (ct === 'application/json' || ct === '') {
    let v: unknown;
    try {
      v = JSON.parse(raw.toString('utf8'));
    } catch {
      // kube reads the version/kind with encoding/json: its syntax error text.
      throw decodeFailure(`couldn't get version/kind; json parse error: ${goSyntaxError(raw.toString('utf8')) || 'unexpected end of JSON input'}`);
    }
    // encoding/json's depth limit, which JSON.parse does not have.
    const deep = jsonDepthError(raw.toString('utf8'));
    if (deep) throw decodeFailure(`couldn't get version/kind; json parse error: ${deep}`);
    return deleteOptionsFromJson(v);
  }
  if (ct === 'application/yaml') {
    // go-yaml's limit on flow collections, before a parser that recurses per level.
    const deep = yamlDepthError(raw.toString('utf8'), false);
    if (deep) throw decodeFailure(deep);
    let v: unknown;
    try {
      v = YAML.parse(raw.toString('utf8'));
    } catch (e) {
      throw decodeFailure(`error converting YAML to JSON: ${(e as Error).message}`);
    }
    return deleteOptionsFromJson(v);
  }
  if (ct === PROTOBUF) {
    let decoded: ReturnType<typeof decodeProtobuf>;
    try {
      decoded = decodeProtobuf(raw, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' });
    } catch (e) {
      throw decodeFailure((e as Error).message);
    }
    return deleteOptionsFromJson(decoded.object);
  }
  throw unsupportedMediaType(ct);
}

/**
 * DeleteOptions from the query (ParameterCodec): first value of gracePeriodSeconds (int64, else
 * 400), orphanDependents (anything but "false"/"0" is true) and propagationPolicy (even ''), every
 * dryRun value. Preconditions cannot come from the query.
 */
function deleteOptionsFromQuery(q: URLSearchParams): { options: DeleteOptions; dryRun: string[] } {
  const options: DeleteOptions = {};
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null) {
    if (!/^[+-]?\d+$/.test(grace)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(grace)}: invalid syntax`);
    const n = BigInt(grace);
    if (n > 2n ** 63n - 1n || n < -(2n ** 63n)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(grace)}: value out of range`);
    options.gracePeriodSeconds = Number(n);
  }
  const orphan = q.get('orphanDependents');
  if (orphan !== null) options.orphanDependents = !(orphan === '0' || orphan.toLowerCase() === 'false');
  const policy = q.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = policy;
  return { options, dryRun: q.getAll('dryRun') };
}

/**
 * The DeleteOptions of a DELETE (one object or a collection): from the body when it has one,
 * otherwise from the query, then validated (422 DeleteOptions.meta.k8s.io).
 */
export function deleteOptions(q: URLSearchParams, contentType: string | undefined, body: Buffer): ParsedDeleteOptions {
  const { options, dryRun } = body.length ? decodeDeleteOptionsBody(contentType, body) : deleteOptionsFromQuery(q);
  const errs = validateDeleteOptions(options, dryRun);
  if (errs.length) throw invalidOptions('DeleteOptions', errs);
  return { dryRun: dryRun.length > 0, options };
}
