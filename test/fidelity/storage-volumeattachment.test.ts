/**
 * VolumeAttachment (storage.k8s.io/v1) as kube-apiserver 1.24 serves it: status reset on create,
 * validation Status bodies (each update error listed twice, as kube validates twice), the
 * read-only spec, /status isolation both ways, list/watch/delete, the Table and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-volumeattachment.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-volumeattachment.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { API, body, invalidStatus, item, protobufRoundTrip, same, stored, table, watchEvents, type Cause } from './storage-helpers.ts';

let t: Target;
let n: (s: string) => string;
let names: Record<string, string>;
const C = `${API}/volumeattachments`;

test.before(async () => {
  t = await startTarget();
  const run = t.ns('x').slice(2);
  n = (s) => `wtst-va-${s}-${run}`;
  names = { [`-${run}`]: '' };
});
test.after(async () => {
  for (const s of ['a', 'bad', 'st', 'w', 'pb']) await t.client.request('DELETE', `${C}/${n(s)}`);
  await t.close();
});

const va = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name }, spec, ...extra });
const post = (b: unknown) => t.client.request('POST', C, { body: b });
const SPEC = { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv1' }, nodeName: 'node1' };

test('create: status is reset (attached false), spec kept in Go order', async () => {
  const r = await post(va(n('a'), { nodeName: 'node1', source: { persistentVolumeName: 'pv1' }, attacher: 'csi.example.com' }, { status: { attached: true, attachmentMetadata: { a: 'b' } } }));
  assert.is(r.status, 201, show(r));
  assert.is(JSON.stringify((r.json as any).spec), JSON.stringify(SPEC));
  const want = stored('VolumeAttachment', 'wtst-va-a', { spec: SPEC, status: { attached: false } });
  same(body(r, names), want, 'create', r);
  same(body(await t.client.request('GET', `${C}/${n('a')}`), names), want, 'get', r);
});

test('create: rejections with field paths and messages', async () => {
  const subdomain = (v: string) =>
    `Invalid value: "${v}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
  const empty = await post(va(n('bad'), {}));
  same(
    body(empty, names),
    invalidStatus('VolumeAttachment', 'wtst-va-bad', [
      ['FieldValueRequired', 'spec.attacher', 'Required value'],
      ['FieldValueRequired', 'spec.source', 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName'],
      ['FieldValueInvalid', 'spec.nodeName', subdomain('')],
      ['FieldValueRequired', 'spec.attacher', 'Required value'],
      ['FieldValueInvalid', 'spec.attacher', subdomain('')],
    ]),
    'empty spec',
    empty,
  );
  const both = await post(va(n('bad'), { attacher: 'Bad_Attacher', nodeName: 'Node_1', source: { persistentVolumeName: 'pv', inlineVolumeSpec: {} } }));
  same(
    body(both, names),
    invalidStatus('VolumeAttachment', 'wtst-va-bad', [
      ['FieldValueForbidden', 'spec.source', 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName'],
      ['FieldValueInvalid', 'spec.nodeName', subdomain('Node_1')],
      ['FieldValueInvalid', 'spec.attacher', subdomain('Bad_Attacher')],
    ]),
    'both sources',
    both,
  );
  const pv = await post(va(n('bad'), { attacher: 'a.b', nodeName: 'n', source: { persistentVolumeName: '' } }));
  same(
    body(pv, names),
    invalidStatus('VolumeAttachment', 'wtst-va-bad', [
      ['FieldValueRequired', 'spec.source.persistentVolumeName', 'Required value: must specify non empty persistentVolumeName'],
      ['FieldValueInvalid', 'spec.source.persistentVolumeName', subdomain('')],
    ]),
    'empty PV name',
    pv,
  );
  const long = await post(va(n('bad'), { attacher: `${'a'.repeat(64)}`, nodeName: 'n', source: { persistentVolumeName: 'PV' } }));
  same(
    body(long, names),
    invalidStatus('VolumeAttachment', 'wtst-va-bad', [
      ['FieldValueTooLong', 'spec.attacher', 'Too long: must have at most 63 bytes'],
      ['FieldValueInvalid', 'spec.source.persistentVolumeName', subdomain('PV')],
    ]),
    'long attacher',
    long,
  );
});

test('inline PV spec: validated as an inline PersistentVolumeSpec (dry run)', async () => {
  const path = `${C}?dryRun=All`;
  const good = await t.client.request('POST', path, {
    body: va(n('bad'), { attacher: 'csi.example.com', nodeName: 'n', source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { volumeHandle: 'h', driver: 'csi.example.com' } } } }),
  });
  assert.is(good.status, 201, show(good));
  assert.is(JSON.stringify((good.json as any).spec.source), JSON.stringify({ inlineVolumeSpec: { csi: { driver: 'csi.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] } }));
  const bad = await t.client.request('POST', path, {
    body: va(n('bad'), { attacher: 'csi.example.com', nodeName: 'n', source: { inlineVolumeSpec: { capacity: { storage: '1Gi' }, claimRef: { name: 'x' }, persistentVolumeReclaimPolicy: 'Delete', hostPath: { path: '/x' } } } }),
  });
  const ctx = 'may not be specified in the context of inline volumes';
  same(
    body(bad, names),
    invalidStatus('VolumeAttachment', 'wtst-va-bad', [
      ['FieldValueForbidden', 'spec.source.inlineVolumeSpec.claimRef', `Forbidden: ${ctx}`],
      ['FieldValueForbidden', 'spec.source.inlineVolumeSpec.capacity', `Forbidden: ${ctx}`],
      ['FieldValueRequired', 'spec.source.inlineVolumeSpec.csi', 'Required value: has to be specified in the context of inline volumes'],
      ['FieldValueRequired', 'spec.source.inlineVolumeSpec.accessModes', 'Required value'],
      ['FieldValueForbidden', 'spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy', 'Forbidden: may only be Retain in the context of inline volumes'],
    ]),
    'inline errors',
    bad,
  );
  const two = await t.client.request('POST', path, {
    body: va(n('bad'), { attacher: 'csi.example.com', nodeName: 'n', source: { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], rbd: { monitors: ['m'], image: 'i' }, csi: { driver: 'd', volumeHandle: 'h' } } } }),
  });
  same(body(two, names), invalidStatus('VolumeAttachment', 'wtst-va-bad', [['FieldValueForbidden', 'spec.source.inlineVolumeSpec.csi', 'Forbidden: may not specify more than 1 volume type']]), 'two sources', two);
});

test('update: the spec is read-only, status kept; /status changes only status (and not labels)', async () => {
  const c = await post(va(n('st'), SPEC));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  // Main resource: a status in the body is ignored, the spec may not change.
  const keep = await t.client.request('PUT', `${C}/${n('st')}`, { body: { ...cur, metadata: { ...cur.metadata, labels: { l: '1' } }, status: { attached: true } } });
  assert.is(keep.status, 200, show(keep));
  same(body(keep, names), stored('VolumeAttachment', 'wtst-va-st', { spec: SPEC, status: { attached: false } }, { labels: { l: '1' } }), 'status ignored', keep);
  const ks = keep.json as any;
  const specMsg = 'Invalid value: storage.VolumeAttachmentSpec{Attacher:"csi.example.com", Source:storage.VolumeAttachmentSource{PersistentVolumeName:(*string)(0xPTR), InlineVolumeSpec:(*core.PersistentVolumeSpec)(nil)}, NodeName:"node2"}: field is immutable';
  const imm = await t.client.request('PUT', `${C}/${n('st')}`, { body: { ...ks, spec: { ...SPEC, nodeName: 'node2' } } });
  same(body(imm, names), invalidStatus('VolumeAttachment', 'wtst-va-st', [['FieldValueInvalid', 'spec', specMsg]]), 'spec immutable', imm);
  // Update errors are listed twice (ValidateVolumeAttachment runs twice on update).
  const bad = await t.client.request('PUT', `${C}/${n('st')}`, { body: { ...ks, spec: { ...SPEC, nodeName: 'Node_2' } } });
  const nodeErr: Cause = [
    'FieldValueInvalid',
    'spec.nodeName',
    "Invalid value: \"Node_2\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  ];
  same(
    body(bad, names),
    invalidStatus('VolumeAttachment', 'wtst-va-st', [nodeErr, nodeErr, ['FieldValueInvalid', 'spec', specMsg.replace('node2', 'Node_2')]]),
    'errors twice',
    bad,
  );
  // An update needs a resourceVersion (no unconditional updates).
  const norv = await t.client.request('PUT', `${C}/${n('st')}`, { body: { ...ks, metadata: { name: n('st') } } });
  assert.is(norv.status, 422, show(norv));
  assert.is((norv.json as any).message, `volumeattachments.storage.k8s.io "${n('st')}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`);

  // /status: spec and labels from the request are ignored; status is taken.
  const st = await t.client.request('PUT', `${C}/${n('st')}/status`, {
    body: { ...ks, metadata: { ...ks.metadata, labels: { l: '2' } }, spec: { ...SPEC, nodeName: 'other' }, status: { attached: true, attachmentMetadata: { dev: '/dev/x' } } },
  });
  assert.is(st.status, 200, show(st));
  const want = stored('VolumeAttachment', 'wtst-va-st', { spec: SPEC, status: { attached: true, attachmentMetadata: { dev: '/dev/x' } } }, { labels: { l: '1' } });
  same(body(st, names), want, '/status', st);
  const g = await t.client.request('GET', `${C}/${n('st')}/status`);
  same(body(g, names), want, 'GET /status', g);
  const mf = (st.json as any).metadata.managedFields as any[];
  const entry = mf.find((m) => m.subresource === 'status');
  assert.equal(entry.fieldsV1, { 'f:status': { 'f:attached': {}, 'f:attachmentMetadata': { '.': {}, 'f:dev': {} } } }, 'a /status writer owns status only');
  // Status errors through /status: a too long error message.
  const long = await t.client.request('PATCH', `${C}/${n('st')}/status`, { body: { status: { attachError: { message: 'x'.repeat(1025) } } }, contentType: 'application/merge-patch+json' });
  const e: Cause = ['FieldValueTooLong', 'status.attachError.message', 'Too long: must have at most 262144 bytes'];
  same(body(long, names), invalidStatus('VolumeAttachment', 'wtst-va-st', [e, e]), 'status error', long);
  // The main resource keeps the status written through /status.
  const cur2 = (await t.client.request('GET', `${C}/${n('st')}`)).json as any;
  const main = await t.client.request('PUT', `${C}/${n('st')}`, { body: { ...cur2, status: { attached: false } } });
  assert.is(main.status, 200, show(main));
  assert.equal((main.json as any).status, { attached: true, attachmentMetadata: { dev: '/dev/x' } });
});

test('list, watch, delete; Table as printVolumeAttachment', async () => {
  const c = await post(va(n('w'), SPEC));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${n('w')}`);
  assert.is((l.json as any).kind, 'VolumeAttachmentList', show(l));
  same(body(l, names).items, [item(stored('VolumeAttachment', 'wtst-va-w', { spec: SPEC, status: { attached: false } }))], 'list', l);
  const tb = await table(t, `${C}/${n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Attacher', 'string', 'name', 0],
    ['PV', 'string', '', 0],
    ['Node', 'string', '', 0],
    ['Attached', 'boolean', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.is(tb.descriptions[2], 'Name of the persistent volume to attach.');
  assert.equal(tb.rows, [[n('w'), 'csi.example.com', 'pv1', 'node1', false]]);
  const d = await t.client.request('DELETE', `${C}/${n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'VolumeAttachment');
  assert.equal(await watchEvents(t, C, rv, `metadata.name=${n('w')}`), [['DELETED', n('w')]]);
});

test('Protobuf round trip', async () => {
  const c = await post(va(n('pb'), SPEC));
  assert.is(c.status, 201, show(c));
  const st = await t.client.request('PUT', `${C}/${n('pb')}/status`, {
    body: { ...(c.json as any), status: { attached: true, attachmentMetadata: { b: '2', a: '1' }, detachError: { time: '2024-01-01T00:00:00Z', message: 'boom' } } },
  });
  assert.is(st.status, 200, show(st));
  await protobufRoundTrip(t, `${C}/${n('pb')}`);
});

test.run();
