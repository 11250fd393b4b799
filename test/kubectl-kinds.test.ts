/**
 * kubectl (the one on PATH, 1.32) on the kinds of issue 10, as a user drives them: for each of
 * PersistentVolume, PersistentVolumeClaim, Pod, ServiceAccount, StorageClass, VolumeAttachment,
 * CSIDriver, CSINode and CSIStorageCapacity (and Lease, IngressClass, Ingress, NetworkPolicy,
 * PriorityClass, RuntimeClass, EndpointSlice, CertificateSigningRequest, HorizontalPodAutoscaler, Node, Job, CronJob), `create -f`, `get` (default and `-o wide` columns),
 * `describe`, `apply -f` of a second object three times (created, configured with a change,
 * unchanged), `get -o jsonpath` of the change, and `explain <kind>` / `explain <kind>.spec`.
 *
 * Every output must equal what kubectl printed against the reference kube-apiserver 1.24.17, kept in
 * test/golden/kubectl-kinds.json after normalizing what differs between runs: the run's name suffix,
 * ages, timestamps, uids, resourceVersions and the ServiceAccount admission's random
 * `kube-api-access-xxxxx` suffix. Tables are compared cell by cell (column widths follow the cells),
 * describe outputs line by line with runs of blanks collapsed, everything else byte for byte.
 *
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/kubectl-kinds.test.ts
 *   UPDATE_GOLDEN=1 TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/kubectl-kinds.test.ts
 *     (rewrites the golden file; refused unless the target is an external cluster)
 *
 * kubectl missing: skipped locally, FAILS under CI=true (as test/kubectl.test.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { webcrypto } from 'node:crypto';
import { x509 } from '../internal/auth/certificates.ts';
import { startTarget, type Target } from './target.ts';
import { kubectlFor, kubectlSuite, type Kubectl, type Run } from './kubectl-run.ts';
const GOLDEN = join(import.meta.dirname, 'golden', 'kubectl-kinds.json');
const UPDATE = Boolean(process.env.UPDATE_GOLDEN);

/** How an output is compared with its golden copy. */
type Shape = 'table' | 'describe' | 'text';

/** One kind: its resource name for kubectl, scope, and two objects (created, applied) plus the applied change. */
interface KindCase {
  kind: string;
  resource: string;
  namespaced: boolean;
  /** Has a `spec` to explain. */
  spec: boolean;
  object(name: string): Record<string, unknown>;
}

/** A PKCS#10 request (ECDSA P-256) for the CertificateSigningRequest case; its subject is what describe shows. */
const CSR_REQUEST = await (async () => {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await (webcrypto as unknown as Crypto).subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const req = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice, O=dev', keys, signingAlgorithm: alg });
  return Buffer.from(req.toString('pem')).toString('base64');
})();

const busybox = { name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] };

/** The Pod of the benchmark: one volume of each common kind, mounted. */
function podSpec(): Record<string, unknown> {
  return {
    containers: [{
      ...busybox,
      volumeMounts: [
        { name: 'config', mountPath: '/etc/config' },
        { name: 'creds', mountPath: '/etc/creds', readOnly: true },
        { name: 'token', mountPath: '/var/run/token' },
        { name: 'scratch', mountPath: '/scratch' },
        { name: 'podinfo', mountPath: '/etc/podinfo' },
      ],
    }],
    volumes: [
      { name: 'config', configMap: { name: 'app-config', items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
      { name: 'creds', secret: { secretName: 'app-creds', defaultMode: 256 } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', audience: 'vault', expirationSeconds: 7200 } }] } },
      { name: 'scratch', emptyDir: { sizeLimit: '64Mi' } },
      { name: 'podinfo', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }, { path: 'cpu', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } }] } },
    ],
  };
}

const CASES: KindCase[] = [
  {
    kind: 'PersistentVolume', resource: 'persistentvolume', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], storageClassName: 'manual', csi: { driver: 'csi.example.com', volumeHandle: `handle-${name}`, fsType: 'ext4' }, nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.example.com/zone', operator: 'In', values: ['a'] }] }] } } } }),
  },
  {
    kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaim', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'manual', resources: { requests: { storage: '1Gi' } } } }),
  },
  {
    kind: 'Pod', resource: 'pod', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'kinds' } }, spec: podSpec() }),
  },
  {
    kind: 'ServiceAccount', resource: 'serviceaccount', namespaced: true, spec: false,
    object: (name) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name }, automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }] }),
  },
  {
    kind: 'StorageClass', resource: 'storageclass', namespaced: false, spec: false,
    object: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'csi.example.com', parameters: { type: 'ssd' }, allowVolumeExpansion: true, mountOptions: ['debug'] }),
  },
  {
    kind: 'VolumeAttachment', resource: 'volumeattachment', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: `pv-of-${name}` } } }),
  },
  {
    kind: 'CSIDriver', resource: 'csidriver', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: `${name}.example.com` }, spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'], tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }] } }),
  },
  {
    kind: 'CSINode', resource: 'csinode', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [{ name: 'csi.example.com', nodeID: `id-${name}`, topologyKeys: ['topology.example.com/zone'], allocatable: { count: 8 } }] } }),
  },
  {
    kind: 'CSIStorageCapacity', resource: 'csistoragecapacity', namespaced: true, spec: false,
    object: (name) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: { name }, storageClassName: 'manual', capacity: '100Gi', maximumVolumeSize: '10Gi', nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } } }),
  },
  {
    kind: 'Deployment', resource: 'deployment', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25', ports: [{ containerPort: 80 }] }] } } } }),
  },
  {
    kind: 'ReplicaSet', resource: 'replicaset', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name }, spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } } }),
  },
  {
    kind: 'StatefulSet', resource: 'statefulset', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec: { serviceName: name, replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'db', image: 'postgres:15' }] } } } }),
  },
  {
    kind: 'DaemonSet', resource: 'daemonset', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name }, spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { 'kubernetes.io/os': 'linux' }, containers: [{ name: 'agent', image: 'busybox:1.36' }] } } } }),
  },
  {
    kind: 'ControllerRevision', resource: 'controllerrevision', namespaced: true, spec: false,
    object: (name) => ({ apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name }, data: { spec: { template: { metadata: { labels: { app: name } } } } }, revision: 1 }),
  },
  {
    kind: 'Lease', resource: 'lease', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: `holder-of-${name}`, leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:10.500000Z', leaseTransitions: 2 } }),
  },
  {
    kind: 'IngressClass', resource: 'ingressclass', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name }, spec: { controller: 'example.com/ingress-controller', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } } }),
  },
  {
    kind: 'Ingress', resource: 'ingress', namespaced: true, spec: true,
    object: (name) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name },
      spec: { ingressClassName: 'nginx', rules: [{ host: 'foo.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static-assets' } } }] } }], tls: [{ hosts: ['foo.example.com'], secretName: 'foo-tls' }] },
    }),
  },
  {
    kind: 'NetworkPolicy', resource: 'networkpolicy', namespaced: true, spec: true,
    object: (name) => ({
      apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name },
      spec: { podSelector: { matchLabels: { app: 'web' } }, ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ port: 80 }, { port: 'https', protocol: 'TCP' }] }], egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }] },
    }),
  },
  {
    kind: 'PriorityClass', resource: 'priorityclass', namespaced: false, spec: false,
    object: (name) => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 1000, description: 'batch work', preemptionPolicy: 'Never' }),
  },
  {
    kind: 'RuntimeClass', resource: 'runtimeclass', namespaced: false, spec: false,
    object: (name) => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'runc', overhead: { podFixed: { cpu: '100m' } }, scheduling: { nodeSelector: { 'kubernetes.io/os': 'linux' } } }),
  },
  {
    kind: 'EndpointSlice', resource: 'endpointslice', namespaced: true, spec: false,
    object: (name) => ({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, labels: { 'kubernetes.io/service-name': 'web' } }, addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true }, nodeName: 'node-a', zone: 'z1', targetRef: { kind: 'Pod', name: 'web-1' } }, { addresses: ['10.1.0.2'], conditions: { ready: false } }],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    }),
  },
  {
    kind: 'CertificateSigningRequest', resource: 'csr', namespaced: false, spec: true,
    object: (name) => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request: CSR_REQUEST, signerName: 'example.com/signer', expirationSeconds: 86400, usages: ['digital signature', 'client auth'] } }),
  },
  {
    kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscaler', namespaced: true, spec: true,
    object: (name) => ({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 10,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } },
          { type: 'Pods', pods: { metric: { name: 'packets' }, target: { type: 'AverageValue', averageValue: '1k' } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 120 } },
      },
    }),
  },
  {
    kind: 'Node', resource: 'node', namespaced: false, spec: true,
    object: (name) => ({
      apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'node-role.kubernetes.io/worker': '' } },
      spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'dedicated', value: 'batch', effect: 'NoSchedule' }] },
      status: { capacity: { cpu: '4', memory: '8Gi', pods: '110' }, addresses: [{ type: 'InternalIP', address: '10.1.2.3' }] },
    }),
  },
  {
    kind: 'Job', resource: 'job', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name }, spec: { suspend: true, completions: 3, parallelism: 2, backoffLimit: 2, template: { spec: { restartPolicy: 'Never', containers: [{ ...busybox, command: ['true'] }] } } } }),
  },
  {
    kind: 'CronJob', resource: 'cronjob', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name }, spec: { schedule: '30 2 * * 1-5', suspend: true, concurrencyPolicy: 'Forbid', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ ...busybox, command: ['date'] }] } } } } } }),
  },
  {
    kind: 'PodDisruptionBudget', resource: 'poddisruptionbudget', namespaced: true, spec: true,
    object: (name) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: '50%', selector: { matchLabels: { app: name } } } }),
  },
];

const RFC3339 = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
const RFC1123ish = /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}/g;
/** Go's time.Time String() (describe of a NetworkPolicy: `Created on: 2026-01-01 00:00:00 +0000 UTC`). */
const GO_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4} UTC/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

let target: Target;
let ns = '';
let run_ = '';
let work = '';
let k: Kubectl;
const recorded: Record<string, string> = {};
const golden: Record<string, string> = UPDATE ? {} : (JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, string>);

/** The run-independent form of an output. */
function normalize(s: string): string {
  return s
    .split(ns).join('<ns>')
    .split(run_).join('<run>')
    .replace(/kube-api-access-[a-z0-9]{5}/g, 'kube-api-access-xxxxx')
    .replace(RFC3339, '<time>')
    .replace(RFC1123ish, '<time>')
    .replace(GO_TIME, '<time>')
    .replace(UUID, '<uid>')
    .replace(/(Resource Version:\s+)\d+/g, '$1<rv>')
    .replace(/("?resourceVersion"?:\s*"?)\d+/g, '$1<rv>');
}

/** Cells of a kubectl table (two or more blanks separate columns), ages replaced. */
function cells(out: string): string[][] {
  return out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s{2,}/).map((c) => (/^(\d+[smhdy])+$|^<invalid>$/.test(c) ? '<age>' : c)));
}

function describeLines(out: string): string[] {
  return out.split('\n').map((l) => l.replace(/\s+/g, ' ').trimEnd()).filter((l) => l !== '');
}

/** Compare one kubectl output with its golden copy (or record it under UPDATE_GOLDEN). */
function check(key: string, out: string, shape: Shape): void {
  const n = normalize(out);
  if (UPDATE) {
    recorded[key] = shape === 'table' ? cells(n).map((r) => r.join('  ')).join('\n') : n;
    return;
  }
  const want = golden[key];
  if (want === undefined) assert.unreachable(`no golden output for "${key}" (record it from the reference with UPDATE_GOLDEN=1)`);
  if (shape === 'table') assert.equal(cells(n), cells(want!), key);
  else if (shape === 'describe') assert.equal(describeLines(n), describeLines(want!), key);
  else assert.fixture(n, want!, key);
}

function kubectl(...args: string[]): Promise<Run> {
  return k.run(...args);
}

/** kubectl that must succeed (exit 0); its output is then compared with the golden copy. */
async function expectOk(key: string, shape: Shape, args: string[]): Promise<string> {
  const r = await kubectl(...args);
  if (r.code !== 0) assert.unreachable(`${key}: kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  check(key, r.stdout, shape);
  if (r.stderr.trim()) check(`${key} (stderr)`, r.stderr, 'text');
  else if (!UPDATE && golden[`${key} (stderr)`] !== undefined) assert.fixture('', golden[`${key} (stderr)`]!, `${key} (stderr)`);
  return r.stdout;
}

function writeManifest(name: string, obj: Record<string, unknown>): string {
  const file = join(work, `${name}.yaml`);
  writeFileSync(file, YAML.stringify(obj));
  return file;
}

await kubectlSuite(defineTests);

function defineTests(): void {
  test.before(async () => {
    target = await startTarget();
    ns = await target.createNamespace('kinds-kubectl');
    run_ = ns.slice('kinds-kubectl-'.length);
    // The reference has no controller-manager: the namespace's default ServiceAccount, which Pods need.
    const sa = await target.client.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    if (sa.status === 404) await target.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    work = mkdtempSync(join(tmpdir(), 'kubectl-kinds-'));
    k = kubectlFor(target.kubeconfig);
  });

  test.after(async () => {
    if (target) {
      // Cluster-scoped objects outlive the namespace: delete them (PV/PVC finalizers are cleared first).
      for (const c of CASES) {
        for (const base of [`${short(c)}-created-${run_}`, `${short(c)}-applied-${run_}`]) {
          const name = c.kind === 'CSIDriver' ? `${base}.example.com` : base;
          const nsArgs = c.namespaced ? ['-n', ns] : [];
          if (c.kind === 'PersistentVolume' || c.kind === 'PersistentVolumeClaim') await kubectl(...nsArgs, 'patch', c.resource, name, '--type=merge', '-p', '{"metadata":{"finalizers":null}}').catch(() => undefined);
          await kubectl(...nsArgs, 'delete', c.resource, name, '--ignore-not-found', '--wait=false', '--grace-period=0', '--force').catch(() => undefined);
        }
      }
      await target.client.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
      await target.close();
    }
    if (work) rmSync(work, { recursive: true, force: true });
    if (UPDATE && Object.keys(recorded).length) {
      mkdirSync(join(import.meta.dirname, 'golden'), { recursive: true });
      writeFileSync(GOLDEN, JSON.stringify(recorded, null, 1) + '\n');
    }
  });

  if (UPDATE) {
    test('UPDATE_GOLDEN: the golden outputs are recorded from the reference only', () => {
      assert.ok(target.reference, 'run with TEST_KUBECONFIG=<reference kubeconfig>');
    });
  }

  for (const c of CASES) {
    test(`kubectl on ${c.kind}: create -f, get, get -o wide, describe`, async () => {
      if (UPDATE && !target.reference) return;
      const name = `${short(c)}-created-${run_}`;
      const objName = c.kind === 'CSIDriver' ? `${name}.example.com` : name;
      const nsArgs = c.namespaced ? ['-n', ns] : [];
      const file = writeManifest(name, c.object(name));
      await expectOk(`${c.kind} create -f`, 'text', [...nsArgs, 'create', '-f', file]);
      await expectOk(`${c.kind} get`, 'table', [...nsArgs, 'get', c.resource, objName]);
      await expectOk(`${c.kind} get -o wide`, 'table', [...nsArgs, 'get', c.resource, objName, '-o', 'wide']);
      await expectOk(`${c.kind} describe`, 'describe', [...nsArgs, 'describe', c.resource, objName]);
    });

    test(`kubectl on ${c.kind}: apply -f (created, configured with a change, unchanged)`, async () => {
      if (UPDATE && !target.reference) return;
      const name = `${short(c)}-applied-${run_}`;
      const objName = c.kind === 'CSIDriver' ? `${name}.example.com` : name;
      const nsArgs = c.namespaced ? ['-n', ns] : [];
      const obj = c.object(name);
      await expectOk(`${c.kind} apply -f (create)`, 'text', [...nsArgs, 'apply', '-f', writeManifest(name, obj)]);
      const meta = obj.metadata as { labels?: Record<string, string> };
      meta.labels = { ...meta.labels, tier: 'changed' };
      await expectOk(`${c.kind} apply -f (change)`, 'text', [...nsArgs, 'apply', '-f', writeManifest(name, obj)]);
      await expectOk(`${c.kind} apply -f (again)`, 'text', [...nsArgs, 'apply', '-f', writeManifest(name, obj)]);
      await expectOk(`${c.kind} get -o jsonpath labels`, 'text', [...nsArgs, 'get', c.resource, objName, '-o', 'jsonpath={.metadata.labels}']);
      await expectOk(`${c.kind} get -l`, 'table', [...nsArgs, 'get', c.resource, '-l', 'tier=changed']);
    });

    test(`kubectl explain ${c.resource}${c.spec ? ` and ${c.resource}.spec` : ''}`, async () => {
      if (UPDATE && !target.reference) return;
      await expectOk(`${c.kind} explain`, 'text', ['explain', c.resource]);
      if (c.spec) await expectOk(`${c.kind} explain .spec`, 'text', ['explain', `${c.resource}.spec`]);
    });
  }

  test('kubectl get of all the kinds at once, by short name (-A for the namespaced ones)', async () => {
    if (UPDATE && !target.reference) return;
    await expectOk('get pv,sc (ours)', 'table', ['get', 'pv,sc', '-l', 'tier=changed']);
    await expectOk('get -n pvc,po,sa', 'table', ['-n', ns, 'get', 'pvc,po,sa,csistoragecapacities', '-l', 'tier=changed']);
  });
}

/** A short, kind-specific prefix for object names (`pv`, `pvc`, …). */
function short(c: KindCase): string {
  return { PersistentVolume: 'pv', PersistentVolumeClaim: 'pvc', Pod: 'po', ServiceAccount: 'sa', StorageClass: 'sc', VolumeAttachment: 'va', CSIDriver: 'csid', CSINode: 'csin', CSIStorageCapacity: 'csisc', Lease: 'lease', Deployment: 'deploy', ReplicaSet: 'rs', StatefulSet: 'sts', DaemonSet: 'ds', ControllerRevision: 'cr', IngressClass: 'ingc', Ingress: 'ing', NetworkPolicy: 'netpol', PriorityClass: 'pc', RuntimeClass: 'rtc', EndpointSlice: 'eps', CertificateSigningRequest: 'csr', HorizontalPodAutoscaler: 'hpa', Node: 'no', Job: 'job', CronJob: 'cj' }[c.kind]!;
}
