/**
 * The go-cmp diff kube-apiserver 1.24 appends to "pod updates may not change fields other than …"
 * and "existing ephemeral containers … may not be changed" (internal/gocompat/cmp.ts on the types of internal/registry/core/cmpdiff.ts):
 * every message must equal the one recorded from the reference in
 * test/fidelity/golden/pod-diffs.txt (checked against the reference too). go-cmp writes regular or
 * non-breaking spaces after its markers, chosen once per process: both read as regular spaces here.
 * Regenerate the golden file from the reference:
 *
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/pods-diff.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';

const GOLDEN = new URL('./golden/pod-diffs.txt', import.meta.url);
let t: Target;
let ns: string;
let P: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('poddiff');
  P = `/api/v1/namespaces/${ns}/pods`;
  if (t.reference) await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
});
test.after(async () => {
  const l = await t.client.request('GET', P);
  for (const p of ((l.json as any)?.items ?? []) as any[]) await t.client.request('DELETE', `${P}/${p.metadata.name}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('update diffs read as the reference writes them', async () => {
  const out: string[] = [];
  const mk = async (name: string, spec: any = {}) => (await t.client.request('POST', P, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { serviceAccountName: 'default', automountServiceAccountToken: false, containers: [{ name: 'c', image: 'nginx:1.25' }], ...spec } } })).json as any;
  const tryPut = async (name: string, f: (s: any) => void, sub = '') => {
    const p = (await t.client.request('GET', `${P}/${name}`)).json as any;
    f(p.spec);
    const r = await t.client.request('PUT', `${P}/${name}${sub}`, { body: p });
    out.push(`=== ${name}: ${r.status}\n${String((r.json as any)?.details?.causes?.map((c: any) => c.message).join('\n#\n')).replace(/\u00a0/g, ' ')}`);
  };
  await mk('a', { volumes: [{ name: 'v', emptyDir: {} }], containers: [{ name: 'c', image: 'nginx:1.25', ports: [{ containerPort: 80 }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }], nodeSelector: { a: 'b' } });
  await tryPut('a', (s) => { s.restartPolicy = 'Never'; s.dnsPolicy = 'Default'; });
  await tryPut('a', (s) => { s.nodeSelector = { a: 'c', d: 'e' }; });
  await tryPut('a', (s) => { s.containers[0].ports.push({ containerPort: 81 }); });
  await tryPut('a', (s) => { s.schedulerName = 'other'; s.hostname = 'h'; });
  await tryPut('a', (s) => { s.volumes[0].emptyDir = { medium: 'Memory' }; });
  await tryPut('a', (s) => { s.containers[0].env = [{ name: 'A', value: 'b' }]; s.terminationGracePeriodSeconds = 5; });
  await tryPut('a', (s) => { s.hostNetwork = true; s.containers[0].ports[0].hostPort = 80; });
  await mk('e');
  await tryPut('e', (s) => { s.ephemeralContainers = [{ name: 'dbg', image: 'busybox', command: ['sh'] }]; }, '/ephemeralcontainers');
  await tryPut('e', (s) => { s.ephemeralContainers[0].image = 'alpine'; s.ephemeralContainers[0].stdin = true; }, '/ephemeralcontainers');

  const got = `${out.join('\n')}\n`;
  if (process.env.UPDATE_GOLDEN && t.reference) writeFileSync(GOLDEN, got);
  const want = readFileSync(GOLDEN, 'utf8');
  const gotParts = got.split('=== ');
  const wantParts = want.split('=== ');
  wantParts.forEach((w, i) => assert.fixture(gotParts[i] ?? '', w));
  assert.is(gotParts.length, wantParts.length);
});

test.run();
