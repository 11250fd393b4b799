import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import {
  DEFAULT_API_TOKEN_MOUNT_PATH as PATH,
  copyImagePullSecrets,
  enforceMountableSecrets,
  isMirrorPod,
  limitEphemeralContainerSecretReferences,
  limitSecretReferences,
  mirrorPodRefusal,
  mountServiceAccountToken,
  parseGoBool,
  podReferencesSecrets,
  serviceAccountNameOf,
  setServiceAccountName,
  shouldAutomount,
  simpleNameGenerator,
  tokenVolumeSource,
} from './service-account-pod.ts';

const pod = (spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'n', ...(annotations ? { annotations } : {}) },
  spec,
});
const sa = (fields: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'default', namespace: 'n', ...(annotations ? { annotations } : {}) },
  ...fields,
});
const fixedName = (base: string): string => `${base}abcde`;
const MOUNT = { name: 'kube-api-access-abcde', readOnly: true, mountPath: PATH };

test('the projected token volume as kube stores it', () => {
  assert.equal(tokenVolumeSource(), {
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 420,
  });
});

test('generated volume names: base + 5 characters of utilrand alphabet', () => {
  for (let i = 0; i < 50; i++) assert.match(simpleNameGenerator('kube-api-access-'), /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
});

const nameCases: [string, Record<string, unknown>, string][] = [
  ['neither', {}, ''],
  ['serviceAccountName', { serviceAccountName: 'a' }, 'a'],
  ['deprecated serviceAccount alone', { serviceAccount: 'b' }, 'b'],
  ['both: serviceAccountName wins', { serviceAccountName: 'a', serviceAccount: 'b' }, 'a'],
  ['empty serviceAccountName falls back', { serviceAccountName: '', serviceAccount: 'b' }, 'b'],
];
nameCases.forEach(([label, spec, want], i) => {
  test(`serviceAccountNameOf ${i}: ${label}`, () => assert.is(serviceAccountNameOf(pod(spec)), want));
});

test('setServiceAccountName writes both fields', () => {
  const p = pod({ serviceAccountName: 'a', serviceAccount: 'b' });
  setServiceAccountName(p, 'a');
  assert.equal(p.spec, { serviceAccountName: 'a', serviceAccount: 'a' });
});

const automountCases: [string, unknown, unknown, boolean][] = [
  ['neither: true', undefined, undefined, true],
  ['account false', undefined, false, false],
  ['account true', undefined, true, true],
  ['pod false wins over account true', false, true, false],
  ['pod true wins over account false', true, false, true],
];
automountCases.forEach(([label, p, s, want], i) => {
  test(`shouldAutomount ${i}: ${label}`, () => {
    const po = pod(p === undefined ? {} : { automountServiceAccountToken: p });
    const a = sa(s === undefined ? {} : { automountServiceAccountToken: s });
    assert.is(shouldAutomount(a, po), want);
  });
});

test('parseGoBool and the enforce-mountable-secrets annotation', () => {
  for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.is(parseGoBool(t), true, t);
  for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.is(parseGoBool(f), false, f);
  for (const x of ['', 'yes', 'tRuE', ' true']) assert.is(parseGoBool(x), undefined, x);
  assert.is(enforceMountableSecrets(sa()), false);
  assert.is(enforceMountableSecrets(sa({}, { 'kubernetes.io/enforce-mountable-secrets': 'true' })), true);
  assert.is(enforceMountableSecrets(sa({}, { 'kubernetes.io/enforce-mountable-secrets': 'T' })), true);
  assert.is(enforceMountableSecrets(sa({}, { 'kubernetes.io/enforce-mountable-secrets': 'yes' })), false);
});

interface MountCase {
  name: string;
  spec: Record<string, unknown>;
  want: Record<string, unknown>;
}
const VOLUME = { name: 'kube-api-access-abcde', projected: tokenVolumeSource() };
const mountCases: MountCase[] = [
  {
    name: 'one container, no volumes',
    spec: { containers: [{ name: 'c' }] },
    want: { containers: [{ name: 'c', volumeMounts: [MOUNT] }], volumes: [VOLUME] },
  },
  {
    name: 'appended after existing mounts and volumes; init containers too',
    spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', emptyDir: {} }] },
    want: {
      initContainers: [{ name: 'i', volumeMounts: [MOUNT] }],
      containers: [{ name: 'c', volumeMounts: [{ name: 'v', mountPath: '/v' }, MOUNT] }],
      volumes: [{ name: 'v', emptyDir: {} }, VOLUME],
    },
  },
  {
    name: 'a container already mounting the path is left alone',
    spec: { containers: [{ name: 'c' }, { name: 'd', volumeMounts: [{ name: 'v', mountPath: PATH }] }], volumes: [{ name: 'v', emptyDir: {} }] },
    want: {
      containers: [{ name: 'c', volumeMounts: [MOUNT] }, { name: 'd', volumeMounts: [{ name: 'v', mountPath: PATH }] }],
      volumes: [{ name: 'v', emptyDir: {} }, VOLUME],
    },
  },
  {
    name: 'every container mounts the path: no volume',
    spec: { containers: [{ name: 'd', volumeMounts: [{ name: 'v', mountPath: PATH }] }], volumes: [{ name: 'v', emptyDir: {} }] },
    want: { containers: [{ name: 'd', volumeMounts: [{ name: 'v', mountPath: PATH }] }], volumes: [{ name: 'v', emptyDir: {} }] },
  },
  {
    name: 'an existing kube-api-access-* volume is reused, not added',
    spec: { containers: [{ name: 'c' }], volumes: [{ name: 'kube-api-access-zzzzz', emptyDir: {} }] },
    want: { containers: [{ name: 'c', volumeMounts: [{ ...MOUNT, name: 'kube-api-access-zzzzz' }] }], volumes: [{ name: 'kube-api-access-zzzzz', emptyDir: {} }] },
  },
  {
    name: 'ephemeral containers are not mounted',
    spec: { containers: [{ name: 'c' }], ephemeralContainers: [{ name: 'e' }] },
    want: { containers: [{ name: 'c', volumeMounts: [MOUNT] }], ephemeralContainers: [{ name: 'e' }], volumes: [VOLUME] },
  },
  { name: 'no containers at all: nothing', spec: {}, want: {} },
];
mountCases.forEach((c, i) => {
  test(`mountServiceAccountToken ${i}: ${c.name}`, () => {
    const p = pod(structuredClone(c.spec));
    mountServiceAccountToken(p, fixedName);
    assert.equal(p.spec, c.want);
  });
});

const pullCases: [string, Record<string, unknown>, Record<string, unknown>, unknown][] = [
  ['pod has none, account has some: copied (names only)', {}, { imagePullSecrets: [{ name: 'a' }, {}] }, [{ name: 'a' }, {}]],
  ['pod has some: kept', { imagePullSecrets: [{ name: 'mine' }] }, { imagePullSecrets: [{ name: 'a' }] }, [{ name: 'mine' }]],
  ['neither: absent', {}, {}, undefined],
  ['pod has an empty list, account some: copied', { imagePullSecrets: [] }, { imagePullSecrets: [{ name: 'a' }] }, [{ name: 'a' }]],
];
pullCases.forEach(([label, spec, fields, want], i) => {
  test(`copyImagePullSecrets ${i}: ${label}`, () => {
    const p = pod(structuredClone(spec));
    copyImagePullSecrets(sa(fields), p);
    assert.equal((p.spec as Record<string, unknown>).imagePullSecrets, want);
  });
});

test('mirror pods: recognized by annotation; refusals in kube order', () => {
  const M = { 'kubernetes.io/config.mirror': 'x' };
  assert.ok(isMirrorPod(pod({}, M)));
  assert.not.ok(isMirrorPod(pod({})));
  assert.is(mirrorPodRefusal(pod({ containers: [{ name: 'c' }] }, M)), '');
  assert.is(mirrorPodRefusal(pod({ serviceAccount: 'x' }, M)), 'a mirror pod may not reference service accounts');
  assert.is(mirrorPodRefusal(pod({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, M)), 'a mirror pod may not reference secrets');
  assert.is(
    mirrorPodRefusal(pod({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, M)),
    'a mirror pod may not use ServiceAccountToken volume projections',
  );
});

const secretRefCases: [string, Record<string, unknown>, boolean][] = [
  ['nothing', { containers: [{ name: 'c' }] }, false],
  ['image pull secret', { imagePullSecrets: [{ name: 's' }] }, true],
  ['empty names are skipped', { imagePullSecrets: [{}], volumes: [{ name: 'v', secret: {} }] }, false],
  ['envFrom secretRef', { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 's' } }] }] }, true],
  ['env secretKeyRef in an ephemeral container', { ephemeralContainers: [{ name: 'e', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, true],
  ['projected secret', { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's' } }] } }] }, true],
  ['csi nodePublishSecretRef', { volumes: [{ name: 'v', csi: { driver: 'd', nodePublishSecretRef: { name: 's' } } }] }, true],
  ['azureFile secretName', { volumes: [{ name: 'v', azureFile: { secretName: 's', shareName: 'x' } }] }, true],
  ['configMap volume is no secret', { volumes: [{ name: 'v', configMap: { name: 's' } }] }, false],
];
secretRefCases.forEach(([label, spec, want], i) => {
  test(`podReferencesSecrets ${i}: ${label}`, () => assert.is(podReferencesSecrets(pod(spec)), want));
});

const limitCases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
  ['all allowed', { secrets: [{ name: 's' }], imagePullSecrets: [{ name: 'p' }] }, { volumes: [{ name: 'v', secret: { secretName: 's' } }], imagePullSecrets: [{ name: 'p' }] }, ''],
  [
    'secret volume',
    {},
    { volumes: [{ name: 'v', secret: { secretName: 's' } }] },
    'volume with secret.secretName="s" is not allowed because service account default does not reference that secret',
  ],
  [
    'init container env first',
    {},
    {
      initContainers: [{ name: 'i', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }],
      containers: [{ name: 'c', env: [{ name: 'B', valueFrom: { secretKeyRef: { name: 'y', key: 'k' } } }] }],
    },
    'init container i with envVar A referencing secret.secretName="x" is not allowed because service account default does not reference that secret',
  ],
  [
    'container env',
    { secrets: [{ name: 'x' }] },
    { containers: [{ name: 'c', env: [{ name: 'B', valueFrom: { secretKeyRef: { name: 'y', key: 'k' } } }] }] },
    'container c with envVar B referencing secret.secretName="y" is not allowed because service account default does not reference that secret',
  ],
  [
    'image pull secret (listed as a secret is not enough)',
    { secrets: [{ name: 'p' }] },
    { imagePullSecrets: [{ name: 'ok' }, { name: 'p' }] },
    'imagePullSecrets[0].name="ok" is not allowed because service account default does not reference that imagePullSecret',
  ],
  ['envFrom is not checked (kube only checks env)', {}, { containers: [{ name: 'c', envFrom: [{ secretRef: { name: 's' } }] }] }, ''],
  ['projected secrets are not checked', {}, { volumes: [{ name: 'v', projected: { sources: [{ secret: { name: 's' } }] } }] }, ''],
];
limitCases.forEach(([label, fields, spec, want], i) => {
  test(`limitSecretReferences ${i}: ${label}`, () => assert.is(limitSecretReferences(sa(fields), pod(spec)), want));
});

test('limitEphemeralContainerSecretReferences: only ephemeral containers env', () => {
  const p = pod({
    containers: [{ name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'x', key: 'k' } } }] }],
    ephemeralContainers: [{ name: 'e', env: [{ name: 'B', valueFrom: { secretKeyRef: { name: 'y', key: 'k' } } }] }],
  });
  assert.is(
    limitEphemeralContainerSecretReferences(sa(), p),
    'ephemeral container e with envVar B referencing secret.secretName="y" is not allowed because service account default does not reference that secret',
  );
  assert.is(limitEphemeralContainerSecretReferences(sa({ secrets: [{ name: 'y' }] }), p), '');
});

test.run();
