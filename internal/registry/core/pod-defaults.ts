/**
 * Pod defaulting, as k8s.io/kubernetes 1.24 pkg/apis/core/v1 SetObjectDefaults_Pod runs it
 * (zz_generated.defaults.go calling defaults.go): SetDefaults_Pod, SetDefaults_PodSpec, the volume
 * defaults (volumes module), then every init, regular and ephemeral container (SetDefaults_Container,
 * port protocol TCP, env fieldRef apiVersion v1, resource lists rounded up to milli units, probe and
 * HTTP action defaults), then the overhead list.
 *
 * Worked example: `{containers: [{name: a, image: nginx, resources: {limits: {cpu: 1}}}]}` becomes
 * restartPolicy Always, dnsPolicy ClusterFirst, terminationGracePeriodSeconds 30, schedulerName
 * default-scheduler, securityContext {}, enableServiceLinks true, and the container gets
 * imagePullPolicy Always (no tag = latest), terminationMessagePath /dev/termination-log,
 * terminationMessagePolicy File and requests {cpu: 1} copied from its limits.
 */
import type { KubeObject } from '../../api/types.ts';
import { type J, list, obj, roundUpMilli, s } from './pod-util.ts';

/** v1.TerminationMessagePathDefault. */
export const TERMINATION_MESSAGE_PATH_DEFAULT = '/dev/termination-log';
/** v1.DefaultTerminationGracePeriodSeconds. */
export const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
/** v1.DefaultSchedulerName. */
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

// docker/distribution reference grammar (reference.ParseNormalizedNamed), enough to find the tag.
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const domain = `${domainComponent}(?:\\.${domainComponent})*(?::[0-9]+)?`;
const nameComponent = '[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*';
const REFERENCE = new RegExp(
  `^((?:${domain}/)?${nameComponent}(?:/${nameComponent})*)(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?$`,
);

/**
 * parsers.ParseImageName's tag: the written tag, "latest" when neither tag nor digest is given,
 * '' when the image does not parse (which defaults the pull policy to IfNotPresent).
 */
export function imageTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m || m[1]!.length > 255 || /^[a-f0-9]{64}$/.test(image)) return '';
  if (m[2]) return m[2];
  return m[3] ? '' : 'latest';
}

/** SetDefaults_Container (regular, init and ephemeral containers). */
function defaultContainer(c: J): void {
  if (!s(c.imagePullPolicy)) c.imagePullPolicy = imageTag(s(c.image)) === 'latest' ? 'Always' : 'IfNotPresent';
  if (!s(c.terminationMessagePath)) c.terminationMessagePath = TERMINATION_MESSAGE_PATH_DEFAULT;
  if (!s(c.terminationMessagePolicy)) c.terminationMessagePolicy = 'File';
}

/** SetDefaults_HTTPGetAction. */
function defaultHTTPGet(h: J | undefined): void {
  if (!h) return;
  if (!s(h.path)) h.path = '/';
  if (!s(h.scheme)) h.scheme = 'HTTP';
}

/** SetDefaults_Probe plus its handlers' defaults. */
function defaultProbe(p: J | undefined): void {
  if (!p) return;
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  defaultHTTPGet(obj(p.httpGet));
  const grpc = obj(p.grpc);
  if (grpc && (grpc.service === undefined || grpc.service === null)) grpc.service = '';
}

/** SetDefaults_ResourceList on one map: round every quantity up to milli units. */
function defaultResourceList(m: J | undefined): void {
  if (!m) return;
  for (const [k, v] of Object.entries(m)) if (typeof v === 'string') m[k] = roundUpMilli(v);
}

/** The generated per-container defaults (SetDefaults_Container and its nested structs). */
function defaultContainerTree(c: J): void {
  defaultContainer(c);
  for (const p of list(c.ports)) if (!s(p.protocol)) p.protocol = 'TCP';
  for (const e of list(c.env)) {
    const fieldRef = obj(obj(e.valueFrom)?.fieldRef);
    if (fieldRef && !s(fieldRef.apiVersion)) fieldRef.apiVersion = 'v1';
  }
  const res = obj(c.resources);
  defaultResourceList(obj(res?.limits));
  defaultResourceList(obj(res?.requests));
  defaultProbe(obj(c.livenessProbe));
  defaultProbe(obj(c.readinessProbe));
  defaultProbe(obj(c.startupProbe));
  const lc = obj(c.lifecycle);
  defaultHTTPGet(obj(obj(lc?.postStart)?.httpGet));
  defaultHTTPGet(obj(obj(lc?.preStop)?.httpGet));
}

/** SetDefaults_Pod: requests default to limits (per container), enableServiceLinks true. */
function defaultPodLevel(spec: J): void {
  for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
    const res = obj(c.resources);
    const limits = obj(res?.limits);
    if (!res || !limits) continue;
    const requests = obj(res.requests) ?? (res.requests = {});
    for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
  }
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
}

/** SetDefaults_PodSpec (Pods and pod templates). */
function defaultPodSpec(spec: J): void {
  if (!s(spec.dnsPolicy)) spec.dnsPolicy = 'ClusterFirst';
  if (!s(spec.restartPolicy)) spec.restartPolicy = 'Always';
  if (spec.hostNetwork === true) {
    // defaultHostNetworkPorts: with host networking every container port is a host port.
    for (const c of [...list(spec.containers), ...list(spec.initContainers)]) {
      for (const p of list(c.ports)) if (!p.hostPort) p.hostPort = p.containerPort;
    }
  }
  if (!obj(spec.securityContext)) spec.securityContext = {};
  if (typeof spec.terminationGracePeriodSeconds !== 'number') spec.terminationGracePeriodSeconds = DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS;
  if (!s(spec.schedulerName)) spec.schedulerName = DEFAULT_SCHEDULER_NAME;
}

/** Volume defaulting is the volumes module's; injected so the Pod defaults run in kube's order. */
export type VolumeDefaulter = (volumes: J[]) => void;

/**
 * SetObjectDefaults_Pod on a decoded v1 Pod (mutates). `defaultVolumes` runs at the place the
 * generated code defaults `spec.volumes` (after the Pod and PodSpec defaults).
 */
export function defaultPod(pod: KubeObject, defaultVolumes?: VolumeDefaulter): void {
  const spec = obj(pod.spec) ?? ((pod as J).spec = {});
  defaultPodLevel(spec);
  defaultPodSpecTree(spec, defaultVolumes);
}

/**
 * The defaults a pod template's spec gets inside a workload (SetObjectDefaults_Deployment and the
 * other apps/v1 kinds): SetDefaults_PodSpec, volumes, containers, overhead — not SetDefaults_Pod
 * (no requests from limits, no enableServiceLinks), which only Pods run.
 */
export function defaultPodSpecTree(spec: J, defaultVolumes?: VolumeDefaulter): void {
  defaultPodSpec(spec);
  if (defaultVolumes) defaultVolumes(list(spec.volumes));
  for (const c of list(spec.initContainers)) defaultContainerTree(c);
  for (const c of list(spec.containers)) defaultContainerTree(c);
  for (const c of list(spec.ephemeralContainers)) defaultContainerTree(c);
  defaultResourceList(obj(spec.overhead));
}
