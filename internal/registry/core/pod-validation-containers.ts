/**
 * Container validation of a Pod, ported from k8s.io/kubernetes 1.24 pkg/apis/core/validation
 * (validateContainers, validateInitContainers, validateEphemeralContainers and what they call:
 * ports, env, envFrom, volume mounts and devices, probes, lifecycle handlers, pull policy,
 * resources, security context). Messages and field paths are kube's; errors come in kube's order.
 */
import { type FieldError, FieldPath, duplicate, forbidden, invalid, notFoundValue, notSupported, required } from '../../api/field-errors.ts';
import { IS_NEGATIVE_ERROR_MSG } from '../../validation/objectmeta.ts';
import { isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, regexError } from '../../validation/names.ts';
import { SUPPORTED_PROTOCOLS, isValidPortName, isValidPortNum } from '../../validation/network.ts';
import { validateResourceRequirements } from './pod-resources.ts';
import { CONTAINER_RESOURCE_FIELD_PATHS, CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES, ENV_DOWNWARD_API_FIELD_PATHS, validateContainerResourceFieldSelector, validateObjectFieldSelector } from './volumes/index.ts';
import { type J, list, n, obj, s } from './pod-util.ts';
import { goLifecycle, goProbe, goSeccompProfile, goSecurityContext } from './pod-govalue.ts';

/** Volume name → its source member (`persistentVolumeClaim`, `emptyDir`, …): ValidateVolumes' map of valid volumes. */
export type VolumeMap = Map<string, string>;

/** PodValidationOptions (pkg/api/pod GetValidationOptionsFromPodSpecAndMeta), 1.24 defaults. */
export interface PodValidationOptions {
  allowDownwardAPIHugePages: boolean;
  allowInvalidPodDeletionCost: boolean;
  allowIndivisibleHugePagesValues: boolean;
  allowWindowsHostProcessField: boolean;
  allowExpandedDNSConfig: boolean;
  allowOSField: boolean;
  allowSysctlRegexContainSlash: boolean;
}

// ---------------------------------------------------------------- small validators

const ENV_VAR_NAME_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_NAME_RE = new RegExp(`^${ENV_VAR_NAME_FMT}$`);
const HTTP_HEADER_NAME_FMT = '[-A-Za-z0-9]+';
const HTTP_HEADER_NAME_RE = new RegExp(`^${HTTP_HEADER_NAME_FMT}$`);

/** validation.IsEnvVarName (also refuses `.` and `..`, and names starting with `..`). */
export function isEnvVarName(v: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_NAME_RE.test(v)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        ENV_VAR_NAME_FMT,
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  if (v === '.') errs.push(`must not be '.'`);
  else if (v === '..') errs.push(`must not be '..'`);
  else if (v.startsWith('..')) errs.push(`must not start with '..'`);
  return errs;
}

/** validation.IsValidUserID / IsValidGroupID: 0 … 2147483647. */
export const idRangeErrors = (v: number): string[] => (v >= 0 && v <= 2147483647 ? [] : ['must be between 0 and 2147483647, inclusive']);

/** validateLocalDescendingPath: relative, no `..` element. */
export function validateLocalDescendingPath(target: string, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalid(p, target, 'must be a relative path'));
  return [...errs, ...validatePathNoBacksteps(target, p)];
}

/** validatePathNoBacksteps. */
export function validatePathNoBacksteps(target: string, p: FieldPath): FieldError[] {
  return target.split('/').includes('..') ? [invalid(p, target, "must not contain '..'")] : [];
}

/** ValidateNonnegativeField. */
const nonNegative = (v: number, p: FieldPath): FieldError[] => (v < 0 ? [invalid(p, v, IS_NEGATIVE_ERROR_MSG)] : []);

/** Go's %v of an IntOrString port. */
function validatePortNumOrName(port: unknown, p: FieldPath): FieldError[] {
  if (typeof port === 'number') return isValidPortNum(port).map((m) => invalid(p, port, m));
  if (typeof port === 'string') return isValidPortName(port).map((m) => invalid(p, port, m));
  return isValidPortNum(0).map((m) => invalid(p, 0, m));
}

// ---------------------------------------------------------------- handlers and probes

/** validateHandler: exactly one of exec/httpGet/tcpSocket(/grpc for probes). */
function validateHandler(h: J, p: FieldPath, withGRPC: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let count = 0;
  const one = (key: string, check: (v: J) => FieldError[]): void => {
    const v = obj(h[key]);
    if (!v) return;
    if (count > 0) errs.push(forbidden(p.child(key), 'may not specify more than 1 handler type'));
    else {
      count++;
      errs.push(...check(v));
    }
  };
  one('exec', (v) => (list(v.command).length === 0 ? [required(p.child('exec').child('command'))] : []));
  one('httpGet', (v) => {
    const hp = p.child('httpGet');
    const out: FieldError[] = [];
    if (!s(v.path)) out.push(required(hp.child('path')));
    out.push(...validatePortNumOrName(v.port, hp.child('port')));
    if (s(v.scheme) !== 'HTTP' && s(v.scheme) !== 'HTTPS') out.push(notSupported(hp.child('scheme'), s(v.scheme), ['HTTP', 'HTTPS']));
    for (const header of list(v.httpHeaders)) {
      if (!HTTP_HEADER_NAME_RE.test(s(header.name))) {
        out.push(invalid(hp.child('httpHeaders'), s(header.name), regexError("a valid HTTP header must consist of alphanumeric characters or '-'", HTTP_HEADER_NAME_FMT, 'X-Header-Name')));
      }
    }
    return out;
  });
  one('tcpSocket', (v) => validatePortNumOrName(v.port, p.child('tcpSocket').child('port')));
  if (withGRPC) one('grpc', (v) => validatePortNumOrName(n(v.port), p.child('grpc').child('port')));
  if (count === 0) errs.push(required(p, 'must specify a handler type'));
  return errs;
}

/** validateProbe. */
function validateProbe(probe: J | undefined, p: FieldPath): FieldError[] {
  if (!probe) return [];
  const errs = validateHandler(probe, p, true);
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) errs.push(...nonNegative(n(probe[f]), p.child(f)));
  if (typeof probe.terminationGracePeriodSeconds === 'number' && probe.terminationGracePeriodSeconds <= 0) {
    errs.push(invalid(p.child('terminationGracePeriodSeconds'), probe.terminationGracePeriodSeconds, 'must be greater than 0'));
  }
  return errs;
}

/** validateLifecycle. */
function validateLifecycle(lc: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (obj(lc.postStart)) errs.push(...validateHandler(lc.postStart, p.child('postStart'), false));
  if (obj(lc.preStop)) errs.push(...validateHandler(lc.preStop, p.child('preStop'), false));
  return errs;
}

// ---------------------------------------------------------------- ports, env

/** validateContainerPorts. */
function validateContainerPorts(ports: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const ip = p.index(i);
    const name = s(port.name);
    if (name) {
      const msgs = isValidPortName(name);
      if (msgs.length) errs.push(...msgs.map((m) => invalid(ip.child('name'), name, m)));
      else if (names.has(name)) errs.push(duplicate(ip.child('name'), name));
      else names.add(name);
    }
    if (!n(port.containerPort)) errs.push(required(ip.child('containerPort')));
    else errs.push(...isValidPortNum(n(port.containerPort)).map((m) => invalid(ip.child('containerPort'), port.containerPort, m)));
    if (n(port.hostPort)) errs.push(...isValidPortNum(n(port.hostPort)).map((m) => invalid(ip.child('hostPort'), port.hostPort, m)));
    if (!s(port.protocol)) errs.push(required(ip.child('protocol')));
    else if (!SUPPORTED_PROTOCOLS.includes(s(port.protocol))) errs.push(notSupported(ip.child('protocol'), s(port.protocol), SUPPORTED_PROTOCOLS));
  });
  return errs;
}

/** validateConfigMapKeySelector / validateSecretKeySelector. */
function validateKeySelector(sel: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = s(sel.name);
  if (name) errs.push(...isDNS1123Subdomain(name).map((m) => invalid(p.child('name'), name, m)));
  const key = s(sel.key);
  if (!key) errs.push(required(p.child('key')));
  else errs.push(...isConfigMapKey(key).map((m) => invalid(p.child('key'), key, m)));
  return errs;
}

/** ValidateEnv. */
function validateEnv(vars: J[], p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  vars.forEach((ev, i) => {
    const ip = p.index(i);
    const name = s(ev.name);
    if (!name) errs.push(required(ip.child('name')));
    else errs.push(...isEnvVarName(name).map((m) => invalid(ip.child('name'), name, m)));
    const vf = obj(ev.valueFrom);
    if (!vf) return;
    const vp = ip.child('valueFrom');
    let sources = 0;
    if (obj(vf.fieldRef)) {
      sources++;
      errs.push(...validateObjectFieldSelector(vf.fieldRef, ENV_DOWNWARD_API_FIELD_PATHS, vp.child('fieldRef')));
    }
    if (obj(vf.resourceFieldRef)) {
      sources++;
      const prefixes = opts.allowDownwardAPIHugePages ? CONTAINER_RESOURCE_PREFIXES_WITH_HUGEPAGES : new Set<string>();
      errs.push(...validateContainerResourceFieldSelector(vf.resourceFieldRef, CONTAINER_RESOURCE_FIELD_PATHS, prefixes, vp.child('resourceFieldRef'), false));
    }
    if (obj(vf.configMapKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(vf.configMapKeyRef, vp.child('configMapKeyRef')));
    }
    if (obj(vf.secretKeyRef)) {
      sources++;
      errs.push(...validateKeySelector(vf.secretKeyRef, vp.child('secretKeyRef')));
    }
    if (sources === 0) errs.push(invalid(vp, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
    else if (s(ev.value)) errs.push(invalid(vp, '', 'may not be specified when `value` is not empty'));
    else if (sources > 1) errs.push(invalid(vp, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

/** ValidateEnvFrom. */
function validateEnvFrom(vars: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  vars.forEach((ev, i) => {
    const ip = p.index(i);
    const prefix = s(ev.prefix);
    if (prefix) errs.push(...isEnvVarName(prefix).map((m) => invalid(ip.child('prefix'), prefix, m)));
    let sources = 0;
    for (const key of ['configMapRef', 'secretRef']) {
      const ref = obj(ev[key]);
      if (!ref) continue;
      sources++;
      const name = s(ref.name);
      if (!name) errs.push(required(ip.child(key).child('name')));
      else errs.push(...isDNS1123Subdomain(name).map((m) => invalid(ip.child(key).child('name'), name, m)));
    }
    if (sources === 0) errs.push(invalid(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) errs.push(invalid(p, '', 'may not have more than one field specified at a time'));
  });
  return errs;
}

// ---------------------------------------------------------------- mounts and devices

/** ValidateVolumeMounts. */
function validateVolumeMounts(mounts: J[], devices: Map<string, string>, volumes: VolumeMap, ctr: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const points = new Set<string>();
  const devicePaths = new Set(devices.values());
  mounts.forEach((m, i) => {
    const ip = p.index(i);
    const name = s(m.name);
    const mountPath = s(m.mountPath);
    if (!name) errs.push(required(ip.child('name')));
    if (!volumes.has(name)) errs.push(notFoundValue(ip.child('name'), name));
    if (!mountPath) errs.push(required(ip.child('mountPath')));
    if (points.has(mountPath)) errs.push(invalid(ip.child('mountPath'), mountPath, 'must be unique'));
    points.add(mountPath);
    if (devices.has(name)) errs.push(invalid(ip.child('name'), name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(mountPath)) errs.push(invalid(ip.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    // kube reports subPath problems on the list's path (fldPath.Child("subPath")), not the item's.
    if (s(m.subPath)) errs.push(...validateLocalDescendingPath(s(m.subPath), p.child('subPath')));
    if (s(m.subPathExpr)) {
      if (s(m.subPath)) errs.push(invalid(ip.child('subPathExpr'), s(m.subPathExpr), 'subPathExpr and subPath are mutually exclusive'));
      errs.push(...validateLocalDescendingPath(s(m.subPathExpr), p.child('subPathExpr')));
    }
    if (m.mountPropagation !== undefined && m.mountPropagation !== null) {
      const mp = s(m.mountPropagation);
      const pp = p.child('mountPropagation');
      const supported = ['Bidirectional', 'HostToContainer', 'None'];
      if (!supported.includes(mp)) errs.push(notSupported(pp, mp, supported));
      const privileged = obj(ctr.securityContext)?.privileged === true;
      if (mp === 'Bidirectional' && !privileged) errs.push(forbidden(pp, 'Bidirectional mount propagation is available only to privileged containers'));
    }
  });
  return errs;
}

/** ValidateVolumeDevices. */
function validateVolumeDevices(devices: J[], mounts: Map<string, string>, volumes: VolumeMap, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const paths = new Set<string>();
  const names = new Set<string>();
  const mountPaths = new Set(mounts.values());
  devices.forEach((d, i) => {
    const ip = p.index(i);
    const name = s(d.name);
    const devPath = s(d.devicePath);
    const source = volumes.get(name);
    const isPVC = source === 'persistentVolumeClaim' || source === 'ephemeral';
    if (!name) errs.push(required(ip.child('name')));
    if (names.has(name)) errs.push(invalid(ip.child('name'), name, 'must be unique'));
    if (source && !isPVC) errs.push(invalid(ip.child('name'), name, 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode'));
    if (!source) errs.push(notFoundValue(ip.child('name'), name));
    if (!devPath) errs.push(required(ip.child('devicePath')));
    if (paths.has(devPath)) errs.push(invalid(ip.child('devicePath'), devPath, 'must be unique'));
    if (devPath && validatePathNoBacksteps(devPath, p).length) errs.push(invalid(ip.child('devicePath'), devPath, "can not contain backsteps ('..')"));
    else paths.add(devPath);
    if (mounts.has(name)) errs.push(invalid(ip.child('name'), name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(devPath)) errs.push(invalid(ip.child('devicePath'), devPath, 'must not already exist as a path in volumeMounts'));
    if (name) names.add(name);
  });
  return errs;
}

// ---------------------------------------------------------------- security context

/** validateSeccompProfileField. */
export function validateSeccompProfile(sp: J | undefined, p: FieldPath): FieldError[] {
  if (!sp) return [];
  const errs: FieldError[] = [];
  const type = s(sp.type);
  const tp = p.child('type');
  if (!type) errs.push(required(tp, 'type is required when seccompProfile is set'));
  else if (!['Localhost', 'RuntimeDefault', 'Unconfined'].includes(type)) errs.push(notSupported(tp, type, ['Localhost', 'RuntimeDefault', 'Unconfined']));
  if (type === 'Localhost') {
    if (typeof sp.localhostProfile !== 'string') errs.push(required(p.child('localhostProfile'), 'must be set when seccomp type is Localhost'));
    else errs.push(...validateLocalDescendingPath(sp.localhostProfile, p.child('localhostProfile')));
  } else if (typeof sp.localhostProfile === 'string') {
    errs.push(invalid(p.child('localhostProfile'), goSeccompProfile(sp), 'can only be set when seccomp type is Localhost'));
  }
  return errs;
}

/**
 * ValidateSecurityContext (container level). kube-apiserver's --allow-privileged defaults to false,
 * and this server has no such flag: privileged containers are refused, as the reference does.
 */
function validateSecurityContext(sc: J | undefined, p: FieldPath): FieldError[] {
  if (!sc) return [];
  const errs: FieldError[] = [];
  if (sc.privileged === true) errs.push(forbidden(p.child('privileged'), 'disallowed by cluster policy'));
  if (typeof sc.runAsUser === 'number') errs.push(...idRangeErrors(sc.runAsUser).map((m) => invalid(p.child('runAsUser'), sc.runAsUser, m)));
  if (typeof sc.runAsGroup === 'number') errs.push(...idRangeErrors(sc.runAsGroup).map((m) => invalid(p.child('runAsGroup'), sc.runAsGroup, m)));
  if (typeof sc.procMount === 'string' && sc.procMount !== 'Default' && sc.procMount !== 'Unmasked') {
    errs.push(notSupported(p.child('procMount'), sc.procMount, ['Default', 'Unmasked']));
  }
  errs.push(...validateSeccompProfile(obj(sc.seccompProfile), p.child('seccompProfile')));
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) errs.push(invalid(p, goSecurityContext(sc), 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    for (const cap of list(obj(sc.capabilities)?.add)) {
      if (String(cap) === 'CAP_SYS_ADMIN') errs.push(invalid(p, goSecurityContext(sc), 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  return errs;
}

// ---------------------------------------------------------------- containers

const volumeMountMap = (c: J): Map<string, string> => new Map(list(c.volumeMounts).map((m) => [s(m.name), s(m.mountPath)]));
const volumeDeviceMap = (c: J): Map<string, string> => new Map(list(c.volumeDevices).map((d) => [s(d.name), s(d.devicePath)]));

/** AccumulateUniqueHostPorts / checkHostPortConflicts. */
function checkHostPortConflicts(containers: J[], p: FieldPath): FieldError[] {
  const seen = new Set<string>();
  const errs: FieldError[] = [];
  containers.forEach((c, ci) => {
    list(c.ports).forEach((port, pi) => {
      if (!n(port.hostPort)) return;
      const key = `${s(port.protocol)}/${s(port.hostIP)}/${n(port.hostPort)}`;
      if (seen.has(key)) errs.push(duplicate(p.index(ci).child('ports').index(pi).child('hostPort'), key));
      else seen.add(key);
    });
  });
  return errs;
}

/** The per-container checks of validateContainers (one container at `ip`). */
function validateOneContainer(ctr: J, volumes: VolumeMap, ip: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (!s(ctr.image)) errs.push(required(ip.child('image')));
  if (obj(ctr.lifecycle)) errs.push(...validateLifecycle(ctr.lifecycle, ip.child('lifecycle')));
  errs.push(...validateProbe(obj(ctr.livenessProbe), ip.child('livenessProbe')));
  const readiness = obj(ctr.readinessProbe);
  if (readiness && typeof readiness.terminationGracePeriodSeconds === 'number') {
    errs.push(invalid(ip.child('readinessProbe').child('terminationGracePeriodSeconds'), readiness.terminationGracePeriodSeconds, 'must not be set for readinessProbes'));
  }
  errs.push(...validateProbe(obj(ctr.startupProbe), ip.child('startupProbe')));
  const liveness = obj(ctr.livenessProbe);
  if (liveness && n(liveness.successThreshold) !== 1) errs.push(invalid(ip.child('livenessProbe').child('successThreshold'), n(liveness.successThreshold), 'must be 1'));
  // kube validates the startup probe twice (a duplicated line in 1.24), so its errors appear twice.
  errs.push(...validateProbe(obj(ctr.startupProbe), ip.child('startupProbe')));
  const startup = obj(ctr.startupProbe);
  if (startup && n(startup.successThreshold) !== 1) errs.push(invalid(ip.child('startupProbe').child('successThreshold'), n(startup.successThreshold), 'must be 1'));
  const tmp = s(ctr.terminationMessagePolicy);
  if (!tmp) errs.push(required(ip.child('terminationMessagePolicy'), "must be 'File' or 'FallbackToLogsOnError'"));
  else if (tmp !== 'File' && tmp !== 'FallbackToLogsOnError') errs.push(invalid(ip.child('terminationMessagePolicy'), tmp, "must be 'File' or 'FallbackToLogsOnError'"));
  errs.push(...validateProbe(readiness, ip.child('readinessProbe')));
  errs.push(...validateContainerPorts(list(ctr.ports), ip.child('ports')));
  errs.push(...validateEnv(list(ctr.env), ip.child('env'), opts));
  errs.push(...validateEnvFrom(list(ctr.envFrom), ip.child('envFrom')));
  errs.push(...validateVolumeMounts(list(ctr.volumeMounts), volumeDeviceMap(ctr), volumes, ctr, ip.child('volumeMounts')));
  errs.push(...validateVolumeDevices(list(ctr.volumeDevices), volumeMountMap(ctr), volumes, ip.child('volumeDevices')));
  const pull = s(ctr.imagePullPolicy);
  if (!pull) errs.push(required(ip.child('imagePullPolicy')));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pull)) errs.push(notSupported(ip.child('imagePullPolicy'), pull, ['Always', 'IfNotPresent', 'Never']));
  errs.push(...validateResourceRequirements(obj(ctr.resources), ip.child('resources')));
  errs.push(...validateSecurityContext(obj(ctr.securityContext), ip.child('securityContext')));
  return errs;
}

/** validateContainers (regular or init containers). */
export function validateContainers(containers: J[], isInit: boolean, volumes: VolumeMap, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  if (!containers.length) return [required(p)];
  const errs: FieldError[] = [];
  const names = new Set<string>();
  containers.forEach((ctr, i) => {
    const ip = p.index(i);
    const name = s(ctr.name);
    if (!name) errs.push(required(ip.child('name')));
    else errs.push(...isDNS1123Label(name).map((m) => invalid(ip.child('name'), name, m)));
    if (names.has(name)) errs.push(duplicate(ip.child('name'), name));
    else names.add(name);
    errs.push(...validateOneContainer(ctr, volumes, ip, opts));
  });
  if (isInit) for (const c of containers) errs.push(...checkHostPortConflicts([c], p));
  else errs.push(...checkHostPortConflicts(containers, p));
  return errs;
}

/** validateInitContainers. */
export function validateInitContainers(containers: J[], others: J[], volumes: VolumeMap, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = containers.length ? validateContainers(containers, true, volumes, p, opts) : [];
  const names = new Set(others.map((c) => s(c.name)));
  containers.forEach((ctr, i) => {
    const ip = p.index(i);
    const name = s(ctr.name);
    if (names.has(name)) errs.push(duplicate(ip.child('name'), name));
    if (name) names.add(name);
    if (obj(ctr.lifecycle)) errs.push(invalid(ip.child('lifecycle'), goLifecycle(ctr.lifecycle), 'must not be set for init containers'));
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (obj(ctr[probe])) errs.push(invalid(ip.child(probe), goProbe(ctr[probe]), 'must not be set for init containers'));
    }
  });
  return errs;
}

/** EphemeralContainerCommon fields an ephemeral container may set (allowedEphemeralContainerFields). */
const EPHEMERAL_FORBIDDEN = ['ports', 'resources', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle'];

/** validateEphemeralContainers. */
export function validateEphemeralContainers(ephemeral: J[], containers: J[], inits: J[], volumes: VolumeMap, p: FieldPath, opts: PodValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  if (!ephemeral.length) return errs;
  const names = new Set([...containers, ...inits].map((c) => s(c.name)));
  ephemeral.forEach((ec, i) => {
    const ip = p.index(i);
    const target = s(ec.targetContainerName);
    if (target && !names.has(target)) errs.push(notFoundValue(ip.child('targetContainerName'), target));
    if (!s(ec.name)) {
      errs.push(required(ip, 'ephemeralContainer requires a name'));
      return;
    }
    errs.push(...validateContainers([ec], false, volumes, ip, opts));
    if (s(ec.image).trim().length !== s(ec.image).length) errs.push(invalid(ip.index(0).child('image'), s(ec.image), 'must not have leading or trailing whitespace'));
    if (names.has(s(ec.name))) errs.push(duplicate(ip.child('name'), s(ec.name)));
    else names.add(s(ec.name));
    for (const f of EPHEMERAL_FORBIDDEN) {
      const v = ec[f];
      const zero = v === undefined || v === null || (f === 'resources' && Object.keys(obj(v) ?? {}).every((k) => !Object.keys(obj(obj(v)![k]) ?? {}).length)) || (Array.isArray(v) && !v.length);
      if (!zero) errs.push(forbidden(ip.child(f), 'cannot be set for an Ephemeral Container'));
    }
    list(ec.volumeMounts).forEach((vm, j) => {
      if (s(vm.subPath)) errs.push(forbidden(ip.child('volumeMounts').index(j).child('subPath'), 'cannot be set for an Ephemeral Container'));
      if (s(vm.subPathExpr)) errs.push(forbidden(ip.child('volumeMounts').index(j).child('subPathExpr'), 'cannot be set for an Ephemeral Container'));
    });
  });
  return errs;
}

/** validateContainersOnlyForPod: images without surrounding whitespace. */
export function validateContainersOnlyForPod(containers: J[], p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  containers.forEach((c, i) => {
    const image = s(c.image);
    if (image.trim().length !== image.length) errs.push(invalid(p.index(i).child('image'), image, 'must not have leading or trailing whitespace'));
  });
  return errs;
}

export { FieldPath };
