/**
 * PersistentVolumeClaims as kube-apiserver 1.24 answers them through HTTP: defaults, the
 * pvc-protection finalizer, data sources under AnyVolumeDataSource, 422 bodies, the 1.24
 * immutability rules, growing a bound claim through PersistentVolumeClaimResize (StorageClass
 * allowVolumeExpansion), the status subresource with the alpha fields dropped, deletion through
 * the finalizer, Table and Protobuf. Runs on this server and, with TEST_KUBECONFIG, on the
 * reference (expected bodies were taken from it). Every claim names its class (or "") so the
 * DefaultStorageClass plugin never changes them, whatever default class the shared reference has.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import { persistentVolumeClaimTable } from '../../internal/registry/core/persistentvolumeclaim.ts';

let t: Target;
let ns: string;
let C: string;
let sc: string;
const MERGE = 'application/merge-patch+json';

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('pvc');
  C = `/api/v1/namespaces/${ns}/persistentvolumeclaims`;
  sc = `${ns}-expand`;
  const r = await t.client.request('POST', '/apis/storage.k8s.io/v1/storageclasses', {
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: sc }, provisioner: 'example.com/csi', allowVolumeExpansion: true },
  });
  assert.is(r.status, 201, show(r));
  // The reference's ServiceAccount admission needs the `default` account (no controller-manager
  // creates it there); this branch's server has no ServiceAccount admission.
  if (t.reference) {
    const sa = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    assert.is(sa.status, 201, show(sa));
  }
});
test.after(async () => {
  const l = await t.client.request('GET', C);
  for (const c of (l.json as any)?.items ?? []) {
    await t.client.request('PATCH', `${C}/${c.metadata.name}`, { body: { metadata: { finalizers: null } }, contentType: MERGE });
    await t.client.request('DELETE', `${C}/${c.metadata.name}`);
  }
  await t.client.request('DELETE', `/apis/storage.k8s.io/v1/storageclasses/${sc}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const pvc = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec, ...extra });
const base = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '' };
const post = (b: unknown): Promise<HttpResult> => t.client.request('POST', C, { body: b });

function body(r: HttpResult): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [ns]: 'NS' });
}

function same(got: unknown, want: unknown, label: string, r: HttpResult): void {
  assert.equal(got, want, `${label}; ${show(r)}`);
}

const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = { phase: 'Pending' }) => ({
  kind: 'PersistentVolumeClaim',
  apiVersion: 'v1',
  metadata: { name, namespace: 'NS', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', finalizers: ['kubernetes.io/pvc-protection'] },
  spec,
  status,
});

type Cause = [reason: string, field: string, message: string];

function invalid(name: string, causes: Cause[]) {
  const full = causes.map(([, f, m]) => `${f}: ${m}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `PersistentVolumeClaim "${name}" is invalid: ${full.length === 1 ? full[0] : `[${full.join(', ')}]`}`,
    reason: 'Invalid',
    details: { name, kind: 'PersistentVolumeClaim', causes: causes.map(([reason, field, message]) => ({ reason, message, field })) },
    code: 422,
  };
}

test('create: defaults, cleared status, the pvc-protection finalizer', async () => {
  const r = await post(pvc('a', { ...base, resources: { requests: { storage: '1.5Gi' }, limits: { storage: '2Gi' } } }, { status: { phase: 'Bound', capacity: { storage: '9Gi' } } }));
  assert.is(r.status, 201, show(r));
  same(
    body(r),
    stored('a', { accessModes: ['ReadWriteOnce'], resources: { limits: { storage: '2Gi' }, requests: { storage: '1536Mi' } }, storageClassName: '', volumeMode: 'Filesystem' }),
    'claim',
    r,
  );
  const sel = { matchLabels: { tier: 'db' }, matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] };
  const r2 = await post(pvc('b', { ...base, accessModes: ['ReadOnlyMany', 'ReadWriteMany'], selector: sel, storageClassName: 'gold', volumeMode: 'Block', volumeName: 'pv-x' }));
  assert.is(r2.status, 201, show(r2));
  same(
    body(r2).spec,
    { accessModes: ['ReadOnlyMany', 'ReadWriteMany'], selector: sel, resources: { requests: { storage: '1Gi' } }, volumeName: 'pv-x', storageClassName: 'gold', volumeMode: 'Block' },
    'spec',
    r2,
  );
});

test('data sources (AnyVolumeDataSource on): one set → both set; kinds dataSource does not allow are dropped', async () => {
  const pvcRef = { kind: 'PersistentVolumeClaim', name: 'src' };
  // apiGroup is a *string without omitempty: a nil one is served as null.
  const pvcRefOut = { kind: 'PersistentVolumeClaim', name: 'src', apiGroup: null };
  const snap = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' };
  const pop = { apiGroup: 'populator.example.com', kind: 'Thing', name: 't' };
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['ds-pvc', { dataSource: pvcRef }, { dataSource: pvcRefOut, dataSourceRef: { ...pvcRefOut } }],
    ['ds-snap', { dataSource: snap }, { dataSource: snap, dataSourceRef: snap }],
    ['ds-other', { dataSource: pop }, {}],
    ['dsr-other', { dataSourceRef: pop }, { dataSource: pop, dataSourceRef: pop }],
    ['both', { dataSource: pop, dataSourceRef: pop }, { dataSource: pop, dataSourceRef: pop }],
  ];
  for (const [name, ds, want] of cases) {
    const r = await post(pvc(name, { ...base, ...ds }));
    assert.is(r.status, 201, `${name}: ${show(r)}`);
    const s = (r.json as any).spec;
    same({ dataSource: s.dataSource, dataSourceRef: s.dataSourceRef }, { dataSource: want.dataSource, dataSourceRef: want.dataSourceRef }, name, r);
  }
  // Both set and different: 422 on spec (kube prints a Go pointer there; compare the rest).
  const r = await post(pvc('differ', { ...base, dataSource: pvcRef, dataSourceRef: pop }));
  assert.is(r.status, 422, show(r));
  const c = (r.json as any).details.causes;
  assert.equal(c.map((x: any) => [x.reason, x.field]), [['FieldValueInvalid', 'spec']]);
  assert.ok(/^Invalid value: field\.Path\{name:"dataSource", index:"", parent:\(\*field\.Path\)\(.+\)\}: must match dataSourceRef$/.test(c[0].message), c[0].message);
});

test('create: 422 bodies with kube paths and messages', async () => {
  const cases: [string, Record<string, unknown>, Cause[]][] = [
    [
      'empty',
      {},
      [
        ['FieldValueRequired', 'spec.accessModes', 'Required value: at least 1 access mode is required'],
        ['FieldValueRequired', 'spec.resources[storage]', 'Required value'],
      ],
    ],
    [
      'bad',
      {
        accessModes: ['ReadWriteOnce', 'ReadWriteOncePod'],
        resources: { requests: { storage: '0' } },
        storageClassName: 'Bad_Class',
        volumeMode: 'Raw',
        selector: { matchLabels: { 'bad key': 'v' }, matchExpressions: [{ key: 'k', operator: 'Near' }] },
        dataSourceRef: { apiGroup: 'g', kind: '', name: 'x' },
      },
      [
        [
          'FieldValueInvalid',
          'spec.selector.matchLabels',
          `Invalid value: "bad key": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        ],
        ['FieldValueInvalid', 'spec.selector.matchExpressions[0].operator', 'Invalid value: "Near": not a valid selector operator'],
        ['FieldValueNotSupported', 'spec.accessModes', 'Unsupported value: "ReadWriteOncePod": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"'],
        ['FieldValueForbidden', 'spec.accessModes', 'Forbidden: may not use ReadWriteOncePod with other access modes'],
        ['FieldValueInvalid', 'spec.resources[storage]', 'Invalid value: "0": must be greater than zero'],
        [
          'FieldValueInvalid',
          'spec.storageClassName',
          `Invalid value: "Bad_Class": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ],
        ['FieldValueNotSupported', 'spec.volumeMode', 'Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
        // dataSource was copied from dataSourceRef (NormalizeDataSources), so both report it.
        ['FieldValueRequired', 'spec.dataSource.kind', 'Required value'],
        ['FieldValueRequired', 'spec.dataSourceRef.kind', 'Required value'],
      ],
    ],
    ['negative', { accessModes: ['ReadOnlyMany'], resources: { requests: { storage: '-1Gi' } } }, [['FieldValueInvalid', 'spec.resources[storage]', 'Invalid value: "-1Gi": must be greater than zero']]],
    [
      'ds-invalid',
      { ...base, dataSource: { kind: 'PersistentVolumeClaim', name: '' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: '' } },
      [
        ['FieldValueRequired', 'spec.dataSource.name', 'Required value'],
        ['FieldValueRequired', 'spec.dataSourceRef.name', 'Required value'],
      ],
    ],
    ['dsr-core', { ...base, dataSourceRef: { kind: 'ConfigMap', name: 'x' } }, [
      ['FieldValueInvalid', 'spec.dataSource', 'Invalid value: "ConfigMap"'],
      ['FieldValueInvalid', 'spec.dataSourceRef', 'Invalid value: "ConfigMap"'],
    ]],
  ];
  for (const [name, spec, causes] of cases) {
    const r = await post(pvc(name, spec));
    same(body(r), invalid(name, causes), name, r);
  }
});

test('update: spec is immutable but for volumeName once and a bound claim growing through its class', async () => {
  const r = await post(pvc('u', { ...base, storageClassName: sc }));
  assert.is(r.status, 201, show(r));
  const cur = r.json as any;
  // Unbound: any spec change is refused; shrinking also says so.
  const bad = await t.client.request('PUT', `${C}/u`, { body: { ...cur, spec: { ...cur.spec, accessModes: ['ReadWriteMany'], resources: { requests: { storage: '500Mi' } }, volumeMode: 'Block' } } });
  assert.is(bad.status, 422, show(bad));
  const causes = (bad.json as any).details.causes;
  assert.equal(causes.map((c: any) => [c.reason, c.field]), [
    ['FieldValueForbidden', 'spec'],
    ['FieldValueForbidden', 'spec.resources.requests.storage'],
    ['FieldValueInvalid', 'volumeMode'],
  ]);
  // The go-cmp diff after the first line is deliberately unstable across kube-apiserver processes
  // (go-cmp also swaps some spaces for U+00A0 at random, to discourage matching its text).
  assert.ok(causes[0].message.replace(/\u00a0/g, ' ').startsWith('Forbidden: spec is immutable after creation except resources.requests for bound claims\n  core.PersistentVolumeClaimSpec{\n'), causes[0].message);
  assert.is(causes[1].message, 'Forbidden: field can not be less than previous value');
  assert.is(causes[2].message, 'Invalid value: "Block": field is immutable');
  // Growing an unbound claim: the spec rule refuses it (validation runs before admission).
  const grow = await t.client.request('PATCH', `${C}/u`, { body: { spec: { resources: { requests: { storage: '2Gi' } } } }, contentType: MERGE });
  assert.is(grow.status, 422, show(grow));
  assert.equal((grow.json as any).details.causes.map((c: any) => c.field), ['spec']);
  // volumeName may be set once.
  const bind = await t.client.request('PATCH', `${C}/u`, { body: { spec: { volumeName: 'pv-1' } }, contentType: MERGE });
  assert.is(bind.status, 200, show(bind));
  const rebind = await t.client.request('PATCH', `${C}/u`, { body: { spec: { volumeName: 'pv-2' } }, contentType: MERGE });
  assert.is(rebind.status, 422, show(rebind));
  // Bound (status through /status): growth allowed by the class.
  const st = await t.client.request('PATCH', `${C}/u/status`, { body: { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } }, contentType: MERGE });
  assert.is(st.status, 200, show(st));
  const grown = await t.client.request('PATCH', `${C}/u`, { body: { spec: { resources: { requests: { storage: '2Gi' } } } }, contentType: MERGE });
  assert.is(grown.status, 200, show(grown));
  assert.equal((grown.json as any).spec.resources, { requests: { storage: '2Gi' } });
  const shrink = await t.client.request('PATCH', `${C}/u`, { body: { spec: { resources: { requests: { storage: '1Gi' } } } }, contentType: MERGE });
  same(body(shrink), invalid('u', [['FieldValueForbidden', 'spec.resources.requests.storage', 'Forbidden: field can not be less than previous value']]), 'shrink', shrink);

  // A bound claim of a class without allowVolumeExpansion (or of no class) may not grow.
  const r2 = await post(pvc('noexp', base));
  assert.is(r2.status, 201, show(r2));
  await t.client.request('PATCH', `${C}/noexp/status`, { body: { status: { phase: 'Bound' } }, contentType: MERGE });
  const g2 = await t.client.request('PATCH', `${C}/noexp`, { body: { spec: { resources: { requests: { storage: '3Gi' } } } }, contentType: MERGE });
  same(
    body(g2),
    {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'persistentvolumeclaims "noexp" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
      reason: 'Forbidden',
      details: { name: 'noexp', kind: 'persistentvolumeclaims' },
      code: 403,
    },
    'resize refused',
    g2,
  );
});

test('status subresource: only status changes; allocatedResources and resizeStatus dropped (RecoverVolumeExpansionFailure off)', async () => {
  const r = await post(pvc('s', base));
  assert.is(r.status, 201, show(r));
  const cur = r.json as any;
  const conditions = [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-02T03:04:05Z', reason: 'ResizeStarted', message: 'resizing' }];
  const put = await t.client.request('PUT', `${C}/s/status`, {
    body: {
      ...cur,
      spec: { ...cur.spec, accessModes: ['ReadWriteMany'] },
      status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, conditions, allocatedResources: { storage: '2Gi' }, resizeStatus: 'NodeExpansionPending' },
    },
  });
  assert.is(put.status, 200, show(put));
  const want = stored('s', { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '', volumeMode: 'Filesystem' }, {
    phase: 'Bound',
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '1Gi' },
    conditions: [{ type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: '<time>', reason: 'ResizeStarted', message: 'resizing' }],
  });
  same(body(put), want, 'PUT status', put);
  const g = await t.client.request('GET', `${C}/s/status`);
  same(body(g), want, 'GET status', g);
  // A merge patch of /status replaces the conditions and keeps the spec.
  const patch = await t.client.request('PATCH', `${C}/s/status`, {
    body: { spec: { volumeName: 'ignored' }, status: { conditions: [{ type: 'FileSystemResizePending', status: 'True' }, ...(want.status as any).conditions.map((c: any) => ({ ...c, lastTransitionTime: '2026-01-02T03:04:05Z' }))] } },
    contentType: MERGE,
  });
  assert.is(patch.status, 200, show(patch));
  same(
    body(patch),
    { ...want, status: { ...want.status, conditions: [{ type: 'FileSystemResizePending', status: 'True', lastProbeTime: null, lastTransitionTime: null }, ...(want.status as any).conditions] } },
    'PATCH status',
    patch,
  );
  // A strategic merge patch merges conditions by their `type` (patchMergeKey), deletes with
  // `$patch: delete`, and leaves the other status fields alone.
  const smp = await t.client.request('PATCH', `${C}/s/status`, {
    body: { status: { conditions: [{ type: 'Resizing', status: 'False' }, { type: 'ControllerResizeError', status: 'True', message: 'm' }, { type: 'FileSystemResizePending', $patch: 'delete' }] } },
    contentType: 'application/strategic-merge-patch+json',
  });
  assert.is(smp.status, 200, show(smp));
  same(
    (body(smp) as any).status,
    {
      phase: 'Bound',
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: '1Gi' },
      conditions: [
        { type: 'Resizing', status: 'False', lastProbeTime: null, lastTransitionTime: '<time>', reason: 'ResizeStarted', message: 'resizing' },
        { type: 'ControllerResizeError', status: 'True', lastProbeTime: null, lastTransitionTime: null, message: 'm' },
      ],
    },
    'strategic merge of conditions',
    smp,
  );
  // Status sent to the main resource is ignored.
  const main = await t.client.request('PATCH', `${C}/s`, { body: { status: { phase: 'Lost' } }, contentType: MERGE });
  assert.is(main.status, 200, show(main));
  assert.is((main.json as any).status.phase, 'Bound');
});

test('delete: the pvc-protection finalizer holds the claim while a scheduled Pod uses it', async () => {
  const r = await post(pvc('d', base));
  assert.is(r.status, 201, show(r));
  const d = await t.client.request('DELETE', `${C}/d`);
  assert.is(d.status, 200, show(d));
  const dj = d.json as any;
  assert.ok(dj.metadata.deletionTimestamp, show(d));
  assert.equal(dj.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  // The table shows it Terminating.
  const tbl = await t.client.request('GET', `${C}/d`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  if (tbl.status === 200) assert.is((tbl.json as any).rows[0].cells[1], 'Terminating');
  // The reference has no controller-manager: there the claim waits for its finalizer forever
  // (the cleanup removes it). This server's pvc-protection controller sees no Pod using it.
  if (t.reference) return;
  let code = 200;
  for (let i = 0; i < 100 && code === 200; i++) {
    await new Promise((res) => setTimeout(res, 50));
    code = (await t.client.request('GET', `${C}/d`)).status;
  }
  assert.is(code, 404, 'the claim is gone once the controller removed its finalizer');
});

test('delete: a claim used by a scheduled Pod keeps its finalizer until the Pod is gone', async () => {
  const r = await post(pvc('used', base));
  assert.is(r.status, 201, show(r));
  const P = `/api/v1/namespaces/${ns}/pods`;
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'user' },
    spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'used' } }] },
  };
  const pr = await t.client.request('POST', P, { body: pod });
  assert.is(pr.status, 201, show(pr));
  const d = await t.client.request('DELETE', `${C}/used`);
  assert.is(d.status, 200, show(d));
  assert.equal((d.json as any).metadata.finalizers, ['kubernetes.io/pvc-protection']);
  // In use: the finalizer stays on both servers.
  await new Promise((res) => setTimeout(res, 500));
  const still = await t.client.request('GET', `${C}/used`);
  assert.is(still.status, 200, show(still));
  assert.equal((still.json as any).metadata.finalizers, ['kubernetes.io/pvc-protection']);
  const pd = await t.client.request('DELETE', `${P}/user?gracePeriodSeconds=0`);
  assert.is(pd.status, 200, show(pd));
  // The reference has no controller-manager: its claim keeps the finalizer (the cleanup removes
  // it). This server's pvc-protection controller sees the Pod gone and lets the claim go.
  if (t.reference) return;
  let code = 200;
  for (let i = 0; i < 100 && code === 200; i++) {
    await new Promise((res) => setTimeout(res, 50));
    code = (await t.client.request('GET', `${C}/used`)).status;
  }
  assert.is(code, 404, 'the claim is gone once no Pod uses it');
});

test('discovery', async () => {
  const disc = await t.client.request('GET', '/api/v1');
  const res = (disc.json as any).resources.filter((x: any) => x.name.startsWith('persistentvolumeclaims'));
  same(
    res,
    [
      {
        name: 'persistentvolumeclaims',
        singularName: '',
        namespaced: true,
        kind: 'PersistentVolumeClaim',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['pvc'],
        storageVersionHash: 'QWTyNDq0dC4=',
      },
      { name: 'persistentvolumeclaims/status', singularName: '', namespaced: true, kind: 'PersistentVolumeClaim', verbs: ['get', 'patch', 'update'] },
    ],
    'discovery',
    disc,
  );
});

test('Table and Protobuf', async () => {
  const r = await post(pvc('tbl', { ...base, storageClassName: 'gold', volumeName: 'pv-9' }));
  assert.is(r.status, 201, show(r));
  await t.client.request('PATCH', `${C}/tbl/status`, { body: { status: { phase: 'Bound', accessModes: ['ReadWriteMany', 'ReadWriteOnce'], capacity: { storage: '5Gi' } } }, contentType: MERGE });
  const r2 = await post(pvc('tbl2', base));
  assert.is(r2.status, 201, show(r2));
  const tbl = await t.client.request('GET', C, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(tbl.status, 200, show(tbl));
  const j = tbl.json as any;
  // Every column definition (descriptions included) as the reference declares them.
  same(j.columnDefinitions, persistentVolumeClaimTable.columns.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })), 'column definitions', tbl);
  same(j.columnDefinitions.map((c: any) => [c.name, c.type, c.format, c.priority]), [
    ['Name', 'string', 'name', 0],
    ['Status', 'string', '', 0],
    ['Volume', 'string', '', 0],
    ['Capacity', 'string', '', 0],
    ['Access Modes', 'string', '', 0],
    ['StorageClass', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['VolumeMode', 'string', '', 1],
  ], 'columns', tbl);
  const rows = Object.fromEntries(j.rows.map((row: any) => [row.cells[0], row.cells.filter((_: unknown, i: number) => i !== 6)]));
  same(rows.tbl, ['tbl', 'Bound', 'pv-9', '5Gi', 'RWO,RWX', 'gold', 'Filesystem'], 'bound row', tbl);
  same(rows.tbl2, ['tbl2', 'Pending', '', '', '', '', 'Filesystem'], 'pending row', tbl);

  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const path = `${C}/tbl`;
    const pr = await undiciRequest(k.server + path, { headers, dispatcher: agent });
    assert.is(pr.statusCode, 200);
    const bytes = Buffer.from(await pr.body.arrayBuffer());
    const json = (await t.client.request('GET', path)).json;
    assert.equal(decodeProtobuf(bytes).object, json, 'protobuf decodes to the JSON');
    assert.ok(encodeProtobuf(json).equals(bytes), 'JSON re-encodes to the same bytes');
  } finally {
    await agent.close();
  }
});

test.run();
