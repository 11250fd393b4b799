/**
 * `kubectl autoscale deployment` end to end, here and (TEST_KUBECONFIG) on the reference
 * kube-apiserver 1.24 (issue 27): kubectl (1.32, on PATH) reads the Deployment and creates an
 * autoscaling/v2 HorizontalPodAutoscaler; `get hpa` prints kube's columns; the object reads back
 * in v1 (targetCPUUtilizationPercentage) and in the deprecated v2beta2 (kube's Warning on
 * stderr); `get all` lists it (category `all`); a second autoscale is AlreadyExists; the HPA
 * controller's bootstrap role may update its status; delete.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from './target.ts';
import { kubectlFor, kubectlSuite, tableRows, type Kubectl } from './kubectl-run.ts';

let t: Target;
let k: Kubectl;
let ns: string;

await kubectlSuite(() => {
  test.before(async () => {
    t = await startTarget();
    k = kubectlFor(t.kubeconfig);
    ns = await t.createNamespace('autoscale');
  });
  test.after(async () => {
    await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
    await t.close();
  });

  test('kubectl autoscale deployment creates an HPA for it; get hpa prints kube\'s columns', async () => {
    await k.ok('-n', ns, 'create', 'deployment', 'web', '--image=nginx:1.25', '--replicas=2');
    const out = await k.ok('-n', ns, 'autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=70');
    assert.is(out, 'horizontalpodautoscaler.autoscaling/web autoscaled\n');
    const rows = tableRows(await k.ok('-n', ns, 'get', 'hpa'));
    assert.equal(rows[0], ['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    assert.equal(rows[1]!.slice(0, 6), ['web', 'Deployment/web', '<unknown>/70%', '2', '5', '0']);
    assert.is(rows.length, 2);
  });

  test('the HPA in every version: v2 as written, v1 targetCPUUtilizationPercentage, v2beta2 with the Warning', async () => {
    const v2 = JSON.parse(await k.ok('-n', ns, 'get', 'horizontalpodautoscalers.v2.autoscaling', 'web', '-o', 'json', '--show-managed-fields'));
    assert.equal(v2.spec, {
      scaleTargetRef: { kind: 'Deployment', name: 'web', apiVersion: 'apps/v1' },
      minReplicas: 2,
      maxReplicas: 5,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
    });
    assert.is(v2.metadata.managedFields[0].manager, 'kubectl-autoscale');
    const v1 = JSON.parse(await k.ok('-n', ns, 'get', 'horizontalpodautoscalers.v1.autoscaling', 'web', '-o', 'json'));
    assert.equal([v1.apiVersion, v1.spec.targetCPUUtilizationPercentage, v1.metadata.annotations], ['autoscaling/v1', 70, undefined]);
    const beta = await k.run('-n', ns, 'get', 'horizontalpodautoscalers.v2beta2.autoscaling', 'web', '-o', 'jsonpath={.apiVersion}');
    assert.is(beta.code, 0, beta.stderr);
    assert.is(beta.stdout, 'autoscaling/v2beta2');
    assert.is(beta.stderr, 'Warning: autoscaling/v2beta2 HorizontalPodAutoscaler is deprecated in v1.23+, unavailable in v1.26+; use autoscaling/v2 HorizontalPodAutoscaler\n');
  });

  test('get all lists it; a second autoscale is AlreadyExists', async () => {
    const all = await k.ok('-n', ns, 'get', 'all', '-o', 'name');
    assert.ok(all.split('\n').includes('horizontalpodautoscaler.autoscaling/web'), all);
    const again = await k.run('-n', ns, 'autoscale', 'deployment', 'web', '--max=3');
    assert.is(again.code, 1);
    assert.is(again.stderr, 'Error from server (AlreadyExists): horizontalpodautoscalers.autoscaling "web" already exists\n');
  });

  test('the HPA controller\'s bootstrap role: get and update status, not delete', async () => {
    const as = ['--as=system:serviceaccount:kube-system:horizontal-pod-autoscaler', '-n', ns];
    assert.is((await k.run('auth', 'can-i', 'update', 'horizontalpodautoscalers.autoscaling', '--subresource=status', ...as)).stdout, 'yes\n');
    assert.is((await k.run('auth', 'can-i', 'list', 'horizontalpodautoscalers.autoscaling', ...as)).stdout, 'yes\n');
    assert.is((await k.run('auth', 'can-i', 'delete', 'horizontalpodautoscalers.autoscaling', ...as)).stdout, 'no\n');
  });

  test('kubectl delete hpa', async () => {
    assert.is(await k.ok('-n', ns, 'delete', 'hpa', 'web'), 'horizontalpodautoscaler.autoscaling "web" deleted\n');
    const gone = await k.run('-n', ns, 'get', 'hpa', 'web');
    assert.is(gone.stderr, 'Error from server (NotFound): horizontalpodautoscalers.autoscaling "web" not found\n');
  });
});
