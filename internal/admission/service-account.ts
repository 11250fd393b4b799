/**
 * ServiceAccount admission (kube-apiserver's plugin of that name, plugin/pkg/admission/
 * serviceaccount/admission.go, Kubernetes 1.24), for Pods:
 *
 *   mutating (CREATE of a pod, not a mirror pod):
 *     serviceAccountName defaults to `default`; the account must exist (403 "error looking up
 *     service account ns/name: serviceaccount "name" not found"); automountServiceAccountToken
 *     (pod, then account, default true) adds the projected `kube-api-access-<5 random>` volume and
 *     its read-only mount at /var/run/secrets/kubernetes.io/serviceaccount in every init and
 *     regular container that has nothing mounted there; a pod without imagePullSecrets gets the
 *     account's; then the validating checks below run (kube's Admit ends with Validate).
 *   validating (CREATE): mirror pods may not reference accounts, secrets or token projections;
 *     the account must exist; with the account's `kubernetes.io/enforce-mountable-secrets: "true"`
 *     the pod may only use the secrets (and pull secrets) the account lists.
 *   validating (UPDATE of `pods/ephemeralcontainers`): the same limit on ephemeral containers' env.
 *
 * The plugin mutates nothing on update: that `serviceAccountName` and the volumes cannot change
 * afterwards is Pod update validation's rule (ValidatePodUpdate), not this plugin's.
 *
 * The account is read from the local snapshot first (kube's informer cache); when it is missing,
 * it is read again after a consistent-read barrier, 10 times 100–200 ms apart for `default` (the
 * serviceaccounts controller may be about to create it in a namespace just made), once otherwise.
 * The random volume-name suffix is fine here: admission runs before the log append, and the
 * event carries the name chosen, so every replica folds the same Pod.
 */
import type { KubeObject } from '../api/types.ts';
import { ApiError, failure, forbidden, notFound } from '../api/errors.ts';
import type { Storage } from '../storage/storage.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { AdmissionAttributes, MutatingPlugin, ValidatingPlugin } from './chain.ts';
import { nameForError } from './namespace-lifecycle.ts';
import {
  DEFAULT_SERVICE_ACCOUNT,
  copyImagePullSecrets,
  enforceMountableSecrets,
  isMirrorPod,
  limitEphemeralContainerSecretReferences,
  limitSecretReferences,
  mirrorPodRefusal,
  mountServiceAccountToken,
  serviceAccountNameOf,
  setServiceAccountName,
  shouldAutomount,
  simpleNameGenerator,
} from './service-account-pod.ts';

/** Lookups of the `default` account before giving up (kube's numAttempts). */
export const DEFAULT_ACCOUNT_ATTEMPTS = 10;

export interface ServiceAccountAdmissionOptions {
  /** Pause between lookups (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
  /** Names the token volume (kube: names.SimpleNameGenerator). */
  generateName?: (base: string) => string;
}

/** shouldIgnore: only pods (and their ephemeralcontainers subresource) in the core group. */
export function shouldIgnore(a: AdmissionAttributes): boolean {
  if (a.kind.group !== '' || a.kind.resource !== 'pods') return true;
  if (a.subresource !== '' && a.subresource !== 'ephemeralcontainers') return true;
  return a.object === null;
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The plugin, for both chains (kube registers it as mutating and validating). */
export function serviceAccountAdmission(storage: Storage, opts: ServiceAccountAdmissionOptions = {}): MutatingPlugin & ValidatingPlugin {
  const sleep = opts.sleep ?? wait;
  const generateName = opts.generateName ?? simpleNameGenerator;

  const read = async (namespace: string, name: string): Promise<KubeObject | null> => {
    const b = await storage.get({ group: '', resource: 'serviceaccounts', namespace, name });
    return b ? parseObject(b) : null;
  };

  /** getServiceAccount: the cache, then direct reads; NotFound names the singular resource, as kube. */
  const getServiceAccount = async (namespace: string, name: string): Promise<KubeObject> => {
    const cached = await read(namespace, name);
    if (cached) return cached;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    const retryInterval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i !== 0) await sleep(retryInterval);
      await storage.latest();
      const sa = await read(namespace, name);
      if (sa) return sa;
    }
    throw notFound({ group: '', resource: 'serviceaccount' }, name);
  };

  const lookupFailed = (a: AdmissionAttributes, name: string, err: unknown, errName: string): ApiError => {
    const why = err instanceof Error ? err.message : String(err);
    return forbidden({ group: '', resource: 'pods' }, errName, `error looking up service account ${a.namespace}/${name}: ${why}`);
  };

  /** Validate's CREATE branch; `errName` is the name admission errors print in this phase. */
  const validateCreate = async (a: AdmissionAttributes, pod: KubeObject, errName: string): Promise<void> => {
    const refuse = (message: string): ApiError => forbidden({ group: '', resource: 'pods' }, errName, message);
    if (isMirrorPod(pod)) {
      const why = mirrorPodRefusal(pod);
      if (why) throw refuse(why);
      return;
    }
    const name = serviceAccountNameOf(pod);
    if (!name) throw refuse(`no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
    const sa = await getServiceAccount(a.namespace, name).catch((err: unknown) => {
      throw lookupFailed(a, name, err, errName);
    });
    if (enforceMountableSecrets(sa)) {
      const why = limitSecretReferences(sa, pod);
      if (why) throw refuse(why);
    }
  };

  /** Validate (both phases); callers have checked shouldIgnore. */
  const validate = async (a: AdmissionAttributes, errName: string): Promise<void> => {
    const pod = a.object!;
    if (a.operation === 'UPDATE' && a.subresource === 'ephemeralcontainers') {
      const refuse = (message: string): ApiError => forbidden({ group: '', resource: 'pods' }, errName, message);
      const name = serviceAccountNameOf(pod);
      if (!name) throw refuse(`no service account specified for pod ${a.namespace}/${pod.metadata.name ?? ''}`);
      const sa = await getServiceAccount(a.namespace, name).catch((err: unknown) => {
        throw lookupFailed(a, name, err, errName);
      });
      if (!enforceMountableSecrets(sa)) return;
      const why = limitEphemeralContainerSecretReferences(sa, pod);
      // kube returns this one as a plain error, which the handler answers as a reason-less 500.
      if (why) throw new ApiError(failure(500, undefined, why));
      return;
    }
    if (a.operation !== 'CREATE') return;
    await validateCreate(a, pod, errName);
  };

  return {
    name: 'ServiceAccount',
    admit(a: AdmissionAttributes) {
      // Synchronous unless it applies (AdmissionChain awaits only promises).
      if (shouldIgnore(a) || a.operation !== 'CREATE') return;
      return admitPod(a);
    },
    validate(a: AdmissionAttributes) {
      if (shouldIgnore(a)) return;
      return validate(a, a.name || a.object?.metadata.name || 'Unknown');
    },
  };

  async function admitPod(a: AdmissionAttributes): Promise<void> {
    const pod = a.object!;
    // The mutating phase runs before the name is final: errors name the generateName, as kube.
    const errName = nameForError(a);
    if (isMirrorPod(pod)) return validate(a, errName);
    const name = serviceAccountNameOf(pod) || DEFAULT_SERVICE_ACCOUNT;
    setServiceAccountName(pod, name);
    const sa = await getServiceAccount(a.namespace, name).catch((err: unknown) => {
      throw lookupFailed(a, name, err, errName);
    });
    if (shouldAutomount(sa, pod)) mountServiceAccountToken(pod, generateName);
    copyImagePullSecrets(sa, pod);
    return validate(a, errName);
  }
}
