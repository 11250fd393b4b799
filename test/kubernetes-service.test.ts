/**
 * The `kubernetes` Service and Endpoints this server keeps in `default` (as kube-apiserver's
 * bootstrap controller and lease reconciler do), what kubectl shows of them, and ClusterIP /
 * NodePort allocation under concurrency and at the end of a range (--service-cluster-ip-range,
 * --service-node-port-range). Local only: it restarts servers and sets their flags.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { ok, show } from './assertions.ts';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const ADVERTISE = '192.0.2.10';

let main: TestServer;
let small: TestServer;
const dataDir = tempDir('kubernetes-service-');

test.before(async () => {
  main = await startTestServer({ dataDir, advertiseAddress: ADVERTISE });
  small = await startTestServer({ serviceClusterIPRange: '10.96.0.0/29', serviceNodePortRange: '30000-30002' });
});
test.after(async () => {
  await main?.close();
  await small?.close();
});

const portOf = (s: TestServer): number => Number(new URL(s.url).port);

function kubectl(s: TestServer, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = join(s.dataDir, 'home');
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, KUBECACHEDIR: join(home, 'cache') };
  delete env.KUBECONFIG;
  return new Promise((resolve) => {
    execFile(KUBECTL, ['--kubeconfig', join(s.dataDir, 'kubeconfig'), ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

async function kubectlOk(s: TestServer, ...args: string[]): Promise<string> {
  const r = await kubectl(s, ...args);
  assert.is(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const rows = (out: string): string[][] => out.trim().split('\n').map((l) => l.trim().split(/\s+/));

const svc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });

test('the kubernetes Service: ClusterIP 10.0.0.1, port 443 https → the secure port, kube labels', async () => {
  const s = await ok(main.client.request('GET', '/api/v1/namespaces/default/services/kubernetes'), 200, 'get');
  assert.equal(s.metadata.labels, { component: 'apiserver', provider: 'kubernetes' });
  assert.equal(s.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: portOf(main) }]);
  assert.is(s.spec.clusterIP, '10.0.0.1');
  assert.equal(s.spec.ipFamilies, ['IPv4']);
  assert.is(s.spec.ipFamilyPolicy, 'SingleStack');
  assert.is(s.metadata.managedFields[0].manager, 'kube-apiserver');
});

test('the kubernetes Endpoints: the advertise address and the secure port', async () => {
  const e = await ok(main.client.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes'), 200, 'get');
  assert.equal(e.subsets, [{ addresses: [{ ip: ADVERTISE }], ports: [{ name: 'https', port: portOf(main), protocol: 'TCP' }] }]);
  assert.equal(e.metadata.labels, { 'endpointslice.kubernetes.io/skip-mirror': 'true' });
});

test('the kubernetes EndpointSlice mirrors the Endpoints (kube-apiserver 1.24 EndpointsAdapter; shape from the reference)', async () => {
  const es = await ok(main.client.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes'), 200, 'get');
  assert.equal(
    [es.metadata.labels, es.metadata.generation, es.addressType, es.endpoints, es.ports],
    [{ 'kubernetes.io/service-name': 'kubernetes' }, 1, 'IPv4', [{ addresses: [ADVERTISE], conditions: { ready: true } }], [{ name: 'https', protocol: 'TCP', port: portOf(main) }]],
  );
  assert.is(es.metadata.managedFields[0].manager, 'kube-apiserver');
  // What the e2e spec "should have Endpoints and EndpointSlices pointing to API Server" lists.
  const l = await ok(main.client.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes'), 200, 'list');
  assert.equal(l.items.map((i: any) => i.metadata.name), ['kubernetes']);
});

test('a loopback advertise address is not published (Endpoints validation refuses it, as in kube)', async () => {
  const r = await small.client.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
  assert.is(r.status, 404, show(r));
  const es = await small.client.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
  assert.is(es.status, 404, show(es));
  await ok(small.client.request('GET', '/api/v1/namespaces/default/services/kubernetes'), 200, 'the Service exists anyway');
});

test('kubectl cluster-info, get svc,ep, describe svc', async () => {
  const info = await kubectlOk(main, 'cluster-info');
  assert.ok(info.includes(`Kubernetes control plane is running at ${main.url}`), info);

  const svcRows = rows(await kubectlOk(main, 'get', 'svc', 'kubernetes'));
  assert.equal(svcRows[0], ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
  assert.equal(svcRows[1].slice(0, 5), ['kubernetes', 'ClusterIP', '10.0.0.1', '<none>', '443/TCP']);
  const wide = rows(await kubectlOk(main, 'get', 'svc', 'kubernetes', '-o', 'wide'));
  assert.equal(wide[0].at(-1), 'SELECTOR');
  assert.is(wide[1].at(-1), '<none>');

  const epRows = rows(await kubectlOk(main, 'get', 'ep', 'kubernetes'));
  assert.equal(epRows[0], ['NAME', 'ENDPOINTS', 'AGE']);
  assert.equal(epRows[1].slice(0, 2), ['kubernetes', `${ADVERTISE}:${portOf(main)}`]);

  const all = await kubectlOk(main, 'get', 'all', '-n', 'default');
  // With Pods served too, "all" spans two kinds and kubectl prefixes each name with its kind.
  assert.match(all, /^(service\/)?kubernetes\s+ClusterIP\s+10\.0\.0\.1\s/m, `category "all" includes services: ${all}`);

  const d = await kubectlOk(main, 'describe', 'svc', 'kubernetes');
  for (const line of [
    /^Name:\s+kubernetes$/m,
    /^Labels:\s+component=apiserver$/m,
    /^IP:\s+10\.0\.0\.1$/m,
    /^Port:\s+https\s+443\/TCP$/m,
    new RegExp(`^TargetPort:\\s+${portOf(main)}/TCP$`, 'm'),
    // kubectl fills "Endpoints:" from the discovery.k8s.io EndpointSlices.
    new RegExp(`^Endpoints:\\s+${ADVERTISE.replace(/\./g, '\\.')}:${portOf(main)}$`, 'm'),
  ]) {
    assert.match(d, line);
  }

  // kubectl create service sends Protobuf.
  await kubectlOk(main, 'create', 'service', 'nodeport', 'kc-np', '--tcp=80:8080');
  const np = rows(await kubectlOk(main, 'get', 'svc', 'kc-np'));
  assert.match(np[1][4], /^80:3\d{4}\/TCP$/);
  await kubectlOk(main, 'delete', 'svc', 'kc-np');
});

test('concurrent creates never share an address or a node port', async () => {
  const ns = '/api/v1/namespaces/default/services';
  const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => main.client.request('POST', ns, { body: svc(`par-${i}`, { type: 'NodePort', ports: [{ port: 80 }] }) })));
  for (const r of rs) assert.is(r.status, 201, show(r));
  const ips = rs.map((r) => r.json.spec.clusterIP);
  const ports = rs.map((r) => r.json.spec.ports[0].nodePort);
  assert.is(new Set(ips).size, 40, `distinct IPs: ${ips}`);
  assert.is(new Set(ports).size, 40, `distinct node ports: ${ports}`);
  assert.not.ok(ips.includes('10.0.0.1'));

  // Everyone asks for one address: exactly one wins.
  // An address none of the 40 took.
  let last = 254;
  while (ips.includes(`10.0.0.${last}`)) last--;
  const want = `10.0.0.${last}`;
  const race = await Promise.all(Array.from({ length: 8 }, (_, i) => main.client.request('POST', ns, { body: svc(`same-${i}`, { clusterIP: want, ports: [{ port: 80 }] }) })));
  const won = race.filter((r) => r.status === 201);
  assert.is(won.length, 1, race.map((r) => r.status).join(','));
  for (const r of race.filter((x) => x.status !== 201)) {
    assert.is(r.status, 422, show(r));
    assert.ok(r.json.message.endsWith(`failed to allocate IP ${want}: provided IP is already allocated`), show(r));
  }
  for (const r of [...rs, ...won]) await ok(main.client.request('DELETE', `${ns}/${r.json.metadata.name}`), 200, 'delete');
});

test('a full range answers 500 "range is full"; deleting a Service frees its address and ports', async () => {
  const ns = '/api/v1/namespaces/default/services';
  // 10.96.0.0/29: .1–.6 usable, .1 is the kubernetes Service.
  const created: any[] = [];
  for (let i = 0; i < 5; i++) created.push(await ok(small.client.request('POST', ns, { body: svc(`s${i}`, { ports: [{ port: 80 }] }) }), 201, `s${i}`));
  assert.equal(created.map((s) => s.spec.clusterIP).sort(), ['10.96.0.2', '10.96.0.3', '10.96.0.4', '10.96.0.5', '10.96.0.6']);
  const full = await small.client.request('POST', ns, { body: svc('s5', { ports: [{ port: 80 }] }) });
  assert.is(full.status, 500, show(full));
  assert.is(full.json.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
  await ok(small.client.request('DELETE', `${ns}/s0`), 200, 'delete s0');
  const again = await ok(small.client.request('POST', ns, { body: svc('s5', { ports: [{ port: 80 }] }) }), 201, 's5 after a delete');
  assert.is(again.spec.clusterIP, created[0].spec.clusterIP);

  // Node ports 30000-30002: the 4th is refused; ClusterIP → NodePort → ClusterIP releases them.
  for (const i of [0, 1, 2]) await ok(small.client.request('PATCH', `${ns}/s${i + 1}`, { body: { spec: { type: 'NodePort' } }, contentType: 'application/merge-patch+json' }), 200, `s${i + 1} → NodePort`);
  const noPort = await small.client.request('PATCH', `${ns}/s4`, { body: { spec: { type: 'NodePort' } }, contentType: 'application/merge-patch+json' });
  assert.is(noPort.status, 500, show(noPort));
  assert.is(noPort.json.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
  const back = await ok(
    small.client.request('PATCH', `${ns}/s1`, { body: { spec: { type: 'ClusterIP', externalTrafficPolicy: null, ports: [{ port: 80, nodePort: null }] } }, contentType: 'application/strategic-merge-patch+json' }),
    200,
    's1 → ClusterIP',
  );
  assert.is(back.spec.ports[0].nodePort, undefined);
  await ok(small.client.request('PATCH', `${ns}/s4`, { body: { spec: { type: 'NodePort' } }, contentType: 'application/merge-patch+json' }), 200, 's4 → NodePort after a release');
});

test('restart: the Service keeps its identity and follows the new port; a clean stop withdraws the address', async () => {
  const before = await ok(main.client.request('GET', '/api/v1/namespaces/default/services/kubernetes'), 200, 'get');
  await main.close();
  // Same data, a new port and another advertise address.
  main = await startTestServer({ dataDir, advertiseAddress: '192.0.2.20' });
  const after = await ok(main.client.request('GET', '/api/v1/namespaces/default/services/kubernetes'), 200, 'get');
  assert.is(after.metadata.uid, before.metadata.uid);
  assert.is(after.spec.ports[0].targetPort, portOf(main));
  const e = await ok(main.client.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes'), 200, 'endpoints');
  // The first server removed its lease when it stopped, so only this one is listed.
  assert.equal(e.subsets, [{ addresses: [{ ip: '192.0.2.20' }], ports: [{ name: 'https', port: portOf(main), protocol: 'TCP' }] }]);
  const es = await ok(main.client.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes'), 200, 'endpointslice');
  assert.equal([es.endpoints, es.ports[0].port], [[{ addresses: ['192.0.2.20'], conditions: { ready: true } }], portOf(main)]);
});

test.run();
