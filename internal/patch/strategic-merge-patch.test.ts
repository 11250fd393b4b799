/**
 * strategicPatch on stored objects: a merged result that does not convert into the Go type is
 * kube's 422 naming the patch as the merge left it, with runtime.DefaultUnstructuredConverter's
 * error text (expected values as kube-apiserver 1.24.17 answers the same patches).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../api/errors.ts';
import type { KubeObject } from '../api/types.ts';
import { strategicPatch } from './strategic-merge-patch.ts';

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' }, finalizers: ['x.io/a'] }, data: { a: '1' } } as KubeObject;
const svc = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's' },
  spec: { ports: [{ protocol: 'TCP', port: 80, targetPort: 80 }], selector: { a: 'b' }, clusterIP: 'None', type: 'ClusterIP' },
  status: { loadBalancer: {} },
} as KubeObject;

const ROWS: Array<[string, KubeObject, Record<string, unknown>, string | undefined]> = [
  ['map value of the wrong type', cm, { data: { a: { b: 1 } } }, 'map[data:map[a:map[b:1]]]: unrecognized type: string'],
  ['int into a string', cm, { metadata: { labels: { a: 1 } } }, 'map[metadata:map[labels:map[a:1]]]: cannot convert int64 to string'],
  ['list into a map', cm, { data: [1] }, 'map[data:[1]]: cannot restore map from slice'],
  ['string into a *bool', cm, { immutable: 'yes' }, 'map[immutable:yes]: unrecognized type: bool'],
  ['bad base64', cm, { binaryData: { a: 'not base64!' } }, 'map[binaryData:map[a:not base64!]]: error decoding from json: illegal base64 data at input byte 3'],
  ['a number into []byte', cm, { binaryData: { a: 5 } }, 'map[binaryData:map[a:5]]: cannot restore slice from int64'],
  ['directives the merge consumed are not printed', cm, { metadata: { '$setElementOrder/finalizers': ['x.io/b', 'x.io/a'], finalizers: ['x.io/b'] }, data: { q: true } }, 'map[data:map[q:true] metadata:map[]]: unrecognized type: string'],
  ['string into int32 (a new list item)', svc, { spec: { ports: [{ port: 'x' }] } }, 'map[spec:map[ports:[map[port:x]]]]: unrecognized type: int32'],
  ['int into a named string type', svc, { spec: { type: 5 } }, 'map[spec:map[type:5]]: cannot convert int64 to v1.ServiceType'],
  ['string into a struct', svc, { spec: 'x' }, 'map[spec:x]: cannot restore struct from: string'],
  ['fraction into int32', svc, { spec: { sessionAffinityConfig: { clientIP: { timeoutSeconds: 1.5 } } } }, 'map[spec:map[sessionAffinityConfig:map[clientIP:map[timeoutSeconds:1.5]]]]: cannot convert float64 to int32'],
  ['IntOrString: fraction', svc, { spec: { ports: [{ port: 80, targetPort: 1.5 }] } }, 'map[spec:map[ports:[map[port:80 targetPort:1.5]]]]: json: cannot unmarshal number 1.5 into Go value of type int32'],
  ['IntOrString: object', svc, { spec: { ports: [{ port: 80, targetPort: { a: 1 } }] } }, 'map[spec:map[ports:[map[port:80 targetPort:map[a:1]]]]]: json: cannot unmarshal object into Go value of type int32'],
  ['Time: not a string', svc, { metadata: { creationTimestamp: ['x'] } }, 'map[metadata:map[creationTimestamp:[x]]]: json: cannot unmarshal array into Go value of type string'],
  ['Time: bad layout', svc, { metadata: { creationTimestamp: 'bad' } }, 'map[metadata:map[creationTimestamp:bad]]: parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'],
  ['unknown fields are ignored', svc, { spec: { bogus: [1] }, other: 'x' }, undefined],
  ['float into an integral int32 is fine', svc, { spec: { ports: [{ port: 80.0 }] } }, undefined],
];

for (const [name, obj, patch, want] of ROWS) {
  test(name, () => {
    let got: string | undefined;
    try {
      strategicPatch(obj, patch);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      assert.is(e.status.code, 422);
      got = e.status.message;
    }
    if (want === undefined) assert.is(got, undefined);
    else {
      const colon = want.indexOf(']: ') + 1;
      assert.is(got, ` "" is invalid: patch: Invalid value: ${JSON.stringify(want.slice(0, colon))}${want.slice(colon)}`);
    }
  });
}

test.run();
