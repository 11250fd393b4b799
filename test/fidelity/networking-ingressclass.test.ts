/**
 * IngressClass (networking.k8s.io/v1) as kube-apiserver 1.24 serves it: the parameters scope
 * default, validation Status bodies (controller, parameters), the immutable controller, the
 * generation bump on spec changes, list/watch/delete, the Table (printIngressClass) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/networking-ingressclass.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/networking-ingressclass.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, item, protobufRoundTrip, same, table, watchEvents } from './storage-helpers.ts';

const GROUP = 'networking.k8s.io';
const C = `/apis/${GROUP}/v1/ingressclasses`;

const S = clusterSuite(test, C, ['d', 'p', 'bad', 'imm', 'w']);


const ic = (name: string, spec?: Record<string, unknown>) => ({ apiVersion: `${GROUP}/v1`, kind: 'IngressClass', metadata: { name }, ...(spec ? { spec } : {}) });
const post = S.post;
const stored = (name: string, spec: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({
  kind: 'IngressClass',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  spec,
});

test('create: generation 1; parameters without a scope default to Cluster', async () => {
  const r = await post(ic(S.n('d'), { controller: 'example.com/ingress' }));
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), stored('wtst-d', { controller: 'example.com/ingress' }), 'plain', r);
  const p = await post(ic(S.n('p'), { controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' } }));
  assert.is(p.status, 201, show(p));
  same(body(p, S.names), stored('wtst-p', { controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb', scope: 'Cluster' } }), 'defaulted scope', p);
});

test('create: rejections with kube messages', async () => {
  const cases: [Record<string, unknown> | undefined, [string, string, string][]][] = [
    [undefined, [['FieldValueRequired', 'spec.controller', 'Required value']]],
    [{ controller: 'nope' }, [['FieldValueInvalid', 'spec.controller', 'Invalid value: "nope": must be a domain-prefixed path (such as "acme.io/foo")']]],
    [
      { controller: 'Bad_Host/x y' },
      [
        ['FieldValueInvalid', 'spec.controller', `Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
        ['FieldValueInvalid', 'spec.controller', `Invalid value: "x y": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')`],
      ],
    ],
    [
      { controller: `a.io/${'x'.repeat(250)}` },
      [['FieldValueTooLong', 'spec.controller', 'Too long: must have at most 250 bytes']],
    ],
    [
      { controller: 'a.io/b', parameters: { apiGroup: 'Bad', kind: '', name: 'a/b', scope: 'Namespace' } },
      [
        ['FieldValueInvalid', 'spec.parameters.apiGroup', `Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
        ['FieldValueRequired', 'spec.parameters.kind', 'Required value: kind is required'],
        ['FieldValueInvalid', 'spec.parameters.name', `Invalid value: "a/b": may not contain '/'`],
        ['FieldValueRequired', 'spec.parameters.namespace', "Required value: `parameters.scope` is set to 'Namespace'"],
      ],
    ],
    [
      { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'ns' } },
      [['FieldValueForbidden', 'spec.parameters.namespace', "Forbidden: `parameters.scope` is set to 'Cluster'"]],
    ],
    [
      { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Namespace', namespace: 'Bad.NS' } },
      [['FieldValueInvalid', 'spec.parameters.namespace', `Invalid value: "Bad.NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`]],
    ],
    [{ controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'World' } }, [['FieldValueNotSupported', 'spec.parameters.scope', 'Unsupported value: "World": supported values: "Cluster", "Namespace"']]],
  ];
  for (const [spec, causes] of cases) {
    const r = await post(ic(S.n('bad'), spec));
    same(body(r, S.names), invalidStatus('IngressClass', 'wtst-bad', causes, GROUP), JSON.stringify(spec), r);
  }
});

test('update: controller immutable; generation counts spec changes only', async () => {
  const c = await post(ic(S.n('imm'), { controller: 'a.io/b' }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const r = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...cur, spec: { controller: 'a.io/c' } } });
  same(body(r, S.names), invalidStatus('IngressClass', 'wtst-imm', [['FieldValueInvalid', 'spec.controller', 'Invalid value: "a.io/c": field is immutable']], GROUP), 'immutable', r);
  const merge = (b: unknown) => S.t.client.request('PATCH', `${C}/${S.n('imm')}`, { body: b, contentType: 'application/merge-patch+json' });
  const l = await merge({ metadata: { labels: { a: 'b' } } });
  assert.is((l.json as any).metadata.generation, 1, show(l));
  const p = await merge({ spec: { parameters: { kind: 'K', name: 'n' } } });
  assert.is(p.status, 200, show(p));
  same(body(p, S.names), stored('wtst-imm', { controller: 'a.io/b', parameters: { kind: 'K', name: 'n', scope: 'Cluster' } }, { generation: 2, labels: { a: 'b' } }), 'after updates', p);
  // An update without a resourceVersion is accepted.
  const { resourceVersion: _rv, ...meta } = (p.json as any).metadata;
  const u = await S.t.client.request('PUT', `${C}/${S.n('imm')}`, { body: { ...(p.json as any), metadata: meta } });
  assert.is(u.status, 200, show(u));
});

test('list, watch, delete (a Status); Table as printIngressClass; Protobuf', async () => {
  const c = await post(ic(S.n('w'), { controller: 'a.io/w', parameters: { apiGroup: 'g.io', kind: 'P', name: 'x', scope: 'Namespace', namespace: 'ns' } }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${C}?fieldSelector=metadata.name%3D${S.n('w')}`);
  assert.is((l.json as any).kind, 'IngressClassList', show(l));
  assert.equal(body(l, S.names).items.map(item), [item(stored('wtst-w', (c.json as any).spec))]);
  const tb = await table(S.t, `${C}?fieldSelector=metadata.name%3D${S.n('w')}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Controller', 'string', '', 0],
    ['Parameters', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.equal(tb.descriptions.slice(1, 3), ['Controller that is responsible for handling this class', 'A reference to a resource with additional parameters']);
  assert.equal(tb.rows, [[S.n('w'), 'a.io/w', 'P.g.io/x']]);
  assert.equal((await table(S.t, `${C}/${S.n('d')}`)).rows, [[S.n('d'), 'example.com/ingress', '<none>']]);
  await protobufRoundTrip(S.t, `${C}/${S.n('w')}`);
  const d = await S.t.client.request('DELETE', `${C}/${S.n('w')}`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, C, rv, `metadata.name=${S.n('w')}`), [['DELETED', S.n('w')]]);
});

test.run();
