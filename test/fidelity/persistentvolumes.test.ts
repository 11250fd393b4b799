/**
 * PersistentVolumes as kube-apiserver 1.24 answers them through HTTP: defaults on create, the
 * pv-protection finalizer (StorageObjectInUseProtection), 422 bodies with kube's paths and
 * messages, immutable sources, the status subresource, deletion through the finalizer, Table,
 * discovery and Protobuf. Runs on this server and, with TEST_KUBECONFIG, on the reference
 * (expected bodies were taken from it). PVs are cluster-scoped: names carry the run's suffix and
 * everything created is deleted (finalizer removed first) at the end.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import { persistentVolumeTable } from '../../internal/registry/core/persistentvolume.ts';

let t: Target;
let run: string;
const P = '/api/v1/persistentvolumes';
const PV_DIFFS = new URL('./golden/pv-diffs.txt', import.meta.url);
const created = new Set<string>();

test.before(async () => {
  t = await startTarget();
  run = t.ns('pv');
});
test.after(async () => {
  for (const name of created) {
    await t.client.request('PATCH', `${P}/${name}`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' });
    await t.client.request('DELETE', `${P}/${name}`);
  }
  await t.close();
});

const n = (s: string): string => `${run}-${s}`;
const pv = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: n(name) }, spec, ...extra });
const base = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] };

async function post(b: { metadata: { name: string } }): Promise<HttpResult> {
  const r = await t.client.request('POST', P, { body: b });
  if (r.status === 201) created.add(b.metadata.name);
  return r;
}

function body(r: HttpResult): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [run]: 'RUN' });
}

function same(got: unknown, want: unknown, label: string, r: HttpResult): void {
  assert.equal(got, want, `${label}; ${show(r)}`);
}

const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = { phase: 'Pending' }, meta: Record<string, unknown> = {}) => ({
  kind: 'PersistentVolume',
  apiVersion: 'v1',
  metadata: { name: `RUN-${name}`, uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', finalizers: ['kubernetes.io/pv-protection'], ...meta },
  spec,
  status,
});

type Cause = [reason: string, field: string, message: string];

/** kube's 422 body; the run's names normalized to RUN. */
function invalid(name: string, causes: Cause[]) {
  const full = causes.map(([, f, m]) => `${f}: ${m}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `PersistentVolume "RUN-${name}" is invalid: ${full.length === 1 ? full[0] : `[${full.join(', ')}]`}`,
    reason: 'Invalid',
    details: { name: `RUN-${name}`, kind: 'PersistentVolume', causes: causes.map(([reason, field, message]) => ({ reason, message, field })) },
    code: 422,
  };
}

test('create: defaults (reclaim policy, volume mode, phase, source defaults) and the pv-protection finalizer', async () => {
  const r = await post(pv('hp', { ...base, hostPath: { path: '/data' } }));
  assert.is(r.status, 201, show(r));
  same(
    body(r),
    stored('hp', { capacity: { storage: '1Gi' }, hostPath: { path: '/data', type: '' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }),
    'hostPath PV',
    r,
  );
  // Status may be set on create (the PV strategy keeps it); capacity rounds up to milli.
  const r2 = await post(
    pv('rbd', { capacity: { storage: '1n' }, accessModes: ['ReadOnlyMany', 'ReadWriteOnce'], rbd: { monitors: ['m:6789'], image: 'img' }, persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast', mountOptions: ['ro'] }, { status: { phase: 'Available' } }),
  );
  assert.is(r2.status, 201, show(r2));
  same(
    body(r2),
    stored(
      'rbd',
      {
        capacity: { storage: '1m' },
        rbd: { monitors: ['m:6789'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' },
        accessModes: ['ReadOnlyMany', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: 'fast',
        mountOptions: ['ro'],
        volumeMode: 'Filesystem',
      },
      { phase: 'Available' },
    ),
    'rbd PV',
    r2,
  );
  // csi with secret references, local with node affinity, iscsi defaults.
  const r3 = await post(
    pv('csi', {
      ...base,
      csi: { driver: 'csi.example.com', volumeHandle: 'h1', nodePublishSecretRef: { name: 's', namespace: 'default' }, controllerExpandSecretRef: { name: 'e', namespace: 'default' } },
    }),
  );
  assert.is(r3.status, 201, show(r3));
  same(body(r3).spec.csi, { driver: 'csi.example.com', volumeHandle: 'h1', nodePublishSecretRef: { name: 's', namespace: 'default' }, controllerExpandSecretRef: { name: 'e', namespace: 'default' } }, 'csi', r3);
  const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } };
  const r4 = await post(pv('local', { ...base, local: { path: '/mnt/disk' }, nodeAffinity: affinity, volumeMode: 'Block' }));
  assert.is(r4.status, 201, show(r4));
  same(body(r4).spec, { capacity: { storage: '1Gi' }, local: { path: '/mnt/disk' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Block', nodeAffinity: affinity }, 'local', r4);
  const r5 = await post(pv('iscsi', { ...base, iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 1, secretRef: { name: 'chap' } } }));
  assert.is(r5.status, 201, show(r5));
  same(body(r5).spec.iscsi, { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 1, iscsiInterface: 'default', secretRef: { name: 'chap' } }, 'iscsi', r5);
});

test('create: 422 bodies with kube paths and messages', async () => {
  const cases: [string, Record<string, unknown>, Cause[], Record<string, unknown>?][] = [
    [
      'empty',
      {},
      [
        ['FieldValueRequired', 'spec.accessModes', 'Required value'],
        ['FieldValueRequired', 'spec.capacity', 'Required value'],
        ['FieldValueNotSupported', 'spec.capacity', 'Unsupported value: core.ResourceList(nil): supported values: "storage"'],
        ['FieldValueRequired', 'spec', 'Required value: must specify a volume type'],
      ],
    ],
    [
      'two-sources',
      { ...base, hostPath: { path: '/a' }, nfs: { server: 's', path: 'rel' }, persistentVolumeReclaimPolicy: 'Sometimes', volumeMode: 'Raw', storageClassName: 'Bad_Class' },
      [
        ['FieldValueNotSupported', 'spec.persistentVolumeReclaimPolicy', 'Unsupported value: "Sometimes": supported values: "Delete", "Recycle", "Retain"'],
        ['FieldValueForbidden', 'spec.nfs', 'Forbidden: may not specify more than 1 volume type'],
        [
          'FieldValueInvalid',
          'spec.storageClassName',
          `Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ],
        ['FieldValueNotSupported', 'spec.volumeMode', 'Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
      ],
    ],
    [
      'csi',
      { ...base, accessModes: ['ReadWriteOnce', 'Sometimes'], capacity: { storage: '0' }, csi: { driver: 'Bad_Driver', nodeStageSecretRef: { name: 'x' }, controllerPublishSecretRef: { name: 'Bad', namespace: '' } } },
      [
        ['FieldValueNotSupported', 'spec.accessModes', 'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"'],
        ['FieldValueInvalid', 'spec.capacity[storage]', 'Invalid value: "0": must be greater than zero'],
        [
          'FieldValueInvalid',
          'spec.csi.driver',
          `Invalid value: "Bad_Driver": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ],
        ['FieldValueRequired', 'spec.csi.volumeHandle', 'Required value'],
        [
          'FieldValueInvalid',
          'spec.csi.name',
          `Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
        ],
        ['FieldValueRequired', 'spec.csi.controllerPublishSecretRef.namespace', 'Required value'],
      ],
    ],
    [
      'local',
      { ...base, local: { path: '/a/../b' }, persistentVolumeReclaimPolicy: 'Recycle' },
      [
        ['FieldValueInvalid', 'spec.local.path', `Invalid value: "/a/../b": must not contain '..'`],
        ['FieldValueRequired', 'spec.nodeAffinity', 'Required value: Local volume requires node affinity'],
      ],
    ],
    [
      'affinity',
      {
        ...base,
        hostPath: { path: '/' },
        persistentVolumeReclaimPolicy: 'Recycle',
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In' }, { key: 'bad key', operator: 'Gt', values: ['1', '2'] }], matchFields: [{ key: 'spec.x', operator: 'Exists' }] }] } },
      },
      [
        ['FieldValueRequired', 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"],
        ['FieldValueRequired', 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].values', "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"],
        [
          'FieldValueInvalid',
          'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].key',
          `Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        ],
        ['FieldValueInvalid', 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].operator', 'Invalid value: "Exists": not a valid selector operator'],
        ['FieldValueInvalid', 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key', 'Invalid value: "spec.x": not a valid field selector key'],
        ['FieldValueForbidden', 'spec.persistentVolumeReclaimPolicy', "Forbidden: may not be 'recycle' for a hostPath mount of '/'"],
      ],
    ],
    ['no-terms', { ...base, nfs: { server: 's', path: '/p' }, nodeAffinity: { required: { nodeSelectorTerms: [] } } }, [['FieldValueRequired', 'spec.nodeAffinity.required.nodeSelectorTerms', 'Required value: must have at least one node selector term']]],
    ['no-required', { ...base, nfs: { server: 's', path: '/p' }, nodeAffinity: {} }, [['FieldValueRequired', 'spec.nodeAffinity.required', 'Required value: must specify required node constraints']]],
    [
      'mount-options',
      { ...base, hostPath: { path: '/x' } },
      [['FieldValueForbidden', 'metadata.annotations.volume.beta.kubernetes.io/mount-options', 'Forbidden: may not specify mount options for this volume type']],
      { 'volume.beta.kubernetes.io/mount-options': 'ro' },
    ],
    [
      'iscsi',
      { ...base, iscsi: { targetPortal: '', iqn: 'foo', lun: 300, chapAuthSession: true, initiatorName: 'bar' } },
      [
        ['FieldValueRequired', 'spec.iscsi.targetPortal', 'Required value'],
        ['FieldValueInvalid', 'spec.iscsi.iqn', 'Invalid value: "foo": must be valid format'],
        ['FieldValueInvalid', 'spec.iscsi.lun', 'Invalid value: 300: must be between 0 and 255, inclusive'],
        ['FieldValueRequired', 'spec.iscsi.secretRef', 'Required value'],
        ['FieldValueInvalid', 'spec.iscsi.initiatorname', 'Invalid value: "bar": must be valid format'],
      ],
    ],
    [
      'extra-capacity',
      { ...base, capacity: { storage: '10Gi', cpu: '1' }, flexVolume: { driver: 'd' }, cephfs: { monitors: [] } },
      [
        [
          'FieldValueNotSupported',
          'spec.capacity',
          'Unsupported value: core.ResourceList{"cpu":resource.Quantity{i:resource.int64Amount{value:1, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1", Format:"DecimalSI"}, "storage":resource.Quantity{i:resource.int64Amount{value:10737418240, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"10Gi", Format:"BinarySI"}}: supported values: "storage"',
        ],
        // cephfs is checked first; flexVolume is counted without the "more than 1" check.
        ['FieldValueRequired', 'spec.cephfs.monitors', 'Required value'],
      ],
    ],
  ];
  for (const [name, spec, causes, annotations] of cases) {
    const b = pv(name, spec);
    if (annotations) (b.metadata as any).annotations = annotations;
    const r = await post(b);
    same(body(r), invalid(name, causes), name, r);
  }
});

test('update: the persistentvolumesource message carries go-cmp\'s diff, byte for byte', async () => {
  // cmp.Diff(old, new) of core.PersistentVolumeSource (internal/gocompat/cmp.ts): every message
  // must equal the one recorded from the reference in golden/pv-diffs.txt (regenerate it with
  // UPDATE_GOLDEN=1 against the reference). go-cmp writes a regular or a non-breaking space after
  // its markers, chosen once per process: both read as regular spaces here.
  const cases: [string, Record<string, unknown>, (s: any) => void][] = [
    ['diff-nfs', { nfs: { server: 's', path: '/p' } }, (s) => { s.nfs.server = 's2'; }], // a nested struct
    ['diff-swap', { nfs: { server: 's', path: '/p' } }, (s) => { delete s.nfs; s.hostPath = { path: '/h' }; }], // nil ↔ value, defaulted Type
    ['diff-rbd', { rbd: { monitors: ['m1'], image: 'i', user: 'u' } }, (s) => { s.rbd.image = 'j'; s.rbd.monitors.push('m2'); }], // Go names (RBDImage), a grown list
    ['diff-quote', { nfs: { server: 'a"b', path: '/p\u0001\u2028é' } }, (s) => { s.nfs.server = 'x`y"'; s.nfs.readOnly = true; }], // raw `…` strings, Go escapes
  ];
  const out: string[] = [];
  for (const [name, source, change] of cases) {
    const r = await post(pv(name, { ...base, ...source }));
    assert.is(r.status, 201, show(r));
    const cur = structuredClone(r.json) as any;
    change(cur.spec);
    const bad = await t.client.request('PUT', `${P}/${n(name)}`, { body: cur });
    assert.is(bad.status, 422, show(bad));
    out.push(`=== ${name}\n${String((bad.json as any).details.causes[0].message).replace(/\u00a0/g, ' ')}`);
  }
  const got = `${out.join('\n')}\n`;
  if (process.env.UPDATE_GOLDEN && t.reference) writeFileSync(PV_DIFFS, got);
  const want = readFileSync(PV_DIFFS, 'utf8').split('=== ');
  got.split('=== ').forEach((g, i) => assert.fixture(g, want[i] ?? ''));
  assert.is(got.split('=== ').length, want.length);
});

test('update: the source, volumeMode and a set nodeAffinity are immutable; capacity and class may change; status is kept', async () => {
  const r = await post(pv('upd', { ...base, nfs: { server: 's', path: '/p' }, csi: undefined }));
  assert.is(r.status, 201, show(r));
  const cur = r.json as any;
  // Source change: 422 whose message starts with kube's text (the go-cmp diff after it is
  // deliberately unstable across kube-apiserver processes).
  const bad = await t.client.request('PUT', `${P}/${n('upd')}`, {
    body: { ...cur, spec: { ...cur.spec, nfs: { server: 's2', path: '/p' }, volumeMode: 'Block' } },
  });
  assert.is(bad.status, 422, show(bad));
  const causes = (bad.json as any).details.causes;
  assert.equal(causes.map((c: any) => [c.reason, c.field]), [
    ['FieldValueForbidden', 'spec.persistentvolumesource'],
    ['FieldValueInvalid', 'volumeMode'],
  ]);
  // (go-cmp also swaps some spaces for U+00A0 at random, to discourage matching its text.)
  assert.ok(causes[0].message.replace(/\u00a0/g, ' ').startsWith('Forbidden: spec.persistentvolumesource is immutable after creation\n  core.PersistentVolumeSource{\n'), causes[0].message);
  assert.is(causes[1].message, 'Invalid value: "Block": field is immutable');
  // kube's strategy validates the new spec twice on update: each spec error is two causes (the
  // message lists it once).
  const twice = await t.client.request('PUT', `${P}/${n('upd')}`, { body: { ...cur, spec: { ...cur.spec, capacity: { storage: '0' } } } });
  same(
    body(twice),
    {
      ...invalid('upd', [['FieldValueInvalid', 'spec.capacity[storage]', 'Invalid value: "0": must be greater than zero']]),
      details: {
        name: 'RUN-upd',
        kind: 'PersistentVolume',
        causes: [0, 1].map(() => ({ reason: 'FieldValueInvalid', message: 'Invalid value: "0": must be greater than zero', field: 'spec.capacity[storage]' })),
      },
    },
    'spec errors twice',
    twice,
  );
  // Capacity, class, reclaim policy, claimRef and a first nodeAffinity may change; status sent on
  // the main resource is ignored.
  const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } };
  const claimRef = { kind: 'PersistentVolumeClaim', namespace: 'ns1', name: 'c1', uid: '3c4cf09b-9b18-4f53-8f43-0e4e9b6c4a7e' };
  const ok = await t.client.request('PUT', `${P}/${n('upd')}`, {
    body: { ...cur, spec: { ...cur.spec, capacity: { storage: '2Gi' }, storageClassName: 'gold', persistentVolumeReclaimPolicy: 'Delete', nodeAffinity: affinity, claimRef }, status: { phase: 'Bound' } },
  });
  assert.is(ok.status, 200, show(ok));
  same(
    body(ok),
    stored('upd', {
      capacity: { storage: '2Gi' },
      nfs: { server: 's', path: '/p' },
      accessModes: ['ReadWriteOnce'],
      claimRef: { ...claimRef, uid: '<uid>' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 'gold',
      volumeMode: 'Filesystem',
      nodeAffinity: affinity,
    }),
    'updated',
    ok,
  );
  const again = await t.client.request('PATCH', `${P}/${n('upd')}`, {
    body: { spec: { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }] } } } },
    contentType: 'application/merge-patch+json',
  });
  assert.is(again.status, 422, show(again));
  same(
    (again.json as any).details.causes.map((c: any) => [c.reason, c.field, c.message.replace(/\(0x[0-9a-f]+\)/, '(<ptr>)')]),
    [['FieldValueInvalid', 'nodeAffinity', 'Invalid value: core.VolumeNodeAffinity{Required:(*core.NodeSelector)(<ptr>)}: field is immutable']],
    'nodeAffinity immutable',
    again,
  );
});

test('status subresource: get, put and patch change only status', async () => {
  const r = await post(pv('st', { ...base, hostPath: { path: '/st' } }));
  assert.is(r.status, 201, show(r));
  const g = await t.client.request('GET', `${P}/${n('st')}/status`);
  same(body(g), body(r), 'GET status = the object', g);
  const cur = g.json as any;
  const put = await t.client.request('PUT', `${P}/${n('st')}/status`, {
    body: { ...cur, spec: { ...cur.spec, capacity: { storage: '9Gi' } }, status: { phase: 'Failed', reason: 'Broken', message: 'disk gone' } },
  });
  assert.is(put.status, 200, show(put));
  const want = stored('st', { capacity: { storage: '1Gi' }, hostPath: { path: '/st', type: '' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' }, {
    phase: 'Failed',
    message: 'disk gone',
    reason: 'Broken',
  });
  same(body(put), want, 'PUT status', put);
  const patch = await t.client.request('PATCH', `${P}/${n('st')}/status`, {
    body: { spec: { persistentVolumeReclaimPolicy: 'Delete' }, status: { phase: 'Available', reason: null, message: null } },
    contentType: 'application/merge-patch+json',
  });
  assert.is(patch.status, 200, show(patch));
  same(body(patch), { ...want, status: { phase: 'Available' } }, 'PATCH status', patch);
  // The main resource ignores status.
  const main = await t.client.request('PATCH', `${P}/${n('st')}`, { body: { status: { phase: 'Released' } }, contentType: 'application/merge-patch+json' });
  assert.is(main.status, 200, show(main));
  assert.equal((main.json as any).status, { phase: 'Available' });
});

test('delete: the pv-protection finalizer holds the PV until it is not Bound', async () => {
  const r = await post(pv('del', { ...base, hostPath: { path: '/del' } }, { status: { phase: 'Bound' } }));
  assert.is(r.status, 201, show(r));
  const d = await t.client.request('DELETE', `${P}/${n('del')}`);
  assert.is(d.status, 200, show(d));
  const dj = d.json as any;
  assert.ok(dj.metadata.deletionTimestamp, show(d));
  assert.equal(dj.metadata.finalizers, ['kubernetes.io/pv-protection']);
  assert.is(dj.status.phase, 'Bound');
  // Bound: the finalizer stays (on this server the pv-protection controller leaves it).
  await new Promise((res) => setTimeout(res, 300));
  const still = await t.client.request('GET', `${P}/${n('del')}`);
  assert.is(still.status, 200, show(still));
  // Released: this server's pv-protection controller removes the finalizer and the PV goes away.
  // The reference has no controller-manager, so there the PV stays until the finalizer is removed
  // by hand (the cleanup does it).
  const rel = await t.client.request('PUT', `${P}/${n('del')}/status`, { body: { ...(still.json as any), status: { phase: 'Released' } } });
  assert.is(rel.status, 200, show(rel));
  if (t.reference) return;
  let code = 200;
  for (let i = 0; i < 100 && code === 200; i++) {
    await new Promise((res) => setTimeout(res, 50));
    code = (await t.client.request('GET', `${P}/${n('del')}`)).status;
  }
  assert.is(code, 404, 'the PV is gone once the controller removed its finalizer');
  created.delete(n('del'));
});

test('a VolumeAttachment inlineVolumeSpec is validated as a PersistentVolumeSpec of an inline volume', async () => {
  const va = (name: string, inline: Record<string, unknown>) => ({
    apiVersion: 'storage.k8s.io/v1',
    kind: 'VolumeAttachment',
    metadata: { name: n(name) },
    spec: { attacher: 'csi.example.com', nodeName: 'n1', source: { inlineVolumeSpec: inline } },
  });
  const VA = '/apis/storage.k8s.io/v1/volumeattachments?dryRun=All';
  const bad = await t.client.request('POST', VA, {
    body: va('va', {
      capacity: { storage: '1n' },
      claimRef: { name: 'x' },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: 's',
      volumeMode: 'Block',
      nodeAffinity: { required: { nodeSelectorTerms: [] } },
      hostPath: { path: '/x' },
      csi: { driver: '', volumeHandle: '' },
    }),
  });
  const inl = 'spec.source.inlineVolumeSpec';
  same(
    (body(bad) as any).details?.causes?.map((c: any) => [c.reason, c.field, c.message]),
    [
      ['FieldValueForbidden', `${inl}.claimRef`, 'Forbidden: may not be specified in the context of inline volumes'],
      ['FieldValueForbidden', `${inl}.capacity`, 'Forbidden: may not be specified in the context of inline volumes'],
      ['FieldValueRequired', `${inl}.accessModes`, 'Required value'],
      ['FieldValueForbidden', `${inl}.persistentVolumeReclaimPolicy`, 'Forbidden: may only be Retain in the context of inline volumes'],
      ['FieldValueForbidden', `${inl}.nodeAffinity`, 'Forbidden: may not be specified in the context of inline volumes'],
      ['FieldValueForbidden', `${inl}.csi`, 'Forbidden: may not specify more than 1 volume type'],
      ['FieldValueForbidden', `${inl}.storageClassName`, 'Forbidden: may not be specified in the context of inline volumes'],
      ['FieldValueForbidden', `${inl}.volumeMode`, 'Forbidden: may not specify volumeMode other than Filesystem in the context of inline volumes'],
    ],
    'inline spec',
    bad,
  );
  const noCsi = await t.client.request('POST', VA, { body: va('va2', { accessModes: ['ReadWriteOnce'], nfs: { server: 's', path: '/p' } }) });
  same(
    (body(noCsi) as any).details?.causes?.map((c: any) => [c.field, c.message]),
    [[`${inl}.csi`, 'Required value: has to be specified in the context of inline volumes']],
    'csi required',
    noCsi,
  );
  const good = await t.client.request('POST', VA, { body: va('va3', { accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } }) });
  assert.is(good.status, 201, show(good));
  assert.equal((good.json as any).spec.source, { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'd', volumeHandle: 'h' } } });
});

test('Table, discovery and Protobuf', async () => {
  const r = await post(pv('tbl', { ...base, accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'], nfs: { server: 's', path: '/t' }, claimRef: { namespace: 'ns1', name: 'c1' }, storageClassName: 'gold' }));
  assert.is(r.status, 201, show(r));
  const tbl = await t.client.request('GET', `${P}/${n('tbl')}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(tbl.status, 200, show(tbl));
  const j = tbl.json as any;
  // Every column definition (descriptions included) as the reference declares them.
  same(j.columnDefinitions, persistentVolumeTable.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })), 'column definitions', tbl);
  same(j.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]), [
    ['Name', 'string', 'name', 0],
    ['Capacity', 'string', '', 0],
    ['Access Modes', 'string', '', 0],
    ['Reclaim Policy', 'string', '', 0],
    ['Status', 'string', '', 0],
    ['Claim', 'string', '', 0],
    ['StorageClass', 'string', '', 0],
    ['Reason', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['VolumeMode', 'string', '', 1],
  ], 'columns', tbl);
  assert.is(j.columnDefinitions[6].description, 'StorageClass of the pv');
  same(j.rows[0].cells.filter((_: unknown, i: number) => i !== 8), [n('tbl'), '1Gi', 'RWO,RWX', 'Retain', 'Pending', 'ns1/c1', 'gold', '', 'Filesystem'], 'row', tbl);

  const disc = await t.client.request('GET', '/api/v1');
  const res = (disc.json as any).resources.filter((x: any) => x.name.startsWith('persistentvolumes'));
  same(
    res.map((x: any) => ({ ...x, storageVersionHash: x.storageVersionHash ? '<hash>' : undefined })),
    [
      { name: 'persistentvolumes', singularName: '', namespaced: false, kind: 'PersistentVolume', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['pv'], storageVersionHash: '<hash>' },
      { name: 'persistentvolumes/status', singularName: '', namespaced: false, kind: 'PersistentVolume', verbs: ['get', 'patch', 'update'], storageVersionHash: undefined },
    ],
    'discovery',
    disc,
  );
  assert.is(res[0].storageVersionHash, 'HN/zwEC+JgM=');

  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const path = `${P}/${n('tbl')}`;
    const pr = await undiciRequest(k.server + path, { headers, dispatcher: agent });
    assert.is(pr.statusCode, 200);
    const bytes = Buffer.from(await pr.body.arrayBuffer());
    const json = (await t.client.request('GET', path)).json;
    assert.equal(decodeProtobuf(bytes).object, json, 'protobuf decodes to the JSON');
    assert.ok(encodeProtobuf(json).equals(bytes), 'JSON re-encodes to the same bytes');
    // A Protobuf create answers the object the JSON create would.
    const pb = encodeProtobuf(pv('pb', { ...base, hostPath: { path: '/pb' } }) as any);
    const cr = await undiciRequest(k.server + P, { method: 'POST', headers: { ...headers, 'content-type': PROTOBUF }, body: pb, dispatcher: agent });
    assert.is(cr.statusCode, 201);
    created.add(n('pb'));
    const obj = decodeProtobuf(Buffer.from(await cr.body.arrayBuffer())).object as any;
    assert.equal(obj.spec, { capacity: { storage: '1Gi' }, hostPath: { path: '/pb', type: '' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' });
    assert.equal(obj.metadata.finalizers, ['kubernetes.io/pv-protection']);
  } finally {
    await agent.close();
  }
});

test.run();
