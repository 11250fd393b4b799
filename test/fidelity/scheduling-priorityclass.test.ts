/**
 * PriorityClass (scheduling.k8s.io/v1) as kube-apiserver 1.24 serves it: the two system classes
 * present from the start and never deleted, the preemptionPolicy default, validation Status bodies
 * (reserved `system-` names, the user maximum, immutable value and policy), list/watch/delete, the
 * Table (printPriorityClass) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/scheduling-priorityclass.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/scheduling-priorityclass.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents } from './storage-helpers.ts';

const GROUP = 'scheduling.k8s.io';
const C = `/apis/${GROUP}/v1/priorityclasses`;

const S = clusterSuite(test, C, ['d', 'imm', 'w']);


const pc = (name: string, fields: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'PriorityClass', metadata: { name }, ...fields });
const post = S.post;
const stored = (name: string, fields: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({
  kind: 'PriorityClass',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  ...fields,
});
const SYSTEM = [
  ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
  ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
] as const;

test('the system classes exist from the start and cannot be deleted', async () => {
  for (const [name, value, description] of SYSTEM) {
    const g = await S.t.client.request('GET', `${C}/${name}`);
    same(body(g, S.names), stored(name, { value, description, preemptionPolicy: 'PreemptLowerPriority' }), name, g);
    const d = await S.t.client.request('DELETE', `${C}/${name}`);
    same(
      body(d, S.names),
      { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `priorityclasses.scheduling.k8s.io "${name}" is forbidden: this is a system priority class and cannot be deleted`, reason: 'Forbidden', details: { name, group: GROUP, kind: 'priorityclasses' }, code: 403 },
      `delete ${name}`,
      d,
    );
  }
});

test('create: preemptionPolicy default, generation 1; rejections with kube messages', async () => {
  const r = await post(pc(S.n('d'), { value: 1000, globalDefault: false, description: 'd' }));
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), stored('wtst-d', { value: 1000, description: 'd', preemptionPolicy: 'PreemptLowerPriority' }), 'defaults', r);
  const cases: [string, Record<string, unknown>, [string, string, string][]][] = [
    ['system-x', { value: 1 }, [['FieldValueForbidden', 'metadata.name', "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class"]]],
    ['system-node-critical', { value: 5 }, [['FieldValueForbidden', 'metadata.name', "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000"]]],
    ['system-cluster-critical', { value: 2000000000, globalDefault: true }, [['FieldValueForbidden', 'metadata.name', "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"]]],
    [S.n('bad'), { value: 1000000001, preemptionPolicy: 'Sometimes' }, [
      ['FieldValueForbidden', 'value', 'Forbidden: maximum allowed value of a user defined priority is 1000000000'],
      ['FieldValueNotSupported', 'preemptionPolicy', 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'],
    ]],
    [S.n('bad'), { value: 1, preemptionPolicy: '' }, [['FieldValueRequired', 'preemptionPolicy', 'Required value']]],
  ];
  for (const [name, fields, causes] of cases) {
    const b = await post(pc(name, fields));
    same(body(b, S.names), invalidStatus('PriorityClass', name.replace(/-[0-9a-f]+$/, ''), causes, GROUP), name, b);
  }
  const exists = await post(pc('system-node-critical', { value: 2000001000 }));
  assert.is(exists.status, 409, show(exists));
});

test('update: value and preemptionPolicy immutable; description and globalDefault change without a generation bump', async () => {
  const c = await post(pc(S.n('imm'), { value: 7 }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...cur, value: 8, preemptionPolicy: 'Never' } });
  same(
    body(r, S.names),
    invalidStatus('PriorityClass', 'wtst-imm', [
      ['FieldValueForbidden', 'Value', 'Forbidden: may not be changed in an update.'],
      ['FieldValueInvalid', 'preemptionPolicy', 'Invalid value: "Never": field is immutable'],
    ], GROUP),
    'immutable',
    r,
  );
  const p = await S.t.client.request('PATCH', `${C}/${S.n('imm')}`, { body: { description: 'x', globalDefault: true }, contentType: 'application/merge-patch+json' });
  assert.is(p.status, 200, show(p));
  same(body(p, S.names), stored('wtst-imm', { value: 7, globalDefault: true, description: 'x', preemptionPolicy: 'PreemptLowerPriority' }), 'patched', p);
});

test('list, watch, delete (a Status); Table as printPriorityClass; Protobuf', async () => {
  const c = await post(pc(S.n('w'), { value: -5, preemptionPolicy: 'Never' }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', C);
  assert.is((l.json as any).kind, 'PriorityClassList', show(l));
  const all = (l.json as any).items.map((i: any) => i.metadata.name);
  for (const [name] of SYSTEM) assert.ok(all.includes(name), name);
  const tb = await table(S.t, `${C}?fieldSelector=metadata.name%3D${S.n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Value', 'integer', '', 0],
    ['Global-Default', 'boolean', '', 0],
    ['Age', 'string', '', 0],
  ]);
  const ref = await S.t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${S.n('w')}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.equal((ref.json as any).columnDefinitions.map((d: any) => d.description.slice(0, 40)), [
    'Name must be unique within a namespace. ',
    'The value of this priority class. This i',
    'globalDefault specifies whether this Pri',
    'CreationTimestamp is a timestamp represe',
  ]);
  assert.equal(tb.rows, [[S.n('w'), -5, false]]);
  assert.equal((await table(S.t, `${C}/system-node-critical`)).rows, [['system-node-critical', 2000001000, false]]);
  await protobufRoundTrip(S.t, `${C}/${S.n('w')}`);
  await protobufRoundTrip(S.t, `${C}/system-cluster-critical`);
  const d = await S.t.client.request('DELETE', `${C}/${S.n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, C, rv, `metadata.name=${S.n('w')}`), [['DELETED', S.n('w')]]);
});

test.run();
