/**
 * The aggregation layer as kube-apiserver 1.24's kube-aggregator serves it: an APIService with a
 * `service` is checked by the availability controller (its discovery GET), listed in /apis, and
 * requests for its group version are proxied over HTTPS to the service with the caller's identity
 * in X-Remote-* headers and the front-proxy client certificate.
 *
 * The backend is a real HTTPS server on 127.0.0.1 started here (its own CA, its certificate for
 * `<service>.<namespace>.svc`), reached through an ExternalName Service `externalName: 127.0.0.1`
 * (kube's default resolver dials an ExternalName service at its external name, so both servers
 * reach it without a cluster network).
 *
 * Against the reference, the front-proxy flags are needed (a proxy client certificate signed by
 * the requestheader CA, CN `aggregator`):
 *
 *   EXTRA_APISERVER_FLAGS="--requestheader-client-ca-file=$D/ca.crt --requestheader-allowed-names=front-proxy,aggregator
 *     --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group
 *     --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file=$D/client.crt
 *     --proxy-client-key-file=$D/client.key" ../shared/reference/start.sh /tmp/ref 16443
 *
 * Locally the suite makes its own front-proxy CA and client pair and starts this server with the
 * same options. The client certificate the backend receives is checked against the requestheader
 * CA that kube-system/extension-apiserver-authentication publishes, as a real extension server does.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { startTarget, readKubeconfig, type Target } from '../target.ts';
import { eventually } from '../harness.ts';
import { kubectlFor, type Kubectl } from '../kubectl-run.ts';
import { createCa, createCertificateAuthority, issueCertificate, issueLeaf, certPem, x509 } from '../../internal/auth/certificates.ts';

const external = Boolean(process.env.TEST_KUBECONFIG);
const REG = '/apis/apiregistration.k8s.io/v1/apiservices';

let t: Target;
let kubectl: Kubectl;
let ns: string;
let group: string;
const VERSION = 'v1alpha1';
let apiServiceName: string;
let caBundle: string;
let backend: Server;
let backendPort = 0;
let backendTls: { cert: string; key: string };

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  clientCn?: string;
  clientCert?: string;
}
const seen: Seen[] = [];
let releaseSecond: (() => void) | undefined;
/** This server's front-proxy CA and the directory of its client pair files (not on the reference). */
let frontProxy: { ca: { certPem: string; keyPem: string }; dir: string } | undefined;

const widgetList = () => ({
  kind: 'WidgetList',
  apiVersion: `${group}/${VERSION}`,
  metadata: { resourceVersion: '7' },
  items: [{ kind: 'Widget', apiVersion: `${group}/${VERSION}`, metadata: { name: 'w1', namespace: ns, creationTimestamp: '2020-01-01T00:00:00Z' }, spec: { size: 3 } }],
});

const resourceList = () => ({
  kind: 'APIResourceList',
  apiVersion: 'v1',
  groupVersion: `${group}/${VERSION}`,
  resources: [{ name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['get', 'list'] }],
});

function listen(): Promise<void> {
  backend = createServer({ ...backendTls, requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate(false);
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCn: [peer?.subject?.CN].flat()[0], clientCert: peer?.raw ? new X509Certificate(peer.raw).toString() : undefined });
    const path = (req.url ?? '').split('?')[0];
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path === `/apis/${group}/${VERSION}`) return send(200, resourceList());
    if (path === `/apis/${group}/${VERSION}/namespaces/${ns}/widgets` && req.method === 'GET') return send(200, widgetList());
    if (path === `/apis/${group}/${VERSION}/namespaces/${ns}/widgets/w1`) return send(200, widgetList().items[0]);
    if (path === `/apis/${group}/${VERSION}/namespaces/${ns}/widgets` && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => send(201, { ...JSON.parse(Buffer.concat(chunks).toString()), status: { seen: req.headers['content-type'] } }));
      return;
    }
    if (path === `/apis/${group}/${VERSION}/namespaces/${ns}/watchwidgets`) {
      // A watch: the first event at once, the second only once the client has the first.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: widgetList().items[0] }) + '\n');
      releaseSecond = () => res.end(JSON.stringify({ type: 'DELETED', object: widgetList().items[0] }) + '\n');
      return;
    }
    send(404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'not here', reason: 'NotFound', code: 404 });
  });
  backend.listen(backendPort, '127.0.0.1');
  return new Promise((resolve) => backend.once('listening', () => {
    backendPort = (backend.address() as AddressInfo).port;
    resolve();
  }));
}

const stopBackend = () => new Promise<void>((resolve) => {
  backend.close(() => resolve());
  backend.closeAllConnections();
});

async function availableCondition(name: string): Promise<Record<string, string> | undefined> {
  const r = await t.client.request('GET', `${REG}/${name}`);
  return (r.json?.status?.conditions ?? []).find((c: any) => c.type === 'Available');
}

async function waitForReason(name: string, reason: string): Promise<Record<string, string>> {
  let last: Record<string, string> | undefined;
  await eventually(`${name} Available reason ${reason}`, async () => {
    last = await availableCondition(name);
    return last?.reason === reason;
  }, 20_000, () => console.log('last condition', last));
  return last!;
}

/** Touch the Service (an annotation): kube's availability controller re-checks the APIServices naming it. */
async function touchService(name: string, value: string): Promise<void> {
  const r = await t.client.request('PATCH', `/api/v1/namespaces/${ns}/services/${name}`, { raw: JSON.stringify({ metadata: { annotations: { touched: value } } }), contentType: 'application/merge-patch+json' });
  assert.is(r.status, 200, r.text);
}

test.before(async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'aggregation-test-'));
  let localOpts = {};
  if (!external) {
    const frontProxyCa = await createCertificateAuthority('front-proxy-ca');
    const client = await issueCertificate(frontProxyCa, { cn: 'aggregator' });
    writeFileSync(join(tmp, 'front-proxy-ca.crt'), frontProxyCa.certPem);
    writeFileSync(join(tmp, 'front-proxy-client.crt'), client.certPem);
    writeFileSync(join(tmp, 'front-proxy-client.key'), client.keyPem);
    frontProxy = { ca: frontProxyCa, dir: tmp };
    localOpts = {
      requestHeader: { clientCaFile: join(tmp, 'front-proxy-ca.crt'), allowedNames: ['front-proxy', 'aggregator'], usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefix: ['X-Remote-Extra-'] },
      proxyClientCertFile: join(tmp, 'front-proxy-client.crt'),
      proxyClientKeyFile: join(tmp, 'front-proxy-client.key'),
    };
  }
  t = await startTarget(localOpts);
  kubectl = kubectlFor(t.kubeconfig);
  ns = await t.createNamespace('agg');
  group = `${ns}.wardle.example.com`;
  apiServiceName = `${VERSION}.${group}`;
  const { ca } = await createCa('aggregation-backend-ca');
  caBundle = Buffer.from(certPem(ca.cert)).toString('base64');
  const leaf = await issueLeaf(ca, { subject: [{ CN: ['agg-backend'] }], usages: [x509.ExtendedKeyUsage.serverAuth], sans: [{ type: 'dns', value: `agg-backend.${ns}.svc` }], lifetimeMs: 86_400_000 });
  backendTls = { cert: leaf.certPem, key: leaf.keyPem };
  await listen();
});

test.after(async () => {
  await t.client.request('DELETE', `${REG}/${apiServiceName}`);
  await t.client.request('DELETE', `${REG}/v1.${group}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await stopBackend().catch(() => undefined);
  await t.close();
});

test('an APIService with a service: checked by discovery, Available, proxied with the caller identity', async () => {
  let r = await t.client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'agg-backend' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } } });
  assert.is(r.status, 201, r.text);
  r = await t.client.request('POST', REG, {
    body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: apiServiceName }, spec: { group, version: VERSION, service: { namespace: ns, name: 'agg-backend', port: backendPort }, caBundle, groupPriorityMinimum: 2000, versionPriority: 10 } },
  });
  assert.is(r.status, 201, r.text);
  const c = await waitForReason(apiServiceName, 'Passed');
  assert.equal({ ...c, lastTransitionTime: '' }, { type: 'Available', status: 'True', lastTransitionTime: '', reason: 'Passed', message: 'all checks passed' });
  // The condition is kube-apiserver's status update.
  const mf = (await t.client.request('GET', `${REG}/${apiServiceName}`)).json.metadata.managedFields as Record<string, unknown>[];
  const byServer = mf.filter((m) => m.manager === 'kube-apiserver').map((m) => ({ ...m, time: '' }));
  const conditionFields = { '.': {}, 'f:lastTransitionTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} };
  assert.equal(byServer, [{ apiVersion: 'apiregistration.k8s.io/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Available"}': conditionFields } } }, manager: 'kube-apiserver', operation: 'Update', subresource: 'status', time: '' }]);
  // The discovery check: GET /apis/<g>/<v> as system:kube-aggregator in system:masters.
  const check = seen.find((s) => s.url === `/apis/${group}/${VERSION}`);
  assert.ok(check, 'the discovery check reached the backend');
  assert.is(check!.headers['x-remote-user'], 'system:kube-aggregator');
  assert.is(check!.headers['x-remote-group'], 'system:masters');

  // Proxied: the backend's answer as is, the caller's identity in the headers.
  seen.length = 0;
  // (kube's proxy learns the condition from its own informer, a moment after the write)
  await eventually('the proxy sees the APIService available', async () => {
    r = await t.client.request('GET', `/apis/${group}/${VERSION}/namespaces/${ns}/widgets?limit=5`, { headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': 'system:masters', 'Impersonate-Extra-Scopes': 'view' } });
    return r.status !== 503;
  });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, widgetList());
  const got = seen.find((s) => s.url.startsWith(`/apis/${group}/${VERSION}/namespaces/${ns}/widgets`))!;
  assert.ok(got, 'the request reached the backend');
  assert.is(got.url, `/apis/${group}/${VERSION}/namespaces/${ns}/widgets?limit=5`);
  assert.is(got.headers['x-remote-user'], 'alice');
  assert.equal(got.headers['x-remote-group'], 'system:masters, system:authenticated');
  assert.is(got.headers['x-remote-extra-scopes'], 'view');
  assert.is(got.headers['impersonate-user'], undefined);
  assert.is(got.headers.authorization, undefined);
  assert.is(got.headers.host, `127.0.0.1:${backendPort}`);
  assert.is(got.headers['x-forwarded-for'], '127.0.0.1');
  // The front-proxy client certificate, trusted by the CA kube-system publishes for extension servers.
  const cm = await t.client.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication');
  const rhCa = cm.json.data['requestheader-client-ca-file'];
  assert.ok(rhCa, 'requestheader-client-ca-file is published');
  assert.is(got.clientCn, 'aggregator');
  assert.ok(new X509Certificate(got.clientCert!).verify(new X509Certificate(rhCa).publicKey), 'signed by the requestheader CA');
  assert.equal(JSON.parse(cm.json.data['requestheader-allowed-names']), ['front-proxy', 'aggregator']);
});

test('discovery lists the aggregated group; /apis/<group> is the aggregator\'s, /apis/<g>/<v> the backend\'s', async () => {
  const apis = await t.client.request('GET', '/apis');
  const groups = apis.json.groups.map((g: any) => g.name);
  const entry = apis.json.groups.find((g: any) => g.name === group);
  assert.equal(entry, { name: group, versions: [{ groupVersion: `${group}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${group}/${VERSION}`, version: VERSION } });
  // groupPriorityMinimum 2000: after the built-in groups (16100 and up), before CRD groups (1000).
  assert.ok(groups.indexOf(group) > groups.indexOf('flowcontrol.apiserver.k8s.io'), groups.join(' '));
  const g = await t.client.request('GET', `/apis/${group}`);
  assert.is(g.status, 200, g.text);
  assert.equal(g.json, { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: [{ groupVersion: `${group}/${VERSION}`, version: VERSION }], preferredVersion: { groupVersion: `${group}/${VERSION}`, version: VERSION } });
  const gv = await t.client.request('GET', `/apis/${group}/${VERSION}`);
  assert.equal(gv.json, resourceList());
  // kubectl: the raw path, and `get` through the discovered resource.
  assert.equal(JSON.parse(await kubectl.ok('get', '--raw', `/apis/${group}/${VERSION}`)), resourceList());
  const resources = await kubectl.ok('api-resources', `--api-group=${group}`, '--no-headers');
  assert.match(resources, new RegExp(`^widgets\\s+${group.replace(/\./g, '\\.')}/${VERSION}\\s+true\\s+Widget\\s*$`));
  const out = await kubectl.ok('get', `widgets.${group}`, '-n', ns);
  assert.match(out, /^NAME\s+AGE\s*\nw1\s+/);
  const tableReq = seen.filter((s) => s.url.includes('/widgets')).at(-1)!;
  assert.match(String(tableReq.headers.accept), /as=Table/);
});

test('writes carry their body; a streamed answer is relayed as it comes', async () => {
  const w = { apiVersion: `${group}/${VERSION}`, kind: 'Widget', metadata: { name: 'w2' }, spec: { size: 1 } };
  const r = await t.client.request('POST', `/apis/${group}/${VERSION}/namespaces/${ns}/widgets`, { body: w });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json, { ...w, status: { seen: 'application/json' } });
  // kubectl create -f through discovery (no OpenAPI for the kind on either server: no client-side schema).
  const file = join(mkdtempSync(join(tmpdir(), 'aggregation-kubectl-')), 'w3.json');
  writeFileSync(file, JSON.stringify({ ...w, metadata: { name: 'w3', namespace: ns } }));
  assert.is((await kubectl.ok('create', '-f', file)).trim(), `widget.${group}/w3 created`);
  // The second event is written only after the first reached the client through the aggregator.
  const k = readKubeconfig(t.kubeconfig);
  const events: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const req = httpsRequest(`${t.url}/apis/${group}/${VERSION}/namespaces/${ns}/watchwidgets?watch=true`, { ca: k.ca, cert: k.cert, key: k.key, headers: k.token ? { authorization: `Bearer ${k.token}` } : {} }, (res) => {
      assert.is(res.statusCode, 200);
      let buf = '';
      res.on('data', (c: Buffer) => {
        buf += c.toString();
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          events.push(JSON.parse(buf.slice(0, i)).type);
          buf = buf.slice(i + 1);
          if (events.length === 1) releaseSecond!();
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(events, ['ADDED', 'DELETED']);
});

(external ? test.skip : test)('this server: a rotated front-proxy client pair is presented from the next connection on', async () => {
  const next = await issueCertificate(frontProxy!.ca, { cn: 'front-proxy' });
  // The key first: the pair is taken only once certificate and key match.
  writeFileSync(join(frontProxy!.dir, 'front-proxy-client.key'), next.keyPem);
  writeFileSync(join(frontProxy!.dir, 'front-proxy-client.crt'), next.certPem);
  await eventually('the new pair is presented', async () => {
    seen.length = 0;
    const r = await t.client.request('GET', `/apis/${group}/${VERSION}/namespaces/${ns}/widgets`);
    return r.status === 200 && seen.at(-1)?.clientCn === 'front-proxy';
  });
});

test('a second APIService on a ClusterIP Service without endpoints: EndpointsNotFound', async () => {
  let r = await t.client.request('POST', `/api/v1/namespaces/${ns}/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'no-endpoints' }, spec: { ports: [{ port: 443, name: 'https' }] } } });
  assert.is(r.status, 201, r.text);
  r = await t.client.request('POST', REG, { body: { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: `v1.${group}` }, spec: { group, version: 'v1', service: { namespace: ns, name: 'no-endpoints' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 2000, versionPriority: 20 } } });
  assert.is(r.status, 201, r.text);
  const c = await waitForReason(`v1.${group}`, 'EndpointsNotFound');
  assert.equal({ status: c.status, message: c.message }, { status: 'False', message: `cannot find endpoints for service/no-endpoints in "${ns}"` });
  // Proxying to an unavailable APIService: a plain-text 503 (once the proxy has the APIService).
  await eventually('the v1 proxy answers', async () => {
    r = await t.client.request('GET', `/apis/${group}/v1/namespaces/${ns}/widgets`);
    return r.status !== 404;
  });
  assert.is(r.status, 503);
  assert.is(r.headers['x-content-type-options'], 'nosniff');
  assert.is(r.text, 'service unavailable\n');
  assert.is(r.headers['content-type'], 'text/plain; charset=utf-8');
  // kubectl's discovery names the group version it could not read.
  const k = await kubectl.run('api-resources', `--api-group=${group}`);
  assert.is(k.code, 1);
  assert.match(k.stderr, `unable to retrieve the complete list of server APIs: ${group}/v1: the server is currently unable to handle the request`);
  // The group lists both versions, by versionPriority (v1: 20 first).
  const g = await t.client.request('GET', `/apis/${group}`);
  assert.equal(g.json.versions.map((v: any) => v.version), ['v1', VERSION]);
  assert.is(g.json.preferredVersion.version, 'v1');
  r = await t.client.request('DELETE', `${REG}/v1.${group}`);
  assert.is(r.status, 200, r.text);
});

test('the backend down: proxy errors, then FailedDiscoveryCheck and 503 service unavailable', async () => {
  await stopBackend();
  let r = await t.client.request('GET', `/apis/${group}/${VERSION}/namespaces/${ns}/widgets`);
  assert.is(r.status, 503);
  assert.is(r.text, `error trying to reach service: dial tcp 127.0.0.1:${backendPort}: connect: connection refused\n`);
  await touchService('agg-backend', '1');
  const c = await waitForReason(apiServiceName, 'FailedDiscoveryCheck');
  assert.equal({ status: c.status, message: c.message }, { status: 'False', message: `failing or missing response from https://127.0.0.1:${backendPort}/apis/${group}/${VERSION}: Get "https://127.0.0.1:${backendPort}/apis/${group}/${VERSION}": dial tcp 127.0.0.1:${backendPort}: connect: connection refused` });
  // (kube's proxy learns the condition from its own informer, a moment after the write)
  await eventually('the proxy sees the APIService unavailable', async () => {
    r = await t.client.request('GET', `/apis/${group}/${VERSION}/namespaces/${ns}/widgets`);
    return r.text === 'service unavailable\n';
  });
  assert.is(r.status, 503);
  // kubectl shows the condition.
  const out = await kubectl.ok('get', 'apiservice', apiServiceName);
  assert.match(out, new RegExp(`${apiServiceName.replace(/\./g, '\\.')}\\s+${ns}/agg-backend\\s+False \\(FailedDiscoveryCheck\\)`));
  // Back up: Available again after the next check.
  await listen();
  await touchService('agg-backend', '2');
  await waitForReason(apiServiceName, 'Passed');
});

test('the Service deleted: ServiceNotFound; the APIService deleted: gone from discovery', async () => {
  let r = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/services/agg-backend`);
  assert.is(r.status, 200, r.text);
  const c = await waitForReason(apiServiceName, 'ServiceNotFound');
  assert.equal({ status: c.status, message: c.message }, { status: 'False', message: `service/agg-backend in "${ns}" is not present` });
  r = await t.client.request('DELETE', `${REG}/${apiServiceName}`);
  assert.is(r.status, 200, r.text);
  await eventually('group gone from /apis', async () => {
    const apis = await t.client.request('GET', '/apis');
    return !apis.json.groups.some((g: any) => g.name === group);
  });
  await eventually('the proxy forgets the APIService', async () => {
    r = await t.client.request('GET', `/apis/${group}/${VERSION}`);
    return r.status === 404;
  });
  r = await t.client.request('GET', `/apis/${group}`);
  assert.is(r.status, 404);
});

test.run();
