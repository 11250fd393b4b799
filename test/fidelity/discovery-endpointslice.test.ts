/**
 * EndpointSlice (discovery.k8s.io/v1, and v1beta1 over the same objects) as kube-apiserver 1.24
 * serves it: port defaults, generation, validation Status bodies, the immutable addressType,
 * unconditional updates, v1's dropped deprecatedTopology, v1beta1's deprecation Warning and its
 * `topology` ⇄ `nodeName`/`zone`/`deprecatedTopology` conversion, list/watch/delete, the Table
 * (printEndpointSlice) and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/discovery-endpointslice.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/discovery-endpointslice.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { startTestServer } from '../harness.ts';
import { body, checkAccess, namespacedSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents, type Cause } from './storage-helpers.ts';

const GROUP = 'discovery.k8s.io';
const WARNING = '299 - "discovery.k8s.io/v1beta1 EndpointSlice is deprecated in v1.21+, unavailable in v1.25+; use discovery.k8s.io/v1 EndpointSlice"';
const HOST = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

const S = namespacedSuite(test, 'epslice', 'endpointslices', `${GROUP}/v1`);
const beta = () => S.C.replace('/v1/', '/v1beta1/');

const es = (name: string, fields: Record<string, unknown>, version = 'v1', meta: Record<string, unknown> = {}) => ({ apiVersion: `${GROUP}/${version}`, kind: 'EndpointSlice', metadata: { name, ...meta }, ...fields });
const stored = (name: string, fields: Record<string, unknown>, meta: Record<string, unknown> = {}, version = 'v1') => ({
  kind: 'EndpointSlice',
  apiVersion: `${GROUP}/${version}`,
  metadata: { name, namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>', ...meta },
  ...fields,
});

test('create: port name and protocol defaulted, generation 1, v1 drops deprecatedTopology', async () => {
  const r = await S.post(
    es('a', {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true }, nodeName: 'node-1', zone: 'z1', deprecatedTopology: { [HOST]: 'node-1', rack: 'r1' }, hints: { forZones: [{ name: 'z1' }] } }],
      ports: [{ port: 80 }, { name: 'https', port: 443, protocol: 'UDP', appProtocol: 'example.com/h2' }],
    }),
  );
  assert.is(r.status, 201, show(r));
  same(
    body(r, S.names),
    stored('a', {
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.1.2.3'], conditions: { ready: true }, nodeName: 'node-1', zone: 'z1', hints: { forZones: [{ name: 'z1' }] } }],
      ports: [{ name: '', protocol: 'TCP', port: 80 }, { name: 'https', protocol: 'UDP', port: 443, appProtocol: 'example.com/h2' }],
    }),
    'created',
    r,
  );
  const none = await S.post(es('empty', { addressType: 'FQDN' }));
  same(body(none, S.names), stored('empty', { addressType: 'FQDN', endpoints: null, ports: null }), 'no endpoints', none);
});

test('create: rejections with kube messages', async () => {
  const cases: [Record<string, unknown>, Cause[]][] = [
    [{}, [['FieldValueRequired', 'addressType', 'Required value']]],
    [{ addressType: 'IPv5' }, [['FieldValueNotSupported', 'addressType', 'Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"']]],
    [
      { addressType: 'IPv4', endpoints: [{ addresses: [] }, { addresses: ['127.0.0.1', '::5', 'nope'], nodeName: 'Bad_Node', hostname: 'a.b', hints: { forZones: [{ name: 'z' }, { name: 'z' }] } }] },
      [
        ['FieldValueRequired', 'endpoints[0].addresses', 'Required value: must contain at least 1 address'],
        ['FieldValueInvalid', 'endpoints[1].addresses[0]', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
        ['FieldValueInvalid', 'endpoints[1].addresses[1]', 'Invalid value: "::5": must be a valid IPv4 address'],
        ['FieldValueInvalid', 'endpoints[1].addresses[2]', 'Invalid value: "nope": must be a valid IPv4 address'],
        ['FieldValueInvalid', 'endpoints[1].addresses[2]', 'Invalid value: "nope": must be a valid IP address'],
        ['FieldValueInvalid', 'endpoints[1].nodeName', `Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
        ['FieldValueInvalid', 'endpoints[1].hostname', `Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
        ['FieldValueDuplicate', 'endpoints[1].hints.forZones[1].name', 'Duplicate value: "z"'],
      ],
    ],
    [
      { addressType: 'FQDN', endpoints: [{ addresses: ['example.com.', 'nodots', 'Upper.example.com'] }] },
      [
        ['FieldValueInvalid', 'endpoints[0].addresses[1]', 'Invalid value: "nodots": should be a domain with at least two segments separated by dots'],
        ['FieldValueInvalid', 'endpoints[0].addresses[2]', `Invalid value: "Upper.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
      ],
    ],
    [
      { addressType: 'IPv6', ports: [{ name: 'p', port: 1 }, { name: 'p', port: 2, protocol: 'ICMP' }, { name: 'Bad', appProtocol: 'a b' }] },
      [
        ['FieldValueDuplicate', 'ports[1].name', 'Duplicate value: "p"'],
        ['FieldValueNotSupported', 'ports[1].protocol', 'Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'],
        ['FieldValueInvalid', 'ports[2].name', `Invalid value: "Bad": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`],
        ['FieldValueInvalid', 'ports[2].appProtocol', `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`],
      ],
    ],
  ];
  for (const [fields, causes] of cases) {
    const r = await S.post(es('bad', fields));
    same(body(r, S.names), invalidStatus('EndpointSlice', 'bad', causes, GROUP), JSON.stringify(fields), r);
  }
});

test('update: addressType immutable; no resourceVersion needed; generation follows content and labels', async () => {
  const c = await S.post(es('upd', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }] }));
  assert.is(c.status, 201, show(c));
  const cur = c.json as any;
  const imm = await S.t.client.request('PUT', `${S.C}/upd`, { body: { ...cur, addressType: 'IPv6' } });
  same(body(imm, S.names), invalidStatus('EndpointSlice', 'upd', [['FieldValueInvalid', 'endpoints[0].addresses[0]', 'Invalid value: "10.0.0.1": must be a valid IPv6 address'], ['FieldValueInvalid', 'addressType', 'Invalid value: "IPv6": field is immutable']], GROUP), 'immutable', imm);
  const { resourceVersion: _rv, ...meta } = cur.metadata;
  const ann = await S.t.client.request('PUT', `${S.C}/upd`, { body: { ...cur, metadata: { ...meta, annotations: { a: 'b' } } } });
  assert.is(ann.status, 200, show(ann));
  assert.is((ann.json as any).metadata.generation, 1, 'annotations only');
  const lab = await S.t.client.request('PUT', `${S.C}/upd`, { body: { ...(ann.json as any), metadata: { ...(ann.json as any).metadata, labels: { a: 'b' } } } });
  assert.is((lab.json as any).metadata.generation, 2, 'labels');
  const p = await S.t.client.request('PATCH', `${S.C}/upd`, { raw: JSON.stringify({ ports: [{ port: 53, protocol: 'UDP' }] }), contentType: 'application/merge-patch+json' });
  assert.is(p.status, 200, show(p));
  assert.is((p.json as any).metadata.generation, 3, 'ports');
  assert.equal((p.json as any).ports, [{ name: '', protocol: 'UDP', port: 53 }]);
});

test('v1beta1: topology becomes nodeName, zone and deprecatedTopology; back again; the Warning', async () => {
  const topology = { [HOST]: 'node-1', [ZONE]: 'z1', rack: 'r1' };
  const c = await S.t.client.request('POST', beta(), { body: es('beta', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.2'], nodeName: 'node-1', topology }, { addresses: ['10.0.0.3'], topology: { [HOST]: 'node-2' } }, { addresses: ['10.0.0.4'], nodeName: 'node-4' }] }, 'v1beta1') });
  assert.is(c.status, 201, show(c));
  assert.is(c.headers.warning, WARNING, show(c));
  const betaEndpoints = [
    { addresses: ['10.0.0.2'], conditions: {}, topology: { [HOST]: 'node-1', [ZONE]: 'z1', rack: 'r1' }, nodeName: 'node-1' },
    { addresses: ['10.0.0.3'], conditions: {}, topology: { [HOST]: 'node-2' } },
    { addresses: ['10.0.0.4'], conditions: {}, topology: { [HOST]: 'node-4' }, nodeName: 'node-4' },
  ];
  same(body(c, S.names), stored('beta', { addressType: 'IPv4', endpoints: betaEndpoints, ports: null }, {}, 'v1beta1'), 'v1beta1 answer', c);
  const g = await S.t.client.request('GET', `${S.C}/beta`);
  assert.is(g.headers.warning, undefined);
  const v1Endpoints = [
    { addresses: ['10.0.0.2'], conditions: {}, deprecatedTopology: { rack: 'r1' }, nodeName: 'node-1', zone: 'z1' },
    { addresses: ['10.0.0.3'], conditions: {}, deprecatedTopology: { [HOST]: 'node-2' } },
    { addresses: ['10.0.0.4'], conditions: {}, nodeName: 'node-4' },
  ];
  same(body(g, S.names), stored('beta', { addressType: 'IPv4', endpoints: v1Endpoints, ports: null }), 'read as v1', g);
  // A v1 write that leaves the endpoints alone keeps deprecatedTopology.
  const same1 = await S.t.client.request('PUT', `${S.C}/beta`, { body: { ...(g.json as any), metadata: { ...(g.json as any).metadata, annotations: { x: 'y' } } } });
  assert.equal((same1.json as any).endpoints, v1Endpoints, show(same1));
  // One that changes them drops it; the old hostname entry becomes nodeName.
  const changed = structuredClone(v1Endpoints) as any[];
  changed.push({ addresses: ['10.0.0.5'] });
  const u = await S.t.client.request('PUT', `${S.C}/beta`, { body: { ...(same1.json as any), endpoints: changed } });
  assert.is(u.status, 200, show(u));
  assert.equal(
    (u.json as any).endpoints,
    [
      { addresses: ['10.0.0.2'], conditions: {}, nodeName: 'node-1', zone: 'z1' },
      { addresses: ['10.0.0.3'], conditions: {}, nodeName: 'node-2' },
      { addresses: ['10.0.0.4'], conditions: {}, nodeName: 'node-4' },
      { addresses: ['10.0.0.5'], conditions: {} },
    ],
    show(u),
  );
  const bad = await S.t.client.request('POST', beta(), { body: es('beta-bad', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.2'], topology: { 'a/b/c': 'x' } }] }, 'v1beta1') });
  same(
    body(bad, S.names),
    invalidStatus('EndpointSlice', 'beta-bad', [['FieldValueInvalid', 'endpoints[0].deprecatedTopology', `Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`]], GROUP),
    'v1beta1 invalid',
    bad,
  );
});

test('server-side apply through v1beta1: topology kept as applied, managedFields in v1beta1 terms', async () => {
  const patch = { apiVersion: `${GROUP}/v1beta1`, kind: 'EndpointSlice', metadata: { name: 'ssa' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.9'], topology: { [ZONE]: 'z9', rack: 'r9' } }] };
  const a = await S.t.client.request('PATCH', `${beta()}/ssa?fieldManager=tool`, { raw: JSON.stringify(patch), contentType: 'application/apply-patch+yaml' });
  assert.is(a.status, 201, show(a));
  assert.equal((a.json as any).endpoints, [{ addresses: ['10.0.0.9'], conditions: {}, topology: { [ZONE]: 'z9', rack: 'r9' } }], show(a));
  const mf = (a.json as any).metadata.managedFields.map((m: any) => [m.manager, m.operation, m.apiVersion, m.fieldsV1]);
  assert.equal(mf, [['tool', 'Apply', `${GROUP}/v1beta1`, { 'f:addressType': {}, 'f:endpoints': {} }]], show(a));
  const g = await S.t.client.request('GET', `${S.C}/ssa`);
  assert.equal((g.json as any).endpoints, [{ addresses: ['10.0.0.9'], conditions: {}, zone: 'z9', deprecatedTopology: { rack: 'r9' } }], show(g));
  assert.equal((g.json as any).metadata.managedFields.map((m: any) => m.apiVersion), [`${GROUP}/v1beta1`]);
});

test('the deprecated-API metric counts v1beta1 requests; this server: --runtime-config=discovery.k8s.io/v1beta1=false removes the version', async () => {
  const m = await S.t.client.request('GET', '/metrics');
  assert.match(m.text, /^apiserver_requested_deprecated_apis\{group="discovery\.k8s\.io",removed_release="1\.25",resource="endpointslices",subresource="",version="v1beta1"\} [1-9]/m);
  if (S.t.reference) return; // the shared reference runs with its own flags
  const s = await startTestServer({ runtimeConfig: 'discovery.k8s.io/v1beta1=false' });
  try {
    assert.is((await s.client.request('GET', '/apis/discovery.k8s.io/v1beta1/endpointslices')).status, 404);
    assert.is((await s.client.request('GET', '/apis/discovery.k8s.io/v1/endpointslices')).status, 200);
  } finally {
    await s.close();
  }
});

test('list, watch, delete (a Status); Table as printEndpointSlice; Protobuf', async () => {
  const c = await S.post(es('w', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4'] }], ports: [{ port: 80 }, { name: 'x' }, { name: 'y' }, { name: 'z', port: 9 }] }));
  assert.is(c.status, 201, show(c));
  const rv = (c.json as any).metadata.resourceVersion;
  const l = await S.t.client.request('GET', `${S.C}?fieldSelector=metadata.name%3Dw`);
  assert.is((l.json as any).kind, 'EndpointSliceList', show(l));
  const unknown = await S.t.client.request('GET', `${S.C}?fieldSelector=addressType%3DIPv4`);
  assert.is(unknown.status, 400, show(unknown));
  assert.is((unknown.json as any).message, '"addressType" is not a known field selector: only "metadata.name", "metadata.namespace"');
  const tb = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dw`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['AddressType', 'string', '', 0],
    ['Ports', 'string', '', 0],
    ['Endpoints', 'string', '', 0],
    ['Age', 'string', '', 0],
  ]);
  assert.ok(tb.descriptions[1]!.startsWith('addressType specifies'), tb.descriptions[1]);
  assert.equal(tb.rows, [['w', 'IPv4', '80,x,y + 1 more...', '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...']]);
  const te = await table(S.t, `${S.C}?fieldSelector=metadata.name%3Dempty`);
  assert.equal(te.rows, [['empty', 'FQDN', '<unset>', '<unset>']]);
  const tbeta = await table(S.t, `${beta()}?fieldSelector=metadata.name%3Dbeta`);
  assert.equal(tbeta.rows, [['beta', 'IPv4', '<unset>', '10.0.0.2,10.0.0.3,10.0.0.4 + 1 more...']]);
  await protobufRoundTrip(S.t, `${S.C}/a`);
  await protobufRoundTrip(S.t, `${S.C}/beta`);
  await protobufRoundTrip(S.t, `${beta()}/beta`);
  const d = await S.t.client.request('DELETE', `${S.C}/w`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'Status', show(d));
  assert.equal(await watchEvents(S.t, S.C, rv, 'metadata.name=w'), [['DELETED', 'w']]);
});

test('RBAC bootstrap: kube-proxy reads EndpointSlices, the endpointslice controllers write them (SubjectAccessReview)', async () => {
  await checkAccess(S.t, GROUP, [
    ['system:kube-proxy', [], 'list', 'endpointslices', '', '', true],
    ['system:kube-proxy', [], 'watch', 'endpointslices', 'default', '', true],
    ['system:kube-proxy', [], 'create', 'endpointslices', 'default', '', false],
    ['system:serviceaccount:kube-system:endpointslice-controller', [], 'create', 'endpointslices', 'default', '', true],
    ['system:serviceaccount:kube-system:endpointslicemirroring-controller', [], 'delete', 'endpointslices', 'default', '', true],
    ['nobody', ['system:authenticated'], 'list', 'endpointslices', 'default', '', false],
  ]);
});

test.run();
