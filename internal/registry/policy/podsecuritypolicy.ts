/**
 * PodSecurityPolicy (policy/v1beta1, cluster-scoped, deprecated: removed in 1.25), after Kubernetes
 * 1.24.17: SetDefaults_PodSecurityPolicySpec (allowPrivilegeEscalation true), the strategy of
 * pkg/registry/policy/podsecuritypolicy (psputil.DropDisabledFields: allowedProcMountTypes dropped
 * while the ProcMountType gate is off, as it is by default, unless the old object had them),
 * ValidatePodSecurityPolicy / Update (pkg/apis/policy/validation) and printPodSecurityPolicy.
 * Objects only: no admission plugin enforces them (kube 1.24 does not enable PodSecurityPolicy
 * admission by default either).
 */
import type { KubeObject } from '../../api/types.ts';
import { type FieldError, FieldPath, GoValue, duplicate, forbidden, invalid, notSupported, required } from '../../api/field-errors.ts';
import type { KindDescriptor, Strategy, TableConvertor } from '../rest/strategy.ts';
import { NAME_COLUMN } from '../rest/table-columns.ts';
import { nameIsDNSSubdomain } from '../../validation/names.ts';
import { isObj } from '../../gocompat/json.ts';
import { validateCSIDriverName } from '../storage/helpers.ts';
import { validateSeccompAnnotationValue } from '../core/pod-validation.ts';

type J = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const objAt = (o: J, k: string): J => (isObj(o[k]) ? o[k] : {});
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const specOf = (o: KubeObject): J => (isObj(o.spec) ? o.spec : {});

/** psputil.GetAllFSTypesAsSet plus `*`, sorted as sets.String.List() gives them. */
const FS_TYPES = [
  '*', 'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephFS', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'fc', 'flexVolume', 'flocker',
  'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'iscsi', 'nfs', 'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd',
  'scaleIO', 'secret', 'storageos', 'vsphereVolume',
];
const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL_PATTERN_FMT = `(${SYSCTL_SEGMENT}\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]`;
const SYSCTL_PATTERN_RE = new RegExp(`^${SYSCTL_PATTERN_FMT}$`);
const SYSCTL_MAX_LENGTH = 253;

const APPARMOR_DEFAULT = 'apparmor.security.beta.kubernetes.io/defaultProfileName';
const APPARMOR_ALLOWED = 'apparmor.security.beta.kubernetes.io/allowedProfileNames';
const SECCOMP_DEFAULT = 'seccomp.security.alpha.kubernetes.io/defaultProfileName';
const SECCOMP_ALLOWED = 'seccomp.security.alpha.kubernetes.io/allowedProfileNames';

/** SetDefaults_PodSecurityPolicySpec. */
export function defaultPodSecurityPolicy(o: KubeObject): void {
  const spec = isObj(o.spec) ? o.spec : (o.spec = {});
  if (spec.allowPrivilegeEscalation === undefined || spec.allowPrivilegeEscalation === null) spec.allowPrivilegeEscalation = true;
}

/** psputil.DropDisabledFields under 1.24's default gates (ProcMountType off, CSIInlineVolume on). */
function dropDisabledFields(spec: J, old?: J): void {
  if (!(old && old.allowedProcMountTypes !== undefined && old.allowedProcMountTypes !== null)) delete spec.allowedProcMountTypes;
}

/** apivalidation.ValidateAppArmorProfileFormat's error, if any. */
const appArmorError = (p: string): string | undefined =>
  p === '' || p === 'runtime/default' || p === 'unconfined' || p.startsWith('localhost/') ? undefined : `invalid AppArmor profile name: ${JSON.stringify(p)}`;

/** ValidatePodSecurityPolicySpecificAnnotations. */
function validateAnnotations(annotations: J, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const def = str(annotations[APPARMOR_DEFAULT]);
  const defErr = def ? appArmorError(def) : undefined;
  if (defErr) errs.push(invalid(p.key(APPARMOR_DEFAULT), def, defErr));
  const allowed = str(annotations[APPARMOR_ALLOWED]);
  if (allowed) for (const x of allowed.split(',')) {
    const e = appArmorError(x);
    if (e) errs.push(invalid(p.key(APPARMOR_ALLOWED), allowed, e));
  }
  const sd = str(annotations[SECCOMP_DEFAULT]);
  if (sd) errs.push(...validateSeccompAnnotationValue(sd, p.key(SECCOMP_DEFAULT)));
  const sa = str(annotations[SECCOMP_ALLOWED]);
  if (sa) for (const x of sa.split(',')) if (x !== '*') errs.push(...validateSeccompAnnotationValue(x, p.key(SECCOMP_ALLOWED)));
  return errs;
}

/** %#v of []policy.IDRange. */
const goRanges = (v: unknown): GoValue =>
  new GoValue(Array.isArray(v) ? `[]policy.IDRange{${v.map((r) => `policy.IDRange{Min:${num(isObj(r) ? r.min : 0)}, Max:${num(isObj(r) ? r.max : 0)}}`).join(', ')}}` : '[]policy.IDRange(nil)');

/** validateIDRanges of each range. */
function validateRanges(ranges: unknown, p: FieldPath): FieldError[] {
  return arr(ranges).flatMap((raw, i) => {
    const r = isObj(raw) ? raw : {};
    const [min, max] = [num(r.min), num(r.max)];
    const rp = p.index(i);
    const errs: FieldError[] = [];
    if (min < 0) errs.push(invalid(rp.child('min'), min, 'min cannot be negative'));
    if (max < 0) errs.push(invalid(rp.child('max'), max, 'max cannot be negative'));
    if (min > max) errs.push(invalid(rp.child('min'), min, 'min cannot be greater than max'));
    return errs;
  });
}

/** A strategy's rule among `rules` (sorted), then its ranges. */
function validateRule(o: J, p: FieldPath, rules: string[], ranges = true): FieldError[] {
  const rule = str(o.rule);
  const errs = rules.includes(rule) ? [] : [notSupported(p.child('rule'), rule, rules)];
  if (ranges) errs.push(...validateRanges(o.ranges, p.child('ranges')));
  return errs;
}

/** validatePSPRunAsGroup (an absent runAsGroup has nothing to check). */
function validateRunAsGroup(g: unknown, p: FieldPath): FieldError[] {
  if (!isObj(g)) return [];
  const ranges = arr(g.ranges);
  switch (str(g.rule)) {
    case 'RunAsAny':
      return ranges.length ? [invalid(p.child('ranges'), goRanges(g.ranges), 'Ranges must be empty')] : [];
    case 'MustRunAs':
    case 'MayRunAs':
      return [...(ranges.length ? [] : [invalid(p.child('ranges'), goRanges(g.ranges), 'must provide at least one range')]), ...validateRanges(g.ranges, p.child('ranges'))];
    default:
      return [notSupported(p.child('rule'), str(g.rule), ['MustRunAs', 'RunAsAny', 'MayRunAs'])];
  }
}

/** validatePodSecurityPolicySysctls. */
function validateSysctls(list: unknown, p: FieldPath): FieldError[] {
  const sysctls = arr(list).map(str);
  const errs: FieldError[] = [];
  let coversAll = false;
  sysctls.forEach((x, i) => {
    if (!x) errs.push(invalid(p.index(i), x, 'empty sysctl not allowed'));
    else if (x.length > SYSCTL_MAX_LENGTH || !SYSCTL_PATTERN_RE.test(x)) errs.push(invalid(p.index(i), x, `must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_PATTERN_FMT}`));
    else if (x.startsWith('*')) coversAll = true;
  });
  if (coversAll && sysctls.length > 1) errs.push(forbidden(p.child('items'), "if '*' is present, must not specify other sysctls"));
  return errs;
}

/** validatePodSecurityPolicySysctlListsDoNotOverlap. */
function validateSysctlOverlap(ap: FieldPath, fp: FieldPath, allowedList: unknown, forbiddenList: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const forbiddenSysctls = arr(forbiddenList).map(str);
  arr(allowedList).map(str).forEach((a, i) => {
    const aPat = a.endsWith('*');
    const aPre = aPat ? a.slice(0, -1) : '';
    forbiddenSysctls.forEach((f, j) => {
      const fPat = f.endsWith('*');
      const fPre = fPat ? f.slice(0, -1) : '';
      if (aPat && fPat) {
        if (aPre.startsWith(fPre)) errs.push(invalid(ap.index(i), a, `sysctl overlaps with ${f}`));
        else if (fPre.startsWith(aPre)) errs.push(invalid(fp.index(j), f, `sysctl overlaps with ${a}`));
      } else if (aPat) {
        if (f.startsWith(aPre)) errs.push(invalid(fp.index(j), f, `sysctl overlaps with ${a}`));
      } else if (fPat) {
        if (a.startsWith(fPre)) errs.push(invalid(ap.index(i), a, `sysctl overlaps with ${f}`));
      } else if (a === f) errs.push(invalid(ap.index(i), a, `sysctl overlaps with ${f}`));
    });
  });
  return errs;
}

/** validateRuntimeClassStrategy. */
function validateRuntimeClass(rc: unknown, p: FieldPath): FieldError[] {
  if (!isObj(rc)) return [];
  const errs: FieldError[] = [];
  const names = arr(rc.allowedRuntimeClassNames).map(str);
  const allowed = new Set<string>();
  const np = p.child('allowedRuntimeClassNames');
  names.forEach((name, i) => {
    if (name !== '*') errs.push(...nameIsDNSSubdomain(name, false).map((m) => invalid(np.index(i), name, m)));
    if (allowed.has(name)) errs.push(duplicate(np.index(i), name));
    allowed.add(name);
  });
  if (typeof rc.defaultRuntimeClassName === 'string') {
    const d = rc.defaultRuntimeClassName;
    errs.push(...nameIsDNSSubdomain(d, false).map((m) => invalid(p.child('defaultRuntimeClassName'), d, m)));
    if (!allowed.has(d) && !allowed.has('*')) errs.push(required(np, `default ${JSON.stringify(d)} must be allowed`));
  }
  if (allowed.has('*') && names.length > 1) errs.push(invalid(np, names, "if '*' is present, must not specify other RuntimeClass names"));
  return errs;
}

/** validatePSPCapsAgainstDrops (a nil requiredDropCapabilities checks nothing). */
function capsAgainstDrops(drops: unknown, caps: unknown, p: FieldPath): FieldError[] {
  if (!Array.isArray(drops)) return [];
  return arr(caps)
    .map(str)
    .filter((c) => drops.includes(c))
    .map((c) => invalid(p, c, `capability is listed in ${String(p)} and requiredDropCapabilities`));
}

/** ValidatePodSecurityPolicySpec. */
function validateSpec(spec: J, p: FieldPath): FieldError[] {
  const errs = [
    ...validateRule(objAt(spec, 'runAsUser'), p.child('runAsUser'), ['MustRunAs', 'MustRunAsNonRoot', 'RunAsAny']),
    ...validateRunAsGroup(spec.runAsGroup, p.child('runAsGroup')),
    ...validateRule(objAt(spec, 'seLinux'), p.child('seLinux'), ['MustRunAs', 'RunAsAny'], false),
    ...validateRule(objAt(spec, 'supplementalGroups'), p.child('supplementalGroups'), ['MayRunAs', 'MustRunAs', 'RunAsAny']),
    ...validateRule(objAt(spec, 'fsGroup'), p.child('fsGroup'), ['MayRunAs', 'MustRunAs', 'RunAsAny']),
  ];
  for (const v of arr(spec.volumes).map(str)) if (!FS_TYPES.includes(v)) errs.push(notSupported(p.child('volumes'), v, FS_TYPES));
  const drops = spec.requiredDropCapabilities;
  if (arr(drops).length > 0 && arr(spec.allowedCapabilities).includes('*')) {
    errs.push(invalid(new FieldPath('requiredDropCapabilities'), new GoValue(`[]core.Capability{${arr(drops).map((d) => JSON.stringify(str(d))).join(', ')}}`), 'must be empty when all capabilities are allowed by a wildcard'));
  }
  errs.push(...capsAgainstDrops(drops, spec.defaultAddCapabilities, new FieldPath('defaultAddCapabilities')), ...capsAgainstDrops(drops, spec.allowedCapabilities, new FieldPath('allowedCapabilities')));
  if (spec.defaultAllowPrivilegeEscalation === true && spec.allowPrivilegeEscalation !== true) {
    errs.push(invalid(p.child('defaultAllowPrivilegeEscalation'), true, 'Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true'));
  }
  arr(spec.allowedProcMountTypes).map(str).forEach((t, i) => {
    if (t !== 'Default' && t !== 'Unmasked') errs.push(notSupported(p.child('allowedProcMountTypes').index(i), t, ['Default', 'Unmasked']));
  });
  const hp = p.child('allowedHostPaths');
  for (const [i, raw] of arr(spec.allowedHostPaths).entries()) {
    const prefix = str(isObj(raw) ? raw.pathPrefix : undefined);
    if (!prefix) {
      errs.push(required(hp.index(i), 'is required'));
      break;
    }
    if (prefix.split('/').includes('..')) errs.push(invalid(hp.index(i), prefix, "must not contain '..'"));
  }
  arr(spec.allowedFlexVolumes).forEach((raw, i) => {
    if (!str(isObj(raw) ? raw.driver : undefined)) errs.push(required(p.child('allowedFlexVolumes').child('allowedFlexVolumes').index(i).child('driver'), 'must specify a driver'));
  });
  arr(spec.allowedCSIDrivers).forEach((raw, i) => {
    errs.push(...validateCSIDriverName(str(isObj(raw) ? raw.name : undefined), p.child('allowedCSIDrivers').child('allowedCSIDriver').index(i).child('name')));
  });
  const [ap, fp] = [p.child('allowedUnsafeSysctls'), p.child('forbiddenSysctls')];
  errs.push(...validateSysctls(spec.allowedUnsafeSysctls, ap), ...validateSysctls(spec.forbiddenSysctls, fp), ...validateSysctlOverlap(ap, fp, spec.allowedUnsafeSysctls, spec.forbiddenSysctls));
  errs.push(...validateRuntimeClass(spec.runtimeClass, p.child('runtimeClass')));
  return errs;
}

/** ValidatePodSecurityPolicy minus ObjectMeta (the store's). */
export function validatePodSecurityPolicy(o: KubeObject): FieldError[] {
  const annotations = isObj(o.metadata.annotations) ? (o.metadata.annotations as J) : {};
  return [...validateAnnotations(annotations, new FieldPath('metadata').child('annotations')), ...validateSpec(specOf(o), new FieldPath('spec'))];
}

export const podSecurityPolicyStrategy: Strategy = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaults: defaultPodSecurityPolicy,
  prepareForCreate: (o) => dropDisabledFields(specOf(o)),
  prepareForUpdate: (n, old) => dropDisabledFields(specOf(n), specOf(old)),
  validate: validatePodSecurityPolicy,
  validateUpdate: (n) => validatePodSecurityPolicy(n),
};

const SPEC_DOC = {
  privileged: 'privileged determines if a pod can request to be run as privileged.',
  allowedCapabilities:
    "allowedCapabilities is a list of capabilities that can be requested to add to the container. Capabilities in this field may be added at the pod author's discretion. You must not list a capability in both allowedCapabilities and requiredDropCapabilities.",
  seLinux: 'seLinux is the strategy that will dictate the allowable labels that may be set.',
  runAsUser: 'runAsUser is the strategy that will dictate the allowable RunAsUser values that may be set.',
  fsGroup: 'fsGroup is the strategy that will dictate what fs group is used by the SecurityContext.',
  supplementalGroups: 'supplementalGroups is the strategy that will dictate what supplemental groups are used by the SecurityContext.',
  readOnlyRootFilesystem:
    'readOnlyRootFilesystem when set to true will force containers to run with a read only root file system.  If the container specifically requests to run with a non-read only root file system the PSP should deny the pod. If set to false the container may run with a read only root file system if it wishes but it will not be forced to.',
  volumes: "volumes is an allowlist of volume plugins. Empty indicates that no volumes may be used. To allow all volumes you may use '*'.",
};
const column = (name: string, description: string) => ({ name, type: 'string' as const, description, priority: 0 });

/** printPodSecurityPolicy (no Age column). */
export const podSecurityPolicyTable: TableConvertor = {
  columns: [
    NAME_COLUMN,
    column('Priv', SPEC_DOC.privileged),
    column('Caps', SPEC_DOC.allowedCapabilities),
    column('SELinux', SPEC_DOC.seLinux),
    column('RunAsUser', SPEC_DOC.runAsUser),
    column('FsGroup', SPEC_DOC.fsGroup),
    column('SupGroup', SPEC_DOC.supplementalGroups),
    column('ReadOnlyRootFs', SPEC_DOC.readOnlyRootFilesystem),
    column('Volumes', SPEC_DOC.volumes),
  ],
  cells: (o) => {
    const spec = specOf(o);
    const rule = (k: string) => str(objAt(spec, k).rule);
    return [
      o.metadata.name ?? '',
      String(spec.privileged === true),
      arr(spec.allowedCapabilities).map(str).join(','),
      rule('seLinux'),
      rule('runAsUser'),
      rule('fsGroup'),
      rule('supplementalGroups'),
      spec.readOnlyRootFilesystem === true,
      arr(spec.volumes).map(str).join(','),
    ];
  },
};

/** policy/v1beta1 podsecuritypolicies (short name psp), deprecated; delete answers the object. */
export const podSecurityPolicyKind: KindDescriptor = {
  group: 'policy',
  versions: ['v1beta1'],
  resource: 'podsecuritypolicies',
  singular: 'podsecuritypolicy',
  kind: 'PodSecurityPolicy',
  listKind: 'PodSecurityPolicyList',
  namespaced: false,
  shortNames: ['psp'],
  strategy: podSecurityPolicyStrategy,
  table: podSecurityPolicyTable,
  deleteReturns: 'Object',
  deprecationWarning: 'policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+',
  removedRelease: '1.25',
};
