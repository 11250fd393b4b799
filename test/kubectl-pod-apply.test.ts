/**
 * A Pod through kubectl's client-side → server-side apply migration, here and (TEST_KUBECONFIG) on
 * the reference kube-apiserver 1.24 (issue 24): a Pod applied client-side with serviceAccountName
 * carries the deprecated v1 alias `serviceAccount` in its stored form; kube compares Pod specs in
 * its internal form, which has no `serviceAccount`, so neither the migration, a later server-side
 * apply nor a merge patch that clears the alias is a forbidden spec change. status.podIP, the alias
 * of status.podIPs[0], goes through the same round trip on a status write. The reference needs the
 * ServiceAccount to exist (no controller-manager creates `default` there), so the test makes it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTarget, type Target } from './target.ts';
import { kubectlFor, kubectlSuite, type Kubectl } from './kubectl-run.ts';

let t: Target;
let k: Kubectl;
let ns: string;
const files = mkdtempSync(join(tmpdir(), 'kubectl-pod-apply-'));

function podYaml(name: string, image: string, label: string): string {
  const f = join(files, `${name}-${image.replace(/\W/g, '_')}-${label}.yaml`);
  writeFileSync(
    f,
    `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: ${ns}
  labels:
    step: ${label}
spec:
  serviceAccountName: runner
  containers:
  - name: c
    image: ${image}
`,
  );
  return f;
}

await kubectlSuite(() => {
  test.before(async () => {
    t = await startTarget();
    ns = await t.createNamespace('kpod');
    k = kubectlFor(t.kubeconfig);
    await k.ok('-n', ns, 'create', 'serviceaccount', 'runner');
  });
  test.after(async () => {
    await t?.close();
  });

  test('client-side apply → apply --server-side (migration) → a changed server-side apply', async () => {
    assert.is(await k.ok('apply', '-f', podYaml('p1', 'busybox:1.35', 'one')), 'pod/p1 created\n');
    const created = JSON.parse(await k.ok('-n', ns, 'get', 'pod', 'p1', '-o', 'json'));
    assert.equal([created.spec.serviceAccountName, created.spec.serviceAccount], ['runner', 'runner']);
    // The migration: kubectl moves the client-side entry's fields to an Apply entry, then applies.
    assert.is(await k.ok('apply', '--server-side', '-f', podYaml('p1', 'busybox:1.35', 'one')), 'pod/p1 serverside-applied\n');
    // A later apply changing what a Pod update allows (image) and metadata (a label).
    assert.is(await k.ok('apply', '--server-side', '-f', podYaml('p1', 'busybox:1.36', 'two')), 'pod/p1 serverside-applied\n');
    const o = JSON.parse(await k.ok('-n', ns, 'get', 'pod', 'p1', '-o', 'json', '--show-managed-fields'));
    assert.is(o.spec.containers[0].image, 'busybox:1.36');
    assert.is(o.metadata.labels.step, 'two');
    assert.equal([o.spec.serviceAccountName, o.spec.serviceAccount], ['runner', 'runner']);
    // kubectl owns what it applied (serviceAccountName, not the alias); entries order by time, then name.
    const byManager = Object.fromEntries(o.metadata.managedFields.map((e: any) => [`${e.manager}/${e.operation}`, e.fieldsV1]));
    assert.equal(byManager, {
      'kubectl/Apply': { 'f:metadata': { 'f:labels': { 'f:step': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } }, 'f:serviceAccountName': {} } },
      'kubectl-last-applied/Apply': { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } },
    });
    // And once more (every later apply used to fail).
    assert.is(await k.ok('apply', '--server-side', '-f', podYaml('p1', 'busybox:1.36', 'three')), 'pod/p1 serverside-applied\n');
  });

  test('merge patch clearing the deprecated spec.serviceAccount: patched (no change)', async () => {
    assert.is(await k.ok('apply', '-f', podYaml('p2', 'busybox:1.35', 'one')), 'pod/p2 created\n');
    const before = JSON.parse(await k.ok('-n', ns, 'get', 'pod', 'p2', '-o', 'json'));
    assert.is(await k.ok('-n', ns, 'patch', 'pod', 'p2', '--type', 'merge', '-p', '{"spec":{"serviceAccount":null}}'), 'pod/p2 patched (no change)\n');
    const after = JSON.parse(await k.ok('-n', ns, 'get', 'pod', 'p2', '-o', 'json'));
    assert.is(after.metadata.resourceVersion, before.metadata.resourceVersion);
    assert.equal([after.spec.serviceAccountName, after.spec.serviceAccount], ['runner', 'runner']);
  });

  test('status.podIP, the v1 alias of status.podIPs[0]: podIP alone fills podIPs, a different podIP wins, dropping it is no change', async () => {
    await k.ok('-n', ns, 'run', 'p4', '--image=busybox', '--overrides={"spec":{"serviceAccountName":"runner"}}');
    const status = async (patch: object): Promise<[string, string, unknown, string[]]> => {
      const out = await k.ok('-n', ns, 'patch', 'pod', 'p4', '--subresource=status', '--type', 'merge', '-p', JSON.stringify({ status: patch }));
      const o = JSON.parse(await k.ok('-n', ns, 'get', 'pod', 'p4', '-o', 'json', '--show-managed-fields'));
      const patcher = o.metadata.managedFields.find((e: any) => e.manager === 'kubectl-patch');
      return [out, o.status.podIP, o.status.podIPs, Object.keys(patcher?.fieldsV1?.['f:status'] ?? {}).sort()];
    };
    assert.equal(await status({ podIP: '10.1.2.3' }), ['pod/p4 patched\n', '10.1.2.3', [{ ip: '10.1.2.3' }], ['f:podIP', 'f:podIPs']]);
    assert.equal(await status({ podIP: '10.1.2.4', podIPs: [{ ip: '10.1.2.3' }] }), ['pod/p4 patched\n', '10.1.2.4', [{ ip: '10.1.2.4' }], ['f:podIP', 'f:podIPs']]);
    assert.equal(await status({ podIP: null }), ['pod/p4 patched (no change)\n', '10.1.2.4', [{ ip: '10.1.2.4' }], ['f:podIP', 'f:podIPs']]);
    // podIPs alone: the stored podIP still differs from it and wins.
    assert.equal(await status({ podIPs: [{ ip: '10.1.2.5' }] }), ['pod/p4 patched (no change)\n', '10.1.2.4', [{ ip: '10.1.2.4' }], ['f:podIP', 'f:podIPs']]);
    assert.equal(await status({ podIP: null, podIPs: [{ ip: '10.1.2.5' }] }), ['pod/p4 patched\n', '10.1.2.5', [{ ip: '10.1.2.5' }], ['f:podIP', 'f:podIPs']]);
  });

  test('the alias alone: serviceAccount names the account, a different serviceAccount beside serviceAccountName loses', async () => {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/pods`, {
      body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p3' }, spec: { serviceAccount: 'runner', containers: [{ name: 'c', image: 'busybox' }] } },
    });
    assert.is(r.status, 201, r.text);
    assert.equal([r.json.spec.serviceAccountName, r.json.spec.serviceAccount], ['runner', 'runner']);
    // A JSON patch replacing the alias with another name: serviceAccountName wins, nothing changes.
    const p = await t.client.request('PATCH', `/api/v1/namespaces/${ns}/pods/p3`, {
      contentType: 'application/json-patch+json',
      body: [{ op: 'replace', path: '/spec/serviceAccount', value: 'other' }],
    });
    assert.is(p.status, 200, p.text);
    assert.equal([p.json.spec.serviceAccountName, p.json.spec.serviceAccount], ['runner', 'runner']);
    assert.is(p.json.metadata.resourceVersion, r.json.metadata.resourceVersion);
  });
});
