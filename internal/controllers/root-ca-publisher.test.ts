import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import type { Change } from '../storage/mvcc/materializer.ts';
import { rootCaTrigger, rootCaAction, DESCRIPTION, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP } from './root-ca-publisher.ts';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

const change = (type: Change['type'], resource: string, namespace: string, name: string, object: unknown = {}): Change => ({
  offset: 1,
  type,
  key: { group: '', resource, namespace, name },
  object: Buffer.from(JSON.stringify(object)),
  time: 0,
});
const nsObj = (phase: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' }, status: { phase } });

const triggerCases: [string, Change, string | undefined][] = [
  ['namespace added', change('ADDED', 'namespaces', '', 'a', nsObj('Active')), 'a'],
  ['namespace updated while Active', change('MODIFIED', 'namespaces', '', 'a', nsObj('Active')), 'a'],
  ['namespace updated while Terminating', change('MODIFIED', 'namespaces', '', 'a', nsObj('Terminating')), undefined],
  ['namespace deleted', change('DELETED', 'namespaces', '', 'a', nsObj('Terminating')), undefined],
  ['the configmap updated', change('MODIFIED', 'configmaps', 'a', ROOT_CA_CONFIGMAP), 'a'],
  ['the configmap deleted', change('DELETED', 'configmaps', 'a', ROOT_CA_CONFIGMAP), 'a'],
  ['the configmap added (kube has no add handler)', change('ADDED', 'configmaps', 'a', ROOT_CA_CONFIGMAP), undefined],
  ['another configmap deleted', change('DELETED', 'configmaps', 'a', 'other'), undefined],
  ['a secret of that name deleted', change('DELETED', 'secrets', 'a', ROOT_CA_CONFIGMAP), undefined],
];
triggerCases.forEach(([label, c, want], i) => {
  test(`trigger ${i}: ${label}`, () => assert.is(rootCaTrigger(c), want));
});

const cm = (data: unknown, annotations?: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: ROOT_CA_CONFIGMAP, namespace: 'a', resourceVersion: '7', ...(annotations ? { annotations } : {}) },
  ...(data === undefined ? {} : { data }),
  ...extra,
});
const good = { [DESCRIPTION_ANNOTATION]: DESCRIPTION };

test('missing → create with the description annotation and ca.crt', () => {
  assert.equal(rootCaAction('a', null, CA), {
    op: 'create',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: 'a', annotations: good }, data: { 'ca.crt': CA } },
  });
});

test('in sync → nothing (any non-empty description will do, other keys in annotations too)', () => {
  assert.is(rootCaAction('a', cm({ 'ca.crt': CA }, good), CA), null);
  assert.is(rootCaAction('a', cm({ 'ca.crt': CA }, { [DESCRIPTION_ANNOTATION]: 'mine', x: 'y' }), CA), null);
  // binaryData and labels are not the publisher's business (reflect.DeepEqual on Data only).
  assert.is(rootCaAction('a', cm({ 'ca.crt': CA }, good, { binaryData: { b: 'AA==' } }), CA), null);
});

const driftCases: [string, KubeObject, KubeObject][] = [
  ['ca.crt changed', cm({ 'ca.crt': 'x' }, good), cm({ 'ca.crt': CA }, good)],
  ['extra key', cm({ 'ca.crt': CA, other: '1' }, good), cm({ 'ca.crt': CA }, good)],
  ['data gone', cm(undefined, good), cm({ 'ca.crt': CA }, good)],
  ['annotation gone, others kept', cm({ 'ca.crt': CA }, { keep: 'me' }), cm({ 'ca.crt': CA }, { keep: 'me', ...good })],
  ['annotation empty', cm({ 'ca.crt': CA }, { [DESCRIPTION_ANNOTATION]: '' }), cm({ 'ca.crt': CA }, good)],
  ['no annotations at all', cm({ 'ca.crt': CA }), cm({ 'ca.crt': CA }, good)],
  ['labels and binaryData kept', cm({}, undefined, { binaryData: { b: 'AA==' } }), cm({ 'ca.crt': CA }, good, { binaryData: { b: 'AA==' } })],
];
driftCases.forEach(([label, current, want], i) => {
  test(`drift ${i}: ${label} → update carrying the resourceVersion read`, () => {
    const before = structuredClone(current);
    const a = rootCaAction('a', current, CA);
    assert.equal(a, { op: 'update', object: want });
    assert.is(a!.object.metadata.resourceVersion, '7');
    assert.equal(current, before, 'the stored object is not modified');
  });
});

test.run();
