/**
 * The ServiceAccount admission plugin against a real (embedded) storage: account lookups with
 * kube's retries, the mutations, and the Status of each refusal.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from '../storage/storage.ts';
import { Registry } from '../registry/registry.ts';
import { AdmissionChain, type AdmissionAttributes, type AdmissionOperation } from './chain.ts';
import { coreKinds } from '../registry/core/index.ts';
import { configMapKind } from '../registry/core/configmap.ts';
import { systemContext } from '../registry/generic/context.ts';
import type { KubeObject } from '../api/types.ts';
import { ApiError } from '../api/errors.ts';
import { serviceAccountAdmission, DEFAULT_ACCOUNT_ATTEMPTS } from './service-account.ts';
import { DEFAULT_API_TOKEN_MOUNT_PATH } from './service-account-pod.ts';

let dir: string;
let storage: Storage;
let registry: Registry;
const ctx = systemContext('test');
/** Only the names matter to the plugin (resource `pods`, group ''). */
const podsKind = { ...configMapKind, resource: 'pods', kind: 'Pod', singular: 'pod', listKind: 'PodList' };
let sleeps: number[] = [];
let onSleep: ((n: number) => Promise<void>) | null = null;

const plugin = () =>
  serviceAccountAdmission(storage, {
    sleep: async (ms) => {
      sleeps.push(ms);
      await onSleep?.(sleeps.length);
    },
    generateName: (base) => `${base}abcde`,
  });

test.before.each(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sa-admission-'));
  storage = await Storage.openEmbedded({ dataDir: dir, historyWindowMs: 60_000, sync: false });
  registry = new Registry(coreKinds, storage, new AdmissionChain([], []));
  await registry.lookup('', 'v1', 'namespaces')!.store.create(ctx, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
  sleeps = [];
  onSleep = null;
});
test.after.each(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const createSA = (name: string, fields: Record<string, unknown> = {}, annotations?: Record<string, string>) =>
  registry.lookup('', 'v1', 'serviceaccounts')!.store.create(ctx, 'n', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, ...(annotations ? { annotations } : {}) }, ...fields });

const pod = (spec: Record<string, unknown> = { containers: [{ name: 'c', image: 'i' }] }, meta: Record<string, unknown> = { name: 'p' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: 'n', ...meta },
  spec,
});

const attrs = (object: KubeObject, operation: AdmissionOperation = 'CREATE', subresource = '', kind = podsKind): AdmissionAttributes => ({
  operation,
  kind,
  subresource,
  namespace: 'n',
  name: object.metadata.name ?? '',
  object,
  oldObject: operation === 'UPDATE' ? structuredClone(object) : null,
  user: ctx.user,
  dryRun: false,
});

async function refusal(p: Promise<unknown> | unknown): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

test('missing default account: 403 after 10 lookups 100–200 ms apart', async () => {
  const e = await refusal(plugin().admit(attrs(pod())));
  assert.equal(e.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'pods "p" is forbidden: error looking up service account n/default: serviceaccount "default" not found',
    reason: 'Forbidden',
    details: { name: 'p', kind: 'pods' },
    code: 403,
  });
  assert.is(sleeps.length, DEFAULT_ACCOUNT_ATTEMPTS - 1);
  assert.ok(sleeps.every((ms) => ms >= 100 && ms < 200 && ms === sleeps[0]), JSON.stringify(sleeps));
});

test('missing named account: one lookup; the deprecated serviceAccount field names it; generateName in the error', async () => {
  const p = pod({ serviceAccount: 'nope', containers: [{ name: 'c', image: 'i' }] }, { generateName: 'p-', name: 'p-xyz12' });
  const e = await refusal(plugin().admit(attrs(p)));
  assert.is(e.status.message, 'pods "p-" is forbidden: error looking up service account n/nope: serviceaccount "nope" not found');
  assert.equal(e.status.details, { name: 'p-', kind: 'pods' });
  assert.is(sleeps.length, 0);
});

test('the default account created while the plugin retries (the controller catching up) is found', async () => {
  onSleep = async (n) => {
    if (n === 3) await createSA('default');
  };
  const p = pod();
  await plugin().admit(attrs(p));
  assert.is(sleeps.length, 3);
  assert.is((p.spec as any).serviceAccountName, 'default');
});

test('admitted: default account named, token volume and mount added', async () => {
  await createSA('default');
  const p = pod({ initContainers: [{ name: 'i', image: 'i' }], containers: [{ name: 'c', image: 'i' }] });
  await plugin().admit(attrs(p));
  const spec = p.spec as any;
  assert.is(spec.serviceAccountName, 'default');
  assert.is(spec.serviceAccount, 'default');
  const mount = { name: 'kube-api-access-abcde', readOnly: true, mountPath: DEFAULT_API_TOKEN_MOUNT_PATH };
  assert.equal(spec.containers[0].volumeMounts, [mount]);
  assert.equal(spec.initContainers[0].volumeMounts, [mount]);
  assert.is(spec.volumes.length, 1);
  assert.is(spec.volumes[0].name, 'kube-api-access-abcde');
  assert.is(spec.volumes[0].projected.defaultMode, 420);
  assert.is(sleeps.length, 0);
  // The validating phase passes on the admitted pod.
  await plugin().validate(attrs(p));
});

test('automount: the account says no; the pod overrides it', async () => {
  await createSA('quiet', { automountServiceAccountToken: false, imagePullSecrets: [{ name: 'reg' }] });
  const p = pod({ serviceAccountName: 'quiet', containers: [{ name: 'c', image: 'i' }] });
  await plugin().admit(attrs(p));
  assert.is((p.spec as any).volumes, undefined);
  assert.is((p.spec as any).containers[0].volumeMounts, undefined);
  assert.equal((p.spec as any).imagePullSecrets, [{ name: 'reg' }]);
  const q = pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true, containers: [{ name: 'c', image: 'i' }] });
  await plugin().admit(attrs(q));
  assert.is((q.spec as any).volumes.length, 1);
});

test('enforce-mountable-secrets: a secret the account does not list is refused (mutating phase)', async () => {
  await createSA('strict', { secrets: [{ name: 'ok' }] }, { 'kubernetes.io/enforce-mountable-secrets': 'true' });
  const bad = pod({ serviceAccountName: 'strict', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'other' } }] });
  const e = await refusal(plugin().admit(attrs(bad)));
  assert.is(e.code, 403);
  assert.is(e.status.message, 'pods "p" is forbidden: volume with secret.secretName="other" is not allowed because service account strict does not reference that secret');
  const good = pod({ serviceAccountName: 'strict', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'ok' } }] });
  await plugin().admit(attrs(good));
});

test('validating phase: the account deleted after admission is refused, naming the pod', async () => {
  await createSA('default');
  const p = pod();
  await plugin().admit(attrs(p));
  await registry.lookup('', 'v1', 'serviceaccounts')!.store.delete(ctx, 'n', 'default', {});
  const e = await refusal(plugin().validate(attrs(p)));
  assert.is(e.status.message, 'pods "p" is forbidden: error looking up service account n/default: serviceaccount "default" not found');
});

test('mirror pods: not mutated; refused when they reference an account', async () => {
  const M = { name: 'm', annotations: { 'kubernetes.io/config.mirror': 'x' } };
  const p = pod({ containers: [{ name: 'c', image: 'i' }] }, M);
  await plugin().admit(attrs(p));
  assert.equal(p.spec, { containers: [{ name: 'c', image: 'i' }] });
  const e = await refusal(plugin().admit(attrs(pod({ serviceAccountName: 'default', containers: [] }, M))));
  assert.is(e.status.message, 'pods "m" is forbidden: a mirror pod may not reference service accounts');
});

test('ignored: updates (no mutation), other subresources, other resources', async () => {
  const p = pod();
  await plugin().admit(attrs(p, 'UPDATE'));
  await plugin().validate(attrs(p, 'UPDATE'));
  await plugin().admit(attrs(p, 'CREATE', 'status'));
  await plugin().admit(attrs(p, 'CREATE', '', configMapKind));
  assert.equal(p.spec, { containers: [{ name: 'c', image: 'i' }] });
  assert.is(sleeps.length, 0);
});

test('pods/ephemeralcontainers update: account required; ephemeral env secrets limited (a reason-less 500)', async () => {
  const withEphemeral = (sa: string) =>
    pod({ serviceAccountName: sa, containers: [{ name: 'c', image: 'i' }], ephemeralContainers: [{ name: 'e', image: 'i', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] });
  const missing = await refusal(plugin().validate(attrs(withEphemeral('gone'), 'UPDATE', 'ephemeralcontainers')));
  assert.is(missing.status.message, 'pods "p" is forbidden: error looking up service account n/gone: serviceaccount "gone" not found');
  await createSA('loose');
  await plugin().validate(attrs(withEphemeral('loose'), 'UPDATE', 'ephemeralcontainers'));
  await createSA('strict', {}, { 'kubernetes.io/enforce-mountable-secrets': 'true' });
  const e = await refusal(plugin().validate(attrs(withEphemeral('strict'), 'UPDATE', 'ephemeralcontainers')));
  assert.equal(e.status, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'ephemeral container e with envVar X referencing secret.secretName="s" is not allowed because service account strict does not reference that secret',
    code: 500,
  });
});

test.run();
