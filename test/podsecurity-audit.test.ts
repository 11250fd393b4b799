/**
 * PodSecurity's audit annotations in this server's audit log (the reference's audit log is not
 * reachable from the fidelity suites, so this runs here only; the keys and texts are
 * pod-security-admission v0.24's: `pod-security.kubernetes.io/enforce-policy` on every evaluated
 * pod, `…/audit-violations` when the audit level is violated).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { show } from './assertions.ts';

let dir: string;
let s: TestServer;

test.before(async () => {
  dir = tempDir();
  writeFileSync(join(dir, 'policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources:\n  - group: ""\n    resources: ["pods"]\n');
  s = await startTestServer({ auditLogPath: join(dir, 'audit.log'), auditPolicyFile: join(dir, 'policy.yaml') });
});
test.after(async () => {
  await s.close();
});

type Ev = Record<string, any>;
async function annotationsOf(id: string): Promise<Record<string, string>> {
  await new Promise((r) => setTimeout(r, 100));
  const evs = readFileSync(join(dir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Ev);
  const done = evs.find((e) => e.auditID === id && e.stage === 'ResponseComplete');
  return Object.fromEntries(Object.entries(done?.annotations ?? {}).filter(([k]) => k.startsWith('pod-security.kubernetes.io/'))) as Record<string, string>;
}

async function namespace(name: string, labels: Record<string, string>): Promise<void> {
  assert.is((await s.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } })).status, 201);
  const sa = await s.client.request('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  assert.ok(sa.status === 201 || sa.status === 409, show(sa));
}

const pod = (name: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx' }] } });

test('privileged namespace: enforce-policy privileged:latest', async () => {
  await namespace('psa-audit-priv', {});
  const r = await s.client.request('POST', '/api/v1/namespaces/psa-audit-priv/pods', { body: pod('p') });
  assert.is(r.status, 201, show(r));
  assert.equal(await annotationsOf(String(r.headers['audit-id'])), { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
});

test('audit restricted: audit-violations; an enforce refusal annotated too', async () => {
  await namespace('psa-audit', { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/audit': 'restricted' });
  const r = await s.client.request('POST', '/api/v1/namespaces/psa-audit/pods', { body: pod('p') });
  assert.is(r.status, 201, show(r));
  assert.equal(await annotationsOf(String(r.headers['audit-id'])), {
    'pod-security.kubernetes.io/audit-violations':
      'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    'pod-security.kubernetes.io/enforce-policy': 'baseline:latest',
  });
  const denied = await s.client.request('POST', '/api/v1/namespaces/psa-audit/pods', { body: { ...pod('host'), spec: { ...pod('host').spec, hostPID: true } } });
  assert.is(denied.status, 403, show(denied));
  const a = await annotationsOf(String(denied.headers['audit-id']));
  assert.is(a['pod-security.kubernetes.io/enforce-policy'], 'baseline:latest');
  assert.match(a['pod-security.kubernetes.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": host namespaces \(hostPID=true\), allowPrivilegeEscalation/);
});

test.run();
