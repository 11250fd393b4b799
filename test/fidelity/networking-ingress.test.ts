/**
 * Ingress (networking.k8s.io/v1) as kube-apiserver 1.24 serves it: the status reset on create,
 * validation Status bodies (rules, paths, backends, TLS, class), the generation bump, /status
 * (spec kept, load-balancer validation), list/watch/delete, the Table (printIngress), Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/networking-ingress.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/networking-ingress.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';
import { body, namespacedSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const GROUP = 'networking.k8s.io';
/** kube's 422s for an Ingress name the group its scheme registered the internal kind under first. */
const SUBDOMAIN = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;

const S = namespacedSuite(test, 'ing', 'ingresses', `${GROUP}/v1`);


const backend = (name = 'svc', port: Record<string, unknown> = { number: 80 }) => ({ service: { name, port } });
const ing = (name: string, spec?: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/v1`, kind: 'Ingress', metadata: { name, ...meta }, ...(spec ? { spec } : {}) });
const post = S.post;
const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = { loadBalancer: {} }, meta: Record<string, unknown> = {}) => ({
  kind: 'Ingress',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  spec,
  status,
});
const RULES = [{ host: 'foo.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend() }] } }];

test('create: generation 1, status reset to an empty loadBalancer', async () => {
  const spec = { ingressClassName: 'nginx', defaultBackend: backend('def', { name: 'http' }), rules: RULES, tls: [{ hosts: ['foo.example.com'], secretName: 'tls' }] };
  const r = await post({ ...ing('full', spec), status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } });
  assert.is(r.status, 201, show(r));
  same(body(r, S.names), stored('full', spec), 'full', r);
  const g = await S.t.client.request('GET', `${S.C}/full`);
  same(body(g, S.names), stored('full', spec), 'get', g);
});

test('create: rejections with kube messages', async () => {
  const cases: [Record<string, unknown> | undefined, Cause[], Record<string, unknown>?][] = [
    [undefined, [['FieldValueInvalid', 'spec', 'Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']]],
    [{ rules: [] }, [['FieldValueInvalid', 'spec', 'Invalid value: []networking.IngressRule{}: either `defaultBackend` or `rules` must be specified']]],
    [
      { defaultBackend: { service: { name: 'Bad', port: { name: 'http', number: 80 } }, resource: { kind: 'K', name: 'n' } } },
      [['FieldValueInvalid', 'spec.defaultBackend', 'Invalid value: "": cannot set both resource and service backends']],
    ],
    [{ defaultBackend: {} }, [['FieldValueInvalid', 'spec.defaultBackend', 'Invalid value: "": resource or service backend is required']]],
    [
      { defaultBackend: { service: { name: 'Bad', port: { name: 'http', number: 80 } } } },
      [
        ['FieldValueInvalid', 'spec.defaultBackend.service.name', `Invalid value: "Bad": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`],
        ['FieldValueInvalid', 'spec.defaultBackend', 'Invalid value: "": cannot set both port name & port number'],
      ],
    ],
    [{ defaultBackend: { service: { name: '', port: {} } } }, [['FieldValueRequired', 'spec.defaultBackend.service.name', 'Required value'], ['FieldValueRequired', 'spec.defaultBackend', 'Required value: port name or number is required']]],
    [{ defaultBackend: { service: { name: 's', port: { number: 70000 } } } }, [['FieldValueInvalid', 'spec.defaultBackend.service.port.number', 'Invalid value: 70000: must be between 1 and 65535, inclusive']]],
    [{ defaultBackend: { resource: { apiGroup: 'g.io', kind: '', name: '' } } }, [['FieldValueRequired', 'spec.defaultBackend.resource.kind', 'Required value: kind is required'], ['FieldValueRequired', 'spec.defaultBackend.resource.name', 'Required value: name is required']]],
    [
      {
        rules: [
          { host: '1.2.3.4', http: { paths: [] } },
          { host: '*.foo.com', http: { paths: [{ path: 'rel', backend: backend() }, { path: 'a//b/..', pathType: 'Exact', backend: backend() }, { path: 'x', pathType: 'ImplementationSpecific', backend: backend() }, { pathType: 'Regex', backend: backend() }] } },
          { host: 'f*.com' },
        ],
        tls: [{ hosts: ['*.ok.com', 'Bad'], secretName: 'Bad_Secret' }],
        ingressClassName: 'Bad',
      },
      [
        ['FieldValueInvalid', 'spec.rules[0].host', 'Invalid value: "1.2.3.4": must be a DNS name, not an IP address'],
        ['FieldValueRequired', 'spec.rules[0].http.paths', 'Required value'],
        ['FieldValueRequired', 'spec.rules[1].http.paths[0].pathType', 'Required value: pathType must be specified'],
        ['FieldValueInvalid', 'spec.rules[1].http.paths[1].path', 'Invalid value: "a//b/..": must be an absolute path'],
        ['FieldValueInvalid', 'spec.rules[1].http.paths[1].path', `Invalid value: "a//b/..": must not contain '//'`],
        ['FieldValueInvalid', 'spec.rules[1].http.paths[1].path', `Invalid value: "a//b/..": cannot end with '/..'`],
        ['FieldValueInvalid', 'spec.rules[1].http.paths[2].path', 'Invalid value: "x": must be an absolute path'],
        ['FieldValueNotSupported', 'spec.rules[1].http.paths[3].pathType', 'Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"'],
        ['FieldValueInvalid', 'spec.rules[2].host', `Invalid value: "f*.com": a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
        ['FieldValueInvalid', 'spec.tls[0].hosts[1]', `Invalid value: "Bad": ${SUBDOMAIN}`],
        ['FieldValueInvalid', 'spec.tls[0].secretName', `Invalid value: "Bad_Secret": ${SUBDOMAIN}`],
        ['FieldValueInvalid', 'spec.ingressClassName', `Invalid value: "Bad": ${SUBDOMAIN}`],
      ],
    ],
    [
      { ingressClassName: 'a', defaultBackend: backend() },
      [['FieldValueInvalid', 'annotations.kubernetes.io/ingress.class', 'Invalid value: "b": can not be set when the class field is also set']],
      { annotations: { 'kubernetes.io/ingress.class': 'b' } },
    ],
  ];
  for (const [spec, causes, meta] of cases) {
    const r = await post(ing('bad', spec, meta));
    same(body(r, S.names), invalidStatus('Ingress', 'bad', causes, 'extensions'), JSON.stringify(spec), r);
  }
});

test('update: status kept, generation counts spec changes; /status keeps the spec and checks addresses', async () => {
  const c = await post(ing('upd', { defaultBackend: backend() }));
  assert.is(c.status, 201, show(c));
  const merge = (path: string, b: unknown) => S.t.client.request('PATCH', path, { body: b, contentType: 'application/merge-patch+json' });
  const s1 = await merge(`${S.C}/upd`, { metadata: { labels: { a: 'b' } }, status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } });
  assert.is(s1.status, 200, show(s1));
  same(body(s1, S.names), stored('upd', { defaultBackend: backend() }, { loadBalancer: {} }, { labels: { a: 'b' } }), 'status ignored', s1);
  const s2 = await merge(`${S.C}/upd`, { spec: { rules: RULES } });
  assert.is((s2.json as any).metadata.generation, 2, show(s2));
  const st = await merge(`${S.C}/upd/status`, { spec: { rules: null }, status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.1' }] } } });
  assert.is(st.status, 200, show(st));
  same(
    body(st, S.names),
    stored('upd', { defaultBackend: backend(), rules: RULES }, { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }, { ip: '10.0.0.1' }] } }, { generation: 2, labels: { a: 'b' } }),
    'status written, spec kept',
    st,
  );
  const tb = await table(S.t, `${S.C}/upd`);
  assert.equal(tb.rows, [['upd', '<none>', 'foo.example.com', '10.0.0.1,10.0.0.2,lb.example.com', '80']]);
  const bad = await merge(`${S.C}/upd/status`, { status: { loadBalancer: { ingress: [{ ip: 'nope', hostname: '1.2.3.4' }] } } });
  same(
    body(bad, S.names),
    invalidStatus('Ingress', 'upd', [
      ['FieldValueInvalid', 'status.loadBalancer.ingress[0].ip', 'Invalid value: "nope": must be a valid IP address'],
      ['FieldValueInvalid', 'status.loadBalancer.ingress[0].hostname', 'Invalid value: "1.2.3.4": must be a DNS name, not an IP address'],
    ], 'extensions'),
    'bad status',
    bad,
  );
});

test('list, watch, delete (a Status); Table as printIngress; Protobuf', async () => {
  const many = [1, 2, 3, 4].map((i) => ({ host: `h${i}.example.com`, http: { paths: [{ path: '/', pathType: 'Exact', backend: backend() }] } }));
  const c = await post(ing('tbl', { ingressClassName: 'nginx', rules: many, tls: [{}] }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.is((l.json as any).kind, 'IngressList', show(l));
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dtbl`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Class', 'string', '', 0],
    ['Hosts', 'string', '', 0],
    ['Address', 'string', '', 0],
    ['Ports', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.equal(tb.descriptions.slice(1, 5), [
    'The name of the IngressClass resource that should be used for additional configuration',
    'Hosts that incoming requests are matched against before the ingress rule',
    'Address is a list containing ingress points for the load-balancer',
    'Ports of TLS configurations that open',
  ]);
  assert.equal(tb.rows, [['tbl', 'nginx', 'h1.example.com,h2.example.com,h3.example.com + 1 more...', '', '80, 443']]);
  await protobufRoundTrip(S.t, `${S.C}/tbl`);
  await protobufRoundTrip(S.t, `${S.C}/upd`);
  const d = await S.t.client.request('DELETE', `${S.C}/tbl`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=tbl'), [['DELETED', 'tbl']]);
});

/**
 * kube's plugin reads IngressClasses from an informer, which sees a new class a moment later: create
 * the Ingress (deleting it again) until `done` or five seconds.
 */
async function createUntil(name: string, done: (r: HttpResult) => boolean): Promise<HttpResult> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await post(ing(name, { defaultBackend: backend() }));
    if (done(r) || Date.now() > deadline) return r;
    if (r.status === 201) await S.t.client.request('DELETE', `${S.C}/${name}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

test('DefaultIngressClass: a create without a class takes the default one; two defaults refuse it', async () => {
  const run = S.ns.split('-').pop()!;
  const IC = `/apis/${GROUP}/v1/ingressclasses`;
  const cls = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'IngressClass', metadata: { name, annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } }, spec: { controller: 'example.com/ingress' } });
  const [a, b] = [`wtst-def-a-${run}`, `wtst-def-b-${run}`];
  try {
    assert.is((await S.t.client.request('POST', IC, { body: cls(a) })).status, 201);
    const one = await createUntil('dflt', (r) => r.status === 201 && (r.json as any).spec.ingressClassName !== undefined);
    assert.is(one.status, 201, show(one));
    assert.is((one.json as any).spec.ingressClassName, a);
    const annotated = await post(ing('annotated', { defaultBackend: backend() }, { annotations: { 'kubernetes.io/ingress.class': 'x' } }));
    assert.is((annotated.json as any).spec.ingressClassName, undefined, show(annotated));
    assert.is((await S.t.client.request('POST', IC, { body: cls(b) })).status, 201);
    const two = await createUntil('two', (r) => r.status !== 201);
    assert.is(two.status, 403, show(two));
    assert.is((two.json as any).message, 'ingresses.networking.k8s.io "two" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed');
    const named = await post(ing('named', { ingressClassName: 'mine', defaultBackend: backend() }));
    assert.is(named.status, 201, show(named));
  } finally {
    for (const n of [a, b]) await S.t.client.request('DELETE', `${IC}/${n}`);
  }
});

test.run();
