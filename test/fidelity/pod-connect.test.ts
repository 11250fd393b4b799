/**
 * The Pod and Service connect subresources as kube-apiserver 1.24 answers them without a kubelet:
 * pods/log (a Pod with no node: an empty 204; container name to choose; an unknown container; a
 * Pod on a Node that does not exist, which kube reports as `pods "<node>" not found`; option
 * parse errors), pods/exec, pods/attach, pods/portforward (`pod … does not have a host assigned`,
 * GET and POST only), pods/proxy (`address not allowed` without a Pod IP, a malformed id),
 * services/proxy (a port number no service port has: 503; no Endpoints: kube's 404 for the
 * Service), the discovery entries, and `kubectl logs` / `kubectl exec` on a Pending Pod; then a
 * Pod on a Node whose kubelet refuses (log 500, upgrade and non-upgrade exec/attach/portforward,
 * pods/proxy and services/proxy through Endpoints, `kubectl logs` / `kubectl exec` stderr).
 *
 *   node --import tsx test/run.ts test/fidelity/pod-connect.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/pod-connect.test.ts
 */
import { request as httpsRequest } from 'node:https';
import { test } from 'uvu';
import { closedPort, hostIP } from '../net-helpers.ts';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { readKubeconfig, startTarget, type Target } from '../target.ts';
import { kubectlFor } from '../kubectl-run.ts';
import { same } from './storage-helpers.ts';

let t: Target;
let ns = '';
let P = '';

test.before(async () => {
  t = await startTarget();
  ns = await t.createNamespace('connect');
  P = `/api/v1/namespaces/${ns}`;
  if (t.reference) await t.client.request('POST', `${P}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
  const pod = (name: string, spec: Record<string, unknown>) => t.client.request('POST', `${P}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { automountServiceAccountToken: false, ...spec } } });
  for (const r of [
    await pod('one', { containers: [{ name: 'c1', image: 'x' }] }),
    await pod('two', { initContainers: [{ name: 'i', image: 'x' }], containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] }),
    await pod('ghost', { nodeName: 'wtst-no-such-node', containers: [{ name: 'c1', image: 'x', ports: [{ containerPort: 80 }] }] }),
    await t.client.request('POST', `${P}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80, targetPort: 8080 }] } } }),
  ]) assert.is(r.status, 201, show(r));
});
test.after(async () => {
  await t.client.request('DELETE', P);
  await t.close();
});

const statusOf = (code: number, message: string, reason: string, details?: Record<string, unknown>) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code });
const notFound = (kind: string, name: string) => statusOf(404, `${kind} "${name}" not found`, 'NotFound', { name, kind });
const bad = (message: string) => statusOf(400, message, 'BadRequest');

test('discovery: the connect subresources with kube\'s verbs and kinds', async () => {
  const r = await t.client.request('GET', '/api/v1');
  const of = (n: string) => (r.json.resources as any[]).find((x) => x.name === n);
  const want: [string, string[], string][] = [
    ['pods/attach', ['create', 'get'], 'PodAttachOptions'],
    ['pods/exec', ['create', 'get'], 'PodExecOptions'],
    ['pods/log', ['get'], 'Pod'],
    ['pods/portforward', ['create', 'get'], 'PodPortForwardOptions'],
    ['pods/proxy', ['create', 'delete', 'get', 'patch', 'update'], 'PodProxyOptions'],
    ['services/proxy', ['create', 'delete', 'get', 'patch', 'update'], 'ServiceProxyOptions'],
  ];
  for (const [name, verbs, kind] of want) {
    const e = of(name);
    assert.ok(e, name);
    same({ verbs: e.verbs, kind: e.kind, namespaced: e.namespaced }, { verbs, kind, namespaced: true }, name, r);
  }
});

test('pods/log, exec, attach, portforward, proxy and services/proxy without a kubelet: kube\'s codes and bodies', async () => {
  const cases: [string, string, number, unknown][] = [
    ['GET', 'pods/two/log', 400, bad('a container name must be specified for pod two, choose one of: [i a b]')],
    ['GET', 'pods/two/log?container=x', 400, bad('container x is not valid for pod two')],
    ['GET', 'pods/nope/log', 404, notFound('pods', 'nope')],
    ['GET', 'pods/ghost/log', 404, notFound('pods', 'wtst-no-such-node')],
    ['GET', 'pods/one/log?tailLines=x', 400, bad('strconv.ParseInt: parsing "x": invalid syntax')],
    ['PUT', 'pods/one/log', 405, { ...statusOf(405, 'the server does not allow this method on the requested resource', 'MethodNotAllowed'), details: {} }],
    ['GET', 'pods/one/exec', 400, bad('pod one does not have a host assigned')],
    ['POST', 'pods/one/exec?command=ls&stdout=true', 400, bad('pod one does not have a host assigned')],
    ['GET', 'pods/two/exec?command=ls&stdout=true', 400, bad('a container name must be specified for pod two, choose one of: [i a b]')],
    ['GET', 'pods/ghost/exec?command=ls&stdout=true', 404, notFound('pods', 'wtst-no-such-node')],
    ['GET', 'pods/nope/exec', 404, notFound('pods', 'nope')],
    ['POST', 'pods/one/attach?stdout=true', 400, bad('pod one does not have a host assigned')],
    ['GET', 'pods/one/portforward', 400, bad('pod one does not have a host assigned')],
    ['POST', 'pods/ghost/portforward?ports=80', 404, notFound('pods', 'wtst-no-such-node')],
    ['GET', 'pods/one/proxy', 400, bad('address not allowed')],
    ['DELETE', 'pods/ghost/proxy/x', 400, bad('address not allowed')],
    ['GET', 'pods/one:80/proxy', 400, bad('address not allowed')],
    ['GET', 'pods/a:b:c:d/proxy', 400, bad('invalid pod request "a:b:c:d"')],
    ['GET', 'pods/nope/proxy', 404, notFound('pods', 'nope')],
    ['GET', 'services/svc/proxy', 404, notFound('services', 'svc')],
    ['PUT', 'services/svc:80/proxy/a', 404, notFound('services', 'svc')],
    ['GET', 'services/svc:81/proxy', 503, statusOf(503, 'no service port 81 found for service "svc"', 'ServiceUnavailable')],
    ['GET', 'services/nope/proxy', 404, notFound('services', 'nope')],
    ['GET', 'services/a:b:c:d/proxy', 400, bad('invalid service request "a:b:c:d"')],
    ['GET', 'services/ftp:svc:80/proxy', 400, bad('invalid service request "ftp:svc:80"')],
  ];
  for (const [method, path, code, want] of cases) {
    const r = await t.client.request(method, `${P}/${path}`);
    assert.is(r.status, code, `${method} ${path}: ${show(r)}`);
    same(r.json, want, `${method} ${path}`, r);
  }
  // A Pod with no node: kube's LocationStreamer has no location and answers an empty stream.
  for (const q of ['', '?follow=true&tailLines=3']) {
    const r = await t.client.request('GET', `${P}/pods/one/log${q}`);
    assert.is(r.status, 204, show(r));
    assert.is(r.text, '', show(r));
  }
});

/** An HTTP/1.1 upgrade request as kubectl exec sends it (SPDY/3.1); the status and the parsed body. */
function upgradeRequest(path: string): Promise<{ status: number; json: unknown }> {
  const kc = readKubeconfig(t.kubeconfig);
  const u = new URL(kc.server + path);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: 'POST', ca: kc.ca, cert: kc.cert, key: kc.key, headers: { ...(kc.token ? { authorization: `Bearer ${kc.token}` } : {}), connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 101, json: undefined });
    });
    req.on('error', reject);
    req.end();
  });
}

test('a Pod on a Node whose kubelet does not answer: log 500, exec/attach/portforward 400 without an upgrade and 500 with one, proxy 503', async () => {
  const ip = hostIP();
  if (!ip) {
    console.warn('no non-loopback IPv4 address: not checked');
    return;
  }
  const port = await closedPort();
  const node = `wtst-deaf-${ns}`;
  const n = await t.client.request('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: node }, status: { addresses: [{ type: 'InternalIP', address: ip }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } } });
  assert.is(n.status, 201, show(n));
  try {
    const p = await t.client.request('POST', `${P}/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'onnode' }, spec: { automountServiceAccountToken: false, nodeName: node, containers: [{ name: 'c', image: 'x', ports: [{ containerPort: port }] }] } } });
    assert.is(p.status, 201, show(p));
    const st = await t.client.request('PATCH', `${P}/pods/onnode/status`, { body: { status: { podIP: ip, podIPs: [{ ip }] } }, contentType: 'application/merge-patch+json' });
    assert.is(st.status, 200, show(st));
    const refused = `dial tcp ${ip}:${port}: connect: connection refused`;
    const reasonless = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
    const cases: [string, string, number, unknown][] = [
      ['GET', 'pods/onnode/log', 500, reasonless(`Get "https://${ip}:${port}/containerLogs/${ns}/onnode/c": ${refused}`)],
      ['GET', 'pods/onnode/log?container=c&tailLines=2&timestamps=true', 500, reasonless(`Get "https://${ip}:${port}/containerLogs/${ns}/onnode/c?tailLines=2&timestamps=true": ${refused}`)],
      ['POST', 'pods/onnode/exec?command=ls&stdout=true', 400, bad('Upgrade request required')],
      ['GET', 'pods/onnode/attach?stdout=true', 400, bad('Upgrade request required')],
      ['POST', 'pods/onnode/portforward', 400, bad('Upgrade request required')],
      ['GET', 'pods/onnode/proxy/x', 503, statusOf(503, `error trying to reach service: ${refused}`, 'ServiceUnavailable')],
      ['GET', `pods/onnode:${port}/proxy/x`, 503, statusOf(503, `error trying to reach service: ${refused}`, 'ServiceUnavailable')],
      ['GET', 'pods/onnode:99999/proxy/x', 503, statusOf(503, 'error trying to reach service: dial tcp: address 99999: invalid port', 'ServiceUnavailable')],
    ];
    for (const [method, path, code, want] of cases) {
      const r = await t.client.request(method, `${P}/${path}`);
      assert.is(r.status, code, `${method} ${path}: ${show(r)}`);
      same(r.json, want, `${method} ${path}`, r);
    }
    // services/proxy through Endpoints: none, an address with no Pod behind it, then the Pod's.
    const E = `${P}/endpoints`;
    const eps = (subsets: unknown[]) => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'svc' }, subsets });
    assert.is((await t.client.request('POST', E, { body: eps([]) })).status, 201);
    const noEndpoints = (id: string) => statusOf(503, `no endpoints available for service "${id}"`, 'ServiceUnavailable');
    const check = async (path: string, code: number, want: unknown) => {
      const r = await t.client.request('GET', `${P}/${path}`);
      assert.is(r.status, code, `${path}: ${show(r)}`);
      same(r.json, want, path, r);
    };
    await check('services/svc/proxy', 503, noEndpoints('svc'));
    assert.is((await t.client.request('PUT', `${E}/svc`, { body: eps([{ addresses: [{ ip }], ports: [{ port }] }]) })).status, 200);
    await check('services/svc/proxy', 503, noEndpoints('svc'));
    await check('services/svc:80/proxy/x', 503, noEndpoints('svc:80'));
    assert.is((await t.client.request('PUT', `${E}/svc`, { body: eps([{ addresses: [{ ip, targetRef: { kind: 'Pod', namespace: ns, name: 'onnode' } }], ports: [{ port }] }]) })).status, 200);
    await check('services/svc:80/proxy/x', 503, statusOf(503, `error trying to reach service: ${refused}`, 'ServiceUnavailable'));
    await check('services/http:svc:80/proxy/x', 503, statusOf(503, `error trying to reach service: ${refused}`, 'ServiceUnavailable'));
    for (const path of ['pods/onnode/exec?command=ls&stdout=true', 'pods/onnode/attach?stdout=true', 'pods/onnode/portforward', 'pods/one/exec?command=ls&stdout=true']) {
      const r = await upgradeRequest(`${P}/${path}`);
      const want = path.startsWith('pods/one/') ? { code: 400, body: bad('pod one does not have a host assigned') } : { code: 500, body: reasonless(`error dialing backend: ${refused}`) };
      assert.equal({ status: r.status, json: r.json }, { status: want.code, json: want.body }, path);
    }
    // kubectl's own requests (exec: a SPDY/3.1 upgrade over HTTP/1.1).
    const k = kubectlFor(t.kubeconfig);
    const logs = await k.run('logs', '-n', ns, 'onnode');
    assert.equal({ code: logs.code, stderr: logs.stderr }, { code: 1, stderr: `Error from server: Get "https://${ip}:${port}/containerLogs/${ns}/onnode/c": ${refused}\n` }, 'kubectl logs');
    const exec = await k.run('exec', '-n', ns, 'onnode', '--', 'ls');
    assert.equal({ code: exec.code, stderr: exec.stderr }, { code: 1, stderr: `Error from server: error dialing backend: ${refused}\n` }, 'kubectl exec');
  } finally {
    await t.client.request('DELETE', `/api/v1/nodes/${node}`);
  }
});

test('kubectl logs and exec on a Pending Pod: kube\'s error output', async () => {
  const k = kubectlFor(t.kubeconfig);
  const logs = await k.run('logs', '-n', ns, 'one');
  same({ code: logs.code, stdout: logs.stdout, stderr: logs.stderr }, { code: 0, stdout: '', stderr: '' }, 'kubectl logs', { status: 0, headers: {}, text: '', json: undefined });
  const two = await k.run('logs', '-n', ns, 'two');
  same({ code: two.code, stderr: two.stderr }, { code: 0, stderr: 'Defaulted container "a" out of: a, b, i (init)\n' }, 'kubectl logs two', { status: 0, headers: {}, text: '', json: undefined });
  const exec = await k.run('exec', '-n', ns, 'one', '--', 'ls');
  same({ code: exec.code, stderr: exec.stderr }, { code: 1, stderr: 'Error from server (BadRequest): pod one does not have a host assigned\n' }, 'kubectl exec', { status: 0, headers: {}, text: '', json: undefined });
});

test.run();
