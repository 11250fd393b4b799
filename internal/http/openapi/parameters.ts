/**
 * The query and path parameters kube-apiserver 1.24's endpoint installer declares on resource
 * routes, as its OpenAPI v2 document renders them. The descriptions are those of the option
 * structs' fields (ListOptions, CreateOptions, PatchOptions, DeleteOptions) in the published
 * Kubernetes 1.24 API (`api/openapi-spec`), so clients and `kubectl explain` see the same text.
 */

/** One non-body OpenAPI v2 parameter (key order as kube-openapi marshals it). */
export interface QueryParameter {
  uniqueItems: true;
  type: 'string' | 'integer' | 'boolean';
  description: string;
  name: string;
  in: 'query' | 'path';
  required?: true;
}

const q = (name: string, type: QueryParameter['type'], description: string): QueryParameter => ({ uniqueItems: true, type, description, name, in: 'query' });

/** A path parameter (always required). */
export const pathParam = (name: string, description: string): QueryParameter => ({ uniqueItems: true, type: 'string', description, name, in: 'path', required: true });

/** The `{namespace}` path parameter of namespaced routes. */
export const NAMESPACE_PARAM = pathParam('namespace', 'object name and auth scope, such as for teams and projects');
/** On every resource route. */
export const PRETTY = q('pretty', 'string', "If 'true', then the output is pretty printed.");
const DRY_RUN = q('dryRun', 'string', 'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed');
const FIELD_MANAGER_TEXT = 'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.';
const FIELD_MANAGER = q('fieldManager', 'string', FIELD_MANAGER_TEXT);
/** PatchOptions documents fieldManager with the apply rule. */
const FIELD_MANAGER_PATCH = q('fieldManager', 'string', `${FIELD_MANAGER_TEXT} This field is required for apply requests (application/apply-patch) but optional for non-apply patch types (JsonPatch, MergePatch, StrategicMergePatch).`);
const FORCE = q('force', 'boolean', 'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.');
const GRACE_PERIOD = q('gracePeriodSeconds', 'integer', 'The duration in seconds before the object should be deleted. Value must be non-negative integer. The value zero indicates delete immediately. If this value is nil, the default grace period for the specified type will be used. Defaults to a per object value if not specified. zero means delete immediately.');
const ORPHAN = q('orphanDependents', 'boolean', 'Deprecated: please use the PropagationPolicy, this field will be deprecated in 1.7. Should the dependent objects be orphaned. If true/false, the "orphan" finalizer will be added to/removed from the object\'s finalizers list. Either this field or PropagationPolicy may be set, but not both.');
const PROPAGATION = q('propagationPolicy', 'string', "Whether and how garbage collection will be performed. Either this field or OrphanDependents may be set, but not both. The default policy is decided by the existing finalizer set in the metadata.finalizers and the resource-specific default policy. Acceptable values are: 'Orphan' - orphan the dependents; 'Background' - allow the garbage collector to delete the dependents in the background; 'Foreground' - a cascading policy that deletes all dependents in the foreground.");

const ALLOW_BOOKMARKS = q('allowWatchBookmarks', 'boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK". Servers that do not implement bookmarks may ignore this flag and bookmarks are sent at the server\'s discretion. Clients should not assume bookmarks are returned at any specific interval, nor may they assume the server will send any BOOKMARK event during a session. If this is not a watch, this field is ignored.');
const CONTINUE = q('continue', 'string', 'The continue option should be set when retrieving more results from the server. Since this value is server defined, clients may only use the continue value from a previous query result with identical query parameters (except for the value of continue) and the server may reject a continue value it does not recognize. If the specified continue value is no longer valid whether due to expiration (generally five to fifteen minutes) or a configuration change on the server, the server will respond with a 410 ResourceExpired error together with a continue token. If the client needs a consistent list, it must restart their list without the continue field. Otherwise, the client may send another list request with the token received with the 410 error, the server will respond with a list starting from the next key, but from the latest snapshot, which is inconsistent from the previous list results - objects that are created, modified, or deleted after the first list request will be included in the response, as long as their keys are after the "next key".\n\nThis field is not supported when watch is true. Clients may start a watch from the last resourceVersion value returned by the server and not miss any modifications.');
const FIELD_SELECTOR = q('fieldSelector', 'string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.');
const LABEL_SELECTOR = q('labelSelector', 'string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.');
const LIMIT = q('limit', 'integer', 'limit is a maximum number of responses to return for a list call. If more items exist, the server will set the `continue` field on the list metadata to a value that can be used with the same initial query to retrieve the next set of results. Setting a limit may return fewer than the requested amount of items (up to zero items) in the event all requested objects are filtered out and clients should only use the presence of the continue field to determine whether more results are available. Servers may choose not to support the limit argument and will return all of the available results. If limit is specified and the continue field is empty, clients may assume that no more results are available. This field is not supported if watch is true.\n\nThe server guarantees that the objects returned when using continue will be identical to issuing a single list call without a limit - that is, no objects created, modified, or deleted after the first request is issued will be included in any subsequent continued requests. This is sometimes referred to as a consistent snapshot, and ensures that a client that is using limit to receive smaller chunks of a very large result can ensure they see all possible objects. If objects are updated during a chunked list the version of the object that was present at the time the first list result was calculated is returned.');
const RESOURCE_VERSION = q('resourceVersion', 'string', 'resourceVersion sets a constraint on what resource versions a request may be served from. See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset');
const RESOURCE_VERSION_MATCH = q('resourceVersionMatch', 'string', 'resourceVersionMatch determines how resourceVersion is applied to list calls. It is highly recommended that resourceVersionMatch be set for list calls where resourceVersion is set See https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions for details.\n\nDefaults to unset');
const TIMEOUT = q('timeoutSeconds', 'integer', 'Timeout for the list/watch call. This limits the duration of the call, regardless of any activity or inactivity.');
const WATCH = q('watch', 'boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications. Specify resourceVersion.');

/** GetOptions: a read of one object. */
export const GET_PARAMS: QueryParameter[] = [RESOURCE_VERSION];
/** ListOptions as list and watch routes take them. */
export const LIST_PARAMS: QueryParameter[] = [ALLOW_BOOKMARKS, CONTINUE, FIELD_SELECTOR, LABEL_SELECTOR, LIMIT, RESOURCE_VERSION, RESOURCE_VERSION_MATCH, TIMEOUT, WATCH];
/** DELETE of a collection: DeleteOptions' query form plus ListOptions minus the watch ones. */
export const DELETE_COLLECTION_PARAMS: QueryParameter[] = [CONTINUE, DRY_RUN, FIELD_SELECTOR, GRACE_PERIOD, LABEL_SELECTOR, LIMIT, ORPHAN, PROPAGATION, RESOURCE_VERSION, RESOURCE_VERSION_MATCH, TIMEOUT];
/** DELETE of one object: DeleteOptions' query form. */
export const DELETE_PARAMS: QueryParameter[] = [DRY_RUN, GRACE_PERIOD, ORPHAN, PROPAGATION];
/** POST and PUT: CreateOptions / UpdateOptions. */
export const CREATE_PARAMS: QueryParameter[] = [DRY_RUN, FIELD_MANAGER];
/** PATCH: PatchOptions. */
export const PATCH_PARAMS: QueryParameter[] = [DRY_RUN, FIELD_MANAGER_PATCH, FORCE];
