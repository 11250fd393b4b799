/**
 * CSIDriver (storage.k8s.io/v1) as kube-apiserver 1.24 serves it: every default, validation
 * Status bodies, immutable fields, the generation bump on tokenRequests/requiresRepublish,
 * list/watch/delete, the Table and Protobuf; on this server also the CSIInlineVolume gate off.
 *
 *   node --import tsx test/run.ts test/fidelity/storage-csidriver.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/storage-csidriver.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { show } from '../assertions.ts';
import { FeatureGates } from '../../internal/features/gates.ts';
import { API, body, invalidStatus, item, protobufRoundTrip, same, stored, table, watchEvents, type Cause } from './storage-helpers.ts';

let t: Target;
let n: (s: string) => string;
let names: Record<string, string>;
const C = `${API}/csidrivers`;

test.before(async () => {
  t = await startTarget();
  const run = t.ns('x').slice(2);
  n = (s) => `wtst-${s}-${run}.csi.example.com`;
  names = { [`-${run}`]: '' };
});
test.after(async () => {
  for (const s of ['d', 'full', 'bad', 'imm', 'w', 'pb']) await t.client.request('DELETE', `${C}/${n(s)}`);
  await t.close();
});

const driver = (name: string, spec?: Record<string, unknown>) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name }, ...(spec ? { spec } : {}) });
const post = (b: unknown) => t.client.request('POST', C, { body: b });
const DEFAULTS = { attachRequired: true, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'], storageCapacity: false, fsGroupPolicy: 'ReadWriteOnceWithFSType', requiresRepublish: false };

test('create: every default, in Go order, with and without a spec', async () => {
  const r = await post(driver(n('d')));
  assert.is(r.status, 201, show(r));
  assert.is(JSON.stringify((r.json as any).spec), JSON.stringify(DEFAULTS));
  same(body(r, names), stored('CSIDriver', 'wtst-d.csi.example.com', { spec: DEFAULTS }), 'defaults', r);
  const full = await post(
    driver(n('full'), {
      requiresRepublish: true,
      tokenRequests: [{ audience: 'a', expirationSeconds: 600 }, { audience: '' }],
      fsGroupPolicy: 'File',
      storageCapacity: true,
      volumeLifecycleModes: ['Ephemeral', 'Persistent'],
      podInfoOnMount: true,
      attachRequired: false,
    }),
  );
  assert.is(full.status, 201, show(full));
  same(
    body(full, names),
    stored('CSIDriver', 'wtst-full.csi.example.com', {
      spec: { attachRequired: false, podInfoOnMount: true, volumeLifecycleModes: ['Ephemeral', 'Persistent'], storageCapacity: true, fsGroupPolicy: 'File', tokenRequests: [{ audience: 'a', expirationSeconds: 600 }, { audience: '' }], requiresRepublish: true },
    }),
    'explicit',
    full,
  );
});

test('create: rejections with field paths and messages', async () => {
  const r = await post(
    driver(n('bad'), {
      fsGroupPolicy: 'Sometimes',
      tokenRequests: [{ audience: 'a', expirationSeconds: 599 }, { audience: 'a', expirationSeconds: 1 }, { audience: 'b', expirationSeconds: 4294967297 }],
      volumeLifecycleModes: ['Persistent', 'Forever'],
    }),
  );
  same(
    body(r, names),
    invalidStatus('CSIDriver', 'wtst-bad.csi.example.com', [
      ['FieldValueNotSupported', 'spec.fsGroupPolicy', 'Unsupported value: "Sometimes": supported values: "File", "None", "ReadWriteOnceWithFSType"'],
      ['FieldValueInvalid', 'spec.tokenRequests[0].expirationSeconds', 'Invalid value: 599: may not specify a duration less than 10 minutes'],
      ['FieldValueDuplicate', 'spec.tokenRequests[1].audience', 'Duplicate value: "a"'],
      ['FieldValueInvalid', 'spec.tokenRequests[2].expirationSeconds', 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds'],
      ['FieldValueNotSupported', 'spec.volumeLifecycleModes', 'Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"'],
    ]),
    'spec errors',
    r,
  );
  const name = await post(driver('Bad_Name'));
  assert.is(name.status, 422, show(name));
  assert.equal((name.json as any).details.causes.map((c: any) => c.field), ['metadata.name']);
});

test('update: attachRequired, podInfoOnMount, fsGroupPolicy, volumeLifecycleModes immutable; generation counts tokenRequests/requiresRepublish changes', async () => {
  const c = await post(driver(n('imm')));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  assert.is(cur.metadata.generation, undefined, 'no generation on create');
  const r = await t.client.request('PUT', `${C}/${n('imm')}`, {
    body: { ...cur, spec: { ...cur.spec, attachRequired: false, podInfoOnMount: true, fsGroupPolicy: 'None', volumeLifecycleModes: ['Ephemeral'], tokenRequests: [{ audience: 'x', expirationSeconds: 10 }] } },
  });
  const tok: Cause = ['FieldValueInvalid', 'spec.tokenRequests[0].expirationSeconds', 'Invalid value: 10: may not specify a duration less than 10 minutes'];
  same(
    body(r, names),
    invalidStatus('CSIDriver', 'wtst-imm.csi.example.com', [
      tok,
      ['FieldValueInvalid', 'spec.attachedRequired', 'Invalid value: false: field is immutable'],
      ['FieldValueInvalid', 'spec.fsGroupPolicy', 'Invalid value: "None": field is immutable'],
      ['FieldValueInvalid', 'spec.podInfoOnMount', 'Invalid value: true: field is immutable'],
      ['FieldValueInvalid', 'spec.volumeLifecycleModes', 'Invalid value: []storage.VolumeLifecycleMode{"Ephemeral"}: field is immutable'],
      tok,
    ]),
    'immutable',
    r,
  );
  // storageCapacity is mutable and not counted; tokenRequests and requiresRepublish bump generation.
  const s1 = await t.client.request('PATCH', `${C}/${n('imm')}`, { body: { spec: { storageCapacity: true } }, contentType: 'application/merge-patch+json' });
  assert.is(s1.status, 200, show(s1));
  assert.is((s1.json as any).metadata.generation, undefined);
  const s2 = await t.client.request('PATCH', `${C}/${n('imm')}`, { body: { spec: { tokenRequests: [{ audience: 'x' }] } }, contentType: 'application/merge-patch+json' });
  assert.is((s2.json as any).metadata.generation, 1, show(s2));
  const s3 = await t.client.request('PATCH', `${C}/${n('imm')}`, { body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/merge-patch+json' });
  assert.is((s3.json as any).metadata.generation, 1, show(s3));
  const s4 = await t.client.request('PATCH', `${C}/${n('imm')}`, { body: { spec: { requiresRepublish: true } }, contentType: 'application/merge-patch+json' });
  assert.is((s4.json as any).metadata.generation, 2, show(s4));
  same(
    body(s4, names),
    stored('CSIDriver', 'wtst-imm.csi.example.com', { spec: { ...DEFAULTS, storageCapacity: true, tokenRequests: [{ audience: 'x' }], requiresRepublish: true } }, { generation: 2, labels: { a: 'b' } }),
    'after updates',
    s4,
  );
});

test('list, watch, delete; Table as printCSIDriver', async () => {
  const c = await post(driver(n('w'), { tokenRequests: [{ audience: 'a' }, { audience: 'b' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${n('w')}`);
  assert.is((l.json as any).kind, 'CSIDriverList', show(l));
  assert.equal(body(l, names).items.map((x: any) => x.metadata.name), ['wtst-w.csi.example.com']);
  assert.equal(item(body(l, names).items[0]).spec.tokenRequests, [{ audience: 'a' }, { audience: 'b' }]);
  const tb = await table(t, `${C}?fieldSelector=metadata.name%3D${n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['AttachRequired', 'boolean', '', 0],
    ['PodInfoOnMount', 'boolean', '', 0],
    ['StorageCapacity', 'boolean', '', 0],
    ['TokenRequests', 'string', '', 0],
    ['RequiresRepublish', 'boolean', '', 0],
    ['Modes', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.ok(tb.descriptions[6]!.startsWith('volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.'));
  assert.equal(tb.rows, [[n('w'), true, false, false, 'a,b', false, 'Persistent,Ephemeral']]);
  const d = (await table(t, `${C}/${n('d')}`)).rows;
  assert.equal(d, [[n('d'), true, false, false, '<unset>', false, 'Persistent']]);
  const del = await t.client.request('DELETE', `${C}/${n('w')}`);
  assert.is(del.status, 200, show(del));
  assert.is((del.json as any).kind, 'CSIDriver');
  assert.equal(await watchEvents(t, C, rv, `metadata.name=${n('w')}`), [['DELETED', n('w')]]);
});

test('Protobuf round trip', async () => {
  const c = await post(driver(n('pb'), { tokenRequests: [{ audience: 'a', expirationSeconds: 3600 }], fsGroupPolicy: 'None' }));
  assert.is(c.status, 201, show(c));
  await protobufRoundTrip(t, `${C}/${n('pb')}`);
});

test('this server with --feature-gates=CSIInlineVolume=false: volumeLifecycleModes neither defaulted nor kept', async () => {
  if (t.reference) return; // the shared reference runs with 1.24's default gates
  const off = await startTarget({ featureGates: new FeatureGates('CSIInlineVolume=false') });
  try {
    const r = await off.client.request('POST', C, { body: driver('gated.example.com', { volumeLifecycleModes: ['Ephemeral'] }) });
    assert.is(r.status, 201, show(r));
    const { volumeLifecycleModes: _m, ...rest } = DEFAULTS;
    assert.equal((r.json as any).spec, rest);
  } finally {
    await off.close();
  }
});

test.run();
