/**
 * Dynamic admission webhooks through real requests, with a real HTTPS webhook server on loopback
 * (its own CA, trusted through caBundle): mutation by JSONPatch, denial with the webhook's code
 * and message, warnings, failurePolicy Ignore/Fail on unreachable and slow webhooks,
 * namespace/object selectors, AdmissionReview v1beta1, dry run, reinvocation, validating webhooks
 * seeing the mutated object, configuration changes taking effect on the next request, and the
 * configurations' own defaults and validation. Runs against the reference too (it reaches the
 * webhook on 127.0.0.1 by `url`):
 *
 *   node --import tsx test/run.ts test/fidelity/admission-webhooks.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/admission-webhooks.test.ts
 *
 * Every configuration is scoped to this run's namespaces (namespaceSelector) and to one case's
 * objects (objectSelector `case=<name>`), so cases do not see each other's webhooks and a shared
 * cluster is not disturbed; all are deleted at the end. kube-apiserver reads configurations
 * through an informer, so a new or deleted configuration is waited for (`until`) before the case
 * asserts; this server applies it on the next request.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:net';
import { startTarget, type Target } from '../target.ts';
import { startWebhookServer, allow, patch, deny, type WebhookServer } from '../webhook-server.ts';
import { kubectlFor } from '../kubectl-run.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, eventually } from '../harness.ts';
import { CRD_PATH, namespacedCRD, serveCRD } from '../crd-target.ts';

const AR = '/apis/admissionregistration.k8s.io/v1';
let t: Target;
let wh: WebhookServer;
let run: string;
let ns: string;
/** A second namespace of the run, labelled team=blue (namespaceSelector). */
let nsBlue: string;
const created: string[] = [];

test.before(async () => {
  t = await startTarget();
  run = t.ns('r');
  // The serving certificate also names the Service a `service` reference resolves to.
  wh = await startWebhookServer([`hook.${t.ns('wh')}.svc`]);
  ns = await t.createNamespace('wh');
  nsBlue = await t.createNamespace('whb');
  for (const [n, labels] of [
    [ns, { 'wh-run': run }],
    [nsBlue, { 'wh-run': run, team: 'blue' }],
  ] as const) {
    const r = await t.client.request('PATCH', `/api/v1/namespaces/${n}`, { raw: JSON.stringify({ metadata: { labels } }), contentType: 'application/merge-patch+json' });
    assert.is(r.status, 200, r.text);
  }
});
test.after(async () => {
  for (const path of created) await t.client.request('DELETE', path);
  await wh.close();
  await t.close();
});

type Json = Record<string, any>;

/** A webhook entry for one case: configmaps CREATE/UPDATE in this run's namespaces with label case=<name>. */
function hook(caseName: string, path: string, extra: Json = {}): Json {
  return {
    name: `${caseName}.wh.example.com`,
    clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    namespaceSelector: { matchLabels: { 'wh-run': run } },
    objectSelector: { matchLabels: { case: caseName } },
    timeoutSeconds: 5,
    ...extra,
  };
}

async function configure(type: 'mutating' | 'validating', name: string, webhooks: Json[]): Promise<Json> {
  const kind = type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
  const path = `${AR}/${type}webhookconfigurations`;
  const r = await t.client.request('POST', path, { body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: `${name}-${run}` }, webhooks } });
  assert.is(r.status, 201, r.text);
  created.push(`${path}/${name}-${run}`);
  return r.json;
}

async function unconfigure(type: 'mutating' | 'validating', name: string): Promise<void> {
  const path = `${AR}/${type}webhookconfigurations/${name}-${run}`;
  const r = await t.client.request('DELETE', path);
  assert.is(r.status, 200, r.text);
  created.splice(created.indexOf(path), 1);
}

function configMap(name: string, labels: Json, data: Json = { k: 'v' }): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data };
}

const createCm = (namespace: string, obj: Json, query = '') => t.client.request('POST', `/api/v1/namespaces/${namespace}/configmaps${query}`, { body: obj });

/** Wait until a dry-run create labelled case=<name> reaches the webhook at `path`. */
async function active(caseName: string, path: string, namespace = ns): Promise<void> {
  let i = 0;
  await eventually(`${caseName} active`, async () => {
    const before = wh.on(path).length;
    await createCm(namespace, configMap(`probe-${caseName}-${i++}`, { case: caseName }), '?dryRun=All');
    return wh.on(path).length > before;
  });
}

const warningsOf = (h: Json): string[] => {
  const w = h.warning;
  return w === undefined ? [] : Array.isArray(w) ? w : [w];
};

test('a mutating webhook patches the object; its warning reaches the client; the review carries kube’s request fields', async () => {
  wh.handle('/mutate', (rv) =>
    patch(rv, [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }], { warnings: ['mutating webhook says hi'], auditAnnotations: { seen: 'yes' } }),
  );
  await configure('mutating', 'mutate', [hook('mutate', '/mutate')]);
  await active('mutate', '/mutate');
  const r = await createCm(ns, configMap('m1', { case: 'mutate' }), '?fieldManager=tester');
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.metadata.labels, { case: 'mutate', mutated: 'yes' });
  assert.equal(warningsOf(r.headers), ['299 - "mutating webhook says hi"']);
  const got = wh.on('/mutate').at(-1)!;
  assert.is(got.query, 'timeout=5s');
  const rv = got.review;
  assert.is(rv.apiVersion, 'admission.k8s.io/v1');
  assert.is(rv.kind, 'AdmissionReview');
  const q = rv.request;
  assert.equal(Object.keys(q), ['uid', 'kind', 'resource', 'requestKind', 'requestResource', 'name', 'namespace', 'operation', 'userInfo', 'object', 'oldObject', 'dryRun', 'options']);
  assert.equal(q.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
  assert.equal(q.resource, { group: '', version: 'v1', resource: 'configmaps' });
  assert.equal(q.requestKind, q.kind);
  assert.equal(q.requestResource, q.resource);
  assert.is(q.name, 'm1');
  assert.is(q.namespace, ns);
  assert.is(q.operation, 'CREATE');
  assert.ok(q.userInfo.username);
  assert.is(q.oldObject, null);
  assert.is(q.dryRun, false);
  assert.equal(q.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'tester' });
  // Mutating webhooks run before the server names the uid and the creation time.
  assert.is(q.object.metadata.uid, undefined);
  assert.is(q.object.metadata.creationTimestamp, null, 'a zero metav1.Time encodes as null');
  if (process.env.DUMP_REVIEW) console.log(JSON.stringify(rv));
  assert.equal(q.object.metadata.labels, { case: 'mutate' });
  assert.equal(q.object.data, { k: 'v' });

  // generateName: webhooks see the object before it is named.
  const g = await createCm(ns, { ...configMap('', { case: 'mutate' }), metadata: { generateName: 'gen-', labels: { case: 'mutate' } } });
  assert.is(g.status, 201, g.text);
  assert.match(g.json.metadata.name, /^gen-[a-z0-9]{5}$/);
  assert.equal(g.json.metadata.labels, { case: 'mutate', mutated: 'yes' });
  const gq = wh.on('/mutate').at(-1)!.review.request;
  assert.is(gq.name, undefined);
  assert.equal([gq.object.metadata.name, gq.object.metadata.generateName], [undefined, 'gen-']);

  // UPDATE: the old object is sent too; the patch is applied again (the label was removed).
  const u = await t.client.request('PUT', `/api/v1/namespaces/${ns}/configmaps/m1`, { body: { ...r.json, metadata: { ...r.json.metadata, labels: { case: 'mutate' } } } });
  assert.is(u.status, 200, u.text);
  assert.equal(u.json.metadata.labels, { case: 'mutate', mutated: 'yes' });
  const uq = wh.on('/mutate').at(-1)!.review.request;
  assert.is(uq.operation, 'UPDATE');
  assert.equal(uq.oldObject.metadata.labels, { case: 'mutate', mutated: 'yes' });
  assert.equal(uq.options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
});

test('a denial answers the webhook’s code and message, prefixed as kube does; kubectl prints it', async () => {
  wh.handle('/deny', (rv) =>
    rv.request.name.startsWith('deny-') ? deny(rv, { code: 403, message: 'configmaps named deny-* are not allowed', reason: 'Forbidden' }) : allow(rv),
  );
  wh.handle('/deny-bare', (rv) => deny(rv, {}));
  // The configuration goes in with `kubectl apply`, as a person would install a webhook.
  const kubectl = kubectlFor(t.kubeconfig);
  const dir = tempDir('webhook-yaml-');
  const config = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: `deny-${run}` }, webhooks: [hook('deny', '/deny'), hook('denybare', '/deny-bare')] };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const applied = await kubectl.ok('apply', '-f', join(dir, 'config.json'));
  created.push(`${AR}/validatingwebhookconfigurations/deny-${run}`);
  assert.is(applied.trim(), `validatingwebhookconfiguration.admissionregistration.k8s.io/deny-${run} created`);
  // A second apply with a change patches the webhook in place (webhooks merge by name).
  config.webhooks[1]!.timeoutSeconds = 4;
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  assert.is((await kubectl.ok('apply', '-f', join(dir, 'config.json'))).trim(), `validatingwebhookconfiguration.admissionregistration.k8s.io/deny-${run} configured`);
  const got = await t.client.request('GET', `${AR}/validatingwebhookconfigurations/deny-${run}`);
  assert.equal([got.json.metadata.generation, got.json.webhooks.map((w: Json) => w.timeoutSeconds)], [2, [5, 4]]);
  const listed = await kubectl.ok('get', 'validatingwebhookconfigurations', `deny-${run}`);
  assert.match(listed, new RegExp(`^NAME\\s+WEBHOOKS\\s+AGE\\ndeny-${run}\\s+2\\s+\\d+s\\n$`));
  await active('deny', '/deny');
  const r = await createCm(ns, configMap('deny-1', { case: 'deny' }));
  assert.is(r.status, 403, r.text);
  assert.is(r.text.trim(), JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny.wh.example.com" denied the request: configmaps named deny-* are not allowed', reason: 'Forbidden', code: 403 }));
  const ok = await createCm(ns, configMap('fine-1', { case: 'deny' }));
  assert.is(ok.status, 201, ok.text);
  await active('denybare', '/deny-bare');
  const bare = await createCm(ns, configMap('bare-1', { case: 'denybare' }));
  assert.is(bare.status, 400, bare.text);
  assert.is(bare.text.trim(), JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "denybare.wh.example.com" denied the request without explanation', code: 400 }));

  // The denials are counted as kube counts them (the count includes the activation probes).
  const metrics = (await t.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } })).text;
  assert.match(metrics, /\napiserver_admission_webhook_rejection_count\{error_type="no_error",name="deny\.wh\.example\.com",operation="CREATE",rejection_code="403",type="validating"\} \d+\n/);
  assert.match(metrics, /\napiserver_admission_webhook_request_total\{code="403",name="deny\.wh\.example\.com",operation="CREATE",rejected="true",type="validating"\} \d+\n/);
  writeFileSync(join(dir, 'cm.json'), JSON.stringify(configMap('deny-2', { case: 'deny' })));
  const k = await kubectl.run('create', '-n', ns, '-f', join(dir, 'cm.json'));
  assert.is(k.code, 1, k.stdout);
  assert.is(k.stderr.trim(), `Error from server (Forbidden): error when creating "${join(dir, 'cm.json')}": admission webhook "deny.wh.example.com" denied the request: configmaps named deny-* are not allowed`);
});

test('validating webhooks see the object as mutated; the old object on update', async () => {
  wh.handle('/chain-mutate', (rv) => patch(rv, [{ op: 'add', path: '/metadata/annotations', value: { stamped: 'by-mutator' } }]));
  wh.handle('/chain-validate', (rv) =>
    rv.request.object.metadata.annotations?.stamped === 'by-mutator' ? allow(rv) : deny(rv, { code: 422, message: 'not stamped' }),
  );
  await configure('mutating', 'chain-m', [hook('chain', '/chain-mutate')]);
  await configure('validating', 'chain-v', [hook('chain', '/chain-validate')]);
  await active('chain', '/chain-validate');
  const r = await createCm(ns, configMap('c1', { case: 'chain' }));
  assert.is(r.status, 201, r.text);
  const v = wh.on('/chain-validate').at(-1)!.review.request;
  assert.equal(v.object.metadata.annotations, { stamped: 'by-mutator' });
  // The validating webhook runs after the server set the uid (kube: after BeforeCreate).
  assert.ok(v.object.metadata.uid);
});

test('a custom resource reaches mutating webhooks pruned and defaulted (kube decodes it first); a patched one is defaulted again', async () => {
  const group = `${run}.wh.example.com`;
  const crd = namespacedCRD(group, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' }, {
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 }, color: { type: 'string' }, extra: { type: 'object', default: {}, properties: { x: { type: 'string', default: 'y' } } } } } },
      },
    },
  });
  await serveCRD(t, crd);
  created.push(`${CRD_PATH}/${crd.metadata.name}`);
  wh.handle('/cr-mutate', (rv) => patch(rv, [{ op: 'replace', path: '/spec/extra', value: {} }]));
  await configure('mutating', 'cr', [hook('cr', '/cr-mutate', { rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['gadgets'] }] })]);
  const path = `/apis/${group}/v1/namespaces/${ns}/gadgets`;
  const gadget = (name: string) => ({ apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name, labels: { case: 'cr' } }, spec: { color: 'red', unknown: 1 } });
  let i = 0;
  await eventually('cr webhook active', async () => {
    const before = wh.on('/cr-mutate').length;
    await t.client.request('POST', `${path}?dryRun=All`, { body: gadget(`probe-${i++}`) });
    return wh.on('/cr-mutate').length > before;
  });
  const r = await t.client.request('POST', path, { body: gadget('g1') });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.spec, { color: 'red', extra: { x: 'y' }, size: 3 });
  const q = wh.on('/cr-mutate').at(-1)!.review.request;
  assert.equal(q.object.spec, { color: 'red', extra: { x: 'y' }, size: 3 });
});

test('failurePolicy: an unreachable or slow webhook fails the request under Fail and is skipped under Ignore', async () => {
  const closed = await freePort();
  const unreachable = { url: `https://127.0.0.1:${closed}/`, caBundle: wh.caBundle };
  wh.handle('/hang', () => 'hang');
  await configure('validating', 'fail', [
    hook('unreach-fail', '/', { clientConfig: unreachable }),
    hook('unreach-ignore', '/', { clientConfig: unreachable, failurePolicy: 'Ignore' }),
    hook('slow-fail', '/hang', { timeoutSeconds: 1 }),
    hook('slow-ignore', '/hang', { timeoutSeconds: 1, failurePolicy: 'Ignore' }),
  ]);
  await eventually('unreach-fail active', async () => (await createCm(ns, configMap('uf', { case: 'unreach-fail' }), '?dryRun=All')).status === 500);
  const r = await createCm(ns, configMap('uf', { case: 'unreach-fail' }));
  assert.is(r.status, 500, r.text);
  const msg = `failed calling webhook "unreach-fail.wh.example.com": failed to call webhook: Post "https://127.0.0.1:${closed}/?timeout=5s": dial tcp 127.0.0.1:${closed}: connect: connection refused`;
  assert.is(r.text.trim(), JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `Internal error occurred: ${msg}`, reason: 'InternalError', details: { causes: [{ message: msg }] }, code: 500 }));
  const ig = await createCm(ns, configMap('ui', { case: 'unreach-ignore' }));
  assert.is(ig.status, 201, ig.text);

  await active('slow-fail', '/hang');
  const started = Date.now();
  const slow = await createCm(ns, configMap('sf', { case: 'slow-fail' }));
  assert.ok(Date.now() - started < 4000, 'the 1 s timeout bounds the call');
  assert.is(slow.status, 500, slow.text);
  assert.is(slow.json.reason, 'InternalError');
  assert.is(slow.json.message, `Internal error occurred: failed calling webhook "slow-fail.wh.example.com": failed to call webhook: Post "${wh.url}/hang?timeout=1s": context deadline exceeded`);
  const si = await createCm(ns, configMap('si', { case: 'slow-ignore' }));
  assert.is(si.status, 201, si.text);
});

test('call failures: an untrusted certificate, an HTTP error answer, a Status error answer', async () => {
  wh.handle('/http500', () => ({ raw: { status: 500, body: 'boom' } }));
  wh.handle('/status403', () => ({ raw: { status: 403, body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'go away', reason: 'Forbidden', code: 403 }) } }));
  const other = await startWebhookServer();
  const otherCa = other.caBundle;
  await other.close();
  await configure('validating', 'callfail', [
    hook('untrusted', '/', { clientConfig: { url: `${wh.url}/`, caBundle: otherCa } }),
    hook('http500', '/http500'),
    hook('status403', '/status403'),
  ]);
  const messages: Record<string, string> = {};
  for (const c of ['untrusted', 'http500', 'status403']) {
    await eventually(`${c} active`, async () => {
      const r = await createCm(ns, configMap(`cf-${c}`, { case: c }), '?dryRun=All');
      messages[c] = r.json.message;
      return r.status === 500;
    });
  }
  const prefix = (name: string, path: string): string => `Internal error occurred: failed calling webhook "${name}.wh.example.com": failed to call webhook: Post "${wh.url}${path}?timeout=5s": `;
  assert.is(messages.untrusted, `${prefix('untrusted', '/')}tls: failed to verify certificate: x509: certificate signed by unknown authority`);
  // A non-Status answer: its text only when it is text/*, else "unknown" (client-go's rest client).
  assert.is(messages.http500, `Internal error occurred: failed calling webhook "http500.wh.example.com": failed to call webhook: an error on the server ("unknown") has prevented the request from succeeding`);
  assert.is(messages.status403, `Internal error occurred: failed calling webhook "status403.wh.example.com": failed to call webhook: go away`);
});

test('namespaceSelector picks namespaces by label; objectSelector matches the new or the old object', async () => {
  wh.handle('/blue', (rv) => deny(rv, { code: 403, message: `blue namespace ${rv.request.namespace}` }));
  await configure('validating', 'blue', [hook('blue', '/blue', { namespaceSelector: { matchLabels: { 'wh-run': run, team: 'blue' } } })]);
  await active('blue', '/blue', nsBlue);
  const before = wh.on('/blue').length;
  const other = await createCm(ns, configMap('b1', { case: 'blue' }));
  assert.is(other.status, 201, other.text);
  assert.is(wh.on('/blue').length, before, 'not called outside the selected namespace');
  const blue = await createCm(nsBlue, configMap('b1', { case: 'blue' }));
  assert.is(blue.status, 403, blue.text);
  assert.is(blue.json.message, `admission webhook "blue.wh.example.com" denied the request: blue namespace ${nsBlue}`);

  // objectSelector: an update that removes the label still matches (the old object has it).
  wh.handle('/objsel', (rv) => allow(rv));
  await configure('validating', 'objsel', [hook('objsel', '/objsel')]);
  await active('objsel', '/objsel');
  const c = await createCm(ns, configMap('o1', { case: 'objsel' }));
  assert.is(c.status, 201, c.text);
  const n = wh.on('/objsel').length;
  const u = await t.client.request('PUT', `/api/v1/namespaces/${ns}/configmaps/o1`, { body: { ...c.json, metadata: { ...c.json.metadata, labels: { other: 'x' } } } });
  assert.is(u.status, 200, u.text);
  assert.is(wh.on('/objsel').length, n + 1, 'called for the update that drops the label');
  const u2 = await t.client.request('PUT', `/api/v1/namespaces/${ns}/configmaps/o1`, { body: { ...u.json, data: { k: 'changed' } } });
  assert.is(u2.status, 200, u2.text);
  assert.is(wh.on('/objsel').length, n + 1, 'not called once neither object has the label');
});

test('admissionReviewVersions [v1beta1]: the review is sent as v1beta1 and a v1beta1 patch applies', async () => {
  wh.handle('/beta', (rv) => ({
    apiVersion: 'admission.k8s.io/v1beta1',
    response: { uid: rv.request.uid, allowed: true, patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/data/beta', value: 'yes' }])).toString('base64') },
  }));
  await configure('mutating', 'beta', [hook('beta', '/beta', { admissionReviewVersions: ['v1beta1', 'v1'] })]);
  await active('beta', '/beta');
  const r = await createCm(ns, configMap('v1b', { case: 'beta' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.data, { k: 'v', beta: 'yes' });
  assert.is(wh.on('/beta').at(-1)!.review.apiVersion, 'admission.k8s.io/v1beta1');
});

test('dry run: webhooks without side effects are called with dryRun true and nothing is stored', async () => {
  wh.handle('/dry', (rv) => patch(rv, [{ op: 'add', path: '/data/dry', value: String(rv.request.dryRun) }]));
  await configure('mutating', 'dry', [hook('dry', '/dry', { sideEffects: 'NoneOnDryRun' })]);
  await active('dry', '/dry');
  const r = await createCm(ns, configMap('d1', { case: 'dry' }), '?dryRun=All');
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.data, { k: 'v', dry: 'true' });
  const q = wh.on('/dry').at(-1)!.review.request;
  assert.is(q.dryRun, true);
  assert.equal(q.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
  const g = await t.client.request('GET', `/api/v1/namespaces/${ns}/configmaps/d1`);
  assert.is(g.status, 404);
});

test('reinvocationPolicy IfNeeded: a webhook runs again when a later one changed the object', async () => {
  // Configurations run in name order: reinv-a's webhook first, then reinv-b's.
  wh.handle('/reinv-a', (rv) => (rv.request.object.metadata.labels.a ? allow(rv) : patch(rv, [{ op: 'add', path: '/metadata/labels/a', value: 'yes' }])));
  wh.handle('/reinv-b', (rv) => (rv.request.object.metadata.labels.b ? allow(rv) : patch(rv, [{ op: 'add', path: '/metadata/labels/b', value: 'yes' }])));
  wh.handle('/never', (rv) => allow(rv));
  await configure('mutating', 'reinv-a', [hook('reinv', '/reinv-a', { reinvocationPolicy: 'IfNeeded' }), hook('reinv-never', '/never')]);
  await configure('mutating', 'reinv-b', [hook('reinv', '/reinv-b')]);
  await active('reinv', '/reinv-b');
  const a0 = wh.on('/reinv-a').length;
  const b0 = wh.on('/reinv-b').length;
  const r = await createCm(ns, configMap('ri', { case: 'reinv' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.metadata.labels, { case: 'reinv', a: 'yes', b: 'yes' });
  assert.is(wh.on('/reinv-a').length - a0, 2, 'the IfNeeded webhook ran twice');
  assert.is(wh.on('/reinv-b').length - b0, 1, 'the Never webhook ran once');
  const second = wh.on('/reinv-a').at(-1)!.review.request.object.metadata.labels;
  assert.equal(second, { case: 'reinv', a: 'yes', b: 'yes' }, 'the second round sees the later change');
});

test('a later webhook is matched against the object as earlier webhooks changed it', async () => {
  wh.handle('/relabel', (rv) => patch(rv, [{ op: 'add', path: '/metadata/labels/stage', value: `two-${run}` }]));
  wh.handle('/stage-two', (rv) => patch(rv, [{ op: 'add', path: '/data/stage', value: 'two' }]));
  await configure('mutating', 'relabel-1', [hook('relabel', '/relabel')]);
  await configure('mutating', 'relabel-2', [hook('stagetwo', '/stage-two', { objectSelector: { matchLabels: { stage: `two-${run}` } } })]);
  await active('relabel', '/stage-two');
  const r = await createCm(ns, configMap('rl', { case: 'relabel' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.data, { k: 'v', stage: 'two' });
});

test('a deleted configuration no longer applies; configurations are never sent to webhooks', async () => {
  wh.handle('/gone', (rv) => deny(rv, { code: 403, message: 'still here' }));
  await configure('validating', 'gone', [hook('gone', '/gone')]);
  await active('gone', '/gone');
  assert.is((await createCm(ns, configMap('g1', { case: 'gone' }))).status, 403);
  await unconfigure('validating', 'gone');
  await eventually('gone inactive', async () => (await createCm(ns, configMap('g1', { case: 'gone' }), '?dryRun=All')).status === 201);
  const r = await createCm(ns, configMap('g1', { case: 'gone' }));
  assert.is(r.status, 201, r.text);

  // A webhook that matches everything in admissionregistration.k8s.io is not asked about configurations.
  wh.handle('/meta', (rv) => deny(rv, { code: 403, message: 'no' }));
  await configure('validating', 'meta', [
    hook('meta', '/meta', { rules: [{ operations: ['*'], apiGroups: ['admissionregistration.k8s.io'], apiVersions: ['*'], resources: ['*'] }], namespaceSelector: {}, objectSelector: {} }),
  ]);
  const before = wh.on('/meta').length;
  await configure('validating', 'meta-2', [hook('meta2', '/x')]);
  assert.is(wh.on('/meta').length, before);
});

test('configurations: kube’s defaults, generation, and Webhooks column', async () => {
  const r = await t.client.request('POST', `${AR}/mutatingwebhookconfigurations`, {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: `defaults-${run}` },
      webhooks: [
        {
          name: 'defaults.wh.example.com',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { name: 'svc', namespace: ns } },
          rules: [{ operations: ['CREATE'], apiGroups: ['nothing.example.com'], apiVersions: ['v1'], resources: ['nothings'] }],
        },
      ],
    },
  });
  assert.is(r.status, 201, r.text);
  created.push(`${AR}/mutatingwebhookconfigurations/defaults-${run}`);
  assert.is(r.json.metadata.generation, 1);
  assert.equal(r.json.webhooks[0], {
    name: 'defaults.wh.example.com',
    clientConfig: { service: { namespace: ns, name: 'svc', port: 443 } },
    rules: [{ operations: ['CREATE'], apiGroups: ['nothing.example.com'], apiVersions: ['v1'], resources: ['nothings'], scope: '*' }],
    failurePolicy: 'Fail',
    matchPolicy: 'Equivalent',
    namespaceSelector: {},
    objectSelector: {},
    sideEffects: 'None',
    timeoutSeconds: 10,
    admissionReviewVersions: ['v1'],
    reinvocationPolicy: 'Never',
  });
  const p = await t.client.request('PATCH', `${AR}/mutatingwebhookconfigurations/defaults-${run}`, { raw: JSON.stringify([{ op: 'replace', path: '/webhooks/0/timeoutSeconds', value: 3 }]), contentType: 'application/json-patch+json' });
  assert.is(p.status, 200, p.text);
  assert.is(p.json.metadata.generation, 2);
  const table = await t.client.request('GET', `${AR}/mutatingwebhookconfigurations/defaults-${run}`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  assert.equal(
    table.json.columnDefinitions.map((c: Json) => [c.name, c.type]),
    [
      ['Name', 'string'],
      ['Webhooks', 'integer'],
      ['Age', 'string'],
    ],
  );
  assert.equal(table.json.rows[0].cells.slice(0, 2), [`defaults-${run}`, 1]);
});

test('a service reference: an ExternalName Service is dialled at its name, with the TLS name <svc>.<ns>.svc', async () => {
  const svc = await t.client.request('POST', `/api/v1/namespaces/${ns}/services`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { type: 'ExternalName', externalName: 'localhost' } },
  });
  assert.is(svc.status, 201, svc.text);
  wh.handle('/by-service', (rv) => patch(rv, [{ op: 'add', path: '/data/via', value: 'service' }]));
  await configure('mutating', 'svc', [hook('svc', '', { clientConfig: { service: { namespace: ns, name: 'hook', path: '/by-service', port: wh.port }, caBundle: wh.caBundle } })]);
  await active('svc', '/by-service');
  const r = await createCm(ns, configMap('s1', { case: 'svc' }));
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.data, { k: 'v', via: 'service' });

  // The certificate must name <service>.<namespace>.svc.
  const other = await t.client.request('POST', `/api/v1/namespaces/${ns}/services`, {
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'other' }, spec: { type: 'ExternalName', externalName: 'localhost' } },
  });
  assert.is(other.status, 201, other.text);
  await configure('validating', 'svc-name', [hook('svcname', '', { clientConfig: { service: { namespace: ns, name: 'other', port: wh.port }, caBundle: wh.caBundle } })]);
  let misnamed: Json = {};
  await eventually('svc-name active', async () => {
    const p = await createCm(ns, configMap('s3', { case: 'svcname' }), '?dryRun=All');
    misnamed = p.json;
    return p.status === 500;
  });
  const names = wh.certNames.join(', ');
  assert.is(misnamed.message, `Internal error occurred: failed calling webhook "svcname.wh.example.com": failed to call webhook: Post "https://other.${ns}.svc:${wh.port}/?timeout=5s": tls: failed to verify certificate: x509: certificate is valid for ${names}, not other.${ns}.svc`);

  // A Service that does not exist fails the call (failurePolicy Fail: 500).
  await configure('validating', 'svc-missing', [hook('svcmissing', '', { clientConfig: { service: { namespace: ns, name: 'nothing', port: wh.port }, caBundle: wh.caBundle } })]);
  let last: Json = {};
  await eventually('svc-missing active', async () => {
    const p = await createCm(ns, configMap('s2', { case: 'svcmissing' }), '?dryRun=All');
    last = p.json;
    return p.status === 500;
  });
  assert.is(last.message, `Internal error occurred: failed calling webhook "svcmissing.wh.example.com": failed to call webhook: Post "https://nothing.${ns}.svc:${wh.port}/?timeout=5s": service "nothing" not found`);
});

test('matchPolicy: Equivalent calls a webhook for another version of the resource, in the version it asked for; Exact does not', async () => {
  wh.handle('/equiv', (rv) => allow(rv));
  wh.handle('/exact', (rv) => allow(rv));
  const rule = [{ operations: ['CREATE'], apiGroups: ['storage.k8s.io'], apiVersions: ['v1'], resources: ['csistoragecapacities'] }];
  await configure('validating', 'equiv', [
    hook('equiv', '/equiv', { rules: rule, objectSelector: { matchLabels: { case: 'equiv' } } }),
    hook('exact', '/exact', { rules: rule, matchPolicy: 'Exact', objectSelector: { matchLabels: { case: 'equiv' } } }),
  ]);
  const body = (name: string, version: string): Json => ({ apiVersion: `storage.k8s.io/${version}`, kind: 'CSIStorageCapacity', metadata: { name, labels: { case: 'equiv' } }, storageClassName: 'sc' });
  const csc = (version: string) => `/apis/storage.k8s.io/${version}/namespaces/${ns}/csistoragecapacities`;
  let i = 0;
  await eventually('equiv active', async () => {
    const before = wh.on('/equiv').length;
    await t.client.request('POST', `${csc('v1')}?dryRun=All`, { body: body(`probe-${i++}`, 'v1') });
    return wh.on('/equiv').length > before;
  });
  const e0 = wh.on('/equiv').length;
  const x0 = wh.on('/exact').length;
  const r = await t.client.request('POST', csc('v1beta1'), { body: body('c1', 'v1beta1') });
  assert.is(r.status, 201, r.text);
  assert.is(wh.on('/exact').length, x0, 'Exact: not called for v1beta1');
  assert.is(wh.on('/equiv').length, e0 + 1, 'Equivalent: called for v1beta1');
  const q = wh.on('/equiv').at(-1)!.review.request;
  assert.equal(q.kind, { group: 'storage.k8s.io', version: 'v1', kind: 'CSIStorageCapacity' });
  assert.equal(q.resource, { group: 'storage.k8s.io', version: 'v1', resource: 'csistoragecapacities' });
  assert.equal(q.requestKind, { group: 'storage.k8s.io', version: 'v1beta1', kind: 'CSIStorageCapacity' });
  assert.equal(q.requestResource, { group: 'storage.k8s.io', version: 'v1beta1', resource: 'csistoragecapacities' });
  assert.is(q.object.apiVersion, 'storage.k8s.io/v1');
});

test('a Namespace is matched by namespaceSelector on its own labels; pods/status-style subresource rules', async () => {
  wh.handle('/ns', (rv) => deny(rv, { code: 403, message: `namespace ${rv.request.name}` }));
  await configure('validating', 'nssel', [
    hook('nssel', '/ns', {
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces'] }],
      namespaceSelector: { matchLabels: { 'wh-ns': run } },
      objectSelector: {},
    }),
  ]);
  const nsBody = (name: string, labels: Json): Json => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  let i = 0;
  await eventually('nssel active', async () => (await t.client.request('POST', '/api/v1/namespaces?dryRun=All', { body: nsBody(`${run}-p${i++}`, { 'wh-ns': run }) })).status === 403);
  const denied = await t.client.request('POST', '/api/v1/namespaces', { body: nsBody(`${run}-n1`, { 'wh-ns': run }) });
  assert.is(denied.status, 403, denied.text);
  assert.is(denied.json.message, `admission webhook "nssel.wh.example.com" denied the request: namespace ${run}-n1`);
  const other = await t.client.request('POST', '/api/v1/namespaces?dryRun=All', { body: nsBody(`${run}-n2`, { other: 'x' }) });
  assert.is(other.status, 201, other.text);

  // A rule naming namespaces/status matches status writes only.
  wh.handle('/ns-status', (rv) => deny(rv, { code: 403, message: `${rv.request.subResource} of ${rv.request.name}` }));
  await configure('validating', 'nsstatus', [
    hook('nsstatus', '/ns-status', {
      rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['namespaces/status'] }],
      namespaceSelector: { matchLabels: { 'wh-run': run } },
      objectSelector: {},
    }),
  ]);
  const cur = await t.client.request('GET', `/api/v1/namespaces/${ns}`);
  await eventually('nsstatus active', async () => (await t.client.request('PUT', `/api/v1/namespaces/${ns}/status?dryRun=All`, { body: cur.json })).status === 403);
  const st = await t.client.request('PUT', `/api/v1/namespaces/${ns}/status`, { body: cur.json });
  assert.is(st.status, 403, st.text);
  assert.is(st.json.message, `admission webhook "nsstatus.wh.example.com" denied the request: status of ${ns}`);
  const q = wh.on('/ns-status').at(-1)!.review.request;
  assert.is(q.subResource, 'status');
  assert.is(q.requestSubResource, 'status');
  const main = await t.client.request('PUT', `/api/v1/namespaces/${ns}?dryRun=All`, { body: cur.json });
  assert.is(main.status, 200, main.text);
});

test('answers kube refuses: a bad uid or a validating patch (500 under Fail); an invalid mutation fails validation (422); warnings survive a denial', async () => {
  wh.handle('/bad-uid', (rv) => ({ response: { uid: 'not-the-uid', allowed: true } }));
  wh.handle('/val-patch', (rv) => patch(rv, [{ op: 'add', path: '/data/x', value: 'y' }]));
  wh.handle('/bad-label', (rv) => patch(rv, [{ op: 'add', path: '/metadata/labels/bad', value: 'not a valid label!' }]));
  wh.handle('/warn-deny', (rv) => deny(rv, { code: 409, message: 'conflicting' }));
  wh.handle('/warn-first', (rv) => allow(rv, { warnings: ['first warning', 'second warning'] }));
  wh.handle('/bad-patch', (rv) => patch(rv, [{ op: 'add', path: '/data/x', value: 'y' }]));
  await configure('mutating', 'answers-m', [hook('badlabel', '/bad-label'), hook('warndeny', '/warn-first'), hook('badpatch', '/bad-patch')]);
  await configure('validating', 'answers-v', [hook('baduid', '/bad-uid'), hook('valpatch', '/val-patch'), hook('warndeny', '/warn-deny')]);
  await active('baduid', '/bad-uid');
  const uid = await createCm(ns, configMap('u1', { case: 'baduid' }));
  assert.is(uid.status, 500, uid.text);
  const sent = wh.on('/bad-uid').at(-1)!.review.request.uid;
  assert.is(uid.json.message, `Internal error occurred: failed calling webhook "baduid.wh.example.com": received invalid webhook response: expected response.uid="${sent}", got "not-the-uid"`);
  const vp = await createCm(ns, configMap('v1', { case: 'valpatch' }));
  assert.is(vp.status, 500, vp.text);
  assert.is(vp.json.message, 'Internal error occurred: failed calling webhook "valpatch.wh.example.com": received invalid webhook response: validating webhook may not return response.patch');
  const bl = await createCm(ns, configMap('l1', { case: 'badlabel' }));
  assert.is(bl.status, 422, bl.text);
  assert.equal(
    bl.json.details.causes.map((c: Json) => c.field),
    ['metadata.labels'],
  );
  const bp = await createCm(ns, { ...configMap('p1', { case: 'badpatch' }), data: undefined });
  assert.is(bp.status, 500, bp.text);
  assert.is(bp.json.message, 'Internal error occurred: add operation does not apply: doc is missing path: "/data/x": missing value');
  const wd = await createCm(ns, configMap('w1', { case: 'warndeny' }));
  assert.is(wd.status, 409, wd.text);
  assert.is(wd.json.message, 'admission webhook "warndeny.wh.example.com" denied the request: conflicting');
  assert.equal(warningsOf(wd.headers), ['299 - "first warning"', '299 - "second warning"']);
});

test('DELETE: validating webhooks get the object being deleted as oldObject, with DeleteOptions', async () => {
  wh.handle('/del', (rv) => (rv.request.oldObject?.metadata?.labels?.keep === 'yes' ? deny(rv, { code: 403, message: 'kept' }) : allow(rv)));
  await configure('validating', 'del', [hook('del', '/del', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
  const keep = await createCm(ns, configMap('keep', { case: 'del', keep: 'yes' }));
  assert.is(keep.status, 201, keep.text);
  const go = await createCm(ns, configMap('go', { case: 'del' }));
  assert.is(go.status, 201, go.text);
  await eventually('del active', async () => (await t.client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/keep?dryRun=All`)).status === 403);
  const k = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/keep`, { body: { propagationPolicy: 'Background' } });
  assert.is(k.status, 403, k.text);
  const q = wh.on('/del').at(-1)!.review.request;
  assert.is(q.operation, 'DELETE');
  assert.is(q.object, null);
  assert.is(q.oldObject.metadata.name, 'keep');
  assert.equal(q.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' });
  const g = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/go`);
  assert.is(g.status, 200, g.text);
});

test('DELETE: mutating webhooks are asked too, on the object being deleted', async () => {
  wh.handle('/mdel', (rv) => (rv.request.name.startsWith('ok') ? allow(rv) : deny(rv, { code: 403, message: `keep ${rv.request.name}` })));
  await configure('mutating', 'mdel', [hook('mdel', '/mdel', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }], objectSelector: {} })]);
  const secret = (name: string): Json => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name } });
  for (const n of ['ok-1', 'no-1']) assert.is((await t.client.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: secret(n) })).status, 201);
  await eventually('mdel active', async () => (await t.client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/no-1?dryRun=All`)).status === 403);
  const no = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/no-1`);
  assert.is(no.status, 403, no.text);
  assert.is(no.json.message, 'admission webhook "mdel.wh.example.com" denied the request: keep no-1');
  const q = wh.on('/mdel').at(-1)!.review.request;
  assert.equal([q.operation, q.name, q.object, q.oldObject.metadata.name], ['DELETE', 'no-1', null, 'no-1']);
  assert.equal(q.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
  assert.is((await t.client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/ok-1`)).status, 200);
  // Asked once the object is read: a missing object is a 404, the webhook is not called.
  const calls = wh.on('/mdel').length;
  const missing = await t.client.request('DELETE', `/api/v1/namespaces/${ns}/secrets/no-such`);
  assert.is(missing.status, 404, missing.text);
  assert.is(wh.on('/mdel').length, calls);
});

/** Bad configurations and kube's 422 causes, exactly as kube-apiserver 1.24 words them. */
const INVALID: { name: string; webhook: Json; causes: [string, string][] }[] = [
  {
    name: 'missing',
    webhook: { name: 'x', clientConfig: {} },
    causes: [
      ['webhooks[0].name', 'Invalid value: "x": should be a domain with at least three segments separated by dots'],
      ['webhooks[0].sideEffects', 'Required value: must specify one of None, NoneOnDryRun'],
      ['webhooks[0].clientConfig', 'Required value: exactly one of url or service is required'],
      ['webhooks[0].admissionReviewVersions', 'Required value: must specify one of v1, v1beta1'],
    ],
  },
  {
    name: 'enums',
    webhook: {
      name: 'a.b.c',
      sideEffects: 'Some',
      failurePolicy: 'Maybe',
      matchPolicy: 'Close',
      timeoutSeconds: 31,
      admissionReviewVersions: ['v2', 'v2'],
      clientConfig: { url: 'http://user:pw@example.com/x?q=1#frag' },
      rules: [{ operations: ['*', 'CREATE', 'PATCH'], apiGroups: ['*', 'apps'], apiVersions: ['', '*'], resources: ['*/*', 'pods'], scope: 'Galaxy' }],
    },
    causes: [
      ['webhooks[0].rules[0].operations', 'Invalid value: []admissionregistration.OperationType{"*", "CREATE", "PATCH"}: if \'*\' is present, must not specify other operations'],
      ['webhooks[0].rules[0].operations[2]', 'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"'],
      ['webhooks[0].rules[0].apiGroups', 'Invalid value: []string{"*", "apps"}: if \'*\' is present, must not specify other API groups'],
      ['webhooks[0].rules[0].apiVersions', 'Invalid value: []string{"", "*"}: if \'*\' is present, must not specify other API versions'],
      ['webhooks[0].rules[0].apiVersions[0]', 'Required value'],
      ['webhooks[0].rules[0].resources', 'Invalid value: []string{"*/*", "pods"}: if \'*/*\' is present, must not specify other resources'],
      ['webhooks[0].rules[0].scope', 'Unsupported value: "Galaxy": supported values: "*", "Cluster", "Namespaced"'],
      ['webhooks[0].failurePolicy', 'Unsupported value: "Maybe": supported values: "Fail", "Ignore"'],
      ['webhooks[0].matchPolicy', 'Unsupported value: "Close": supported values: "Equivalent", "Exact"'],
      ['webhooks[0].sideEffects', 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
      ['webhooks[0].timeoutSeconds', 'Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
      ['webhooks[0].clientConfig.url', "Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]"],
      ['webhooks[0].clientConfig.url', 'Invalid value: "user:pw": user information is not permitted in the URL'],
      ['webhooks[0].clientConfig.url', 'Invalid value: "frag": fragments are not permitted in the URL'],
      ['webhooks[0].clientConfig.url', 'Invalid value: "q=1": query parameters are not permitted in the URL'],
      ['webhooks[0].admissionReviewVersions[1]', 'Invalid value: "v2": duplicate version'],
      ['webhooks[0].admissionReviewVersions', 'Invalid value: []string{"v2", "v2"}: must include at least one of v1, v1beta1'],
    ],
  },
  {
    name: 'service',
    webhook: {
      name: 'a.b.c',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: { service: { name: '', namespace: '', port: 0, path: 'no//Slash' }, url: undefined },
      namespaceSelector: { matchExpressions: [{ key: 'k', operator: 'In' }] },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods/*', 'pods/status', '*/x', 'a/x'] }],
    },
    causes: [
      ['webhooks[0].rules[0].resources[1]', "Invalid value: \"pods/status\": if 'pods/*' is present, must not specify pods/status"],
      ['webhooks[0].rules[0].resources[3]', "Invalid value: \"a/x\": if '*/x' is present, must not specify a/x"],
      ['webhooks[0].namespaceSelector.matchExpressions[0].values', "Required value: must be specified when `operator` is 'In' or 'NotIn'"],
      ['webhooks[0].clientConfig.service.name', 'Required value: service name is required'],
      ['webhooks[0].clientConfig.service.namespace', 'Required value: service namespace is required'],
      ['webhooks[0].clientConfig.service.port', 'Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive'],
      ['webhooks[0].clientConfig.service.path', 'Invalid value: "no//Slash": must start with a \'/\''],
      ['webhooks[0].clientConfig.service.path', 'Invalid value: "no//Slash": segment[1] may not be empty'],
      ['webhooks[0].clientConfig.service.path', "Invalid value: \"no//Slash\": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ],
  },
];

test('invalid configurations: kube’s 422 causes, for both kinds', async () => {
  for (const [i, c] of INVALID.entries()) {
    for (const type of ['validating', 'mutating'] as const) {
      const kind = type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
      const name = `bad-${c.name}-${run}`;
      const r = await t.client.request('POST', `${AR}/${type}webhookconfigurations`, {
        body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: [c.webhook, { ...c.webhook }] },
      });
      assert.is(r.status, 422, `case ${i} ${type}: ${r.text}`);
      // The second webhook repeats the first: its errors again, plus a duplicate name.
      const one = c.causes.map(([field, message]) => ({ field, message }));
      const two = one.map((x) => ({ field: x.field.replace('webhooks[0]', 'webhooks[1]'), message: x.message }));
      const dup = [{ field: 'webhooks[1].name', message: `Duplicate value: "${c.webhook.name}"` }];
      const want = [...one, ...two, ...dup];
      const got = r.json.details.causes.map((x: Json) => ({ field: x.field, message: x.message }));
      assert.equal(got, want, `case ${i} ${type}`);
      assert.is(r.json.details.kind, kind, `case ${i}`);
      assert.is(r.json.details.group, 'admissionregistration.k8s.io', `case ${i}`);
    }
  }
});

/** A loopback port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as import('node:net').AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

test.run();
