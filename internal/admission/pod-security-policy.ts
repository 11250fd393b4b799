/**
 * The Pod Security Standards checks of k8s.io/pod-security-admission v0.24 (policy/check_*.go):
 * baseline and restricted, each check in the versions it has (the newest, v1.23, serves `latest`
 * and every later version), evaluated in kube's order (baseline check IDs sorted, then restricted
 * ones; a restricted check replaces the baseline check it overrides) with kube's reasons and
 * details, and the namespace label policy (api/helpers.go PolicyToEvaluate).
 */
import { type FieldError, FieldPath, invalid } from '../api/field-errors.ts';
import { goQuote } from '../gocompat/quote.ts';
import { type J, list, obj, s } from '../registry/core/pod-util.ts';

export type Level = 'privileged' | 'baseline' | 'restricted';
/** A policy version: `latest`, or v1.<minor>. */
export type Version = { latest: true } | { latest: false; minor: number };

export interface LevelVersion {
  level: Level;
  version: Version;
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const versionString = (v: Version): string => (v.latest ? 'latest' : `v1.${v.minor}`);
export const levelVersionString = (lv: LevelVersion): string => `${lv.level}:${versionString(lv.version)}`;
export const sameLevelVersion = (a: LevelVersion, b: LevelVersion): boolean => a.level === b.level && versionString(a.version) === versionString(b.version);

const LABEL_PREFIX = 'pod-security.kubernetes.io/';
const LEVELS: Level[] = ['privileged', 'baseline', 'restricted'];
const LATEST: Version = { latest: true };

/** kube-apiserver's default PodSecurity configuration: privileged:latest for every mode. */
export const DEFAULT_POLICY: Policy = { enforce: { level: 'privileged', version: LATEST }, audit: { level: 'privileged', version: LATEST }, warn: { level: 'privileged', version: LATEST } };

/** CompareLevels. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/** api.ParseLevel: the level, or the error's text. */
export function parseLevel(v: string): Level | { error: string } {
  return (LEVELS as string[]).includes(v) ? (v as Level) : { error: `must be one of ${LEVELS.join(', ')}` };
}

/** api.ParseVersion: `latest` or v1.<minor>, or the error's text. */
export function parseVersion(v: string): Version | { error: string } {
  if (v === 'latest') return LATEST;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(v);
  return m && Number.isSafeInteger(Number(m[1])) ? { latest: false, minor: Number(m[1]) } : { error: 'must be "latest" or "v1.x"' };
}

/** PolicyToEvaluate: the namespace's labels over the defaults, and the label errors. */
export function policyToEvaluate(labels: Record<string, string> | undefined, defaults: Policy = DEFAULT_POLICY): { policy: Policy; errs: FieldError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errs: FieldError[] = [];
  if (!labels || Object.keys(labels).length === 0) return { policy: p, errs };
  const path = (label: string) => new FieldPath('metadata').child('labels').key(label);
  const level = (mode: keyof Policy, failOpen: boolean): void => {
    const label = `${LABEL_PREFIX}${mode}`;
    if (!(label in labels)) return;
    const v = labels[label]!;
    const parsed = parseLevel(v);
    if (typeof parsed === 'string') p[mode].level = parsed;
    else {
      errs.push(invalid(path(label), v, parsed.error));
      p[mode].level = failOpen ? 'privileged' : 'restricted';
    }
  };
  const version = (mode: keyof Policy): void => {
    const label = `${LABEL_PREFIX}${mode}-version`;
    if (!(label in labels)) return;
    const v = labels[label]!;
    const parsed = parseVersion(v);
    if (!('error' in parsed)) p[mode].version = parsed;
    else {
      errs.push(invalid(path(label), v, parsed.error));
      p[mode].version = LATEST;
    }
  };
  level('enforce', false);
  version('enforce');
  level('audit', true);
  version('audit');
  level('warn', true);
  version('warn');
  return { policy: p, errs };
}

interface CheckResult {
  reason: string;
  detail: string;
}
type CheckFn = (meta: J, spec: J) => CheckResult | undefined;

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** Versions by minimum minor version, increasing; `overrides` baseline checks it replaces. */
  versions: { min: number; fn: CheckFn; overrides?: string[] }[];
}

const joinQuote = (items: string[]): string => (items.length ? items.map(goQuote).join(', ') : '');
const plural = (singular: string, pluralForm: string, n: number): string => (n === 1 ? singular : pluralForm);
const containersNamed = (names: string[]): string => `${plural('container', 'containers', names.length)} ${joinQuote(names)}`;
const sortedSet = (set: Set<string>): string[] => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** visitContainers: init containers, containers, ephemeral containers. */
function containers(spec: J): J[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}
const sc = (c: J): J | undefined => obj(c.securityContext);
const podSc = (spec: J): J | undefined => obj(spec.securityContext);

const allowPrivilegeEscalation: CheckFn = (_m, spec) => {
  const bad = containers(spec)
    .filter((c) => sc(c)?.allowPrivilegeEscalation !== false)
    .map((c) => s(c.name));
  return bad.length ? { reason: 'allowPrivilegeEscalation != false', detail: `${containersNamed(bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
};

const appArmorProfile: CheckFn = (meta) => {
  const bad: string[] = [];
  for (const [k, v] of Object.entries(obj(meta.annotations) ?? {})) {
    const profile = String(v);
    if (k.startsWith('container.apparmor.security.beta.kubernetes.io/') && !(profile === '' || profile === 'runtime/default' || profile.startsWith('localhost/'))) bad.push(`${k}=${goQuote(profile)}`);
  }
  bad.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return bad.length ? { reason: plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', bad.length), detail: bad.join(', ') } : undefined;
};

const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

const capabilitiesBaseline: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const capabilities = obj(sc(c)?.capabilities);
    if (!capabilities) continue;
    let valid = true;
    for (const cap of list(capabilities.add).map(String)) {
      if (BASELINE_CAPABILITIES.has(cap)) continue;
      valid = false;
      caps.add(cap);
    }
    if (!valid) bad.push(s(c.name));
  }
  return bad.length ? { reason: 'non-default capabilities', detail: `${containersNamed(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add` } : undefined;
};

const capabilitiesRestricted: CheckFn = (_m, spec) => {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const capabilities = obj(sc(c)?.capabilities);
    if (!capabilities) {
      missingDrop.push(s(c.name));
      continue;
    }
    if (!list(capabilities.drop).map(String).includes('ALL')) missingDrop.push(s(c.name));
    let forbidden = false;
    for (const cap of list(capabilities.add).map(String)) {
      if (cap === 'NET_BIND_SERVICE') continue;
      forbidden = true;
      caps.add(cap);
    }
    if (forbidden) adding.push(s(c.name));
  }
  const details: string[] = [];
  if (missingDrop.length) details.push(`${containersNamed(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${containersNamed(adding)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
};

const hostNamespaces: CheckFn = (_m, spec) => {
  const host: string[] = [];
  if (spec.hostNetwork === true) host.push('hostNetwork=true');
  if (spec.hostPID === true) host.push('hostPID=true');
  if (spec.hostIPC === true) host.push('hostIPC=true');
  return host.length ? { reason: 'host namespaces', detail: host.join(', ') } : undefined;
};

const hostPathVolumes: CheckFn = (_m, spec) => {
  const bad = list(spec.volumes)
    .filter((v) => obj(v.hostPath))
    .map((v) => s(v.name));
  return bad.length ? { reason: 'hostPath volumes', detail: `${plural('volume', 'volumes', bad.length)} ${joinQuote(bad)}` } : undefined;
};

const hostPorts: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containers(spec)) {
    let valid = true;
    for (const p of list(c.ports)) {
      if (typeof p.hostPort === 'number' && p.hostPort !== 0) {
        valid = false;
        ports.add(String(p.hostPort));
      }
    }
    if (!valid) bad.push(s(c.name));
  }
  return bad.length
    ? { reason: 'hostPort', detail: `${containersNamed(bad)} ${plural('uses', 'use', bad.length)} ${plural('hostPort', 'hostPorts', ports.size)} ${sortedSet(ports).join(', ')}` }
    : undefined;
};

const privileged: CheckFn = (_m, spec) => {
  const bad = containers(spec)
    .filter((c) => sc(c)?.privileged === true)
    .map((c) => s(c.name));
  return bad.length ? { reason: 'privileged', detail: `${containersNamed(bad)} must not set securityContext.privileged=true` } : undefined;
};

const procMount: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const c of containers(spec)) {
    const pm = sc(c)?.procMount;
    if (typeof pm !== 'string' || pm === 'Default') continue;
    bad.push(s(c.name));
    types.add(pm);
  }
  return bad.length ? { reason: 'procMount', detail: `${containersNamed(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}` } : undefined;
};

const ALLOWED_VOLUMES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
/** The restricted volume types in the order restrictedVolumes_1_0 tests them, with the names it reports. */
const RESTRICTED_VOLUMES: [field: string, name: string][] = [
  ['hostPath', 'hostPath'], ['gcePersistentDisk', 'gcePersistentDisk'], ['awsElasticBlockStore', 'awsElasticBlockStore'], ['gitRepo', 'gitRepo'], ['nfs', 'nfs'],
  ['iscsi', 'iscsi'], ['glusterfs', 'glusterfs'], ['rbd', 'rbd'], ['flexVolume', 'flexVolume'], ['cinder', 'cinder'], ['cephfs', 'cephfs'], ['flocker', 'flocker'],
  ['fc', 'fc'], ['azureFile', 'azureFile'], ['vsphereVolume', 'vsphereVolume'], ['quobyte', 'quobyte'], ['azureDisk', 'azureDisk'],
  ['photonPersistentDisk', 'photonPersistentDisk'], ['portworxVolume', 'portworxVolume'], ['scaleIO', 'scaleIO'], ['storageos', 'storageos'],
];

const restrictedVolumes: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of list(spec.volumes)) {
    if (ALLOWED_VOLUMES.some((f) => obj(v[f]))) continue;
    bad.push(s(v.name));
    types.add(RESTRICTED_VOLUMES.find(([f]) => obj(v[f]))?.[1] ?? 'unknown');
  }
  return bad.length
    ? {
        reason: 'restricted volume types',
        detail: `${plural('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${plural('uses', 'use', bad.length)} ${plural('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sortedSet(types))}`,
      }
    : undefined;
};

const runAsNonRoot: CheckFn = (_m, spec) => {
  const badSetters: string[] = [];
  let podNonRoot = false;
  const podValue = podSc(spec)?.runAsNonRoot;
  if (typeof podValue === 'boolean') {
    if (!podValue) badSetters.push('pod');
    else podNonRoot = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = sc(c)?.runAsNonRoot;
    if (typeof v === 'boolean') {
      if (!v) explicit.push(s(c.name));
    } else if (!podNonRoot) implicit.push(s(c.name));
  }
  if (explicit.length) badSetters.push(containersNamed(explicit));
  if (badSetters.length) return { reason: 'runAsNonRoot != true', detail: `${badSetters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${containersNamed(implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
};

const runAsUser: CheckFn = (_m, spec) => {
  const badSetters: string[] = [];
  if (podSc(spec)?.runAsUser === 0) badSetters.push('pod');
  const bad = containers(spec)
    .filter((c) => sc(c)?.runAsUser === 0)
    .map((c) => s(c.name));
  if (bad.length) badSetters.push(containersNamed(bad));
  return badSetters.length ? { reason: 'runAsUser=0', detail: `${badSetters.join(' and ')} must not set runAsUser=0` } : undefined;
};

const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

const seLinuxOptions: CheckFn = (_m, spec) => {
  const badSetters: string[] = [];
  const badTypes = new Set<string>();
  let setUser = false;
  let setRole = false;
  const valid = (o: J): boolean => {
    let ok = true;
    const type = s(o.type);
    if (!SELINUX_TYPES.has(type)) {
      ok = false;
      badTypes.add(type);
    }
    if (s(o.user)) {
      ok = false;
      setUser = true;
    }
    if (s(o.role)) {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const podOpts = obj(podSc(spec)?.seLinuxOptions);
  if (podOpts && !valid(podOpts)) badSetters.push('pod');
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const opts = obj(sc(c)?.seLinuxOptions);
    if (opts && !valid(opts)) bad.push(s(c.name));
  }
  if (bad.length) badSetters.push(containersNamed(bad));
  if (!badSetters.length) return undefined;
  const data: string[] = [];
  if (badTypes.size) {
    data.push(`${plural('type', 'types', badTypes.size)} ${joinQuote(sortedSet(badTypes))}`);
    if (setUser) data.push('user may not be set');
    if (setRole) data.push('role may not be set');
  }
  return { reason: 'seLinuxOptions', detail: `${badSetters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
};

const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
const validSeccomp = (t: unknown): boolean => t === 'Localhost' || t === 'RuntimeDefault';
const validSeccompAnnotation = (v: string): boolean => v === 'runtime/default' || v === 'docker/default' || v.startsWith('localhost/');

const seccompBaseline_1_0: CheckFn = (meta, spec) => {
  const annotations = obj(meta.annotations) ?? {};
  const bad = new Set<string>();
  if (SECCOMP_POD_ANNOTATION in annotations && !validSeccompAnnotation(String(annotations[SECCOMP_POD_ANNOTATION]))) bad.add(`${SECCOMP_POD_ANNOTATION}=${goQuote(String(annotations[SECCOMP_POD_ANNOTATION]))}`);
  for (const c of containers(spec)) {
    const key = SECCOMP_CONTAINER_PREFIX + s(c.name);
    if (key in annotations && !validSeccompAnnotation(String(annotations[key]))) bad.add(`${key}=${goQuote(String(annotations[key]))}`);
  }
  return bad.size ? { reason: 'seccompProfile', detail: `forbidden ${plural('annotation', 'annotations', bad.size)} ${sortedSet(bad).join(', ')}` } : undefined;
};

/** seccompProfileBaseline_1_19 (`requireSet` false) and seccompProfileRestricted_1_19 (true). */
const seccomp =
  (requireSet: boolean): CheckFn =>
  (_m, spec) => {
    const badSetters: string[] = [];
    const badValues = new Set<string>();
    let podSet = false;
    const podProfile = obj(podSc(spec)?.seccompProfile);
    if (podProfile) {
      if (!validSeccomp(podProfile.type)) {
        badSetters.push('pod');
        badValues.add(s(podProfile.type));
      } else podSet = true;
    }
    const explicit: string[] = [];
    const implicit: string[] = [];
    for (const c of containers(spec)) {
      const profile = obj(sc(c)?.seccompProfile);
      if (profile) {
        if (!validSeccomp(profile.type)) {
          explicit.push(s(c.name));
          badValues.add(s(profile.type));
        }
      } else if (!podSet) implicit.push(s(c.name));
    }
    if (explicit.length) badSetters.push(containersNamed(explicit));
    if (badSetters.length) return { reason: 'seccompProfile', detail: `${badSetters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(badValues))}` };
    if (requireSet && implicit.length) return { reason: 'seccompProfile', detail: `pod or ${containersNamed(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
    return undefined;
  };

const SYSCTLS = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);

const sysctls: CheckFn = (_m, spec) => {
  const bad = list(podSc(spec)?.sysctls)
    .map((x) => s(x.name))
    .filter((n) => !SYSCTLS.has(n));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
};

const windowsHostProcess: CheckFn = (_m, spec) => {
  const hostProcess = (o: J | undefined): boolean => obj(o?.windowsOptions)?.hostProcess === true;
  const setters: string[] = [];
  if (hostProcess(podSc(spec))) setters.push('pod');
  const bad = containers(spec)
    .filter((c) => hostProcess(sc(c)))
    .map((c) => s(c.name));
  if (bad.length) setters.push(containersNamed(bad));
  return setters.length ? { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
};

const CHECKS: Check[] = [
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [{ min: 8, fn: allowPrivilegeEscalation }] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ min: 0, fn: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ min: 0, fn: capabilitiesBaseline }] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [{ min: 22, fn: capabilitiesRestricted, overrides: ['capabilities_baseline'] }] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ min: 0, fn: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ min: 0, fn: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ min: 0, fn: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ min: 0, fn: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ min: 0, fn: procMount }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ min: 0, fn: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ min: 0, fn: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ min: 23, fn: runAsUser }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ min: 0, fn: seLinuxOptions }] },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    versions: [
      { min: 0, fn: seccompBaseline_1_0 },
      { min: 19, fn: seccomp(false) },
    ],
  },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [{ min: 19, fn: seccomp(true), overrides: ['seccompProfile_baseline'] }] },
  { id: 'sysctls', level: 'baseline', versions: [{ min: 0, fn: sysctls }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ min: 0, fn: windowsHostProcess }] },
];

/** The newest version any check has (checkRegistry.maxVersion): later versions evaluate as it. */
const MAX_MINOR = Math.max(...CHECKS.flatMap((c) => c.versions.map((v) => v.min)));
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const ORDERED: Check[] = [...CHECKS.filter((c) => c.level === 'baseline').sort((a, b) => byteOrder(a.id, b.id)), ...CHECKS.filter((c) => c.level === 'restricted').sort((a, b) => byteOrder(a.id, b.id))];

/** The version of a check in force at `minor`, if any. */
const versionAt = (c: Check, minor: number) => [...c.versions].reverse().find((v) => v.min <= minor);

const cache = new Map<string, CheckFn[]>();

/** checkRegistry's functions for a level and version (populate), built once per pair. */
function checksFor(level: 'baseline' | 'restricted', version: Version): CheckFn[] {
  const minor = version.latest || version.minor > MAX_MINOR ? MAX_MINOR : version.minor;
  const key = `${level}:${minor}`;
  let fns = cache.get(key);
  if (fns) return fns;
  const overridden = new Set(level === 'restricted' ? CHECKS.filter((c) => c.level === 'restricted').flatMap((c) => versionAt(c, minor)?.overrides ?? []) : []);
  fns = [];
  for (const c of ORDERED) {
    if (level === 'baseline' && c.level !== 'baseline') continue;
    if (overridden.has(c.id)) continue;
    const v = versionAt(c, minor);
    if (v) fns.push(v.fn);
  }
  cache.set(key, fns);
  return fns;
}

/** AggregateCheckResult. */
export interface Evaluation {
  allowed: boolean;
  reasons: string[];
  details: string[];
}

/** EvaluatePod + AggregateCheckResults. */
export function evaluatePod(lv: LevelVersion, meta: J, spec: J): Evaluation {
  if (lv.level === 'privileged') return { allowed: true, reasons: [], details: [] };
  const reasons: string[] = [];
  const details: string[] = [];
  for (const fn of checksFor(lv.level, lv.version)) {
    const r = fn(meta, spec);
    if (!r) continue;
    reasons.push(r.reason || 'unknown forbidden reason');
    details.push(r.detail);
  }
  return { allowed: reasons.length === 0, reasons, details };
}

/** ForbiddenDetail: `reason (detail), …`. */
export const forbiddenDetail = (e: Evaluation): string => e.reasons.map((r, i) => (e.details[i] ? `${r} (${e.details[i]})` : r)).join(', ');
/** ForbiddenReason: the reasons alone. */
export const forbiddenReason = (e: Evaluation): string => e.reasons.join(', ');
