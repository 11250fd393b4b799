/**
 * PodSecurity configured by --admission-control-config-file (test/fidelity/golden/
 * podsecurity-admission-config.yaml → its PodSecurityConfiguration in a relative `path`): the
 * defaults (enforce baseline, audit restricted, warn restricted:v1.23) apply to namespaces
 * without labels and fill the modes a namespace does not label; the exemptions (a username, a
 * namespace, a runtime class) skip every check, for Pods and for workload templates.
 *
 *   node --import tsx test/run.ts test/fidelity/admission-podsecurity-config.test.ts
 *   EXTRA_APISERVER_FLAGS=--admission-control-config-file=$PWD/test/fidelity/golden/podsecurity-admission-config.yaml \
 *     ../shared/reference/start.sh /tmp/ref-psa 16597
 *   TEST_KUBECONFIG=/tmp/ref-psa/kubeconfig node --import tsx test/run.ts test/fidelity/admission-podsecurity-config.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show, warnings } from '../assertions.ts';
import { startTarget, type Target } from '../target.ts';

const CONFIG = new URL('./golden/podsecurity-admission-config.yaml', import.meta.url).pathname;
const EXEMPT_NS = 'psa-exempt-ns';
const EXEMPT_RC = 'psa-exempt-rc';
let t: Target;
let plain = '';
let privilegedNs = '';

async function namespace(name: string, labels: Record<string, string> = {}): Promise<void> {
  const r = await t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
  if (r.status !== 201 && r.status !== 409) throw new Error(`namespace ${name}: ${show(r)}`);
  const sa = await t.client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  if (sa.status !== 201 && sa.status !== 409) throw new Error(`service account: ${show(sa)}`);
}

const HOST_NETWORK = { hostNetwork: true };
const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec },
});
const createPod = (ns: string, b: unknown, headers: Record<string, string> = {}) => t.client.request('POST', `/api/v1/namespaces/${ns}/pods`, { body: b, headers });
const RESTRICTED = 'would violate PodSecurity "restricted:v1.23": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';
const RESTRICTED_HOST = RESTRICTED.replace('restricted:v1.23": ', 'restricted:v1.23": host namespaces (hostNetwork=true), ');
/** An admin impersonating the exempt user (still in system:masters, so allowed everything). */
const AS_EXEMPT = { 'Impersonate-User': 'psa-exempt-user', 'Impersonate-Group': 'system:masters' };

test.before(async () => {
  t = await startTarget({ admissionControlConfigFile: CONFIG });
  plain = t.ns('psacfg');
  privilegedNs = t.ns('psacfgpriv');
  await namespace(plain);
  await namespace(privilegedNs, { 'pod-security.kubernetes.io/enforce': 'privileged' });
  await namespace(EXEMPT_NS);
  const rc = await t.client.request('POST', '/apis/node.k8s.io/v1/runtimeclasses', { body: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: EXEMPT_RC }, handler: 'runc' } });
  if (rc.status !== 201 && rc.status !== 409) throw new Error(`runtime class: ${show(rc)}`);
});
test.after(async () => {
  for (const ns of [plain, privilegedNs, EXEMPT_NS]) await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.client.request('DELETE', `/apis/node.k8s.io/v1/runtimeclasses/${EXEMPT_RC}`);
  await t.close();
});

test('defaults: an unlabeled namespace enforces baseline and warns restricted:v1.23', async () => {
  const denied = await createPod(plain, pod('host', HOST_NETWORK));
  assert.is(denied.status, 403, show(denied));
  assert.is(denied.json.message, 'pods "host" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)');
  assert.equal(warnings(denied), []);
  const ok = await createPod(plain, pod('plain'));
  assert.is(ok.status, 201, show(ok));
  assert.equal(warnings(ok), [RESTRICTED]);
});

test('a namespace label overrides its mode only; the other modes keep the defaults', async () => {
  const r = await createPod(privilegedNs, pod('host', HOST_NETWORK));
  assert.is(r.status, 201, show(r));
  assert.equal(warnings(r), [RESTRICTED_HOST]);
});

test('exemptions: namespace, username and runtime class skip every mode', async () => {
  const inNs = await createPod(EXEMPT_NS, pod(`host-${plain}`, HOST_NETWORK));
  assert.is(inNs.status, 201, show(inNs));
  assert.equal(warnings(inNs), []);
  const byUser = await createPod(plain, pod('host-user', HOST_NETWORK), AS_EXEMPT);
  assert.is(byUser.status, 201, show(byUser));
  assert.equal(warnings(byUser), []);
  const byRc = await createPod(plain, pod('host-rc', { ...HOST_NETWORK, runtimeClassName: EXEMPT_RC }));
  assert.is(byRc.status, 201, show(byRc));
  assert.equal(warnings(byRc), []);
  await t.client.request('DELETE', `/api/v1/namespaces/${EXEMPT_NS}/pods/host-${plain}`);
});

test('workloads: warned under the defaults, not when exempt', async () => {
  const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas: 0, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } } },
  });
  const post = (b: unknown, headers: Record<string, string> = {}) => t.client.request('POST', `/apis/apps/v1/namespaces/${plain}/deployments`, { body: b, headers });
  const warned = await post(deployment('warned', HOST_NETWORK));
  assert.is(warned.status, 201, show(warned));
  assert.equal(warnings(warned), [RESTRICTED_HOST]);
  const byUser = await post(deployment('by-user', HOST_NETWORK), AS_EXEMPT);
  assert.is(byUser.status, 201, show(byUser));
  assert.equal(warnings(byUser), []);
  const byRc = await post(deployment('by-rc', { ...HOST_NETWORK, runtimeClassName: EXEMPT_RC }));
  assert.is(byRc.status, 201, show(byRc));
  assert.equal(warnings(byRc), []);
});

test.run();
