/**
 * CustomResourceDefinitions in Protobuf (apiextensions.k8s.io/v1 has go-to-protobuf messages, and
 * kube-apiserver 1.24 serves CRDs as `application/vnd.kubernetes.protobuf`): a CRD whose schema
 * has JSON values (default, enum, example), items and additionalProperties as schemas, and the
 * x-kubernetes-* extensions is created from a Protobuf body,
 * read back in Protobuf — the bytes are what our encoder makes of the JSON answer, and they decode
 * to it — and listed in Protobuf. Runs on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { bytesClient, dropNulls, type BytesClient } from '../bytes-client.ts';
import { eventually } from '../harness.ts';
import { PROTOBUF, encodeProtobuf, decodeProtobuf } from '../../internal/http/protobuf.ts';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
let t: Target;
let client: BytesClient;
let G: string;

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      description: 'the spec',
      required: ['a'],
      properties: {
        a: { type: 'string', default: 'x', enum: ['x', 'y'], pattern: '^x', maxLength: 3, minLength: 0, format: 'hostname', nullable: true },
        n: { type: 'number', maximum: 1.5, exclusiveMaximum: true, minimum: 0, multipleOf: 0.5 },
        l: { type: 'array', items: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } }, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], maxItems: 4, minItems: 0 },
        m: { type: 'object', additionalProperties: { type: 'integer' }, 'x-kubernetes-map-type': 'granular', maxProperties: 2 },
        ios: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        e: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        o: { type: 'object', default: {}, example: { z: 1 }, properties: { z: { type: 'integer', default: 3 } }, externalDocs: { url: 'https://x.example.com', description: 'd' }, title: 't' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
    status: { type: 'object', additionalProperties: false },
  },
};

const crd = () => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `things.${G}`, labels: { a: 'b' } },
  spec: {
    group: G,
    names: { plural: 'things', kind: 'Thing', shortNames: ['th'], categories: ['all'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: schema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.r', statusReplicasPath: '.status.r' } },
        additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a', priority: 1 }],
      },
      { name: 'v2', served: false, storage: false, deprecated: true, deprecationWarning: 'old', schema: { openAPIV3Schema: { type: 'object' } } },
    ],
    conversion: {
      strategy: 'Webhook',
      webhook: { clientConfig: { service: { namespace: 'default', name: 'svc', path: '/convert' }, caBundle: Buffer.from('not a CA').toString('base64') }, conversionReviewVersions: ['v1'] },
    },
  },
});

test.before(async () => {
  t = await startTarget();
  G = `${t.ns('pb')}.example.com`;
  client = bytesClient(t.kubeconfig);
});

test.after(async () => {
  await t.client.request('DELETE', `${CRDS}/things.${G}`);
  await client?.close();
  await t?.close();
});

test('a CRD created from a Protobuf body, read and listed in Protobuf: the bytes are our encoding of the JSON answer', async () => {
  const created = await client.request('POST', CRDS, { 'content-type': PROTOBUF, accept: PROTOBUF }, encodeProtobuf(crd()));
  assert.is(created.status, 201, created.body.toString('utf8').slice(0, 500));
  assert.is(created.type, PROTOBUF);
  const back = decodeProtobuf(created.body).object as any;
  assert.equal(back.spec.versions[0].schema.openAPIV3Schema, schema);
  // (The service port is defaulted to 443.)
  assert.equal(back.spec.conversion.webhook.clientConfig, { service: { namespace: 'default', name: 'svc', path: '/convert', port: 443 }, caBundle: Buffer.from('not a CA').toString('base64') });
  await eventually('Established', async () => ((await t.client.request('GET', `${CRDS}/things.${G}`)).json.status?.conditions ?? []).some((x: any) => x.type === 'Established' && x.status === 'True'));

  const json = await t.client.request('GET', `${CRDS}/things.${G}`);
  const pb = await client.request('GET', `${CRDS}/things.${G}`, { accept: PROTOBUF });
  assert.is(pb.status, 200);
  assert.is(pb.type, PROTOBUF);
  assert.equal(decodeProtobuf(pb.body).object, dropNulls(json.json));
  assert.ok(encodeProtobuf(json.json).equals(pb.body), 'the Protobuf answer is the encoding of the JSON one');

  const list = await client.request('GET', `${CRDS}?fieldSelector=metadata.name%3Dthings.${G}`, { accept: PROTOBUF });
  assert.is(list.status, 200);
  const l = decodeProtobuf(list.body).object as any;
  assert.is(l.kind, 'CustomResourceDefinitionList');
  assert.equal(l.items.map((i: any) => i.metadata.name), [`things.${G}`]);
  assert.equal(l.items[0].spec.versions[0].schema.openAPIV3Schema, schema);
});

test.run();
