import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, type ExecFileSyncOptions } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROTOBUF, decodeProtobuf, decodeWatchEvent, encodeProtobuf, encodeWatchEvent, frameWatchEvent, protobufTypeFor } from './protobuf.ts';

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

const meta = (name: string, namespace?: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: `0b6f5c1e-1d1a-4c52-9b7e-${name.padEnd(12, '0').slice(0, 12)}`,
  resourceVersion: '1234',
  creationTimestamp: '2024-05-06T07:08:09Z',
  ...extra,
});

const configMap = {
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: meta('foo', 'default', {
    generation: 3,
    labels: { app: 'web', '10': 'ten', '2': 'two', 'example.com/tier': 'front' },
    annotations: { note: 'hello', empty: '' },
    finalizers: ['example.com/keep'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'a1b2c3d4-0000-0000-0000-000000000001', controller: true, blockOwnerDeletion: false }],
    managedFields: [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-05-06T07:08:09Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
      },
    ],
  }),
  data: { a: 'b', 'multi.line': 'x\ny\n', unicode: 'héllo ✓' },
  binaryData: { 'blob.bin': b64(Buffer.from([0, 1, 2, 253, 254, 255])), empty: '' },
};

const secret = {
  kind: 'Secret',
  apiVersion: 'v1',
  metadata: meta('creds', 'default'),
  type: 'kubernetes.io/basic-auth',
  data: { username: b64('admin'), password: b64('s3cr3t\u0000!') },
  immutable: false,
};

const namespace = {
  kind: 'Namespace',
  apiVersion: 'v1',
  metadata: meta('team-a', undefined, { labels: { 'kubernetes.io/metadata.name': 'team-a' } }),
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

const terminatingNamespace = {
  kind: 'Namespace',
  apiVersion: 'v1',
  metadata: meta('gone', undefined, { deletionTimestamp: '2024-05-06T08:00:00Z', deletionGracePeriodSeconds: 0 }),
  spec: { finalizers: ['kubernetes'] },
  status: {
    phase: 'Terminating',
    conditions: [{ type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2024-05-06T08:00:01Z', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' }],
  },
};

const configMapList = {
  kind: 'ConfigMapList',
  apiVersion: 'v1',
  metadata: { resourceVersion: '5000', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', remainingItemCount: 0 },
  items: [
    { metadata: meta('one', 'default'), data: { k: 'v' } },
    { metadata: meta('two', 'default'), immutable: true },
  ],
};

const status = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'ConfigMap "bad" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters',
  reason: 'Invalid',
  details: {
    name: 'bad',
    kind: 'ConfigMap',
    causes: [
      { reason: 'FieldValueInvalid', message: 'Invalid value: "a b"', field: 'data[a b]' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'metadata.name' },
    ],
  },
  code: 422,
};

const pv = {
  kind: 'PersistentVolume',
  apiVersion: 'v1',
  metadata: meta('pv-csi-1', undefined, { finalizers: ['kubernetes.io/pv-protection'] }),
  spec: {
    capacity: { storage: '10Gi' },
    csi: {
      driver: 'csi.example.com',
      volumeHandle: 'vol-0123',
      fsType: 'ext4',
      volumeAttributes: { 'storage.kubernetes.io/csiProvisionerIdentity': '1700000000000-8081-csi.example.com' },
      nodePublishSecretRef: { name: 'csi-secret', namespace: 'kube-system' },
    },
    accessModes: ['ReadWriteOnce'],
    claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: 'c0ffee00-0000-0000-0000-000000000002', apiVersion: 'v1', resourceVersion: '77' },
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'fast',
    mountOptions: ['noatime'],
    volumeMode: 'Filesystem',
    nodeAffinity: {
      required: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-a', 'zone-b'] }] }],
      },
    },
  },
  status: { phase: 'Bound' },
};

const pvc = {
  kind: 'PersistentVolumeClaim',
  apiVersion: 'v1',
  metadata: meta('data', 'default', { annotations: { 'pv.kubernetes.io/bind-completed': 'yes' } }),
  spec: {
    accessModes: ['ReadWriteOnce'],
    resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
    volumeName: 'pv-csi-1',
    storageClassName: 'fast',
    volumeMode: 'Filesystem',
  },
  status: {
    phase: 'Bound',
    accessModes: ['ReadWriteOnce'],
    capacity: { storage: '10Gi' },
    conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: '2024-05-06T07:09:00Z' }],
  },
};

const storageClass = {
  kind: 'StorageClass',
  apiVersion: 'storage.k8s.io/v1',
  metadata: meta('fast'),
  provisioner: 'csi.example.com',
  parameters: { type: 'ssd' },
  reclaimPolicy: 'Delete',
  allowVolumeExpansion: true,
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['zone-a'] }] }],
};

const volumeAttachment = {
  kind: 'VolumeAttachment',
  apiVersion: 'storage.k8s.io/v1',
  metadata: meta('csi-abc'),
  spec: { attacher: 'csi.example.com', source: { persistentVolumeName: 'pv-csi-1' }, nodeName: 'node-1' },
  status: { attached: false, attachError: { time: '2024-05-06T07:10:00Z', message: 'timed out' } },
};

const csiDriver = {
  kind: 'CSIDriver',
  apiVersion: 'storage.k8s.io/v1',
  metadata: meta('csi.example.com'),
  spec: {
    attachRequired: true,
    podInfoOnMount: false,
    volumeLifecycleModes: ['Persistent'],
    storageCapacity: true,
    fsGroupPolicy: 'File',
    tokenRequests: [{ audience: 'vault', expirationSeconds: 3600 }],
    requiresRepublish: false,
  },
};

const csiNode = {
  kind: 'CSINode',
  apiVersion: 'storage.k8s.io/v1',
  metadata: meta('node-1'),
  spec: { drivers: [{ name: 'csi.example.com', nodeID: 'node-1', topologyKeys: ['topology.kubernetes.io/zone'], allocatable: { count: 0 } }] },
};

const csiStorageCapacity = {
  kind: 'CSIStorageCapacity',
  apiVersion: 'storage.k8s.io/v1',
  metadata: meta('cap-1', 'kube-system'),
  nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'zone-a' } },
  storageClassName: 'fast',
  capacity: '100Gi',
  maximumVolumeSize: '1Ti',
};

const ROUND_TRIPS: [string, Record<string, unknown>][] = [
  ['ConfigMap with data, binaryData, labels, annotations, owner, managedFields, finalizers', configMap],
  ['Secret with data and type', secret],
  ['Namespace with spec.finalizers and status.phase', namespace],
  ['terminating Namespace (deletionTimestamp, conditions)', terminatingNamespace],
  ['ConfigMapList with continue and remainingItemCount', configMapList],
  ['Status with details.causes', status],
  ['PersistentVolume with csi source and nodeAffinity', pv],
  ['PersistentVolumeClaim with resources.requests Quantity', pvc],
  ['StorageClass', storageClass],
  ['VolumeAttachment', volumeAttachment],
  ['CSIDriver', csiDriver],
  ['CSINode', csiNode],
  ['CSIStorageCapacity', csiStorageCapacity],
];

for (const [name, obj] of ROUND_TRIPS) {
  test(`round trip: ${name}`, () => {
    const bytes = encodeProtobuf(obj);
    const got = decodeProtobuf(bytes);
    assert.is(got.kind, obj.kind);
    assert.is(got.apiVersion, obj.apiVersion);
    assert.equal(got.object, obj);
    // and encoding what we decoded gives the same bytes
    assert.ok(encodeProtobuf(got.object).equals(bytes), 'stable re-encoding');
  });
}

test('envelope: magic prefix and runtime.Unknown fields, by hand', () => {
  const b = encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } });
  assert.equal([...b.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  let i = 4;
  // field 1 (typeMeta), length-delimited
  assert.is(b[i++], 0x0a);
  const tmLen = b[i++]!;
  const tm = b.subarray(i, i + tmLen);
  i += tmLen;
  assert.equal([...tm], [0x0a, 2, ...Buffer.from('v1'), 0x12, 9, ...Buffer.from('ConfigMap')]);
  // field 2 (raw)
  assert.is(b[i++], 0x12);
  const rawLen = b[i++]!;
  const raw = b.subarray(i, i + rawLen);
  i += rawLen;
  assert.is(raw[0], 0x0a, 'raw starts with ConfigMap.metadata (field 1)');
  // fields 3 and 4: empty contentEncoding and contentType, as Go writes them
  assert.equal([...b.subarray(i)], [0x1a, 0x00, 0x22, 0x00]);
});

test('time: RFC3339 in, second precision out; MicroTime keeps microseconds', () => {
  const obj = { ...configMap, metadata: { name: 'x', creationTimestamp: '2024-05-06T09:08:09.987654+02:00' } };
  const got = decodeProtobuf(encodeProtobuf(obj)).object as { metadata: Record<string, unknown> };
  assert.is(got.metadata.creationTimestamp, '2024-05-06T07:08:09Z');
  // zero time (Go's 0001-01-01) is an empty message and leaves the field out
  const zero = decodeProtobuf(encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', creationTimestamp: null } })).object;
  assert.equal(zero, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } });
});

test('IntOrString and Quantity helpers through the table', () => {
  assert.is(protobufTypeFor('v1', 'ConfigMap'), 'k8s.io.api.core.v1.ConfigMap');
  assert.is(protobufTypeFor('storage.k8s.io/v1', 'CSINode'), 'k8s.io.api.storage.v1.CSINode');
  assert.is(protobufTypeFor('apps/v1', 'Status'), 'k8s.io.apimachinery.pkg.apis.meta.v1.Status');
  assert.is(protobufTypeFor('example.com/v1', 'Widget'), undefined);
  assert.is(PROTOBUF, 'application/vnd.kubernetes.protobuf');
});

test('DeleteOptions decode (kubectl delete body)', () => {
  const opts = { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, propagationPolicy: 'Background', preconditions: { uid: 'u-1' } };
  assert.equal(decodeProtobuf(encodeProtobuf(opts)).object, opts);
});

test('CustomResourceDefinition: JSONSchemaProps names and unions (JSON, OrArray, OrBool, OrStringArray) round-trip', () => {
  assert.is(protobufTypeFor('apiextensions.k8s.io/v1', 'CustomResourceDefinition'), 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
  const schema = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    type: 'object',
    properties: {
      a: { $ref: '#/x', type: 'string', default: 'x', enum: ['x', null, 1, { o: [true] }], example: { e: 1 }, 'x-kubernetes-list-type': 'atomic' },
      tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      list: { type: 'array', items: { type: 'integer', maximum: 0, minimum: -1.5 } },
      map: { type: 'object', additionalProperties: true, 'x-kubernetes-preserve-unknown-fields': false },
      deps: { type: 'object', dependencies: { a: ['b', 'c'], d: { required: ['e'] } } },
      ios: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-validations': [{ rule: 'self > 0', message: 'm' }] },
    },
    additionalProperties: { type: 'string' },
  };
  const crd = {
    kind: 'CustomResourceDefinition',
    apiVersion: 'apiextensions.k8s.io/v1',
    metadata: { name: 'as.b.c' },
    spec: { group: 'b.c', names: { plural: 'as', kind: 'A' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} } }] },
    status: { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] },
  };
  assert.equal(decodeProtobuf(encodeProtobuf(crd)).object, crd);
});

test('errors: bad prefix, garbage, unknown kind', () => {
  assert.throws(() => decodeProtobuf(Buffer.from('{"kind":"ConfigMap"}')), /prefix 6b 38 73 00/);
  assert.throws(() => decodeProtobuf(Buffer.from([0x6b, 0x38])), /prefix/);
  assert.throws(() => decodeProtobuf(Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from([0x0a, 0x50, 0x01])])), /cannot decode/);
  const good = encodeProtobuf(configMap);
  assert.throws(() => decodeProtobuf(good.subarray(0, good.length - 20)), /cannot decode/);
  assert.throws(() => encodeProtobuf({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: {} }), /no protobuf encoding/);
  const unknownKind = Buffer.from(good);
  unknownKind.write('Configmap', good.indexOf('ConfigMap'), 'latin1');
  assert.throws(() => decodeProtobuf(unknownKind), /no protobuf decoding for v1 Configmap/);
  assert.throws(() => encodeProtobuf({ ...configMap, data: { a: 1 } }), /data\["a"\]: expected a string/);
});

test('watch event: WatchEvent{type, object.raw = full envelope}, framed with a 4-byte big-endian length', () => {
  const ev = encodeWatchEvent('ADDED', configMap);
  const frame = frameWatchEvent(ev);
  assert.is(frame.readUInt32BE(0), ev.length);
  assert.ok(frame.subarray(4).equals(ev));
  assert.is.not(ev.subarray(0, 4).toString('latin1'), 'k8s\0', 'the event itself is not prefixed');
  // field 1 = "ADDED", field 2 = RawExtension{field 1 = envelope}
  assert.equal([...ev.subarray(0, 7)], [0x0a, 5, ...Buffer.from('ADDED')]);
  const envelope = encodeProtobuf(configMap);
  assert.ok(ev.includes(envelope), 'object.raw is the prefixed envelope');
  const back = decodeWatchEvent(ev);
  assert.is(back.type, 'ADDED');
  assert.equal(back.object, configMap);
});

// ---------------------------------------------------------------------------------------------
// Interop with the real Go serializer (k8s.io/apimachinery v0.24.17)
// ---------------------------------------------------------------------------------------------

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GO_CACHE = path.join(ROOT, '.cache', 'go');

const GO_MOD = `module protointerop

go 1.18

require (
	k8s.io/api v0.24.17
	k8s.io/apimachinery v0.24.17
)
`;

// Reads [{name, kind: "object"|"watch", b64}] on stdin. For each: decode with the real protobuf
// serializer, print its JSON (encoding/json, as the apiserver's JSON), and re-encode (bytes).
// Then encodes a few Go-built objects and prints their bytes and JSON.
const GO_MAIN = `package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
)

type in struct {
	Name string \`json:"name"\`
	Kind string \`json:"kind"\`
	B64  string \`json:"b64"\`
}

type out struct {
	Name      string          \`json:"name"\`
	Error     string          \`json:"error,omitempty"\`
	JSON      json.RawMessage \`json:"json,omitempty"\`
	Type      string          \`json:"type,omitempty"\`
	Reencoded string          \`json:"reencoded,omitempty"\`
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func main() {
	scheme := runtime.NewScheme()
	must(corev1.AddToScheme(scheme))
	must(storagev1.AddToScheme(scheme))
	s := protobuf.NewSerializer(scheme, scheme)

	var ins []in
	must(json.NewDecoder(os.Stdin).Decode(&ins))
	var outs []out
	decode := func(data []byte) (runtime.Object, []byte, []byte, error) {
		obj, gvk, err := s.Decode(data, nil, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
		js, err := json.Marshal(obj)
		if err != nil {
			return nil, nil, nil, err
		}
		var buf bytes.Buffer
		if err := s.Encode(obj, &buf); err != nil {
			return nil, nil, nil, err
		}
		return obj, js, buf.Bytes(), nil
	}
	for _, c := range ins {
		data, err := base64.StdEncoding.DecodeString(c.B64)
		must(err)
		o := out{Name: c.Name}
		if c.Kind == "watch" {
			var ev metav1.WatchEvent
			if err := ev.Unmarshal(data); err != nil {
				o.Error = err.Error()
			} else if _, js, _, err := decode(ev.Object.Raw); err != nil {
				o.Error = err.Error()
			} else {
				o.Type = ev.Type
				o.JSON = js
				re, err := ev.Marshal()
				must(err)
				o.Reencoded = base64.StdEncoding.EncodeToString(re)
			}
		} else if _, js, re, err := decode(data); err != nil {
			o.Error = err.Error()
		} else {
			o.JSON = js
			o.Reencoded = base64.StdEncoding.EncodeToString(re)
		}
		outs = append(outs, o)
	}

	// Objects built in Go, as kubectl would send them.
	encode := func(name string, obj runtime.Object, gvk schema.GroupVersionKind) {
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		var buf bytes.Buffer
		must(s.Encode(obj, &buf))
		js, err := json.Marshal(obj)
		must(err)
		outs = append(outs, out{Name: name, JSON: js, Reencoded: base64.StdEncoding.EncodeToString(buf.Bytes())})
	}
	v1 := corev1.SchemeGroupVersion
	encode("go:kubectl-create-configmap", &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "foo"},
		Data:       map[string]string{"a": "b"},
	}, v1.WithKind("ConfigMap"))
	immutable := true
	encode("go:configmap-full", &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: "full", GenerateName: "full-", Namespace: "ns", UID: types.UID("u-1"), ResourceVersion: "9", Generation: 2,
			CreationTimestamp: metav1.Date(2023, 1, 2, 3, 4, 5, 0, time.UTC),
			Labels:            map[string]string{"b": "2", "a": "1", "10": "x", "9": "y"},
			Finalizers:        []string{"f/one"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
				Time: &metav1.Time{Time: metav1.Date(2023, 1, 2, 3, 4, 6, 0, time.UTC).Time}, FieldsType: "FieldsV1",
				FieldsV1: &metav1.FieldsV1{Raw: []byte(\`{"f:data":{"f:a":{}}}\`)},
			}},
		},
		Data:       map[string]string{"a": "b", "": "empty-key"},
		BinaryData: map[string][]byte{"bin": {0, 1, 2, 255}},
		Immutable:  &immutable,
	}, v1.WithKind("ConfigMap"))
	encode("go:secret", &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{"password": []byte("hunter2")},
		StringData: map[string]string{"user": "me"},
	}, v1.WithKind("Secret"))
	grace := int64(0)
	policy := metav1.DeletePropagationForeground
	encode("go:deleteoptions", &metav1.DeleteOptions{GracePeriodSeconds: &grace, PropagationPolicy: &policy}, v1.WithKind("DeleteOptions"))
	must(json.NewEncoder(os.Stdout).Encode(outs))
}
`;

function goEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    GOPATH: GO_CACHE,
    GOMODCACHE: path.join(GO_CACHE, 'mod'),
    GOCACHE: path.join(GO_CACHE, 'build'),
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: 'local',
  };
}

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Go's JSON has `"creationTimestamp": null` and friends where ours leaves the key out. */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}

interface GoOut {
  name: string;
  error?: string;
  json?: Record<string, unknown>;
  type?: string;
  reencoded?: string;
}

test('interop with the Go protobuf serializer (k8s.io/apimachinery v0.24.17)', () => {
  if (!hasGo()) {
    if (process.env.CI === 'true') assert.unreachable('go is not on PATH (CI=true)');
    console.log('  interop test not run: go is not on PATH');
    return;
  }
  mkdirSync(GO_CACHE, { recursive: true });
  const dir = mkdtempSync(path.join(os.tmpdir(), 'k8s-protobuf-interop-'));
  try {
    writeFileSync(path.join(dir, 'go.mod'), GO_MOD);
    writeFileSync(path.join(dir, 'main.go'), GO_MAIN);
    const opts: ExecFileSyncOptions = { cwd: dir, env: goEnv(), stdio: ['pipe', 'pipe', 'pipe'], timeout: 9 * 60 * 1000, maxBuffer: 64 * 1024 * 1024 };
    try {
      execFileSync('go', ['mod', 'tidy'], opts);
    } catch (e) {
      const why = String((e as { stderr?: Buffer }).stderr ?? (e as Error).message).trim();
      if (process.env.CI === 'true') assert.unreachable(`go mod tidy failed (modules cannot be fetched?): ${why}`);
      console.log(`  interop test not run: go mod tidy failed (modules cannot be fetched?): ${why}`);
      return;
    }
    const cases = [
      ...ROUND_TRIPS.map(([name, obj]) => ({ name, kind: 'object', b64: encodeProtobuf(obj).toString('base64') })),
      { name: 'watch ADDED ConfigMap', kind: 'watch', b64: encodeWatchEvent('ADDED', configMap).toString('base64') },
      { name: 'watch ERROR Status', kind: 'watch', b64: encodeWatchEvent('ERROR', status).toString('base64') },
    ];
    let stdout: Buffer;
    try {
      stdout = execFileSync('go', ['run', '.'], { ...opts, input: JSON.stringify(cases) }) as Buffer;
    } catch (e) {
      assert.unreachable(`go run failed: ${String((e as { stderr?: Buffer }).stderr ?? (e as Error).message)}`);
      return;
    }
    const outs = JSON.parse(stdout.toString('utf8')) as GoOut[];
    const byName = new Map(outs.map((o) => [o.name, o]));

    // 1. Go decodes our bytes to the same JSON, and re-encodes them to the very same bytes.
    for (const c of cases) {
      const o = byName.get(c.name)!;
      assert.ok(o, `no Go result for ${c.name}`);
      assert.is(o.error, undefined, `Go could not decode ${c.name}: ${o.error}`);
      const ours = c.kind === 'watch' ? decodeWatchEvent(Buffer.from(c.b64, 'base64')).object : decodeProtobuf(Buffer.from(c.b64, 'base64')).object;
      assert.equal(dropNulls(o.json), ours, `${c.name}: Go JSON differs from ours`);
      assert.is(o.reencoded, c.b64, `${c.name}: Go re-encoding differs from our bytes`);
    }
    assert.is(byName.get('watch ADDED ConfigMap')!.type, 'ADDED');
    assert.is(byName.get('watch ERROR Status')!.type, 'ERROR');

    // 2. We decode Go-encoded objects to Go's JSON, and encode that JSON back to Go's bytes.
    for (const name of ['go:kubectl-create-configmap', 'go:configmap-full', 'go:secret', 'go:deleteoptions']) {
      const o = byName.get(name)!;
      assert.ok(o, `no Go result for ${name}`);
      const goBytes = Buffer.from(o.reencoded!, 'base64');
      const ours = decodeProtobuf(goBytes);
      assert.equal(ours.object, dropNulls(o.json), `${name}: our decoding differs from Go's JSON`);
      assert.is(encodeProtobuf(ours.object).toString('base64'), o.reencoded, `${name}: our encoding differs from Go's bytes`);
    }
    const kubectlCM = decodeProtobuf(Buffer.from(byName.get('go:kubectl-create-configmap')!.reencoded!, 'base64'));
    assert.equal(kubectlCM.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'foo' }, data: { a: 'b' } });
    console.log(`  interop: Go decoded ${cases.length} of our bodies identically (JSON and bytes); we decoded 4 Go bodies identically`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
