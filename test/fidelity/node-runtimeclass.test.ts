/**
 * RuntimeClass (node.k8s.io/v1, and v1beta1 over the same objects) as kube-apiserver 1.24 serves
 * it: validation Status bodies (handler, overhead, scheduling), the immutable handler, PUT that
 * creates and updates that need a resourceVersion, v1beta1's deprecation Warning and round trip,
 * list/watch/delete, the Table (printRuntimeClass) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/node-runtimeclass.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/node-runtimeclass.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const GROUP = 'node.k8s.io';
const C = `/apis/${GROUP}/v1/runtimeclasses`;
const B = `/apis/${GROUP}/v1beta1/runtimeclasses`;
const WARNING = '299 - "node.k8s.io/v1beta1 RuntimeClass is deprecated in v1.22+, unavailable in v1.25+"';

const S = clusterSuite(test, C, ['full', 'put', 'imm', 'beta', 'w']);


const rc = (name: string, fields: Record<string, unknown> = {}, version = 'v1') => ({ apiVersion: `${GROUP}/${version}`, kind: 'RuntimeClass', metadata: { name }, ...fields });
const post = S.post;
const stored = (name: string, fields: Record<string, unknown>, version = 'v1') => ({
  kind: 'RuntimeClass',
  apiVersion: `${GROUP}/${version}`,
  metadata: { name, uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
  ...fields,
});

test('create: every field kept as sent (no defaults, no generation); PUT creates', async () => {
  const fields = { handler: 'runc', overhead: { podFixed: { cpu: '250m', memory: '64Mi' } }, scheduling: { nodeSelector: { 'kubernetes.io/os': 'linux' }, tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] } };
  const r = await post(rc(S.n('full'), fields));
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), stored('wtst-full', fields), 'full', r);
  const p = await S.t.client.request('PUT', `${C}/${S.n('put')}`, { body: rc(S.n('put'), { handler: 'kata' }) });
  assert.is(p.status, 201, show(p));
  same(body(p, S.names), stored('wtst-put', { handler: 'kata' }), 'put', p);
});

test('create: rejections with kube messages', async () => {
  const cases: [Record<string, unknown>, Cause[]][] = [
    [{}, [['FieldValueInvalid', 'handler', `Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`]]],
    [
      { handler: 'h', overhead: { podFixed: { cpu: '-1', 'example.com/foo': '1' } } },
      [
        ['FieldValueInvalid', 'overhead.limits[cpu]', 'Invalid value: "-1": must be greater than or equal to 0'],
      ],
    ],
    [
      {
        handler: 'h',
        scheduling: {
          nodeSelector: { 'bad key!': 'v' },
          tolerations: [{ key: 'a', operator: 'Equal', value: 'b', effect: 'NoSchedule' }, { key: 'a', operator: 'Equal', value: 'b', effect: 'NoSchedule', tolerationSeconds: 5 }, { operator: 'Sometimes' }],
        },
      },
      [
        ['FieldValueInvalid', 'scheduling.nodeSelector', `Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
        ['FieldValueInvalid', 'scheduling.tolerations.tolerations[1].effect', 'Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set'],
        ['FieldValueInvalid', 'scheduling.tolerations.tolerations[2].operator', 'Invalid value: "Sometimes": operator must be Exists when `key` is empty, which means "match all values and all keys"'],
        ['FieldValueNotSupported', 'scheduling.tolerations.tolerations[2].operator', 'Unsupported value: "Sometimes": supported values: "Equal", "Exists"'],
        ['FieldValueDuplicate', 'scheduling.tolerations[1]', 'Duplicate value: core.Toleration{Key:"a", Operator:"Equal", Value:"b", Effect:"NoSchedule", TolerationSeconds:(*int64)(0xPTR)}'],
      ],
    ],
  ];
  for (const [fields, causes] of cases) {
    const r = await post(rc(S.n('bad'), fields));
    same(body(r, S.names), invalidStatus('RuntimeClass', 'wtst-bad', causes, GROUP), JSON.stringify(fields), r);
  }
});

test('update: handler immutable, a resourceVersion required; overhead and scheduling change', async () => {
  const c = await post(rc(S.n('imm'), { handler: 'a' }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...cur, handler: 'b' } });
  same(body(r, S.names), invalidStatus('RuntimeClass', 'wtst-imm', [['FieldValueInvalid', 'handler', 'Invalid value: "b": field is immutable']], GROUP), 'immutable', r);
  const { resourceVersion: _rv, ...meta } = cur.metadata;
  const u = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...cur, metadata: meta, scheduling: { nodeSelector: { a: 'b' } } } });
  assert.is(u.status, 422, show(u));
  assert.is((u.json as any).message, 'runtimeclasses.node.k8s.io "wtst-imm" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update'.replace('wtst-imm', S.n('imm')), show(u));
  const ok = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...cur, overhead: { podFixed: { cpu: '1' } } } });
  assert.is(ok.status, 200, show(ok));
  same(body(ok, S.names), stored('wtst-imm', { handler: 'a', overhead: { podFixed: { cpu: '1' } } }), 'updated', ok);
});

test('v1beta1: the same objects, with the deprecation Warning', async () => {
  const c = await S.t.client.request('POST', B, { body: rc(S.n('beta'), { handler: 'h' }, 'v1beta1') });
  assert.is(c.status, 201, show(c));
  assert.is(c.headers.warning, WARNING, show(c));
  same(body(c, S.names), stored('wtst-beta', { handler: 'h' }, 'v1beta1'), 'v1beta1 create', c);
  const g = await S.t.client.request('GET', `${C}/${S.n('beta')}`);
  same(body(g, S.names), stored('wtst-beta', { handler: 'h' }), 'read as v1', g);
  assert.is(g.headers.warning, undefined);
  const gb = await S.t.client.request('GET', `${B}/${S.n('full')}`);
  assert.is(gb.status, 200, show(gb));
  assert.is((gb.json as any).apiVersion, 'node.k8s.io/v1beta1');
  assert.equal((gb.json as any).overhead, { podFixed: { cpu: '250m', memory: '64Mi' } });
});

test('list, watch, delete (a Status); Table as printRuntimeClass; Protobuf', async () => {
  const c = await post(rc(S.n('w'), { handler: 'w-handler' }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${S.n('w')}`);
  assert.is((l.json as any).kind, 'RuntimeClassList', show(l));
  const tb = await table(S.t, `${C}?fieldSelector=metadata.name%3D${S.n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Handler', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.is(tb.descriptions[1], '');
  assert.equal(tb.rows, [[S.n('w'), 'w-handler']]);
  await protobufRoundTrip(S.t, `${C}/${S.n('w')}`);
  await protobufRoundTrip(S.t, `${C}/${S.n('full')}`);
  await protobufRoundTrip(S.t, `${B}/${S.n('full')}`);
  const d = await S.t.client.request('DELETE', `${C}/${S.n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, C, rv, `metadata.name=${S.n('w')}`), [['DELETED', S.n('w')]]);
});

test.run();
