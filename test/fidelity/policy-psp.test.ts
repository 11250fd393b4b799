/**
 * PodSecurityPolicy (policy/v1beta1, cluster-scoped, deprecated) as kube-apiserver 1.24 serves it:
 * the deprecation Warning, allowPrivilegeEscalation defaulted, allowedProcMountTypes dropped (gate
 * off), validation Status bodies (rules, ranges, volumes, capabilities, host paths, flex volumes,
 * CSI drivers, sysctls, runtime classes, annotations), update, the Table (printPodSecurityPolicy),
 * delete, Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/policy-psp.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/policy-psp.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const C = '/apis/policy/v1beta1/podsecuritypolicies';
const S = clusterSuite(test, C, ['ok', 'bad', 'min']);
const WARNING = '299 - "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+"';
const RULES = { seLinux: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' } };
const psp = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: 'policy/v1beta1', kind: 'PodSecurityPolicy', metadata: { name, ...meta }, spec });
const SUBDOMAIN = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

test('create: Warning, allowPrivilegeEscalation defaulted, allowedProcMountTypes dropped; Table; delete answers the object', async () => {
  const spec = { privileged: true, allowedCapabilities: ['NET_ADMIN', 'SYS_TIME'], ...RULES, runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1, max: 10 }] }, volumes: ['configMap', 'secret'], readOnlyRootFilesystem: true, allowedProcMountTypes: ['Default'], allowedCSIDrivers: [{ name: 'csi.example.com' }] };
  const r = await S.post(psp(S.n('ok'), spec, { annotations: { 'seccomp.security.alpha.kubernetes.io/defaultProfileName': 'runtime/default' } }));
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, WARNING, show(r));
  const { allowedProcMountTypes: _, ...kept } = spec;
  const want = {
    kind: 'PodSecurityPolicy',
    apiVersion: 'policy/v1beta1',
    metadata: { name: 'wtst-ok', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', annotations: { 'seccomp.security.alpha.kubernetes.io/defaultProfileName': 'runtime/default' } },
    spec: { ...kept, allowPrivilegeEscalation: true },
  };
  same(body(r, S.names), want, 'create', r);
  const tb = await table(S.t, `${C}/${S.n('ok')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Priv', 'string', '', 0],
    ['Caps', 'string', '', 0],
    ['SELinux', 'string', '', 0],
    ['RunAsUser', 'string', '', 0],
    ['FsGroup', 'string', '', 0],
    ['SupGroup', 'string', '', 0],
    ['ReadOnlyRootFs', 'string', '', 0],
    ['Volumes', 'string', '', 0],
  ]);
  assert.equal(tb.rows, [[S.n('ok'), 'true', 'NET_ADMIN,SYS_TIME', 'RunAsAny', 'MustRunAs', 'RunAsAny', 'RunAsAny', true, 'configMap,secret']]);
  assert.snapshot(JSON.stringify(tb.descriptions.slice(1)), JSON.stringify([
    'privileged determines if a pod can request to be run as privileged.',
    "allowedCapabilities is a list of capabilities that can be requested to add to the container. Capabilities in this field may be added at the pod author's discretion. You must not list a capability in both allowedCapabilities and requiredDropCapabilities.",
    'seLinux is the strategy that will dictate the allowable labels that may be set.',
    'runAsUser is the strategy that will dictate the allowable RunAsUser values that may be set.',
    'fsGroup is the strategy that will dictate what fs group is used by the SecurityContext.',
    'supplementalGroups is the strategy that will dictate what supplemental groups are used by the SecurityContext.',
    'readOnlyRootFilesystem when set to true will force containers to run with a read only root file system.  If the container specifically requests to run with a non-read only root file system the PSP should deny the pod. If set to false the container may run with a read only root file system if it wishes but it will not be forced to.',
    "volumes is an allowlist of volume plugins. Empty indicates that no volumes may be used. To allow all volumes you may use '*'.",
  ]));
  await protobufRoundTrip(S.t, `${C}/${S.n('ok')}`);

  const u = await S.t.client.request('PATCH', `${C}/${S.n('ok')}`, { body: { spec: { privileged: false, allowPrivilegeEscalation: false, defaultAllowPrivilegeEscalation: true } }, contentType: 'application/merge-patch+json' });
  same(
    body(u, S.names),
    invalidStatus('PodSecurityPolicy', 'wtst-ok', [['FieldValueInvalid', 'spec.defaultAllowPrivilegeEscalation', 'Invalid value: true: Cannot set DefaultAllowPrivilegeEscalation to true without also setting AllowPrivilegeEscalation to true']], 'policy'),
    'update checks the spec',
    u,
  );
  const d = await S.t.client.request('DELETE', `${C}/${S.n('ok')}`);
  assert.is(d.status, 200, show(d));
  same(body(d, S.names), want, 'delete', d);
});

test('create: rejections with kube messages', async () => {
  const empty = await S.post(psp(S.n('bad'), {}));
  same(
    body(empty, S.names),
    invalidStatus('PodSecurityPolicy', 'wtst-bad', [
      ['FieldValueNotSupported', 'spec.runAsUser.rule', 'Unsupported value: "": supported values: "MustRunAs", "MustRunAsNonRoot", "RunAsAny"'],
      ['FieldValueNotSupported', 'spec.seLinux.rule', 'Unsupported value: "": supported values: "MustRunAs", "RunAsAny"'],
      ['FieldValueNotSupported', 'spec.supplementalGroups.rule', 'Unsupported value: "": supported values: "MayRunAs", "MustRunAs", "RunAsAny"'],
      ['FieldValueNotSupported', 'spec.fsGroup.rule', 'Unsupported value: "": supported values: "MayRunAs", "MustRunAs", "RunAsAny"'],
    ], 'policy'),
    'empty spec',
    empty,
  );
  const cases: [Record<string, unknown>, Cause[], Record<string, unknown>?][] = [
    [
      { ...RULES, runAsUser: { rule: 'MustRunAs', ranges: [{ min: -1, max: -2 }] }, runAsGroup: { rule: 'RunAsAny', ranges: [{ min: 1, max: 2 }] }, fsGroup: { rule: 'MustRunAs', ranges: [{ min: 5, max: 1 }] } },
      [
        ['FieldValueInvalid', 'spec.runAsUser.ranges[0].min', 'Invalid value: -1: min cannot be negative'],
        ['FieldValueInvalid', 'spec.runAsUser.ranges[0].max', 'Invalid value: -2: max cannot be negative'],
        ['FieldValueInvalid', 'spec.runAsUser.ranges[0].min', 'Invalid value: -1: min cannot be greater than max'],
        ['FieldValueInvalid', 'spec.runAsGroup.ranges', 'Invalid value: []policy.IDRange{policy.IDRange{Min:1, Max:2}}: Ranges must be empty'],
        ['FieldValueInvalid', 'spec.fsGroup.ranges[0].min', 'Invalid value: 5: min cannot be greater than max'],
      ],
    ],
    [{ ...RULES, runAsGroup: { rule: 'MayRunAs' } }, [['FieldValueInvalid', 'spec.runAsGroup.ranges', 'Invalid value: []policy.IDRange(nil): must provide at least one range']]],
    [{ ...RULES, runAsGroup: { rule: 'Nope' } }, [['FieldValueNotSupported', 'spec.runAsGroup.rule', 'Unsupported value: "Nope": supported values: "MustRunAs", "RunAsAny", "MayRunAs"']]],
    [
      { ...RULES, volumes: ['secret', 'bogus'], requiredDropCapabilities: ['NET_RAW', 'SYS_ADMIN'], allowedCapabilities: ['*', 'NET_RAW'], defaultAddCapabilities: ['SYS_ADMIN'] },
      [
        [
          'FieldValueNotSupported',
          'spec.volumes',
          'Unsupported value: "bogus": supported values: "*", "awsElasticBlockStore", "azureDisk", "azureFile", "cephFS", "cinder", "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "hostPath", "iscsi", "nfs", "persistentVolumeClaim", "photonPersistentDisk", "portworxVolume", "projected", "quobyte", "rbd", "scaleIO", "secret", "storageos", "vsphereVolume"',
        ],
        ['FieldValueInvalid', 'requiredDropCapabilities', 'Invalid value: []core.Capability{"NET_RAW", "SYS_ADMIN"}: must be empty when all capabilities are allowed by a wildcard'],
        ['FieldValueInvalid', 'defaultAddCapabilities', 'Invalid value: "SYS_ADMIN": capability is listed in defaultAddCapabilities and requiredDropCapabilities'],
        ['FieldValueInvalid', 'allowedCapabilities', 'Invalid value: "NET_RAW": capability is listed in allowedCapabilities and requiredDropCapabilities'],
      ],
    ],
    [
      { ...RULES, allowedHostPaths: [{ pathPrefix: '/a/../b' }, { pathPrefix: '' }, { pathPrefix: '/..' }], allowedFlexVolumes: [{ driver: '' }], allowedCSIDrivers: [{ name: 'Bad_Driver' }] },
      [
        ['FieldValueInvalid', 'spec.allowedHostPaths[0]', `Invalid value: "/a/../b": must not contain '..'`],
        ['FieldValueRequired', 'spec.allowedHostPaths[1]', 'Required value: is required'],
        ['FieldValueRequired', 'spec.allowedFlexVolumes.allowedFlexVolumes[0].driver', 'Required value: must specify a driver'],
        ['FieldValueInvalid', 'spec.allowedCSIDrivers.allowedCSIDriver[0].name', `Invalid value: "Bad_Driver": ${SUBDOMAIN}`],
      ],
    ],
    [
      { ...RULES, allowedUnsafeSysctls: ['kernel.msg*', '', 'Bad!', 'net.core.somaxconn'], forbiddenSysctls: ['kernel.*', 'net.core.somaxconn', '*'] },
      [
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[1]', 'Invalid value: "": empty sysctl not allowed'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[2]', 'Invalid value: "Bad!": must have at most 253 characters and match regex ([a-z0-9]([-_a-z0-9]*[a-z0-9])?\\.)*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]'],
        ['FieldValueForbidden', 'spec.forbiddenSysctls.items', "Forbidden: if '*' is present, must not specify other sysctls"],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[0]', 'Invalid value: "kernel.msg*": sysctl overlaps with kernel.*'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[0]', 'Invalid value: "kernel.msg*": sysctl overlaps with *'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[1]', 'Invalid value: "": sysctl overlaps with *'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[2]', 'Invalid value: "Bad!": sysctl overlaps with *'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[3]', 'Invalid value: "net.core.somaxconn": sysctl overlaps with net.core.somaxconn'],
        ['FieldValueInvalid', 'spec.allowedUnsafeSysctls[3]', 'Invalid value: "net.core.somaxconn": sysctl overlaps with *'],
      ],
    ],
    [
      { ...RULES, runtimeClass: { allowedRuntimeClassNames: ['*', 'Bad_RC', 'gvisor', 'gvisor'], defaultRuntimeClassName: 'kata' } },
      [
        ['FieldValueInvalid', 'spec.runtimeClass.allowedRuntimeClassNames[1]', `Invalid value: "Bad_RC": ${SUBDOMAIN}`],
        ['FieldValueDuplicate', 'spec.runtimeClass.allowedRuntimeClassNames[3]', 'Duplicate value: "gvisor"'],
        ['FieldValueInvalid', 'spec.runtimeClass.allowedRuntimeClassNames', `Invalid value: []string{"*", "Bad_RC", "gvisor", "gvisor"}: if '*' is present, must not specify other RuntimeClass names`],
      ],
    ],
    [{ ...RULES, runtimeClass: { allowedRuntimeClassNames: ['gvisor'], defaultRuntimeClassName: 'kata' } }, [['FieldValueRequired', 'spec.runtimeClass.allowedRuntimeClassNames', 'Required value: default "kata" must be allowed']]],
    [
      RULES,
      [
        ['FieldValueInvalid', 'metadata.annotations[apparmor.security.beta.kubernetes.io/defaultProfileName]', 'Invalid value: "bad": invalid AppArmor profile name: "bad"'],
        ['FieldValueInvalid', 'metadata.annotations[apparmor.security.beta.kubernetes.io/allowedProfileNames]', 'Invalid value: "runtime/default,x": invalid AppArmor profile name: "x"'],
        ['FieldValueInvalid', 'metadata.annotations[seccomp.security.alpha.kubernetes.io/defaultProfileName]', 'Invalid value: "nope": must be a valid seccomp profile'],
        ['FieldValueInvalid', 'metadata.annotations[seccomp.security.alpha.kubernetes.io/allowedProfileNames]', 'Invalid value: "/abs": must be a relative path'],
      ],
      {
        annotations: {
          'apparmor.security.beta.kubernetes.io/defaultProfileName': 'bad',
          'apparmor.security.beta.kubernetes.io/allowedProfileNames': 'runtime/default,x',
          'seccomp.security.alpha.kubernetes.io/defaultProfileName': 'nope',
          'seccomp.security.alpha.kubernetes.io/allowedProfileNames': '*,localhost//abs',
        },
      },
    ],
  ];
  for (const [spec, causes, meta] of cases) {
    const r = await S.post(psp(S.n('bad'), spec, meta));
    same(body(r, S.names), invalidStatus('PodSecurityPolicy', 'wtst-bad', causes, 'policy'), JSON.stringify(spec), r);
  }
  const ok = await S.post(psp(S.n('min'), RULES));
  assert.is(ok.status, 201, show(ok));
  const l = await S.t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${S.n('min')}`);
  assert.is(l.headers.warning, WARNING, show(l));
  assert.equal((l.json as any).items.map((i: any) => [i.metadata.name, i.spec.allowPrivilegeEscalation]), [[S.n('min'), true]]);
});

test.run();
