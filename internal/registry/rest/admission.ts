/**
 * What the registry's store hands to admission (kube's admission.Attributes) and the interface it
 * calls: the contract lives here, below the registry; internal/admission implements it
 * (AdmissionChain), so the registry never imports the admission layer.
 */
import type { KubeObject, UserInfo } from '../../api/types.ts';
import type { KindDescriptor, SubresourceView } from './strategy.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/**
 * admission.ReinvocationContext: one per admission of a request. A mutating plugin that changed the
 * object after an earlier plugin asked to be reinvoked sets `shouldReinvoke`; the chain then runs
 * every mutating plugin once more with `isReinvoke` (kube's reinvoker). `values` keeps each
 * plugin's own state across the two rounds.
 */
export interface ReinvocationContext {
  isReinvoke: boolean;
  shouldReinvoke: boolean;
  readonly values: Map<string, unknown>;
}

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: KindDescriptor;
  subresource: string;
  namespace: string;
  name: string;
  /**
   * A write on a view subresource (a custom resource's scale): `object`/`oldObject` are the view's
   * objects (kube's admission Kind is the view's, e.g. autoscaling/v1 Scale), decoded by `decode`.
   */
  view?: SubresourceView;
  /** The object being written (CREATE/UPDATE); mutating plugins may change it. */
  object: KubeObject | null;
  oldObject: KubeObject | null;
  user: UserInfo;
  dryRun: boolean;
  /** The API version the request addressed (e.g. 'v1'); absent: the kind's preferred one. */
  version?: string;
  /** The request's CreateOptions/UpdateOptions/DeleteOptions (AdmissionRequest.options). */
  options?: Record<string, unknown> | null;
  /** Adds a `Warning` header to the answer, also when the request fails. */
  warn?(warning: string): void;
  /** Adds an annotation to the request's audit event (the first value of a key wins). */
  annotate?(key: string, value: string): void;
  /** Set by AdmissionChain.admit for the mutating plugins. */
  reinvocation?: ReinvocationContext;
  /**
   * Set when a mutating webhook's patch changed `object`: kube decodes a patched object again
   * (and defaults it), which a store whose body was decoded before admission then does too.
   */
  objectPatched?: boolean;
}

/** The admission a store runs: mutating plugins (`admit`), then validating ones (`validate`). */
export interface Admission {
  /** undefined when nothing was asynchronous (await only a promise). */
  admit(a: AdmissionAttributes): Promise<void> | void;
  validate(a: AdmissionAttributes): Promise<void> | void;
}
