/**
 * What a kind supplies to the one generic store. A kind is a `KindDescriptor` (names, scope,
 * table columns, field selectors) plus a `Strategy` (defaulting, validation, update rules).
 * Generic code never branches on kind: any kind-specific behaviour is a method here.
 *
 * Call order (fixed in registry/rest/before.ts):
 *   create: default → prepareForCreate → validate(objectMeta + strategy.validate) → canonicalize
 *   update: default → prepareForUpdate → validateUpdate → canonicalize
 * All methods may mutate the object they are given (it is the request's private copy) and must
 * be deterministic and free of I/O: they run before the log append, never in the fold.
 */
import type { TokenAuthenticator } from '../../auth/token/token.ts';
import type { FeatureGates } from '../../features/gates.ts';
import type { KubeObject, UserInfo } from '../../api/types.ts';
import type { Authorizer } from '../../auth/authz.ts';
import type { FieldError } from '../../api/field-errors.ts';
import type { Storage } from '../../storage/storage.ts';
import type { PatchType } from '../../patch/patch.ts';
import type { TokenRequestDeps } from './token-request.ts';
import type { JSONSchemaProps } from '../../apiextensions/types.ts';
import type { GroupVersionKind, TypeRef } from '../../schema/types.ts';

/**
 * rest.GarbageCollectionPolicy: what a DELETE naming no propagation does to dependents.
 * 'DeleteDependents' = background (the default for every kind that declares none),
 * 'OrphanDependents' = add the `orphan` finalizer (e.g. v1 ReplicationController),
 * 'Unsupported' = never add garbage-collector finalizers, whatever the options say.
 */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

export interface Strategy {
  /** May PUT create a missing object? (ConfigMap/Secret: false; Kubernetes allows it for few kinds.) */
  readonly allowCreateOnUpdate: boolean;
  /** May an update omit metadata.resourceVersion (last-writer-wins)? */
  readonly allowUnconditionalUpdate: boolean;

  /** Fill defaults (e.g. Secret type Opaque). Runs on create and on update, before prepare. */
  defaults?(obj: KubeObject): void;

  /**
   * `defaults` are the decoder's, as kube's for a custom resource (pruning, coercion and defaults
   * of its codec): a create runs them on the decoded body itself, before its managedFields and
   * admission (which then see the defaulted object, as kube's do), instead of on a copy made for
   * the managedFields; they run again after mutating admission, as kube decodes a mutated object
   * again. Only for a strategy without `canonicalize`.
   */
  readonly defaultsOnDecode?: boolean;

  /**
   * Create-time normalization: drop status a client may not set, set generation, phases.
   * Runs after defaults, before validate. `user` is the requester (kube's UserFrom(ctx): a
   * CertificateSigningRequest records who asked).
   */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;

  /**
   * Update-time normalization: e.g. keep status from `oldObj` on a main-resource update, bump
   * generation when spec changed. `oldObj` is read-only.
   */
  prepareForUpdate?(newObj: KubeObject, oldObj: KubeObject): void;

  /** Kind-specific validation of a new object (ObjectMeta is validated by the store). */
  validate(obj: KubeObject): FieldError[];

  /** Kind-specific validation of an update (immutability etc.). ObjectMeta update rules are generic. */
  validateUpdate(newObj: KubeObject, oldObj: KubeObject): FieldError[];

  /** Non-fatal warnings returned in `Warning` headers. */
  warnings?(obj: KubeObject, oldObj?: KubeObject): string[];

  /** Last step before storing: e.g. fold Secret stringData into data. */
  canonicalize?(obj: KubeObject): void;

  /**
   * rest.GarbageCollectionDeleteStrategy: the propagation a DELETE without propagationPolicy or
   * orphanDependents (and without a GC finalizer already on the object) uses. Default
   * 'DeleteDependents' (background).
   */
  readonly defaultGarbageCollectionPolicy?: GarbageCollectionPolicy;

  /**
   * Delete hook for kinds whose delete is a state change (Namespace → Terminating), as kube's
   * Namespace REST Delete: the first DELETE only sets deletionTimestamp (no
   * deletionGracePeriodSeconds), calls this hook, and takes the GC finalizers from DeleteOptions
   * alone (`orphanDependents: false` = foreground). Called on the stored object; may mutate.
   */
  beginDelete?(obj: KubeObject): void;

  /**
   * rest.RESTGracefulDeleteStrategy.CheckGracefulDelete: kinds whose delete waits a grace period
   * (Pods). Given the object and the request's gracePeriodSeconds (undefined when not given,
   * negative already raised to 1), the period to wait; 0 deletes at once. The store then marks
   * the object (deletionTimestamp = now + period, deletionGracePeriodSeconds = period) and keeps it
   * until a later delete with a zero period (kube's rest.BeforeDelete).
   */
  checkGracefulDelete?(obj: KubeObject, gracePeriodSeconds: number | undefined): number;

  /**
   * Are there finalizers (beyond metadata.finalizers, which the store always checks) that keep the
   * object alive after delete? Namespace: spec.finalizers.
   */
  hasPendingFinalizers?(obj: KubeObject): boolean;
}

/** Strategy for the `status` subresource: only status may change through it. */
export interface StatusStrategy {
  /** Copy everything but status from oldObj into newObj (status writes cannot touch spec/metadata). */
  prepareForUpdate(newObj: KubeObject, oldObj: KubeObject): void;
  validateUpdate(newObj: KubeObject, oldObj: KubeObject): FieldError[];
}

/** Confirms (success) or undoes (failure) what a begin hook did, once the write's outcome is known. */
export type FinishFunc = (success: boolean) => Promise<void>;

/**
 * Side effects a kind performs beside its own write, after kube-apiserver's Store.BeginCreate /
 * BeginUpdate / AfterDelete (Service: ClusterIP and NodePort allocation). Unlike Strategy methods
 * these may do I/O (they write to storage) and run on every attempt of a write:
 *   create: default → beginCreate → prepareForCreate → validate → … → write → finish(accepted)
 *   update: default → beginUpdate → prepareForUpdate → validateUpdate → … → write → finish(accepted)
 * A begin hook may mutate the object (fill allocated values) and throw an ApiError to refuse it.
 * In dry-run it only checks, and its FinishFunc must undo nothing.
 */
export interface WriteHooks {
  beginCreate?(obj: KubeObject, dryRun: boolean): Promise<FinishFunc>;
  beginUpdate?(newObj: KubeObject, oldObj: KubeObject, dryRun: boolean): Promise<FinishFunc>;
  /** After the object is gone from storage (not for dry-run): release what it held. */
  afterDelete?(obj: KubeObject): Promise<void>;
}

/** Server flags that shape some kinds (kube-apiserver names). */
export interface KindOptions {
  /** `--service-cluster-ip-range` (default 10.0.0.0/24). */
  serviceClusterIPRange?: string;
  /** `--service-node-port-range` (default 30000-32767). */
  serviceNodePortRange?: string;
  /** `--feature-gates` (1.24 defaults when absent): decoding, and gated fields of a kind. */
  featureGates?: FeatureGates;
  /** The ServiceAccount token issuer: serves `serviceaccounts/token` (TokenRequest) when set. */
  serviceAccountTokens?: TokenRequestDeps;
}

/** What a kind's hooks are built from, once per server, when the registry is built. */
export interface HookDeps {
  storage: Storage;
  options: KindOptions;
}

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0 = shown by default; higher = only with -o wide. */
  priority: number;
}

export interface TableConvertor {
  columns: TableColumn[];
  /** One cell per column, in column order. Dates as RFC3339 strings. */
  cells(obj: KubeObject): unknown[];
  /** metav1.TableRow conditions of the object's row (e.g. a finished Pod's `Completed`), if any. */
  rowConditions?(obj: KubeObject): unknown[] | undefined;
  /** The order of a list's rows when the printer sorts them (printFlowSchemaList: matching order). */
  sortRows?(objects: KubeObject[]): KubeObject[];
}

/** What a subresource's create (a POST on `<resource>/<name>/<sub>`) may do with its parent. */
export interface SubresourceCreateContext {
  user: UserInfo;
  /** CreateOptions.dryRun of the request. */
  dryRun: string[];
  namespace: string;
  /** The parent object's name (from the URL). */
  name: string;
  /** The parent as stored now, or the 404 for it. */
  get(): Promise<KubeObject>;
  /** DELETE the parent through the store (graceful deletion, finalizers, preconditions). */
  delete(opts: SubresourceDeleteOptions): Promise<void>;
  /**
   * Rewrite the parent in storage without its strategy (kube's Storage.GuaranteedUpdate from a
   * subresource REST, e.g. pods/binding): `mutate` gets the stored object (a private copy) and
   * returns it changed or throws (an ApiError, or an Error the caller interprets). Retried on
   * conflicts unless a precondition was given; a failed precondition is the storage's 409.
   */
  update(mutate: (current: KubeObject) => KubeObject, preconditions?: { uid?: string; resourceVersion?: string }): Promise<void>;
  /**
   * Another served kind at `version`, as kube's loopback clients reach it (the eviction REST's
   * PodDisruptionBudgets client); undefined when this server does not serve it.
   */
  peer(group: string, version: string, resource: string): PeerResource | undefined;
}

/** What a subresource may do with another kind's objects (SubresourceCreateContext.peer). */
export interface PeerResource {
  /** Every object of the namespace, at the latest version. */
  list(namespace: string): Promise<KubeObject[]>;
  /** The object, or its 404. */
  get(namespace: string, name: string): Promise<KubeObject>;
  /**
   * PUT `<name>/status` as kube-apiserver's loopback client (manager `kube-apiserver`, the status
   * strategy, admission): the object's resourceVersion is a precondition (the store's 409).
   */
  updateStatus(obj: KubeObject): Promise<void>;
}

/** The DeleteOptions fields a subresource may pass to its parent's delete. */
export interface SubresourceDeleteOptions {
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  dryRun?: boolean;
}

/** Extra subresources beyond the main resource, each with its own update rules. */
export interface SubresourceDescriptor {
  /** e.g. 'status', 'finalize'. */
  name: string;
  /** Verbs supported on the subresource ('get' | 'update' | 'patch' | 'create'). */
  verbs: string[];
  /** Update rules (required for 'update'/'patch'). */
  strategy?: StatusStrategy;
  /** The kind the subresource takes, when not the parent's (discovery: pods/eviction is policy/v1 Eviction). */
  kind?: {
    group: string;
    version: string;
    kind: string;
    /**
     * false: no schema or protobuf message is generated for this kind (v1 Binding, a gap: kube has
     * both), so its bodies are JSON or YAML only and OpenAPI does not describe the POST.
     */
    generated?: false;
  };
  /**
   * A POST on the subresource (kube's rest.NamedCreater, e.g. pods/eviction): given the decoded
   * body (kind and apiVersion checked against `kind`), the answer's code and body.
   */
  create?(ctx: SubresourceCreateContext, body: KubeObject): Promise<{ code: number; body: unknown; warnings?: string[] }>;
  /**
   * The subresource kind's API defaulting, applied to the decoded body before managedFields are
   * computed and `create` runs (kube's decoder defaults, e.g. TokenRequest expirationSeconds).
   */
  defaults?(obj: KubeObject): void;
  /**
   * A subresource served in another kind's shape, read from and written into its parent (the
   * `scale` of a custom resource). Its writes run the parent's own strategy (no `strategy` here).
   */
  view?: SubresourceView;
  /**
   * A connect subresource (kube's rest.Connecter, nodes/proxy): every method on
   * `<resource>/<name>/<sub>[/<path>]` is proxied to the location this answers (or its ApiError).
   */
  connect?(ctx: SubresourceConnectContext): Promise<ProxyLocation | null>;
  /** The methods a connect subresource takes (absent: every method, kube's proxy connecters). */
  connectMethods?: string[];
  /** OpenAPI: the description of a connect subresource's `path` query parameter (its options kind's field doc). */
  connectPathDoc?: string;
  /**
   * OpenAPI: a connect subresource that takes options instead of a path (pods/exec's
   * PodExecOptions): its query parameters, and no `{path}` route.
   */
  connectQuery?: { name: string; type: 'string' | 'boolean' | 'integer'; description: string }[];
  /** A connect subresource served as kube's rest.Getter (pods/log): OpenAPI's `read` operation on the parent kind. */
  connectRead?: boolean;
}

/** What a connect subresource's `connect` is given. */
export interface SubresourceConnectContext {
  /** The URL's name segment (nodes/proxy: `[scheme:]name[:port]`). */
  name: string;
  /** A stored object of the kind by name, or its 404. */
  get(name: string): Promise<KubeObject>;
  /** The addresses a hostname resolves to. */
  resolve(host: string): Promise<string[]>;
  /** The request's query (connect options: pods/log's container, tailLines, ...). */
  query: URLSearchParams;
  /** A stored core/v1 object of another resource (`nodes`, or `endpoints` in the request's namespace), or its 404. */
  getCore(resource: string, name: string): Promise<KubeObject>;
}

/** Where a connect subresource's request goes (kube's ResourceLocation). */
export interface ProxyLocation {
  scheme: string;
  host: string;
  port: number;
  /** The upstream path and query (absent: the request's subpath and query, as a proxy sends them). */
  path?: string;
  /**
   * How kube reaches it: 'proxy' (the default, UpgradeAwareHandler: a dial error is a 503
   * `error trying to reach service`), 'stream' (pods/log's LocationStreamer: a reason-less 500
   * `Get "<url>": <error>`), 'upgrade' (pods/exec|attach|portforward: only upgrade requests,
   * else 400 `Upgrade request required`; a dial error is a 500 `error dialing backend`).
   */
  mode?: 'proxy' | 'stream' | 'upgrade';
}

/**
 * A subresource whose object is a view of its parent (kube's ScaleREST: autoscaling/v1 Scale of a
 * custom resource). get answers `read(parent)`; update decodes the body (`decode`), patch patches
 * `current(parent)` and decodes the result, then `write` puts it into the stored parent, which is
 * validated and written by the parent's strategy; the answer is `read` of what was written.
 * Admission sees views (AdmissionAttributes.view, kube's admission Kind is the view's): mutating
 * plugins the view asked for and `current(parent)`, before `write`; validating plugins `of` the
 * new and the old parent. All functions throw ApiErrors (decode: a BodyDecodeError, whose `why` a
 * patch reports).
 */
export interface SubresourceView {
  kind: { group: string; version: string; kind: string };
  table: TableConvertor;
  /** The view of a stored parent, for get and for answers. */
  read(parent: KubeObject): KubeObject;
  /** The view a patch applies to (and mutating admission's old object). */
  current(parent: KubeObject): KubeObject;
  /** The view of any parent, unchecked: what validating admission sees of the new and the old parent. */
  of(parent: KubeObject): KubeObject;
  /** A request body (or a patched view) as the view's Go type. */
  decode(body: unknown): KubeObject;
  /** `parent` (a private copy) with `view` written into it, managedFields included. */
  write(view: KubeObject, parent: KubeObject): KubeObject;
  /** Server-side apply on the view (kube 1.24: a custom resource's scale refuses it). */
  apply(): never;
  /**
   * true: `write` leaves managedFields alone and the parent's field manager records the write as
   * an update through the subresource (kube's ScaleHandler on a built-in kind's Scale: the
   * writer takes spec.replicas from every other manager).
   */
  fieldsByParent?: boolean;
  /**
   * Server-side apply through the view (kube's ScaleHandler on a built-in kind): the parent's
   * apply patch for the view's applied configuration `patch` (absent: `apply()` refuses). The
   * parent is applied with the subresource's name on its managedFields entry; conflicts name
   * Update owners with the view's apiVersion, as the view's converted entries carry it.
   */
  applyToParent?(patch: Record<string, unknown>, parent: { apiVersion: string; kind: string }): Record<string, unknown>;
  /**
   * The group and resource a missing parent's 404 names (kube's built-in ScaleREST: `deployments/scale`
   * of apps, `replicationcontrollers/scale` of autoscaling); absent: the parent's.
   */
  notFoundResource?: (parent: { group: string; resource: string }) => { group: string; resource: string };
}

/**
 * A kind that serves the stored objects of another kind in its own shape (kube: two API versions
 * that are conversions of one internal type, e.g. events.k8s.io/v1 Event and core/v1 Event). The
 * objects are stored once, under the storage kind's group/resource, in the storage kind's form; this
 * kind's reads convert each stored object with `fromStorage`, its writes convert with `toStorage`
 * just before the log append. Both functions are pure and deterministic, keep `metadata` as it is,
 * and `fromStorage(toStorage(x))` equals x for every valid x of this kind.
 */
export interface StorageView {
  /** Group, version, kind and plural of the stored form (e.g. '', 'v1', 'Event', 'events'). */
  group: string;
  version: string;
  kind: string;
  resource: string;
  /** Stored form → this kind's form. May not mutate its argument. */
  fromStorage(stored: KubeObject): KubeObject;
  /** This kind's form → stored form. May not mutate its argument. */
  toStorage(served: KubeObject): KubeObject;
}

/**
 * A kind served in several versions from one storage version (custom resources: kube's storage
 * codec of each served version plus the CRD's converter). The generic reader, store and watch call
 * it with the request's version (`KindDescriptor.versions` entry): every stored object on its way
 * out (get, list, watch events, a write's answer, the object an update starts from) and the
 * written object on its way in, just before the append. Kinds without it pay nothing. Results
 * are synchronous unless a conversion must call out (a webhook): callers handle both.
 */
export interface VersionConversion {
  /** The version new objects are stored in. */
  readonly storageVersion: string;
  /**
   * Stored objects (parsed, the caller's own: changed in place or replaced) → the same objects,
   * in order, as served at `version` (defaulted from storage). Throws or rejects with an ApiError.
   */
  fromStorage(objs: KubeObject[], version: string): KubeObject[] | Promise<KubeObject[]>;
  /**
   * Optional: whether `fromStorage` gave back this object (one it was given) exactly as it was
   * parsed — already at the version asked for, nothing pruned, coerced or defaulted — so that its
   * stored bytes are served as they are instead of being encoded again.
   */
  servedAsStored?(obj: KubeObject): boolean;
  /** An object of the request's version (validated) → the object to store. */
  toStorage(obj: KubeObject): KubeObject | Promise<KubeObject>;
}

/** What a virtual kind's create sees of the request. */
export interface VirtualCreateContext {
  /** The authenticated requester. */
  user: UserInfo;
  /** The URL's namespace ('' for cluster-scoped kinds). */
  namespace: string;
  dryRun: boolean;
}

/**
 * A create-only kind that is never stored (kube's rest.Creater storages without a Store:
 * SelfSubjectAccessReview, SubjectAccessReview, later TokenReview, Eviction, TokenRequest). The
 * generic store decodes and checks the body (400s), sets managedFields and the URL's namespace,
 * then hands the object to `create`, whose answer goes back as the 201 body; nothing reaches
 * the log. Validation (422) is the kind's own, in `create`, as kube's REST.Create does it.
 */
export interface VirtualKind {
  /** The object to answer; may mutate `obj` (the request's private copy). */
  create(ctx: VirtualCreateContext, obj: KubeObject): Promise<KubeObject>;
}

/**
 * A read-only kind computed on each read instead of stored (kube's ComponentStatus REST: rest.Getter
 * and rest.Lister without a Store). get and list answer these objects (list filtered by the
 * request's selectors, with no resourceVersion); it has no watch, no writes and no storage version.
 */
export interface ComputedKind {
  /** Every object, in the order lists answer them. */
  list(): Promise<KubeObject[]>;
  /** One object, or throws the kind's ApiError for an unknown name. */
  get(name: string): Promise<KubeObject>;
}

/** What a virtual kind is built from, once per server, when the registry is built. */
export interface VirtualDeps {
  /** The server's authorizer (the one the authorization filter uses). */
  authorizer: Authorizer;
  /** The server's token authenticators (cached union), for TokenReview; absent: none. */
  tokenAuthenticator?: TokenAuthenticator;
  /** --api-audiences: what TokenReview asks for when its spec names no audiences. */
  apiAudiences?: readonly string[];
}

/** The kind as served at `version`: its table, subresources and deprecation are that version's (KindDescriptor.perVersion). */
export const kindAt = (kind: KindDescriptor, version: string | undefined): KindDescriptor => {
  const at = version ? kind.perVersion?.[version] : undefined;
  return at ? { ...kind, ...at } : kind;
};

export interface KindDescriptor {
  /** API group; '' for the core group. */
  group: string;
  /** Versions served; the first is preferred. Storage keys do not depend on version. */
  versions: string[];
  /** Plural resource name used in URLs and storage keys. */
  resource: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  /** metadata.name rule: DNS-1123 subdomain (default, most kinds), label (Namespace) or DNS-1035 label (Service). */
  nameFormat?: 'subdomain' | 'label' | 'dns1035' | 'pathSegment';
  shortNames: string[];
  categories?: string[];
  strategy: Strategy;
  /** Builds the kind's write hooks (I/O beside its own writes); throws on bad options. */
  hooks?: (deps: HookDeps) => WriteHooks;
  /** Verbs served on the main resource; default: all eight (Namespace has no deletecollection). */
  verbs?: string[];
  subresources?: SubresourceDescriptor[];
  table?: TableConvertor;
  /**
   * What differs by served version (a CRD's per-version additionalPrinterColumns, subresources
   * and deprecation): for a version listed here, its `table`, `subresources` and
   * `deprecationWarning` (undefined: not deprecated) replace the kind's own. See `kindAt`.
   */
  perVersion?: Record<string, { table: TableConvertor; subresources: SubresourceDescriptor[]; deprecationWarning: string | undefined }>;
  /**
   * Extra field-selector fields beyond metadata.name and metadata.namespace, e.g. Secret `type`.
   * Each returns the field's value as a string.
   */
  fieldSelectors?: Record<string, (obj: KubeObject) => string>;
  /**
   * The 400's message for a field selector naming another field, when the kind's version registers
   * its own field-label conversion that kube's selectors table (selectors/field-selector.ts) does
   * not give by kind: batch/v1beta1 CronJob's `field label "x" not supported for "CronJob"`.
   */
  fieldLabelError?: (field: string) => string;
  /** Delete success body: 'Status' (ConfigMap, Secret) or 'Object' (most other kinds). */
  deleteReturns: 'Status' | 'Object';
  /**
   * A Warning for a DELETE or deletecollection given these options, added before the delete runs
   * (also on a failed one), as kube's batch/v1 Job REST does when no propagation policy is given.
   */
  deleteWarning?: (opts: { propagationPolicy?: string; orphanDependents?: boolean }) => string | undefined;
  /**
   * metadata.finalizers checked by apimachinery's rule only (a qualified name; no "standard or
   * fully qualified" rule of the core API): the kinds apiextensions-apiserver serves (CRDs, whose
   * cleanup finalizer has no `/`, and custom resources).
   */
  apimachineryFinalizers?: boolean;
  /**
   * The group validation's 422 names, when kube's scheme registers the internal kind under another
   * group first (Ingress: `Ingress.extensions "x" is invalid`). Default: the kind's group.
   */
  invalidGroup?: string;
  /**
   * Kinds whose PUT/PATCH bump metadata.generation on spec change; 'create': generation 1 on
   * create, never bumped (PriorityClass, whose strategy sets it in PrepareForCreate only).
   */
  hasGeneration?: boolean | 'create';
  /** Bootstrap objects the server creates at first start (e.g. the system namespaces). */
  bootstrap?: KubeObject[];
  /** Names that can never be deleted (e.g. namespace `default`). */
  undeletable?: string[];
  /** The 403's reason for them (default: the Namespace's `this namespace may not be deleted`). */
  undeletableReason?: string;
  /** Serve another kind's stored objects through a conversion (see StorageView). */
  storedAs?: StorageView;
  /**
   * A deprecated API version: the `Warning` kube-apiserver adds to every response of it, e.g.
   * `events.k8s.io/v1beta1 Event is deprecated in v1.22+, unavailable in v1.25+`.
   */
  deprecationWarning?: string;
  /**
   * With `deprecationWarning`: the release that stops serving this version (`1.25`), the
   * `removed_release` label of apiserver_requested_deprecated_apis.
   */
  removedRelease?: string;
  /**
   * A create-only kind answered by code instead of storage (see VirtualKind). Its verbs are
   * ['create'] and it has no list kind, table, watch or storage version.
   */
  virtual?: (deps: VirtualDeps) => VirtualKind;
  /** A read-only kind answered by code on each get and list (see ComputedKind); verbs get and list. */
  computed?: (deps: HookDeps) => ComputedKind;
  /**
   * The descriptor this server serves given its options, for kinds whose strategy depends on
   * them (feature gates: e.g. CSIDriver drops gated fields, as kube's strategies read
   * utilfeature). Called once when the registry is built; absent: the descriptor as it is.
   */
  forOptions?: (options: KindOptions) => KindDescriptor;
  /**
   * The version objects are stored in when it is not the first served one (discovery's
   * storageVersionHash names it): 1.24 stores CSIStorageCapacity as storage.k8s.io/v1beta1.
   */
  storageVersion?: string;
  /**
   * The kinds of subresources `forOptions` may add (serviceaccounts/token takes
   * authentication.k8s.io/v1 TokenRequest), so the generators see them without a server's options
   * (internal/registry/kind-types.ts).
   */
  optionalSubresourceKinds?: { group: string; version: string; kind: string }[];
  /**
   * The patch types the main resource takes, in the order kube's 415 names them (their media
   * types) for another; default: all four. A custom resource takes no strategic merge patch
   * (there is no Go type to take patch directives from).
   */
  patchTypes?: PatchType[];
  /**
   * The media types a create or update body of the main resource may have; default: JSON, YAML
   * and Protobuf. A body in another one of those is kube's 400 from the Unstructured Protobuf
   * decoder (a custom resource has no Protobuf message: `Object 'Kind' is missing`).
   */
  bodyMediaTypes?: string[];
  /**
   * Lists are UnstructuredLists: each item keeps its apiVersion and kind (a custom resource's list);
   * by default items are typed and lose them, as kube's typed lists do.
   */
  unstructuredLists?: boolean;
  /**
   * How legacy discovery lists the kind when not as kube-apiserver lists a built-in one (1.24:
   * singularName empty, verbs sorted): apiextensions-apiserver gives a custom resource's singular
   * name and its verbs in their own order.
   */
  discovery?: { singularName: string; verbsInOrder: boolean };
  /**
   * A custom resource (a CRD's kind): field selectors other than metadata's are `field label not
   * supported: <field>` (kube's message for unstructured objects).
   */
  customResource?: boolean;
  /**
   * Asked before anything else on a create of the main resource: a message refuses it with kube's
   * 405 MethodNotAllowed (a custom resource whose CRD is Terminating: `create not allowed while
   * custom resource definition is terminating`); undefined lets it through.
   */
  refuseCreate?: () => string | undefined;
  /**
   * A custom resource's schemas as its CRD gives them, which its OpenAPI v2/v3 definitions are
   * built from (apiextensions-apiserver's OpenAPI builder reads the CRD).
   */
  customResourceSchemas?: CustomResourceSchemas;
  /**
   * The field types of the kind's versions when the generated schemas do not have them (a CRD's
   * structural schemas): managedFields and server-side apply merge with their list and map types.
   */
  fieldTypes?: { typeOf(gvk: GroupVersionKind): TypeRef | undefined };
  /** Objects stored in one version and served in several, converted on the way (see VersionConversion). */
  conversion?: VersionConversion;
  /**
   * The object as kube's internal type holds it, when a served version carries more (an
   * autoscaling/v1 HPA's round-trip annotations): PartialObjectMetadata, alone or in a Table row,
   * shows its metadata, as kube builds them from the internal object.
   */
  internalForm?(obj: KubeObject): KubeObject;
  /**
   * The object (of any served version) as the group's version `apiVersion` serves it, for kinds
   * whose versions differ in shape (HPA): an update takes the fields it changed from every other
   * manager, compared in that manager's version, as kube's field manager converts to it.
   */
  convertVersion?(obj: KubeObject, apiVersion: string): KubeObject;
}

/** What a CRD says of its served versions that OpenAPI publishes. */
export interface CustomResourceSchemas {
  /** spec.preserveUnknownFields */
  preserveUnknownFields: boolean;
  /** Each served version, in the CRD's order: its openAPIV3Schema and which subresources it has. */
  versions: { name: string; schema?: JSONSchemaProps; status: boolean; scale: boolean }[];
}
