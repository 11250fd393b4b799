import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { fieldErrorMessage } from '../../api/field-errors.ts';
import { check, type Want } from './testing.ts';
import { podKind, dropDisabledPodFields } from './pod.ts';
import { defaultPod, imageTag } from './pod-defaults.ts';
import { defaultVolumes } from './volumes/index.ts';
import { podQOS } from './pod-resources.ts';
import { podStatusCells, podTable } from './pod-table.ts';
import { DEFAULT_POD_VALIDATION_OPTIONS, podVolumes, validatePodCreate } from './pod-validation.ts';
import { validatePodEphemeralContainersUpdate, validatePodStatusUpdate, validatePodUpdate } from './pod-validation-update.ts';
import { cmpQuantity, nanoValue, roundUpMilli } from './pod-util.ts';

type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const S = podKind.strategy;
const pod = (spec: J, meta: J = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', ...meta }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } });
/** A Pod as the store validates it: defaulted and prepared for create. */
const prepared = (spec: J, meta: J = {}): KubeObject => {
  const p = pod(spec, meta);
  S.defaults!(p);
  S.prepareForCreate!(p);
  return p;
};

test('descriptor: names, scope, short names, category, subresources, field selectors', () => {
  assert.is(podKind.resource, 'pods');
  assert.equal(podKind.shortNames, ['po']);
  assert.equal(podKind.categories, ['all']);
  assert.equal(podKind.subresources!.map((s) => [s.name, s.verbs]), [
    ['attach', ['create', 'get']],
    ['binding', ['create']],
    ['ephemeralcontainers', ['get', 'update', 'patch']],
    ['eviction', ['create']],
    ['exec', ['create', 'get']],
    ['log', ['get']],
    ['portforward', ['create', 'get']],
    ['proxy', ['create', 'delete', 'get', 'patch', 'update']],
    ['status', ['get', 'update', 'patch']],
  ]);
  assert.equal(podKind.subresources![3]!.kind, { group: 'policy', version: 'v1', kind: 'Eviction' });
  assert.is(S.allowCreateOnUpdate, false);
  assert.is(S.allowUnconditionalUpdate, true);
  const p = prepared({ nodeName: 'n1', serviceAccountName: 'sa' });
  p.status = { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }], nominatedNodeName: 'n2' };
  const f = podKind.fieldSelectors!;
  assert.equal(
    ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP', 'status.nominatedNodeName', 'spec.host', 'status.podIPs'].map((k) => f[k]!(p)),
    ['n1', 'Always', 'default-scheduler', 'sa', 'Running', '10.0.0.5', 'n2', 'n1', ''],
  );
});

test('imagePullPolicy by tag (parsers.ParseImageName)', () => {
  const cases: [string, string][] = [
    ['nginx', 'latest'],
    ['nginx:latest', 'latest'],
    ['nginx:1.25', '1.25'],
    ['registry:5000/team/app', 'latest'],
    ['registry:5000/team/app:v2', 'v2'],
    [`nginx@sha256:${'a'.repeat(64)}`, ''],
    [`nginx:1@sha256:${'a'.repeat(64)}`, '1'],
    ['Nginx', ''],
    ['', ''],
  ];
  for (const [image, tag] of cases) assert.is(imageTag(image), tag, image);
  const p = pod({ containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x:1' }, { name: 'c', image: 'x:latest' }, { name: 'd', image: 'x', imagePullPolicy: 'Never' }] });
  defaultPod(p);
  assert.equal((p.spec as J).containers.map((c: J) => c.imagePullPolicy), ['Always', 'IfNotPresent', 'Always', 'Never']);
});

test('SetObjectDefaults_Pod: every default', () => {
  const p = pod({
    hostNetwork: true,
    volumes: [{ name: 'e' }, { name: 'cm', configMap: { name: 'x' } }],
    initContainers: [{ name: 'i', image: 'busybox', resources: { limits: { memory: '1Gi' } }, ports: [{ containerPort: 9 }] }],
    containers: [
      {
        name: 'c',
        image: 'nginx:1.25',
        ports: [{ containerPort: 80 }, { containerPort: 81, hostPort: 8081, protocol: 'UDP' }],
        env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
        resources: { limits: { cpu: '100u', memory: '1Gi' }, requests: { memory: '512Mi' } },
        livenessProbe: { httpGet: { port: 80 } },
        readinessProbe: { grpc: { port: 1 } },
        startupProbe: { exec: { command: ['x'] }, periodSeconds: 3 },
        lifecycle: { preStop: { httpGet: { port: 80 } } },
      },
    ],
    overhead: { cpu: '1u' },
  });
  defaultPod(p, defaultVolumes);
  const spec = p.spec as J;
  assert.equal(
    { ...spec, containers: undefined, initContainers: undefined, volumes: undefined },
    { hostNetwork: true, overhead: { cpu: '1m' }, enableServiceLinks: true, dnsPolicy: 'ClusterFirst', restartPolicy: 'Always', securityContext: {}, terminationGracePeriodSeconds: 30, schedulerName: 'default-scheduler', containers: undefined, initContainers: undefined, volumes: undefined },
  );
  assert.equal(spec.volumes, [{ name: 'e', emptyDir: {} }, { name: 'cm', configMap: { name: 'x', defaultMode: 420 } }]);
  assert.equal(spec.initContainers[0], {
    name: 'i',
    image: 'busybox',
    resources: { limits: { memory: '1Gi' }, requests: { memory: '1Gi' } },
    ports: [{ containerPort: 9, hostPort: 9, protocol: 'TCP' }],
    imagePullPolicy: 'Always',
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
  });
  const c = spec.containers[0];
  assert.equal(c.ports, [{ containerPort: 80, hostPort: 80, protocol: 'TCP' }, { containerPort: 81, hostPort: 8081, protocol: 'UDP' }]);
  assert.equal(c.env[0].valueFrom.fieldRef, { fieldPath: 'metadata.name', apiVersion: 'v1' });
  assert.equal(c.resources, { limits: { cpu: '1m', memory: '1Gi' }, requests: { memory: '512Mi', cpu: '1m' } });
  assert.equal(c.livenessProbe, { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  assert.equal(c.readinessProbe.grpc, { port: 1, service: '' });
  assert.is(c.startupProbe.periodSeconds, 3);
  assert.equal(c.lifecycle.preStop.httpGet, { port: 80, path: '/', scheme: 'HTTP' });
});

test('quantities: value, comparison, RoundUp(milli)', () => {
  assert.is(nanoValue('1Gi'), 1073741824n * 1_000_000_000n);
  assert.is(nanoValue('100m'), 100_000_000n);
  assert.is(nanoValue('x'), undefined);
  assert.is(cmpQuantity('1', '1000m'), 0);
  assert.is(cmpQuantity('1Ki', '1k'), 1);
  assert.is(roundUpMilli('100u'), '1m');
  assert.is(roundUpMilli('1500u'), '2m');
  assert.is(roundUpMilli('500m'), '500m');
  assert.is(roundUpMilli('1Gi'), '1Gi');
});

test('QoS class (qos.GetPodQOS)', () => {
  const res = (limits?: J, requests?: J): J => ({ name: 'c', image: 'x', resources: { limits, requests } });
  const cases: [string, J, string][] = [
    ['none', { containers: [{ name: 'c', image: 'x' }] }, 'BestEffort'],
    ['zero requests', { containers: [res(undefined, { cpu: '0' })] }, 'BestEffort'],
    ['limits cpu+memory', { containers: [res({ cpu: '1', memory: '1Gi' })] }, 'Guaranteed'],
    ['requests equal limits', { containers: [res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })] }, 'Guaranteed'],
    ['requests lower', { containers: [res({ cpu: '1', memory: '1Gi' }, { cpu: '500m', memory: '1Gi' })] }, 'Burstable'],
    ['cpu only', { containers: [res({ cpu: '1' })] }, 'Burstable'],
    ['init container without limits', { initContainers: [res(undefined, { memory: '1Gi' })], containers: [res({ cpu: '1', memory: '1Gi' })] }, 'Burstable'],
    ['extended resources only', { containers: [res({ 'example.com/gpu': '1' })] }, 'BestEffort'],
  ];
  for (const [name, spec, want] of cases) {
    const p = pod(spec);
    defaultPod(p);
    assert.is(podQOS(p.spec as J), want, name);
  }
});

test('PrepareForCreate / PrepareForUpdate: status, disabled gates, seccomp skew', () => {
  const p = pod({ containers: [{ name: 'c', image: 'x', livenessProbe: { exec: { command: ['a'] }, terminationGracePeriodSeconds: 5 }, securityContext: { procMount: 'Unmasked', seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }], topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule', minDomains: 2 }] }, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default' } });
  p.status = { phase: 'Running', podIP: '1.2.3.4' };
  S.defaults!(p);
  S.prepareForCreate!(p);
  const spec = p.spec as J;
  assert.equal(p.status, { phase: 'Pending', qosClass: 'BestEffort' });
  assert.is(spec.containers[0].livenessProbe.terminationGracePeriodSeconds, undefined);
  assert.is(spec.containers[0].securityContext.procMount, 'Default');
  assert.is(spec.topologySpreadConstraints[0].minDomains, undefined);
  assert.equal(spec.securityContext.seccompProfile, { type: 'RuntimeDefault' });
  assert.equal(p.metadata.annotations, { 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.seccomp.security.alpha.kubernetes.io/c': 'localhost/p.json' });
  // An old Pod that used a gated field keeps it.
  const old = structuredClone(p);
  (old.spec as J).containers[0].livenessProbe.terminationGracePeriodSeconds = 7;
  const next = structuredClone(old);
  next.status = { phase: 'Failed' };
  S.prepareForUpdate!(next, old);
  assert.is((next.spec as J).containers[0].livenessProbe.terminationGracePeriodSeconds, 7);
  assert.equal(next.status, old.status);
  dropDisabledPodFields(next);
  assert.is((next.spec as J).containers[0].livenessProbe.terminationGracePeriodSeconds, undefined);
});

test('serviceAccount ⇄ serviceAccountName (v1 conversion)', () => {
  const p = pod({ serviceAccount: 'legacy' });
  S.defaults!(p);
  S.canonicalize!(p);
  assert.equal([(p.spec as J).serviceAccountName, (p.spec as J).serviceAccount], ['legacy', 'legacy']);
  const q = pod({ serviceAccount: 'x', serviceAccountName: 'y' });
  S.defaults!(q);
  S.canonicalize!(q);
  assert.equal([(q.spec as J).serviceAccountName, (q.spec as J).serviceAccount], ['y', 'y']);
});

test('ValidatePodCreate: rejections with field path and message', () => {
  const cases: [string, J, Want[], J?][] = [
    ['minimal', {}, []],
    ['no containers', { containers: [] }, [{ type: 'FieldValueRequired', field: 'spec.containers' }]],
    ['container name', { containers: [{ name: 'A', image: 'x' }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].name', msg: 'RFC 1123 label' }]],
    ['duplicate across init', { initContainers: [{ name: 'c', image: 'x' }] }, [{ type: 'FieldValueDuplicate', field: 'spec.initContainers[0].name' }]],
    ['image required', { containers: [{ name: 'c', image: '' }] }, [{ type: 'FieldValueRequired', field: 'spec.containers[0].image' }]],
    ['image whitespace', { containers: [{ name: 'c', image: ' x' }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].image', msg: 'must not have leading or trailing whitespace' }]],
    ['port number', { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 70000 }] }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].ports[0].containerPort', msg: 'must be between 1 and 65535, inclusive' }]],
    ['host port conflict', { containers: [{ name: 'c', image: 'x', ports: [{ containerPort: 1, hostPort: 80 }, { containerPort: 2, hostPort: 80 }] }] }, [{ type: 'FieldValueDuplicate', field: 'spec.containers[0].ports[1].hostPort', msg: '"TCP//80"' }]],
    ['env name', { containers: [{ name: 'c', image: 'x', env: [{ name: '1x' }] }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].env[0].name', msg: 'must not start with a digit' }]],
    ['env valueFrom none', { containers: [{ name: 'c', image: 'x', env: [{ name: 'A', valueFrom: {} }] }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].env[0].valueFrom', msg: 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`' }]],
    ['env fieldRef unsupported', { containers: [{ name: 'c', image: 'x', env: [{ name: 'A', valueFrom: { fieldRef: { fieldPath: 'metadata.labels' } } }] }] }, [{ type: 'FieldValueNotSupported', field: 'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath' }]],
    ['envFrom none', { containers: [{ name: 'c', image: 'x', envFrom: [{}] }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].envFrom', msg: 'must specify one of: `configMapRef` or `secretRef`' }]],
    ['requests above limits', { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1' }, requests: { cpu: '2' } } }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].resources.requests', msg: 'must be less than or equal to cpu limit' }]],
    ['hugepages without cpu/memory', { containers: [{ name: 'c', image: 'x', resources: { limits: { 'hugepages-2Mi': '2Mi' } } }] }, [{ type: 'FieldValueForbidden', field: 'spec.containers[0].resources', msg: 'HugePages require cpu or memory' }]],
    ['probe handlers', { containers: [{ name: 'c', image: 'x', readinessProbe: { exec: { command: ['a'] }, tcpSocket: { port: 1 } } }] }, [{ type: 'FieldValueForbidden', field: 'spec.containers[0].readinessProbe.tcpSocket', msg: 'may not specify more than 1 handler type' }]],
    ['liveness successThreshold', { containers: [{ name: 'c', image: 'x', livenessProbe: { exec: { command: ['a'] }, successThreshold: 2 } }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].livenessProbe.successThreshold', msg: 'must be 1' }]],
    ['init container probe', { initContainers: [{ name: 'i', image: 'x', readinessProbe: { exec: { command: ['a'] } } }] }, [{ type: 'FieldValueInvalid', field: 'spec.initContainers[0].readinessProbe', msg: 'must not be set for init containers' }]],
    ['mount of a missing volume', { containers: [{ name: 'c', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/v' }] }] }, [{ type: 'FieldValueNotFound', field: 'spec.containers[0].volumeMounts[0].name', msg: 'Not found: "v"' }]],
    ['device needs a claim', { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c', image: 'x', volumeDevices: [{ name: 'v', devicePath: '/dev/v' }] }] }, [{ type: 'FieldValueInvalid', field: 'spec.containers[0].volumeDevices[0].name', msg: 'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode' }]],
    ['privileged', { containers: [{ name: 'c', image: 'x', securityContext: { privileged: true } }] }, [{ type: 'FieldValueForbidden', field: 'spec.containers[0].securityContext.privileged', msg: 'disallowed by cluster policy' }]],
    ['runAsUser', { securityContext: { runAsUser: -1 } }, [{ type: 'FieldValueInvalid', field: 'spec.securityContext.runAsUser', msg: 'must be between 0 and 2147483647, inclusive' }]],
    ['restartPolicy', { restartPolicy: 'X' }, [{ type: 'FieldValueNotSupported', field: 'spec.restartPolicy', msg: 'supported values: "Always", "OnFailure", "Never"' }]],
    ['dnsPolicy None', { dnsPolicy: 'None' }, [{ type: 'FieldValueRequired', field: 'spec.dnsConfig', msg: 'must provide `dnsConfig` when `dnsPolicy` is None' }]],
    ['toleration operator', { tolerations: [{ operator: 'Equal' }] }, [{ type: 'FieldValueInvalid', field: 'spec.tolerations[0].operator', msg: 'operator must be Exists when `key` is empty' }]],
    ['activeDeadlineSeconds', { activeDeadlineSeconds: 0 }, [{ type: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', msg: 'must be between 1 and 2147483647, inclusive' }]],
    ['spread duplicate', { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule' }, { maxSkew: 1, topologyKey: 'z', whenUnsatisfiable: 'DoNotSchedule' }] }, [{ type: 'FieldValueDuplicate', field: 'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}', msg: '"{z, DoNotSchedule}"' }]],
    ['os windows', { os: { name: 'windows' }, hostPID: true }, [{ type: 'FieldValueForbidden', field: 'spec.hostPID', msg: 'cannot be set for a windows pod' }]],
    ['ephemeral containers on create', { ephemeralContainers: [{ name: 'd', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }] }, [{ type: 'FieldValueForbidden', field: 'spec.ephemeralContainers', msg: 'cannot be set on create' }]],
    ['serviceAccountToken without account', { volumes: [{ name: 'p', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, [{ type: 'FieldValueForbidden', field: 'spec.volumes[0].projected.sources[0].serviceAccountToken', msg: 'must not be specified when serviceAccountName is not set' }]],
    ['seccomp annotation mismatch', { securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }, [{ type: 'FieldValueForbidden', field: 'spec.securityContext.seccompProfile.type', msg: 'seccomp type in annotation and field must match' }], { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }],
    ['deletion cost', {}, [{ type: 'FieldValueInvalid', field: 'metadata.annotations[controller.kubernetes.io/pod-deletion-cost]', msg: 'must be a 32bit integer' }], { annotations: { 'controller.kubernetes.io/pod-deletion-cost': 'x' } }],
  ];
  for (const [name, spec, want, meta] of cases) check(name, validatePodCreate(prepared(spec, meta), podVolumes), want);
});

test('ValidatePodUpdate: what may change', () => {
  const old = prepared({ activeDeadlineSeconds: 100, tolerations: [{ key: 'a', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }] });
  const upd = (f: (s: J) => void): KubeObject => {
    const n = structuredClone(old);
    f(n.spec as J);
    return n;
  };
  const cases: [string, KubeObject, Want[]][] = [
    ['unchanged', upd(() => {}), []],
    ['image', upd((s) => (s.containers[0].image = 'nginx:2')), []],
    ['deadline shrinks', upd((s) => (s.activeDeadlineSeconds = 50)), []],
    ['deadline grows', upd((s) => (s.activeDeadlineSeconds = 200)), [{ type: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', msg: 'must be less than or equal to previous value' }]],
    ['deadline removed', upd((s) => delete s.activeDeadlineSeconds), [{ type: 'FieldValueInvalid', field: 'spec.activeDeadlineSeconds', msg: 'Invalid value: "null": must not update from a positive integer to nil value' }]],
    ['toleration seconds', upd((s) => (s.tolerations[0].tolerationSeconds = 1)), []],
    ['toleration added', upd((s) => s.tolerations.push({ key: 'b', operator: 'Exists' })), []],
    ['toleration changed', upd((s) => (s.tolerations[0].key = 'z')), [{ type: 'FieldValueForbidden', field: 'spec.tolerations', msg: 'existing toleration can not be modified except its tolerationSeconds' }]],
    ['container added', upd((s) => s.containers.push({ name: 'd', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' })), [{ type: 'FieldValueForbidden', field: 'spec.containers', msg: 'pod updates may not add or remove containers' }]],
    ['restartPolicy', upd((s) => (s.restartPolicy = 'Never')), [{ type: 'FieldValueForbidden', field: 'spec', msg: 'pod updates may not change fields other than `spec.containers[*].image`' }]],
  ];
  for (const [name, n, want] of cases) check(name, validatePodUpdate(n, old, DEFAULT_POD_VALIDATION_OPTIONS, podVolumes), want);
  const forbidden = validatePodUpdate(upd((s) => (s.restartPolicy = 'Never')), old, DEFAULT_POD_VALIDATION_OPTIONS, podVolumes)[0]!;
  assert.ok(fieldErrorMessage(forbidden).includes('(allow it to be set to 1 if it was previously negative)\n'), 'diff follows the message');
});

test('ValidatePodStatusUpdate and ValidatePodEphemeralContainersUpdate', () => {
  const old = prepared({ restartPolicy: 'Never' });
  old.status = { phase: 'Running', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0 } } }] };
  const st = (status: J, f?: (p: KubeObject) => void): KubeObject => {
    const n = structuredClone(old);
    n.status = status;
    f?.(n);
    return n;
  };
  const cases: [string, KubeObject, Want[]][] = [
    ['ok', st({ phase: 'Succeeded', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0 } } }] }), []],
    ['back to running', st({ containerStatuses: [{ name: 'c', state: { running: {} } }] }), [{ type: 'FieldValueForbidden', field: 'status.containerStatuses[0].state', msg: 'may not be transitioned to non-terminated state' }]],
    ['condition type', st({ conditions: [{ type: 'bad!', status: 'True' }] }), [{ type: 'FieldValueInvalid', field: 'metadata.conditions[0].Type' }]],
    ['nodeName', st({}, (p) => ((p.spec as J).nodeName = 'n')), [{ type: 'FieldValueForbidden', field: 'status.nodeName', msg: 'may not be changed directly' }]],
    ['two IPv4', st({ podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }), [{ type: 'FieldValueInvalid', field: 'status.podIPs', msg: 'may specify no more than one IP for each IP family' }]],
    ['dual stack', st({ podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] }), []],
  ];
  for (const [name, n, want] of cases) check(`status ${name}`, validatePodStatusUpdate(n, old, DEFAULT_POD_VALIDATION_OPTIONS), want);

  const withDebug = structuredClone(old);
  (withDebug.spec as J).ephemeralContainers = [{ name: 'dbg', image: 'busybox', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' }];
  const eph = (f: (list: J[]) => void): KubeObject => {
    const n = structuredClone(withDebug);
    f((n.spec as J).ephemeralContainers);
    return n;
  };
  const ecases: [string, KubeObject, Want[]][] = [
    ['add', eph((l) => l.push({ name: 'two', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File' })), []],
    ['remove', eph((l) => l.pop()), [{ type: 'FieldValueForbidden', field: 'spec.ephemeralContainers', msg: 'existing ephemeral containers "dbg" may not be removed' }]],
    ['change', eph((l) => (l[0]!.image = 'other')), [{ type: 'FieldValueForbidden', field: 'spec.ephemeralContainers', msg: 'existing ephemeral containers "dbg" may not be changed' }]],
    ['ports', eph((l) => (l[0]!.ports = [{ containerPort: 1, protocol: 'TCP' }])), [{ type: 'FieldValueForbidden', field: 'spec.ephemeralContainers[0].ports', msg: 'cannot be set for an Ephemeral Container' }, { type: 'FieldValueForbidden', field: 'spec.ephemeralContainers', msg: 'may not be changed' }]],
    ['target', eph((l) => l.push({ name: 't', image: 'x', imagePullPolicy: 'Always', terminationMessagePolicy: 'File', targetContainerName: 'zz' })), [{ type: 'FieldValueNotFound', field: 'spec.ephemeralContainers[1].targetContainerName' }]],
  ];
  for (const [name, n, want] of ecases) check(`ephemeral ${name}`, validatePodEphemeralContainersUpdate(n, withDebug, DEFAULT_POD_VALIDATION_OPTIONS, podVolumes), want);
});

test('graceful deletion period (CheckGracefulDelete)', () => {
  const g = S.checkGracefulDelete!;
  const scheduled = prepared({ nodeName: 'n', terminationGracePeriodSeconds: 45 });
  assert.is(g(scheduled, undefined), 45);
  assert.is(g(scheduled, 10), 10);
  assert.is(g(prepared({}), undefined), 0, 'unscheduled: at once');
  const done = structuredClone(scheduled);
  done.status = { phase: 'Succeeded' };
  assert.is(g(done, undefined), 0, 'terminal: at once');
  const negative = prepared({ nodeName: 'n', terminationGracePeriodSeconds: -3 });
  assert.is(g(negative, undefined), 1);
});

test('printPod STATUS, READY and RESTARTS cells', () => {
  const now = Date.parse('2026-01-01T00:10:00Z');
  const base = (status: J, spec: J = {}, meta: J = {}): KubeObject => ({ ...prepared(spec, meta), status });
  const cases: [string, KubeObject, [string, string, string]][] = [
    ['pending', base({ phase: 'Pending' }), ['0/1', 'Pending', '0']],
    ['reason wins', base({ phase: 'Failed', reason: 'Evicted' }), ['0/1', 'Evicted', '0']],
    ['running ready', base({ phase: 'Running', containerStatuses: [{ name: 'c', ready: true, restartCount: 3, state: { running: {} }, lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T00:05:00Z' } } }] }), ['1/1', 'Running', '3 (5m ago)']],
    ['waiting reason', base({ phase: 'Pending', containerStatuses: [{ name: 'c', state: { waiting: { reason: 'ContainerCreating' } } }] }), ['0/1', 'ContainerCreating', '0']],
    ['exit code', base({ phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 2 } } }] }), ['0/1', 'ExitCode:2', '0']],
    ['signal', base({ phase: 'Failed', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 137, signal: 9 } } }] }), ['0/1', 'Signal:9', '0']],
    ['init progress', base({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 0 } } }, { name: 'i2', state: { running: {} } }] }, { initContainers: [{ name: 'i1', image: 'x' }, { name: 'i2', image: 'x' }] }), ['0/1', 'Init:1/2', '0']],
    ['init waiting', base({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }, { initContainers: [{ name: 'i1', image: 'x' }] }), ['0/1', 'Init:CrashLoopBackOff', '2']],
    ['init exit', base({ phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 3 } } }] }, { initContainers: [{ name: 'i1', image: 'x' }] }), ['0/1', 'Init:ExitCode:3', '0']],
    ['completed but running', base({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: [{ name: 'a', ready: true, state: { running: {} } }, { name: 'b', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] }, { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] }), ['1/2', 'NotReady', '0']],
    ['terminating', base({ phase: 'Running' }, {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), ['0/1', 'Terminating', '0']],
    ['node lost', base({ phase: 'Running', reason: 'NodeLost' }, {}, { deletionTimestamp: '2026-01-01T00:00:00Z' }), ['0/1', 'Unknown', '0']],
  ];
  for (const [name, p, [ready, reason, restarts]] of cases) assert.equal(podStatusCells(p, now), { ready, reason, restarts }, name);
  const p = base({ phase: 'Succeeded', podIPs: [{ ip: '10.0.0.9' }], nominatedNodeName: 'n2', conditions: [{ type: 'g', status: 'True' }] }, { nodeName: 'n1', readinessGates: [{ conditionType: 'g' }, { conditionType: 'h' }] });
  assert.equal(podTable.cells(p).slice(5), ['10.0.0.9', 'n1', 'n2', '1/2']);
  assert.equal(podTable.rowConditions!(p), [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
  assert.equal(podTable.columns.map((c) => c.name), ['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
});

test.run();
