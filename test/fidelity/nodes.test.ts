/**
 * Node (core/v1) as kube-apiserver 1.24 serves it without a kubelet: SetObjectDefaults_Node
 * (allocatable from capacity), the v1 podCIDR ⇄ podCIDRs conversion, the Go zero structs
 * (daemonEndpoints, nodeInfo), TaintNodesByCondition's not-ready taint, the DynamicKubeletConfig
 * fields dropped, validation Status bodies (taints under `metadata.taints`, quantities, pod CIDRs,
 * immutable podCIDRs/providerID), main-resource writes keeping status and /status keeping spec,
 * printNode's Table (Status, Roles, Version; wide columns), the spec.unschedulable field selector,
 * Protobuf, watch, delete answering a Status, and nodes/proxy answered as kube does when no
 * kubelet listens (404, 500 without an address, 400 for loopback or a malformed id, 503 with Go's
 * dial error).
 *
 *   node --import tsx test/run.ts test/fidelity/nodes.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/nodes.test.ts
 */
import { test } from 'uvu';
import { closedPort, hostIP } from '../net-helpers.ts';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, watchEvents } from './storage-helpers.ts';

const C = '/api/v1/nodes';
const S = clusterSuite(test, C, ['d', 'bad', 'u', 't1', 't2', 't3', 'w', 'p0', 'p1', 'p2']);

const node = (name: string, fields: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...fields });
const NOT_READY = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };
const NODE_INFO = { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' };
const stored = (name: string, spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
  kind: 'Node',
  apiVersion: 'v1',
  metadata: { name, uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
  spec,
  status: { ...status, daemonEndpoints: { kubeletEndpoint: { Port: 0 } }, nodeInfo: NODE_INFO },
});

test('create: allocatable from capacity, podCIDRs from podCIDR, the not-ready taint, configSource dropped without a Warning', async () => {
  const r = await S.post(node(S.n('d'), { spec: { podCIDR: '10.4.0.0/16', configSource: { configMap: { name: 'c', namespace: 'kube-system', kubeletConfigKey: 'k' } } }, status: { capacity: { cpu: '1500m' }, config: { active: { configMap: { name: 'c' } } } } }));
  assert.is(r.status, 201, show(r));
  assert.is(r.headers.warning, undefined, show(r));
  same(body(r, S.names), stored('wtst-d', { podCIDR: '10.4.0.0/16', podCIDRs: ['10.4.0.0/16'], taints: [NOT_READY] }, { capacity: { cpu: '1500m' }, allocatable: { cpu: '1500m' } }), 'defaults', r);
});

test('TaintNodesByCondition: a not-ready NoExecute taint gets the NoSchedule one beside it; an existing NoSchedule one is kept once', async () => {
  const a = await S.post(node(S.n('t1'), { spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] } }));
  assert.is(a.status, 201, show(a));
  assert.equal(a.json.spec.taints, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }, NOT_READY]);
  const b = await S.post(node(S.n('t2'), { spec: { taints: [{ key: 'x', value: 'y', effect: 'NoSchedule' }, { ...NOT_READY, value: 'v' }] } }));
  assert.is(b.status, 201, show(b));
  assert.equal(b.json.spec.taints, [{ key: 'x', value: 'y', effect: 'NoSchedule' }, { ...NOT_READY, value: 'v' }]);
  // An update may remove it (the node lifecycle controller does once the node is Ready).
  const u = await S.t.client.request('PATCH', `${C}/${S.n('t2')}`, { body: { spec: { taints: null } }, contentType: 'application/merge-patch+json' });
  assert.is(u.status, 200, show(u));
  assert.is(u.json.spec.taints, undefined);
});

test('create: validation messages (taints under metadata.taints, quantities, pod CIDRs)', async () => {
  const name = S.n('bad');
  const r = await S.post(
    node(name, {
      spec: {
        podCIDRs: ['x', '10.0.0.0/8', '10.1.0.0/16'],
        taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule', value: 'v' }, { key: 'b/c/d', effect: 'Bad' }, { key: 'k', value: '-x-', effect: '' }],
      },
      status: { capacity: { pods: '1.5' } },
    }),
  );
  const cidrs = '[]string{"x", "10.0.0.0/8", "10.1.0.0/16"}';
  const pods15 = 'resource.Quantity{i:resource.int64Amount{value:15, scale:-1}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}';
  same(
    body(r, S.names),
    invalidStatus(
      'Node',
      'wtst-bad',
      [
        ['FieldValueDuplicate', 'metadata.taints[1]', 'Duplicate value: core.Taint{Key:"a", Value:"v", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair'],
        [
          'FieldValueInvalid',
          'metadata.taints[2].key',
          `Invalid value: "b/c/d": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
        ],
        ['FieldValueNotSupported', 'metadata.taints[2].effect', 'Unsupported value: "Bad": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
        [
          'FieldValueInvalid',
          'metadata.taints[3].value',
          `Invalid value: "-x-": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        ],
        ['FieldValueRequired', 'metadata.taints[3].effect', 'Required value'],
        ['FieldValueInvalid', 'status.capacity.pods', `Invalid value: ${pods15}: must be an integer`],
        ['FieldValueInvalid', 'status.allocatable.pods', `Invalid value: ${pods15}: must be an integer`],
        ['FieldValueInvalid', 'spec.podCIDRs[0]', `Invalid value: ${cidrs}: must be valid CIDR`],
        ['InternalError', 'spec.podCIDRs', 'Internal error: invalid PodCIDRs. failed to check with dual stack with error:failed to parse cidr value:"x" with error:invalid CIDR address: x'],
        ['FieldValueInvalid', 'spec.podCIDRs', `Invalid value: ${cidrs}: may specify no more than one CIDR for each IP family`],
      ],
      '',
    ),
    'invalid',
    r,
  );
  const d = await S.post(node(name, { spec: { podCIDR: '10.0.0.0/8', podCIDRs: ['10.0.0.0/8', '10.0.0.0/8'] }, status: { capacity: { cpu: '-1' } } }));
  same(
    body(d, S.names),
    invalidStatus(
      'Node',
      'wtst-bad',
      [
        ['FieldValueInvalid', 'status.capacity.cpu', 'Invalid value: "-1": must be greater than or equal to 0'],
        ['FieldValueInvalid', 'status.allocatable.cpu', 'Invalid value: "-1": must be greater than or equal to 0'],
        ['FieldValueInvalid', 'spec.podCIDRs', 'Invalid value: []string{"10.0.0.0/8", "10.0.0.0/8"}: may specify no more than one CIDR for each IP family'],
        ['FieldValueDuplicate', 'spec.podCIDRs[1]', 'Duplicate value: "10.0.0.0/8"'],
      ],
      '',
    ),
    'duplicate CIDRs',
    d,
  );
  // One CIDR per family is fine; podCIDR (the v1 field) wins over a different podCIDRs[0].
  const ok = await S.post(node(name, { spec: { podCIDR: '10.9.0.0/16', podCIDRs: ['10.1.0.0/16', 'fd00::/64'] } }));
  assert.is(ok.status, 201, show(ok));
  assert.equal([ok.json.spec.podCIDR, ok.json.spec.podCIDRs], ['10.9.0.0/16', ['10.9.0.0/16']]);
});

test('update: podCIDRs and providerID immutable once set, status kept by the main resource; /status keeps spec; duplicate addresses', async () => {
  const name = S.n('u');
  const c = await S.post(node(name, { spec: { providerID: 'p1', podCIDRs: ['10.2.0.0/16'] } }));
  assert.is(c.status, 201, show(c));
  const cur = c.json;
  const r = await S.t.client.request('PUT', `${C}/${name}`, { body: { ...cur, spec: { ...cur.spec, providerID: 'p2', podCIDR: '10.3.0.0/16', podCIDRs: ['10.3.0.0/16'] } } });
  same(
    body(r, S.names),
    invalidStatus(
      'Node',
      'wtst-u',
      [
        ['FieldValueForbidden', 'spec.podCIDRs', 'Forbidden: node updates may not change podCIDR except from "" to valid'],
        ['FieldValueForbidden', 'spec.providerID', 'Forbidden: node updates may not change providerID except from "" to valid'],
      ],
      '',
    ),
    'immutable',
    r,
  );
  const p = await S.t.client.request('PATCH', `${C}/${name}`, { body: { spec: { unschedulable: true }, status: { capacity: { cpu: '2' } } }, contentType: 'application/merge-patch+json' });
  assert.is(p.status, 200, show(p));
  assert.is(p.json.spec.unschedulable, true);
  assert.is(p.json.status.capacity, undefined, 'a main-resource write keeps the stored status');
  const s = await S.t.client.request('PATCH', `${C}/${name}/status`, {
    body: { spec: { unschedulable: false }, status: { capacity: { cpu: '2' }, conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.24.17', osImage: 'Linux' }, addresses: [{ type: 'InternalIP', address: '10.1.1.1' }, { type: 'ExternalIP', address: '1.2.3.4' }] } },
    contentType: 'application/merge-patch+json',
  });
  assert.is(s.status, 200, show(s));
  assert.is(s.json.spec.unschedulable, true, '/status keeps the stored spec');
  assert.equal(s.json.status.capacity, { cpu: '2' });
  const dup = await S.t.client.request('PATCH', `${C}/${name}/status`, { body: { status: { addresses: [{ type: 'Hostname', address: 'h' }, { type: 'Hostname', address: 'h' }] } }, contentType: 'application/merge-patch+json' });
  same(body(dup, S.names), invalidStatus('Node', 'wtst-u', [['FieldValueDuplicate', 'status.addresses[1]', 'Duplicate value: core.NodeAddress{Type:"Hostname", Address:"h"}']], ''), 'duplicate address', dup);
});

test('Table (printNode, -o wide), the spec.unschedulable field selector, Protobuf, watch, delete answers a Status', async () => {
  const name = S.n('w');
  const c = await S.post(node(name, { metadata: { name, labels: { 'node-role.kubernetes.io/control-plane': '', 'node-role.kubernetes.io/master': '', 'kubernetes.io/role': 'worker' } }, spec: { unschedulable: true } }));
  assert.is(c.status, 201, show(c));
  const rv = c.json.metadata.resourceVersion;
  const tb = await table(S.t, `${C}?fieldSelector=metadata.name%3D${name}`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Status', 'string', '', 0],
    ['Roles', 'string', '', 0],
    ['Age', 'string', '', 0],
    ['Version', 'string', '', 0],
    ['Internal-IP', 'string', '', 1],
    ['External-IP', 'string', '', 1],
    ['OS-Image', 'string', '', 1],
    ['Kernel-Version', 'string', '', 1],
    ['Container-Runtime', 'string', '', 1],
  ]);
  assert.equal(tb.descriptions.slice(1, 3), ['The status of the node', 'The roles of the node']);
  assert.equal(tb.descriptions.slice(4).map((d) => d.slice(0, 30)), ['Kubelet Version reported by th', 'List of addresses reachable to', 'List of addresses reachable to', 'OS Image reported by the node ', 'Kernel Version reported by the', 'ContainerRuntime Version repor']);
  assert.equal(tb.rows, [[name, 'Unknown,SchedulingDisabled', 'control-plane,master,worker', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']]);
  // The node of the update test: Ready, addresses and versions from /status.
  assert.equal((await table(S.t, `${C}/${S.n('u')}`)).rows, [[S.n('u'), 'Ready,SchedulingDisabled', '<none>', 'v1.24.17', '10.1.1.1', '1.2.3.4', 'Linux', '<unknown>', '<unknown>']]);
  const sel = await S.t.client.request('GET', `${C}?fieldSelector=spec.unschedulable%3Dtrue`);
  assert.is(sel.status, 200, show(sel));
  const names = sel.json.items.map((i: any) => i.metadata.name);
  assert.ok(names.includes(name) && names.includes(S.n('u')) && !names.includes(S.n('d')), JSON.stringify(names));
  const bad = await S.t.client.request('GET', `${C}?fieldSelector=spec.taints%3Dx`);
  assert.is(bad.status, 400, show(bad));
  assert.is(bad.json.message, 'field label not supported: spec.taints');
  await protobufRoundTrip(S.t, `${C}/${name}`);
  await protobufRoundTrip(S.t, `${C}/${S.n('u')}`);
  const d = await S.t.client.request('DELETE', `${C}/${name}`);
  assert.is(d.status, 200, show(d));
  same(body(d, S.names), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'wtst-w', kind: 'nodes', uid: '<uid>' } }, 'delete', d);
  assert.equal(await watchEvents(S.t, C, rv, `metadata.name=${name}`), [['DELETED', name]]);
});

const statusOf = (code: number, message: string, reason?: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, ...(reason ? { reason } : {}), code });

test('nodes/proxy without a kubelet: kube\'s 404, 500, 400 and 503', async () => {
  const get = (path: string, method = 'GET') => S.t.client.request(method, `${C}/${path}`);
  const missing = await get('wtst-nope/proxy/x');
  same(body(missing, S.names), { ...statusOf(404, 'nodes "wtst-nope" not found', 'NotFound'), details: { name: 'wtst-nope', kind: 'nodes' } }, 'missing', missing);
  assert.is((await S.post(node(S.n('p0')))).status, 201);
  for (const [path, method] of [[`${S.n('p0')}/proxy`, 'GET'], [`${S.n('p0')}/proxy/a/b?x=1`, 'POST'], [`${S.n('p0')}/proxy/x`, 'DELETE']] as const) {
    const r = await get(path, method);
    same(body(r, S.names), statusOf(500, 'no preferred addresses found; known addresses: []'), path, r);
  }
  assert.is((await S.post(node(S.n('p1'), { status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }] } }))).status, 201);
  const loop = await get(`${S.n('p1')}/proxy/x`);
  same(body(loop, S.names), statusOf(400, 'address not allowed', 'BadRequest'), 'loopback', loop);
  const malformed = await get('a:b:c:d/proxy/x');
  same(body(malformed, S.names), statusOf(400, 'invalid node request "a:b:c:d"', 'BadRequest'), 'malformed id', malformed);
  const ip = hostIP();
  if (ip) {
    const port = await closedPort();
    assert.is((await S.post(node(S.n('p2'), { status: { addresses: [{ type: 'InternalIP', address: ip }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } }))).status, 201);
    for (const id of [S.n('p2'), `${S.n('p2')}:${port}`, `https:${S.n('p2')}:${port}`]) {
      const r = await get(`${id}/proxy/metrics`);
      same(body(r, S.names), statusOf(503, `error trying to reach service: dial tcp ${ip}:${port}: connect: connection refused`, 'ServiceUnavailable'), id, r);
    }
  } else console.warn('no non-loopback IPv4 address: the 503 case is not checked');
});

test('RBAC bootstrap: the scheduler binds Pods and reads Nodes, the controller-manager updates Node status (SubjectAccessReview)', async () => {
  const allowed = async (user: string, verb: string, resource: string, subresource = ''): Promise<boolean> => {
    const r = await S.t.client.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, resourceAttributes: { verb, resource, subresource, namespace: resource === 'pods' ? 'default' : '' } } },
    });
    assert.is(r.status, 201, show(r));
    return r.json.status.allowed === true;
  };
  const cases: [string, string, string, string, boolean][] = [
    ['system:kube-scheduler', 'create', 'pods', 'binding', true],
    ['system:kube-scheduler', 'watch', 'nodes', '', true],
    ['system:kube-scheduler', 'patch', 'nodes', 'status', false],
    ['system:kube-controller-manager', 'list', 'nodes', '', true],
    ['system:anonymous', 'get', 'nodes', 'proxy', false],
  ];
  const got = [];
  for (const [user, verb, resource, sub] of cases) got.push([user, verb, resource, sub, await allowed(user, verb, resource, sub)]);
  assert.equal(got, cases);
});

test.run();
