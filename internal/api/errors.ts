/**
 * The one catalogue of API errors. Everything that fails a request ends as an ApiError carrying a
 * complete `Status`; handlers only serialize it. Builders mirror
 * k8s.io/apimachinery/pkg/api/errors so messages and reasons read like kube-apiserver's.
 */
import type { Status, StatusCause, StatusDetails } from './types.ts';
import { type FieldError, fieldErrorMessage, fieldErrorBody } from './field-errors.ts';

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

/**
 * A Failure Status with kube's field order (metav1.Status: kind, apiVersion, metadata, status,
 * message, reason, details, code) and its omitempty rules: an empty reason or message is left
 * out, as are empty details fields (see statusDetails). `details` given as `{}` stays `{}`, as
 * kube writes it for errors that carry a non-nil but empty StatusDetails (path 404, 405, 406).
 */
export function failure(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails): Status {
  const s = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure' } as Status;
  if (message) s.message = message;
  if (reason) s.reason = reason;
  if (details) s.details = statusDetails(details);
  s.code = code;
  return s;
}

/**
 * StatusDetails in metav1 field order (name, group, kind, uid, causes, retryAfterSeconds) with
 * every empty field left out (all are omitempty: `group: ""` never appears on the wire).
 */
export function statusDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes?.length) {
    out.causes = d.causes.map((c) => {
      const x: StatusCause = {};
      if (c.reason) x.reason = c.reason;
      if (c.message) x.message = c.message;
      if (c.field) x.field = c.field;
      return x;
    });
  }
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

/**
 * The Success Status a delete answers when the object is gone at once (no finalizers, no grace):
 * details name the object by resource, as kube's store does (`kind: configmaps`).
 */
export function deleteSuccess(gr: GroupResource, name: string, uid: string | undefined): Status {
  const details = statusDetails({ name, group: gr.group, kind: gr.resource, uid });
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details } as Status;
}

/** group/resource as Kubernetes prints it: `configmaps` or `storageclasses.storage.k8s.io`. */
export interface GroupResource {
  group: string;
  resource: string;
}
const grString = (gr: GroupResource): string => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

export const badRequest = (message: string, causes?: StatusCause[]): ApiError =>
  new ApiError(failure(400, 'BadRequest', message, causes ? { causes } : undefined));

export const unauthorized = (message = 'Unauthorized'): ApiError => new ApiError(failure(401, 'Unauthorized', message));

export const forbidden = (gr: GroupResource, name: string, message: string, causes?: StatusCause[]): ApiError => {
  const what = name ? `${grString(gr)} "${name}"` : grString(gr);
  const details: StatusDetails = { group: gr.group, kind: gr.resource };
  if (name) details.name = name;
  if (causes) details.causes = causes;
  return new ApiError(failure(403, 'Forbidden', `${what} is forbidden: ${message}`, details));
};

/** 403 with the NamespaceTerminating cause, as Kubernetes answers. */
export function namespaceTerminating(gr: GroupResource, name: string, namespace: string): ApiError {
  return forbidden(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
    { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
  ]);
}

export const notFound = (gr: GroupResource, name: string): ApiError =>
  new ApiError(failure(404, 'NotFound', `${grString(gr)} "${name}" not found`, { name, group: gr.group, kind: gr.resource }));

/**
 * A path under a served API prefix that names no route (unknown version of a served group,
 * unknown resource, wrong scope): go-restful's 404, written by kube as this Status with empty
 * details. Paths outside every served prefix get the mux's text/plain 404 instead (server.ts).
 */
export const pathNotFound = (message = 'the server could not find the requested resource'): ApiError =>
  new ApiError(failure(404, 'NotFound', message, {}));

/**
 * 405 for a method no route serves on a path (POST to an item, PUT/PATCH on a collection, DELETE
 * on a collection without deletecollection, anything but GET on discovery): kube-apiserver
 * registers no route for them, so go-restful answers and kube's service error handler writes
 * this generic Status with empty details.
 */
export const methodNotAllowed = (): ApiError =>
  new ApiError(failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}));

/** NewMethodNotSupported: a route exists but the storage refuses the verb (kube's wording, or the caller's `message`). */
export const methodNotSupported = (gr: GroupResource, action: string, message = `${action} is not supported on resources of kind "${grString(gr)}"`): ApiError =>
  new ApiError(failure(405, 'MethodNotAllowed', message, { group: gr.group, kind: gr.resource }));

/** Media types a resource route produces (go-restful's Produces for get/list/create/…). */
const ROUTE_MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

/**
 * 406 for an Accept header nothing can satisfy. Two answers, as in kube-apiserver:
 *   - no media range names a type the route produces (`text/html`): go-restful refuses before
 *     any handler runs → "406: Not Acceptable", empty details;
 *   - a produced type with parameters the serializer cannot honour (`application/json;as=Foo`,
 *     YAML on a watch) → NewNotAcceptableError listing `offered` (no details).
 * `offered` defaults to the media types of plain get/list.
 */
export const notAcceptable = (accept: string, offered: string[] = ROUTE_MEDIA_TYPES): ApiError => {
  const routeMatches = accept.split(',').some((part) => {
    const t = part.split(';')[0].trim().toLowerCase();
    return t === '*/*' || t === 'application/*' || ROUTE_MEDIA_TYPES.includes(t);
  });
  return routeMatches ? notAcceptableTypes(offered) : notAcceptableRoute();
};

/** go-restful's 406: the route produces none of the accepted types. */
export const notAcceptableRoute = (): ApiError => new ApiError(failure(406, 'NotAcceptable', '406: Not Acceptable', {}));

/** kube's NewNotAcceptableError: the serializer offers none of the accepted types. */
export const notAcceptableTypes = (offered: string[] = ROUTE_MEDIA_TYPES): ApiError =>
  new ApiError(failure(406, 'NotAcceptable', `only the following media types are accepted: ${offered.join(', ')}`));

export const alreadyExists = (gr: GroupResource, name: string): ApiError =>
  new ApiError(failure(409, 'AlreadyExists', `${grString(gr)} "${name}" already exists`, { name, group: gr.group, kind: gr.resource }));

export const conflict = (gr: GroupResource, name: string, why: string): ApiError =>
  new ApiError(failure(409, 'Conflict', `Operation cannot be fulfilled on ${grString(gr)} "${name}": ${why}`, { name, group: gr.group, kind: gr.resource }));

/**
 * 409 for an update whose body carries a uid other than the stored object's: kube turns the uid
 * into a storage precondition, and the etcd3 store's StorageError text (with the object's etcd key,
 * `/registry/<resource>/<namespace>/<name>`) becomes the conflict's reason.
 */
export const updateUidPreconditionFailed = (gr: GroupResource, namespace: string, name: string, wanted: string, actual: string): ApiError => {
  const key = `/registry/${gr.resource}/${namespace ? `${namespace}/` : ''}${name}`;
  return conflict(gr, name, `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${wanted}, UID in object meta: ${actual}`);
};

/**
 * 409 for DeleteOptions.preconditions that do not hold. kube-apiserver checks them in
 * rest.BeforeDelete and names the object by its Kind there (`on ConfigMap "x"`, details.kind
 * `ConfigMap`), unlike the resource-named conflicts of storage.
 */
export const deletePreconditionFailed = (group: string, kind: string, name: string, what: 'uid' | 'resourceVersion', wanted: string, actual: string): ApiError =>
  conflict(
    { group, resource: kind },
    name,
    what === 'uid'
      ? `the UID in the precondition (${wanted}) does not match the UID in record (${actual}). The object might have been deleted and then recreated`
      : `the ResourceVersion in the precondition (${wanted}) does not match the ResourceVersion in record (${actual}). The object might have been modified`,
  );

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

/**
 * 406 when a metadata-only representation names the wrong shape: PartialObjectMetadata for a
 * list, PartialObjectMetadataList for one object (kube's transform refuses after negotiation;
 * `goType` is the internal type it names, e.g. `*core.ConfigMapList`).
 */
export const partialMetadataMismatch = (requested: string, isList: boolean, goType: string): ApiError =>
  new ApiError(
    failure(406, 'NotAcceptable', isList ? `you requested ${requested}, but the requested object is a list (${goType})` : `you requested ${requested}, but the requested object is not a list (${goType})`),
  );

/**
 * 415 from the body decoder (create/update accept any Content-Type at the route, so the decoder
 * is what refuses it): kube's NewUnsupportedMediaTypeError wording, no details.
 */
export const unsupportedMediaType = (_contentType: string): ApiError =>
  new ApiError(failure(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf'));

/** 415 from the patch handler: a patch type the resource does not take (NewUnsupportedMediaTypeError). */
export const unsupportedPatchType = (accepted: string[]): ApiError =>
  new ApiError(failure(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`));

/**
 * 415 from go-restful: the route names the Content-Types it consumes (PATCH: the patch types)
 * and refuses others before any handler runs; kube's service error handler writes this Status.
 */
export const unsupportedMediaTypeRoute = (): ApiError =>
  new ApiError(failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {}));

/**
 * 422 Invalid with one cause per field error, message like kube-apiserver's NewInvalid: the kind
 * is qualified by its group (`ListOptions.meta.k8s.io "" is invalid: …`), core kinds print bare.
 */
export function invalid(kind: string, group: string, name: string, errs: FieldError[]): ApiError {
  // Causes carry the message without its field (field.Error.ErrorBody), the field apart.
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  // The message lists each distinct error once (field.ErrorList.ToAggregate drops repeats);
  // causes keep every one (kinds such as VolumeAttachment validate twice and list each twice).
  const list = [...new Set(errs.map(fieldErrorMessage))];
  const joined = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  const qualified = group ? `${kind}.${group}` : kind;
  return new ApiError(
    failure(422, 'Invalid', `${qualified} "${name}" is invalid: ${joined}`, { name, group, kind, causes }),
  );
}

export const internalError = (message: string): ApiError =>
  new ApiError(failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }));

/**
 * 500 for a plain Go error that reached kube's handler (ErrorToAPIStatus: reason
 * StatusReasonUnknown, i.e. none, and the error text as message, no "Internal error occurred"
 * prefix): what kube answers for an unparsable resourceVersion served by the watch cache and for
 * an exact list at a revision etcd has not reached.
 */
export const unknownError = (message: string): ApiError => new ApiError(failure(500, undefined, message));

/**
 * 503 ServiceUnavailable; with `retryAfterSeconds`, StatusDetails.retryAfterSeconds and a
 * Retry-After header, which client-go honours by retrying (up to 10 times) for any verb.
 */
export const serviceUnavailable = (message: string, retryAfterSeconds?: number): ApiError => {
  if (retryAfterSeconds === undefined) return new ApiError(failure(503, 'ServiceUnavailable', message));
  return new ApiError(failure(503, 'ServiceUnavailable', message, { retryAfterSeconds }), { 'Retry-After': String(retryAfterSeconds) });
};

/**
 * errors.NewTooManyRequests: 429 TooManyRequests with `causes`; a `retryAfterSeconds` above 0 is
 * StatusDetails.retryAfterSeconds and a Retry-After header (kube's response writer adds it).
 */
export const tooManyRequests = (message: string, retryAfterSeconds: number, causes: StatusCause[] = []): ApiError => {
  const details: StatusDetails = { causes, retryAfterSeconds };
  return new ApiError(failure(429, 'TooManyRequests', message, details), retryAfterSeconds > 0 ? { 'Retry-After': String(retryAfterSeconds) } : {});
};

/** client-go keeps at most this much of an unexpected body in an error (maxUnstructuredResponseTextBytes). */
const MAX_UNSTRUCTURED_TEXT = 2048;

/**
 * The server message client-go's REST client takes from a non-2xx answer that is not a Status
 * (newUnstructuredResponseError): the body's first 2 KiB, trimmed, when the answer is text (no
 * Content-Type, or a text/* media type), else "unknown".
 */
export function unstructuredResponseText(contentType: string | undefined, body: string): string {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  // isTextResponse: an absent Content-Type counts as text; one mime.ParseMediaType refuses does not.
  const isText = !contentType || (media.includes('/') && media.startsWith('text/'));
  return isText ? body.slice(0, MAX_UNSTRUCTURED_TEXT).trim() : 'unknown';
}

/**
 * apimachinery's NewGenericServerResponse: the reason and message a client (client-go's REST
 * client, as a webhook caller) gives a non-2xx answer whose body is not a Status. `serverMessage`
 * is the body as the client quotes it (client-go: a text/plain body, else "unknown"); no reason is
 * kube's StatusReasonUnknown.
 */
export function genericServerResponse(code: number, verb: string, serverMessage: string): { reason?: StatusReason; message: string } {
  switch (code) {
    case 409:
      return { reason: verb === 'POST' ? 'AlreadyExists' : 'Conflict', message: 'the server reported a conflict' };
    case 404:
      return { reason: 'NotFound', message: 'the server could not find the requested resource' };
    case 400:
      return { reason: 'BadRequest', message: 'the server rejected our request for an unknown reason' };
    case 401:
      return { reason: 'Unauthorized', message: 'the server has asked for the client to provide credentials' };
    case 403:
      // The server's message says who tried to do what.
      return { reason: 'Forbidden', message: serverMessage };
    case 406:
      return { reason: 'NotAcceptable', message: !serverMessage || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage };
    case 415:
      return { reason: 'UnsupportedMediaType', message: serverMessage };
    case 405:
      return { reason: 'MethodNotAllowed', message: 'the server does not allow this method on the requested resource' };
    case 422:
      return { reason: 'Invalid', message: 'the server rejected our request due to an error in our request' };
    case 503:
      return { reason: 'ServiceUnavailable', message: 'the server is currently unable to handle the request' };
    case 504:
      return { reason: 'Timeout', message: 'the server was unable to return a response in the time allotted, but may still be processing the request' };
    case 429:
      return { reason: 'TooManyRequests', message: 'the server has received too many requests and has asked us to try again later' };
    default:
      return code >= 500
        ? { reason: 'InternalError', message: `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding` }
        : { message: `the server responded with the status code ${code} but did not return more information` };
  }
}

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
  // A body within the decoders' depth limit (encoding/json's 10000) that still nests deeper than a
  // recursive step of this server (a merge, a schema walk) can follow: refused, nothing written.
  if (isStackOverflow(err)) return badRequest('the request body nests too deeply for this server to process it');
  return internalError(msg);
}

/** V8's stack overflow (a RangeError), also when a library reports it inside its own error. */
export function isStackOverflow(err: unknown): boolean {
  return err instanceof Error && err.message.includes('Maximum call stack size exceeded');
}
