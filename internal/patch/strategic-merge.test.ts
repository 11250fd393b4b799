/**
 * Strategic merge patch, table-driven: each row is an object as kube's merge sees it (the
 * ToUnstructured form of the stored object), a patch, and the exact merged map or error text.
 * Expected values were produced by k8s.io/apimachinery@v0.24.17 strategicpatch
 * (StrategicMergeMapPatch with PatchMetaFromStruct) on the same inputs. `Widget` is a test kind
 * whose schema covers the strategies the built-in kinds do not (replace, retainKeys on a struct,
 * merge without a key, lists of lists, maps of structs, a bad strategy pair).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SchemaRegistry, StaticSource } from '../schema/registry.ts';
import type { OpenApiSchema } from '../schema/types.ts';
import { SmpError } from './strategic-merge-errors.ts';
import { patchMetaFromSchema, type LookupPatchMeta } from './strategic-merge-meta.ts';
import { patchMetaOf, strategicPatchError } from './strategic-merge-patch.ts';
import { strategicMergeMapPatch } from './strategic-merge.ts';
import { sliceStable } from './strategic-merge-order.ts';

const item = (o: OpenApiSchema = {}): OpenApiSchema => ({ $ref: 'test.Item', ...o });
const merge = (key?: string): Partial<OpenApiSchema> => ({ 'x-kubernetes-patch-strategy': 'merge', ...(key ? { 'x-kubernetes-patch-merge-key': key } : {}) });
const DEFINITIONS: Record<string, OpenApiSchema> = {
  'test.Widget': {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      mergingList: { type: 'array', items: item(), ...merge('name') },
      nonMergingList: { type: 'array', items: item() },
      mergingIntList: { type: 'array', items: { type: 'integer', format: 'int64' }, ...merge() },
      replacedItem: item({ 'x-kubernetes-patch-strategy': 'replace', 'x-go': 'po' }),
      retainedItem: item({ 'x-kubernetes-patch-strategy': 'retainKeys', 'x-go': 'po' }),
      noKeyList: { type: 'array', items: item(), ...merge() },
      listOfLists: { type: 'array', items: { type: 'array', items: { type: 'string' } }, ...merge() },
      mapOfItems: { type: 'object', additionalProperties: item() },
      item: item({ 'x-go': 'po' }),
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      badStrategy: { type: 'array', items: item(), 'x-kubernetes-patch-strategy': 'merge,replace', 'x-kubernetes-patch-merge-key': 'name' },
    },
  },
  'test.Item': {
    type: 'object',
    properties: {
      name: { type: 'string' },
      value: { type: 'string' },
      other: { type: 'string' },
      mergingList: { type: 'array', items: item(), ...merge('name') },
    },
  },
};
const WIDGET = { group: 'test.k8s.io', version: 'v1', kind: 'Widget' };
const testSchemas = new SchemaRegistry([new StaticSource([{ gvk: WIDGET, schema: { $ref: 'test.Widget' } }], DEFINITIONS)]);

function metaFor(apiVersion: string, kind: string): LookupPatchMeta {
  if (kind === 'Widget') return patchMetaFromSchema(testSchemas.openApiKind(WIDGET)!, (n) => testSchemas.openApiDefinition(n));
  return patchMetaOf({ apiVersion, kind });
}

interface Row {
  name: string;
  apiVersion: string;
  kind: string;
  original: Record<string, unknown>;
  patch: Record<string, unknown>;
  want?: Record<string, unknown>;
  error?: string;
}

const ROWS: Row[] = [
  {
    name: "map: keys merge, null deletes, absent null ignored",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"labels":{"a":"1","b":"2"}},
    patch: {"labels":{"b":null,"c":"3","d":null}},
    want: {"labels":{"a":"1","c":"3"}},
  },
  {
    name: "map: $patch replace",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"item":{"name":"x","value":"v"},"labels":{"a":"1"}},
    patch: {"item":{"$patch":"replace","other":"o"}},
    want: {"item":{"other":"o"},"labels":{"a":"1"}},
  },
  {
    name: "map: $patch delete empties the map",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"item":{"name":"x","value":"v"}},
    patch: {"item":{"$patch":"delete","name":"y"}},
    want: {"item":{}},
  },
  {
    name: "map: field with patchStrategy replace is replaced",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"replacedItem":{"name":"x","value":"v"}},
    patch: {"replacedItem":{"other":"o"}},
    want: {"replacedItem":{"other":"o"}},
  },
  {
    name: "map: nulls in a new value are dropped at any depth",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"item":{"name":"x","value":null,"mergingList":[{"name":"a","value":null}]}},
    want: {"item":{"mergingList":[{"name":"a"}],"name":"x"}},
  },
  {
    name: "map: a value of another type replaces",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"labels":{"a":"1"}},
    patch: {"labels":["x",null]},
    want: {"labels":["x",null]},
  },
  {
    name: "map: $retainKeys clears unlisted keys",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"retainedItem":{"name":"x","other":"o","value":"v"}},
    patch: {"retainedItem":{"$retainKeys":["name","other"],"other":"p"}},
    want: {"retainedItem":{"name":"x","other":"p"}},
  },
  {
    name: "map: $retainKeys must list every key the patch sets",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"retainedItem":{"name":"x"}},
    patch: {"retainedItem":{"$retainKeys":["name"],"other":"p"}},
    error: "invalid patch format of retainKeys",
  },
  {
    name: "map: $retainKeys that is not a list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"retainedItem":{"name":"x"}},
    patch: {"retainedItem":{"$retainKeys":"name"}},
    error: "invalid patch format of retainKeys",
  },
  {
    name: "map: unknown $patch",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"item":{"name":"x"}},
    patch: {"item":{"$patch":"merge","value":"v"}},
    error: "unknown patch type: merge in map: map[$patch:merge value:v]",
  },
  {
    name: "map: $patch that is not a string",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"item":{"name":"x"}},
    patch: {"item":{"$patch":2}},
    error: "unknown patch type: %!s(int64=2) in map: map[$patch:2]",
  },
  {
    name: "map: merging into a map of structs fails as in Go",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mapOfItems":{"k":{"name":"a"}}},
    patch: {"mapOfItems":{"k":{"value":"v"}}},
    error: "merging an object in json but data type is not struct, instead is: map",
  },
  {
    name: "list: merge by key, new items first",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a","value":"1"},{"name":"b","value":"2"}]},
    patch: {"mergingList":[{"name":"c"},{"name":"b","value":"3"}]},
    want: {"mergingList":[{"name":"c"},{"name":"a","value":"1"},{"name":"b","value":"3"}]},
  },
  {
    name: "list: nested merge list merges",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"mergingList":[{"name":"x","value":"1"},{"name":"y"}],"name":"a"}]},
    patch: {"mergingList":[{"name":"a","mergingList":[{"name":"x","other":"o"}]}]},
    want: {"mergingList":[{"mergingList":[{"name":"x","other":"o","value":"1"},{"name":"y"}],"name":"a"}]},
  },
  {
    name: "list: $patch delete item",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"},{"name":"b"},{"name":"c"}]},
    patch: {"mergingList":[{"name":"b","$patch":"delete"}]},
    want: {"mergingList":[{"name":"a"},{"name":"c"}]},
  },
  {
    name: "list: $patch delete item without the merge key",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":[{"value":"v","$patch":"delete"}]},
    error: "map: map[$patch:delete value:v] does not contain declared merge key: name",
  },
  {
    name: "list: $patch replace item replaces the list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"},{"name":"b"}]},
    patch: {"mergingList":[{"name":"z","value":"v"},{"$patch":"replace"}]},
    want: {"mergingList":[{"name":"z","value":"v"}]},
  },
  {
    name: "list: $patch merge item is refused",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":[{"name":"a","$patch":"merge"}]},
    error: "merging lists cannot yet be specified in the patch",
  },
  {
    name: "list: unknown $patch item",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":[{"name":"a","$patch":"x"}]},
    error: "unknown patch type: x in map: map[$patch:x name:a]",
  },
  {
    name: "list: patch item without the merge key",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":[{"value":"v"}]},
    error: "map: map[value:v] does not contain declared merge key: name",
  },
  {
    name: "list: items of different types",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":[{"name":"b"},"c"]},
    error: "list element types are not identical: [[map[name:a]] [map[name:b] c]]",
  },
  {
    name: "list: merge strategy without merge key",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"noKeyList":[{"name":"a"}]},
    patch: {"noKeyList":[{"name":"b"}]},
    error: "cannot merge lists without merge key for struct",
  },
  {
    name: "list: list of lists",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"listOfLists":[["a"]]},
    patch: {"listOfLists":[["b"]]},
    error: "unexpected slice of slice",
  },
  {
    name: "list: two strategies but not retainKeys",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"badStrategy":[{"name":"a"}]},
    patch: {"badStrategy":[{"name":"b"}]},
    error: "unexpected patch strategy: [merge replace]",
  },
  {
    name: "list: no strategy replaces",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"nonMergingList":[{"name":"a"},{"name":"b"}]},
    patch: {"nonMergingList":[{"name":"b","value":null}]},
    want: {"nonMergingList":[{"name":"b","value":null}]},
  },
  {
    name: "list: null deletes",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"mergingList":null},
    want: {},
  },
  {
    name: "set: union, patch items first",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingIntList":[1,2,3]},
    patch: {"mergingIntList":[4,2]},
    want: {"mergingIntList":[4,1,2,3]},
  },
  {
    name: "set: $deleteFromPrimitiveList",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingIntList":[1,2,3]},
    patch: {"$deleteFromPrimitiveList/mergingIntList":[2,9]},
    want: {"mergingIntList":[1,3]},
  },
  {
    name: "set: $deleteFromPrimitiveList of an absent list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$deleteFromPrimitiveList/mergingIntList":[2]},
    want: {},
  },
  {
    name: "set: malformed $deleteFromPrimitiveList key",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$deleteFromPrimitiveList":[2]},
    error: "invalid patch format of primitive list",
  },
  {
    name: "set: mixed number types",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingIntList":[1]},
    patch: {"mergingIntList":[1.5]},
    error: "list element types are not identical: [[1] [1.5]]",
  },
  {
    name: "order: map list ordered by $setElementOrder",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"},{"name":"b"},{"name":"c"}]},
    patch: {"$setElementOrder/mergingList":[{"name":"c"},{"name":"d"},{"name":"a"}],"mergingList":[{"name":"d"}]},
    want: {"mergingList":[{"name":"b"},{"name":"c"},{"name":"d"},{"name":"a"}]},
  },
  {
    name: "order: server-only items keep their live place",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"},{"name":"s"},{"name":"b"}]},
    patch: {"$setElementOrder/mergingList":[{"name":"b"},{"name":"a"}],"mergingList":[{"name":"a","value":"v"}]},
    want: {"mergingList":[{"name":"s"},{"name":"b"},{"name":"a","value":"v"}]},
  },
  {
    name: "order: deletion with an addition (Go aliasing)",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"1"},{"name":"2"},{"name":"3"},{"name":"5"}]},
    patch: {"$setElementOrder/mergingList":[{"name":"5"},{"name":"1"},{"name":"4"}],"mergingList":[{"name":"4"},{"name":"2","$patch":"delete"}]},
    want: {"mergingList":[{"name":"3"},{"name":"5"},{"name":"1"},{"name":"4"}]},
  },
  {
    name: "order: set ordered by $setElementOrder",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingIntList":[1,2,3]},
    patch: {"$setElementOrder/mergingIntList":[3,4,1],"mergingIntList":[4]},
    want: {"mergingIntList":[2,3,4,1]},
  },
  {
    name: "order: patch list out of order",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"$setElementOrder/mergingList":[{"name":"a"},{"name":"b"}],"mergingList":[{"name":"b"},{"name":"a"}]},
    error: "The order in patch list:\n[map[name:b] map[name:a]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]\n",
  },
  {
    name: "order: not a list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"$setElementOrder/mergingList":{"name":"a"}},
    error: "expected a []interface {}, but received a map[string]interface {}",
  },
  {
    name: "order: unknown field",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$setElementOrder/nope":[]},
    error: "unable to find api field in struct Widget for the json field \"nope\"",
  },
  {
    name: "order: field that is not a list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$setElementOrder/labels":[]},
    error: "expected slice or array type, but got: struct",
  },
  {
    name: "order: pointer field that is not a list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$setElementOrder/item":[]},
    want: {},
  },
  {
    name: "order: live value that is not a list",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"labels":{"a":"b"}},
    patch: {"$setElementOrder/labels":[]},
    error: "expected a []interface {}, but received a map[string]interface {}",
  },
  {
    name: "order: malformed key",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {},
    patch: {"$setElementOrderX/mergingList":[]},
    error: "invalid patch format of setElementOrder list",
  },
  {
    name: "order: field names fold case",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingList":[{"name":"a"}]},
    patch: {"$setElementOrder/MergingList":[{"name":"a"}]},
    want: {"mergingList":[{"name":"a"}]},
  },
  {
    name: "order: more than 20 items (stable sort blocks)",
    apiVersion: "test.k8s.io/v1",
    kind: "Widget",
    original: {"mergingIntList":[0,7,14,21,28,5,12,19,26,3,10,17,24,1,8,15,22,29,6,13,20,27,4,11,18,25,2,9,16,23]},
    patch: {"$setElementOrder/mergingIntList":[0,11,22,3,14,25,6,17,28,9,20,1,12,23,4,15,26,7,18,29,10,21,2,13,100,101],"mergingIntList":[100,101]},
    want: {"mergingIntList":[0,5,19,24,8,27,11,22,3,14,25,6,17,28,9,20,1,12,16,23,4,15,26,7,18,29,10,21,2,13,100,101]},
  },
  {
    name: "Service: one port changes, the others stay",
    apiVersion: "v1",
    kind: "Service",
    original: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80},{"name":"https","port":443,"protocol":"TCP","targetPort":443}]},"status":{"loadBalancer":{}}},
    patch: {"spec":{"ports":[{"port":443,"targetPort":8443}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80},{"name":"https","port":443,"protocol":"TCP","targetPort":8443}]},"status":{"loadBalancer":{}}},
  },
  {
    name: "Service: ports merge by port only",
    apiVersion: "v1",
    kind: "Service",
    original: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"dns","port":53,"protocol":"UDP","targetPort":53}]},"status":{"loadBalancer":{}}},
    patch: {"spec":{"ports":[{"port":53,"protocol":"TCP","name":"dns-tcp"}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"dns-tcp","port":53,"protocol":"TCP","targetPort":53}]},"status":{"loadBalancer":{}}},
  },
  {
    name: "Service: kubectl apply removing a port",
    apiVersion: "v1",
    kind: "Service",
    original: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80},{"name":"https","port":443,"protocol":"TCP","targetPort":443},{"name":"alt","port":8080,"protocol":"TCP","targetPort":8080}]},"status":{"loadBalancer":{}}},
    patch: {"spec":{"$setElementOrder/ports":[{"port":80},{"port":8080}],"ports":[{"port":443,"$patch":"delete"}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":80},{"name":"alt","port":8080,"protocol":"TCP","targetPort":8080}]},"status":{"loadBalancer":{}}},
  },
  {
    name: "Pod: one container patched by name",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}],"image":"busybox","name":"a","resources":{}},{"image":"busybox","name":"b","resources":{}}]},"status":{}},
    patch: {"spec":{"containers":[{"name":"a","image":"nginx","env":[{"name":"Y","value":"3"}]}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}],"image":"nginx","name":"a","resources":{}},{"image":"busybox","name":"b","resources":{}}]},"status":{}},
  },
  {
    name: "Pod: container ports merge by containerPort",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":81,"protocol":"TCP"}],"resources":{}}]},"status":{}},
    patch: {"spec":{"containers":[{"name":"a","ports":[{"containerPort":81,"name":"m"}]}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":81,"name":"m","protocol":"TCP"}],"resources":{}}]},"status":{}},
  },
  {
    name: "Pod: volume source switched with $retainKeys",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","resources":{}}],"volumes":[{"emptyDir":{},"name":"v"},{"configMap":{"name":"c"},"name":"w"}]},"status":{}},
    patch: {"spec":{"volumes":[{"name":"v","hostPath":{"path":"/d"},"$retainKeys":["hostPath","name"]}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","resources":{}}],"volumes":[{"hostPath":{"path":"/d"},"name":"v"},{"configMap":{"name":"c"},"name":"w"}]},"status":{}},
  },
  {
    name: "Pod: args replaced (no strategy)",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"args":["1","2"],"image":"busybox","name":"a","resources":{}}]},"status":{}},
    patch: {"spec":{"containers":[{"name":"a","args":["3"]}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"args":["3"],"image":"busybox","name":"a","resources":{}}]},"status":{}},
  },
  {
    name: "Pod: a directive inside a new value stays (not processed)",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","resources":{}}]},"status":{}},
    patch: {"spec":{"containers":[{"name":"a","env":[{"name":"X","$patch":"delete"}]}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"env":[{"$patch":"delete","name":"X"}],"image":"busybox","name":"a","resources":{}}]},"status":{}},
  },
  {
    name: "Pod: resources maps merge",
    apiVersion: "v1",
    kind: "Pod",
    original: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}]},"status":{}},
    patch: {"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"1"}}}]}},
    want: {"metadata":{"creationTimestamp":null},"spec":{"containers":[{"image":"busybox","name":"a","resources":{"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"1"}}}]},"status":{}},
  },
  {
    name: "ConfigMap: finalizers merge as a set, labels as a map",
    apiVersion: "v1",
    kind: "ConfigMap",
    original: {"data":{"k":"v"},"metadata":{"creationTimestamp":null,"finalizers":["x/a","x/b"],"labels":{"a":"1"},"name":"c"}},
    patch: {"metadata":{"labels":{"b":"2"},"finalizers":["x/c","x/a"]},"data":{"k":null,"l":"w"}},
    want: {"data":{"l":"w"},"metadata":{"creationTimestamp":null,"finalizers":["x/c","x/a","x/b"],"labels":{"a":"1","b":"2"},"name":"c"}},
  },
  {
    name: "ConfigMap: kubectl apply removing a finalizer",
    apiVersion: "v1",
    kind: "ConfigMap",
    original: {"metadata":{"creationTimestamp":null,"finalizers":["x/a","x/b","x/c"],"name":"c"}},
    patch: {"metadata":{"$deleteFromPrimitiveList/finalizers":["x/b"],"$setElementOrder/finalizers":["x/c","x/a"]}},
    want: {"metadata":{"creationTimestamp":null,"finalizers":["x/c","x/a"],"name":"c"}},
  },
  {
    name: "Namespace: spec.finalizers has no strategy (replaced)",
    apiVersion: "v1",
    kind: "Namespace",
    original: {"metadata":{"creationTimestamp":null,"finalizers":["x/a"],"name":"n"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}},
    patch: {"metadata":{"finalizers":["x/b"]},"spec":{"finalizers":["y"]}},
    want: {"metadata":{"creationTimestamp":null,"finalizers":["x/b","x/a"],"name":"n"},"spec":{"finalizers":["y"]},"status":{"phase":"Active"}},
  },
  {
    name: "Endpoints: subsets have no strategy (replaced)",
    apiVersion: "v1",
    kind: "Endpoints",
    original: {"metadata":{"creationTimestamp":null,"name":"e"},"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80,"protocol":"TCP"}]}]},
    patch: {"subsets":[{"addresses":[{"ip":"10.0.0.2"}]}]},
    want: {"metadata":{"creationTimestamp":null,"name":"e"},"subsets":[{"addresses":[{"ip":"10.0.0.2"}]}]},
  },
  {
    name: "CSINode: drivers merge by name",
    apiVersion: "storage.k8s.io/v1",
    kind: "CSINode",
    original: {"metadata":{"creationTimestamp":null,"name":"n"},"spec":{"drivers":[{"name":"a","nodeID":"1","topologyKeys":null},{"name":"b","nodeID":"2","topologyKeys":null}]}},
    patch: {"spec":{"drivers":[{"name":"b","topologyKeys":["t"]}]}},
    want: {"metadata":{"creationTimestamp":null,"name":"n"},"spec":{"drivers":[{"name":"a","nodeID":"1","topologyKeys":null},{"name":"b","nodeID":"2","topologyKeys":["t"]}]}},
  },
  {
    name: "unknown field under a struct merges in",
    apiVersion: "v1",
    kind: "ConfigMap",
    original: {"metadata":{"creationTimestamp":null,"name":"c"}},
    patch: {"metadata":{"bogus":{"a":1}},"other":[1]},
    want: {"metadata":{"bogus":{"a":1},"creationTimestamp":null,"name":"c"},"other":[1]},
  },
];

for (const r of ROWS) {
  test(r.name, () => {
    const original = structuredClone(r.original);
    const patch = structuredClone(r.patch);
    let got: Record<string, unknown> | undefined;
    let err: string | undefined;
    try {
      got = strategicMergeMapPatch(original, patch, metaFor(r.apiVersion, r.kind));
    } catch (e) {
      if (!(e instanceof SmpError)) throw e;
      err = e.message;
    }
    if (r.error !== undefined) assert.is(err, r.error);
    else {
      assert.is(err, undefined);
      assert.equal(got, r.want);
    }
    assert.equal(original, r.original, 'the original is not modified');
    assert.equal(patch, r.patch, 'the patch is not modified');
  });
}

test('kind without a schema: maps merge, lists are replaced', () => {
  const meta = patchMetaOf({ apiVersion: 'nope.example.com/v1', kind: 'Thing' });
  const got = strategicMergeMapPatch({ metadata: { finalizers: ['a'], labels: { x: '1' } } }, { metadata: { finalizers: ['b'], labels: { y: '2' } } }, meta);
  assert.equal(got, { metadata: { finalizers: ['b'], labels: { x: '1', y: '2' } } });
});

test('status codes: malformed directives 400, lists of lists 422, other errors 500 without a reason', () => {
  const cases: Array<[SmpError, number, string | undefined]> = [
    [new SmpError('invalid patch format of retainKeys', 'badPatchFormatForRetainKeys'), 400, 'BadRequest'],
    [new SmpError('invalid patch format of primitive list', 'badPatchFormatForPrimitiveList'), 400, 'BadRequest'],
    [new SmpError('invalid patch format of setElementOrder list', 'badPatchFormatForSetElementOrderList'), 400, 'BadRequest'],
    [new SmpError('lists of lists are not supported', 'noListOfLists'), 422, 'Invalid'],
    [new SmpError('map: map[a:b] does not contain declared merge key: name'), 500, undefined],
  ];
  for (const [e, code, reason] of cases) {
    const s = strategicPatchError(e).status;
    assert.is(s.code, code, e.message);
    assert.is(s.reason, reason, e.message);
    if (code === 422) assert.equal(s.details, { causes: [{ reason: 'UnexpectedServerResponse', message: e.message }] });
    else assert.is(s.message, e.message);
  }
});

test("sliceStable is Go's sort.SliceStable, also with kube's inconsistent comparators", () => {
  // normalizeSliceOrder's comparator: an item missing from the order list is "less" than anything.
  const byOrder = (order: number[]) => (a: unknown, b: unknown) => {
    const ia = order.indexOf(a as number);
    const ib = order.indexOf(b as number);
    return ia >= 0 && ib >= 0 ? ia < ib : true;
  };
  // Expected values: Go 1.26 sort.SliceStable on the same input and comparator.
  const small = [9, 1, 7, 3, 5, 8];
  sliceStable(small, byOrder([5, 3, 1]));
  assert.equal(small, [8, 5, 3, 7, 1, 9]);
  const big = Array.from({ length: 50 }, (_, i) => (i * 17) % 50);
  sliceStable(big, (a, b) => (a as number) % 10 < (b as number) % 10);
  assert.equal(big, [0, 20, 40, 10, 30, 1, 21, 41, 11, 31, 2, 22, 42, 12, 32, 3, 23, 43, 13, 33, 34, 4, 24, 44, 14, 35, 5, 25, 45, 15, 36, 6, 26, 46, 16, 17, 37, 7, 27, 47, 18, 38, 8, 28, 48, 19, 39, 9, 29, 49]);
  const odd = Array.from({ length: 45 }, (_, i) => (i * 13) % 45);
  sliceStable(odd, byOrder([3, 1, 4, 10, 5, 9, 2, 6]));
  assert.equal(odd, [32, 19, 6, 38, 25, 12, 44, 31, 18, 37, 24, 11, 43, 30, 17, 36, 23, 42, 29, 16, 3, 4, 10, 5, 35, 22, 41, 28, 15, 34, 21, 8, 40, 27, 14, 1, 9, 2, 33, 20, 7, 39, 26, 13, 0]);
});

test.run();
