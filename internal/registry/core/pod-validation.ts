/**
 * Pod spec validation, ported from k8s.io/kubernetes 1.24 pkg/apis/core/validation:
 * ValidatePodSpec and the pod-level rules (restartPolicy, dnsPolicy/dnsConfig, nodeSelector,
 * pod securityContext, imagePullSecrets, affinity, tolerations, hostAliases, readinessGates,
 * topologySpreadConstraints, priority, overhead, os, activeDeadlineSeconds), the pod-specific
 * annotations (mirror, tolerations, deletion cost, seccomp, AppArmor) and ValidatePodCreate.
 * Containers are in pod-validation-containers.ts, updates in pod-validation-update.ts.
 */
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KubeObject } from '../../api/types.ts';
import { validateLabels } from '../../validation/objectmeta.ts';
import { validateLabelSelector } from '../../validation/label-selector.ts';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../validation/names.ts';
import { parseIP } from '../../validation/network.ts';
import {
  type PodValidationOptions,
  type VolumeMap,
  idRangeErrors,
  validateContainers,
  validateContainersOnlyForPod,
  validateEphemeralContainers,
  validateInitContainers,
  validateLocalDescendingPath,
  validateSeccompProfile,
} from './pod-validation-containers.ts';
import { validateResourceRequirements } from './pod-resources.ts';
import { validateVolumes } from './volumes/index.ts';
import { type J, entries, list, n, obj, s } from './pod-util.ts';

/** 1.24's options for a new Pod (feature gates at their defaults). */
export const DEFAULT_POD_VALIDATION_OPTIONS: PodValidationOptions = {
  allowDownwardAPIHugePages: true,
  allowInvalidPodDeletionCost: false,
  allowIndivisibleHugePagesValues: false,
  allowWindowsHostProcessField: true,
  allowExpandedDNSConfig: false,
  allowOSField: true,
  allowSysctlRegexContainSlash: false,
};

/**
 * Volume validation is the volumes module's (ValidateVolumes): errors for spec.volumes and the
 * name → source map that mounts and devices are checked against.
 */
export type VolumesValidator = (volumes: J[], podMeta: J | undefined, p: FieldPath, opts: PodValidationOptions) => { errors: FieldError[]; volumes: VolumeMap };

/** ValidateVolumes of the volumes module, with the pod's name (ephemeral claims) and the options. */
export const podVolumes: VolumesValidator = (volumes, podMeta, p, opts) =>
  validateVolumes(volumes, p, { podName: s(podMeta?.name), allowDownwardAPIHugePages: opts.allowDownwardAPIHugePages });

const specPath = new FieldPath('spec');

// ---------------------------------------------------------------- small pieces

/** ValidateNodeSelectorTerm (matchExpressions and matchFields). */
function validateNodeSelectorTerm(term: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  list(term.matchExpressions).forEach((rq, j) => {
    const ip = p.child('matchExpressions').index(j);
    const op = s(rq.operator);
    const values = list(rq.values);
    if (op === 'In' || op === 'NotIn') {
      if (!values.length) errs.push(required(ip.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length) errs.push(forbidden(ip.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else if (op === 'Gt' || op === 'Lt') {
      if (values.length !== 1) errs.push(required(ip.child('values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
    } else errs.push(invalid(ip.child('operator'), op, 'not a valid selector operator'));
    errs.push(...isQualifiedName(s(rq.key)).map((m) => invalid(ip.child('key'), s(rq.key), m)));
  });
  list(term.matchFields).forEach((rq, j) => {
    const ip = p.child('matchFields').index(j);
    const op = s(rq.operator);
    if (op === 'In' || op === 'NotIn') {
      if (list(rq.values).length !== 1) errs.push(required(ip.child('values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    } else errs.push(invalid(ip.child('operator'), op, 'not a valid selector operator'));
    if (s(rq.key) !== 'metadata.name') errs.push(invalid(ip.child('key'), s(rq.key), 'not a valid field selector key'));
    else list(rq.values).forEach((v, i) => errs.push(...isDNS1123Subdomain(String(v)).map((m) => invalid(ip.child('values').index(i), v, m))));
  });
  return errs;
}

/** validatePodAffinityTerm. */
function validatePodAffinityTerm(t: J, p: FieldPath): FieldError[] {
  const errs = [...validateLabelSelector(obj(t.labelSelector), p.child('labelSelector')), ...validateLabelSelector(obj(t.namespaceSelector), p.child('namespaceSelector'))];
  for (const ns of list(t.namespaces)) errs.push(...isDNS1123Label(String(ns)).map((m) => invalid(p.child('namespace'), ns, m)));
  if (!s(t.topologyKey)) errs.push(required(p.child('topologyKey'), 'can not be empty'));
  errs.push(...isQualifiedName(s(t.topologyKey)).map((m) => invalid(p.child('topologyKey'), s(t.topologyKey), m)));
  return errs;
}

function validatePodAffinityKind(a: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  list(a.requiredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => errs.push(...validatePodAffinityTerm(t, p.child('requiredDuringSchedulingIgnoredDuringExecution').index(i))));
  list(a.preferredDuringSchedulingIgnoredDuringExecution).forEach((w, j) => {
    const ip = p.child('preferredDuringSchedulingIgnoredDuringExecution').index(j);
    if (n(w.weight) <= 0 || n(w.weight) > 100) errs.push(invalid(ip.child('weight'), n(w.weight), 'must be in the range 1-100'));
    errs.push(...validatePodAffinityTerm(obj(w.podAffinityTerm) ?? {}, ip.child('podAffinityTerm')));
  });
  return errs;
}

/** validateAffinity. */
function validateAffinity(aff: J | undefined, p: FieldPath): FieldError[] {
  if (!aff) return [];
  const errs: FieldError[] = [];
  const na = obj(aff.nodeAffinity);
  if (na) {
    const np = p.child('nodeAffinity');
    const req = obj(na.requiredDuringSchedulingIgnoredDuringExecution);
    if (req) {
      const tp = np.child('requiredDuringSchedulingIgnoredDuringExecution').child('nodeSelectorTerms');
      const terms = list(req.nodeSelectorTerms);
      if (!terms.length) errs.push(required(tp, 'must have at least one node selector term'));
      terms.forEach((t, i) => errs.push(...validateNodeSelectorTerm(t, tp.index(i))));
    }
    list(na.preferredDuringSchedulingIgnoredDuringExecution).forEach((t, i) => {
      const ip = np.child('preferredDuringSchedulingIgnoredDuringExecution').index(i);
      if (n(t.weight) <= 0 || n(t.weight) > 100) errs.push(invalid(ip.child('weight'), n(t.weight), 'must be in the range 1-100'));
      errs.push(...validateNodeSelectorTerm(obj(t.preference) ?? {}, ip.child('preference')));
    });
  }
  if (obj(aff.podAffinity)) errs.push(...validatePodAffinityKind(aff.podAffinity, p.child('podAffinity')));
  if (obj(aff.podAntiAffinity)) errs.push(...validatePodAffinityKind(aff.podAntiAffinity, p.child('podAntiAffinity')));
  return errs;
}

/** ValidateTolerations. */
export function validateTolerations(tols: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  tols.forEach((t, i) => {
    const ip = p.index(i);
    const key = s(t.key);
    const op = s(t.operator);
    if (key) errs.push(...isQualifiedName(key).map((m) => invalid(ip.child('key'), key, m)));
    if (!key && op !== 'Exists') errs.push(invalid(ip.child('operator'), op, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    if (typeof t.tolerationSeconds === 'number' && s(t.effect) !== 'NoExecute') errs.push(invalid(ip.child('effect'), s(t.effect), "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    if (op === 'Equal' || op === '') {
      const msgs = isValidLabelValue(s(t.value));
      if (msgs.length) errs.push(invalid(ip.child('operator'), s(t.value), msgs.join(';')));
    } else if (op === 'Exists') {
      if (s(t.value)) errs.push(invalid(ip.child('operator'), new GoValue(`core.Toleration{Key:"${key}", Operator:"Exists", Value:"${s(t.value)}", Effect:"${s(t.effect)}", TolerationSeconds:(*int64)(nil)}`), "value must be empty when `operator` is 'Exists'"));
    } else errs.push(notSupported(ip.child('operator'), op, ['Equal', 'Exists']));
    if (s(t.effect) && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(s(t.effect))) errs.push(notSupported(ip.child('effect'), s(t.effect), ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
  });
  return errs;
}

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_FMT = `(${SYSCTL_SEGMENT}\\.)*${SYSCTL_SEGMENT}`;
const SYSCTL_RE = new RegExp(`^${SYSCTL_FMT}$`);

/** ValidatePodSecurityContext (with validateHostNetwork, which kube runs from here). */
function validatePodSecurityContext(spec: J, p: FieldPath): FieldError[] {
  const sc = obj(spec.securityContext);
  if (!sc) return [];
  const errs: FieldError[] = [];
  if (spec.hostNetwork === true) {
    list(spec.containers).forEach((c, i) =>
      list(c.ports).forEach((port, j) => {
        if (n(port.hostPort) !== n(port.containerPort)) errs.push(invalid(specPath.child('containers').index(i).child('ports').index(j).child('containerPort'), n(port.containerPort), 'must match `hostPort` when `hostNetwork` is true'));
      }),
    );
  }
  for (const f of ['fsGroup', 'runAsUser', 'runAsGroup']) if (typeof sc[f] === 'number') errs.push(...idRangeErrors(sc[f]).map((m) => invalid(p.child(f), sc[f], m)));
  list(sc.supplementalGroups).forEach((g, i) => errs.push(...idRangeErrors(Number(g)).map((m) => invalid(p.child('supplementalGroups').index(i), g, m))));
  if (sc.shareProcessNamespace === true && spec.hostPID === true) errs.push(invalid(p.child('shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  const names = new Set<string>();
  list(sc.sysctls).forEach((sy, i) => {
    const name = s(sy.name);
    const np = p.child('sysctls').index(i).child('name');
    if (!name) errs.push(required(np));
    else if (name.length > 253 || !SYSCTL_RE.test(name)) errs.push(invalid(np, name, `must have at most 253 characters and match regex ${SYSCTL_FMT}`));
    else if (names.has(name)) errs.push(duplicate(np, name));
    names.add(name);
  });
  if (typeof sc.fsGroupChangePolicy === 'string' && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    errs.push(notSupported(p.child('fsGroupChangePolicy'), sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateSeccompProfile(obj(sc.seccompProfile), p.child('seccompProfile')));
  return errs;
}

/** validatePodDNSConfig. */
function validateDNSConfig(cfg: J | undefined, dnsPolicy: string, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (dnsPolicy === 'None') {
    if (!cfg) return [required(p, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (!list(cfg.nameservers).length) return [required(p.child('nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (!cfg) return errs;
  const ns = list(cfg.nameservers) as unknown as string[];
  if (ns.length > 3) errs.push(invalid(p.child('nameservers'), ns, 'must not have more than 3 nameservers'));
  ns.forEach((x, i) => {
    if (!parseIP(String(x))) errs.push(invalid(p.child('nameservers').index(i), x, 'must be valid IP address'));
  });
  const searches = list(cfg.searches) as unknown as string[];
  if (searches.length > 6) errs.push(invalid(p.child('searches'), searches, 'must not have more than 6 search paths'));
  if (searches.join(' ').length > 256) errs.push(invalid(p.child('searches'), searches, 'must not have more than 256 characters (including spaces) in the search list'));
  searches.forEach((x, i) => {
    const v = String(x).replace(/\.$/, '');
    errs.push(...isDNS1123Subdomain(v).map((m) => invalid(p.child('searches').index(i), v, m)));
  });
  list(cfg.options).forEach((o, i) => {
    if (!s(o.name)) errs.push(required(p.child('options').index(i), 'must not be empty'));
  });
  return errs;
}

/** validateTopologySpreadConstraints (minDomains is dropped with its gate off, so never seen). */
function validateTopologySpread(cs: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  cs.forEach((c, i) => {
    const ip = p.index(i);
    if (n(c.maxSkew) <= 0) errs.push(invalid(ip.child('maxSkew'), n(c.maxSkew), 'must be greater than zero'));
    if (!s(c.topologyKey)) errs.push(required(ip.child('topologyKey'), 'can not be empty'));
    if (!['DoNotSchedule', 'ScheduleAnyway'].includes(s(c.whenUnsatisfiable))) errs.push(notSupported(ip.child('whenUnsatisfiable'), s(c.whenUnsatisfiable), ['DoNotSchedule', 'ScheduleAnyway']));
    const dup = cs.slice(i + 1).some((r) => s(r.topologyKey) === s(c.topologyKey) && s(r.whenUnsatisfiable) === s(c.whenUnsatisfiable));
    if (dup) errs.push(duplicate(ip.child('{topologyKey, whenUnsatisfiable}'), `{${s(c.topologyKey)}, ${s(c.whenUnsatisfiable)}}`));
    if (typeof c.minDomains === 'number') {
      if (c.minDomains <= 0) errs.push(invalid(ip.child('minDomains'), c.minDomains, 'must be greater than zero'));
      if (s(c.whenUnsatisfiable) !== 'DoNotSchedule') errs.push(invalid(ip.child('minDomains'), c.minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${s(c.whenUnsatisfiable)}`));
    }
  });
  return errs;
}

/** Every container of a spec with its path (podshelper.VisitContainersWithPath order). */
export function containersWithPath(spec: J, p: FieldPath): [J, FieldPath][] {
  const out: [J, FieldPath][] = [];
  list(spec.initContainers).forEach((c, i) => out.push([c, p.child('initContainers').index(i)]));
  list(spec.containers).forEach((c, i) => out.push([c, p.child('containers').index(i)]));
  list(spec.ephemeralContainers).forEach((c, i) => out.push([c, p.child('ephemeralContainers').index(i)]));
  return out;
}

/** validateOS and the linux/windows restrictions it leads to. */
function validateOS(spec: J, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const os = obj(spec.os);
  if (!os) return [];
  const op = p.child('os');
  if (!opts.allowOSField) return [forbidden(op, 'cannot be set when IdentifyPodOS feature is not enabled')];
  if (!s(os.name)) return [required(op.child('name'), 'cannot be empty')];
  if (!['linux', 'windows'].includes(s(os.name))) return [notSupported(op, s(os.name), ['linux', 'windows'])];
  const errs: FieldError[] = [];
  const sc = obj(spec.securityContext);
  if (os.name === 'linux') {
    if (obj(sc?.windowsOptions)) errs.push(forbidden(p.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
    for (const [c, cp] of containersWithPath(spec, p)) {
      if (obj(obj(c.securityContext)?.windowsOptions)) errs.push(forbidden(cp.child('securityContext').child('windowsOptions'), 'windows options cannot be set for a linux pod'));
    }
  } else {
    if (sc && obj(sc.seLinuxOptions)) errs.push(forbidden(p.child('securityContext').child('seLinuxOptions'), 'cannot be set for a windows pod'));
    if (spec.hostPID === true) errs.push(forbidden(p.child('hostPID'), 'cannot be set for a windows pod'));
    if (spec.hostIPC === true) errs.push(forbidden(p.child('hostIPC'), 'cannot be set for a windows pod'));
  }
  return errs;
}

/**
 * validateWindowsHostProcessPod: hostProcess settings agree between pod and containers, and a
 * hostProcess pod is all hostProcess with hostNetwork; privileged (hostProcess) containers are
 * disallowed by cluster policy (--allow-privileged is false).
 */
function validateWindowsHostProcessPod(spec: J, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const podHP = obj(obj(spec.securityContext)?.windowsOptions)?.hostProcess;
  const gate = "not allowed when feature gate 'WindowsHostProcessContainers' is not enabled";
  if (!opts.allowWindowsHostProcessField && typeof podHP === 'boolean') return [forbidden(p.child('securityContext').child('windowsOptions').child('hostProcess'), gate)];
  let count = 0;
  let hostProcess = 0;
  for (const [c, cp] of containersWithPath(spec, p)) {
    count++;
    const cHP = obj(obj(c.securityContext)?.windowsOptions)?.hostProcess;
    const hp = cp.child('securityContext').child('windowsOptions').child('hostProcess');
    if (!opts.allowWindowsHostProcessField && typeof cHP === 'boolean') errs.push(forbidden(hp, gate));
    if (typeof podHP === 'boolean' && typeof cHP === 'boolean' && podHP !== cHP) errs.push(invalid(hp, cHP, `pod hostProcess value must be identical if both are specified, was ${podHP}`));
    if (cHP === true || (typeof cHP !== 'boolean' && podHP === true)) hostProcess++;
  }
  if (hostProcess > 0) {
    if (!opts.allowWindowsHostProcessField) return [...errs, forbidden(p, "pod must not contain Windows hostProcess containers when feature gate 'WindowsHostProcessContainers' is not enabled")];
    if (hostProcess !== count) errs.push(invalid(p, '', 'If pod contains any hostProcess containers then all containers must be HostProcess containers'));
    if (spec.hostNetwork !== true) errs.push(invalid(p.child('hostNetwork'), false, 'hostNetwork must be true if pod contains any hostProcess containers'));
    errs.push(forbidden(p, 'hostProcess containers are disallowed by cluster policy'));
  }
  return errs;
}

/** ValidatePodSpec. */
export function validatePodSpec(spec: J, podMeta: J | undefined, p: FieldPath, opts: PodValidationOptions, volumesValidator: VolumesValidator): FieldError[] {
  const errs: FieldError[] = [];
  const vols = volumesValidator(list(spec.volumes), podMeta, p.child('volumes'), opts);
  errs.push(...vols.errors);
  errs.push(...validateContainers(list(spec.containers), false, vols.volumes, p.child('containers'), opts));
  errs.push(...validateInitContainers(list(spec.initContainers), list(spec.containers), vols.volumes, p.child('initContainers'), opts));
  errs.push(...validateEphemeralContainers(list(spec.ephemeralContainers), list(spec.containers), list(spec.initContainers), vols.volumes, p.child('ephemeralContainers'), opts));
  const rp = s(spec.restartPolicy);
  if (!rp) errs.push(required(p.child('restartPolicy')));
  else if (!['Always', 'OnFailure', 'Never'].includes(rp)) errs.push(notSupported(p.child('restartPolicy'), rp, ['Always', 'OnFailure', 'Never']));
  const dp = s(spec.dnsPolicy);
  if (!dp) errs.push(required(p.child('dnsPolicy')));
  else if (!['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'].includes(dp)) errs.push(notSupported(p.child('dnsPolicy'), dp, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']));
  errs.push(...validateLabels(spec.nodeSelector, p.child('nodeSelector')));
  errs.push(...validatePodSecurityContext(spec, p.child('securityContext')));
  list(spec.imagePullSecrets).forEach((ref, i) => {
    if (Object.keys(ref).some((k) => k !== 'name')) errs.push(invalid(p.child('imagePullSecrets').index(i), new GoValue(`core.LocalObjectReference{Name:"${s(ref.name)}"}`), 'only name may be set'));
  });
  errs.push(...validateAffinity(obj(spec.affinity), p.child('affinity')));
  errs.push(...validateDNSConfig(obj(spec.dnsConfig), dp, p.child('dnsConfig')));
  list(spec.readinessGates).forEach((g, i) => errs.push(...isQualifiedName(s(g.conditionType)).map((m) => invalid(p.child('readinessGates').index(i).child('conditionType'), s(g.conditionType), m))));
  errs.push(...validateTopologySpread(list(spec.topologySpreadConstraints), p.child('topologySpreadConstraints')));
  errs.push(...validateWindowsHostProcessPod(spec, p, opts));
  const nameChecks: [string, (v: string) => string[]][] = [
    ['serviceAccountName', isDNS1123Subdomain],
    ['nodeName', isDNS1123Subdomain],
  ];
  for (const [f, check] of nameChecks) if (s(spec[f])) errs.push(...check(s(spec[f])).map((m) => invalid(p.child(f), s(spec[f]), m)));
  if (typeof spec.activeDeadlineSeconds === 'number' && (spec.activeDeadlineSeconds < 1 || spec.activeDeadlineSeconds > 2147483647)) {
    errs.push(invalid(p.child('activeDeadlineSeconds'), spec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  }
  if (s(spec.hostname)) errs.push(...isDNS1123Label(s(spec.hostname)).map((m) => invalid(p.child('hostname'), s(spec.hostname), m)));
  if (s(spec.subdomain)) errs.push(...isDNS1123Label(s(spec.subdomain)).map((m) => invalid(p.child('subdomain'), s(spec.subdomain), m)));
  if (list(spec.tolerations).length) errs.push(...validateTolerations(list(spec.tolerations), p.child('tolerations')));
  for (const ha of list(spec.hostAliases)) {
    if (!parseIP(s(ha.ip))) errs.push(invalid(p.child('hostAliases').child('ip'), s(ha.ip), 'must be valid IP address'));
    for (const h of list(ha.hostnames)) errs.push(...isDNS1123Subdomain(String(h)).map((m) => invalid(p.child('hostAliases').child('hostnames'), h, m)));
  }
  if (s(spec.priorityClassName)) errs.push(...isDNS1123Subdomain(s(spec.priorityClassName)).map((m) => invalid(p.child('priorityClassName'), s(spec.priorityClassName), m)));
  if (typeof spec.runtimeClassName === 'string') errs.push(...isDNS1123Subdomain(spec.runtimeClassName).map((m) => invalid(p.child('runtimeClassName'), spec.runtimeClassName, m)));
  if (typeof spec.preemptionPolicy === 'string') {
    if (!spec.preemptionPolicy) errs.push(required(p.child('preemptionPolicy')));
    else if (!['PreemptLowerPriority', 'Never'].includes(spec.preemptionPolicy)) errs.push(notSupported(p.child('preemptionPolicy'), spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']));
  }
  if (obj(spec.overhead)) errs.push(...validateResourceRequirements({ limits: spec.overhead }, p.child('overhead')));
  errs.push(...validateOS(spec, p, opts));
  return errs;
}

// ---------------------------------------------------------------- annotations

const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror';
const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';
const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** ValidateSeccompProfile on an annotation value. */
export function validateSeccompAnnotationValue(v: string, p: FieldPath): FieldError[] {
  if (v === 'runtime/default' || v === 'docker/default' || v === 'unconfined') return [];
  if (v.startsWith('localhost/')) return validateLocalDescendingPath(v.slice('localhost/'.length), p);
  return [invalid(p, v, 'must be a valid seccomp profile')];
}

/** ValidatePodSpecificAnnotations. */
export function validatePodAnnotations(annotations: J, spec: J, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (MIRROR_ANNOTATION in annotations && !s(spec.nodeName)) errs.push(invalid(p.key(MIRROR_ANNOTATION), annotations[MIRROR_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
  if (s(annotations[TOLERATIONS_ANNOTATION])) {
    let tols: unknown;
    try {
      tols = JSON.parse(annotations[TOLERATIONS_ANNOTATION]);
    } catch (e) {
      errs.push(invalid(p, TOLERATIONS_ANNOTATION, (e as Error).message));
    }
    if (Array.isArray(tols) && tols.length) errs.push(...validateTolerations(tols as J[], p.child(TOLERATIONS_ANNOTATION)));
  }
  if (!opts.allowInvalidPodDeletionCost && DELETION_COST_ANNOTATION in annotations) {
    const v = String(annotations[DELETION_COST_ANNOTATION]);
    const ok = /^[+-]?\d+$/.test(v) && Number(v) >= -2147483648 && Number(v) <= 2147483647;
    if (!ok) errs.push(invalid(p.key(DELETION_COST_ANNOTATION), v, 'must be a 32bit integer'));
  }
  if (SECCOMP_POD_ANNOTATION in annotations) errs.push(...validateSeccompAnnotationValue(String(annotations[SECCOMP_POD_ANNOTATION]), p.child(SECCOMP_POD_ANNOTATION)));
  const keys = Object.keys(annotations).sort();
  for (const k of keys) if (k.startsWith(SECCOMP_CONTAINER_PREFIX)) errs.push(...validateSeccompAnnotationValue(String(annotations[k]), p.child(k)));
  const names = new Set(containersWithPath(spec, specPath).map(([c]) => s(c.name)));
  for (const k of keys) {
    if (!k.startsWith(APPARMOR_PREFIX)) continue;
    const container = k.slice(APPARMOR_PREFIX.length);
    if (!names.has(container)) errs.push(invalid(p.key(k), container, 'container not found'));
    const profile = String(annotations[k]);
    if (profile && profile !== 'runtime/default' && profile !== 'unconfined' && !profile.startsWith('localhost/')) errs.push(invalid(p.key(k), profile, `invalid AppArmor profile name: ${JSON.stringify(profile)}`));
  }
  return errs;
}

/** ValidatePodSpecificAnnotationUpdates (AppArmor and mirror annotations are fixed). */
export function validatePodAnnotationUpdates(next: J, old: J, spec: J, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of entries(old).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (k in next && next[k] === v) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(p.key(k), 'may not remove or update AppArmor annotations'));
    if (k === MIRROR_ANNOTATION) errs.push(forbidden(p.key(k), 'may not remove or update mirror pod annotation'));
  }
  for (const k of Object.keys(next).sort()) {
    if (k in old) continue;
    if (k.startsWith(APPARMOR_PREFIX)) errs.push(forbidden(p.key(k), 'may not add AppArmor annotations'));
    if (k === MIRROR_ANNOTATION) errs.push(forbidden(p.key(k), 'may not add mirror pod annotation'));
  }
  return [...errs, ...validatePodAnnotations(next, spec, p, opts)];
}

/** validateSeccompAnnotationsAndFieldsMatch. */
function seccompMatch(annotation: string, field: J, p: FieldPath): FieldError | undefined {
  switch (s(field.type)) {
    case 'Unconfined':
      return annotation !== 'unconfined' ? forbidden(p.child('type'), 'seccomp type in annotation and field must match') : undefined;
    case 'RuntimeDefault':
      return annotation !== 'runtime/default' && annotation !== 'docker/default' ? forbidden(p.child('type'), 'seccomp type in annotation and field must match') : undefined;
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return forbidden(p.child('type'), 'seccomp type in annotation and field must match');
      if (typeof field.localhostProfile !== 'string' || annotation.slice('localhost/'.length) !== field.localhostProfile) {
        return forbidden(p.child('localhostProfile'), 'seccomp profile in annotation and field must match');
      }
      return undefined;
    default:
      return undefined;
  }
}

/** validateSeccompAnnotationsAndFields (create only). */
export function validateSeccompAnnotationsAndFields(annotations: J, spec: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const podField = obj(obj(spec.securityContext)?.seccompProfile);
  if (podField && SECCOMP_POD_ANNOTATION in annotations) {
    const e = seccompMatch(String(annotations[SECCOMP_POD_ANNOTATION]), podField, p.child('securityContext').child('seccompProfile'));
    if (e) errs.push(e);
  }
  for (const [c, cp] of containersWithPath(spec, p)) {
    const f = obj(obj(c.securityContext)?.seccompProfile);
    const key = SECCOMP_CONTAINER_PREFIX + s(c.name);
    if (!f || !(key in annotations)) continue;
    const e = seccompMatch(String(annotations[key]), f, cp.child('securityContext').child('seccompProfile'));
    if (e) errs.push(e);
  }
  return errs;
}

/**
 * validatePodMetadataAndSpec without ObjectMeta (the generic store validates metadata): the
 * pod annotations, the spec, serviceAccountToken projections without a service account, images.
 */
export function validatePodMetadataAndSpec(pod: KubeObject, opts: PodValidationOptions, volumes: VolumesValidator): FieldError[] {
  const spec = obj(pod.spec) ?? {};
  const annotations = obj(pod.metadata.annotations) ?? {};
  const errs = [...validatePodAnnotations(annotations, spec, new FieldPath('metadata').child('annotations'), opts), ...validatePodSpec(spec, pod.metadata as J, specPath, opts, volumes)];
  if (!s(spec.serviceAccountName)) {
    list(spec.volumes).forEach((v, vi) => {
      list(obj(v.projected)?.sources).forEach((src, si) => {
        if (obj(src.serviceAccountToken)) {
          errs.push(forbidden(specPath.child('volumes').index(vi).child('projected').child('sources').index(si).child('serviceAccountToken'), 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  errs.push(...validateContainersOnlyForPod(list(spec.containers), specPath.child('containers')));
  errs.push(...validateContainersOnlyForPod(list(spec.initContainers), specPath.child('initContainers')));
  return errs;
}

/** ValidatePodCreate (ObjectMeta aside). */
export function validatePodCreate(pod: KubeObject, volumes: VolumesValidator, opts: PodValidationOptions = DEFAULT_POD_VALIDATION_OPTIONS): FieldError[] {
  const errs = validatePodMetadataAndSpec(pod, opts, volumes);
  const spec = obj(pod.spec) ?? {};
  if (list(spec.ephemeralContainers).length) errs.push(forbidden(specPath.child('ephemeralContainers'), 'cannot be set on create'));
  errs.push(...validateSeccompAnnotationsAndFields(obj(pod.metadata.annotations) ?? {}, spec, specPath));
  return errs;
}
