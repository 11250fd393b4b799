/**
 * The pure parts of the ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount/
 * admission.go, Kubernetes 1.24): what it reads from and writes into a Pod, given the Pod's
 * ServiceAccount. No I/O here; internal/admission/service-account.ts looks the account up.
 *
 * Pods arrive as v1 JSON (kube's plugin sees the internal type, converted from v1), so the one
 * conversion rule that matters is applied here too: `spec.serviceAccount` (deprecated) stands for
 * `spec.serviceAccountName` when the latter is empty.
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../api/types.ts';
import { isObj } from '../gocompat/json.ts';

/** DefaultServiceAccountName. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** EnforceMountableSecretsAnnotation: "true" (strconv.ParseBool) limits a pod's secrets to the account's. */
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'kubernetes.io/enforce-mountable-secrets';
/** ServiceAccountVolumeName: prefix of the projected token volume's name. */
export const SERVICE_ACCOUNT_VOLUME_NAME = 'kube-api-access';
/** DefaultAPITokenMountPath. */
export const DEFAULT_API_TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
/** api.MirrorPodAnnotationKey. */
export const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds (1 h + 7 s): the projected token's lifetime. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
/** v1.ProjectedVolumeSourceDefaultMode (0644). */
export const PROJECTED_VOLUME_SOURCE_DEFAULT_MODE = 0o644;

type Obj = Record<string, unknown>;

const objs = (v: unknown): Obj[] => (Array.isArray(v) ? v.map((x) => (isObj(x) ? x : {})) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The Pod's spec (created when absent, so mutations have somewhere to go). */
export function podSpec(pod: KubeObject): Obj {
  if (!isObj(pod.spec)) pod.spec = {};
  return pod.spec as Obj;
}

/**
 * spec.serviceAccountName as kube's plugin sees it: the v1 → internal conversion takes the
 * deprecated `serviceAccount` when `serviceAccountName` is empty.
 */
export function serviceAccountNameOf(pod: KubeObject): string {
  const spec = isObj(pod.spec) ? pod.spec : {};
  return str(spec.serviceAccountName) || str(spec.serviceAccount);
}

/**
 * Set the Pod's account, in both fields: the internal → v1 conversion writes the deprecated
 * `serviceAccount` from `serviceAccountName`, so a stored Pod always carries both.
 */
export function setServiceAccountName(pod: KubeObject, name: string): void {
  const spec = podSpec(pod);
  spec.serviceAccountName = name;
  spec.serviceAccount = name;
}

/** A mirror pod (created by a kubelet from a static manifest) is never mutated. */
export function isMirrorPod(pod: KubeObject): boolean {
  const a = pod.metadata.annotations;
  return isObj(a) && Object.prototype.hasOwnProperty.call(a, MIRROR_POD_ANNOTATION);
}

/** shouldAutomount: the pod's automountServiceAccountToken, else the account's, else true. */
export function shouldAutomount(sa: KubeObject, pod: KubeObject): boolean {
  const podPref = isObj(pod.spec) ? pod.spec.automountServiceAccountToken : undefined;
  if (typeof podPref === 'boolean') return podPref;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

/** Go's strconv.ParseBool: the accepted spellings, anything else is an error (undefined). */
export function parseGoBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/**
 * enforceMountableSecrets: the account's annotation parsed as a Go bool (an unparsable value is
 * false). The plugin's global LimitSecretReferences is false in 1.24 and has no flag.
 */
export function enforceMountableSecrets(sa: KubeObject): boolean {
  const v = sa.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION];
  return typeof v === 'string' ? parseGoBool(v) === true : false;
}

/** TokenVolumeSource: the projected source of the `kube-api-access-*` volume, as v1 JSON. */
export function tokenVolumeSource(): Obj {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    // explicitly set default value, see kubernetes#104464
    defaultMode: PROJECTED_VOLUME_SOURCE_DEFAULT_MODE,
  };
}

const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** names.SimpleNameGenerator.GenerateName: base + 5 random characters of utilrand's alphabet. */
export function simpleNameGenerator(base: string): string {
  let s = base;
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return s;
}

/** Adds `mount` to every container of the list that mounts nothing at the token path; true if any did. */
function mountInto(containers: unknown, mount: Obj): boolean {
  if (!Array.isArray(containers)) return false;
  let added = false;
  containers.forEach((c: unknown, i) => {
    const container: Obj = isObj(c) ? c : {};
    if (!isObj(c)) containers[i] = container;
    const mounts = objs(container.volumeMounts);
    if (mounts.some((m) => m.mountPath === DEFAULT_API_TOKEN_MOUNT_PATH)) return;
    container.volumeMounts = [...mounts, { ...mount }];
    added = true;
  });
  return added;
}

/**
 * mountServiceAccountToken: every init and regular container (not ephemeral ones) without a mount
 * at DEFAULT_API_TOKEN_MOUNT_PATH gets a read-only mount of the token volume; the volume (an
 * existing `kube-api-access-*` one is reused) is appended when some container needed it.
 * `generateName` names a new volume (random in kube).
 */
export function mountServiceAccountToken(pod: KubeObject, generateName: (base: string) => string = simpleNameGenerator): void {
  const spec = podSpec(pod);
  const volumes = objs(spec.volumes);
  const existing = volumes.find((v) => str(v.name).startsWith(`${SERVICE_ACCOUNT_VOLUME_NAME}-`));
  const tokenVolumeName = existing ? str(existing.name) : generateName(`${SERVICE_ACCOUNT_VOLUME_NAME}-`);
  const mount = { name: tokenVolumeName, readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
  const needsInit = mountInto(spec.initContainers, mount);
  const needs = mountInto(spec.containers, mount);
  if (!existing && (needsInit || needs)) spec.volumes = [...(Array.isArray(spec.volumes) ? spec.volumes : []), { name: tokenVolumeName, projected: tokenVolumeSource() }];
}

/** The Pod has no imagePullSecrets: it gets the account's (names only). */
export function copyImagePullSecrets(sa: KubeObject, pod: KubeObject): void {
  const spec = podSpec(pod);
  if (Array.isArray(spec.imagePullSecrets) && spec.imagePullSecrets.length > 0) return;
  const fromSa = objs(sa.imagePullSecrets);
  // make([]LocalObjectReference, 0) is omitted from JSON: nothing to write.
  if (fromSa.length === 0) return;
  spec.imagePullSecrets = fromSa.map((r) => (str(r.name) ? { name: str(r.name) } : {}));
}

/** Secret names a container reaches through envFrom and env (visitContainerSecretNames order). */
function containerSecretNames(c: Obj): string[] {
  const out: string[] = [];
  for (const e of objs(c.envFrom)) if (isObj(e.secretRef)) out.push(str(e.secretRef.name));
  for (const e of objs(c.env)) if (isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef)) out.push(str(e.valueFrom.secretKeyRef.name));
  return out;
}

/** The secret a volume source names, for the first source set (VisitPodSecretNames' switch order). */
function volumeSecretNames(v: Obj): string[] {
  const ref = (s: unknown, field = 'secretRef'): string[] => (isObj(s) && isObj(s[field]) ? [str((s[field] as Obj).name)] : []);
  if (isObj(v.azureFile)) return str(v.azureFile.secretName) ? [str(v.azureFile.secretName)] : [];
  if (isObj(v.cephfs)) return ref(v.cephfs);
  if (isObj(v.cinder)) return ref(v.cinder);
  if (isObj(v.flexVolume)) return ref(v.flexVolume);
  if (isObj(v.projected)) return objs(v.projected.sources).flatMap((s) => (isObj(s.secret) ? [str(s.secret.name)] : []));
  if (isObj(v.rbd)) return ref(v.rbd);
  if (isObj(v.secret)) return [str(v.secret.secretName)];
  if (isObj(v.scaleIO)) return ref(v.scaleIO);
  if (isObj(v.iscsi)) return ref(v.iscsi);
  if (isObj(v.storageos)) return ref(v.storageos);
  if (isObj(v.csi)) return ref(v.csi, 'nodePublishSecretRef');
  return [];
}

/** podutil.VisitPodSecretNames over every container type: does the Pod reference any secret? */
export function podReferencesSecrets(pod: KubeObject): boolean {
  const spec = isObj(pod.spec) ? pod.spec : {};
  const names = [
    ...objs(spec.imagePullSecrets).map((r) => str(r.name)),
    ...[...objs(spec.initContainers), ...objs(spec.containers), ...objs(spec.ephemeralContainers)].flatMap(containerSecretNames),
    ...objs(spec.volumes).flatMap(volumeSecretNames),
  ];
  return names.some((n) => n !== '');
}

/**
 * The refusal of a mirror pod (its Validate branch), or '' when it may be created: no account,
 * no secrets, no ServiceAccountToken projection.
 */
export function mirrorPodRefusal(pod: KubeObject): string {
  if (serviceAccountNameOf(pod)) return 'a mirror pod may not reference service accounts';
  if (podReferencesSecrets(pod)) return 'a mirror pod may not reference secrets';
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const v of objs(spec.volumes)) {
    if (isObj(v.projected) && objs(v.projected.sources).some((s) => isObj(s.serviceAccountToken))) {
      return 'a mirror pod may not use ServiceAccountToken volume projections';
    }
  }
  return '';
}

const saNames = (refs: unknown): Set<string> => new Set(objs(refs).map((r) => str(r.name)));

/**
 * limitSecretReferences: the first secret the Pod uses that the account does not list (secret
 * volumes, env of init containers then containers, image pull secrets), as kube's message; ''
 * when every one is allowed.
 */
export function limitSecretReferences(sa: KubeObject, pod: KubeObject): string {
  const saName = sa.metadata.name ?? '';
  const mountable = saNames(sa.secrets);
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const v of objs(spec.volumes)) {
    if (!isObj(v.secret)) continue;
    const secretName = str(v.secret.secretName);
    if (!mountable.has(secretName)) {
      return `volume with secret.secretName="${secretName}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  const envRefusal = (containers: unknown, what: string): string => {
    for (const c of objs(containers)) {
      for (const e of objs(c.env)) {
        const ref = isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) ? e.valueFrom.secretKeyRef : null;
        if (ref && !mountable.has(str(ref.name))) {
          return `${what} ${str(c.name)} with envVar ${str(e.name)} referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${saName} does not reference that secret`;
        }
      }
    }
    return '';
  };
  const env = envRefusal(spec.initContainers, 'init container') || envRefusal(spec.containers, 'container');
  if (env) return env;
  const pullSecrets = saNames(sa.imagePullSecrets);
  const refs = objs(spec.imagePullSecrets);
  for (let i = 0; i < refs.length; i++) {
    const name = str(refs[i]!.name);
    if (!pullSecrets.has(name)) return `imagePullSecrets[${i}].name="${name}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return '';
}

/** limitEphemeralContainerSecretReferences' check: env secrets of ephemeral containers. */
export function limitEphemeralContainerSecretReferences(sa: KubeObject, pod: KubeObject): string {
  const saName = sa.metadata.name ?? '';
  const mountable = saNames(sa.secrets);
  const spec = isObj(pod.spec) ? pod.spec : {};
  for (const c of objs(spec.ephemeralContainers)) {
    for (const e of objs(c.env)) {
      const ref = isObj(e.valueFrom) && isObj(e.valueFrom.secretKeyRef) ? e.valueFrom.secretKeyRef : null;
      if (ref && !mountable.has(str(ref.name))) {
        return `ephemeral container ${str(c.name)} with envVar ${str(e.name)} referencing secret.secretName="${str(ref.name)}" is not allowed because service account ${saName} does not reference that secret`;
      }
    }
  }
  return '';
}
