/**
 * What docs/adding-a-kind.md requires of every built-in kind, checked for each kind the
 * descriptors declare (internal/registry/kinds.ts), so a kind added without a step fails here:
 *   - the schema manifest (cmd/gen-schemas.ts) lists exactly the kinds the descriptors carry in
 *     bodies (internal/registry/kind-types.ts), and each of them and each List has a generated schema;
 *   - each has a protobuf message (proto/k8s.proto, cmd/gen-proto.ts) the codec round-trips;
 *   - a kind has a Table printer exactly where kube-apiserver 1.24's registry has one (its
 *     storage.go uses printerstorage.TableConvertor, else kube's default Name/Created At columns);
 *   - over HTTP: discovery lists each served kind, the OpenAPI v2 document defines it and its List,
 *     and each listable kind's List answers in Protobuf and decodes to its list kind.
 * The first three read this tree (and kube's sources in the Go module cache, as cmd/gen-proto.ts
 * does: a missing cache fails the suite); the HTTP test runs here and against the reference:
 *   node --import tsx test/run.ts test/kinds.test.ts
 *   TEST_KUBECONFIG=/tmp/ref/kubeconfig node --import tsx test/run.ts test/kinds.test.ts
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { defaultKinds } from '../internal/registry/kinds.ts';
import { bodyKinds, kindTypeName } from '../internal/registry/kind-types.ts';
import type { KindDescriptor } from '../internal/registry/rest/strategy.ts';
import { generatedSource } from '../internal/schema/registry.ts';
import { PROTOBUF, decodeProtobuf, encodeProtobuf } from '../internal/http/protobuf.ts';
import { readKubeconfig, startTarget } from './target.ts';

const apiVersion = (group: string, version: string): string => (group ? `${group}/${version}` : version);
const listable = (d: KindDescriptor): boolean => !d.virtual;

/** Every group/version/kind the recipe covers: served kinds, their Lists, subresource kinds. */
function kindTypes(): { group: string; version: string; kind: string }[] {
  const out: { group: string; version: string; kind: string }[] = [];
  for (const d of defaultKinds) {
    for (const version of d.versions) {
      out.push({ group: d.group, version, kind: d.kind });
      if (listable(d)) out.push({ group: d.group, version, kind: d.listKind });
    }
    for (const s of d.subresources ?? []) if (s.kind && s.kind.generated !== false) out.push(s.kind);
    out.push(...(d.optionalSubresourceKinds ?? []));
  }
  return out;
}

test('the schema manifest lists exactly the kinds the descriptors carry in bodies', () => {
  const manifest = JSON.parse(readFileSync(new URL('../internal/schema/generated/manifest.json', import.meta.url), 'utf8')) as { kinds: string[] };
  assert.equal([...manifest.kinds].sort(), bodyKinds(defaultKinds).sort(), 'run npm run gen:schemas (docs/adding-a-kind.md)');
  for (const d of defaultKinds) if (listable(d)) assert.is(d.listKind, `${d.kind}List`, `${d.kind}: kube names a list kind <Kind>List`);
});

test('every kind, List and subresource kind has a generated schema and a protobuf message the codec round-trips', () => {
  const source = generatedSource();
  const missing: string[] = [];
  for (const { group, version, kind } of kindTypes()) {
    const name = kindTypeName(group, version, kind);
    if (!source.kind({ group, version, kind })) {
      missing.push(`${name}: no schema`);
      continue;
    }
    const obj = kind.endsWith('List') ? { apiVersion: apiVersion(group, version), kind, metadata: { resourceVersion: '7' }, items: [] } : { apiVersion: apiVersion(group, version), kind, metadata: { name: 'x' } };
    try {
      const back = decodeProtobuf(encodeProtobuf(obj));
      assert.is(back.kind, kind);
      assert.is(back.apiVersion, obj.apiVersion);
      assert.equal((back.object.metadata as Record<string, unknown>) ?? {}, obj.metadata, `${name} metadata`);
    } catch (e) {
      missing.push(`${name}: ${(e as Error).message}`);
    }
  }
  assert.equal(missing, [], 'run npm run gen:schemas and node --import tsx cmd/gen-proto.ts (docs/adding-a-kind.md)');
});

/** The Go module cache holding k8s.io/kubernetes@v1.24.17 (the places cmd/gen-proto.ts looks). */
function kubeSource(): string {
  const roots = [process.env.GOMODCACHE, process.env.GOPATH && join(process.env.GOPATH, 'pkg/mod'), join(homedir(), '.cache/kube-ref/gopath/pkg/mod'), join(homedir(), 'go/pkg/mod')];
  for (const r of roots) if (r && existsSync(join(r, 'k8s.io/kubernetes@v1.24.17'))) return join(r, 'k8s.io/kubernetes@v1.24.17');
  throw new Error('k8s.io/kubernetes@v1.24.17 is not in the Go module cache (see cmd/gen-proto.ts)');
}

/**
 * resource → whether kube-apiserver 1.24's registry store converts it to a Table with the
 * printers (pkg/printers/internalversion) or with rest.NewDefaultTableConvertor, read from each
 * pkg/registry/<group>/<resource>/storage/storage.go (and apiextensions-apiserver's CRD etcd.go).
 */
function kubeTablePrinters(): Map<string, boolean> {
  const root = join(kubeSource(), 'pkg/registry');
  const out = new Map<string, boolean>();
  // apiextensions-apiserver's own registry (CustomResourceDefinition) beside kube's.
  const extensions = join(kubeSource(), '../apiextensions-apiserver@v0.24.17/pkg/registry/customresourcedefinition/etcd.go');
  // kube-aggregator's APIService REST has a ConvertToTable of its own (Name, Service, Available, Age).
  const aggregator = join(kubeSource(), '../kube-aggregator@v0.24.17/pkg/registry/apiservice/etcd/etcd.go');
  const files: string[] = [extensions, aggregator].filter((f) => existsSync(f));
  for (const group of readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    for (const kind of readdirSync(join(root, group.name))) files.push(join(root, group.name, kind, 'storage/storage.go'));
  }
  for (const file of files) {
    if (!existsSync(file)) continue;
    const src = readFileSync(file, 'utf8');
    const printers = src.includes('printerstorage.TableConvertor') || src.includes(') ConvertToTable(');
    const vars = new Map([...src.matchAll(/(\w+) := \w+\.Resource\("([\w.]+)"\)/g)].map((m) => [m[1]!, m[2]!]));
    for (const m of src.matchAll(/DefaultQualifiedResource:\s*(?:\w+\.Resource\("([\w.]+)"\)|(\w+))/g)) {
      const resource = m[1] ?? vars.get(m[2]!);
      if (resource) out.set(resource, printers);
    }
  }
  return out;
}

test('a kind has a Table printer exactly where kube-apiserver 1.24 has one (else kube prints Name and Created At)', () => {
  const kube = kubeTablePrinters();
  for (const d of defaultKinds) {
    if (d.virtual) {
      assert.is(d.table, undefined, `${d.kind}: a virtual kind has no Table`);
      continue;
    }
    if (d.computed) {
      // A storage-less REST (ComponentStatus): kube's pkg/registry/<group>/<singular>/rest.go.
      const rest = join(kubeSource(), 'pkg/registry', d.group ? d.group.split('.')[0]! : 'core', d.singular, 'rest.go');
      assert.is(!!d.table, readFileSync(rest, 'utf8').includes('printerstorage.TableConvertor'), `${d.resource}: ${rest}`);
      continue;
    }
    assert.ok(kube.has(d.resource), `${d.resource}: no kube registry storage.go names it`);
    assert.is(!!d.table, kube.get(d.resource), `${d.group}/${d.resource}: kube ${kube.get(d.resource) ? 'prints it (port its printer)' : 'uses the default columns (no table)'}`);
  }
});

test('over HTTP: discovery lists each kind, OpenAPI v2 defines it and its List, Lists answer in Protobuf', async () => {
  const t = await startTarget();
  const k = readKubeconfig(t.kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  try {
    const openapi = (await t.client.request('GET', '/openapi/v2')).json as { definitions: Record<string, { 'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[] }> };
    const defined = new Set(Object.values(openapi.definitions).flatMap((d) => (d['x-kubernetes-group-version-kind'] ?? []).map((g) => kindTypeName(g.group, g.version, g.kind))));
    for (const d of defaultKinds) {
      for (const version of d.versions) {
        const gv = apiVersion(d.group, version);
        const base = d.group ? `/apis/${gv}` : `/api/${gv}`;
        const discovery = (await t.client.request('GET', base)).json as { resources: { name: string; kind: string }[] };
        assert.equal(discovery.resources.find((r) => r.name === d.resource)?.kind, d.kind, `${gv} ${d.resource} in discovery`);
        assert.ok(defined.has(kindTypeName(d.group, version, d.kind)), `${gv} ${d.kind} in /openapi/v2`);
        if (!listable(d)) continue;
        assert.ok(defined.has(kindTypeName(d.group, version, d.listKind)), `${gv} ${d.listKind} in /openapi/v2`);
        const headers: Record<string, string> = { accept: PROTOBUF };
        if (k.token) headers.authorization = `Bearer ${k.token}`;
        const r = await request(`${k.server}${base}/${d.resource}?limit=1`, { headers, dispatcher: agent });
        const body = Buffer.from(await r.body.arrayBuffer());
        assert.is(r.statusCode, 200, `${gv} ${d.resource} list in Protobuf`);
        assert.is(String(r.headers['content-type']), PROTOBUF);
        const list = decodeProtobuf(body);
        assert.is(`${list.apiVersion} ${list.kind}`, `${gv} ${d.listKind}`);
        assert.ok(Array.isArray(list.object.items), `${gv} ${d.listKind} items`);
      }
    }
  } finally {
    await agent.close();
    await t.close();
  }
});

test.run();
