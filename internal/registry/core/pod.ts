/**
 * Pod (core/v1), after Kubernetes 1.24 pkg/registry/core/pod/strategy.go: the strategy
 * (PrepareForCreate resets status to {phase: Pending, qosClass}, drops fields of disabled gates and
 * syncs the seccomp annotations with the fields; PrepareForUpdate keeps the stored status),
 * graceful deletion (CheckGracefulDelete), the `status` and `ephemeralcontainers` subresources,
 * `eviction` (pod-eviction.ts), GetAttrs field selectors and the descriptor. Defaults are in
 * pod-defaults.ts, validation in pod-validation*.ts, the Table in pod-table.ts.
 */
import { podAttachSubresource, podExecSubresource, podLogSubresource, podPortForwardSubresource, podProxySubresource } from './pod-connect.ts';
import type { KubeObject } from '../../api/types.ts';
import type { KindDescriptor, Strategy, StatusStrategy } from '../rest/strategy.ts';
import { defaultPod } from './pod-defaults.ts';
import { defaultVolumes } from './volumes/index.ts';
import { podQOS } from './pod-resources.ts';
import { podTable } from './pod-table.ts';
import { DEFAULT_POD_VALIDATION_OPTIONS, type VolumesValidator, containersWithPath, podVolumes, validatePodCreate } from './pod-validation.ts';
import { validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './pod-validation-update.ts';
import { evictionSubresource } from './pod-eviction.ts';
import { bindingSubresource } from './pod-binding.ts';
import { podWarnings } from './pod-warnings.ts';
import { FieldPath } from '../../api/field-errors.ts';
import { type J, list, obj, s } from './pod-util.ts';

/** The volume rules Pods run (ValidateVolumes); the volumes module plugs in here. */
const volumes: VolumesValidator = podVolumes;

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';

const specOf = (pod: KubeObject): J => obj(pod.spec) ?? ((pod as J).spec = {});

/**
 * dropDisabledFields with 1.24's default gates: ProbeTerminationGracePeriod (beta, off) drops
 * liveness/startup probe grace periods, ProcMountType (alpha, off) resets procMount to Default,
 * MinDomainsInPodTopologySpread (alpha, off) drops minDomains — each unless the old Pod used it.
 */
export function dropDisabledPodFields(pod: KubeObject, old?: KubeObject): void {
  const spec = specOf(pod);
  const oldSpec = old ? obj(old.spec) ?? {} : undefined;
  const oldContainers = oldSpec ? containersWithPath(oldSpec, new FieldPath('spec')).map(([c]) => c) : [];
  const probeGraceInUse = oldContainers.some((c) => typeof obj(c.livenessProbe)?.terminationGracePeriodSeconds === 'number' || typeof obj(c.startupProbe)?.terminationGracePeriodSeconds === 'number');
  const procMountInUse = oldContainers.some((c) => typeof obj(c.securityContext)?.procMount === 'string' && obj(c.securityContext)!.procMount !== 'Default');
  const minDomainsInUse = list(oldSpec?.topologySpreadConstraints).some((c) => typeof c.minDomains === 'number');
  for (const [c] of containersWithPath(spec, new FieldPath('spec'))) {
    if (!probeGraceInUse) {
      if (obj(c.livenessProbe)) delete c.livenessProbe.terminationGracePeriodSeconds;
      if (obj(c.startupProbe)) delete c.startupProbe.terminationGracePeriodSeconds;
    }
    const sc = obj(c.securityContext);
    if (!procMountInUse && sc && typeof sc.procMount === 'string') sc.procMount = 'Default';
  }
  if (!minDomainsInUse) for (const c of list(spec.topologySpreadConstraints)) delete c.minDomains;
}

/** podutil.SeccompAnnotationForField. */
function annotationForField(f: J): string {
  if (f.type === 'Unconfined') return 'unconfined';
  if (f.type === 'RuntimeDefault') return 'runtime/default';
  if (f.type === 'Localhost' && typeof f.localhostProfile === 'string') return `localhost/${f.localhostProfile}`;
  return '';
}

/** podutil.SeccompFieldForAnnotation. */
function fieldForAnnotation(a: string): J | undefined {
  if (a === 'unconfined') return { type: 'Unconfined' };
  if (a === 'runtime/default' || a === 'docker/default') return { type: 'RuntimeDefault' };
  if (a.startsWith('localhost/') && a.length > 'localhost/'.length) return { type: 'Localhost', localhostProfile: a.slice('localhost/'.length) };
  return undefined;
}

/** applySeccompVersionSkew: a seccomp annotation without the field sets it, and the reverse. */
function applySeccompVersionSkew(pod: KubeObject): void {
  const spec = specOf(pod);
  const sync = (key: string, holder: () => J | undefined, ensureHolder: () => J): void => {
    const annotations = pod.metadata.annotations ?? {};
    const field = obj(holder()?.seccompProfile);
    const has = key in annotations;
    if (field && !has) {
      const a = annotationForField(field);
      if (a) pod.metadata.annotations = { ...annotations, [key]: a };
    } else if (has && !field) {
      const f = fieldForAnnotation(String(annotations[key]));
      if (f) ensureHolder().seccompProfile = f;
    }
  };
  sync(
    SECCOMP_POD_ANNOTATION,
    () => obj(spec.securityContext),
    () => (obj(spec.securityContext) ?? (spec.securityContext = {})) as J,
  );
  for (const [c] of containersWithPath(spec, new FieldPath('spec'))) {
    sync(
      SECCOMP_CONTAINER_PREFIX + s(c.name),
      () => obj(c.securityContext),
      () => (obj(c.securityContext) ?? (c.securityContext = {})) as J,
    );
  }
}

/**
 * The v1 PodStatus's podIP, an alias of podIPs[0], through the conversions to the internal
 * PodStatus (which has only podIPs) and back: Convert_v1_PodStatus_To_core_PodStatus takes podIP
 * when podIPs is empty or starts with another address (podIP wins, for old kubelets);
 * Convert_core_PodStatus_To_v1_PodStatus writes podIPs[0] back into podIP.
 */
function convertPodStatusIPs(pod: KubeObject): void {
  const status = obj(pod.status);
  if (!status) return;
  const podIP = s(status.podIP);
  const podIPs = list(status.podIPs);
  if (podIP && (podIPs.length === 0 || s(podIPs[0].ip) !== podIP)) status.podIPs = [{ ip: podIP }];
  const first = s(list(status.podIPs)[0]?.ip);
  if (first) status.podIP = first;
  else delete status.podIP;
}

export const podStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  // WarningsOnUpdate is skipped for Pods: a high-frequency path humans rarely write.
  warnings: (pod, old) => (old ? [] : podWarnings(pod)),
  defaults(pod) {
    // Convert_v1_PodSpec_To_core_PodSpec: the deprecated serviceAccount fills an empty serviceAccountName.
    const spec = specOf(pod);
    if (!s(spec.serviceAccountName) && s(spec.serviceAccount)) spec.serviceAccountName = spec.serviceAccount;
    convertPodStatusIPs(pod);
    defaultPod(pod, defaultVolumes);
  },
  canonicalize(pod) {
    // Convert_core_PodSpec_To_v1_PodSpec writes serviceAccountName back into serviceAccount.
    const spec = specOf(pod);
    if (s(spec.serviceAccountName)) spec.serviceAccount = spec.serviceAccountName;
    else delete spec.serviceAccount;
  },
  prepareForCreate(pod) {
    pod.status = { phase: 'Pending', qosClass: podQOS(specOf(pod)) };
    dropDisabledPodFields(pod);
    applySeccompVersionSkew(pod);
  },
  prepareForUpdate(pod, old) {
    pod.status = structuredClone(old.status);
    dropDisabledPodFields(pod, old);
  },
  validate: (pod) => validatePodCreate(pod, volumes),
  validateUpdate: (pod, old) => validatePodUpdate(pod, old, DEFAULT_POD_VALIDATION_OPTIONS, volumes),
  checkGracefulDelete(pod, gracePeriodSeconds) {
    // CheckGracefulDelete: the request's grace period, else the spec's; unscheduled and
    // terminal pods go at once; a negative period means 1.
    const spec = obj(pod.spec) ?? {};
    let period = gracePeriodSeconds ?? (typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 0);
    if (!s(spec.nodeName)) period = 0;
    const phase = s(obj(pod.status)?.phase);
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    return period < 0 ? 1 : period;
  },
};

/** podStatusStrategy: spec and ownerReferences are the stored ones; only status (and metadata) change. */
const statusStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    // A subresource write runs no defaults(): the status it carries is converted here.
    convertPodStatusIPs(pod);
    pod.spec = structuredClone(old.spec);
    if (old.metadata.ownerReferences) pod.metadata.ownerReferences = structuredClone(old.metadata.ownerReferences);
    else delete pod.metadata.ownerReferences;
  },
  validateUpdate: (pod, old) => validatePodStatusUpdate(pod, old, DEFAULT_POD_VALIDATION_OPTIONS),
};

/**
 * podEphemeralContainersStrategy: everything but spec.ephemeralContainers is the stored Pod
 * (dropNonEphemeralContainerUpdates keeps the request's name, namespace, resourceVersion, uid).
 */
const ephemeralContainersStrategy: StatusStrategy = {
  prepareForUpdate(pod, old) {
    const ephemeral = specOf(pod).ephemeralContainers;
    const keep = { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid };
    const copy = structuredClone(old) as J;
    for (const k of Object.keys(pod)) delete (pod as J)[k];
    Object.assign(pod, copy);
    Object.assign(pod.metadata, keep);
    if (ephemeral === undefined) delete specOf(pod).ephemeralContainers;
    else specOf(pod).ephemeralContainers = ephemeral;
    // The request body was defaulted when kube decoded it; here the defaults run on the result.
    defaultPod(pod, defaultVolumes);
    dropDisabledPodFields(pod, old);
  },
  validateUpdate: (pod, old) => validatePodEphemeralContainersUpdate(pod, old, DEFAULT_POD_VALIDATION_OPTIONS, volumes),
};

/** ToSelectableFields beyond metadata.name/namespace. */
const podFieldSelectors: Record<string, (o: KubeObject) => string> = {
  'spec.nodeName': (o) => s(obj(o.spec)?.nodeName),
  'spec.restartPolicy': (o) => s(obj(o.spec)?.restartPolicy),
  'spec.schedulerName': (o) => s(obj(o.spec)?.schedulerName),
  'spec.serviceAccountName': (o) => s(obj(o.spec)?.serviceAccountName),
  'status.phase': (o) => s(obj(o.status)?.phase),
  'status.podIP': (o) => s(list(obj(o.status)?.podIPs)[0]?.ip),
  'status.nominatedNodeName': (o) => s(obj(o.status)?.nominatedNodeName),
  // The v1 field-label conversion also accepts status.podIPs (absent from the selectable fields,
  // so it reads as empty) and spec.host, the old name of spec.nodeName.
  'status.podIPs': () => '',
  'spec.host': (o) => s(obj(o.spec)?.nodeName),
};

export const podKind: KindDescriptor = {
  group: '',
  versions: ['v1'],
  resource: 'pods',
  singular: 'pod',
  kind: 'Pod',
  listKind: 'PodList',
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  strategy: podStrategy,
  subresources: [
    podAttachSubresource,
    bindingSubresource,
    { name: 'ephemeralcontainers', verbs: ['get', 'update', 'patch'], strategy: ephemeralContainersStrategy },
    evictionSubresource,
    podExecSubresource,
    podLogSubresource,
    podPortForwardSubresource,
    podProxySubresource,
    { name: 'status', verbs: ['get', 'update', 'patch'], strategy: statusStrategy },
  ],
  table: podTable,
  fieldSelectors: podFieldSelectors,
  deleteReturns: 'Object',
};
