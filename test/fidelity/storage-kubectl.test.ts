/**
 * kubectl (v1.32 on PATH) on the storage.k8s.io/v1 kinds, as on kube-apiserver 1.24: `apply -f`
 * twice (created, then configured with a change), `get` (the columns kubectl prints from the
 * server's Table) and `describe`, for each of the five kinds.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-kubectl.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-kubectl.test.ts
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import YAML from 'yaml';
import { startTarget, type Target } from '../target.ts';

let t: Target;
let dir: string;
let run: string;
let ns: string;

test.before(async () => {
  t = await startTarget();
  dir = mkdtempSync(join(tmpdir(), 'storage-kubectl-'));
  run = t.ns('x').slice(2);
  ns = await t.createNamespace('wtst-kc');
});
test.after(async () => {
  for (const [r, name] of [['storageclasses', `wtst-kc-${run}`], ['volumeattachments', `wtst-kc-${run}`], ['csidrivers', `wtst-kc-${run}.example.com`], ['csinodes', `wtst-kc-${run}`]]) {
    await t.client.request('DELETE', `/apis/storage.k8s.io/v1/${r}/${name}`);
  }
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('kubectl', ['--kubeconfig', t.kubeconfig, ...args], { env: { ...process.env, KUBECACHEDIR: join(dir, 'cache') }, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  assert.is(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** What differs between runs and servers: the run suffix, namespace, times, versions, uids. */
const norm = (s: string): string =>
  s
    .split(run)
    .join('RUN')
    .split(ns)
    .join('NS')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g, '<time>')
    .replace(/[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} \+0000/g, '<date>')
    .replace(/(Resource Version:\s+)\d+/g, '$1<rv>')
    .replace(/(UID:\s+)[0-9a-f-]{36}/g, '$1<uid>');

/** `kubectl get` output as rows of cells (AGE, the last column, dropped). */
const rows = (out: string): string[][] =>
  norm(out)
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/).slice(0, -1));

interface Case {
  kind: string;
  resource: string;
  name: () => string;
  namespaced?: boolean;
  v1: () => Record<string, unknown>;
  v2: () => Record<string, unknown>;
  get: string[][];
  describe: string;
}

/** A manifest; `labels` in `body` go to metadata. */
const manifest = (kind: string, name: string, namespaced: boolean | undefined, { labels, ...body }: Record<string, unknown>) =>
  YAML.stringify({ apiVersion: 'storage.k8s.io/v1', kind, metadata: { name, ...(namespaced ? { namespace: ns } : {}), ...(labels ? { labels } : {}) }, ...body });

async function exercise(c: Case): Promise<void> {
  const file = join(dir, `${c.resource}.yaml`);
  writeFileSync(file, manifest(c.kind, c.name(), c.namespaced, c.v1()));
  assert.is(norm(await ok('apply', '-f', file)), `${c.kind.toLowerCase()}.storage.k8s.io/${norm(c.name())} created\n`);
  writeFileSync(file, manifest(c.kind, c.name(), c.namespaced, c.v2()));
  assert.is(norm(await ok('apply', '-f', file)), `${c.kind.toLowerCase()}.storage.k8s.io/${norm(c.name())} configured\n`);
  assert.is(norm(await ok('apply', '-f', file)), `${c.kind.toLowerCase()}.storage.k8s.io/${norm(c.name())} unchanged\n`);
  const nsArgs = c.namespaced ? ['-n', ns] : [];
  assert.equal(rows(await ok('get', c.resource, c.name(), ...nsArgs)), c.get, `${c.kind}: kubectl get`);
  const d = norm(await ok('describe', c.resource, c.name(), ...nsArgs));
  if (process.env.DUMP_DESCRIBE) console.log(JSON.stringify(d));
  assert.fixture(d, c.describe);
}

test('StorageClass', () =>
  exercise({
    kind: 'StorageClass',
    resource: 'storageclasses',
    name: () => `wtst-kc-${run}`,
    v1: () => ({ provisioner: 'example.com/kc', parameters: { type: 'ssd' } }),
    v2: () => ({ provisioner: 'example.com/kc', parameters: { type: 'ssd' }, allowVolumeExpansion: true, mountOptions: ['ro'], labels: { stage: 'two' } }),
    get: [
      ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION'],
      ['wtst-kc-RUN', 'example.com/kc', 'Delete', 'Immediate', 'true'],
    ],
    describe:
      "Name:            wtst-kc-RUN\nIsDefaultClass:  No\nAnnotations:     kubectl.kubernetes.io/last-applied-configuration={\"allowVolumeExpansion\":true,\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{\"annotations\":{},\"labels\":{\"stage\":\"two\"},\"name\":\"wtst-kc-RUN\"},\"mountOptions\":[\"ro\"],\"parameters\":{\"type\":\"ssd\"},\"provisioner\":\"example.com/kc\"}\n\nProvisioner:           example.com/kc\nParameters:            type=ssd\nAllowVolumeExpansion:  True\nMountOptions:\n  ro\nReclaimPolicy:      Delete\nVolumeBindingMode:  Immediate\nEvents:             <none>\n",
  }));

test('VolumeAttachment', () =>
  exercise({
    kind: 'VolumeAttachment',
    resource: 'volumeattachments',
    name: () => `wtst-kc-${run}`,
    v1: () => ({ spec: { attacher: 'csi.example.com', nodeName: 'node1', source: { persistentVolumeName: 'pv1' } } }),
    v2: () => ({ spec: { attacher: 'csi.example.com', nodeName: 'node1', source: { persistentVolumeName: 'pv1' } }, labels: { stage: 'two' } }),
    get: [
      ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED'],
      ['wtst-kc-RUN', 'csi.example.com', 'pv1', 'node1', 'false'],
    ],
    describe:
      "Name:         wtst-kc-RUN\nNamespace:    \nLabels:       stage=two\nAnnotations:  <none>\nAPI Version:  storage.k8s.io/v1\nKind:         VolumeAttachment\nMetadata:\n  Creation Timestamp:  <time>\n  Resource Version:    <rv>\n  UID:                 <uid>\nSpec:\n  Attacher:   csi.example.com\n  Node Name:  node1\n  Source:\n    Persistent Volume Name:  pv1\nStatus:\n  Attached:  false\nEvents:      <none>\n",
  }));

test('CSIDriver', () =>
  exercise({
    kind: 'CSIDriver',
    resource: 'csidrivers',
    name: () => `wtst-kc-${run}.example.com`,
    v1: () => ({ spec: { attachRequired: false } }),
    v2: () => ({ spec: { attachRequired: false, storageCapacity: true, tokenRequests: [{ audience: 'api' }] } }),
    get: [
      ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES'],
      ['wtst-kc-RUN.example.com', 'false', 'false', 'true', 'api', 'false', 'Persistent'],
    ],
    describe:
      "Name:         wtst-kc-RUN.example.com\nNamespace:    \nLabels:       <none>\nAnnotations:  <none>\nAPI Version:  storage.k8s.io/v1\nKind:         CSIDriver\nMetadata:\n  Creation Timestamp:  <time>\n  Generation:          1\n  Resource Version:    <rv>\n  UID:                 <uid>\nSpec:\n  Attach Required:     false\n  Fs Group Policy:     ReadWriteOnceWithFSType\n  Pod Info On Mount:   false\n  Requires Republish:  false\n  Storage Capacity:    true\n  Token Requests:\n    Audience:  api\n  Volume Lifecycle Modes:\n    Persistent\nEvents:  <none>\n",
  }));

test('CSINode', () =>
  exercise({
    kind: 'CSINode',
    resource: 'csinodes',
    name: () => `wtst-kc-${run}`,
    v1: () => ({ spec: { drivers: [{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['zone'] }, { name: 'b.example.com', nodeID: 'n2', allocatable: { count: 4 } }] } }),
    // The change is a label: a driver entry is immutable, and adding one through apply needs
    // strategic merge by key (drivers merge on name), which this server's patch does not do yet.
    v2: () => ({ spec: { drivers: [{ name: 'a.example.com', nodeID: 'n1', topologyKeys: ['zone'] }, { name: 'b.example.com', nodeID: 'n2', allocatable: { count: 4 } }] }, labels: { stage: 'two' } }),
    get: [
      ['NAME', 'DRIVERS'],
      ['wtst-kc-RUN', '2'],
    ],
    describe:
      "Name:               wtst-kc-RUN\nLabels:             stage=two\nAnnotations:        <none>\nCreationTimestamp:  <date>\nSpec:\n  Drivers:\n    a.example.com:\n      Node ID:        n1\n      Topology Keys:  [zone]\n    b.example.com:\n      Node ID:  n2\n      Allocatables:\n        Count:  4\nEvents:         <none>\n",
  }));

test('CSIStorageCapacity', () =>
  exercise({
    kind: 'CSIStorageCapacity',
    resource: 'csistoragecapacities',
    name: () => 'cap',
    namespaced: true,
    v1: () => ({ storageClassName: 'fast', capacity: '1Gi', nodeTopology: { matchLabels: { zone: 'a' } } }),
    v2: () => ({ storageClassName: 'fast', capacity: '2Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { zone: 'a' } } }),
    get: [['NAME'], ['cap']],
    describe:
      "Name:                 cap\nNamespace:            wtst-kc-RUN\nLabels:               <none>\nAnnotations:          <none>\nAPI Version:          storage.k8s.io/v1\nCapacity:             2Gi\nKind:                 CSIStorageCapacity\nMaximum Volume Size:  1Gi\nMetadata:\n  Creation Timestamp:  <time>\n  Resource Version:    <rv>\n  UID:                 <uid>\nNode Topology:\n  Match Labels:\n    Zone:            a\nStorage Class Name:  fast\nEvents:              <none>\n",
  }));

test.run();
