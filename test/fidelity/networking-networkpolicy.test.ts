/**
 * NetworkPolicy (networking.k8s.io/v1) as kube-apiserver 1.24 serves it under its default gates:
 * policyTypes and protocol defaults, validation Status bodies (ports, peers, ipBlocks, policy
 * types; spec errors twice on update), the generation bump, /status with NetworkPolicyStatus off,
 * list/watch/delete, the Table (printNetworkPolicy) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/networking-networkpolicy.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/networking-networkpolicy.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, namespacedSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const GROUP = 'networking.k8s.io';
/** kube's 422s for a NetworkPolicy name the group its scheme registered the internal kind under first. */
const ERR_GROUP = 'extensions';

const S = namespacedSuite(test, 'netpol', 'networkpolicies', `${GROUP}/v1`);


const np = (name: string, spec?: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'NetworkPolicy', metadata: { name }, ...(spec ? { spec } : {}) });
const post = S.post;
const stored = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  kind: 'NetworkPolicy',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  spec,
  status: {},
  ...rest,
});

test('create: policyTypes from the rules, protocol TCP, an empty podSelector kept', async () => {
  const a = await post(np('a'));
  assert.is(a.status, 201, show(a));
  same(body(a, S.names), stored('a', { podSelector: {}, policyTypes: ['Ingress'] }), 'no spec', a);
  const b = await post(
    np('b', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ ports: [{ port: 80 }, { port: 'http', protocol: 'UDP' }], from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { podSelector: {}, namespaceSelector: { matchLabels: { a: 'b' } } }] }],
      egress: [{ ports: [{ port: 1000, endPort: 2000 }] }],
    }),
  );
  assert.is(b.status, 201, show(b));
  same(
    body(b, S.names),
    stored('b', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [{ ports: [{ protocol: 'TCP', port: 80 }, { protocol: 'UDP', port: 'http' }], from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }, { podSelector: {}, namespaceSelector: { matchLabels: { a: 'b' } } }] }],
      egress: [{ ports: [{ protocol: 'TCP', port: 1000, endPort: 2000 }] }],
      policyTypes: ['Ingress', 'Egress'],
    }),
    'defaults',
    b,
  );
});

const BAD_SPEC = {
  podSelector: { matchExpressions: [{ key: 'k', operator: 'Has' }] },
  ingress: [
    {
      ports: [{ protocol: 'ICMP', port: 0 }, { port: 100, endPort: 99 }, { port: 'Bad_Name', endPort: 5 }, { endPort: 70000 }],
      from: [{}, { ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }, { ipBlock: { cidr: 'nope' } }, { ipBlock: { cidr: '' } }],
    },
  ],
  egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/16', '192.168.0.0/24', 'x', '10.0.1.0/24'] } }] }],
  policyTypes: ['Ingress', 'Sideways'],
};
const BAD_CAUSES: Cause[] = [
  ['FieldValueInvalid', 'spec.podSelector.matchExpressions[0].operator', 'Invalid value: "Has": not a valid selector operator'],
  ['FieldValueNotSupported', 'spec.ingress[0].ports[0].protocol', 'Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"'],
  ['FieldValueInvalid', 'spec.ingress[0].ports[0].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
  ['FieldValueInvalid', 'spec.ingress[0].ports[1].endPort', 'Invalid value: 100: must be greater than or equal to `port`'],
  ['FieldValueInvalid', 'spec.ingress[0].ports[2].endPort', 'Invalid value: 5: may not be specified when `port` is non-numeric'],
  ['FieldValueInvalid', 'spec.ingress[0].ports[2].port', 'Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
  ['FieldValueInvalid', 'spec.ingress[0].ports[3].endPort', 'Invalid value: 70000: may not be specified when `port` is not specified'],
  ['FieldValueRequired', 'spec.ingress[0].from[0]', 'Required value: must specify a peer'],
  ['FieldValueForbidden', 'spec.ingress[0].from[1]', 'Forbidden: may not specify both ipBlock and another peer'],
  ['FieldValueInvalid', 'spec.ingress[0].from[2].ipBlock.cidr', 'Invalid value: "nope": not a valid CIDR'],
  ['FieldValueRequired', 'spec.ingress[0].from[3].ipBlock.cidr', 'Required value'],
  ['FieldValueInvalid', 'spec.egress[0].to[0].ipBlock.except[0]', 'Invalid value: "10.0.0.0/16": must be a strict subset of `cidr`'],
  ['FieldValueInvalid', 'spec.egress[0].to[0].ipBlock.except[1]', 'Invalid value: "192.168.0.0/24": must be a strict subset of `cidr`'],
  ['FieldValueInvalid', 'spec.egress[0].to[0].ipBlock.except[2]', 'Invalid value: "x": not a valid CIDR'],
  ['FieldValueNotSupported', 'spec.policyTypes[1]', 'Unsupported value: "Sideways": supported values: "Ingress", "Egress"'],
];

test('create: rejections with kube messages; too many policyTypes', async () => {
  const r = await post(np('bad', BAD_SPEC));
  same(body(r, S.names), invalidStatus('NetworkPolicy', 'bad', BAD_CAUSES, ERR_GROUP), 'bad', r);
  const many = await post(np('bad', { podSelector: {}, policyTypes: ['Ingress', 'Egress', 'Ingress'] }));
  same(
    body(many, S.names),
    invalidStatus('NetworkPolicy', 'bad', [['FieldValueInvalid', 'spec.policyTypes', 'Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes']], ERR_GROUP),
    'too many',
    many,
  );
});

test('update: spec errors reported twice; generation counts spec changes; /status cannot write conditions', async () => {
  const c = await post(np('upd', { podSelector: {} }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await S.t.client.request('PUT', `${S.C}/upd`, { body: { ...cur, spec: { ...cur.spec, policyTypes: ['Up'] } } });
  const cause: Cause = ['FieldValueNotSupported', 'spec.policyTypes[0]', 'Unsupported value: "Up": supported values: "Ingress", "Egress"'];
  same(body(r, S.names), invalidStatus('NetworkPolicy', 'upd', [cause, cause], ERR_GROUP), 'twice', r);
  const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });
  const l = await merge(`${S.C}/upd`, { metadata: { labels: { a: 'b' } } });
  assert.is((l.json as any).metadata.generation, 1, show(l));
  const s = await merge(`${S.C}/upd`, { spec: { podSelector: { matchLabels: { x: 'y' } } } });
  assert.is((s.json as any).metadata.generation, 2, show(s));
  const cond = { type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
  const st = await merge(`${S.C}/upd/status`, { spec: { podSelector: null }, status: { conditions: [cond] } });
  assert.is(st.status, 200, show(st));
  same(body(st, S.names), stored('upd', { podSelector: { matchLabels: { x: 'y' } }, policyTypes: ['Ingress'] }, { generation: 2, labels: { a: 'b' } }), 'status dropped, spec kept', st);
});

test('list, watch, delete (a Status); Table as printNetworkPolicy; Protobuf', async () => {
  const c = await post(np('tbl', { podSelector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }, { key: 'aa', operator: 'DoesNotExist' }, { key: 'd', operator: 'Exists' }, { key: 'e', operator: 'NotIn', values: ['z'] }] } }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.is((l.json as any).kind, 'NetworkPolicyList', show(l));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Pod-Selector', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.ok(tb.descriptions[1]!.startsWith('Selects the pods to which this NetworkPolicy object applies.'), tb.descriptions[1]);
  assert.equal(tb.rows, [['tbl', 'a=1,!aa,b=2,c in (x,y),d,e notin (z)']]);
  assert.equal((await table(S.t, `${S.C}/a`)).rows, [['a', '<none>']]);
  await protobufRoundTrip(S.t, `${S.C}/tbl`);
  await protobufRoundTrip(S.t, `${S.C}/b`);
  const d = await S.t.client.request('DELETE', `${S.C}/tbl`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=tbl'), [['DELETED', 'tbl']]);
});

test.run();
