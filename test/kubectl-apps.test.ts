/**
 * kubectl's workload commands against apps/v1, here and (TEST_KUBECONFIG) on the reference
 * kube-apiserver 1.24 (issue 27): `create deployment`, `get deploy` (printDeployment's columns),
 * `scale deploy` (through deployments/scale), `get all` listing the workloads, `auth can-i` through
 * the controllers' bootstrap roles on apps resources, and `apply -f` of
 * what `helm template` renders from the stock `helm create` chart (helm 3.9: ServiceAccount,
 * Service, Deployment with named-port probes). No controller runs here, so nothing rolls out:
 * READY stays 0/N on both servers (the reference runs no kube-controller-manager either).
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
const files = mkdtempSync(join(tmpdir(), 'kubectl-apps-'));

const LABELS = `    helm.sh/chart: mychart-0.1.0
    app.kubernetes.io/name: mychart
    app.kubernetes.io/instance: release-name
    app.kubernetes.io/version: "1.16.0"
    app.kubernetes.io/managed-by: Helm`;

/** `helm create mychart && helm template release-name ./mychart` (helm v3.9), verbatim. */
const HELM_CHART = `---
# Source: mychart/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: release-name-mychart
  labels:
${LABELS}
---
# Source: mychart/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: release-name-mychart
  labels:
${LABELS}
spec:
  type: ClusterIP
  ports:
    - port: 80
      targetPort: http
      protocol: TCP
      name: http
  selector:
    app.kubernetes.io/name: mychart
    app.kubernetes.io/instance: release-name
---
# Source: mychart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-name-mychart
  labels:
${LABELS}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: mychart
      app.kubernetes.io/instance: release-name
  template:
    metadata:
      labels:
        app.kubernetes.io/name: mychart
        app.kubernetes.io/instance: release-name
    spec:
      serviceAccountName: release-name-mychart
      securityContext:
        {}
      containers:
        - name: mychart
          securityContext:
            {}
          image: "nginx:1.16.0"
          imagePullPolicy: IfNotPresent
          ports:
            - name: http
              containerPort: 80
              protocol: TCP
          livenessProbe:
            httpGet:
              path: /
              port: http
          readinessProbe:
            httpGet:
              path: /
              port: http
          resources:
            {}
`;

/** Column text of `kubectl get` output without the AGE column's value. */
const rows = (out: string): string[][] => out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));

await kubectlSuite(() => {
  test.before(async () => {
    t = await startTarget();
    ns = await t.createNamespace('kapps');
    k = kubectlFor(t.kubeconfig);
  });
  test.after(async () => {
    await t?.close();
  });

  test('create deployment, get deploy (printDeployment), scale through deployments/scale', async () => {
    assert.is(await k.ok('-n', ns, 'create', 'deployment', 'x', '--image=nginx'), 'deployment.apps/x created\n');
    const got = rows(await k.ok('-n', ns, 'get', 'deploy'));
    assert.equal(got[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.equal(got[1].slice(0, 4), ['x', '0/1', '0', '0']);
    const wide = rows(await k.ok('-n', ns, 'get', 'deployment', 'x', '-o', 'wide'));
    assert.equal(wide[0], ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.equal([...wide[1].slice(0, 4), ...wide[1].slice(5)], ['x', '0/1', '0', '0', 'nginx', 'nginx', 'app=x']);
    assert.is(await k.ok('-n', ns, 'scale', 'deploy', 'x', '--replicas=3'), 'deployment.apps/x scaled\n');
    const d = JSON.parse(await k.ok('-n', ns, 'get', 'deploy', 'x', '-o', 'json'));
    assert.equal([d.spec.replicas, d.metadata.generation], [3, 2]);
    const pre = await k.run('-n', ns, 'scale', 'deploy', 'x', '--current-replicas=2', '--replicas=1');
    assert.is(pre.code, 1, pre.stdout);
    assert.ok(pre.stderr.includes('Expected replicas to be 2, was 3'), pre.stderr);
    assert.is(await k.ok('-n', ns, 'scale', 'deploy/x', '--current-replicas=3', '--replicas=1'), 'deployment.apps/x scaled\n');
    assert.is(await k.ok('-n', ns, 'get', 'deploy', 'x', '-o', 'jsonpath={.spec.replicas}'), '1');
  });

  test('RBAC bootstrap roles name the workloads (the controllers\' roles; edit/view are aggregated by a controller)', async () => {
    await k.ok('-n', ns, 'create', 'rolebinding', 'bob-deploy', '--clusterrole=system:controller:deployment-controller', '--user=bob');
    await k.ok('-n', ns, 'create', 'rolebinding', 'sam-sts', '--clusterrole=system:controller:statefulset-controller', '--user=sam');
    const can = async (...args: string[]) => (await k.run('-n', ns, 'auth', 'can-i', ...args)).stdout.trim();
    assert.equal(
      [
        await can('update', 'deployments.apps', '--subresource=status', '--as=bob'),
        await can('create', 'replicasets.apps', '--as=bob'),
        await can('create', 'deployments.apps', '--as=bob'),
        await can('create', 'controllerrevisions.apps', '--as=sam'),
        await can('update', 'statefulsets.apps', '--subresource=status', '--as=sam'),
        await can('delete', 'daemonsets.apps', '--as=sam'),
      ],
      ['yes', 'yes', 'no', 'yes', 'yes', 'no'],
    );
  });

  test('apply -f of the stock helm chart; get all lists the Deployment', async () => {
    const f = join(files, 'chart.yaml');
    writeFileSync(f, HELM_CHART);
    assert.is(await k.ok('-n', ns, 'apply', '-f', f), 'serviceaccount/release-name-mychart created\nservice/release-name-mychart created\ndeployment.apps/release-name-mychart created\n');
    const d = JSON.parse(await k.ok('-n', ns, 'get', 'deploy', 'release-name-mychart', '-o', 'json'));
    assert.equal(d.spec.template.spec.containers[0].livenessProbe, { httpGet: { path: '/', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.equal(d.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.is(await k.ok('-n', ns, 'apply', '-f', f), 'serviceaccount/release-name-mychart unchanged\nservice/release-name-mychart unchanged\ndeployment.apps/release-name-mychart unchanged\n');
    const all = await k.ok('-n', ns, 'get', 'all', '-o', 'name');
    for (const n of ['deployment.apps/x', 'deployment.apps/release-name-mychart', 'service/release-name-mychart']) assert.ok(all.split('\n').includes(n), `get all: ${n} in\n${all}`);
    assert.is(await k.ok('-n', ns, 'delete', '-f', f), 'serviceaccount "release-name-mychart" deleted\nservice "release-name-mychart" deleted\ndeployment.apps "release-name-mychart" deleted\n');
  });
});
