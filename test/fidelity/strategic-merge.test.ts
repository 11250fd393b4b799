/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) over HTTP, and through the
 * kubectl commands that send it (apply, patch, edit), as kube-apiserver 1.24 answers: lists merge
 * by their patch merge key (Service ports by `port`, Pod containers by `name`, finalizers as a
 * set), lists without a strategy are replaced (Endpoints subsets), the `$patch`, `$retainKeys`,
 * `$setElementOrder` and `$deleteFromPrimitiveList` directives, and the errors of malformed
 * patches with their status codes. Every assertion is on the whole object (managedFields aside) or
 * the whole Status. Runs on this server and, with TEST_KUBECONFIG, on the reference.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTarget, normalize, type Target } from '../target.ts';
import { KUBECTL, kubectlFor, kubectlVersion, runCommand, type Kubectl } from '../kubectl-run.ts';
import { show } from '../assertions.ts';
import type { HttpResult } from '../harness.ts';

const SMP = 'application/strategic-merge-patch+json';

let t: Target;
let k: Kubectl;
let ns: string;
let nsName: string;
let hasKubectl = false;

test.before(async () => {
  t = await startTarget();
  k = kubectlFor(t.kubeconfig);
  hasKubectl = (await kubectlVersion()) !== null;
  ns = await t.createNamespace('smp');
  nsName = t.ns('smp-ns');
  if (t.reference) {
    const r = await t.client.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } } });
    if (r.status !== 201 && r.status !== 409) throw new Error(`service account: ${show(r)}`);
  }
});
test.after(async () => {
  // Finalizers this suite sets, also when a test failed half way (the reference keeps objects).
  for (const cm of ['applied', 'conv']) await t.client.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/${cm}`, { body: { metadata: { finalizers: null } }, contentType: SMP });
  await t.client.request('PATCH', `/api/v1/namespaces/${nsName}`, { body: { metadata: { finalizers: null } }, contentType: SMP });
  await t.client.request('DELETE', `/api/v1/namespaces/${nsName}`);
  await t.client.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

const path = (resource: string, name = ''): string => `/api/v1/namespaces/${ns}/${resource}${name ? `/${name}` : ''}`;
const patch = (p: string, body: unknown): Promise<HttpResult> => t.client.request('PATCH', p, { body, contentType: SMP });

/** The body without managedFields, normalized (uid, times, resourceVersion, namespace). */
function body(r: HttpResult): any {
  const j = structuredClone(r.json);
  if (j?.metadata?.managedFields) delete j.metadata.managedFields;
  return normalize(j, { [ns]: 'NS', [nsName]: 'NSNAME' });
}

/** The whole object, in kube's field order. */
function expectObject(r: HttpResult, want: unknown, label: string): void {
  assert.is(r.status, 200, `${label}: ${show(r)}`);
  assert.is(JSON.stringify(body(r)), JSON.stringify(want), label);
}

/** The whole Status body of a failed patch. */
function expectStatus(r: HttpResult, code: number, message: string, reason?: string, details?: unknown): void {
  const want: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
  if (reason) want.reason = reason;
  if (details) want.details = details;
  want.code = code;
  assert.is(r.status, code, show(r));
  assert.is(JSON.stringify(r.json), JSON.stringify(want), message);
}

const meta = (name: string, extra: Record<string, unknown> = {}) => ({ name, namespace: 'NS', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', ...extra });

const headless = (name: string, ports: unknown[]) => ({
  kind: 'Service',
  apiVersion: 'v1',
  metadata: meta(name),
  spec: {
    ports,
    selector: { app: 'a' },
    clusterIP: 'None',
    clusterIPs: ['None'],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
});
const tcp = (name: string, port: number, targetPort: number) => ({ name, protocol: 'TCP', port, targetPort });

test('Service ports merge by port: one port patched, the others kept; $patch delete; new ports first', async () => {
  const c = await t.client.request('POST', path('services'), {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ports' }, spec: { clusterIP: 'None', selector: { app: 'a' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }] } },
  });
  assert.is(c.status, 201, show(c));
  const S = path('services', 'ports');
  expectObject(await patch(S, { spec: { ports: [{ port: 443, targetPort: 9443 }] } }), headless('ports', [tcp('http', 80, 8080), tcp('https', 443, 9443)]), 'one port changed');
  expectObject(
    await patch(S, { spec: { ports: [{ port: 80, $patch: 'delete' }, { name: 'dns', port: 53, protocol: 'UDP' }] } }),
    headless('ports', [{ name: 'dns', protocol: 'UDP', port: 53, targetPort: 53 }, tcp('https', 443, 9443)]),
    'delete one, add one',
  );
  // kubectl apply's shape: $setElementOrder fixes the order of the merged list.
  expectObject(
    await patch(S, { spec: { '$setElementOrder/ports': [{ port: 443 }, { port: 8080 }, { port: 53 }], ports: [{ name: 'alt', port: 8080 }] } }),
    headless('ports', [tcp('https', 443, 9443), tcp('alt', 8080, 8080), { name: 'dns', protocol: 'UDP', port: 53, targetPort: 53 }]),
    '$setElementOrder',
  );
  expectObject(await patch(S, { spec: { ports: [{ name: 'only', port: 1 }, { $patch: 'replace' }] } }), headless('ports', [tcp('only', 1, 1)]), '$patch replace in the list');
});

test('Service: malformed merge-list items are 500s with strategicpatch messages', async () => {
  const c = await t.client.request('POST', path('services'), {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad' }, spec: { clusterIP: 'None', selector: { app: 'a' }, ports: [{ name: 'http', port: 80 }] } },
  });
  assert.is(c.status, 201, show(c));
  const S = path('services', 'bad');
  expectStatus(await patch(S, { spec: { ports: [{ targetPort: 1 }] } }), 500, 'map: map[targetPort:1] does not contain declared merge key: port');
  expectStatus(await patch(S, { spec: { ports: [{ port: 80, $patch: 'merge' }] } }), 500, 'merging lists cannot yet be specified in the patch');
  expectStatus(await patch(S, { spec: { ports: [{ port: 80, $patch: 'explode' }] } }), 500, 'unknown patch type: explode in map: map[$patch:explode port:80]');
  expectStatus(await patch(S, { spec: { ports: [{ port: 80 }, 'x'] } }), 500, 'list element types are not identical: [[map[name:http port:80 protocol:TCP targetPort:80]] [map[port:80] x]]');
  expectStatus(
    await patch(S, { spec: { '$setElementOrder/ports': [{ port: 81 }], ports: [{ port: 80 }] } }),
    500,
    "The order in patch list:\n[map[port:80]]\n doesn't match $setElementOrder list:\n[map[port:81]]\n",
  );
  const g = await t.client.request('GET', S);
  expectObject(g, headless('bad', [tcp('http', 80, 80)]), 'nothing written');
});

test('Endpoints subsets have no patch strategy: replaced as a whole', async () => {
  const c = await t.client.request('POST', path('endpoints'), {
    body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'e' }, subsets: [{ addresses: [{ ip: '10.1.0.1' }], ports: [{ name: 'a', port: 80 }] }, { addresses: [{ ip: '10.1.0.2' }], ports: [{ name: 'b', port: 81 }] }] },
  });
  assert.is(c.status, 201, show(c));
  expectObject(
    await patch(path('endpoints', 'e'), { metadata: { labels: { l: 'v' } }, subsets: [{ addresses: [{ ip: '10.1.0.3' }], ports: [{ name: 'a', port: 80 }] }] }),
    { kind: 'Endpoints', apiVersion: 'v1', metadata: meta('e', { labels: { l: 'v' } }), subsets: [{ addresses: [{ ip: '10.1.0.3' }], ports: [{ name: 'a', port: 80, protocol: 'TCP' }] }] },
    'subsets replaced',
  );
});

test('ConfigMap data: keys merge, null deletes, $patch replace / delete, $retainKeys; directive errors are 400s', async () => {
  const c = await t.client.request('POST', path('configmaps'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: '1' } }, data: { a: '1', b: '2', c: '3' } } });
  assert.is(c.status, 201, show(c));
  const C = path('configmaps', 'cm');
  const cm = (data: Record<string, string> | undefined, labels: Record<string, string> | null = { a: '1' }) => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: meta('cm', labels ? { labels } : {}), ...(data ? { data } : {}) });
  expectObject(await patch(C, { metadata: { labels: { b: '2' } }, data: { b: null, d: '4' } }), cm({ a: '1', c: '3', d: '4' }, { a: '1', b: '2' }), 'merge and null');
  expectObject(await patch(C, { data: { $retainKeys: ['a', 'e'], e: '5' } }), cm({ a: '1', e: '5' }, { a: '1', b: '2' }), '$retainKeys');
  expectObject(await patch(C, { data: { $patch: 'replace', z: '26' } }), cm({ z: '26' }, { a: '1', b: '2' }), '$patch replace');
  expectStatus(await patch(C, { data: { $retainKeys: ['a'], b: 'x' } }), 400, 'invalid patch format of retainKeys', 'BadRequest');
  expectStatus(await patch(C, { data: { $retainKeys: 'a' } }), 400, 'invalid patch format of retainKeys', 'BadRequest');
  expectStatus(await patch(C, { metadata: { $deleteFromPrimitiveList: ['x'] } }), 400, 'invalid patch format of primitive list', 'BadRequest');
  expectStatus(await patch(C, { '$setElementOrderX/data': [] }), 400, 'invalid patch format of setElementOrder list', 'BadRequest');
  expectStatus(await patch(C, { '$setElementOrder/nope': [] }), 500, 'unable to find api field in struct ConfigMap for the json field "nope"');
  expectStatus(await patch(C, { '$setElementOrder/binaryData': [] }), 500, 'expected slice or array type, but got: struct');
  expectStatus(await patch(C, { metadata: { '$setElementOrder/labels': [] } }), 500, 'expected a []interface {}, but received a map[string]interface {}');
  expectObject(await patch(C, { metadata: { labels: { $patch: 'delete' } }, data: { $patch: 'delete' } }), cm(undefined, null), '$patch delete');
});

test('a patch that leaves the object without a name is a 400 (root $patch directives, metadata.name: null)', async () => {
  const c = await t.client.request('POST', path('configmaps'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'root' }, data: { a: '1' } } });
  assert.is(c.status, 201, show(c));
  const C = path('configmaps', 'root');
  const nameless = 'the name of the object (root based on URL) was undeterminable: name must be provided';
  for (const p of [{ $patch: 'delete' }, { $patch: 'replace', data: { b: '2' } }, { metadata: { name: null } }, { metadata: { name: '' } }]) {
    expectStatus(await patch(C, p), 400, nameless, 'BadRequest');
  }
  const m = await t.client.request('PATCH', C, { body: { metadata: { name: null } }, contentType: 'application/merge-patch+json' });
  expectStatus(m, 400, nameless, 'BadRequest');
  expectObject(
    await patch(C, { $patch: 'replace', metadata: { name: 'root' }, data: { b: '2' } }),
    { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'root', namespace: 'NS', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' }, data: { b: '2' } },
    'root $patch replace with the name',
  );
});

test('a result that does not convert into the Go type: 422 naming the patch as the merge left it', async () => {
  const c = await t.client.request('POST', path('configmaps'), { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'conv', labels: { a: 'b' }, finalizers: ['x.io/a'] }, data: { a: '1' } } });
  assert.is(c.status, 201, show(c));
  const s = await t.client.request('POST', path('services'), { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv' }, spec: { clusterIP: 'None', selector: { a: 'b' }, ports: [{ port: 80 }] } } });
  assert.is(s.status, 201, show(s));
  const cases: Array<[string, unknown, string, string]> = [
    ['configmaps', { data: { a: { b: 1 } } }, 'map[data:map[a:map[b:1]]]', 'unrecognized type: string'],
    ['configmaps', { metadata: { labels: { a: 1 } } }, 'map[metadata:map[labels:map[a:1]]]', 'cannot convert int64 to string'],
    ['configmaps', { data: [1] }, 'map[data:[1]]', 'cannot restore map from slice'],
    ['configmaps', { immutable: 'yes' }, 'map[immutable:yes]', 'unrecognized type: bool'],
    ['configmaps', { binaryData: { a: 'not base64!' } }, 'map[binaryData:map[a:not base64!]]', 'error decoding from json: illegal base64 data at input byte 3'],
    // The merge consumed $retainKeys, $setElementOrder and the list it ordered: kube prints what is left.
    ['configmaps', { metadata: { $retainKeys: ['name', 'namespace', 'labels', 'finalizers', 'uid', 'resourceVersion', 'creationTimestamp'], labels: null }, data: { a: { b: 1 } } }, 'map[data:map[a:map[b:1]] metadata:map[labels:<nil>]]', 'unrecognized type: string'],
    ['configmaps', { metadata: { '$setElementOrder/finalizers': ['x.io/b', 'x.io/a'], finalizers: ['x.io/b'] }, data: { q: true } }, 'map[data:map[q:true] metadata:map[]]', 'unrecognized type: string'],
    ['services', { spec: { ports: [{ port: 'x' }] } }, 'map[spec:map[ports:[map[port:x]]]]', 'unrecognized type: int32'],
    ['services', { spec: { type: 5 } }, 'map[spec:map[type:5]]', 'cannot convert int64 to v1.ServiceType'],
    ['services', { spec: 'x' }, 'map[spec:x]', 'cannot restore struct from: string'],
    ['services', { spec: { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 1.5 } } } }, 'map[spec:map[sessionAffinity:ClientIP sessionAffinityConfig:map[clientIP:map[timeoutSeconds:1.5]]]]', 'cannot convert float64 to int32'],
    ['services', { spec: { ports: [{ port: 80, targetPort: 1.5 }] } }, 'map[spec:map[ports:[map[port:80 targetPort:1.5]]]]', 'json: cannot unmarshal number 1.5 into Go value of type int32'],
    ['services', { metadata: { creationTimestamp: 'bad' } }, 'map[metadata:map[creationTimestamp:bad]]', 'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'],
  ];
  for (const [resource, p, printed, why] of cases) {
    const r = await patch(path(resource, 'conv'), p);
    const body = `Invalid value: ${JSON.stringify(printed)}: ${why}`;
    expectStatus(r, 422, ` "" is invalid: patch: ${body}`, 'Invalid', { causes: [{ reason: 'FieldValueInvalid', message: body, field: 'patch' }] });
  }
  await patch(path('configmaps', 'conv'), { metadata: { finalizers: null } });
});

test('Namespace metadata.finalizers merge as a set; kubectl apply removes one with $deleteFromPrimitiveList', async () => {
  const c = await t.client.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: nsName, finalizers: ['example.com/a'] } } });
  assert.is(c.status, 201, show(c));
  const N = `/api/v1/namespaces/${nsName}`;
  const nsObj = (finalizers: string[] | undefined) => ({
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: { name: 'NSNAME', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', labels: { 'kubernetes.io/metadata.name': 'NSNAME' }, ...(finalizers ? { finalizers } : {}) },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  expectObject(await patch(N, { metadata: { finalizers: ['example.com/b', 'example.com/c'] } }), nsObj(['example.com/b', 'example.com/c', 'example.com/a']), 'union, patch items first');
  expectObject(await patch(N, { metadata: { finalizers: ['example.com/a'] } }), nsObj(['example.com/b', 'example.com/c', 'example.com/a']), 'an item already there keeps its place');
  expectObject(
    await patch(N, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/b'], '$setElementOrder/finalizers': ['example.com/c', 'example.com/a'] } }),
    nsObj(['example.com/c', 'example.com/a']),
    '$deleteFromPrimitiveList with $setElementOrder',
  );
  expectObject(await patch(N, { metadata: { finalizers: null } }), nsObj(undefined), 'null removes the list');
});

test('Pod containers merge by name: one container patched, the other kept; env by name', async () => {
  const c = await t.client.request('POST', path('pods'), {
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: {
        serviceAccountName: 'default',
        automountServiceAccountToken: false,
        containers: [
          { name: 'a', image: 'nginx:1.25', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] },
          { name: 'b', image: 'busybox:1.36' },
        ],
      },
    },
  });
  assert.is(c.status, 201, show(c));
  const created = body(c);
  const P = path('pods', 'p');
  const r = await patch(P, { metadata: { labels: { x: 'y' } }, spec: { containers: [{ name: 'b', image: 'busybox:1.37' }] } });
  const want = structuredClone(created);
  want.metadata.labels = { x: 'y' };
  want.spec.containers[1].image = 'busybox:1.37';
  expectObject(r, want, 'image of b');
  // env is merged by name (changing it is then refused by Pod update validation, after the merge:
  // the 422 shows that both env entries are still there).
  const e = await patch(P, { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }] } });
  assert.is(e.status, 422, show(e));
  assert.ok(String(e.json.message).startsWith(`Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than`), show(e));
  const g = await t.client.request('GET', P);
  expectObject(g, want, 'nothing written');
});

/** kubectl apply -f of a manifest written to a temporary file. */
async function apply(manifest: unknown): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'smp-apply-'));
  const f = join(dir, 'm.json');
  writeFileSync(f, JSON.stringify(manifest));
  await k.ok('apply', '-f', f);
}

test('kubectl apply twice with a changed list element, then kubectl patch and kubectl edit', async () => {
  if (!hasKubectl) {
    if (process.env.CI === 'true') assert.unreachable('kubectl not found');
    return;
  }
  const manifest = (ports: unknown[], data: Record<string, string>) => [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'applied', namespace: ns }, spec: { clusterIP: 'None', selector: { app: 'a' }, ports } },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: ns, finalizers: ['example.com/x', 'example.com/y'] }, data },
  ];
  const first = manifest([{ name: 'http', port: 80, targetPort: 8080 }, { name: 'https', port: 443, targetPort: 8443 }], { a: '1', b: '2' });
  for (const m of first) await apply(m);
  // kubectl records the manifest as Go marshals a map: keys sorted.
  const sorted = (v: unknown): unknown => (Array.isArray(v) ? v.map(sorted) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((x) => [x, sorted((v as any)[x])])) : v);
  const lastApplied = (m: any) => ({
    'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify(sorted(normalize({ ...m, metadata: { annotations: {}, ...m.metadata } }, { [ns]: 'NS' })))}\n`,
  });
  // Someone else adds a port the manifest does not have: apply keeps it.
  const afterFirst: any = headless('applied', [tcp('extra', 9000, 9000), tcp('http', 80, 8080), tcp('https', 443, 8443)]);
  afterFirst.metadata = meta('applied', { annotations: lastApplied(first[0]) });
  expectObject(await patch(path('services', 'applied'), { spec: { ports: [{ name: 'extra', port: 9000 }] } }), afterFirst, 'another writer');
  const second = manifest([{ name: 'https', port: 443, targetPort: 9443 }, { name: 'metrics', port: 9100 }], { a: '1', c: '3' });
  second[1]!.metadata.finalizers = ['example.com/y'];
  for (const m of second) await apply(m);
  const svc = await t.client.request('GET', path('services', 'applied'));
  // The port only the live object has stays first (the patch's $setElementOrder does not list it).
  const svcWant: any = headless('applied', [tcp('extra', 9000, 9000), tcp('https', 443, 9443), tcp('metrics', 9100, 9100)]);
  svcWant.metadata = meta('applied', { annotations: lastApplied(second[0]) });
  expectObject(svc, svcWant, 'service after the second apply');
  const cm = await t.client.request('GET', path('configmaps', 'applied'));
  const cmWant = { kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1', c: '3' }, metadata: meta('applied', { annotations: lastApplied(second[1]), finalizers: ['example.com/y'] }) };
  expectObject(cm, { kind: 'ConfigMap', apiVersion: 'v1', metadata: cmWant.metadata, data: cmWant.data }, 'configmap after the second apply');

  // kubectl patch (strategic by default) of one port.
  await k.ok('-n', ns, 'patch', 'service', 'applied', '-p', JSON.stringify({ spec: { ports: [{ port: 9000, targetPort: 9001 }] } }));
  svcWant.spec.ports[0] = tcp('extra', 9000, 9001);
  expectObject(await t.client.request('GET', path('services', 'applied')), svcWant, 'after kubectl patch');

  // kubectl edit of one port's targetPort (the editor is sed).
  const env = { ...k.env, KUBE_EDITOR: `sed -i -e 's/"targetPort": 9443/"targetPort": 9444/'` };
  const r = await runCommand(KUBECTL, ['--kubeconfig', t.kubeconfig, '-n', ns, 'edit', 'service', 'applied', '-o', 'json'], { env });
  assert.is(r.code, 0, `kubectl edit: ${r.stdout}\n${r.stderr}`);
  svcWant.spec.ports[1] = tcp('https', 443, 9444);
  expectObject(await t.client.request('GET', path('services', 'applied')), svcWant, 'after kubectl edit');

  // Clean up the finalizer so the namespace can go.
  await patch(path('configmaps', 'applied'), { metadata: { finalizers: null } });
});

test.run();
