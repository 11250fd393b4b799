import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SchemaRegistry, StaticSource, descriptionsOf, fieldAt, generatedSource, schemas, shapeOf } from './registry.ts';
import type { OpenApiSchema, TypeRef } from './types.ts';

const GEN = join(dirname(fileURLToPath(import.meta.url)), 'generated');
const core = (kind: string): TypeRef => {
  const t = schemas().typeOf({ group: '', version: 'v1', kind });
  assert.ok(t, `no schema for v1 ${kind}`);
  return t!;
};
const at = (t: TypeRef, path: string): TypeRef => {
  const f = fieldAt(t, path.split('.'));
  assert.ok(f, `no field ${path}`);
  return f!;
};

// ---------------------------------------------------------------- generator output

test('generated files: served kinds, their lists and the meta types are present', () => {
  const manifest = JSON.parse(readFileSync(join(GEN, 'manifest.json'), 'utf8')) as { kinds: string[]; metaTypes: string[] };
  for (const k of ['v1/Namespace', 'v1/ConfigMap', 'v1/Secret', 'v1/Service', 'v1/Endpoints', 'storage.k8s.io/v1/StorageClass']) assert.ok(manifest.kinds.includes(k), k);
  const names = new Set(generatedSource().names());
  for (const n of ['io.k8s.api.core.v1.ConfigMap', 'io.k8s.api.core.v1.ConfigMapList', 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status', 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']) {
    assert.ok(names.has(n), n);
  }
  for (const k of manifest.kinds) {
    const parts = k.split('/');
    const gvk = parts.length === 2 ? { group: '', version: parts[0], kind: parts[1] } : { group: parts[0], version: parts[1], kind: parts[2] };
    assert.ok(schemas().typeOf(gvk), `kind ${k} resolves`);
  }
});

test('generated files: every $ref resolves, no descriptions at run time, compact', () => {
  const src = generatedSource();
  const refs: string[] = [];
  const collect = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(collect);
    else if (n && typeof n === 'object') for (const [k, v] of Object.entries(n)) k === '$ref' && typeof v === 'string' ? refs.push(v) : collect(v); // (a property named `$ref`, JSONSchemaProps', is an object)
  };
  for (const name of src.names()) collect(src.definition(name));
  assert.ok(refs.length > 100);
  for (const r of refs) assert.ok(src.definition(r), `dangling $ref ${r}`);
  for (const f of readdirSync(GEN)) {
    if (!f.endsWith('.json')) continue;
    // A description is a string under "description"; JSONSchemaProps (CRDs) has a property of that name.
    const described = (n: unknown): boolean =>
      Array.isArray(n) ? n.some(described) : !!n && typeof n === 'object' && Object.entries(n).some(([k, v]) => (k === 'description' && typeof v === 'string') || described(v));
    assert.not.ok(described(JSON.parse(readFileSync(join(GEN, f), 'utf8'))), `${f} holds descriptions`);
    assert.ok(statSync(join(GEN, f)).size < 200_000, `${f} is compact`);
  }
});

test('generated files: list/map/patch extensions and GVKs are kept', () => {
  const src = generatedSource();
  const meta = src.definition('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta')!;
  assert.is(meta.properties!.finalizers['x-kubernetes-patch-strategy'], 'merge');
  assert.is(meta.properties!.ownerReferences['x-kubernetes-patch-merge-key'], 'uid');
  const svc = src.definition('io.k8s.api.core.v1.ServiceSpec')!;
  assert.equal(svc.properties!.ports['x-kubernetes-list-map-keys'], ['port', 'protocol']);
  assert.is(svc.properties!.ports['x-kubernetes-list-type'], 'map');
  assert.is(src.definition('io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector')!['x-kubernetes-map-type'], 'atomic');
  assert.equal(src.definition('io.k8s.api.core.v1.ConfigMap')!['x-kubernetes-group-version-kind'], [{ group: '', kind: 'ConfigMap', version: 'v1' }]);
  assert.equal(src.definition('io.k8s.api.core.v1.ConfigMap')!.properties!.data.additionalProperties, { type: 'string' });
});

test('generated files: Go field presence codes (x-go)', () => {
  const src = generatedSource();
  const ns = src.definition('io.k8s.api.core.v1.Namespace')!.properties!;
  assert.is(ns.spec['x-go'], 'so'); // value struct
  assert.is(src.definition('io.k8s.api.core.v1.ConfigMap')!.properties!.immutable['x-go'], 'po'); // *bool
  assert.is(src.definition('io.k8s.api.core.v1.NamespaceCondition')!.properties!.lastTransitionTime['x-go'], 'to');
  assert.is(src.definition('io.k8s.api.core.v1.NamespaceCondition')!.properties!.status['x-go'], 'v');
  assert.is(src.definition('io.k8s.api.core.v1.PodSpec')!.properties!.containers['x-go'], 'l'); // no omitempty
  // Fields of inline-embedded Go structs (Volume embeds VolumeSource) are found too.
  assert.is(src.definition('io.k8s.api.core.v1.Volume')!.properties!.hostPath['x-go'], 'po');
});

test('descriptions live apart', () => {
  const d = descriptionsOf('io.k8s.api.core.v1.ConfigMap')!;
  assert.match(d[''], /ConfigMap holds configuration data/);
  assert.match(d['immutable'], /Immutable/);
});

// ---------------------------------------------------------------- lookups

test('shapes of well-known fields', () => {
  const cm = core('ConfigMap');
  assert.equal(shapeOf(cm).kind, 'struct');
  assert.equal(shapeOf(at(cm, 'data')), { kind: 'map' });
  assert.equal(shapeOf(at(cm, 'metadata.labels')), { kind: 'map' });
  assert.equal(shapeOf(at(cm, 'metadata.finalizers')), { kind: 'list', listType: 'set' });
  assert.equal(shapeOf(at(cm, 'metadata.ownerReferences')), { kind: 'list', listType: 'map', keys: ['uid'] });
  assert.equal(shapeOf(at(cm, 'metadata.name')), { kind: 'scalar', scalar: 'string' });
  assert.equal(shapeOf(at(cm, 'metadata.creationTimestamp')), { kind: 'scalar', scalar: 'untyped' });
  assert.equal(shapeOf(at(cm, 'immutable')), { kind: 'scalar', scalar: 'boolean' });
  const ns = core('Namespace');
  assert.equal(shapeOf(at(ns, 'spec.finalizers')), { kind: 'list', listType: 'atomic' });
  assert.equal(shapeOf(at(ns, 'status.conditions')), { kind: 'list', listType: 'map', keys: ['type'] });
  const svc = core('Service');
  assert.equal(shapeOf(at(svc, 'spec.ports')), { kind: 'list', listType: 'map', keys: ['port', 'protocol'] });
  assert.equal(shapeOf(at(svc, 'spec.ports.targetPort')), { kind: 'scalar', scalar: 'untyped' }); // int-or-string
  assert.equal(shapeOf(at(svc, 'spec.selector')), { kind: 'atomic' }); // x-kubernetes-map-type: atomic
  const pod = core('Pod');
  assert.equal(shapeOf(at(pod, 'spec.containers')), { kind: 'list', listType: 'map', keys: ['name'] });
  assert.equal(shapeOf(at(pod, 'spec.containers.resources.limits')), { kind: 'map' });
  assert.equal(shapeOf(at(pod, 'spec.containers.resources.limits.cpu')), { kind: 'scalar', scalar: 'untyped' }); // Quantity
  assert.equal(shapeOf(at(pod, 'spec.tolerations')), { kind: 'list', listType: 'atomic' });
  assert.equal(shapeOf(at(pod, 'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution.labelSelector')), { kind: 'atomic' });
  const sc = schemas().typeOf({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' })!;
  assert.equal(shapeOf(at(sc, 'parameters')), { kind: 'map' });
  assert.is(fieldAt(cm, ['nope']), undefined);
  assert.is(schemas().typeOf({ group: '', version: 'v1', kind: 'Nope' }), undefined);
  assert.is(schemas().typeOf({ group: 'apps', version: 'v1', kind: 'ConfigMap' }), undefined);
});

test('RawExtension is untyped and atomic; untyped nodes take the value\'s form', () => {
  const r = new SchemaRegistry([generatedSource()]);
  const raw = r.definition('io.k8s.apimachinery.pkg.runtime.RawExtension')!;
  assert.equal(shapeOf(raw, { a: 1 }), { kind: 'atomic' });
  assert.equal(shapeOf(raw, [1]), { kind: 'list', listType: 'atomic' });
  assert.equal(shapeOf(raw, 'x'), { kind: 'scalar', scalar: 'untyped' });
});

test('a CRD structural schema registers at run time and unregisters', () => {
  const r = new SchemaRegistry([generatedSource()]);
  const gvk = { group: 'example.com', version: 'v1', kind: 'Widget' };
  const schema: OpenApiSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          size: { 'x-kubernetes-int-or-string': true },
          opaque: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        },
      },
    },
  };
  assert.is(r.typeOf(gvk), undefined);
  const off = r.register(new StaticSource([{ gvk, schema }]));
  const w = r.typeOf(gvk)!;
  assert.equal(shapeOf(at(w, 'spec.ports')), { kind: 'list', listType: 'map', keys: ['name'] });
  assert.equal(shapeOf(at(w, 'spec.tags')), { kind: 'list', listType: 'set' });
  // Unknown fields are kept: their values are "deduced" (maps granular, lists atomic).
  assert.equal(shapeOf(at(w, 'spec.free')), { kind: 'map' });
  assert.equal(shapeOf(at(w, 'spec.free.anything.deeper'), 'x'), { kind: 'scalar', scalar: 'untyped' });
  assert.equal(shapeOf(at(w, 'spec.free.anything'), { a: 1 }), { kind: 'map' });
  assert.equal(shapeOf(at(w, 'spec.free.anything'), [1]), { kind: 'list', listType: 'atomic' });
  assert.equal(shapeOf(at(w, 'spec.size')), { kind: 'scalar', scalar: 'untyped' });
  assert.equal(shapeOf(at(w, 'spec.opaque')), { kind: 'atomic' });
  off();
  assert.is(r.typeOf(gvk), undefined);
});

test.run();
