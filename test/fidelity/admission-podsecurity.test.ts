/**
 * The PodSecurity admission plugin as kube-apiserver 1.24 runs it with its default configuration:
 * namespace labels `pod-security.kubernetes.io/{enforce,audit,warn}[-version]` (invalid ones 422),
 * baseline and restricted checks refusing Pods (`violates PodSecurity "restricted:latest": …`),
 * warnings for Pods and workload templates (`would violate PodSecurity …`), older policy versions,
 * and the warnings of a namespace label change (also on a dry run) about existing Pods.
 *
 *   node --import tsx test/run.ts test/fidelity/admission-podsecurity.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/admission-podsecurity.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show, warnings } from '../assertions.ts';
import { startTarget, type Target } from '../target.ts';
import { forbiddenStatus } from './storage-helpers.ts';

const forbiddenPod = (name: string, message: string) => forbiddenStatus('pods', name, message);

let t: Target;

test.before(async () => {
  t = await startTarget();
});

test.after(async () => {
  await t.close();
});

const PSA = 'pod-security.kubernetes.io/';

/** A fresh namespace with these labels and its `default` ServiceAccount. */
async function namespace(prefix: string, labels: Record<string, string>): Promise<string> {
  const name = t.ns(prefix);
  const r = await t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
  assert.is(r.status, 201, show(r));
  const sa = await t.client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`service account: ${show(sa)}`);
  return name;
}

const pod = (name: string, spec: Record<string, unknown> = {}, c: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25', ...c }], ...spec },
});
const RESTRICTED_SC = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
const createPod = (ns: string, b: unknown, query = '') => t.client.request('POST', `/api/v1/namespaces/${ns}/pods${query}`, { body: b });

const RESTRICTED_DEFAULT_POD =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
  'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
  'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
  'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

test('namespace labels: invalid level or version refused with 422', async () => {
  const name = t.ns('psa-bad');
  const r = await t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [`${PSA}enforce`]: 'strict', [`${PSA}warn-version`]: '1.24' } } } });
  assert.equal(
    r.json,
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Namespace "${name}" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.24": must be "latest" or "v1.x"]`,
      reason: 'Invalid',
      details: {
        name,
        kind: 'Namespace',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "strict": must be one of privileged, baseline, restricted', field: 'metadata.labels[pod-security.kubernetes.io/enforce]' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: "1.24": must be "latest" or "v1.x"', field: 'metadata.labels[pod-security.kubernetes.io/warn-version]' },
        ],
      },
      code: 422,
    },
    show(r),
  );
});

test('enforce restricted: the default pod refused with every reason; a compliant pod admitted', async () => {
  const ns = await namespace('psa-restricted', { [`${PSA}enforce`]: 'restricted' });
  const r = await createPod(ns, pod('p'));
  assert.equal(r.json, forbiddenPod('p', `violates PodSecurity "restricted:latest": ${RESTRICTED_DEFAULT_POD}`), show(r));
  const dry = await createPod(ns, pod('p'), '?dryRun=All');
  assert.is(dry.status, 403, show(dry));
  const ok = await createPod(ns, pod('ok', {}, { securityContext: RESTRICTED_SC }));
  assert.is(ok.status, 201, show(ok));
  assert.equal(warnings(ok), []);
  // Pod-level settings count for every container; runAsUser=0 and extra capabilities do not pass.
  const root = await createPod(
    ns,
    pod(
      'root',
      { securityContext: { runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'Unconfined' } }, initContainers: [{ name: 'init', image: 'busybox', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE', 'SYS_TIME'] } } }] },
      { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsUser: 0 } },
    ),
  );
  assert.equal(
    root.json,
    forbiddenPod(
      'root',
      'violates PodSecurity "restricted:latest": unrestricted capabilities (container "init" must not include "SYS_TIME" in securityContext.capabilities.add), ' +
        'runAsUser=0 (pod and container "c" must not set runAsUser=0), seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined")',
    ),
    show(root),
  );
  // Updates that change no image are not checked; an ephemeral container added is.
  const label = await t.client.request('PATCH', `/api/v1/namespaces/${ns}/pods/ok`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
  assert.is(label.status, 200, show(label));
  const current = label.json as any;
  current.spec.ephemeralContainers = [{ name: 'debugger', image: 'busybox', terminationMessagePolicy: 'File', imagePullPolicy: 'Always' }];
  const eph = await t.client.request('PUT', `/api/v1/namespaces/${ns}/pods/ok/ephemeralcontainers`, { body: current });
  assert.equal(eph.json, forbiddenPod('ok', `violates PodSecurity "restricted:latest": ${RESTRICTED_DEFAULT_POD.replaceAll('"c"', '"debugger"')}`), show(eph));
});

test('enforce baseline, warn restricted: baseline violations refused, restricted ones warned', async () => {
  const ns = await namespace('psa-baseline', { [`${PSA}enforce`]: 'baseline', [`${PSA}warn`]: 'restricted', [`${PSA}audit`]: 'restricted' });
  const host = await createPod(
    ns,
    pod(
      'host',
      {
        hostIPC: true,
        hostPID: true,
        volumes: [{ name: 'root', hostPath: { path: '/' } }, { name: 'data', emptyDir: {} }],
        securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }], seLinuxOptions: { type: 'spc_t', user: 'root' } },
      },
      { ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 81, hostPort: 81 }], securityContext: { capabilities: { add: ['SYS_ADMIN', 'CHOWN', 'NET_ADMIN'] }, windowsOptions: { hostProcess: false } } },
      { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } },
    ),
  );
  assert.equal(
    host.json,
    forbiddenPod(
      'host',
      'violates PodSecurity "baseline:latest": forbidden AppArmor profile (container.apparmor.security.beta.kubernetes.io/c="unconfined"), ' +
        'non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_ADMIN" in securityContext.capabilities.add), ' +
        'host namespaces (hostPID=true, hostIPC=true), hostPath volumes (volume "root"), hostPort (container "c" uses hostPorts 8080, 81), ' +
        'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set), forbidden sysctls (kernel.msgmax)',
    ),
    show(host),
  );
  const warned = await createPod(ns, pod('warned'));
  assert.is(warned.status, 201, show(warned));
  assert.equal(warnings(warned), [`would violate PodSecurity "restricted:latest": ${RESTRICTED_DEFAULT_POD}`]);
  const deploy = await t.client.request('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'd' } }, template: { metadata: { labels: { a: 'd' } }, spec: { hostIPC: true, containers: [{ name: 'c', image: 'nginx' }] } } },
    },
  });
  assert.is(deploy.status, 201, show(deploy));
  assert.equal(warnings(deploy), [`would violate PodSecurity "restricted:latest": host namespaces (hostIPC=true), ${RESTRICTED_DEFAULT_POD}`], 'workloads are warned, not refused');
});

test('policy versions: restricted v1.21 has no capabilities or runAsUser checks; v1.24 is latest', async () => {
  const ns = await namespace('psa-version', { [`${PSA}enforce`]: 'restricted', [`${PSA}enforce-version`]: 'v1.21', [`${PSA}warn`]: 'restricted', [`${PSA}warn-version`]: 'v1.24' });
  const sc = { allowPrivilegeEscalation: false, runAsNonRoot: true, runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } };
  const r = await createPod(ns, pod('old', {}, { securityContext: sc }));
  assert.is(r.status, 201, show(r));
  assert.equal(warnings(r), ['would violate PodSecurity "restricted:v1.24": unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsUser=0 (container "c" must not set runAsUser=0)']);
  const caps = await createPod(ns, pod('caps', {}, { securityContext: { ...sc, capabilities: { add: ['SYS_ADMIN'] } } }));
  assert.equal(caps.json, forbiddenPod('caps', 'violates PodSecurity "restricted:v1.21": non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)'), show(caps));
});

test('namespace label change: warnings about existing pods (dry run too), nothing for privileged', async () => {
  const ns = await namespace('psa-label', {});
  for (const n of ['b', 'a', 'c']) assert.is((await createPod(ns, pod(n))).status, 201);
  assert.is((await createPod(ns, pod('host', { hostPID: true }, { securityContext: RESTRICTED_SC }))).status, 201);
  assert.is((await createPod(ns, pod('good', {}, { securityContext: RESTRICTED_SC }))).status, 201);
  const path = `/api/v1/namespaces/${ns}`;
  const merge = (labels: Record<string, string | null>, query = '') => t.client.request('PATCH', `${path}${query}`, { body: { metadata: { labels } }, contentType: 'application/merge-patch+json' });
  const want = [
    `existing pods in namespace "${ns}" violate the new PodSecurity enforce level "restricted:latest"`,
    'a (and 2 other pods): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile',
    'host: host namespaces',
  ];
  const dry = await merge({ [`${PSA}enforce`]: 'restricted' }, '?dryRun=All');
  assert.is(dry.status, 200, show(dry));
  assert.equal(warnings(dry), want);
  assert.is((await t.client.request('GET', path)).json.metadata.labels?.[`${PSA}enforce`], undefined, 'a dry run changes nothing');
  const baseline = await merge({ [`${PSA}enforce`]: 'baseline' });
  assert.equal(warnings(baseline), [`existing pods in namespace "${ns}" violate the new PodSecurity enforce level "baseline:latest"`, 'host: host namespaces']);
  const same = await merge({ [`${PSA}enforce`]: 'baseline', [`${PSA}warn`]: 'restricted' });
  assert.equal(warnings(same), [], 'enforce unchanged');
  const looser = await merge({ [`${PSA}enforce`]: 'privileged' });
  assert.equal(warnings(looser), []);
  const invalidUpdate = await merge({ [`${PSA}audit`]: 'nope' });
  assert.is(invalidUpdate.status, 422, show(invalidUpdate));
});

test.run();
