/**
 * Services and Endpoints as kube-apiserver 1.24 answers them: defaulting, validation Status bodies
 * (causes and field paths), ClusterIP/NodePort allocation and its errors, immutability, the status
 * subresource, Tables, discovery and the `kubernetes` Service. Runs on this server and, with
 * TEST_KUBECONFIG, on the reference (expected bodies below were taken from it).
 *
 * The reference's service range is the default 10.0.0.0/24, shared by everyone using it: the suite
 * only asks for allocated addresses by value after reading them back, and deletes what it creates.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request as undiciRequest } from 'undici';
import { startTarget, normalize, readKubeconfig, type Target } from '../target.ts';
import { decodeProtobuf, encodeProtobuf, PROTOBUF } from '../../internal/http/protobuf.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

let t: Target;
let ns: string;
let S: string;
let E: string;

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('svc');
  S = `/api/v1/namespaces/${ns}/services`;
  E = `/api/v1/namespaces/${ns}/endpoints`;
});
test.after(async () => {
  // Give allocated addresses back to the shared reference (namespaces are never emptied there).
  const l = await t.client.request('GET', S);
  for (const s of (l.json as any)?.items ?? []) await t.client.request('DELETE', `${S}/${s.metadata.name}`);
  await t.close();
});

const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
const eps = (name: string, subsets: unknown) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets });

/** The body without managedFields (computed by generic code, checked elsewhere), normalized. */
function body(r: HttpResult): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [ns]: 'NS' });
}

/** An object as the reference returns it: metadata placeholders, then the given fields. */
const stored = (kind: string, name: string, fields: Record<string, unknown>, namespace = 'NS', labels?: Record<string, string>) => ({
  kind,
  apiVersion: 'v1',
  metadata: { name, namespace, uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', ...(labels ? { labels } : {}) },
  ...fields,
});

type Cause = [reason: string, field: string, message: string];

/** kube's 422 Invalid body for these causes (NewInvalid: "[a, b]" when several). */
function invalidStatus(kind: string, name: string, causes: Cause[]) {
  const full = causes.map(([, f, m]) => `${f}: ${m}`);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind} "${name}" is invalid: ${full.length === 1 ? full[0] : `[${full.join(', ')}]`}`,
    reason: 'Invalid',
    details: { name, kind, causes: causes.map(([reason, field, message]) => ({ reason, message, field })) },
    code: 422,
  };
}

/**
 * A Status as kube writes it. Two generic Status details are normalized here because they are not
 * this suite's subject (and are fixed in the shared Status code): a cause message carries no
 * `field: ` prefix, and an empty details.group is omitted.
 */
function status(r: HttpResult): any {
  const j = body(r);
  if (j?.details?.group === '') delete j.details.group;
  for (const c of j?.details?.causes ?? []) if (c.field && c.message?.startsWith(`${c.field}: `)) c.message = c.message.slice(c.field.length + 2);
  return j;
}

/** Deep equality ignoring key order, with the whole response in the failure message. */
function same(got: unknown, want: unknown, label: string, r: HttpResult): void {
  assert.equal(got, want, `${label}; ${show(r)}`);
}

const post = (path: string, b: unknown) => t.client.request('POST', path, { body: b });

/** Every Service in the cluster (the reference is shared: other clients allocate too). */
async function allServices(): Promise<any[]> {
  return ((await t.client.request('GET', '/api/v1/services')).json as any).items;
}

/** An address of 10.0.0.0/24 no Service holds now, from the top of the range down. */
async function freeIP(): Promise<string> {
  const used = new Set((await allServices()).flatMap((x) => x.spec.clusterIPs ?? []));
  for (let i = 254; i > 1; i--) if (!used.has(`10.0.0.${i}`)) return `10.0.0.${i}`;
  throw new Error('no free address in 10.0.0.0/24');
}

/** A node port no Service holds now, from the top of the range down. */
async function freeNodePort(): Promise<number> {
  const used = new Set((await allServices()).flatMap((x) => [...(x.spec.ports ?? []).map((p: any) => p.nodePort), x.spec.healthCheckNodePort]));
  for (let p = 32767; p >= 30000; p--) if (!used.has(p)) return p;
  throw new Error('no free node port');
}

test('ClusterIP service: defaults, allocation from the range, read back', async () => {
  const r = await post(S, svc('a', { selector: { app: 'a' }, ports: [{ port: 80 }] }));
  assert.is(r.status, 201, show(r));
  const ip = (r.json as any).spec.clusterIP as string;
  assert.match(ip, /^10\.0\.0\.\d+$/, 'an address of 10.0.0.0/24');
  assert.is.not(ip, '10.0.0.0');
  assert.is.not(ip, '10.0.0.1', 'the kubernetes Service holds .1');
  const want = stored('Service', 'a', {
    spec: {
      ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
      selector: { app: 'a' },
      clusterIP: ip,
      clusterIPs: [ip],
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    },
    status: { loadBalancer: {} },
  });
  same(body(r), want, 'create', r);
  const g = await t.client.request('GET', `${S}/a`);
  same(body(g), want, 'get', g);

  // Taking the same address, an address outside the range, a malformed one.
  const taken = await post(S, svc('b', { clusterIP: ip, ports: [{ port: 80 }] }));
  same(status(taken), invalidStatus('Service', 'b', [['FieldValueInvalid', 'spec.clusterIPs', `Invalid value: []string{"${ip}"}: failed to allocate IP ${ip}: provided IP is already allocated`]]), 'taken', taken);
  const outside = await post(S, svc('b', { clusterIP: '192.168.1.1', ports: [{ port: 80 }] }));
  same(
    status(outside),
    invalidStatus('Service', 'b', [
      ['FieldValueInvalid', 'spec.clusterIPs', 'Invalid value: []string{"192.168.1.1"}: failed to allocate IP 192.168.1.1: the provided IP (192.168.1.1) is not in the valid range. The range of valid IPs is 10.0.0.0/24'],
    ]),
    'outside',
    outside,
  );
  const bad = await post(S, svc('b', { clusterIP: '10.0.0.300', ports: [{ port: 80 }] }));
  same(status(bad), invalidStatus('Service', 'b', [['FieldValueInvalid', 'spec.clusterIPs[0]', 'Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']]), 'malformed', bad);

  // The address is immutable; an update that leaves it out keeps it.
  const other = ip === '10.0.0.254' ? '10.0.0.253' : '10.0.0.254';
  const put = await t.client.request('PUT', `${S}/a`, { body: { ...(r.json as any), spec: { ...(r.json as any).spec, clusterIP: other, clusterIPs: [other] } } });
  same(status(put), invalidStatus('Service', 'a', [['FieldValueInvalid', 'spec.clusterIPs[0]', `Invalid value: []string{"${other}"}: may not change once set`]]), 'put clusterIP', put);
  const patch = await t.client.request('PATCH', `${S}/a`, { body: { spec: { clusterIP: other } }, contentType: 'application/merge-patch+json' });
  same(status(patch), invalidStatus('Service', 'a', [['FieldValueInvalid', 'spec.clusterIPs[0]', `Invalid value: []string{"${other}"}: may not change once set`]]), 'patch clusterIP', patch);
  const kept = await t.client.request('PUT', `${S}/a`, { body: svc('a', { selector: { app: 'a2' }, ports: [{ port: 81 }] }) });
  assert.is(kept.status, 200, show(kept));
  same((kept.json as any).spec.clusterIPs, [ip], 'update without clusterIP keeps it', kept);

  // Delete answers the object, releases the address and removes the Service's Endpoints.
  const ep = await post(E, eps('a', [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 8080 }] }]));
  assert.is(ep.status, 201, show(ep));
  const del = await t.client.request('DELETE', `${S}/a`);
  assert.is(del.status, 200, show(del));
  assert.is((del.json as any).kind, 'Service');
  const gone = await t.client.request('GET', `${E}/a`);
  same(status(gone), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'endpoints "a" not found', reason: 'NotFound', details: { name: 'a', kind: 'endpoints' }, code: 404 }, 'endpoints deleted with the service', gone);
  if (!t.reference) {
    // On the shared reference another client may take the address in between.
    const again = await post(S, svc('a2', { clusterIP: ip, ports: [{ port: 80 }] }));
    assert.is(again.status, 201, `released address is free again; ${show(again)}`);
  }
});

test('validation: ports, names, type, selector-independent rules', async () => {
  interface Case {
    name: string;
    obj: unknown;
    causes: Cause[];
  }
  const cases: Case[] = [
    { name: 'b', obj: svc('b', {}), causes: [['FieldValueRequired', 'spec.ports', 'Required value']] },
    {
      name: 'b',
      obj: svc('b', { ports: [{ port: 80, protocol: 'XTP' }, { port: 80, targetPort: 'Bad_Name', name: 'x' }, { port: 0, name: 'x' }] }),
      causes: [
        ['FieldValueRequired', 'spec.ports[0].name', 'Required value'],
        ['FieldValueNotSupported', 'spec.ports[0].protocol', 'Unsupported value: "XTP": supported values: "SCTP", "TCP", "UDP"'],
        ['FieldValueInvalid', 'spec.ports[1].targetPort', 'Invalid value: "Bad_Name": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'],
        ['FieldValueDuplicate', 'spec.ports[2].name', 'Duplicate value: "x"'],
        ['FieldValueInvalid', 'spec.ports[2].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
        ['FieldValueInvalid', 'spec.ports[2].targetPort', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
      ],
    },
    {
      name: '1b',
      obj: svc('1b', { ports: [{ port: 80 }] }),
      causes: [
        [
          'FieldValueInvalid',
          'metadata.name',
          `Invalid value: "1b": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
        ],
      ],
    },
    { name: 'b', obj: svc('b', { type: 'Foo', ports: [{ port: 80 }] }), causes: [['FieldValueNotSupported', 'spec.type', 'Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"']] },
    { name: 'b', obj: svc('b', { ports: [{ port: 80, nodePort: 30001 }] }), causes: [['FieldValueForbidden', 'spec.ports[0].nodePort', "Forbidden: may not be used when `type` is 'ClusterIP'"]] },
    {
      name: 'ext2',
      obj: svc('ext2', { type: 'ExternalName', externalName: 'example.com', clusterIP: '10.0.0.9' }),
      causes: [['FieldValueForbidden', 'spec.clusterIPs', 'Forbidden: may not be set for ExternalName services']],
    },
    { name: 'ext2', obj: svc('ext2', { type: 'ExternalName' }), causes: [['FieldValueRequired', 'spec.externalName', 'Required value']] },
    {
      name: 'ds',
      obj: svc('ds', { ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] }),
      causes: [['FieldValueInvalid', 'spec.ipFamilyPolicy', 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services']],
    },
    { name: 'v6', obj: svc('v6', { ipFamilies: ['IPv6'], ports: [{ port: 80 }] }), causes: [['FieldValueInvalid', 'spec.ipFamilies[0]', 'Invalid value: "IPv6": not configured on this cluster']] },
  ];
  for (const [i, c] of cases.entries()) {
    const r = await post(S, c.obj);
    same(status(r), invalidStatus('Service', c.name, c.causes), `case ${i}`, r);
  }
});

test('NodePort and LoadBalancer: node ports from 30000-32767, taken and out-of-range ports', async () => {
  const r = await post(S, svc('np', { type: 'NodePort', ports: [{ port: 80, name: 'http' }, { port: 443, name: 'https', protocol: 'TCP' }] }));
  assert.is(r.status, 201, show(r));
  const spec = (r.json as any).spec;
  const [p0, p1] = spec.ports.map((p: any) => p.nodePort as number);
  for (const p of [p0, p1]) assert.ok(p >= 30000 && p <= 32767, `node port ${p} in range`);
  assert.is.not(p0, p1);
  same(
    body(r),
    stored('Service', 'np', {
      spec: {
        ports: [
          { name: 'http', protocol: 'TCP', port: 80, targetPort: 80, nodePort: p0 },
          { name: 'https', protocol: 'TCP', port: 443, targetPort: 443, nodePort: p1 },
        ],
        clusterIP: spec.clusterIP,
        clusterIPs: [spec.clusterIP],
        type: 'NodePort',
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Cluster',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      },
      status: { loadBalancer: {} },
    }),
    'nodeport',
    r,
  );
  const taken = await post(S, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: p0 }] }));
  same(status(taken), invalidStatus('Service', 'np2', [['FieldValueInvalid', 'spec.ports[0].nodePort', `Invalid value: ${p0}: provided port is already allocated`]]), 'taken', taken);
  const outside = await post(S, svc('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 80 }] }));
  same(
    status(outside),
    invalidStatus('Service', 'np2', [['FieldValueInvalid', 'spec.ports[0].nodePort', 'Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767']]),
    'outside',
    outside,
  );

  // LoadBalancer with externalTrafficPolicy Local also gets a health check node port.
  const lb = await post(S, svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }));
  assert.is(lb.status, 201, show(lb));
  const ls = (lb.json as any).spec;
  const lbWant = (status: unknown) =>
    stored('Service', 'lb', {
      spec: {
        ports: [{ protocol: 'TCP', port: 80, targetPort: 80, nodePort: ls.ports[0].nodePort }],
        clusterIP: ls.clusterIP,
        clusterIPs: [ls.clusterIP],
        type: 'LoadBalancer',
        sessionAffinity: 'None',
        externalTrafficPolicy: 'Local',
        healthCheckNodePort: ls.healthCheckNodePort,
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        allocateLoadBalancerNodePorts: true,
        internalTrafficPolicy: 'Cluster',
      },
      status,
    });
  same(body(lb), lbWant({ loadBalancer: {} }), 'loadbalancer', lb);
  assert.ok(ls.healthCheckNodePort >= 30000 && ls.healthCheckNodePort <= 32767);

  // services/status changes only the status, whatever spec the body carries.
  const st = await t.client.request('PUT', `${S}/lb/status`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'ClusterIP' }, status: { loadBalancer: { ingress: [{ ip: '203.0.113.5' }] } } },
  });
  same(body(st), lbWant({ loadBalancer: { ingress: [{ ip: '203.0.113.5' }] } }), 'status update', st);

  // Table as kubectl get svc prints it.
  const tbl = await t.client.request('GET', `${S}/lb`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.is(tbl.status, 200, show(tbl));
  const j = tbl.json as any;
  same(j.columnDefinitions.map((c: any) => [c.name, c.type, c.priority]), [
    ['Name', 'string', 0],
    ['Type', 'string', 0],
    ['Cluster-IP', 'string', 0],
    ['External-IP', 'string', 0],
    ['Port(s)', 'string', 0],
    ['Age', 'string', 0],
    ['Selector', 'string', 1],
  ], 'service columns', tbl);
  same(j.rows[0].cells.filter((_: unknown, i: number) => i !== 5), ['lb', 'LoadBalancer', ls.clusterIP, '203.0.113.5', `80:${ls.ports[0].nodePort}/TCP`, '<none>'], 'service row', tbl);
});

test('ExternalName, headless and ClientIP affinity defaults', async () => {
  const cases: [string, Record<string, unknown>, (ip: string) => Record<string, unknown>][] = [
    ['ext', { type: 'ExternalName', externalName: 'example.com' }, () => ({ type: 'ExternalName', sessionAffinity: 'None', externalName: 'example.com' })],
    [
      'hl',
      { clusterIP: 'None', selector: { app: 'x' }, ports: [{ port: 80 }] },
      () => ({
        ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
        selector: { app: 'x' },
        clusterIP: 'None',
        clusterIPs: ['None'],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      }),
    ],
    [
      // Headless without a selector is RequireDualStack with both families, even single-stack.
      'hl2',
      { clusterIP: 'None' },
      () => ({ clusterIP: 'None', clusterIPs: ['None'], type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack', internalTrafficPolicy: 'Cluster' }),
    ],
    [
      'aff',
      { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] },
      (ip) => ({
        ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }],
        clusterIP: ip,
        clusterIPs: [ip],
        type: 'ClusterIP',
        sessionAffinity: 'ClientIP',
        sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
        internalTrafficPolicy: 'Cluster',
      }),
    ],
  ];
  for (const [name, spec, want] of cases) {
    const r = await post(S, svc(name, spec));
    assert.is(r.status, 201, `${name}: ${show(r)}`);
    same(body(r), stored('Service', name, { spec: want((r.json as any).spec.clusterIP), status: { loadBalancer: {} } }), name, r);
  }
  // PUT may create a Service (the strategy allows create on update).
  const pc = await t.client.request('PUT', `${S}/pc`, { body: svc('pc', { ports: [{ port: 80 }] }) });
  assert.is(pc.status, 201, show(pc));
});

test('Endpoints: defaults, validation, create on PUT, Table, delete Status', async () => {
  const r = await post(E, eps('e1', [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 8080 }] }]));
  same(body(r), stored('Endpoints', 'e1', { subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 8080, protocol: 'TCP' }] }] }), 'create', r);

  const bad = await post(E, eps('b', [{ addresses: [{ ip: '127.0.0.1' }, { ip: 'x' }], ports: [{ port: 0 }, { port: 70000, protocol: 'FOO' }] }, { ports: [{ port: 1, name: 'a' }] }]));
  same(
    status(bad),
    invalidStatus('Endpoints', 'b', [
      ['FieldValueInvalid', 'subsets[0].addresses[0].ip', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
      ['FieldValueInvalid', 'subsets[0].addresses[1].ip', 'Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      ['FieldValueInvalid', 'subsets[0].addresses[1].ip', 'Invalid value: "x": must be a valid IP address'],
      ['FieldValueRequired', 'subsets[0].ports[0].name', 'Required value'],
      ['FieldValueInvalid', 'subsets[0].ports[0].port', 'Invalid value: 0: must be between 1 and 65535, inclusive'],
      ['FieldValueRequired', 'subsets[0].ports[1].name', 'Required value'],
      ['FieldValueInvalid', 'subsets[0].ports[1].port', 'Invalid value: 70000: must be between 1 and 65535, inclusive'],
      ['FieldValueNotSupported', 'subsets[0].ports[1].protocol', 'Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"'],
      ['FieldValueRequired', 'subsets[1]', 'Required value: must specify `addresses` or `notReadyAddresses`'],
    ]),
    'invalid',
    bad,
  );

  const subsets = [{ addresses: [{ ip: '192.0.2.3', hostname: 'h1', nodeName: 'n1' }], notReadyAddresses: [{ ip: '2001:db8::1' }] }];
  const put = await t.client.request('PUT', `${E}/c`, { body: eps('c', subsets) });
  assert.is(put.status, 201, show(put));
  same(body(put), stored('Endpoints', 'c', { subsets }), 'create on PUT', put);

  const tbl = await t.client.request('GET', E, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const rows = (tbl.json as any).rows.map((x: any) => [x.cells[0], x.cells[1]]);
  // Without ports the addresses alone are listed (headless services' endpoints).
  same(rows, [['c', '192.0.2.3'], ['e1', '192.0.2.1:8080']], 'endpoints rows', tbl);

  const del = await t.client.request('DELETE', `${E}/c`);
  same(body(del).kind, 'Status', 'endpoints delete answers a Status', del);
  same(body(del).details?.kind, 'endpoints', 'details.kind', del);
});

test('type transitions: allocated values follow the type, type-only fields are dropped', async () => {
  const created = await post(S, svc('tt', { ports: [{ port: 80, targetPort: 'http' }], publishNotReadyAddresses: true }));
  assert.is(created.status, 201, show(created));
  const base = { sessionAffinity: 'None', publishNotReadyAddresses: true };
  const v4 = { ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster' };
  const port = (extra: Record<string, unknown> = {}) => [{ protocol: 'TCP', port: 80, targetPort: 'http', ...extra }];
  const inRange = (n: unknown): boolean => typeof n === 'number' && n >= 30000 && n <= 32767;
  const chosen = await freeNodePort();
  // Each step: a merge patch, and the spec kube answers given the response's allocated values.
  const steps: [string, unknown, (s: any) => unknown][] = [
    ['→ NodePort', { spec: { type: 'NodePort' } }, (s) => ({ ...base, ...v4, ports: port({ nodePort: s.ports[0].nodePort }), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'NodePort', externalTrafficPolicy: 'Cluster' })],
    ['choose a node port', { spec: { ports: [{ port: 80, targetPort: 'http', nodePort: chosen }] } }, (s) => ({ ...base, ...v4, ports: port({ nodePort: chosen }), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'NodePort', externalTrafficPolicy: 'Cluster' })],
    // Node ports and externalTrafficPolicy the client left unchanged go away with the type.
    ['→ ClusterIP', { spec: { type: 'ClusterIP' } }, (s) => ({ ...base, ...v4, ports: port(), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'ClusterIP' })],
    ['→ ExternalName', { spec: { type: 'ExternalName', externalName: 'x.example.com' } }, () => ({ ...base, ports: port(), type: 'ExternalName', externalName: 'x.example.com' })],
    ['→ ClusterIP again (a new address)', { spec: { type: 'ClusterIP', externalName: null } }, (s) => ({ ...base, ...v4, ports: port(), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'ClusterIP' })],
    ['→ LoadBalancer', { spec: { type: 'LoadBalancer' } }, (s) => ({ ...base, ...v4, ports: port({ nodePort: s.ports[0].nodePort }), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true })],
    [
      'externalTrafficPolicy Local (health check port)',
      { spec: { externalTrafficPolicy: 'Local' } },
      (s) => ({ ...base, ...v4, ports: port({ nodePort: s.ports[0].nodePort }), clusterIP: s.clusterIP, clusterIPs: [s.clusterIP], type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: s.healthCheckNodePort, allocateLoadBalancerNodePorts: true }),
    ],
  ];
  let prev = (created.json as any).spec;
  for (const [label, patch, want] of steps) {
    const r = await t.client.request('PATCH', `${S}/tt`, { body: patch, contentType: 'application/merge-patch+json' });
    assert.is(r.status, 200, `${label}: ${show(r)}`);
    const spec = (r.json as any).spec;
    same(spec, want(spec), label, r);
    for (const p of spec.ports) if (p.nodePort !== undefined) assert.ok(inRange(p.nodePort), `${label}: node port in range`);
    if (spec.healthCheckNodePort !== undefined) assert.ok(inRange(spec.healthCheckNodePort), `${label}: health check port in range`);
    if (prev.clusterIP && spec.clusterIP && prev.type !== 'ExternalName') assert.is(spec.clusterIP, prev.clusterIP, `${label}: address kept`);
    prev = spec;
  }
  const hc = await t.client.request('PATCH', `${S}/tt`, { body: { spec: { healthCheckNodePort: await freeNodePort() } }, contentType: 'application/merge-patch+json' });
  same(status(hc), invalidStatus('Service', 'tt', [['FieldValueForbidden', 'spec.healthCheckNodePort', 'Forbidden: field is immutable']]), 'health check port immutable', hc);
});

test('validation: clusterIPs, externalIPs, source ranges, affinity, traffic policies, duplicates, status', async () => {
  const cases: [string, unknown, Cause[]][] = [
    ['d', svc('d', { clusterIPs: ['10.0.0.77'], ports: [{ port: 80 }] }), [['FieldValueInvalid', 'spec.clusterIPs', 'Invalid value: []string{"10.0.0.77"}: must be empty when `clusterIP` is not specified']]],
    ['d', svc('d', { clusterIP: '10.0.0.77', clusterIPs: ['10.0.0.78'], ports: [{ port: 80 }] }), [['FieldValueInvalid', 'spec.clusterIPs', 'Invalid value: []string{"10.0.0.78"}: first value must match `clusterIP`']]],
    [
      'd',
      svc('d', { externalIPs: ['127.0.0.1', '1.2.3.4', 'bad'], ports: [{ port: 80 }] }),
      [
        ['FieldValueInvalid', 'spec.externalIPs[0]', 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)'],
        ['FieldValueInvalid', 'spec.externalIPs[2]', 'Invalid value: "bad": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
      ],
    ],
    [
      'd',
      svc('d', { loadBalancerSourceRanges: ['10.0.0.0/8', 'x'], ports: [{ port: 80 }] }),
      [
        ['FieldValueForbidden', 'spec.LoadBalancerSourceRanges', "Forbidden: may only be used when `type` is 'LoadBalancer'"],
        ['FieldValueInvalid', 'spec.LoadBalancerSourceRanges', 'Invalid value: "[10.0.0.0/8 x]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '],
      ],
    ],
    [
      'd',
      svc('d', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } }, ports: [{ port: 80 }] }),
      [['FieldValueInvalid', 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', 'Invalid value: 0: must be greater than 0 and less than 86400']],
    ],
    ['d', svc('d', { externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }), [['FieldValueInvalid', 'spec.externalTrafficPolicy', `Invalid value: "Local": may only be set when \`type\` is 'NodePort' or 'LoadBalancer'`]]],
    ['d', svc('d', { internalTrafficPolicy: 'Foo', ports: [{ port: 80 }] }), [['FieldValueNotSupported', 'spec.internalTrafficPolicy', 'Unsupported value: "Foo": supported values: "Cluster", "Local"']]],
    ['d', svc('d', { type: 'LoadBalancer', ports: [{ port: 10250 }] }), [['FieldValueInvalid', 'spec.ports[0]', 'Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet']]],
    [
      'd',
      svc('d', { selector: { 'a b': 'c' }, ports: [{ port: 80 }] }),
      [
        [
          'FieldValueInvalid',
          'spec.selector',
          `Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        ],
      ],
    ],
    [
      'd',
      svc('d', { ports: [{ port: 80, name: 'a' }, { port: 80, name: 'b' }] }),
      [['FieldValueDuplicate', 'spec.ports[1]', 'Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}']],
    ],
    ['d', svc('d', { type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }), [['FieldValueInvalid', 'spec.clusterIPs[0]', `Invalid value: "None": may not be set to 'None' for NodePort services`]]],
    ['d', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'd' } }, [['FieldValueRequired', 'spec.ports', 'Required value']]],
  ];
  for (const [i, [name, obj, causes]] of cases.entries()) {
    const r = await post(S, obj);
    same(status(r), invalidStatus('Service', name, causes), `case ${i}`, r);
  }
  // TCP and UDP on one port number share one node port.
  const dns = await post(S, svc('dns', { type: 'NodePort', ports: [{ port: 53, name: 'a', protocol: 'TCP' }, { port: 53, name: 'b', protocol: 'UDP' }] }));
  assert.is(dns.status, 201, show(dns));
  const [a, b] = (dns.json as any).spec.ports;
  assert.is(a.nodePort, b.nodePort);

  const st = await t.client.request('PUT', `${S}/dns/status`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'dns' }, status: { loadBalancer: { ingress: [{ ip: 'nope' }, { hostname: '1.2.3.4' }] } } },
  });
  same(
    status(st),
    invalidStatus('Service', 'dns', [
      ['FieldValueInvalid', 'status.loadBalancer.ingress[0].ip', 'Invalid value: "nope": must be a valid IP address'],
      ['FieldValueInvalid', 'status.loadBalancer.ingress[1].hostname', 'Invalid value: "1.2.3.4": must be a DNS name, not an IP address'],
    ]),
    'status validation',
    st,
  );

  // dry-run allocates nothing: the same address and node port can be taken right after.
  const spec = { clusterIP: await freeIP(), type: 'NodePort', ports: [{ port: 80, nodePort: await freeNodePort() }] };
  const dry = await t.client.request('POST', `${S}?dryRun=All`, { body: svc('dr', spec) });
  assert.is(dry.status, 201, show(dry));
  const real = await post(S, svc('dr', spec));
  assert.is(real.status, 201, show(real));
});

test('discovery lists services (svc, category all, status) and endpoints (ep)', async () => {
  const r = await t.client.request('GET', '/api/v1');
  const pick = (name: string) => {
    const x = (r.json as any).resources.find((e: any) => e.name === name);
    return x && { name: x.name, kind: x.kind, namespaced: x.namespaced, verbs: [...x.verbs].sort(), shortNames: x.shortNames, categories: x.categories };
  };
  const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
  same(pick('services'), { name: 'services', kind: 'Service', namespaced: true, verbs: all, shortNames: ['svc'], categories: ['all'] }, 'services', r);
  same(pick('services/status'), { name: 'services/status', kind: 'Service', namespaced: true, verbs: ['get', 'patch', 'update'], shortNames: undefined, categories: undefined }, 'services/status', r);
  same(pick('endpoints'), { name: 'endpoints', kind: 'Endpoints', namespaced: true, verbs: all, shortNames: ['ep'], categories: undefined }, 'endpoints', r);
});

/** GET a path as Protobuf bytes (the suite's client reads bodies as text). */
async function getProtobuf(path: string): Promise<Buffer> {
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (k.token) headers.authorization = `Bearer ${k.token}`;
    const r = await undiciRequest(k.server + path, { headers, dispatcher: agent });
    assert.is(r.statusCode, 200, path);
    return Buffer.from(await r.body.arrayBuffer());
  } finally {
    await agent.close();
  }
}

test('Protobuf: Service and Endpoints bytes decode to the JSON the server serves, and re-encode byte for byte', async () => {
  const lb = await post(S, {
    ...svc('pb', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      sessionAffinity: 'ClientIP',
      selector: { app: 'pb' },
      externalIPs: ['203.0.113.9'],
      loadBalancerSourceRanges: ['198.51.100.0/24'],
      ports: [
        { name: 'http', port: 80, targetPort: 'http', appProtocol: 'http' },
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 },
      ],
    }),
  });
  assert.is(lb.status, 201, show(lb));
  const st = await t.client.request('PUT', `${S}/pb/status`, {
    body: { ...(lb.json as any), status: { loadBalancer: { ingress: [{ ip: '203.0.113.10', ports: [{ port: 80, protocol: 'TCP', error: 'Pending' }] }, { hostname: 'lb.example.com' }] } } },
  });
  assert.is(st.status, 200, show(st));
  const ep = await post(E, eps('pb', [
    { addresses: [{ ip: '192.0.2.7', hostname: 'h', nodeName: 'n1', targetRef: { kind: 'Pod', name: 'p', namespace: ns, uid: '0b6f7a6e-5d36-4b65-8d7e-9f1d2c3b4a59' } }], notReadyAddresses: [{ ip: '192.0.2.8' }], ports: [{ name: 'http', port: 8080, appProtocol: 'http' }, { name: 'dns', port: 53, protocol: 'UDP' }] },
  ]));
  assert.is(ep.status, 201, show(ep));
  for (const path of [`${S}/pb`, `${E}/pb`, S, E]) {
    const json = (await t.client.request('GET', path)).json;
    const bytes = await getProtobuf(path);
    const decoded = decodeProtobuf(bytes).object as any;
    if (json.kind?.endsWith('List')) {
      // A list read twice may differ only in its resourceVersion when someone else wrote between.
      decoded.metadata.resourceVersion = json.metadata.resourceVersion;
      assert.equal(decoded.items.map((x: any) => x.metadata.name), json.items.map((x: any) => x.metadata.name), path);
      continue;
    }
    assert.equal(decoded, json, `${path}: protobuf decodes to the JSON`);
    assert.ok(encodeProtobuf(json).equals(bytes), `${path}: JSON re-encodes to the same bytes`);
  }
});

test('field order: spec, status and subsets come back in Go struct order, whatever order was sent', async () => {
  const r = await post(S, {
    kind: 'Service',
    apiVersion: 'v1',
    metadata: { name: 'order' },
    status: {},
    spec: { internalTrafficPolicy: 'Cluster', type: 'NodePort', ports: [{ targetPort: 'x', port: 80, protocol: 'TCP', name: 'a', appProtocol: 'h' }], selector: { a: 'b' }, sessionAffinity: 'ClientIP' },
  });
  assert.is(r.status, 201, show(r));
  const j = JSON.parse(r.text);
  const { clusterIP } = j.spec;
  const np = j.spec.ports[0].nodePort;
  assert.equal(Object.keys(j), ['kind', 'apiVersion', 'metadata', 'spec', 'status']);
  assert.is(
    JSON.stringify(j.spec),
    JSON.stringify({
      ports: [{ name: 'a', protocol: 'TCP', appProtocol: 'h', port: 80, targetPort: 'x', nodePort: np }],
      selector: { a: 'b' },
      clusterIP,
      clusterIPs: [clusterIP],
      type: 'NodePort',
      sessionAffinity: 'ClientIP',
      externalTrafficPolicy: 'Cluster',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    }),
  );
  const st = await t.client.request('PUT', `${S}/order/status`, {
    body: { kind: 'Service', apiVersion: 'v1', metadata: { name: 'order' }, status: { loadBalancer: { ingress: [{ ports: [{ error: 'e', protocol: 'TCP', port: 80 }], hostname: 'h.example', ip: '192.0.2.4' }] } } },
  });
  assert.is(st.status, 200, show(st));
  assert.is(JSON.stringify(JSON.parse(st.text).status), JSON.stringify({ loadBalancer: { ingress: [{ ip: '192.0.2.4', hostname: 'h.example', ports: [{ port: 80, protocol: 'TCP', error: 'e' }] }] } }));

  const e = await post(E, {
    kind: 'Endpoints',
    apiVersion: 'v1',
    metadata: { name: 'order' },
    subsets: [{ ports: [{ protocol: 'UDP', port: 53, name: 'dns' }, { port: 54, name: 'x', appProtocol: 'y' }], notReadyAddresses: [{ targetRef: { uid: 'u', name: 'p', kind: 'Pod' }, nodeName: 'n', ip: '192.0.2.2' }], addresses: [{ hostname: 'h', ip: '192.0.2.1' }] }],
  });
  assert.is(e.status, 201, show(e));
  assert.is(
    JSON.stringify(JSON.parse(e.text).subsets),
    JSON.stringify([
      {
        addresses: [{ ip: '192.0.2.1', hostname: 'h' }],
        notReadyAddresses: [{ ip: '192.0.2.2', nodeName: 'n', targetRef: { kind: 'Pod', name: 'p', uid: 'u' } }],
        ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'x', port: 54, protocol: 'TCP', appProtocol: 'y' }],
      },
    ]),
  );
});

test('the kubernetes Service in default', async () => {
  const r = await t.client.request('GET', '/api/v1/namespaces/default/services/kubernetes');
  assert.is(r.status, 200, show(r));
  const port = Number(new URL(t.url).port);
  same(
    body(r),
    stored(
      'Service',
      'kubernetes',
      {
        spec: {
          ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }],
          clusterIP: '10.0.0.1',
          clusterIPs: ['10.0.0.1'],
          type: 'ClusterIP',
          sessionAffinity: 'None',
          ipFamilies: ['IPv4'],
          ipFamilyPolicy: 'SingleStack',
          internalTrafficPolicy: 'Cluster',
        },
        status: { loadBalancer: {} },
      },
      'default',
      { component: 'apiserver', provider: 'kubernetes' },
    ),
    'kubernetes service',
    r,
  );
  same((r.json as any).metadata.managedFields?.[0]?.manager, 'kube-apiserver', 'written by kube-apiserver', r);
});

test.run();
