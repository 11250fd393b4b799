/**
 * PodDisruptionBudget (policy/v1, and policy/v1beta1 over the same objects) as kube-apiserver
 * 1.24 serves it: status reset on create, validation Status bodies, generation, /status (spec
 * kept; v1 refuses negative counters, v1beta1 does not; metav1 conditions), the empty-selector
 * difference between the versions, v1beta1's Warning, Table (printPodDisruptionBudget), list,
 * watch, delete (a Status), Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/policy-pdb.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/policy-pdb.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, namespacedSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const GROUP = 'policy';
// Without the disruption controller here: the reference runs no kube-controller-manager either.
const S = namespacedSuite(test, 'pdb', 'poddisruptionbudgets', `${GROUP}/v1`, { controllers: ['*', '-disruption'] });
const beta = () => S.C.replace('/policy/v1/', '/policy/v1beta1/');
const WARNING = '299 - "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget"';
const LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';
const ZERO = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };

const pdb = (name: string, spec?: Record<string, unknown>, version = 'v1', extra: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/${version}`, kind: 'PodDisruptionBudget', metadata: { name }, ...(spec ? { spec } : {}), ...extra });
const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = ZERO, meta: Record<string, unknown> = {}, version = 'v1') => ({
  kind: 'PodDisruptionBudget',
  apiVersion: `${GROUP}/${version}`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  spec,
  status,
});
const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });

test('create: generation 1, status reset to zero counters', async () => {
  const spec = { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } };
  const r = await S.post(pdb('web', spec, 'v1', { status: { disruptionsAllowed: 5, expectedPods: 3 } }));
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, undefined);
  same(body(r, S.names), stored('web', spec), 'create', r);
  const g = await S.t.client.request('GET', `${S.C}/web`);
  same(body(g, S.names), stored('web', spec), 'get', g);
});

test('create: rejections with kube messages', async () => {
  const PTR = '(*intstr.IntOrString)(0xPTR)';
  const cases: [Record<string, unknown>, Cause[]][] = [
    [
      { minAvailable: 1, maxUnavailable: '50%', selector: { matchLabels: { a: 'b' } } },
      [['FieldValueInvalid', 'spec', `Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:${PTR}, Selector:(*v1.LabelSelector)(0xPTR), MaxUnavailable:${PTR}}: minAvailable and maxUnavailable cannot be both set`]],
    ],
    [
      { minAvailable: 0, maxUnavailable: 0 },
      [['FieldValueInvalid', 'spec', `Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:${PTR}, Selector:(*v1.LabelSelector)(nil), MaxUnavailable:${PTR}}: minAvailable and maxUnavailable cannot be both set`]],
    ],
    [
      { minAvailable: -1, selector: { matchLabels: { a: 'b_' }, matchExpressions: [{ key: 'x', operator: 'In' }, { key: 'y', operator: 'Exists', values: ['z'] }, { key: 'w', operator: 'Has' }] } },
      [
        ['FieldValueInvalid', 'spec.minAvailable', 'Invalid value: -1: must be greater than or equal to 0'],
        [
          'FieldValueInvalid',
          'spec.selector.matchLabels',
          `Invalid value: "b_": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        ],
        ['FieldValueRequired', 'spec.selector.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"],
        ['FieldValueForbidden', 'spec.selector.matchExpressions[1].values', "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
        ['FieldValueInvalid', 'spec.selector.matchExpressions[2].operator', 'Invalid value: "Has": not a valid selector operator'],
      ],
    ],
    [{ maxUnavailable: '150%' }, [['FieldValueInvalid', 'spec.maxUnavailable', 'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%']]],
    [
      { minAvailable: 'x%' },
      [['FieldValueInvalid', 'spec.minAvailable', `Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x%"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`]],
    ],
  ];
  for (const [spec, causes] of cases) {
    const r = await S.post(pdb('bad', spec));
    same(body(r, S.names), invalidStatus('PodDisruptionBudget', 'bad', causes, GROUP), JSON.stringify(spec), r);
  }
});

test('v1beta1: Warning; the empty selector selects nothing there and is stored as the label Exists', async () => {
  const c = await S.t.client.request('POST', beta(), { body: pdb('b-empty', { minAvailable: 1, selector: {} }, 'v1beta1') });
  assert.is(c.status, 201, show(c));
  assert.is(c.headers.warning, WARNING, show(c));
  same(body(c, S.names), stored('b-empty', { minAvailable: 1, selector: {} }, ZERO, {}, 'v1beta1'), 'v1beta1 create', c);
  const v1 = await S.t.client.request('GET', `${S.C}/b-empty`);
  assert.is(v1.headers.warning, undefined);
  same(body(v1, S.names), stored('b-empty', { minAvailable: 1, selector: { matchExpressions: [{ key: LABEL, operator: 'Exists' }] } }), 'v1 read of a v1beta1 {}', v1);

  // An empty matchLabels is the empty selector too (Semantic.DeepEqual: empty map = nil).
  const ml = await S.t.client.request('POST', beta(), { body: pdb('b-ml', { selector: { matchLabels: {} } }, 'v1beta1') });
  assert.is(ml.status, 201, show(ml));
  const mlv1 = await S.t.client.request('GET', `${S.C}/b-ml`);
  assert.equal((mlv1.json as any).spec, { selector: { matchExpressions: [{ key: LABEL, operator: 'Exists' }] } }, show(mlv1));

  // v1's {} selects every Pod: v1beta1 shows it as the label DoesNotExist, and writes it back as {}.
  const a = await S.post(pdb('v1-all', { selector: {} }));
  assert.is(a.status, 201, show(a));
  const ab = await S.t.client.request('GET', `${beta()}/v1-all`);
  same(body(ab, S.names), stored('v1-all', { selector: { matchExpressions: [{ key: LABEL, operator: 'DoesNotExist' }] } }, ZERO, {}, 'v1beta1'), 'v1beta1 read of a v1 {}', ab);
  const put = await S.t.client.request('PUT', `${beta()}/v1-all`, { body: { ...(ab.json as any), metadata: { ...(ab.json as any).metadata, labels: { x: 'y' } } } });
  assert.is(put.status, 200, show(put));
  const a2 = await S.t.client.request('GET', `${S.C}/v1-all`);
  same(body(a2, S.names), stored('v1-all', { selector: {} }, ZERO, { labels: { x: 'y' } }), 'v1 {} kept through a v1beta1 PUT', a2);

  // The label never mixes with a user's selector (stripped by both versions); no selector stays none.
  const mix = { selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: LABEL, operator: 'Exists' }, { key: 'tier', operator: 'In', values: ['a'] }] } };
  const m1 = await S.post(pdb('v1-mix', mix));
  same(body(m1, S.names), stored('v1-mix', { selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] } }), 'v1 strips the label', m1);
  const m2 = await S.t.client.request('POST', beta(), { body: pdb('b-mix', { selector: { matchLabels: { app: 'x' }, matchExpressions: [{ key: LABEL, operator: 'DoesNotExist' }, { key: LABEL, operator: 'Exists' }] } }, 'v1beta1') });
  same(body(m2, S.names), stored('b-mix', { selector: { matchLabels: { app: 'x' } } }, ZERO, {}, 'v1beta1'), 'v1beta1 strips the label', m2);
  const n = await S.t.client.request('POST', beta(), { body: pdb('b-none', {}, 'v1beta1') });
  same(body(n, S.names), stored('b-none', {}, ZERO, {}, 'v1beta1'), 'no selector', n);
  const n1 = await S.t.client.request('GET', `${S.C}/b-none`);
  same(body(n1, S.names), stored('b-none', {}), 'no selector through v1', n1);
  const l = await S.t.client.request('GET', `${beta()}?fieldSelector=metadata.name%3Db-empty`);
  assert.is(l.headers.warning, WARNING, show(l));
  assert.equal((l.json as any).items.map((i: any) => [i.metadata.name, i.spec.selector]), [['b-empty', {}]]);
});

test('update: status kept, generation counts spec changes; /status keeps the spec, v1 refuses negative counters', async () => {
  const c = await S.post(pdb('upd', { maxUnavailable: 1 }));
  assert.is(c.status, 201, show(c));
  const s1 = await merge(`${S.C}/upd`, { metadata: { labels: { a: 'b' } }, status: { disruptionsAllowed: 4 } });
  assert.is(s1.status, 200, show(s1));
  same(body(s1, S.names), stored('upd', { maxUnavailable: 1 }, ZERO, { labels: { a: 'b' } }), 'status ignored', s1);
  const s2 = await merge(`${S.C}/upd`, { spec: { maxUnavailable: '10%' } });
  assert.is((s2.json as any).metadata.generation, 2, show(s2));
  const status = { observedGeneration: 2, disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, conditions: [{ type: 'DisruptionAllowed', status: 'True', reason: 'SufficientPods', message: '', lastTransitionTime: '2024-01-01T00:00:00Z', observedGeneration: 2 }] };
  const st = await merge(`${S.C}/upd/status`, { spec: { maxUnavailable: 3 }, status });
  assert.is(st.status, 200, show(st));
  const written = { ...status, conditions: [{ ...status.conditions[0], lastTransitionTime: '<time>' }] };
  same(body(st, S.names), stored('upd', { maxUnavailable: '10%' }, written, { generation: 2, labels: { a: 'b' } }), 'status written, spec kept', st);
  const tb = await table(S.t, `${S.C}/upd`);
  assert.equal(tb.rows, [['upd', 'N/A', '10%', 1]]);

  const bad = await merge(`${S.C}/upd/status`, {
    status: {
      disruptionsAllowed: -1,
      currentHealthy: -2,
      conditions: [
        { type: 'bad type', status: 'Maybe', reason: '9x', lastTransitionTime: null, observedGeneration: -1 },
        { type: 'bad type', status: 'True', reason: '', lastTransitionTime: '2024-01-01T00:00:00Z' },
      ],
    },
  });
  same(
    body(bad, S.names),
    invalidStatus(
      'PodDisruptionBudget',
      'upd',
      [
        ['FieldValueInvalid', 'status.conditions[0].type', `Invalid value: "bad type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
        ['FieldValueNotSupported', 'status.conditions[0].status', 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"'],
        ['FieldValueInvalid', 'status.conditions[0].observedGeneration', 'Invalid value: -1: must be greater than or equal to zero'],
        ['FieldValueRequired', 'status.conditions[0].lastTransitionTime', 'Required value: must be set'],
        [
          'FieldValueInvalid',
          'status.conditions[0].reason',
          `Invalid value: "9x": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
        ],
        ['FieldValueDuplicate', 'status.conditions[1].type', 'Duplicate value: "bad type"'],
        ['FieldValueInvalid', 'status.conditions[1].type', `Invalid value: "bad type": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
        ['FieldValueRequired', 'status.conditions[1].reason', 'Required value: must be set'],
        ['FieldValueInvalid', 'status.disruptionsAllowed', 'Invalid value: -1: must be greater than or equal to 0'],
        ['FieldValueInvalid', 'status.currentHealthy', 'Invalid value: -2: must be greater than or equal to 0'],
      ],
      GROUP,
    ),
    'bad status',
    bad,
  );
  // v1beta1's /status checks the conditions only.
  const b = await merge(`${beta()}/upd/status`, { status: { disruptionsAllowed: -1, conditions: null } });
  assert.is(b.status, 200, show(b));
  assert.is((b.json as any).status.disruptionsAllowed, -1);
  assert.is(b.headers.warning, WARNING, show(b));
});

test('list, watch, delete (a Status); Table as printPodDisruptionBudget; Protobuf', async () => {
  const c = await S.post(pdb('tbl', { minAvailable: 2, selector: { matchLabels: { app: 'tbl' } } }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.is((l.json as any).kind, 'PodDisruptionBudgetList', show(l));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Min Available', 'string', '', 0],
    ['Max Unavailable', 'string', '', 0],
    ['Allowed Disruptions', 'integer', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.equal(tb.descriptions.slice(1, 4), ['The minimum number of pods that must be available.', 'The maximum number of pods that may be unavailable.', 'Calculated number of pods that may be disrupted at this time.']);
  assert.equal(tb.rows, [['tbl', '2', 'N/A', 0]]);
  const tbb = await table(S.t, `${beta()}/tbl`);
  assert.equal(tbb.rows, [['tbl', '2', 'N/A', 0]]);
  await protobufRoundTrip(S.t, `${S.C}/tbl`);
  await protobufRoundTrip(S.t, `${beta()}/b-empty`);
  const d = await S.t.client.request('DELETE', `${S.C}/tbl`);
  assert.is(d.status, 200, show(d));
  same(body(d, S.names), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'tbl', group: GROUP, kind: 'poddisruptionbudgets', uid: '<uid>' } }, 'delete answers a Status', d);
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=tbl'), [['DELETED', 'tbl']]);
});

test.run();
