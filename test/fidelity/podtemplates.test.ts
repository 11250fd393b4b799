/**
 * PodTemplate (core/v1) as kube-apiserver 1.24 serves it: the template's PodSpec defaults (no
 * Pod-level ones), ValidatePodTemplateSpec's messages under `template`, generation set on create
 * and bumped only when the template changes, delete returning the object, the Table
 * (printPodTemplate: Name, Containers, Images, Pod Labels), Protobuf, and the e2e PodTemplates
 * lifecycle (create, get, patch a label, list by label, delete by collection).
 *
 *   node --import tsx test/run.ts test/fidelity/podtemplates.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/fidelity/podtemplates.test.ts
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { show } from '../assertions.ts';
import { body, invalidStatus, namespacedSuite, protobufRoundTrip, same, table, type Cause } from './storage-helpers.ts';

const S = namespacedSuite(test, 'podtemplate', 'podtemplates');

const podTemplate = (name: string, template: Record<string, unknown>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name, ...(labels ? { labels } : {}) },
  template,
});
const post = (b: unknown) => S.t.client.request('POST', S.C, { body: b });

const invalid = (name: string, causes: Cause[]) => invalidStatus('PodTemplate', name, causes, '');

const defaultedContainer = (name: string, image: string, pull: string) => ({
  image,
  imagePullPolicy: pull,
  name,
  resources: {},
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
});

test('create: PodSpec defaults on the template (no Pod-level ones), generation 1, template metadata with creationTimestamp null', async () => {
  const r = await post(podTemplate('full', { metadata: { labels: { b: '2', a: '1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }, { name: 'd', image: 'busybox:1' }] } }));
  assert.is(r.status, 201, show(r));
  const g = await S.t.client.request('GET', `${S.C}/full`);
  same(
    body(g, S.names),
    {
      kind: 'PodTemplate',
      apiVersion: 'v1',
      metadata: { name: 'full', namespace: '<ns>', uid: '<uid>', resourceVersion: '<rv>', generation: 1, creationTimestamp: '<time>' },
      template: {
        metadata: { creationTimestamp: null, labels: { a: '1', b: '2' } },
        spec: {
          containers: [defaultedContainer('c', 'nginx', 'Always'), defaultedContainer('d', 'busybox:1', 'IfNotPresent')],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
    },
    'get',
    g,
  );
  const e = await post(podTemplate('empty', {}));
  assert.is(e.status, 422, show(e));
  same(body(e, S.names), invalid('empty', [['FieldValueRequired', 'template.spec.containers', 'Required value']]), 'empty template', e);
});

test('create: ValidatePodTemplateSpec rejections under template, nothing stored', async () => {
  const r = await post(podTemplate('bad', { metadata: { labels: { '-x': '1' } }, spec: { restartPolicy: 'Sometimes', containers: [], ephemeralContainers: [{ name: 'e', image: 'x' }] } }));
  same(
    body(r, S.names),
    invalid('bad', [
      [
        'FieldValueInvalid',
        'template.labels',
        `Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
      ['FieldValueRequired', 'template.spec.containers', 'Required value'],
      ['FieldValueNotSupported', 'template.spec.restartPolicy', 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
      ['FieldValueForbidden', 'template.spec.ephemeralContainers', 'Forbidden: ephemeral containers not allowed in pod template'],
    ]),
    'invalid template',
    r,
  );
  assert.is((await S.t.client.request('GET', `${S.C}/bad`)).status, 404, 'nothing stored');
});

test('update: generation bumps only on a template change; an invalid template is refused', async () => {
  const c = await post(podTemplate('gen', { spec: { containers: [{ name: 'c', image: 'nginx:1' }] } }));
  assert.is(c.status, 201, show(c));
  const merge = (b: unknown) => S.t.client.request('PATCH', `${S.C}/gen`, { body: b, contentType: 'application/merge-patch+json' });
  const l = await merge({ metadata: { labels: { x: 'y' }, generation: 7 } });
  assert.is(l.status, 200, show(l));
  assert.is((l.json as any).metadata.generation, 1, 'a label change keeps generation');
  const u = await merge({ template: { metadata: { labels: { app: 'a' } } } });
  assert.is(u.status, 200, show(u));
  assert.is((u.json as any).metadata.generation, 2, 'a template change bumps it');
  const bad = await S.t.client.request('PATCH', `${S.C}/gen`, {
    body: [{ op: 'replace', path: '/template/spec/containers/0/image', value: '' }],
    contentType: 'application/json-patch+json',
  });
  same(body(bad, S.names), invalid('gen', [['FieldValueRequired', 'template.spec.containers[0].image', 'Required value']]), 'invalid update', bad);
});

test('Table as printPodTemplate; delete returns the object; the e2e lifecycle (label patch, list by label, deletecollection)', async () => {
  const tb = await table(S.t, `${S.C}/full`);
  assert.equal(tb.columns, [
    ['Name', 'string', 'name', 0],
    ['Containers', 'string', '', 0],
    ['Images', 'string', '', 0],
    ['Pod Labels', 'string', '', 0],
  ]);
  assert.equal(tb.rows, [['full', 'c,d', 'nginx,busybox:1', 'a=1,b=2']]);
  assert.equal((await table(S.t, `${S.C}/gen`)).rows, [['gen', 'c', 'nginx:1', 'app=a']]);
  for (const n of ['e2e-a', 'e2e-b']) assert.is((await post(podTemplate(n, { spec: { containers: [{ name: 'n', image: 'nginx' }] } }, { 'podtemplate-static': 'true' }))).status, 201);
  const l = await S.t.client.request('GET', `${S.C}?labelSelector=podtemplate-static%3Dtrue`);
  assert.equal((l.json as any).items.map((i: any) => i.metadata.name), ['e2e-a', 'e2e-b'], show(l));
  assert.is((l.json as any).kind, 'PodTemplateList');
  const dc = await S.t.client.request('DELETE', `${S.C}?labelSelector=podtemplate-static%3Dtrue`);
  assert.is(dc.status, 200, show(dc));
  assert.is((await S.t.client.request('GET', `${S.C}?labelSelector=podtemplate-static%3Dtrue`)).json.items.length, 0);
  const d = await S.t.client.request('DELETE', `${S.C}/gen`);
  assert.is(d.status, 200, show(d));
  assert.is((d.json as any).kind, 'PodTemplate', show(d));
  assert.is((d.json as any).metadata.name, 'gen');
});

test('Protobuf round trip', async () => {
  await protobufRoundTrip(S.t, `${S.C}/full`);
});

test.run();
