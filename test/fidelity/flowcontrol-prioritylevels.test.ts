/**
 * PriorityLevelConfiguration (flowcontrol.apiserver.k8s.io/v1beta2, and v1beta1 over the same
 * objects) as kube-apiserver 1.24 serves it: defaults (shares 30; queues 64, handSize 8,
 * queueLengthLimit 50), validation Status bodies, the mandatory levels' fixed spec, /status,
 * v1beta1's Warning, the Table (printPriorityLevelConfiguration), Protobuf, delete.
 *
 *   node --import tsx test/run.ts test/fidelity/flowcontrol-prioritylevels.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/flowcontrol-prioritylevels.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const C = `/apis/${GROUP}/v1beta2/prioritylevelconfigurations`;
const B = `/apis/${GROUP}/v1beta1/prioritylevelconfigurations`;
const WARNING = '299 - "flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration is deprecated in v1.23+, unavailable in v1.26+; use flowcontrol.apiserver.k8s.io/v1beta2 PriorityLevelConfiguration"';

const S = clusterSuite(test, C, ['q', 'r', 'bad', 'beta']);

const pl = (name: string, spec: Record<string, unknown>, version = 'v1beta2') => ({ apiVersion: `${GROUP}/${version}`, kind: 'PriorityLevelConfiguration', metadata: { name }, spec });
const stored = (name: string, spec: Record<string, unknown>, version = 'v1beta2') => ({
  kind: 'PriorityLevelConfiguration',
  apiVersion: `${GROUP}/${version}`,
  metadata: { name, uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>' },
  spec,
  status: {},
});
const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });

test('create: limited and queuing defaults', async () => {
  const q = await S.post(pl(S.n('q'), { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } }));
  assert.is(q.status, 201, show(q));
  same(body(q, S.names), stored('wtst-q', { type: 'Limited', limited: { assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } } } }), 'queue', q);
  const r = await S.post(pl(S.n('r'), { type: 'Limited', limited: { assuredConcurrencyShares: 3, limitResponse: { type: 'Reject' } } }));
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), stored('wtst-r', { type: 'Limited', limited: { assuredConcurrencyShares: 3, limitResponse: { type: 'Reject' } } }), 'reject', r);
});

test('create: rejections with kube messages', async () => {
  const cases: [Record<string, unknown>, Cause[]][] = [
    [{}, [['FieldValueNotSupported', 'spec.type', 'Unsupported value: "": supported values: "Exempt", "Limited"']]],
    [{ type: 'Exempt' }, [['FieldValueInvalid', 'spec.type', `Invalid value: "Exempt": type must be 'Exempt' if and only if name is 'exempt'`]]],
    [{ type: 'Limited' }, [['FieldValueRequired', 'spec.limited', 'Required value: must not be empty when type is Limited']]],
    [{ type: 'Limited', limited: { assuredConcurrencyShares: -1, limitResponse: { type: 'Drop' } } }, [
      ['FieldValueInvalid', 'spec.limited.assuredConcurrencyShares', 'Invalid value: -1: must be positive'],
      ['FieldValueNotSupported', 'spec.limited.limitResponse.type', 'Unsupported value: "Drop": supported values: "Queue", "Reject"'],
    ]],
    [{ type: 'Limited', limited: { limitResponse: { type: 'Reject', queuing: {} } } }, [['FieldValueForbidden', 'spec.limited.limitResponse.queuing', 'Forbidden: must be nil if limited.limitResponse.type is not Limited']]],
    [{ type: 'Limited', limited: { limitResponse: { type: 'Queue' } } }, [['FieldValueRequired', 'spec.limited.limitResponse.queuing', 'Required value: must not be empty if limited.limitResponse.type is Limited']]],
    [{ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -2 } } } }, [
      ['FieldValueInvalid', 'spec.limited.limitResponse.queuing.queueLengthLimit', 'Invalid value: -2: must be positive'],
      ['FieldValueInvalid', 'spec.limited.limitResponse.queuing.handSize', 'Invalid value: 5: should not be greater than queues (4)'],
    ]],
    [{ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 10000001, handSize: -1 } } } }, [
      ['FieldValueInvalid', 'spec.limited.limitResponse.queuing.queues', 'Invalid value: 10000001: must not be greater than 10000000'],
      ['FieldValueInvalid', 'spec.limited.limitResponse.queuing.handSize', 'Invalid value: -1: must be positive'],
    ]],
    [{ type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 1000, handSize: 20 } } } }, [
      ['FieldValueInvalid', 'spec.limited.limitResponse.queuing.handSize', 'Invalid value: 20: required entropy bits of deckSize 1000 and handSize 20 should not be greater than 60'],
    ]],
  ];
  for (const [spec, causes] of cases) {
    const r = await S.post(pl(S.n('bad'), spec));
    same(body(r, S.names), invalidStatus('PriorityLevelConfiguration', 'wtst-bad', causes, GROUP), JSON.stringify(spec), r);
  }
});

test('the mandatory levels: spec fixed; exempt is the one Exempt level', async () => {
  const r = await merge(`${C}/catch-all`, { spec: { limited: { assuredConcurrencyShares: 6 } } });
  same(
    body(r, {}),
    invalidStatus('PriorityLevelConfiguration', 'catch-all', [['FieldValueInvalid', 'spec', `Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xPTR)}: spec of 'catch-all' must equal the fixed value`]], GROUP),
    'catch-all',
    r,
  );
  const e = await merge(`${C}/exempt`, { spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } });
  same(
    body(e, {}),
    invalidStatus('PriorityLevelConfiguration', 'exempt', [
      ['FieldValueInvalid', 'spec.type', `Invalid value: "Limited": type must be 'Exempt' if and only if name is 'exempt'`],
      ['FieldValueInvalid', 'spec', `Invalid value: flowcontrol.PriorityLevelConfigurationSpec{Type:"Limited", Limited:(*flowcontrol.LimitedPriorityLevelConfiguration)(0xPTR)}: spec of 'exempt' must equal the fixed value`],
    ], GROUP),
    'exempt',
    e,
  );
  const meta = await merge(`${C}/exempt`, { metadata: { labels: { team: 'a' } } });
  assert.is(meta.status, 200, show(meta));
  assert.is((meta.json as any).metadata.generation, 1);
  const undo = await S.t.client.request('PATCH', `${C}/exempt`, { body: [{ op: 'remove', path: '/metadata/labels' }], contentType: 'application/json-patch+json' });
  assert.is(undo.status, 200, show(undo));
});

test('update bumps generation on a spec change; /status keeps the spec', async () => {
  const u = await merge(`${C}/${S.n('r')}`, { spec: { limited: { assuredConcurrencyShares: 4 } }, status: { conditions: [{ type: 'X' }] } });
  assert.is(u.status, 200, show(u));
  assert.is((u.json as any).metadata.generation, 2);
  assert.equal((u.json as any).status, {});
  const s = await merge(`${C}/${S.n('r')}/status`, { spec: { limited: { assuredConcurrencyShares: 9 } }, status: { conditions: [{ type: 'X', status: 'True' }] } });
  assert.is(s.status, 200, show(s));
  assert.is((s.json as any).spec.limited.assuredConcurrencyShares, 4);
  // lastTransitionTime is a metav1.Time without omitempty: null when unset.
  assert.equal((s.json as any).status, { conditions: [{ type: 'X', status: 'True', lastTransitionTime: null }] });
});

test('v1beta1: the same objects, with the deprecation Warning', async () => {
  const spec = { type: 'Limited', limited: { assuredConcurrencyShares: 7, limitResponse: { type: 'Reject' } } };
  const c = await S.t.client.request('POST', B, { body: pl(S.n('beta'), spec, 'v1beta1') });
  assert.is(c.status, 201, show(c));
  assert.is(c.headers.warning, WARNING, show(c));
  same(body(c, S.names), stored('wtst-beta', spec, 'v1beta1'), 'v1beta1', c);
  const g = await S.t.client.request('GET', `${C}/${S.n('beta')}`);
  assert.is(g.headers.warning, undefined);
  same(body(g, S.names), stored('wtst-beta', spec), 'as v1beta2', g);
});

test('Table (printPriorityLevelConfiguration), Protobuf, delete (a Status)', async () => {
  const tb = await table(S.t, C);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Type', 'string', '', 0],
    ['AssuredConcurrencyShares', 'string', '', 0],
    ['Queues', 'string', '', 0],
    ['HandSize', 'string', '', 0],
    ['QueueLengthLimit', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.ok(tb.descriptions[3]!.startsWith('`queues` is the number of queues for this priority level'), tb.descriptions[3]);
  const row = (n: string) => tb.rows.find((r) => r[0] === n);
  assert.equal(row('exempt'), ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>']);
  assert.equal(row('catch-all'), ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>']);
  assert.equal(row('workload-low'), ['workload-low', 'Limited', 100, 128, 6, 50]);
  assert.equal(row(S.n('q')), [S.n('q'), 'Limited', 30, 64, 8, 50]);
  await protobufRoundTrip(S.t, `${C}/workload-low`);
  await protobufRoundTrip(S.t, `${B}/exempt`);
  const d = await S.t.client.request('DELETE', `${C}/${S.n('q')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
});

test.run();
