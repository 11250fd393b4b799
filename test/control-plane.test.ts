/**
 * The real control plane on this server: kube-controller-manager and kube-scheduler v1.24.17 and
 * kwok v0.4.0 (test/control-plane-bin.ts builds them) run against it unchanged, as against
 * kube-apiserver. A kwok Node becomes Ready (kwok posts its status, KCM's node lifecycle controller
 * lifts TaintNodesByCondition's not-ready taint); `kubectl create deployment` → KCM's deployment
 * controller makes a ReplicaSet → its replicaset controller makes Pods → the scheduler binds them
 * (pods/binding, a Protobuf v1 Binding) onto the kwok node → kwok makes them Running and Ready →
 * the Deployment is Available; deleting the namespace, KCM's namespace controller and garbage
 * collector (ours are off) empty and remove it. The same assertions pass against the reference
 * (TEST_KUBECONFIG=/tmp/ref/kubeconfig; its pki/ beside the kubeconfig gives KCM the
 * service-account key, as start.sh lays it out).
 *
 * Handing over (this server only): `--controllers` switches off every in-process controller
 * kube-controller-manager also runs, so no two controllers fight over one object:
 * namespace, garbagecollector, serviceaccount, serviceaccount-token, root-ca-cert-publisher,
 * clusterrole-aggregation, pv-protection, pvc-protection. KCM runs with `--controllers=*`.
 *
 * kube-scheduler runs its default profile minus DefaultPreemption: that plugin's PodDisruptionBudget
 * informer (policy/v1) must sync before the scheduler schedules anything, and policy/v1 is another
 * slice of issue 27, not yet served here; preemption plays no part in this scenario.
 *
 *   node --import tsx test/run.ts test/control-plane.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/control-plane.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from './harness.ts';
import { startTarget, type Target } from './target.ts';
import { kubectlFor, kubectlSuite } from './kubectl-run.ts';
import { controlPlaneBinaries } from './control-plane-bin.ts';
import { show } from './assertions.ts';

/** This server's controllers that kube-controller-manager also runs: off, so KCM's act alone. */
export const HANDED_OVER = ['namespace', 'garbagecollector', 'serviceaccount', 'serviceaccount-token', 'root-ca-cert-publisher', 'clusterrole-aggregation', 'pv-protection', 'pvc-protection'];

interface Proc {
  name: string;
  proc: ChildProcess;
  log(): string;
}

let t: Target;
let dir: string;
const procs: Proc[] = [];

function start(name: string, file: string, args: string[]): Proc {
  const proc = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (b: Buffer): void => {
    log = (log + b.toString()).slice(-200_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const p = { name, proc, log: () => log };
  procs.push(p);
  return p;
}

/** The last lines of every component's log, and whether it still runs (for failure messages). */
const logs = (): string => procs.map((p) => `--- ${p.name} (${p.proc.exitCode === null ? 'running' : `exited ${p.proc.exitCode}`})\n${p.log().split('\n').slice(-25).join('\n')}`).join('\n');

await kubectlSuite(() => {
  let node = '';
  let created = '';

  test.before(async () => {
    const bins = await controlPlaneBinaries();
    t = await startTarget({ controllers: HANDED_OVER.map((c) => `-${c}`) });
    node = t.ns('kwok-node');
    dir = mkdtempSync(path.join(tmpdir(), 'control-plane-'));
    const kc = t.kubeconfig;
    // The service-account signing key lets KCM's serviceaccount-token controller run too.
    const pki = t.local ? path.join(t.local.dataDir, 'pki') : path.join(path.dirname(kc), 'pki');
    const keyFlags = existsSync(path.join(pki, 'sa.key')) ? [`--service-account-private-key-file=${path.join(pki, 'sa.key')}`, `--root-ca-file=${path.join(pki, 'ca.crt')}`] : [];
    start('kube-controller-manager', bins.kubeControllerManager, [`--kubeconfig=${kc}`, '--leader-elect=false', '--secure-port=0', '--controllers=*', '--node-monitor-period=1s', ...keyFlags, '--v=1']);
    const config = path.join(dir, 'scheduler.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: kubescheduler.config.k8s.io/v1beta3',
        'kind: KubeSchedulerConfiguration',
        'leaderElection: {leaderElect: false}',
        `clientConnection: {kubeconfig: ${JSON.stringify(kc)}}`,
        'profiles:',
        '- schedulerName: default-scheduler',
        '  plugins:',
        '    multiPoint:',
        '      disabled: [{name: DefaultPreemption}]',
        '',
      ].join('\n'),
    );
    start('kube-scheduler', bins.kubeScheduler, [`--config=${config}`, '--secure-port=0', '--v=1']);
    // kwok manages only the nodes annotated for this run (the reference may hold others).
    start('kwok', bins.kwok, [`--kubeconfig=${kc}`, '--manage-all-nodes=false', `--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=${node}`, '--server-address=']);
  });

  test.after(async () => {
    for (const p of procs) if (p.proc.exitCode === null) p.proc.kill('SIGKILL');
    await Promise.all(procs.map((p) => (p.proc.exitCode === null ? new Promise((r) => p.proc.once('exit', r)) : undefined)));
    if (t) {
      await t.client.request('DELETE', `/api/v1/nodes/${node}`);
      await t.close();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('a kwok Node becomes Ready and loses the not-ready taint', async () => {
    const created = await t.client.request('POST', '/api/v1/nodes', {
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node, annotations: { 'kwok.x-k8s.io/node': node, 'node.alpha.kubernetes.io/ttl': '0' }, labels: { 'kubernetes.io/hostname': node, 'kubernetes.io/os': 'linux', type: 'kwok' } },
        status: { capacity: { cpu: '32', memory: '256Gi', pods: '110' } },
      },
    });
    assert.is(created.status, 201, show(created));
    // TaintNodesByCondition: every new Node starts not-ready for scheduling.
    assert.equal(created.json.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    let last: any;
    await eventually(
      'kwok node Ready without taints',
      async () => {
        last = (await t.client.request('GET', `/api/v1/nodes/${node}`)).json;
        const ready = (last.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
        return ready?.status === 'True' && !(last.spec?.taints ?? []).length;
      },
      60_000,
      () => console.error(JSON.stringify(last), logs()),
    );
    assert.is(last.status.nodeInfo.kubeletVersion, 'kwok-0.4.0');
    const table = await kubectlFor(t.kubeconfig).ok('get', 'node', node, '--no-headers');
    assert.match(table, new RegExp(`^${node}\\s+Ready\\s+<none>\\s+\\S+\\s+kwok-0.4.0\\n$`));
  });

  test('kubectl create deployment: ReplicaSet, Pods scheduled onto the kwok node, Running and Ready, Deployment Available', async () => {
    // A long-lived cluster (the reference) must not offer the scheduler another Ready node.
    const others = ((await t.client.request('GET', '/api/v1/nodes')).json.items ?? []).filter(
      (n: any) => n.metadata.name !== node && !n.spec?.unschedulable && (n.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
    );
    assert.equal(others.map((n: any) => n.metadata.name), [], 'other Ready nodes would take Pods: delete them first');
    const ns = await t.createNamespace('cp');
    const kubectl = kubectlFor(t.kubeconfig);
    await kubectl.ok('-n', ns, 'create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    let deploy: any;
    let pods: any[] = [];
    await eventually(
      'Deployment web Available with 2 ready Pods on the kwok node',
      async () => {
        deploy = (await t.client.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`)).json;
        pods = (await t.client.request('GET', `/api/v1/namespaces/${ns}/pods`)).json.items ?? [];
        const available = (deploy.status?.conditions ?? []).find((c: any) => c.type === 'Available');
        return available?.status === 'True' && deploy.status.availableReplicas === 2 && pods.length === 2 && pods.every((p) => p.status?.phase === 'Running');
      },
      90_000,
      () => console.error(JSON.stringify(deploy?.status), JSON.stringify(pods.map((p) => [p.metadata.name, p.spec.nodeName, p.status])), logs()),
    );
    const rs = (await t.client.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets`)).json.items;
    assert.is(rs.length, 1, JSON.stringify(rs));
    assert.equal(rs[0].metadata.ownerReferences.map((o: any) => [o.kind, o.name, o.controller]), [['Deployment', 'web', true]]);
    assert.is(rs[0].status.readyReplicas, 2);
    for (const p of pods) {
      assert.is(p.spec.nodeName, node, p.metadata.name);
      assert.equal(p.metadata.ownerReferences.map((o: any) => [o.kind, o.name]), [['ReplicaSet', rs[0].metadata.name]]);
      const conditions = Object.fromEntries(p.status.conditions.map((c: any) => [c.type, c.status]));
      assert.equal([conditions.PodScheduled, conditions.Ready], ['True', 'True'], p.metadata.name);
      assert.ok(p.status.podIP, `${p.metadata.name} has a pod IP from kwok`);
      // The ServiceAccount KCM's serviceaccount controller created, admitted by ServiceAccount.
      assert.is(p.spec.serviceAccountName, 'default');
    }
    const out = await kubectl.ok('-n', ns, 'get', 'deployment', 'web', '--no-headers');
    assert.match(out, /^web\s+2\/2\s+2\s+2\s+\S+\n$/);
    created = ns;
  });

  test('kubectl delete namespace: KCM\'s namespace controller and garbage collector empty it (kwok ends the Pods) and remove it', async () => {
    assert.ok(created, 'the deployment test ran');
    await kubectlFor(t.kubeconfig).ok('delete', 'namespace', created, '--wait=false');
    let left: unknown;
    await eventually(
      `namespace ${created} removed`,
      async () => {
        const r = await t.client.request('GET', `/api/v1/namespaces/${created}`);
        left = r.status === 404 ? undefined : [r.json?.status, (await t.client.request('GET', `/api/v1/namespaces/${created}/pods`)).json?.items?.map((p: any) => [p.metadata.name, p.metadata.deletionTimestamp])];
        return r.status === 404;
      },
      120_000,
      () => console.error(JSON.stringify(left), logs()),
    );
  });
});
