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
 * clusterrole-aggregation, pv-protection, pvc-protection, disruption, resourcequota. KCM runs with
 * `--controllers=*`; kube-scheduler with its default profile (DefaultPreemption lists policy/v1
 * PodDisruptionBudgets).
 *
 * Then, as a user of such a cluster: a higher-priority Pod preempts a lower one; `kubectl drain`
 * evicts through a PodDisruptionBudget (refused with kube's 429 while the budget forbids, done once it
 * allows); a Job completes (kwok's default pod-complete stage ends Job-owned Pods Succeeded);
 * `helm install --wait` of the unmodified `helm create` chart (helm v3.9.4, built by
 * control-plane-bin.ts); a PVC bound to a PV by KCM's persistentvolume-binder; kubectl's defaults
 * (`apply --prune` without an allowlist walks kubectl's default prune list; `rollout
 * status/history/undo`; `get all`; `top` without metrics-server).
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
import { kubectlFor, kubectlSuite, runCommand } from './kubectl-run.ts';
import { controlPlaneBinaries, HANDED_OVER } from './control-plane-bin.ts';
import { show } from './assertions.ts';

interface Proc {
  name: string;
  proc: ChildProcess;
  log(): string;
}

let t: Target;
let dir: string;
let helmBin = '';
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
    helmBin = bins.helm;
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

  /** Wait for `fn`, printing `state()` and the components' logs on a timeout. */
  const waitFor = (what: string, fn: () => Promise<boolean>, ms: number, state: () => unknown): Promise<void> => eventually(what, fn, ms, () => console.error(JSON.stringify(state()), logs()));
  const get = async (p: string): Promise<any> => (await t.client.request('GET', p)).json;
  const gone = async (p: string): Promise<boolean> => (await t.client.request('GET', p)).status === 404;
  const post = async (p: string, body: unknown): Promise<any> => {
    const r = await t.client.request('POST', p, { body });
    assert.is(r.status, 201, show(r));
    return r.json;
  };

  test('kube-scheduler with DefaultPreemption: a higher-priority Pod preempts a lower one from the full kwok node', async () => {
    const ns = await t.createNamespace('preempt');
    const [low, high] = [t.ns('low'), t.ns('high')];
    for (const [name, value] of [[low, 1000], [high, 2000]] as const) await post('/apis/scheduling.k8s.io/v1/priorityclasses', { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
    // Each Pod asks for 60% of the node's CPU (kwok's node-initialize stage: 1k cores unless set).
    const alloc = String((await get(`/api/v1/nodes/${node}`)).status.allocatable.cpu);
    const cores = /^\d+k$/.test(alloc) ? Number(alloc.slice(0, -1)) * 1000 : Number(alloc);
    const pod = (name: string, priorityClassName: string): unknown => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { priorityClassName, containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: String(Math.floor(cores * 0.6)) } } }] },
    });
    let state: unknown;
    await post(`/api/v1/namespaces/${ns}/pods`, pod('low', low));
    await waitFor('low Pod Running on the kwok node', async () => {
      state = await get(`/api/v1/namespaces/${ns}/pods/low`);
      return (state as any).status?.phase === 'Running';
    }, 30_000, () => state);
    const created = await post(`/api/v1/namespaces/${ns}/pods`, pod('high', high));
    assert.is(created.spec.priority, 2000, 'Priority admission resolved the class');
    await waitFor('high Pod preempts low and runs', async () => {
      state = [await get(`/api/v1/namespaces/${ns}/pods/low`), await get(`/api/v1/namespaces/${ns}/pods/high`)];
      return (await gone(`/api/v1/namespaces/${ns}/pods/low`)) && (state as any)[1].status?.phase === 'Running';
    }, 60_000, () => state);
    const placed = await get(`/api/v1/namespaces/${ns}/pods/high`);
    assert.is(placed.spec.nodeName, node);
    const events = (await get(`/api/v1/namespaces/${ns}/events`)).items.map((e: any) => [e.involvedObject.name, e.reason]);
    assert.ok(events.some(([n, r]: string[]) => n === 'low' && r === 'Preempted'), JSON.stringify(events));
    await kubectlFor(t.kubeconfig).ok('-n', ns, 'delete', 'pod', 'high', '--timeout=30s');
    await kubectlFor(t.kubeconfig).ok('delete', 'namespace', ns, '--wait=false');
    for (const name of [low, high]) await t.client.request('DELETE', `/apis/scheduling.k8s.io/v1/priorityclasses/${name}`);
  });

  test('kubectl drain evicts through a PodDisruptionBudget: refused while it forbids, done once it allows', async () => {
    const ns = await t.createNamespace('drain');
    const kubectl = kubectlFor(t.kubeconfig);
    await kubectl.ok('-n', ns, 'create', 'deployment', 'web', '--image=nginx', '--replicas=2');
    await kubectl.ok('-n', ns, 'create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=2');
    await kubectl.ok('-n', ns, 'rollout', 'status', 'deployment/web', '--timeout=60s');
    let pdb: any;
    await waitFor('PDB observes 2 healthy Pods', async () => {
      pdb = await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`);
      return pdb.status?.currentHealthy === 2 && pdb.status?.observedGeneration === pdb.metadata.generation;
    }, 30_000, () => pdb?.status);
    assert.is(pdb.status.disruptionsAllowed, 0);
    const blocked = await kubectl.run('drain', node, '--timeout=3s');
    assert.is.not(blocked.code, 0, blocked.stdout);
    assert.match(blocked.stderr, "Cannot evict pod as it would violate the pod's disruption budget.");
    assert.match(blocked.stdout, `node/${node} cordoned`);
    assert.is((await get(`/api/v1/namespaces/${ns}/pods`)).items.length, 2, 'nothing evicted');
    await kubectl.ok('-n', ns, 'patch', 'poddisruptionbudget', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":0}}');
    await waitFor('PDB allows 2 disruptions', async () => {
      pdb = await get(`/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/web`);
      return pdb.status?.disruptionsAllowed === 2;
    }, 30_000, () => pdb?.status);
    const drained = await kubectl.ok('drain', node, '--timeout=60s');
    assert.match(drained, /evicted/);
    assert.match(drained, `node/${node} drained`);
    // The ReplicaSet's replacements wait: the node is cordoned.
    const pods = (await get(`/api/v1/namespaces/${ns}/pods`)).items;
    assert.ok(pods.every((p: any) => !p.spec.nodeName), JSON.stringify(pods.map((p: any) => [p.metadata.name, p.spec.nodeName])));
    await kubectl.ok('delete', 'namespace', ns, '--wait=false');
    await kubectl.ok('uncordon', node);
  });

  test('a Job completes: kwok ends its Pod Succeeded, KCM\'s job controller marks it Complete', async () => {
    const ns = await t.createNamespace('job');
    const kubectl = kubectlFor(t.kubeconfig);
    await kubectl.ok('-n', ns, 'create', 'job', 'done', '--image=busybox');
    await kubectl.ok('-n', ns, 'wait', '--for=condition=complete', 'job/done', '--timeout=60s');
    const job = await get(`/apis/batch/v1/namespaces/${ns}/jobs/done`);
    assert.is(job.status.succeeded, 1);
    assert.ok(job.status.completionTime);
    const pods = (await get(`/api/v1/namespaces/${ns}/pods`)).items;
    assert.equal(pods.map((p: any) => p.status.phase), ['Succeeded']);
    assert.match(await kubectl.ok('-n', ns, 'get', 'job', 'done', '--no-headers'), /^done\s+1\/1\s+\S+\s+\S+\n$/);
    await kubectl.ok('delete', 'namespace', ns, '--wait=false');
  });

  test('helm install --wait of the unmodified `helm create` chart', async () => {
    const ns = await t.createNamespace('helm');
    const home = mkdtempSync(path.join(tmpdir(), 'helm-home-'));
    const env = { ...process.env, HOME: home, HELM_CACHE_HOME: path.join(home, 'cache'), HELM_CONFIG_HOME: path.join(home, 'config'), HELM_DATA_HOME: path.join(home, 'data'), KUBECONFIG: t.kubeconfig };
    try {
      const chart = path.join(home, 'mychart');
      const created = await runCommand(helmBin, ['create', chart], { env });
      assert.is(created.code, 0, created.stderr);
      const installed = await runCommand(helmBin, ['install', 'rel', chart, '--namespace', ns, '--wait', '--timeout', '90s'], { env, timeoutMs: 120_000 });
      assert.is(installed.code, 0, `${installed.stdout}\n${installed.stderr}\n${logs()}`);
      assert.match(installed.stdout, 'STATUS: deployed');
      const deploy = await get(`/apis/apps/v1/namespaces/${ns}/deployments/rel-mychart`);
      assert.equal((deploy.status.conditions ?? []).filter((c: any) => c.type === 'Available').map((c: any) => c.status), ['True']);
      assert.is(deploy.status.readyReplicas, 1);
      assert.is((await get(`/api/v1/namespaces/${ns}/services/rel-mychart`)).spec.type, 'ClusterIP');
      const list = await runCommand(helmBin, ['list', '--namespace', ns, '-o', 'json'], { env });
      assert.equal(JSON.parse(list.stdout).map((r: any) => [r.name, r.status]), [['rel', 'deployed']]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    await kubectlFor(t.kubeconfig).ok('delete', 'namespace', ns, '--wait=false');
  });

  test('a PVC binds to a PV through KCM\'s persistentvolume-binder', async () => {
    const ns = await t.createNamespace('pvc');
    const [pv, sc] = [t.ns('pv'), t.ns('manual')];
    await post('/api/v1/persistentvolumes', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: pv },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: sc, hostPath: { path: `/tmp/${pv}` } },
    });
    const claim = await post(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'claim' },
      spec: { storageClassName: sc, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    let state: any[] = [];
    await waitFor('PVC and PV Bound', async () => {
      state = [await get(`/api/v1/namespaces/${ns}/persistentvolumeclaims/claim`), await get(`/api/v1/persistentvolumes/${pv}`)];
      return state[0].status?.phase === 'Bound' && state[1].status?.phase === 'Bound';
    }, 30_000, () => state.map((o) => [o.spec, o.status]));
    const [pvc, vol] = state;
    assert.is(pvc.spec.volumeName, pv);
    assert.equal(pvc.status.capacity, { storage: '1Gi' });
    assert.equal([vol.spec.claimRef.namespace, vol.spec.claimRef.name, vol.spec.claimRef.uid], [ns, 'claim', claim.metadata.uid]);
    assert.is(pvc.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
    const out = await kubectlFor(t.kubeconfig).ok('-n', ns, 'get', 'pvc', 'claim', '--no-headers');
    assert.match(out, new RegExp(`^claim\\s+Bound\\s+${pv}\\s+1Gi\\s+RWO\\s+${sc}\\s+`));
    await kubectlFor(t.kubeconfig).ok('delete', 'namespace', ns, '--wait=false');
    await kubectlFor(t.kubeconfig).ok('delete', 'pv', pv, '--wait=false');
  });

  test('kubectl defaults: apply --prune without an allowlist, rollout status/history/undo, get all, top without metrics-server', async () => {
    const ns = await t.createNamespace('defaults');
    const kubectl = kubectlFor(t.kubeconfig);
    const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, labels: {app: prune}}\ndata: {k: v}\n`;
    const file = path.join(dir, 'prune.yaml');
    writeFileSync(file, `${cm('a')}---\n${cm('b')}`);
    await kubectl.ok('-n', ns, 'apply', '--prune', '-l', 'app=prune', '-f', file);
    writeFileSync(file, cm('a'));
    const pruned = await kubectl.ok('-n', ns, 'apply', '--prune', '-l', 'app=prune', '-f', file);
    assert.match(pruned, 'configmap/b pruned');
    assert.ok(await gone(`/api/v1/namespaces/${ns}/configmaps/b`));

    await kubectl.ok('-n', ns, 'create', 'deployment', 'r', '--image=nginx:1.24');
    await kubectl.ok('-n', ns, 'rollout', 'status', 'deployment/r', '--timeout=60s');
    await kubectl.ok('-n', ns, 'set', 'image', 'deployment/r', 'nginx=nginx:1.25');
    assert.match(await kubectl.ok('-n', ns, 'rollout', 'status', 'deployment/r', '--timeout=60s'), 'deployment "r" successfully rolled out');
    const revisions = (out: string): string[] => out.split('\n').slice(2).filter(Boolean).map((l) => l.split(/\s+/)[0]!);
    assert.equal(revisions(await kubectl.ok('-n', ns, 'rollout', 'history', 'deployment/r')), ['1', '2']);
    assert.match(await kubectl.ok('-n', ns, 'rollout', 'undo', 'deployment/r'), 'deployment.apps/r rolled back');
    await kubectl.ok('-n', ns, 'rollout', 'status', 'deployment/r', '--timeout=60s');
    assert.equal(revisions(await kubectl.ok('-n', ns, 'rollout', 'history', 'deployment/r')), ['2', '3']);
    assert.is((await get(`/apis/apps/v1/namespaces/${ns}/deployments/r`)).spec.template.spec.containers[0].image, 'nginx:1.24');

    const all = await kubectl.ok('-n', ns, 'get', 'all');
    for (const row of [/^pod\/r-\S+\s+1\/1\s+Running/m, /^deployment\.apps\/r\s+1\/1\s+1\s+1/m, /^replicaset\.apps\/r-\S+\s+1\s+1\s+1/m, /^replicaset\.apps\/r-\S+\s+0\s+0\s+0/m]) assert.match(all, row);

    for (const args of [['top', 'node'], ['-n', ns, 'top', 'pod']]) {
      const top = await kubectl.run(...args);
      assert.equal([top.code, top.stderr.trim()], [1, 'error: Metrics API not available'], args.join(' '));
    }
    await kubectl.ok('delete', 'namespace', ns, '--wait=false');
  });
});
