/**
 * The one catalogue of API errors. Everything that fails a request ends as an ApiError carrying a
 * complete `Status`; handlers only serialize it. Builders mirror
 * k8s.io/apimachinery/pkg/api/errors so messages and reasons read like kube-apiserver's.
 */
import type { Status, StatusCause, StatusDetails } from './types.ts';
import { type FieldError, fieldErrorMessage } from './field-errors.ts';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

/** A failed request. `status` is sent as the response body, `status.code` as the HTTP code. */
export class ApiError extends Error {
  readonly status: Status;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;
  constructor(status: Status, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? 'error');
    this.status = status;
    this.headers = headers;
  }
  get code(): number {
    return this.status.code;
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

export function failure(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails): Status {
  // Fields in metav1.Status's order (kind, apiVersion, metadata, status, message, reason, details,
  // code), so a Status reads byte for byte as kube-apiserver writes it.
  const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message } as Status;
  if (reason) s.reason = reason;
  if (details) s.details = details;
  s.code = code;
  return s;
}

/** group/resource as Kubernetes prints it: `configmaps` or `storageclasses.storage.k8s.io`. */
export interface GroupResource {
  group: string;
  resource: string;
}
const grString = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

/** StatusDetails naming an object, in Go field order; the core group's '' is omitted (omitempty). */
const detailsFor = (gr: GroupResource, name?: string): StatusDetails => {
  const d: StatusDetails = {};
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  d.kind = gr.resource;
  return d;
};

export const badRequest = (message: string, causes?: StatusCause[]): ApiError =>
  new ApiError(failure(400, 'BadRequest', message, causes ? { causes } : undefined));

export const unauthorized = (message = 'Unauthorized'): ApiError => new ApiError(failure(401, 'Unauthorized', message));

export const forbidden = (gr: GroupResource, name: string, message: string, causes?: StatusCause[]): ApiError => {
  const what = name ? `${grString(gr)} "${name}"` : grString(gr);
  const details = detailsFor(gr, name);
  if (causes) details.causes = causes;
  return new ApiError(failure(403, 'Forbidden', `${what} is forbidden: ${message}`, details));
};

export const notFound = (gr: GroupResource, name: string): ApiError =>
  new ApiError(failure(404, 'NotFound', `${grString(gr)} "${name}" not found`, detailsFor(gr, name)));

/** A path that names no resource at all (unknown group/version/resource). */
export const pathNotFound = (message = 'the server could not find the requested resource'): ApiError =>
  new ApiError(failure(404, 'NotFound', message, {}));

export const methodNotSupported = (gr: GroupResource, action: string): ApiError =>
  new ApiError(failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind "${grString(gr)}"`, detailsFor(gr)));

/** 406 from a conversion that does not apply (PartialObjectMetadata of a list), saying why. */
export const notAcceptable = (message: string): ApiError => new ApiError(failure(406, 'NotAcceptable', message));

export const alreadyExists = (gr: GroupResource, name: string): ApiError =>
  new ApiError(failure(409, 'AlreadyExists', `${grString(gr)} "${name}" already exists`, detailsFor(gr, name)));

export const conflict = (gr: GroupResource, name: string, why: string): ApiError =>
  new ApiError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${grString(gr)} "${name}": ${why}`, detailsFor(gr, name)));

export const gone = (message: string): ApiError => new ApiError(failure(410, 'Gone', message));

/**
 * 410 with reason Expired: what clients see for compacted versions and stale continue tokens.
 * `continueToken` goes to the Status's ListMeta, as kube-apiserver hands an expired list a token
 * that resumes at the latest version (etcd3 store handleCompactedErrorForPaging).
 */
export const expired = (message: string, continueToken?: string): ApiError => {
  const e = new ApiError(failure(410, 'Expired', message));
  if (continueToken) e.status.metadata = { continue: continueToken };
  return e;
};

export const tooLarge = (limitBytes: number): ApiError =>
  new ApiError(failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`));

export const unsupportedMediaType = (_contentType: string): ApiError =>
  new ApiError(failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'));

/**
 * 422 Invalid with one cause per field error, message like kube-apiserver's NewInvalid: the kind
 * is qualified by its group (`ListOptions.meta.k8s.io "" is invalid: …`), core kinds print bare.
 */
export function invalid(kind: string, group: string, name: string, errs: FieldError[]): ApiError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorMessage(e), field: e.field }));
  const list = errs.map(fieldErrorMessage);
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualified = group ? `${kind}.${group}` : kind;
  return new ApiError(
    failure(422, 'Invalid', `${qualified} "${name}" is invalid: ${joined}`, { name, group, kind, causes }),
  );
}

export const internalError = (message: string): ApiError =>
  new ApiError(failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));

export const serviceUnavailable = (message: string): ApiError => new ApiError(failure(503, 'ServiceUnavailable', message));

export const timeout = (message: string, retryAfterSeconds?: number): ApiError => {
  const details: StatusDetails = {};
  if (retryAfterSeconds !== undefined) details.retryAfterSeconds = retryAfterSeconds;
  return new ApiError(failure(504, 'Timeout', message, details), retryAfterSeconds !== undefined ? { 'Retry-After': String(retryAfterSeconds) } : {});
};

/**
 * 504 for a resourceVersion the server has not reached in time, as
 * k8s.io/apiserver/pkg/storage.NewTooLargeResourceVersionError builds it: NewTimeoutError's
 * "Timeout: " message, a ResourceVersionTooLarge cause, and Retry-After when retry > 0.
 */
export const tooLargeResourceVersion = (requested: number, current: number, retryAfterSeconds: number): ApiError => {
  const details: StatusDetails = { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] };
  if (retryAfterSeconds > 0) details.retryAfterSeconds = retryAfterSeconds;
  const message = `Timeout: Too large resource version: ${requested}, current: ${current}`;
  return new ApiError(failure(504, 'Timeout', message, details), retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
};

/** Turn anything thrown into an ApiError; unknown errors become 500s (the caller logs them). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  return internalError(msg);
}

// ---- go-restful router answers: kube-apiserver turns the router's errors into these Statuses
// (NewGenericServerResponse: empty details; 405 gets a fixed message, 406/415 keep the router's).

/** 405 for a method the path has no route for (POST on an item, PUT/PATCH on a collection, writes on the all-namespaces path). */
export const methodNotAllowed = (): ApiError =>
  new ApiError(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));

/** 406 from the router: no type in Accept is one the route produces. */
export const notAcceptableByRoute = (): ApiError => new ApiError(failure(406, 'NotAcceptable', '406: Not Acceptable', {}));

/** 415 from the router: a PATCH body whose Content-Type is not a patch type. */
export const unsupportedMediaTypeByRoute = (): ApiError => new ApiError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));

/** 406 from a handler's output negotiation (negotiation.NewNotAcceptableError). */
export const notAcceptableMediaTypes = (accepted: string[]): ApiError =>
  new ApiError(failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`));
