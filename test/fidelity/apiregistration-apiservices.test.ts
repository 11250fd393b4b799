/**
 * APIService (apiregistration.k8s.io/v1) as kube-apiserver 1.24 serves it: the local APIServices
 * it registers for every group version it serves (automanaged `onstart`, kube's priorities,
 * Available/Local), the ones a CustomResourceDefinition's group versions get (automanaged "true",
 * 1000/100; gone with the CRD), create with kube's defaults and validation messages, /status, the
 * Table (Name, Service, Available), discovery and Protobuf.
 *
 *   node --import tsx test/run.ts test/fidelity/apiregistration-apiservices.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/apiregistration-apiservices.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { normalize } from '../target.ts';
import { body, clusterSuite, invalidStatus, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const GROUP = 'apiregistration.k8s.io';
const C = `/apis/${GROUP}/v1/apiservices`;
// A local APIService of a group nothing serves is listed in /apis: none may outlive a failed run
// (registered first: it runs before the suite's own hook closes the target).
test.after(async () => {
  for (const x of ['local', 'remote']) await S.t.client.request('DELETE', `${C}/v1.${S.n(x)}.example.com`);
});
const S = clusterSuite(test, C, []);
const LABEL = 'kube-aggregator.kubernetes.io/automanaged';
const local = { type: 'Available', status: 'True', lastTransitionTime: '<time>', reason: 'Local', message: 'Local APIServices are always available' };

async function until<T>(get: () => Promise<T>, ok: (x: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const x = await get();
    if (ok(x) || Date.now() > end) return x;
    await new Promise((r) => setTimeout(r, 250));
  }
}

test('every served group version has its local APIService (onstart, kube\'s priorities, Available)', async () => {
  const groups = (await S.t.client.request('GET', '/apis')).json as any;
  const gvs = [['', 'v1'], ...groups.groups.flatMap((g: any) => g.versions.map((v: any) => [g.name, v.version]))].filter(([g]) => g !== GROUP && !g.startsWith('wtst-'));
  const list = (await S.t.client.request('GET', C)).json as any;
  const byName = new Map<string, any>(list.items.map((i: any) => [i.metadata.name, i]));
  for (const [g, v] of gvs) {
    const a = byName.get(`${v}.${g}`);
    assert.ok(a, `no APIService ${v}.${g}`);
    if (a.metadata.labels?.[LABEL] === 'true') continue; // a custom resource group of another suite
    assert.equal(a.metadata.labels, { [LABEL]: 'onstart' }, a.metadata.name);
    assert.equal(normalize(a.status), { conditions: [local] }, a.metadata.name);
  }
  assert.equal(byName.get('v1.').spec, { groupPriorityMinimum: 18000, version: 'v1', versionPriority: 1 });
  assert.equal(byName.get('v1.apps').spec, { group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  assert.equal(byName.get('v1beta2.flowcontrol.apiserver.k8s.io').spec, { group: 'flowcontrol.apiserver.k8s.io', version: 'v1beta2', groupPriorityMinimum: 16100, versionPriority: 15 });
  assert.equal(byName.get('v1beta1.events.k8s.io').spec, { group: 'events.k8s.io', version: 'v1beta1', groupPriorityMinimum: 17750, versionPriority: 5 });
  assert.not.ok(byName.has(`v1.${GROUP}`), 'no APIService for the aggregator\'s own group');
});

test('create: a local APIService is Available at once; service port defaults to 443; rejections with kube messages', async () => {
  const name = `v1.${S.n('local')}.example.com`;
  const c = await S.post({ apiVersion: `${GROUP}/v1`, kind: 'APIService', metadata: { name }, spec: { group: `${S.n('local')}.example.com`, version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } });
  assert.is(c.status, 201, show(c));
  same(body(c, S.names), {
    kind: 'APIService', apiVersion: `${GROUP}/v1`,
    metadata: { name: 'v1.wtst-local.example.com', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>' },
    spec: { group: 'wtst-local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
    status: { conditions: [local] },
  }, 'local', c);
  const bad: [Record<string, unknown>, string, Cause[]][] = [
    [{ group: 'example.com', version: 'v1', groupPriorityMinimum: 0, versionPriority: 1001 }, 'v2.example.com', [
      ['FieldValueInvalid', 'metadata.name', 'Invalid value: "v2.example.com": must be `spec.version+"."+spec.group`: "v1.example.com"'],
      ['FieldValueInvalid', 'spec.groupPriorityMinimum', 'Invalid value: 0: must be positive and less than 20000'],
      ['FieldValueInvalid', 'spec.versionPriority', 'Invalid value: 1001: must be positive and less than 1000'],
    ]],
    [{ version: 'v2', groupPriorityMinimum: 1, versionPriority: 1, caBundle: 'AAAA', insecureSkipTLSVerify: true }, 'v2.', [
      ['FieldValueRequired', 'spec.group', 'Required value: only v1 may have an empty group and it better be legacy kube'],
      ['FieldValueInvalid', 'spec.caBundle', 'Invalid value: "3 bytes": local APIServices may not have a caBundle'],
      ['FieldValueInvalid', 'spec.insecureSkipTLSVerify', 'Invalid value: true: local APIServices may not have insecureSkipTLSVerify'],
    ]],
    [{ group: 'Bad_Group', version: 'V1', groupPriorityMinimum: 1, versionPriority: 1, service: { port: 70000 }, caBundle: 'AAAA', insecureSkipTLSVerify: true }, 'V1.Bad_Group', [
      ['FieldValueInvalid', 'spec.group', `Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`],
      ['FieldValueInvalid', 'spec.version', `Invalid value: "V1": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`],
      ['FieldValueRequired', 'spec.service.namespace', 'Required value'],
      ['FieldValueRequired', 'spec.service.name', 'Required value'],
      ['FieldValueInvalid', 'spec.service.port', 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive'],
      ['FieldValueInvalid', 'spec.insecureSkipTLSVerify', 'Invalid value: true: may not be true if caBundle is present'],
    ]],
  ];
  for (const [spec, n, causes] of bad) {
    const r = await S.post({ apiVersion: `${GROUP}/v1`, kind: 'APIService', metadata: { name: n }, spec });
    same(body(r, S.names), invalidStatus('APIService', n, causes, GROUP), JSON.stringify(spec), r);
  }
  // A remote one: no condition yet (the availability controller's), port 443.
  const remote = `v1.${S.n('remote')}.example.com`;
  const rc = await S.post({ apiVersion: `${GROUP}/v1`, kind: 'APIService', metadata: { name: remote }, spec: { group: `${S.n('remote')}.example.com`, version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, insecureSkipTLSVerify: true, service: { namespace: 'default', name: 'nowhere' } } });
  assert.is(rc.status, 201, show(rc));
  assert.equal((rc.json as any).spec.service, { namespace: 'default', name: 'nowhere', port: 443 });
  // /status keeps the spec and labels.
  const st = await S.t.client.request('PATCH', `${C}/${remote}/status`, {
    body: { metadata: { labels: { a: 'b' } }, spec: { versionPriority: 11 }, status: { conditions: [{ type: 'Available', status: 'False', reason: 'Nope', message: 'm' }] } },
    contentType: 'application/merge-patch+json',
  });
  assert.is(st.status, 200, show(st));
  assert.is((st.json as any).spec.versionPriority, 10);
  assert.is((st.json as any).metadata.labels, undefined);
  const badStatus = await S.t.client.request('PATCH', `${C}/${remote}/status`, { body: { status: { conditions: [{ type: 'Available', status: 'Maybe' }] } }, contentType: 'application/merge-patch+json' });
  same(body(badStatus, S.names), invalidStatus('APIService', 'v1.wtst-remote.example.com', [['FieldValueNotSupported', 'status.conditions[0].status', 'Unsupported value: "Maybe": supported values: "True", "False", "Unknown"']], GROUP), 'status', badStatus);
  const tb = await table(S.t, C);
  assert.equal(tb.columns, [['Name', 'string', 'name', 0], ['Service', 'string', '', 0], ['Available', 'string', '', 0], ['Age', 'string', '', 0]]);
  assert.equal(tb.descriptions.slice(1, 3), ['The reference to the service that hosts this API endpoint.', 'Whether this service is available.']);
  assert.equal(tb.rows.find((r) => r[0] === 'v1.apps'), ['v1.apps', 'Local', 'True']);
  // kube's availability controller soon says why (False (ServiceNotFound)); this server has none yet.
  const row = tb.rows.find((r) => r[0] === remote)!;
  assert.equal(row.slice(0, 2), [remote, 'default/nowhere']);
  assert.match(String(row[2]), /^False \(\w+\)$/);
  await protobufRoundTrip(S.t, `${C}/v1.apps`);
  await protobufRoundTrip(S.t, `${C}/${remote}`);
  for (const n of [name, remote]) assert.is((await S.t.client.request('DELETE', `${C}/${n}`)).status, 200);
});

test('a CustomResourceDefinition\'s group version gets its APIService (automanaged "true", 1000/100), kept while the CRD is', async () => {
  const group = `${S.n('crd')}.example.com`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `widgets.${group}` },
    spec: { group, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
  };
  const c = await S.t.client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
  assert.is(c.status, 201, show(c));
  const path = `${C}/v1.${group}`;
  const a = await until(() => S.t.client.request('GET', path), (r) => r.status === 200);
  assert.is(a.status, 200, show(a));
  same(body(a, S.names), {
    kind: 'APIService', apiVersion: `${GROUP}/v1`,
    metadata: { name: 'v1.wtst-crd.example.com', uid: '<uid>', resourceVersion: '<rv>', creationTimestamp: '<time>', labels: { [LABEL]: 'true' } },
    spec: { group: 'wtst-crd.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 },
    status: { conditions: [local] },
  }, 'crd apiservice', a);
  // Deleted, it comes back; the CRD deleted, it goes.
  assert.is((await S.t.client.request('DELETE', path)).status, 200);
  const back = await until(() => S.t.client.request('GET', path), (r) => r.status === 200);
  assert.is(back.status, 200, show(back));
  assert.is((await S.t.client.request('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.${group}`)).status, 200);
  const gone = await until(() => S.t.client.request('GET', path), (r) => r.status === 404, 30_000);
  assert.is(gone.status, 404, show(gone));
});

test('discovery: apiservices with its category and storage version hash', async () => {
  const r = await S.t.client.request('GET', `/apis/${GROUP}/v1`);
  assert.is(
    r.text.trim(),
    `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"${GROUP}/v1","resources":[` +
      '{"name":"apiservices","singularName":"","namespaced":false,"kind":"APIService","verbs":["create","delete","deletecollection","get","list","patch","update","watch"],"categories":["api-extensions"],"storageVersionHash":"InPBPD7+PqM="},' +
      '{"name":"apiservices/status","singularName":"","namespaced":false,"kind":"APIService","verbs":["get","patch","update"]}]}',
  );
});

test.run();
